package feasible

import (
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// A world is one way the path's conditions can all hold so far: a
// conjunction of constraints over the terms of the path. The path keeps
// a list of worlds (a disjunction): a value that is one of several (a phi,
// what a call returns at one of its returns) splits a world into one per
// alternative, each with what that alternative needs. A path can run only
// while some world is satisfiable.
//
// Worlds are values: every change makes a copy.
type world struct {
	d     *diff            // integer relations: x - y <= c
	facts map[string]*fact // nil-ness, booleans, dynamic types, by term
	neq   []neq            // x - y != c
	// choice is the alternative taken of each value that is one of
	// several (by its key), so that the same value is the same in every
	// use.
	choice map[altKey]int
	// forall are what holds for every element of a slice (by the slice's
	// term), learned from a loop over it that returns unless each element
	// passes; elems are the slice's elements the path names.
	forall map[string][]*template
	elems  map[string][]string
	// related are the pairs of terms already related by the store's
	// invariants and locks.
	related map[[2]string]bool
	// hist are the conditions the world's choices needed, for reasons.
	hist []*reason
}

type neq struct {
	x, y string
	c    int64
	why  *reason
}

func newWorld() *world {
	return &world{d: newDiff(), facts: map[string]*fact{}, choice: map[altKey]int{}, forall: map[string][]*template{}, elems: map[string][]string{}, related: map[[2]string]bool{}}
}

func (w *world) clone() *world {
	c := &world{d: w.d.clone(), facts: make(map[string]*fact, len(w.facts)), neq: append([]neq(nil), w.neq...),
		choice: make(map[altKey]int, len(w.choice)), forall: make(map[string][]*template, len(w.forall)),
		elems: make(map[string][]string, len(w.elems)), related: make(map[[2]string]bool, len(w.related)),
		hist: append([]*reason(nil), w.hist...)}
	for k, v := range w.facts {
		c.facts[k] = v
	}
	for k, v := range w.choice {
		c.choice[k] = v
	}
	for k, v := range w.forall {
		c.forall[k] = append([]*template(nil), v...)
	}
	for k, v := range w.elems {
		c.elems[k] = append([]string(nil), v...)
	}
	for k, v := range w.related {
		c.related[k] = v
	}
	return c
}

// reason is why a constraint is on a path: a condition that the path, or
// a call whose result it tests, needs; a value an alternative fixes; an
// invariant of the store; a lock that keeps a field still.
type reason struct {
	cond *Cond // the condition, with the outcome needed
	// text and pos describe a reason that is no condition.
	text string
	pos  token.Pos
	kind ReasonKind
	// via are the calls whose result the condition is about, outermost
	// first.
	via []*viaCall
	inv *Invariant
}

// viaCall is a call the path tests the result of, and the outcome.
type viaCall struct {
	call    ssa.CallInstruction
	callee  *ssa.Function
	outcome string // "returns nil", "returns true", "returns"
	text    string // the call as written
}

// fact is what a world knows of one term beyond integer relations.
type fact struct {
	nilness  int // 0 unknown, 1 nil, 2 not nil
	boolean  int // 0 unknown, 1 false, 2 true
	isType   string
	typeWant bool
	by       *reason
}

func boolOf(b bool) int {
	if b {
		return 2
	}
	return 1
}

// addFact records f of term; on a contradiction with what the world
// knows it returns the reasons (the world is then dead).
func (w *world) addFact(term string, f fact, why *reason) []*reason {
	old, ok := w.facts[term]
	if !ok {
		nf := f
		nf.by = why
		w.facts[term] = &nf
		return nil
	}
	merged := *old
	clash := false
	if f.nilness != 0 {
		clash = clash || (merged.nilness != 0 && merged.nilness != f.nilness)
		merged.nilness = f.nilness
	}
	if f.boolean != 0 {
		clash = clash || (merged.boolean != 0 && merged.boolean != f.boolean)
		merged.boolean = f.boolean
	}
	if f.isType != "" {
		if merged.isType != "" && merged.typeWant && f.typeWant && merged.isType != f.isType {
			clash = true
		}
		if merged.isType == f.isType && merged.typeWant != f.typeWant {
			clash = true
		}
		// A value of a dynamic type is not nil.
		if f.typeWant && merged.nilness == 1 {
			clash = true
		}
		if f.typeWant || merged.isType == "" {
			merged.isType, merged.typeWant = f.isType, f.typeWant
		}
	}
	if merged.nilness == 1 && merged.isType != "" && merged.typeWant {
		clash = true
	}
	if clash {
		return []*reason{why, old.by}
	}
	merged.by = why
	w.facts[term] = &merged
	return nil
}

// addDiff records x - y <= c.
func (w *world) addDiff(x, y string, c int64, why *reason) []*reason {
	if r := w.d.add(x, y, c, why); r != nil {
		return r
	}
	return w.checkNeq()
}

// addNeq records x - y != c.
func (w *world) addNeq(x, y string, c int64, why *reason) []*reason {
	w.neq = append(w.neq, neq{x, y, c, why})
	return w.checkNeq()
}

// checkNeq finds a disequality that the relations now contradict.
func (w *world) checkNeq() []*reason {
	for _, n := range w.neq {
		up, r1 := w.d.implies(n.x, n.y, n.c)
		if !up {
			continue
		}
		down, r2 := w.d.implies(n.y, n.x, -n.c)
		if down {
			return append(append([]*reason{n.why}, r1...), r2...)
		}
	}
	return nil
}

// maxKept bounds the worlds a path keeps between its conditions: past
// it, worlds are joined pairwise (join keeps what holds in both), which
// loses precision but never refutes a path that can run.
const maxKept = 16

// shrink joins worlds until at most maxKept are left, most alike first
// (the same choices of values that are one of several).
func shrink(ws []*world) []*world {
	if len(ws) <= maxKept {
		return ws
	}
	out := append([]*world(nil), ws...)
	for len(out) > maxKept {
		bi, bj, best := 0, 1, -1
		for i := 0; i < len(out) && i < 64; i++ {
			for j := i + 1; j < len(out) && j < 64; j++ {
				if s := likeness(out[i], out[j]); s > best {
					bi, bj, best = i, j, s
				}
			}
		}
		m := joinWorlds(out[bi], out[bj])
		out[bi] = m
		out = append(out[:bj], out[bj+1:]...)
	}
	return out
}

// likeness counts the choices two worlds share.
func likeness(a, b *world) int {
	n := 0
	for k, v := range a.choice {
		if bv, ok := b.choice[k]; ok && bv == v {
			n++
		}
	}
	return n
}

// joinWorlds is a world that holds wherever a or b does: the choices,
// facts and relations both have.
func joinWorlds(a, b *world) *world {
	out := newWorld()
	for k, v := range a.choice {
		if bv, ok := b.choice[k]; ok && bv == v {
			out.choice[k] = v
		}
	}
	for t, f := range a.facts {
		g, ok := b.facts[t]
		if !ok {
			continue
		}
		var m fact
		if f.nilness == g.nilness {
			m.nilness = f.nilness
		}
		if f.boolean == g.boolean {
			m.boolean = f.boolean
		}
		if f.isType == g.isType && f.typeWant == g.typeWant {
			m.isType, m.typeWant = f.isType, f.typeWant
		}
		if m.nilness != 0 || m.boolean != 0 || m.isType != "" {
			m.by = f.by
			out.facts[t] = &m
		}
	}
	// A relation both imply, at the weaker of the two bounds.
	add := func(x, y *world) {
		for _, e := range x.d.edges {
			xt, yt := x.d.names[e.to], x.d.names[e.from]
			yb, ok := y.d.bound(xt, yt)
			if !ok {
				continue
			}
			c := e.w
			if yb > c {
				c = yb
			}
			out.d.add(xt, yt, c, e.why)
		}
	}
	add(a, b)
	add(b, a)
	for s, ts := range a.forall {
		for _, t := range ts {
			for _, u := range b.forall[s] {
				if t == u {
					out.forall[s] = append(out.forall[s], t)
				}
			}
		}
	}
	for s, es := range a.elems {
		out.elems[s] = append(out.elems[s], es...)
	}
	for s, es := range b.elems {
		for _, e := range es {
			found := false
			for _, x := range out.elems[s] {
				if x == e {
					found = true
				}
			}
			if !found {
				out.elems[s] = append(out.elems[s], e)
			}
		}
	}
	return out
}
