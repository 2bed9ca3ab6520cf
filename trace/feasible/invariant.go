package feasible

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Invariant is a relation between two fields of one struct that the
// store keeps true for every reader that holds Lock: A - B <= C.
type Invariant struct {
	A, B *types.Var
	C    int64
	// Lock is the mutex field under which readers see it.
	Lock *types.Var
	// Writes are the writes of A and B, each with why it keeps the
	// relation.
	Writes []InvariantWrite
}

// InvariantWrite is one write of a field of an invariant.
type InvariantWrite struct {
	Pos  token.Pos
	Func *ssa.Function
	Why  string
}

type invKey struct {
	a, b *types.Var
	c    int64
	l    *types.Var
}

// relate adds to the worlds what the store keeps true of term t, when it
// is a read of a field of shared state: that it is the same value as
// another read of the field while a lock keeps the field still, and the
// invariants between fields read together.
func (w *walk) relate(ws []*world, t string) []*world {
	ti, ok := w.terms[t]
	if !ok || ti.read == nil {
		return ws
	}
	rd := ti.read
	if gs := w.c.guards(rd.field); len(gs) > 0 {
		for _, other := range w.reads[readKey{rd.base, rd.field}] {
			if other == t {
				continue
			}
			if debugInv {
				_, same := w.sameHolding(t, other, rd.base, gs)
				println("relate", t, other, same, len(w.heldAt(t)), len(w.heldAt(other)))
			}
			if h, ok := w.sameHolding(t, other, rd.base, gs); ok {
				why := &reason{kind: ReasonLock, pos: h.id.ins.Pos(), text: rd.field.Name() + "|" + h.field.Name()}
				ws = w.equate(ws, t, other, why)
			}
		}
	}
	// The invariants between this field and the others read from the
	// struct while one lock is held.
	if !isInteger(rd.field.Type()) {
		return ws
	}
	for _, k := range w.readFields[rd.base] {
		if k.field == rd.field || !isInteger(k.field.Type()) {
			continue
		}
		for _, other := range w.reads[k] {
			if debugInv {
				println("relinv", t, other, len(w.commonHoldings(t, other, rd.base)))
				for _, h := range w.heldAt(t) {
					println("   held t", h.field.Name(), h.base, h.id.frame, h.write)
				}
				for _, h := range w.heldAt(other) {
					println("   held o", h.field.Name(), h.base, h.id.frame, h.write)
				}
			}
			for _, h := range w.commonHoldings(t, other, rd.base) {
				// One of the two must be still while the lock is held, so
				// that the two reads see one state.
				if !contains2(w.c.guards(rd.field), h.field) && !contains2(w.c.guards(k.field), h.field) {
					continue
				}
				if debugInv {
					println("   try inv", rd.field.Name(), k.field.Name(), h.field.Name(), w.c.invariant(rd.field, k.field, 0, h.field) != nil, w.c.invariant(k.field, rd.field, 0, h.field) != nil)
				}
				if inv := w.c.invariant(rd.field, k.field, 0, h.field); inv != nil {
					ws = w.bound(ws, t, other, 0, &reason{kind: ReasonInvariant, inv: inv, pos: h.id.ins.Pos()})
				}
				if inv := w.c.invariant(k.field, rd.field, 0, h.field); inv != nil {
					ws = w.bound(ws, other, t, 0, &reason{kind: ReasonInvariant, inv: inv, pos: h.id.ins.Pos()})
				}
			}
		}
	}
	return ws
}

// bound says a - b <= c in each world, once.
func (w *walk) bound(ws []*world, a, b string, c int64, why *reason) []*world {
	var out []*world
	k := [2]string{"<=" + a, b}
	for _, wd := range ws {
		if wd.related[k] {
			out = append(out, wd)
			continue
		}
		x := wd.clone()
		x.related[k] = true
		if r := x.addDiff(a, b, c, why); r != nil {
			w.kill(r...)
			continue
		}
		out = append(out, x)
	}
	return out
}

// commonHoldings are the acquisitions on struct base that hold at both
// reads.
func (w *walk) commonHoldings(a, b, base string) []holding {
	var out []holding
	for _, x := range w.heldAt(a) {
		if x.base != base {
			continue
		}
		for _, y := range w.heldAt(b) {
			if y.id == x.id && y.field == x.field && y.base == x.base {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// equate says a == b in each world, once.
func (w *walk) equate(ws []*world, a, b string, why *reason) []*world {
	var out []*world
	for _, wd := range ws {
		k := [2]string{a, b}
		if a > b {
			k = [2]string{b, a}
		}
		if wd.related[k] {
			out = append(out, wd)
			continue
		}
		c := wd.clone()
		c.related[k] = true
		r := c.addDiff(a, b, 0, why)
		if r == nil {
			r = c.addDiff(b, a, 0, why)
		}
		if r != nil {
			w.kill(r...)
			continue
		}
		out = append(out, c)
	}
	return out
}

// heldAt are the acquisitions that hold at read term t.
func (w *walk) heldAt(t string) []holding {
	if h, ok := w.holds[t]; ok {
		return h
	}
	var h []holding
	if ti, ok := w.terms[t]; ok && ti.read != nil {
		if ins, ok := ti.read.at.(ssa.Instruction); ok {
			h = w.held(ti.read.fr, ins)
		}
	}
	w.holds[t] = h
	return h
}

// sameHolding finds one acquisition, of a lock among gs on struct base,
// that holds at both reads.
func (w *walk) sameHolding(a, b, base string, gs []*types.Var) (holding, bool) {
	ha, hb := w.heldAt(a), w.heldAt(b)
	for _, x := range ha {
		if x.base != base || !contains2(gs, x.field) {
			continue
		}
		for _, y := range hb {
			if y.id == x.id && y.field == x.field && y.base == x.base {
				return x, true
			}
		}
	}
	return holding{}, false
}

func contains2(vs []*types.Var, v *types.Var) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}
