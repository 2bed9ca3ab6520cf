package feasible

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// maxWorlds bounds the worlds of one path: past it, a value that is one
// of several is taken as some value (no split), which loses precision but
// never refutes a path that can run.
const maxWorlds = 512

// choice is one way a value can be in a world: the value, and, when it
// is an SSA value of some frame (the alternative a phi or a call takes),
// that value, so that a boolean can be followed into it.
type choice struct {
	w   *world
	fr  *frame
	v   ssa.Value
	val *value
	// src are the alternatives taken to get the value, for reasons.
	src []*reason
}

// death is a world that could not hold, with why.
type death struct{ why []*reason }

func (w *walk) kill(why ...*reason) {
	var keep []*reason
	for _, r := range why {
		if r != nil {
			keep = append(keep, r)
		}
	}
	w.deaths = append(w.deaths, death{why: keep})
}

// constrain returns the worlds of ws in which the boolean v of frame fr
// is want; why is the reason to record (the condition the path needs).
func (w *walk) constrain(ws []*world, fr *frame, v ssa.Value, want bool, why *reason) []*world {
	if len(ws) == 0 {
		return nil
	}
	w.budget--
	if w.budget < 0 {
		w.shortened = true
		return ws
	}
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op == token.NOT {
			return w.constrain(ws, fr, x.X, !want, why)
		}
	case *ssa.Const:
		if x.Value != nil && x.Value.Kind() == constant.Bool {
			if constant.BoolVal(x.Value) == want {
				return ws
			}
			w.kill(why)
			return nil
		}
	case *ssa.BinOp:
		switch x.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return w.compareIn(ws, fr, x, want, why)
		}
	case *ssa.Extract:
		if ta, ok := x.Tuple.(*ssa.TypeAssert); ok && x.Index == 1 {
			return w.typeIn(ws, fr, ta, want, why)
		}
	}
	val := fr.eval(v)
	var out []*world
	for _, ch := range w.expand(ws, fr, v, val, nil) {
		if ch.fr != nil && ch.v != nil && (ch.fr != fr || ch.v != v) {
			// The alternative is a boolean of its own: a function's
			// `return x > y`, a phi's edge.
			out = append(out, w.constrain([]*world{ch.w}, ch.fr, ch.v, want, why)...)
			continue
		}
		out = append(out, w.boolAtom(ch, want, why)...)
	}
	return out
}

// boolAtom constrains a boolean value that is no comparison.
func (w *walk) boolAtom(ch choice, want bool, why *reason) []*world {
	x := ch.val
	switch {
	case x.kind == kConst && !x.isNil && x.c != nil && x.c.Kind() == constant.Bool:
		if constant.BoolVal(x.c) == want {
			return []*world{ch.w}
		}
		w.kill(append([]*reason{why}, ch.src...)...)
		return nil
	case x.term != "" && x.org != unknown:
		wd := ch.w.clone()
		if r := wd.addFact(x.term, fact{boolean: boolOf(want)}, why); r != nil {
			w.kill(append(r, ch.src...)...)
			return nil
		}
		return w.prepare([]*world{wd}, x.term)
	}
	return []*world{ch.w}
}

// expand lists the ways value val (of v in fr, when known) can be in each
// world: one per alternative of a value that is one of several, with the
// branches the alternative needs. Its callers read the result at once:
// a single way is returned in the walk's buffer one, which the next call
// reuses.
func (w *walk) expand(ws []*world, fr *frame, v ssa.Value, val *value, src []*reason) []choice {
	if val.kind == kNone {
		// A way that cannot be: the call it needs runs another method.
		w.kill(append([]*reason{{kind: ReasonValue, text: "dispatch", pos: val.at}}, src...)...)
		return nil
	}
	if val.kind != kAlt {
		if len(ws) == 1 {
			// The common case, without an allocation (see one).
			w.one[0] = choice{w: ws[0], fr: fr, v: v, val: val, src: src}
			return w.one[:1:1]
		}
		out := make([]choice, 0, len(ws))
		for _, wd := range ws {
			out = append(out, choice{w: wd, fr: fr, v: v, val: val, src: src})
		}
		return out
	}
	if w.expanding[val.key] {
		// A value that holds itself (a call whose result is the same
		// call's, by its name and arguments): nothing more is known.
		out := make([]choice, 0, len(ws))
		opaque := &value{kind: kOpaque, org: val.org, why: val.why, term: val.term}
		for _, wd := range ws {
			out = append(out, choice{w: wd, val: opaque, src: src})
		}
		return out
	}
	if w.expanding == nil {
		w.expanding = map[altKey]bool{}
	}
	w.expanding[val.key] = true
	defer delete(w.expanding, val.key)
	var out []choice
	for _, wd := range ws {
		idx, chosen := wd.choice.get(val.key)
		split := !chosen && len(val.alts) > 1
		if split && len(out)+len(val.alts) > maxWorlds {
			// Too many ways: some value, about which nothing is known.
			out = append(out, choice{w: wd, val: &value{kind: kOpaque, org: val.org, why: val.why, term: val.term}, src: src})
			continue
		}
		for i, a := range val.alts {
			if chosen && i != idx {
				continue
			}
			wds := []*world{wd}
			asrc := src
			if !chosen {
				c := wd.clone()
				c.setChoice(val.key, i)
				w.noteAlts(val)
				wds = w.applyGuards([]*world{c}, a)
				if w.thorough {
					wds = w.applyWays(wds, a)
				}
				if a.at.IsValid() {
					asrc = append(append([]*reason(nil), src...), w.altReason(a))
				}
			}
			if len(wds) == 0 {
				continue
			}
			av := a.value()
			afr, ssaV := a.fr, a.v
			if a.fn != nil || a.val != nil {
				afr, ssaV = nil, nil
			}
			out = append(out, w.expand(wds, afr, ssaV, av, asrc)...)
		}
	}
	return out
}

// altReason says what an alternative fixes, for reasons: "returns at",
// "assigned at".
func (w *walk) altReason(a *alt) *reason {
	r := &reason{pos: a.at, kind: ReasonValue, text: a.what}
	if a.call != nil {
		r.via = []*viaCall{a.call}
	}
	return r
}

// applyGuards returns the worlds of ws in which alternative a's guards
// hold.
func (w *walk) applyGuards(ws []*world, a *alt) []*world {
	for i := range a.guards {
		g := &a.guards[i]
		if len(ws) == 0 {
			return nil
		}
		if g.tmpl != nil {
			ws = w.addTemplate(ws, g.tmpl)
			continue
		}
		if g.why == nil {
			g.why = w.guardReason(g.fr, g.ifi, g.want, g.via, ReasonGuard)
		}
		ws = w.constrain(ws, g.fr, g.ifi.Cond, g.want, g.why)
	}
	return ws
}

// applyWays returns the worlds of ws split by the ways into alternative
// a (a return that several branches reach): in each, the branches of one
// way hold. ws itself when a has no ways told apart.
func (w *walk) applyWays(ws []*world, a *alt) []*world {
	if len(a.ways) == 0 || len(ws) == 0 {
		return ws
	}
	var split []*world
	for i := range a.ways {
		split = append(split, w.applyWay(ws, a.ways[i])...)
	}
	return split
}

// applyWay returns the worlds of ws in which the branches of one way
// into an alternative hold.
func (w *walk) applyWay(ws []*world, way []guard) []*world {
	for i := range way {
		g := &way[i]
		if len(ws) == 0 {
			return nil
		}
		if g.why == nil {
			g.why = w.guardReason(g.fr, g.ifi, g.want, g.via, ReasonGuard)
		}
		ws = w.constrain(ws, g.fr, g.ifi.Cond, g.want, g.why)
	}
	return ws
}

// guardReason is a branch that a value the path uses needed: a branch of a
// function whose result the path tests.
func (w *walk) guardReason(fr *frame, ifi *ssa.If, want bool, via []*viaCall, kind ReasonKind) *reason {
	var c *Cond
	if kind == ReasonGuard {
		// A guard's condition is only read (a ReasonCond's is told apart
		// by its identity: see readThrough).
		c = w.c.text.guardCond(fr.fn, ifi, want)
	} else {
		text, pos, flip := w.c.text.condText(ifi)
		c = &Cond{Func: fr.fn, If: ifi, Text: text, Pos: pos, Want: want != flip}
	}
	return &reason{cond: c, pos: c.Pos, kind: kind, via: via}
}

// compareIn constrains a comparison.
func (w *walk) compareIn(ws []*world, fr *frame, b *ssa.BinOp, want bool, why *reason) []*world {
	x, y := fr.eval(b.X), fr.eval(b.Y)

	op := b.Op
	if !want {
		op = negate(op)
	}
	var out []*world
	for _, cx := range w.expand(ws, fr, b.X, x, nil) {
		for _, cy := range w.expand([]*world{cx.w}, fr, b.Y, y, cx.src) {
			out = append(out, w.atom(cy.w, op, cx.val, cy.val, b.X.Type(), why, cy.src)...)
		}
	}
	return out
}

// lin is an integer value as term + off ("" is zero: a constant).
func linOf(v *value) (string, int64, bool) {
	if k, ok := intConst(v); ok {
		return "", k, true
	}
	if v.term != "" && v.org != unknown && v.kind != kObj && v.kind != kAlt && v.kind != kConst {
		return v.term, v.off, true
	}
	return "", 0, false
}

// atom adds x op y to world wd.
func (w *walk) atom(wd *world, op token.Token, x, y *value, t types.Type, why *reason, src []*reason) []*world {
	if b, ok := foldBool(op, x, y); ok {
		if b {
			return []*world{wd}
		}
		w.kill(append([]*reason{why}, src...)...)
		return nil
	}
	// Nil-ness.
	if op == token.EQL || op == token.NEQ {
		for _, p := range [][2]*value{{x, y}, {y, x}} {
			if isNilConst(p[1]) && p[0].term != "" && p[0].org != unknown && p[0].kind != kObj {
				c := wd.clone()
				f := fact{nilness: 1}
				if op == token.NEQ {
					f.nilness = 2
				}
				if r := c.addFact(p[0].term, f, why); r != nil {
					w.kill(append(r, src...)...)
					return nil
				}
				return w.prepare([]*world{c}, p[0].term)
			}
		}
	}
	// Booleans.
	if op == token.EQL || op == token.NEQ {
		for _, p := range [][2]*value{{x, y}, {y, x}} {
			if p[1].kind == kConst && !p[1].isNil && p[1].c != nil && p[1].c.Kind() == constant.Bool && p[0].term != "" && p[0].org != unknown {
				b := constant.BoolVal(p[1].c) == (op == token.EQL)
				return w.boolAtom(choice{w: wd, val: p[0], src: src}, b, why)
			}
		}
	}
	if !isInteger(t) {
		return []*world{wd}
	}
	tx, ox, ok1 := linOf(x)
	ty, oy, ok2 := linOf(y)
	if !ok1 || !ok2 || (tx == "" && ty == "") {
		return []*world{wd}
	}
	c := wd.clone()
	// x op y with x = tx + ox, y = ty + oy.
	d := oy - ox
	var r []*reason
	switch op {
	case token.LSS: // tx - ty <= d - 1
		r = c.addDiff(tx, ty, d-1, why)
	case token.LEQ:
		r = c.addDiff(tx, ty, d, why)
	case token.GTR: // ty - tx <= -d - 1
		r = c.addDiff(ty, tx, -d-1, why)
	case token.GEQ:
		r = c.addDiff(ty, tx, -d, why)
	case token.EQL:
		if r = c.addDiff(tx, ty, d, why); r == nil {
			r = c.addDiff(ty, tx, -d, why)
		}
	case token.NEQ:
		r = c.addNeq(tx, ty, d, why)
	}
	if r != nil {
		w.kill(append(r, src...)...)
		return nil
	}
	// Then what the store keeps true of the terms, and what every element
	// of their slices passes.
	return w.prepare([]*world{c}, tx, ty)
}

// typeIn constrains a type assertion's success.
func (w *walk) typeIn(ws []*world, fr *frame, ta *ssa.TypeAssert, want bool, why *reason) []*world {
	x := fr.eval(ta.X)
	tname := w.c.typeString(ta.AssertedType)
	_, isIface := ta.AssertedType.Underlying().(*types.Interface)
	var out []*world
	for _, ch := range w.expand(ws, fr, ta.X, x, nil) {
		v := ch.val
		switch {
		case v.kind == kNonNil && v.dyn != nil:
			ok := types.Identical(v.dyn, ta.AssertedType)
			if iface, isI := ta.AssertedType.Underlying().(*types.Interface); isI {
				ok = types.Implements(v.dyn, iface)
			}
			if ok == want {
				out = append(out, ch.w)
			} else {
				w.kill(append([]*reason{why}, ch.src...)...)
			}
		case v.kind == kConst && v.isNil:
			if !want {
				out = append(out, ch.w)
			} else {
				w.kill(append([]*reason{why}, ch.src...)...)
			}
		case v.term != "" && v.org != unknown && !isIface:
			c := ch.w.clone()
			if r := c.addFact(v.term, fact{isType: tname, typeWant: want}, why); r != nil {
				w.kill(append(r, ch.src...)...)
				continue
			}
			out = append(out, w.prepare([]*world{c}, v.term)...)
		default:
			out = append(out, ch.w)
		}
	}
	return out
}

// prepare readies the worlds for constraints on terms: what holds for
// every element of a slice is said of an element the terms are part of,
// and what the store keeps true (invariants, a lock that keeps a field
// still) is said of the reads they are.
func (w *walk) prepare(ws []*world, terms ...string) []*world {
	for _, t := range terms {
		if t == "" {
			continue
		}
		if ti := w.terms[t]; ti.counter != nil {
			// A loop's counter is never below where it starts.
			why := &reason{kind: ReasonValue, text: "counter|" + strconv.FormatInt(ti.start, 10), pos: ti.at}
			var out []*world
			for _, wd := range ws {
				c := wd.clone()
				if r := c.addDiff("", t, -ti.least, why); r != nil {
					w.kill(r...)
					continue
				}
				out = append(out, c)
			}
			ws = out
		}
		if fl := w.terms[t].floor; fl != nil {
			// What the code computes it from never lets it go below least.
			ws = w.bound(ws, "", t, -fl.least, &reason{kind: ReasonValue, text: "least|" + strconv.FormatInt(fl.least, 10) + "|" + leastHow(fl.info), pos: valuePos(fl.v)})
		}
		ws = w.relate(ws, t)
		if ti := w.terms[t]; ti.read != nil && isInteger(ti.read.field.Type()) {
			if inv := w.c.floor(ti.read.field); inv != nil && len(inv.Unbounded) == 0 {
				ws = w.floorOf(ws, t, inv)
			}
			ws = w.order(ws, t, ti.read)
		}
	}
	// The elements last, so that their check sees what the store keeps
	// true of every term.
	for _, t := range terms {
		if t == "" {
			continue
		}
		for _, se := range w.elements(t) {
			ws = w.addElem(ws, se[0], se[1])
		}
	}
	return ws
}

// floorOf says in each world, once, that read t of a field the store
// never sets below 0 is not below 0.
func (w *walk) floorOf(ws []*world, t string, inv *Invariant) []*world {
	return w.bound(ws, "", t, 0, &reason{kind: ReasonInvariant, inv: inv, pos: w.terms[t].read.at.Pos()})
}

// narrowAll is world wd narrowed by what every element of a slice passes,
// said of every element the path names (see narrowTerm).
func (w *walk) narrowAll(wd *world) []*world {
	ws := []*world{wd}
	for _, s := range wd.forallSlices() {
		for _, e := range wd.elems[s] {
			var next []*world
			for _, x := range ws {
				next = append(next, w.narrow(x, wd.forall[s], e)...)
			}
			ws = next
		}
	}
	return ws
}

// assumedFloors turns an OnlyIf verdict into Unknown when no world of the
// way is left once the reads of fields never set below 0 but through
// writes the analysis does not bound (an assumed floor) are taken not to
// be below 0: the way needs such a field below 0, which the analysis can
// neither show possible nor rule out. (A field none of whose writes the
// analysis bounds has no floor to assume: a condition on it stays one of
// state.) It does the same, for an OnlyIf or a Yes verdict, when no world
// is left once, besides, two reads of a field that only grows but
// through writes that may lower it are taken in the order the path makes
// them (an assumed order, see order.go).
func (w *walk) assumedFloors(in Result) (res Result) {
	res = in
	var floors, orders, carries []assumed
	var sent []string
	for t, ti := range w.terms {
		if ti.sent != nil {
			sent = append(sent, t)
		}
	}
	sort.Strings(sent)
	var free []assumed
	for _, t := range sent {
		for _, x := range w.sentReads(t, w.terms[t].sent) {
			if x.carry.Config != nil {
				free = append(free, x)
			} else {
				carries = append(carries, x)
			}
		}
	}
	// A difference less a field of the configuration assumes nothing: the
	// way needs the configuration so, which the condition it makes needed
	// says (configNeed).
	defer func() {
		if len(free) > 0 && (res.Verdict == OnlyIf || res.Verdict == Yes) {
			res = w.configNeed(res, free)
		}
	}()
	seen := map[[2]string]bool{}
	for _, t := range w.intReads() {
		rd := w.terms[t].read
		if inv := w.c.floor(rd.field); inv != nil && len(inv.Unbounded) > 0 && len(inv.Writes) > 0 {
			floors = append(floors, assumed{a: "", b: t, inv: inv})
		}
		// An order can end a world only when one of its two reads is
		// constrained there already (the other may come in with what the
		// elements of a slice pass).
		if inv := w.c.grows(rd.field); inv != nil && len(inv.Unbounded) > 0 && w.inSomeWorld(t) {
			for _, p := range w.orderedPairs(t, rd) {
				if k := [2]string{p.first, p.then}; !seen[k] {
					seen[k] = true
					orders = append(orders, assumed{a: p.first, b: p.then, inv: inv, reads: p.at[:]})
				}
			}
		}
		carries = append(carries, w.carriedReads(t, rd)...)
	}
	stills := append(append(w.stillPairs(), w.entryPairs()...), w.raisePairs()...)
	if len(w.worlds) == 0 || len(orders) == 0 && len(carries) == 0 && len(stills) == 0 && (len(floors) == 0 || res.Verdict != OnlyIf) {
		return res
	}
	saved, budget := w.deaths, w.budget
	defer func() { w.deaths, w.budget = saved, budget }()
	// The parts of the request that what the path checked earlier leaves
	// one value (Cond.Pinned) are that value in every world.
	var pins []Pin
	for _, c := range res.Conds {
		for _, p := range c.Pinned {
			if !p.Fixed && len(p.terms) > 0 {
				pins = append(pins, p)
			}
		}
	}
	var ws []*world
	for _, wd := range w.worlds {
		for _, x := range w.narrowAll(wd) {
			x = x.clone()
			ok := true
			for _, p := range pins {
				for _, to := range p.terms {
					if !x.d.has(to.t) {
						continue
					}
					v := p.Value - to.off
					if x.addDiff(to.t, "", v, nil) != nil || x.addDiff("", to.t, -v, nil) != nil {
						ok = false
					}
				}
			}
			if ok {
				ws = append(ws, x)
			}
		}
	}
	// First the floors alone (an OnlyIf verdict), then with the orders.
	var floor, order *assumed
	var needs []*Cond
	if res.Verdict == OnlyIf && len(floors) > 0 {
		floor, _, needs = w.noWorldWith(ws, floors)
	}
	if floor == nil && len(orders) > 0 {
		floor, order, needs = w.noWorldWith(ws, append(append([]assumed(nil), floors...), orders...))
	}
	named := floor
	if order != nil {
		named = order
	}
	if named != nil {
		// Two reads a serial run keeps still are one value, and a field
		// that only grows does not go down between two reads of one run
		// that meets none of the writes that may lower it, made only in
		// such runs, whatever the writes the floor or the order cannot
		// bound do elsewhere: when that alone leaves no world, the way
		// cannot run (a read view's revision and the write's, taken
		// within one apply run).
		kept := append(append([]assumed(nil), stills...), w.loweredPairs()...)
		if _, _, _, still, needs := w.noWorldWith3(ws, kept); still != nil {
			if r := w.gaveStill(res, still, needs); r.Verdict == No {
				return r
			}
		}
	}
	if named == nil && len(carries) > 0 {
		var carry *assumed
		var all []assumed
		if res.Verdict == OnlyIf {
			all = append(all, floors...)
		}
		all = append(append(all, orders...), carries...)
		if _, _, carry, _, needs = w.noWorldWith3(ws, all); carry != nil {
			return w.gaveCarried(res, carry, needs)
		}
	}
	if named == nil && len(stills) > 0 {
		var all []assumed
		if res.Verdict == OnlyIf {
			all = append(all, floors...)
		}
		all = append(append(append(all, stills...), orders...), carries...)
		if _, _, _, still, needs := w.noWorldWith3(ws, all); still != nil {
			return w.gaveStill(res, still, needs)
		}
	}
	if named == nil {
		return res
	}
	inv := named.inv
	cond := Cond{Class: Gave, Why: Floored, Text: inv.A.Name(), Pos: inv.Unbounded[0].Pos, Func: inv.Unbounded[0].Func, Floor: inv, Reads: named.reads}
	cond.OrBelow = order != nil && floor != nil && floor.inv.A == order.inv.A
	return gaveOn(res, cond, needs, inv.A)
}

// configNeed notes what the way needs of the configuration the server
// is made with, for free, the carries of differences less a field of it
// (Carry.Config): when they, taken as what the sender's writes leave,
// leave no world, the way needs that field below 0, and the last of its
// conditions that this ends (the compaction's revision past the current
// one) says so (Cond.Configured).
func (w *walk) configNeed(res Result, free []assumed) Result {
	saved, budget := w.deaths, w.budget
	defer func() { w.deaths, w.budget = saved, budget }()
	_, _, carry, _, needs := w.noWorldWith3(w.worlds, free)
	if carry == nil {
		return res
	}
	for i := len(res.Conds) - 1; i >= 0; i-- {
		c := &res.Conds[i]
		if !slices.ContainsFunc(needs, func(n *Cond) bool { return c.Pos == n.Pos && c.Text == n.Text && c.Want == n.Want }) {
			continue
		}
		conds := append([]Cond(nil), res.Conds...)
		conds[i].Configured = carry.carry
		if res.Because != nil {
			for j := range res.Conds {
				if res.Because == &res.Conds[j] {
					res.Because = &conds[j]
				}
			}
		}
		res.Conds = conds
		return res
	}
	return res
}

// gaveOn makes res Unknown for cond, which says what the way needs that
// the analysis assumed away. Its Near is the condition that needs it:
// the last of the way's that the assumption contradicts (needs), or
// else the last of state that reads one of fields, or else the last of
// state.
func gaveOn(res Result, cond Cond, needs []*Cond, fields ...*types.Var) Result {
	for i := len(res.Conds) - 1; i >= 0 && cond.Near == nil; i-- {
		c := &res.Conds[i]
		for _, n := range needs {
			if c.Pos == n.Pos && c.Text == n.Text && c.Want == n.Want {
				cond.Near = c
			}
		}
	}
	for i := len(res.Conds) - 1; i >= 0 && cond.Near == nil; i-- {
		if c := &res.Conds[i]; c.Class == State && slices.ContainsFunc(fields, func(f *types.Var) bool { return slices.Contains(c.Fields, f) }) {
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

// inSomeWorld reports whether a world of the path constrains term t.
func (w *walk) inSomeWorld(t string) bool {
	for _, wd := range w.worlds {
		if wd.d.has(t) {
			return true
		}
	}
	return false
}

// assumed is an assumption about the path's reads: a - b <= 0 (a floor
// when a is "", an order of two reads otherwise).
type assumed struct {
	a, b  string
	inv   *Invariant
	reads []token.Pos
	// A carried read (carry set) is a - b <= k, read a in function fn
	// (by the sender of a message handed to the path, when sent).
	k     int64
	carry *Carry
	fn    *ssa.Function
	sent  bool
	// A still pair (still set) is a - b <= 0, one of the two halves of
	// a == b: two reads a serial run keeps still. With raise, b is a read
	// of a field that the statement raise raised to at least the value
	// raised (raisePairs: its term, or a constant, in each world), and a
	// serial run keeps still since.
	still  *Still
	raise  string
	raised *value
	// entry says that a and b are two lookups of a map (the entries
	// they give), one the same as the other when their keys are one
	// (entryClash).
	entry bool
	// rs are, once the assumption ended a world, the reasons it ended.
	rs []*reason
	// apart says that the two lookups of an entry pair reach the map
	// through different fields: one struct is not shown.
	apart bool
	// cands are, for an entry pair, the earlier lookups of its key;
	// checked and ruled say its check was made, and what it found (it
	// does not depend on the world: see entryRecheck).
	cands   []entryCand
	joins   []joinWays // the joins a check of the map leads to (joinAlts)
	checked bool
	ruled   []*reason
	// unnamed are, for an entry pair, where the later lookup's key is
	// fixed on the ways where it is not the earlier's but a value the
	// analysis cannot name: those ways are not decided.
	unnamed []token.Pos
}

// noWorldWith reports, when no world of ws is left once the assumptions
// are added, the first floor and the first order that ended a world, and
// the way's conditions that, with them, left none; nils when a world is
// left.
func (w *walk) noWorldWith(ws []*world, as []assumed) (floor, order *assumed, needs []*Cond) {
	floor, order, _, _, needs = w.noWorldWith3(ws, as)
	return floor, order, needs
}

// noWorldWith3 is noWorldWith that also says the first carried read
// and the first still pair that ended a world.
func (w *walk) noWorldWith3(ws []*world, as []assumed) (floor, order, carry, still *assumed, needs []*Cond) {
	for _, wd := range ws {
		c := wd.clone()
		dead := false
		for i := range as {
			x := &as[i]
			var r []*reason
			switch {
			case x.entry:
				r = w.entryRecheck(c, x)
			case x.raised != nil:
				// The value raised, as this world has it: raised <= b.
				v := resolveIn(c, x.raised)
				if v == nil || !c.d.has(x.b) {
					continue
				}
				t, off, ok := linOf(v)
				if !ok || t != "" && !c.d.has(t) {
					continue
				}
				r = c.addDiff(t, x.b, -off, &reason{kind: ReasonInvariant, inv: x.inv})
			case x.a != "" && !c.d.has(x.a) || !c.d.has(x.b):
				continue
			default:
				r = c.addDiff(x.a, x.b, x.k, &reason{kind: ReasonInvariant, inv: x.inv})
			}
			if r != nil {
				dead = true
				first := false
				switch {
				case x.still != nil:
					if still == nil {
						still, first = x, true
						x.rs = r
					}
				case x.carry != nil:
					if carry == nil {
						carry, first = x, true
					}
				case x.a == "":
					if floor == nil {
						floor, first = x, true
					}
				case order == nil:
					order, first = x, true
				}
				if first {
					for _, y := range r {
						if y != nil && y.cond != nil && y.kind == ReasonCond {
							needs = append(needs, y.cond)
						}
					}
				}
				break
			}
		}
		if !dead {
			return nil, nil, nil, nil, nil
		}
	}
	return floor, order, carry, still, needs
}

// addElem notes that elem is an element of slice, and checks it against
// what every element of the slice passes (a loop that completed over it):
// a world in which the element takes all the branches of one of the
// loop's returns cannot be. The check runs again whenever a constraint
// touches the element, so that what the path learns later counts too.
// (The check does not split a world by the branches the element must
// avoid: it kills the worlds that take them all.)
func (w *walk) addElem(ws []*world, slice, elem string) []*world {
	var out []*world
	for _, wd := range ws {
		known := false
		for _, e := range wd.elems[slice] {
			if e == elem {
				known = true
			}
		}
		if !known {
			wd.addElemTo(slice, elem)
		}
		if why := w.violates(wd, wd.forall[slice], elem); why != nil {
			w.kill(why...)
			continue
		}
		out = append(out, wd)
	}
	return out
}

// narrow constrains world wd with what every element of a slice passes,
// said of elem: of each of the loop's returns that one branch alone
// leads to, the element takes the other side. (A return that needs
// several branches says only that the element does not take them all.)
// The path's worlds
// are not narrowed as they go (violates kills those that take a return's
// branches, without splitting them by the branch each avoids, which
// costs far more): pinned narrows copies, for one comparison.
func (w *walk) narrow(wd *world, ts []*template, elem string) []*world {
	if w.checking || len(ts) == 0 {
		return []*world{wd}
	}
	w.checking = true
	defer func() { w.checking = false }()
	ws := []*world{wd}
	for _, t := range ts {
		tf := w.templateFrame(t, elem)
		for _, exit := range t.loop.exits {
			if len(exit) == 1 {
				e := exit[0]
				ws = w.constrain(ws, tf, e.ifi.Cond, !e.want, w.guardReason(tf, e.ifi, e.want, t.via, ReasonForall))
			}
		}
	}
	return ws
}

// addTemplate records, in each world, what every element of the loop's
// slice passes, and checks the elements the path names already.
func (w *walk) addTemplate(ws []*world, t *template) []*world {
	sv := t.fr.eval(t.loop.slice)
	var out []*world
	for _, ch := range w.expand(ws, t.fr, t.loop.slice, sv, nil) {
		if ch.val.term == "" || ch.val.org == unknown {
			out = append(out, ch.w)
			continue
		}
		s := ch.val.term
		wd := ch.w.clone()
		wd.addForall(s, t)
		dead := false
		for _, e := range wd.elems[s] {
			if why := w.violates(wd, []*template{t}, e); why != nil {
				w.kill(why...)
				dead = true
				break
			}
		}
		if !dead {
			out = append(out, wd)
		}
	}
	return out
}

// violates returns why element elem cannot be in world wd by one of the
// templates: it takes every branch of one of the loop's returns, which
// the loop (having completed) never took. Nil when it may be.
func (w *walk) violates(wd *world, ts []*template, elem string) []*reason {
	if w.checking || len(ts) == 0 {
		return nil // not within another check: one level of templates
	}
	return w.violates1(wd, ts, elem)
}

func (w *walk) violates1(wd *world, ts []*template, elem string) []*reason {
	w.checking = true
	defer func() { w.checking = false }()
	for _, t := range ts {
		tf := w.templateFrame(t, elem)
		for _, exit := range t.loop.exits {
			if len(exit) == 0 {
				// The body always returns: the loop completes only over no
				// element.
				return []*reason{{kind: ReasonForall, pos: t.loop.head.Instrs[len(t.loop.head.Instrs)-1].Pos(), via: t.via}}
			}
			why, ok := w.entailsAll(wd, tf, exit)
			if ok {
				for _, e := range exit {
					why = append(why, w.guardReason(tf, e.ifi, e.want, t.via, ReasonForall))
				}
				return why
			}
		}
		for _, si := range t.loop.sums {
			if why := w.sumExceeded(wd, t, si, elem); why != nil {
				return why
			}
		}
	}
	return nil
}

// sumExceeded returns why elem's part of sum si cannot be in world wd:
// the world holds the sum to at most K, so, the parts being never below
// 0, no part is above K less the start; and elem's part cannot be at
// most that. Nil when it may be.
func (w *walk) sumExceeded(wd *world, t *template, si *sumInfo, elem string) []*reason {
	sum := t.fr.eval(si.phi)
	term, off, ok := linOf(sum)
	if !ok || term == "" {
		return nil
	}
	k, bounded := wd.d.bound(term, "")
	if !bounded {
		return nil
	}
	limit := k + off - si.start
	// What the world says of the element: its parts' facts and relations.
	// A check that found the part may be at most the limit, for the same
	// element, limit and what the world says of it, is not made again.
	mk := sumKey{t: t, si: si, elem: elem, limit: limit, of: elemFacts(wd, elem)}
	if w.sumMay[mk] {
		return nil
	}
	_, held := wd.d.implies(term, "", k)
	tf := w.sumFrame(t, elem)
	pv := tf.eval(si.part)
	// Each alternative of the part by every way into its return (a
	// `return nil` that two failed tests lead to), as a recheck takes
	// them: an element the way handles is known well.
	saved, thorough := w.deaths, w.thorough
	w.thorough = true
	defer func() { w.deaths, w.thorough = saved, thorough }()
	mark := len(w.deaths)
	why := &reason{kind: ReasonValue, text: "sum|" + strconv.FormatInt(si.start, 10), pos: addPos(si), via: t.via}
	for _, ch := range w.expand([]*world{wd.clone()}, tf, si.part, pv, nil) {
		if len(w.atom(ch.w, token.LEQ, ch.val, constVal(constant.MakeInt64(limit)), si.part.Type(), why, ch.src)) > 0 {
			if w.sumMay == nil {
				w.sumMay = map[sumKey]bool{}
			}
			w.sumMay[mk] = true
			return nil
		}
	}
	var out []*reason
	out = append(out, held...)
	out = append(out, why)
	for _, d := range w.deaths[mark:] {
		out = append(out, d.why...)
	}
	return out
}

// sumKey is one check of sumExceeded: the template's sum, the element,
// the limit and what the world says of the element (elemFacts).
type sumKey struct {
	t     *template
	si    *sumInfo
	elem  string
	limit int64
	of    string
}

// elemFacts is what world wd says of element elem and its parts: their
// facts and the relations that name them, in a fixed order.
func elemFacts(wd *world, elem string) string {
	var parts []string
	of := func(t string) bool { return t == elem || strings.HasPrefix(t, elem+".") }
	wd.facts.each(func(t string, f *fact) {
		if of(t) {
			parts = append(parts, fmt.Sprintf("%s:%d,%d,%s,%v", t, f.nilness, f.boolean, f.isType, f.typeWant))
		}
	})
	for _, e := range wd.d.edges {
		if x, y := wd.d.names[e.to], wd.d.names[e.from]; of(x) || of(y) {
			parts = append(parts, fmt.Sprintf("%s-%s<=%d", x, y, e.w))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ";")
}

// addPos is where a pass adds to sum si: the addition.
func addPos(si *sumInfo) token.Pos {
	for _, e := range si.phi.Edges {
		if b, ok := e.(*ssa.BinOp); ok && b.Pos().IsValid() {
			return b.Pos()
		}
	}
	return si.part.Pos()
}

// sumFrame is the loop's frame with its element bound to elem, for the
// part a pass adds: a frame of its own, whose calls are followed as deep
// as from the path's own frames.
func (w *walk) sumFrame(t *template, elem string) *frame {
	k := tfKey{t, elem + "\x00sum"}
	if tf, ok := w.tframes[k]; ok {
		return tf
	}
	tf := w.templateFrame(t, elem)
	nf := w.newFrame(tf.fn, tf.parent, tf.callAt)
	nf.params, nf.free, nf.inline, nf.root, nf.rootState, nf.msg, nf.override = tf.params, tf.free, tf.inline, tf.root, tf.rootState, tf.msg, tf.override
	w.tframes[k] = nf
	return nf
}

// entailsAll reports whether world wd takes every branch of edges (the
// other side of each cannot be), with the reasons. A branch the world
// knows nothing of is not taken: those are found first, from the world's
// facts and relations alone; the others by constraining a copy with the
// other side.
func (w *walk) entailsAll(wd *world, fr *frame, edges []edgeOf) ([]*reason, bool) {
	var full []edgeOf
	for _, e := range edges {
		switch w.quickEntailed(wd, fr, e.ifi.Cond, e.want) {
		case qNo:
			return nil, false
		case qUnknown:
			// The other side is plainly possible: not taken. (A recheck
			// asks the whole question: see entryRecheck.)
			if !w.thorough && w.quickSat(wd, fr, e.ifi.Cond, !e.want, map[string]bool{}, 0) {
				return nil, false
			}
			full = append(full, e)
		}
	}
	if w.witnessAny(wd, fr, full) {
		return nil, false
	}
	saved := w.deaths
	defer func() { w.deaths = saved }()
	var why []*reason
	for _, e := range full {
		mark := len(w.deaths)
		if len(w.constrain([]*world{wd}, fr, e.ifi.Cond, !e.want, nil)) != 0 {
			return nil, false
		}
		for _, d := range w.deaths[mark:] {
			why = append(why, d.why...)
		}
	}
	return why, true
}

// witnessAny reports whether the other side of one of edges plainly
// can be in world wd: a comparison of a value of several alternatives
// (a call's result) with a constant, one of whose alternatives that the
// constant does not refute at once has guards that hold and makes the
// comparison hold (witness). Then entailsAll need not constrain a copy
// with every edge's other side, each alternative with its guards, to
// learn that the world does not take them all. False when it cannot
// say: the edges are constrained as before, and so are the reasons
// when every edge is taken. What it learns on the way (the worlds that
// die, the constraint work spent) is not the path's.
func (w *walk) witnessAny(wd *world, fr *frame, edges []edgeOf) bool {
	for _, e := range edges {
		if w.witnessIn([]*world{wd}, fr, e.ifi.Cond, !e.want) {
			return true
		}
	}
	return false
}

// witnessIn reports whether boolean v of frame fr is found to be want
// in some world of ws (witness), as constrain would find it there; false
// when it cannot say. The worlds that die on the way and the constraint
// work spent are not the path's.
func (w *walk) witnessIn(ws []*world, fr *frame, v ssa.Value, want bool) bool {
	saved, budget := w.deaths, w.budget
	defer func() { w.deaths, w.budget = saved, budget }()
	for _, wd := range ws {
		if w.witness(wd, fr, v, want) {
			return true
		}
	}
	return false
}

// witness reports whether boolean v of frame fr is found to be want in
// some world of wd's (see witnessAny); false when it cannot say.
func (w *walk) witness(wd *world, fr *frame, v ssa.Value, want bool) bool {
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op == token.NOT {
			return w.witness(wd, fr, x.X, !want)
		}
	case *ssa.BinOp:
		switch x.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
		default:
			return false
		}
		xv, yv := fr.eval(x.X), fr.eval(x.Y)
		op := x.Op
		if !want {
			op = negate(op)
		}
		switch {
		case xv.kind == kAlt && yv.kind == kConst:
			return w.someAlt([]*world{wd}, xv, yv, true, op, x.X.Type())
		case yv.kind == kAlt && xv.kind == kConst:
			return w.someAlt([]*world{wd}, yv, xv, false, op, x.X.Type())
		}
	}
	return false
}

// someAlt reports whether val op k (k op val unless left) holds in some
// world of ws, as compareIn finds it: the alternatives of val, each in
// the worlds its guards leave, skipping those whose value the constant
// refutes by itself (atom would kill them). False when it cannot say.
func (w *walk) someAlt(ws []*world, val, k *value, left bool, op token.Token, t types.Type) bool {
	pair := func(v *value) (*value, *value) {
		if left {
			return v, k
		}
		return k, v
	}
	switch val.kind {
	case kNone:
		return false
	case kAlt:
	default:
		for _, wd := range ws {
			x, y := pair(val)
			if len(w.atom(wd, op, x, y, t, nil, nil)) > 0 {
				return true
			}
		}
		return false
	}
	if w.expanding[val.key] {
		return false
	}
	if w.expanding == nil {
		w.expanding = map[altKey]bool{}
	}
	w.expanding[val.key] = true
	defer delete(w.expanding, val.key)
	for _, wd := range ws {
		idx, chosen := wd.choice.get(val.key)
		for i, a := range val.alts {
			if chosen && i != idx {
				continue
			}
			if pv := a.peek(); pv != nil {
				px, py := pair(pv)
				if b, ok := foldBool(op, px, py); ok && !b {
					continue
				}
			}
			wds := []*world{wd}
			if !chosen {
				c := wd.clone()
				c.setChoice(val.key, i)
				wds = w.applyGuards([]*world{c}, a)
				if w.thorough {
					wds = w.applyWays(wds, a)
				}
			}
			if len(wds) > 0 && w.someAlt(wds, a.value(), k, left, op, t) {
				return true
			}
		}
	}
	return false
}

type quick int

const (
	qUnknown quick = iota
	qYes
	qNo
)

// quickEntailed decides, from what world wd knows of plain terms, whether
// boolean v of frame fr is want in every way the world can be: qNo when
// the world knows nothing that forces it.
func (w *walk) quickEntailed(wd *world, fr *frame, v ssa.Value, want bool) quick {
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op == token.NOT {
			return w.quickEntailed(wd, fr, x.X, !want)
		}
	case *ssa.Extract:
		ta, ok := x.Tuple.(*ssa.TypeAssert)
		if !ok || x.Index != 1 {
			break
		}
		val := fr.eval(ta.X)
		if val.kind != kTerm || val.term == "" {
			return qUnknown
		}
		f := wd.facts.get(val.term)
		if f == nil || f.isType == "" {
			return qNo
		}
		tname := w.c.typeString(ta.AssertedType)
		switch {
		case f.typeWant && f.isType == tname:
			return boolQuick(want)
		case f.typeWant && f.isType != tname:
			if _, isIface := ta.AssertedType.Underlying().(*types.Interface); isIface {
				return qUnknown
			}
			return boolQuick(!want)
		case !f.typeWant && f.isType == tname:
			return boolQuick(!want)
		}
		return qNo
	case *ssa.BinOp:
		xv, yv := fr.eval(x.X), fr.eval(x.Y)
		if xv.kind == kAlt || yv.kind == kAlt {
			return qUnknown
		}
		op := x.Op
		if !want {
			op = negate(op)
		}
		if b, ok := foldBool(op, xv, yv); ok {
			return boolQuick(b)
		}
		// Nil-ness of a term.
		if op == token.EQL || op == token.NEQ {
			for _, p := range [][2]*value{{xv, yv}, {yv, xv}} {
				if isNilConst(p[1]) && p[0].term != "" {
					f := wd.facts.get(p[0].term)
					if f == nil || (f.nilness == 0 && !(f.isType != "" && f.typeWant)) {
						return qNo
					}
					isNil := f.nilness == 1
					return boolQuick(isNil == (op == token.EQL))
				}
			}
		}
		if !isInteger(x.X.Type()) {
			return qUnknown
		}
		tx, ox, ok1 := linOf(xv)
		ty, oy, ok2 := linOf(yv)
		if !ok1 || !ok2 {
			return qUnknown
		}
		if (tx != "" && !wd.d.has(tx)) || (ty != "" && !wd.d.has(ty)) {
			return qNo
		}
		d := oy - ox
		var ok bool
		switch op {
		case token.LSS:
			ok, _ = wd.d.implies(tx, ty, d-1)
		case token.LEQ:
			ok, _ = wd.d.implies(tx, ty, d)
		case token.GTR:
			ok, _ = wd.d.implies(ty, tx, -d-1)
		case token.GEQ:
			ok, _ = wd.d.implies(ty, tx, -d)
		default:
			return qUnknown
		}
		if ok {
			return qYes
		}
		return qUnknown
	}
	val := fr.eval(v)
	if val.kind == kTerm && val.term != "" {
		f := wd.facts.get(val.term)
		if f == nil || f.boolean == 0 {
			return qNo
		}
		return boolQuick((f.boolean == 2) == want)
	}
	return qUnknown
}

// quickSat reports whether boolean v of frame fr can plainly be want in
// world wd: it is a test of terms the world knows nothing of (and that
// this test does not use twice), or a value one of whose alternatives is
// such, with branches that are such. False when it cannot say.
func (w *walk) quickSat(wd *world, fr *frame, v ssa.Value, want bool, used map[string]bool, depth int) bool {
	if depth > 3 || fr == nil {
		return false
	}
	if w.quickEntailed(wd, fr, v, want) == qYes {
		return true // the world has it already
	}
	fresh := func(t string) bool {
		if t == "" || used[t] || wd.d.has(t) || wd.facts.get(t) != nil {
			return false
		}
		used[t] = true
		return true
	}
	switch x := v.(type) {
	case *ssa.Const:
		return x.Value != nil && x.Value.Kind() == constant.Bool && constant.BoolVal(x.Value) == want
	case *ssa.UnOp:
		if x.Op == token.NOT {
			return w.quickSat(wd, fr, x.X, !want, used, depth)
		}
	case *ssa.Extract:
		if ta, ok := x.Tuple.(*ssa.TypeAssert); ok && x.Index == 1 {
			val := fr.eval(ta.X)
			return val.kind != kAlt && fresh(val.term)
		}
	case *ssa.BinOp:
		xv, yv := fr.eval(x.X), fr.eval(x.Y)
		op := x.Op
		if !want {
			op = negate(op)
		}
		if b, ok := foldBool(op, xv, yv); ok {
			return b
		}
		// One side a value of several: some alternative does it.
		for _, p := range [][2]*value{{xv, yv}, {yv, xv}} {
			if p[0].kind == kAlt && p[1].kind == kConst {
				for _, a := range p[0].alts {
					if a.fn != nil || a.fr == nil {
						continue
					}
					u := map[string]bool{}
					for k := range used {
						u[k] = true
					}
					ok := true
					for _, g := range a.guards {
						if g.tmpl != nil || !w.quickSat(wd, g.fr, g.ifi.Cond, g.want, u, depth+1) {
							ok = false
							break
						}
					}
					if !ok {
						continue
					}
					av := a.value()
					if b, ok := foldBool(op, av, p[1]); ok {
						if b {
							return true
						}
						continue
					}
					if av.kind != kAlt && fresh(av.term) {
						return true
					}
				}
				return false
			}
		}
		if xv.kind == kAlt || yv.kind == kAlt {
			return false
		}
		ok := true
		for _, t := range []*value{xv, yv} {
			if t.kind == kConst {
				continue
			}
			if !fresh(t.term) {
				ok = false
			}
		}
		return ok
	}
	val := fr.eval(v)
	if val.kind == kConst && !val.isNil && val.c != nil && val.c.Kind() == constant.Bool {
		return constant.BoolVal(val.c) == want
	}
	return val.kind != kAlt && fresh(val.term)
}

func boolQuick(b bool) quick {
	if b {
		return qYes
	}
	return qNo
}

// templateFrame is the loop's frame with its element bound to elem.
func (w *walk) templateFrame(t *template, elem string) *frame {
	k := tfKey{t, elem}
	if tf, ok := w.tframes[k]; ok {
		return tf
	}
	f := t.fr
	tf := w.newFrame(f.fn, f.parent, f.callAt)
	tf.params, tf.free, tf.inline, tf.depth, tf.root, tf.rootState, tf.msg = f.params, f.free, f.inline, f.depth, f.root, f.rootState, f.msg
	sv := f.eval(t.loop.slice)
	org := sv.org
	if org == fixed || org == unknown {
		org = state
	}
	ev := termVal(elem, org)
	tf.override = map[ssa.Value]*value{}
	for _, e := range t.loop.elems {
		tf.override[e] = ev
	}
	w.tframes[k] = tf
	return tf
}

type tfKey struct {
	t    *template
	elem string
}
