package feasible

import (
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// termInfo is what the walk knows of a term: the term it is a part of,
// and whether it is an element of a slice or a read of a field of shared
// state. (A term that is none of these is not noted.)
type termInfo struct {
	parent string
	elemOf string    // the term is one element of this slice
	read   *readInfo // the term is one read of a field of shared state
	// sent is, for a term of a message handed to the path, the read the
	// sender made of it.
	sent *readSrc
	// counter is the phi of a loop's counter, which starts at least and
	// only grows (countsUp): the term is never below least.
	counter *ssa.Phi
	least   int64
	// at is what the loop ranges over, when it is a range loop, and
	// start the first value of its index (least+1: go/ssa adds one before
	// the test); else start is least.
	at    token.Pos
	start int64
	// look is, for the entry a map lookup gives, the lookup.
	look *lookInfo
	// sub is, for a difference of two integers that the path does not
	// follow as a term plus a constant, the subtraction (see subSrc).
	sub *ssa.BinOp
	// floor is, for an integer the code computes from parts it never
	// lets go below some value (leastOf), that value and where.
	floor *floorNote
}

// floorNote is a term's floor: the value it is never below, and the
// value of the code it is.
type floorNote struct {
	least int64
	v     ssa.Value
	info  leastInfo
}

// countsUp reports whether phi is a loop's counter: each of its edges is
// an integer constant (where the loop starts) or phi plus a constant that
// is not negative (a pass); least is the smallest start. (A counter that
// overflows its type is not considered: no loop of the server's runs that
// long.)
func countsUp(phi *ssa.Phi) (least int64, ok bool) {
	if !isInteger(phi.Type()) {
		return 0, false
	}
	for _, e := range phi.Edges {
		switch x := e.(type) {
		case *ssa.Const:
			c, exact := constInt(x)
			if !exact {
				return 0, false
			}
			if !ok || c < least {
				least, ok = c, true
			}
		case *ssa.BinOp:
			k, ok := x.Y.(*ssa.Const)
			if x.Op != token.ADD || x.X != phi || !ok {
				return 0, false
			}
			if c, exact := constInt(k); !exact || c < 0 {
				return 0, false
			}
		default:
			return 0, false
		}
	}
	return least, ok
}

// constInt is an integer constant's value; exact is false when it is
// not one or does not fit an int64.
func constInt(c *ssa.Const) (int64, bool) {
	if c.Value == nil || c.Value.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(c.Value)
}

// readInfo is one read of a field of shared state: a value of its own,
// since the field may change between two reads, unless a lock keeps it
// still (see locks.go).
type readInfo struct {
	base  string // the term of the struct read from
	field *types.Var
	fr    *frame
	at    ssa.Value // the load
}

// readSrcOf is the field read term t is on the path, or whose slice t
// is an element of; nil when it is neither.
func (w *walk) readSrcOf(t string) *readSrc {
	ti, ok := w.terms[t]
	if !ok {
		return nil
	}
	if ti.read != nil {
		return &readSrc{field: ti.read.field, pos: ti.read.at.Pos(), fn: instrFunc(ti.read.at)}
	}
	if ti.sub != nil {
		return w.c.subSrc(ti.sub)
	}
	if ti.parent == "" || !strings.HasPrefix(t, ti.parent+"[") {
		return nil
	}
	if pr := w.terms[ti.parent].read; pr != nil {
		if _, isSlice := pr.field.Type().Underlying().(*types.Slice); isSlice {
			return &readSrc{field: pr.field, elem: true, pos: pr.at.Pos(), fn: instrFunc(pr.at)}
		}
	}
	return nil
}

// instrFunc is the function of v, when it is an instruction.
func instrFunc(v ssa.Value) *ssa.Function {
	if ins, ok := v.(ssa.Instruction); ok {
		return ins.Parent()
	}
	return nil
}

type readKey struct {
	base  string
	field *types.Var
}

func (w *walk) note(t string, ti termInfo) {
	if _, ok := w.terms[t]; !ok {
		w.terms[t] = ti
	}
}

// noteFloor records the floor of term t, the value v of the code.
func (w *walk) noteFloor(t string, v ssa.Value) {
	if ti, ok := w.terms[t]; ok && ti.floor != nil {
		return
	}
	fl := w.c.leastOf(v)
	if !fl.ok {
		return
	}
	ti := w.terms[t]
	ti.floor = &floorNote{least: fl.least, v: v, info: fl}
	w.terms[t] = ti
}

// read is field fv (named name) of base, read by instruction at of frame
// f. A field of the input (the request) is the same value wherever it is
// read; a field of shared state is a value of its own at each read.
func (w *walk) read(f *frame, base *value, name string, fv *types.Var, at ssa.Value) *value {
	org := base.org
	if org == fixed {
		org = state
	}
	t := base.term + "." + name
	ti := termInfo{parent: base.term}
	if org != input && at != nil && fv != nil {
		t += "@" + at.Name() + "/" + itoa(f.id)
		ti.read = &readInfo{base: base.term, field: fv, fr: f, at: at}
		if _, known := w.terms[t]; !known {
			k := readKey{base.term, fv}
			if len(w.reads[k]) == 0 {
				w.readFields[base.term] = append(w.readFields[base.term], k)
			}
			w.reads[k] = append(w.reads[k], t)
			sb := w.stableTerm(base.term, w.c.owner(fv))
			if w.readsOf[fv] == nil {
				w.readsOf[fv] = map[string][]string{}
			}
			w.readsOf[fv][sb] = append(w.readsOf[fv][sb], t)
		}
	}
	w.note(t, ti)
	v := termVal(t, org)
	v.why = base.why
	return v
}

// elements returns the slices term t is (a part of) an element of, with
// the element's term, nearest first.
func (w *walk) elements(t string) [][2]string {
	var out [][2]string
	for k := 0; t != "" && k < 16; k++ {
		ti, ok := w.terms[t]
		if !ok {
			break
		}
		if ti.elemOf != "" {
			out = append(out, [2]string{ti.elemOf, t})
		}
		t = ti.parent
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }
