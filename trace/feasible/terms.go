package feasible

import (
	"go/types"
	"strconv"

	"golang.org/x/tools/go/ssa"
)

// termInfo is what the walk knows of a term: the term it is a part of,
// and whether it is an element of a slice or a read of a field of shared
// state. (A term that is none of these is not noted.)
type termInfo struct {
	parent string
	elemOf string    // the term is one element of this slice
	read   *readInfo // the term is one read of a field of shared state
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

type readKey struct {
	base  string
	field *types.Var
}

func (w *walk) note(t string, ti termInfo) {
	if _, ok := w.terms[t]; !ok {
		w.terms[t] = ti
	}
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
