package feasible

import (
	"go/token"
	"sort"
	"strings"
	"sync/atomic"

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
	d     *diff   // integer relations: x - y <= c
	facts factSet // nil-ness, booleans, dynamic types, by term
	neq   []neq   // x - y != c
	// choice is the alternative taken of each value that is one of
	// several (by its key), so that the same value is the same in every
	// use.
	choice *choices
	// took is, for a value whose choice a join of two worlds forgot (each
	// had taken another), the alternatives the joined worlds had taken:
	// the value is one of them (see needed).
	took *tookSets
	// forall are what holds for every element of a slice (by the slice's
	// term), learned from a loop over it that returns unless each element
	// passes; elems are the slice's elements the path names.
	forall map[string][]*template
	elems  map[string][]string
	// related are the pairs of terms already related by the store's
	// invariants and locks.
	related map[[2]string]bool
	// own says which of the maps (and the graph) this world may change:
	// a copy shares its parent's until it writes (copy on write).
	own ownership
	// ver changes whenever the world does: two worlds of one version are
	// one state (what has been checked of it holds for both).
	ver uint64
}

// worldVersions numbers the states of worlds, across every checker (they
// may run at once).
var worldVersions atomic.Uint64

func nextVer() uint64 { return worldVersions.Add(1) }

type ownership struct{ d, forall, elems, related bool }

type neq struct {
	x, y string
	c    int64
	why  *reason
}

// choices is the alternatives a world has taken, newest first: a list that
// the worlds forked from one share (a world is forked far more often than
// it looks up a choice of a value it has not taken).
type choices struct {
	k    altKey
	i    int
	next *choices
}

// tookSets is the alternatives, as bits, a value's choice was among in
// worlds a join made one, newest first.
type tookSets struct {
	k    altKey
	set  uint64
	next *tookSets
}

// get returns the alternatives the value of key k was among.
func (t *tookSets) get(k altKey) (uint64, bool) {
	for ; t != nil; t = t.next {
		if t.k == k {
			return t.set, true
		}
	}
	return 0, false
}

// among is the alternatives the value of key k is one of in w, as bits:
// the one it took, or those a join of worlds that took them remembers.
func (w *world) among(k altKey) (uint64, bool) {
	if i, ok := w.choice.get(k); ok {
		if i >= 64 {
			return 0, false
		}
		return 1 << uint(i), true
	}
	return w.took.get(k)
}

// get returns the alternative taken of the value of key k.
func (c *choices) get(k altKey) (int, bool) {
	for ; c != nil; c = c.next {
		if c.k == k {
			return c.i, true
		}
	}
	return 0, false
}

func newWorld() *world {
	return &world{d: newDiff(), forall: map[string][]*template{}, elems: map[string][]string{}, related: map[[2]string]bool{},
		own: ownership{true, true, true, true}, ver: nextVer()}
}

// clone is a copy of w that shares its parts until it changes them.
func (w *world) clone() *world {
	c := *w
	c.neq = w.neq[:len(w.neq):len(w.neq)]
	c.own = ownership{}
	return &c
}

func (w *world) ownD() *diff {
	w.ver = nextVer()
	if !w.own.d {
		w.d, w.own.d = w.d.clone(), true
	}
	return w.d
}

func (w *world) setChoice(k altKey, i int) {
	w.ver = nextVer()
	w.choice = &choices{k: k, i: i, next: w.choice}
}

func (w *world) setRelated(k [2]string) {
	w.ver = nextVer()
	if !w.own.related {
		m := make(map[[2]string]bool, len(w.related)+1)
		for a, b := range w.related {
			m[a] = b
		}
		w.related, w.own.related = m, true
	}
	w.related[k] = true
}

func (w *world) addForall(s string, t *template) {
	w.ver = nextVer()
	if !w.own.forall {
		m := make(map[string][]*template, len(w.forall)+1)
		for a, b := range w.forall {
			m[a] = b
		}
		w.forall, w.own.forall = m, true
	}
	old := w.forall[s]
	w.forall[s] = append(old[:len(old):len(old)], t)
}

func (w *world) addElemTo(s, e string) {
	w.ver = nextVer()
	if !w.own.elems {
		m := make(map[string][]string, len(w.elems)+1)
		for a, b := range w.elems {
			m[a] = b
		}
		w.elems, w.own.elems = m, true
	}
	old := w.elems[s]
	w.elems[s] = append(old[:len(old):len(old)], e)
}

func (w *world) setFact(t string, f *fact) {
	w.ver = nextVer()
	w.facts = w.facts.set(t, f)
}

// factSet is a world's facts: a map shared by the worlds forked from one,
// and the facts set since it was made, newest first. A fork shares both
// (the recent ones as a list that setting a fact only prepends to); the
// recent ones are folded into a new map when they grow past a few.
type factSet struct {
	base   map[string]*fact
	recent *factNode
}

// termFact is a term's fact.
type termFact struct {
	t string
	f *fact
}

// factNode is a recent fact: a node of the list, with the list's length
// from it.
type factNode struct {
	termFact
	next *factNode
	n    int
}

const maxRecentFacts = 8

func (s factSet) get(t string) *fact {
	for r := s.recent; r != nil; r = r.next {
		if r.t == t {
			return r.f
		}
	}
	return s.base[t]
}

// oldestFirst lists the recent facts in the order they were set.
func (s factSet) oldestFirst(buf *[maxRecentFacts]*factNode) []*factNode {
	n := 0
	if s.recent != nil {
		n = s.recent.n
	}
	out := buf[:n]
	for r := s.recent; r != nil; r = r.next {
		n--
		out[n] = r
	}
	return out
}

func (s factSet) set(t string, f *fact) factSet {
	if s.recent == nil || s.recent.n < maxRecentFacts {
		n := 1
		if s.recent != nil {
			n = s.recent.n + 1
		}
		return factSet{base: s.base, recent: &factNode{termFact: termFact{t, f}, next: s.recent, n: n}}
	}
	var buf [maxRecentFacts]*factNode
	recent := s.oldestFirst(&buf)
	m := make(map[string]*fact, len(s.base)+len(recent)+1)
	for k, v := range s.base {
		m[k] = v
	}
	for _, r := range recent {
		m[r.t] = r.f
	}
	m[t] = f
	return factSet{base: m}
}

// each calls fn on each term's fact.
func (s factSet) each(fn func(t string, f *fact)) {
	for t, f := range s.base {
		if s.get(t) == f {
			fn(t, f)
		}
	}
	var buf [maxRecentFacts]*factNode
	recent := s.oldestFirst(&buf)
	for i, r := range recent {
		newest := true
		for _, later := range recent[i+1:] {
			newest = newest && later.t != r.t
		}
		if newest && s.base[r.t] != r.f {
			fn(r.t, r.f)
		}
	}
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
	old := w.facts.get(term)
	if old == nil {
		nf := f
		nf.by = why
		w.setFact(term, &nf)
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
	w.setFact(term, &merged)
	return nil
}

// addDiff records x - y <= c.
func (w *world) addDiff(x, y string, c int64, why *reason) []*reason {
	if r := w.ownD().add(x, y, c, why); r != nil {
		return r
	}
	return w.checkNeq()
}

// addNeq records x - y != c.
func (w *world) addNeq(x, y string, c int64, why *reason) []*reason {
	w.ver = nextVer()
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
const maxKept = 24

// perSig is how many worlds that know the same of every element of the
// same slices are kept apart.
const perSig = 1

// shrink joins worlds until at most maxKept are left. Worlds that know
// the same things of every element of the same slices are joined first
// (a join of those keeps that), down to perSig of each; then, if there
// are still too many, any two.
func shrink(ws []*world) []*world {
	if len(ws) <= perSig {
		return ws
	}
	groups := map[string][]*world{}
	var order []string
	for _, wd := range ws {
		sig := forallSig(wd)
		if _, ok := groups[sig]; !ok {
			order = append(order, sig)
		}
		groups[sig] = append(groups[sig], wd)
	}
	sort.Strings(order)
	var out []*world
	for _, sig := range order {
		g := groups[sig]
		for len(g) > perSig {
			g = append([]*world{joinWorlds(g[0], g[1])}, g[2:]...)
		}
		out = append(out, g...)
	}
	for len(out) > maxKept {
		out = append([]*world{joinWorlds(out[0], out[1])}, out[2:]...)
	}
	return out
}

// forallSlices are the slices a world knows what every element of
// passes, by term.
func (w *world) forallSlices() []string {
	out := make([]string, 0, len(w.forall))
	for s := range w.forall {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// forallSig names what a world knows of every element of its slices,
// and, for a slice whose elements' parts a sum holds, the elements it
// names: two worlds that name different elements (an element of one
// slice or of another, as the way took one or the other) are kept apart,
// since a join would keep of neither element what the other world says
// of it, which a check of the sum needs all of (its type, that it is not
// nil).
func forallSig(wd *world) string {
	var parts []string
	for s, ts := range wd.forall {
		sums := false
		for _, t := range ts {
			parts = append(parts, s+"|"+t.name())
			sums = sums || len(t.loop.sums) > 0
		}
		if sums {
			for _, e := range wd.elems[s] {
				parts = append(parts, s+"#"+e)
			}
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// joinWorlds is a world that holds wherever a or b does: the choices,
// facts and relations both have.
func joinWorlds(a, b *world) *world {
	out := newWorld()
	// A value both took the same alternative of stays chosen; one each
	// took another alternative of (or was among others of) is one of
	// them all in the joined world.
	seen := map[altKey]bool{}
	join := func(k altKey) {
		if seen[k] {
			return // an older choice of the same value, shadowed
		}
		seen[k] = true
		ai, aChose := a.choice.get(k)
		if bi, ok := b.choice.get(k); ok && aChose && bi == ai {
			out.setChoice(k, ai)
			return
		}
		sa, okA := a.among(k)
		sb, okB := b.among(k)
		if okA && okB {
			out.took = &tookSets{k: k, set: sa | sb, next: out.took}
		}
	}
	for c := a.choice; c != nil; c = c.next {
		join(c.k)
	}
	for t := a.took; t != nil; t = t.next {
		join(t.k)
	}
	a.facts.each(func(t string, f *fact) {
		g := b.facts.get(t)
		if g == nil {
			return
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
			out.setFact(t, &m)
		}
	})
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
			out.ownD().add(xt, yt, c, e.why)
		}
	}
	add(a, b)
	add(b, a)
	// A disequality both have.
	for _, n := range a.neq {
		for _, m := range b.neq {
			if m.x == n.x && m.y == n.y && m.c == n.c {
				out.neq = append(out.neq, n)
				break
			}
		}
	}
	for s, ts := range a.forall {
		for _, t := range ts {
			for _, u := range b.forall[s] {
				if t == u {
					out.addForall(s, t)
				}
			}
		}
	}
	for s, es := range a.elems {
		for _, e := range es {
			out.addElemTo(s, e)
		}
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
				out.addElemTo(s, e)
			}
		}
	}
	return out
}
