package feasible

import (
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// What the way reads through: a function that takes the address of a
// field of the struct a pointer points to (`p.Lease`, a parameter or a
// pointer it loaded) panics when the pointer is nil, so a way that goes on past that read was given a
// pointer that is not nil, as it assumes no panic elsewhere (decide). Only
// reads that every run to the next step makes count: those in blocks that
// dominate it, and in its own block before it.

// derefs are the field addresses taken through a parameter or a loaded
// pointer of at's function on every run from its entry to instruction
// at, before it: the first of each pointer.
func (c *Checker) derefs(at ssa.Instruction) []*ssa.FieldAddr {
	if c.derefMemo == nil {
		c.derefMemo = map[ssa.Instruction][]*ssa.FieldAddr{}
	}
	if r, ok := c.derefMemo[at]; ok {
		return r
	}
	var out []*ssa.FieldAddr
	seen := map[ssa.Value]bool{}
	blk := at.Block()
	for _, b := range at.Parent().Blocks {
		if !b.Dominates(blk) {
			continue
		}
		for _, ins := range b.Instrs {
			if ins == at {
				break
			}
			fa, ok := ins.(*ssa.FieldAddr)
			if !ok {
				continue
			}
			switch x := fa.X.(type) {
			case *ssa.Parameter, *ssa.UnOp:
				if u, ok := x.(*ssa.UnOp); ok && u.Op != token.MUL {
					continue
				}
				if !seen[x] {
					seen[x] = true
					out = append(out, fa)
				}
			}
		}
	}
	c.derefMemo[at] = out
	return out
}

// readThrough says in the path's worlds that the pointers fr's function
// reads fields through before at are not nil; a world that holds one nil
// cannot take the way. When no world is left, the way cannot run: the
// condition returned (ok) is the path's earliest condition among the
// reasons, which cannot have the outcome the way took, with them all.
func (w *walk) readThrough(fr *frame, at ssa.Instruction) (Cond, bool) {
	had := len(w.worlds) > 0
	before := len(w.deaths)
	for _, fa := range w.c.derefs(at) {
		if len(w.worlds) == 0 {
			break
		}
		v := fr.eval(fa.X)
		if v.org == unknown || v.kind == kObj || v.kind == kConst || v.kind == kNone || v.kind != kAlt && v.term == "" {
			continue
		}
		sel, from, ok := w.c.text.selText(fa.Pos())
		if !ok {
			continue // a read the source does not spell (a wrapper's)
		}
		why := &reason{kind: ReasonValue, text: "deref|" + sel + "|" + from, pos: fa.Pos()}
		var out []*world
		for _, wd := range w.worlds {
			ls := pointees(v, wd, 0)
			if len(ls) == 1 {
				out = append(out, w.notNil(wd, ls[0], why)...)
				continue
			}
			// One of several values, which the world has not chosen
			// among: it cannot be only if none of them can be read
			// through. (It is not split by them: the choice is left to
			// the conditions that make it.)
			alive := len(ls) == 0
			for _, l := range ls {
				if len(w.notNil(wd, l, why)) > 0 {
					alive = true
					break
				}
			}
			if alive {
				out = append(out, wd)
			}
		}
		w.worlds = out
	}
	if !had || len(w.worlds) > 0 {
		return Cond{}, false
	}
	var rs []*reason
	for _, d := range w.deaths[before:] {
		rs = append(rs, d.why...)
	}
	// The earliest condition of the path among the reasons.
	var first *Cond
	for _, st := range w.settled {
		for _, r := range rs {
			if r != nil && r.kind == ReasonCond && r.cond != nil && st.why != nil && r.cond == st.why.cond {
				first = r.cond
				break
			}
		}
		if first != nil {
			break
		}
	}
	if first == nil {
		return Cond{}, false
	}
	c := *first
	c.Class = Excluded
	c.Refuted = explain(w.c.text.fset, rs, &c)
	c.Prior, c.Why = nil, ""
	return c, true
}

// notNil is world wd, told that x is not nil: none when it holds x nil,
// or what x is part of then cannot be.
func (w *walk) notNil(wd *world, x *value, why *reason) []*world {
	if f := wd.facts.get(x.term); f != nil && f.nilness == 2 {
		return []*world{wd}
	}
	c := wd.clone()
	if r := c.addFact(x.term, fact{nilness: 2}, why); r != nil {
		w.kill(r...)
		return nil
	}
	return w.prepare([]*world{c}, x.term)
}

// pointees are the values v may be in world wd that name a term: v, or,
// for one of several values, those of the alternatives the world may
// still take (the one it chose, or all).
func pointees(v *value, wd *world, depth int) []*value {
	if depth > 4 {
		return nil
	}
	if v.kind != kAlt {
		if v.term == "" || v.org == unknown || v.kind == kObj || v.kind == kConst || v.kind == kNone {
			return nil
		}
		return []*value{v}
	}
	idx, chosen := wd.choice.get(v.key)
	var out []*value
	for i, a := range v.alts {
		if chosen && i != idx {
			continue
		}
		out = append(out, pointees(a.value(), wd, depth+1)...)
	}
	return out
}
