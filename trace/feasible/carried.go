package feasible

import (
	"go/token"
	"go/types"
	"slices"
	"sort"

	"golang.org/x/tools/go/ssa"
)

// What a field's value can carry from an earlier read of a field that
// never goes down (order.go). When a write of integer field A stores a
// read of such a field F plus at most Off (followed through the fields,
// conversions, sums with constants, phis and the returns of calls the
// value comes by: `kv.ModRevision = tw.beginRev + 1`, where beginRev is
// a read of currentRev made when the transaction began), a value of A
// that write left carries a read of F made before A is read; so it is
// never above a read of F made after it, plus Off, when both read one
// struct's F.
//
// A way that needs A's read above a later read of F plus Off is not
// decided (Unknown): from such a write it cannot run, and the analysis
// does not decide which write left the value the way reads, nor that the
// read it carries is of the same struct's F. It never makes a way No.

// Carry is what the writes of integer field A carry from reads of
// field From, which never goes down (Order, found or assumed).
type Carry struct {
	A, From *types.Var
	Off     int64
	Order   *Invariant
	// Writes store a read of From plus at most Off; Others store other
	// values (Why says what).
	Writes, Others []InvariantWrite
	// Unseen says that code outside the loaded packages may write A.
	Unseen bool
}

// carried is what A's writes carry from reads of an ordered field: nil
// when none of them carries one.
func (c *Checker) carried(a *types.Var) *Carry {
	if x, ok := c.carries[a]; ok {
		return x
	}
	if c.carries == nil {
		c.carries = map[*types.Var]*Carry{}
	}
	c.carries[a] = nil // a field whose writes read it carries nothing of itself
	var out *Carry
	if isInteger(a.Type()) && c.grows(a) == nil {
		out = c.findCarry(a)
	}
	c.carries[a] = out
	return out
}

func (c *Checker) findCarry(a *types.Var) *Carry {
	type found struct {
		st   *ssa.Store
		from *types.Var
		off  int64
	}
	var fs []found
	count := map[*types.Var]int{}
	for _, st := range c.sortedWrites(a) {
		r := c.carryOf(st.Val, 0, 0, map[ssa.Value]int64{})
		f := found{st: st, from: r.from, off: r.off}
		if !r.ok || r.cycle {
			f.from = nil
		} else {
			count[r.from]++
		}
		fs = append(fs, f)
	}
	// The field most writes carry (by name, when as many).
	var from *types.Var
	for f, n := range count {
		if from == nil || n > count[from] || n == count[from] && f.Name() < from.Name() {
			from = f
		}
	}
	if from == nil {
		return nil
	}
	out := &Carry{A: a, From: from, Order: c.grows(from), Unseen: !c.seesAllWrites(a) || c.index().addrTaken[a] || c.structStored(a)}
	first := true
	for _, f := range fs {
		if f.from == from {
			if first || f.off > out.Off {
				out.Off = f.off
			}
			first = false
			out.Writes = append(out.Writes, c.invariantWrite(f.st, "", false))
			continue
		}
		out.Others = append(out.Others, c.invariantWrite(f.st, "", false))
	}
	sort.SliceStable(out.Others, func(i, j int) bool { return posLess(c.text.fset, out.Others[i].Pos, out.Others[j].Pos) })
	return out
}

// carry is what a value carries of an ordered field: a read of from
// plus at most off; cycle, a value met again on its own way with
// nothing added since (it adds nothing of its own); ok false when some
// way the value comes by ends in no read of one such field.
type carried1 struct {
	from  *types.Var
	off   int64
	cycle bool
	ok    bool
}

var noCarry = carried1{}

// carryOf follows v to a read of a field that never goes down. acc is
// what the way from the write adds to v; seen what it added at each
// value it passed, so that a value met again with no more added is a
// cycle, not a way of its own.
func (c *Checker) carryOf(v ssa.Value, acc int64, depth int, seen map[ssa.Value]int64) carried1 {
	if at, ok := seen[v]; ok {
		if acc <= at {
			return carried1{cycle: true, ok: true}
		}
		return noCarry
	}
	if depth > 8 {
		return noCarry
	}
	seen[v] = acc
	defer delete(seen, v)
	switch x := v.(type) {
	case *ssa.Convert:
		if isInteger(x.X.Type()) {
			return c.carryOf(x.X, acc, depth, seen)
		}
	case *ssa.ChangeType:
		return c.carryOf(x.X, acc, depth, seen)
	case *ssa.BinOp:
		if x.Op != token.ADD && x.Op != token.SUB {
			return noCarry
		}
		y, k := x.X, x.Y
		if _, isK := k.(*ssa.Const); !isK && x.Op == token.ADD {
			y, k = x.Y, x.X
		}
		kc, isK := k.(*ssa.Const)
		if !isK {
			return noCarry
		}
		n, exact := constInt(kc)
		if !exact {
			return noCarry
		}
		if x.Op == token.SUB {
			n = -n
		}
		r := c.carryOf(y, acc+n, depth, seen)
		r.off += n
		return r
	case *ssa.UnOp:
		if fa, isFA := x.X.(*ssa.FieldAddr); isFA && x.Op == token.MUL {
			return c.carryField(fieldVar(fa.X.Type(), fa.Field), acc, depth, seen)
		}
	case *ssa.Field:
		return c.carryField(fieldVar(x.X.Type(), x.Field), acc, depth, seen)
	case *ssa.Phi:
		return c.carryAll(x.Edges, acc, depth, seen)
	case *ssa.Call:
		return c.carryReturns(x, 0, acc, depth, seen)
	case *ssa.Extract:
		if call, isCall := x.Tuple.(*ssa.Call); isCall {
			return c.carryReturns(call, x.Index, acc, depth, seen)
		}
	}
	return noCarry
}

// carryField follows a read of field f: a read of one that never goes
// down ends there; another is followed into every write of it, when the
// analysis sees them all.
func (c *Checker) carryField(f *types.Var, acc int64, depth int, seen map[ssa.Value]int64) carried1 {
	if f == nil || !isInteger(f.Type()) {
		return noCarry
	}
	if c.grows(f) != nil {
		return carried1{from: f, ok: true}
	}
	if !c.seesAllWrites(f) || c.index().addrTaken[f] || c.structStored(f) {
		return noCarry
	}
	ws := c.index().writes[f]
	vs := make([]ssa.Value, len(ws))
	for i, st := range ws {
		vs[i] = st.Val
	}
	return c.carryAll(vs, acc, depth+1, seen)
}

// carryAll is what every one of vs carries of one field: the most any
// adds; not ok when one carries none, or another field.
func (c *Checker) carryAll(vs []ssa.Value, acc int64, depth int, seen map[ssa.Value]int64) carried1 {
	out := carried1{cycle: true, ok: true}
	for _, v := range vs {
		r := c.carryOf(v, acc, depth, seen)
		switch {
		case !r.ok:
			return noCarry
		case r.cycle:
			continue
		case !out.cycle && r.from != out.from:
			return noCarry
		case out.cycle || r.off > out.off:
			out.from, out.off = r.from, r.off
		}
		out.cycle = false
	}
	if len(vs) == 0 {
		return noCarry
	}
	return out
}

// carryReturns is what result i of every function call may run returns.
func (c *Checker) carryReturns(call *ssa.Call, i int, acc int64, depth int, seen map[ssa.Value]int64) carried1 {
	var fns []*ssa.Function
	if fn := call.Call.StaticCallee(); fn != nil {
		fns = append(fns, fn)
	} else if c.edges != nil {
		for _, e := range c.edges(call) {
			if e.Callee != nil && e.Callee.Func != nil {
				fns = append(fns, e.Callee.Func)
			}
		}
	}
	if len(fns) == 0 || len(fns) > 8 {
		return noCarry
	}
	var vs []ssa.Value
	for _, fn := range fns {
		if len(fn.Blocks) == 0 {
			return noCarry
		}
		for _, b := range fn.Blocks {
			if len(b.Instrs) == 0 {
				continue
			}
			if r, isRet := b.Instrs[len(b.Instrs)-1].(*ssa.Return); isRet && i < len(r.Results) {
				vs = append(vs, r.Results[i])
			}
		}
	}
	return c.carryAll(vs, acc, depth+1, seen)
}

// carriedReads are the carried reads of term t (read rd), when the
// field it reads carries reads of an ordered field: for each read of
// that field the path makes after rd, t is at most that read plus Off.
// Only a term a world constrains is tried.
func (w *walk) carriedReads(t string, rd *readInfo) []assumed {
	cr := w.c.carried(rd.field)
	if cr == nil || cr.Order == nil || len(cr.Writes) == 0 || !w.inSomeWorld(t) {
		return nil
	}
	bases := make([]string, 0, len(w.readsOf[cr.From]))
	for b := range w.readsOf[cr.From] {
		bases = append(bases, b)
	}
	sort.Strings(bases)
	var out []assumed
	for _, b := range bases {
		for _, u := range w.readsOf[cr.From][b] {
			ud := w.terms[u].read
			if ud == nil || !before(rd, ud) {
				continue
			}
			x := assumed{a: t, b: u, k: cr.Off, inv: cr.Order, carry: cr, reads: []token.Pos{rd.at.Pos(), ud.at.Pos()}}
			if ins, ok := rd.at.(ssa.Instruction); ok {
				x.fn = ins.Parent()
			}
			out = append(out, x)
		}
	}
	return out
}

// gaveCarried makes res Unknown for carried read x, which no world of
// the way allows: the way needs the value read above what the writes
// that carry a read of the ordered field can leave.
func (w *walk) gaveCarried(res Result, x *assumed, needs []*Cond) Result {
	cr := x.carry
	cond := Cond{Class: Gave, Why: Carried, Text: cr.A.Name(), Func: x.fn, Pos: x.reads[0], Carry: cr, Reads: x.reads}
	for i := len(res.Conds) - 1; i >= 0 && cond.Near == nil; i-- {
		c := &res.Conds[i]
		for _, n := range needs {
			if c.Pos == n.Pos && c.Text == n.Text && c.Want == n.Want {
				cond.Near = c
			}
		}
	}
	for i := len(res.Conds) - 1; i >= 0 && cond.Near == nil; i-- {
		if c := &res.Conds[i]; c.Class == State && (slices.Contains(c.Fields, cr.From) || slices.Contains(c.Fields, cr.A)) {
			cond.Near = c
		}
	}
	for i := len(res.Conds) - 1; i >= 0 && cond.Near == nil; i-- {
		if c := &res.Conds[i]; c.Class == State {
			cond.Near = c
		}
	}
	res.Conds = append(append([]Cond(nil), res.Conds...), cond)
	res.Verdict, res.Because = Unknown, &res.Conds[len(res.Conds)-1]
	return res
}
