package feasible

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Invariant is a relation between two fields of one struct that the
// store keeps true for every reader that holds Lock: A - B <= C; or,
// with B nil (a floor), that field A is never below 0 (see floor.go);
// or, with Grows, that field A never goes down: a read of it is never
// below an earlier read of the same struct's (see order.go).
type Invariant struct {
	A, B  *types.Var
	C     int64
	Grows bool
	// Lock is the mutex field under which readers see it.
	Lock *types.Var
	// Writes are the writes of A and B, each with why it keeps the
	// relation.
	Writes []InvariantWrite
	// Unbounded, for a floor, are the writes of A whose value the
	// analysis does not bound: when there are any, the floor is assumed
	// (a way that needs A below 0 is not decided), not found. For an
	// order (Grows), they are the writes the analysis does not show to
	// keep A from going down.
	Unbounded []InvariantWrite
}

// Floor reports whether the invariant is a floor: A is never below 0.
func (inv *Invariant) Floor() bool { return inv.B == nil && !inv.Grows }

// InvariantWrite is one write of a field of an invariant.
type InvariantWrite struct {
	Pos  token.Pos
	Func *ssa.Function
	Why  string
	// Text is the write as written (a floor's writes).
	Text string
	// Sends, for a write of a value received from a channel, are the
	// statements that send on that channel (when the analysis finds them
	// all: a channel a function makes and hands on), each as written.
	Sends []InvariantSend
}

// InvariantSend is a send statement.
type InvariantSend struct {
	Pos  token.Pos
	Text string
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
	var out []*world
	for _, wd := range ws {
		out = append(out, w.relate1(wd, t, ti.read)...)
	}
	return out
}

// relate1 relates read t in world wd. The acquisitions that hold at each
// read are found first with every block of a frame taken as one a run may
// go through; when that finds none in common, again with the blocks the
// world rules out left out (a release in a branch the path cannot take
// does not end the holding).
func (w *walk) relate1(wd *world, t string, rd *readInfo) []*world {
	ws := []*world{wd}
	common := func(a, b string) []holding {
		hs := w.commonHoldings(a, b, rd.base, nil)
		if len(hs) == 0 && !w.refining {
			hs = w.commonHoldings(a, b, rd.base, wd)
		}
		return hs
	}
	if gs := w.c.guards(rd.field); len(gs) > 0 {
		for _, other := range w.reads[readKey{rd.base, rd.field}] {
			if other == t {
				continue
			}
			for _, h := range common(t, other) {
				if !contains2(gs, h.field) {
					continue
				}
				why := &reason{kind: ReasonLock, pos: h.id.ins.Pos(), text: rd.field.Name() + "|" + h.field.Name()}
				ws = w.equate(ws, t, other, why)
				break
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
			for _, h := range common(t, other) {
				// One of the two must be still while the lock is held, so
				// that the two reads see one state.
				if !contains2(w.c.guards(rd.field), h.field) && !contains2(w.c.guards(k.field), h.field) {
					continue
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
		x.setRelated(k)
		if r := x.addDiff(a, b, c, why); r != nil {
			w.kill(r...)
			continue
		}
		out = append(out, x)
	}
	return out
}

// commonHoldings are the acquisitions on struct base that hold at both
// reads (in world wd, when set: see relate1).
func (w *walk) commonHoldings(a, b, base string, wd *world) []holding {
	var out []holding
	ha, hb := w.heldAt(a, wd), w.heldAt(b, wd)
	for _, x := range ha {
		if x.base != base {
			continue
		}
		for _, y := range hb {
			if y.id == x.id && y.field == x.field && y.base == x.base {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// heldAt are the acquisitions that hold at read term t; with wd set, the
// blocks wd rules out are not ways between an acquisition and the read.
func (w *walk) heldAt(t string, wd *world) []holding {
	if wd == nil {
		if h, ok := w.holds[t]; ok {
			return h
		}
	}
	var h []holding
	if ti, ok := w.terms[t]; ok && ti.read != nil {
		if ins, ok := ti.read.at.(ssa.Instruction); ok {
			saved := w.inWorld
			w.inWorld = wd
			h = w.held(ti.read.fr, ins)
			w.inWorld = saved
		}
	}
	if wd == nil {
		w.holds[t] = h
	}
	return h
}

func contains2(vs []*types.Var, v *types.Var) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
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
		c.setRelated(k)
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
