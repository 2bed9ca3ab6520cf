package feasible

import (
	"go/token"
	"go/types"
	"slices"
	"sort"

	"golang.org/x/tools/go/ssa"
)

// What one goroutine keeps still, for a map's entries. A map held in a
// field is written by puts and deletes through reads of the field, by
// clear, and by a new map stored in the field. When only code within a
// serial function's runs writes it (see still.go), two lookups of one key
// on a path inside one run, with no write of the map between them, find
// the same entry: a way that needs the first found (a check that returns
// unless the lease is held) and the second missing is No, or not decided
// (Unknown) when some write is made outside those runs (a map filled at
// start-up), named with where its ways in leave them.

// lookInfo is a map lookup of the path: the instruction, its frame, and
// its key as the path has it there.
type lookInfo struct {
	at  *ssa.Lookup
	fr  *frame
	key *value
}

// entrySites are the writes of map field a's entries; ok is false when
// the map goes where the analysis does not follow its writes.
type entrySites struct {
	ws  []ssa.Instruction
	set map[ssa.Instruction]bool
	ok  bool
}

func isMapType(t types.Type) bool {
	_, ok := t.Underlying().(*types.Map)
	return ok
}

// entryWrites are the instructions that may change what the map held in
// field a holds: puts and deletes through a read of the field, clears,
// stores of a new map into it (not a struct's making) and the puts into
// that map.
func (c *Checker) entryWrites(a *types.Var) *entrySites {
	if e, ok := c.entries[a]; ok {
		return e
	}
	ix := c.index()
	e := &entrySites{set: map[ssa.Instruction]bool{}, ok: true}
	add := func(ins ssa.Instruction) {
		if !e.set[ins] {
			e.set[ins] = true
			e.ws = append(e.ws, ins)
		}
	}
	for _, u := range ix.mapWrites[a] {
		add(u)
	}
	for _, st := range ix.writes[a] {
		if madeWrite(st) {
			continue
		}
		add(st)
		mm, fresh := st.Val.(*ssa.MakeMap)
		if !fresh {
			if k, isK := st.Val.(*ssa.Const); !isK || !k.IsNil() {
				e.ok = false
			}
			continue
		}
		for _, r := range *mm.Referrers() {
			switch x := r.(type) {
			case *ssa.Store:
				if x.Val == mm {
					if fa, ok := x.Addr.(*ssa.FieldAddr); ok && fieldVar(fa.X.Type(), fa.Field) == a {
						continue
					}
				}
				e.ok = false
			case *ssa.MapUpdate:
				if x.Map != mm {
					e.ok = false
				}
				add(x)
			case *ssa.DebugRef:
			default:
				e.ok = false
			}
		}
	}
	for _, ld := range ix.mapReads[a] {
		for _, r := range *ld.Referrers() {
			switch x := r.(type) {
			case *ssa.Lookup:
				if x.X != ld {
					e.ok = false
				}
			case *ssa.MapUpdate:
				if x.Map != ld {
					e.ok = false
				}
			case *ssa.Range, *ssa.DebugRef:
			case *ssa.Call:
				if bi, isB := x.Call.Value.(*ssa.Builtin); isB {
					switch bi.Name() {
					case "len":
						continue
					case "delete", "clear":
						add(x)
						continue
					}
				}
				e.ok = false
			default:
				e.ok = false
			}
		}
	}
	fset := c.text.fset
	sort.Slice(e.ws, func(i, j int) bool { return posLess(fset, e.ws[i].Pos(), e.ws[j].Pos()) })
	if c.entries == nil {
		c.entries = map[*types.Var]*entrySites{}
	}
	c.entries[a] = e
	return e
}

// entryPairs are the assumptions that a lookup of the path finds the
// entry an earlier lookup of the same key found, in the map one struct's
// field holds: the map is read at both within one run of a serial
// function that writes it nowhere between them (stillBetween). One
// assumption is made for each later lookup, with its earlier ones as
// candidates: a world is ruled out by whichever has its key there
// (entryRecheck).
func (w *walk) entryPairs() []assumed {
	if len(w.c.serial) == 0 {
		return nil
	}
	looks := w.looks()
	// The lookups a join's ways in test (a check before the path's call
	// that returns unless the key is found) are lookups of the path too,
	// though no branch the path takes dominates them.
	joins := map[*types.Var][]joinWays{}
	for _, t := range looks {
		a := w.terms[w.terms[t].parent].read.field
		if _, done := joins[a]; done {
			continue
		}
		joins[a] = w.joinAlts(a)
		for _, j := range joins[a] {
			for _, es := range j.ways {
				for _, e := range es {
					touch(j.fr, e.ifi.Cond)
				}
			}
		}
	}
	// So are the lookups of what a loop checked of every element of a
	// slice, said of each element the path names.
	if len(joins) > 0 {
		for _, wd := range w.worlds {
			for _, s := range wd.forallSlices() {
				for _, t := range wd.forall[s] {
					for _, e := range wd.elems[s] {
						tf := w.templateFrame(t, e)
						for _, exit := range t.loop.exits {
							for _, ed := range exit {
								touch(tf, ed.ifi.Cond)
							}
						}
					}
				}
			}
		}
	}
	looks = w.looks()
	if len(looks) < 2 {
		return nil
	}
	var out []assumed
	for _, t2 := range looks {
		x2 := w.terms[t2]
		m2 := w.terms[x2.parent].read
		r2 := &readInfo{base: m2.base, field: m2.field, fr: x2.look.fr, at: x2.look.at}
		var cands []entryCand
		for _, t1 := range looks {
			x1 := w.terms[t1]
			m1 := w.terms[x1.parent].read
			if x1.parent == x2.parent || m1.field != m2.field {
				continue
			}
			r1 := &readInfo{base: m1.base, field: m1.field, fr: x1.look.fr, at: x1.look.at}
			if !runsBefore(r1, r2) {
				continue
			}
			st := w.stillBetween(r1, r2)
			if st == nil {
				continue
			}
			// Reached through different fields, the two maps may be of
			// one struct or of two: such a pair can make a way not
			// decided, never no.
			owner := w.c.owner(m1.field)
			apart := w.stableTerm(m1.base, owner) != w.stableTerm(m2.base, owner)
			cands = append(cands, entryCand{a: t1, still: st, reads: []token.Pos{r1.at.Pos(), r2.at.Pos()}, apart: apart})
		}
		if len(cands) > 0 {
			c := cands[0]
			out = append(out, assumed{a: c.a, b: t2, still: c.still, reads: c.reads, apart: c.apart, entry: true, cands: cands, joins: joins[m2.field]})
		}
	}
	return out
}

// entryCand is an earlier lookup of an entry pair: its term, what keeps
// the map still from it to the later one, the two lookups' positions,
// and whether the two reach the map through different fields.
type entryCand struct {
	a     string
	still *Still
	reads []token.Pos
	apart bool
}

// looks are the path's terms that are entries of a map held in a field,
// by name.
func (w *walk) looks() []string {
	var out []string
	for t, ti := range w.terms {
		if ti.look != nil {
			if m := w.terms[ti.parent].read; m != nil && isMapType(m.field.Type()) {
				out = append(out, t)
			}
		}
	}
	sort.Strings(out)
	return out
}

// touch evaluates cond in fr, each value its operands may be, and the
// branches each of those needs, so that the lookups they make are terms
// of the path (to a bounded depth and number).
func touch(fr *frame, cond ssa.Value) {
	type item struct {
		fr   *frame
		cond ssa.Value
	}
	todo := []item{{fr, cond}}
	seen := map[item]bool{}
	for n := 0; len(todo) > 0 && n < 256; n++ {
		it := todo[0]
		todo = todo[1:]
		if seen[it] {
			continue
		}
		seen[it] = true
		var vs []*value
		if bo, ok := it.cond.(*ssa.BinOp); ok {
			vs = append(vs, it.fr.eval(bo.X), it.fr.eval(bo.Y))
		} else {
			vs = append(vs, it.fr.eval(it.cond))
		}
		for k := 0; len(vs) > 0 && k < 64; k++ {
			v := vs[0]
			vs = vs[1:]
			if v == nil || v.kind != kAlt {
				continue
			}
			for _, a := range v.alts {
				vs = append(vs, a.value())
				for _, g := range a.guards {
					if g.ifi != nil && g.fr != nil {
						todo = append(todo, item{g.fr, g.ifi.Cond})
					}
				}
			}
		}
	}
}

// recheckBudget bounds the work of one later lookup's check
// (entryRecheck).
const recheckBudget = checkBudget

// settledIf is a branch the path took, as its worlds were constrained.
type settledIf struct {
	fr   *frame
	ifi  *ssa.If
	want bool
	why  *reason
}

// entryRecheck is, when no way of the path is left once the later lookup
// of x finds what an earlier lookup of its key found, the reasons; nil
// when a way is left. The walk's worlds are no help: they are joined as
// the path goes (shrink), and a join keeps only what both knew, so what
// depended on which way an earlier call returned (a check that returns
// unless the lookup found the key, or unless there is no key) is gone.
// The path's branches are taken again from a world that knows nothing,
// with the ways into the joins a check of the map leads to (joinAlts);
// then, in each world, the earlier lookup whose key is the later one's
// there is given the later one's entry, and the branches taken once
// more. A world whose later key is no earlier one's is left, unless the
// key is state the rule does not follow (what the path reads from a
// store, what a call returned): then its position is noted (x.unnamed)
// and the world is not decided. It sets x's candidate to the first that
// ruled a world out.
func (w *walk) entryRecheck(wd *world, x *assumed) []*reason {
	lb := w.terms[x.b].look
	fb := wd.facts.get(x.b)
	if lb == nil || fb == nil || fb.nilness == 0 {
		return nil
	}
	if !x.checked {
		x.checked, x.ruled = true, w.entryRecheck1(x, lb, fb)
	}
	return x.ruled
}

func (w *walk) entryRecheck1(x *assumed, lb *lookInfo, fb *fact) []*reason {
	before, budget := len(w.deaths), w.budget
	w.budget, w.thorough = recheckBudget, true
	defer func() { w.deaths, w.budget, w.thorough = w.deaths[:before], budget, false }()
	ws, ok := w.resettle([]*world{newWorld()}, x.joins)
	if !ok {
		return nil
	}
	var rs []*reason
	used := -1
	var unnamed []token.Pos
	for _, c := range ws {
		kb := resolveIn(c, lb.key)
		if kb == nil {
			return nil
		}
		found, same := false, false
		for i, cd := range x.cands {
			la := w.terms[cd.a].look
			if la == nil || !sameKey(resolveIn(c, la.key), kb) {
				continue
			}
			same = true
			r, ok := w.refuteWith(c, cd.a, x.b, x.joins)
			if !ok {
				continue // this lookup may have found nothing: another may
			}
			rs = append(rs, r...)
			if used < 0 {
				used = i
			}
			found = true
			break
		}
		if found {
			continue
		}
		if same {
			return nil
		}
		// Another key: one of state, which the rule does not follow to
		// where it was put, leaves the way not decided; one the client
		// chose leaves it possible.
		if kb.org == input || kb.org == fixed || kb.kind == kConst || kb.kind == kObj {
			return nil
		}
		at := keyAt(c, lb.key)
		if !at.IsValid() {
			return nil
		}
		unnamed = append(unnamed, at)
		rs = append(rs, fb.by)
	}
	if used < 0 {
		return nil // no way of the path looks up one key twice
	}
	cd := x.cands[used]
	x.a, x.still, x.reads, x.apart, x.unnamed = cd.a, cd.still, cd.reads, cd.apart, unnamed
	return rs
}

// refuteWith takes the path's branches again in world c with lookup a's
// entry what lookup b's is: the reasons no world is left, ok; ok false
// when one is.
func (w *walk) refuteWith(c *world, a, b string, joins []joinWays) ([]*reason, bool) {
	fb := c.facts.get(b)
	if fb == nil || fb.nilness == 0 {
		return nil, false
	}
	with := c.clone()
	if r := with.addFact(a, fact{nilness: fb.nilness}, fb.by); r != nil {
		return r, true
	}
	mark := len(w.deaths)
	left, ok := w.resettle([]*world{with}, joins)
	if !ok || len(left) > 0 {
		return nil, false
	}
	ended := slices.Clone(w.deaths[mark:])
	// What ends worlds without the entry said too (an error a check
	// returns, which the path needs nil) is no reason of this one: asked
	// only of a world the entry leaves none of, the rarer case.
	mark = len(w.deaths)
	if _, ok := w.resettle([]*world{c.clone()}, joins); !ok {
		return nil, false
	}
	anyway := map[*reason]bool{}
	for _, d := range w.deaths[mark:] {
		for _, r := range d.why {
			anyway[r] = true
		}
	}
	rs := []*reason{fb.by}
	for _, d := range ended {
		for _, r := range d.why {
			if !anyway[r] {
				rs = append(rs, r)
			}
		}
	}
	return rs, true
}

// keyAt is where world wd's alternative of key v is fixed, the nearest
// to the lookup: the assignment of a phi's edge, a return.
func keyAt(wd *world, v *value) token.Pos {
	for k := 0; v != nil && v.kind == kAlt && k < 16; k++ {
		i, ok := wd.choice.get(v.key)
		if !ok || i < 0 || i >= len(v.alts) {
			return token.NoPos
		}
		if v.alts[i].at.IsValid() {
			return v.alts[i].at
		}
		v = v.alts[i].value()
	}
	return token.NoPos
}

// dedupPos is ps without repeats, in order.
func dedupPos(ps []token.Pos) []token.Pos {
	var out []token.Pos
	for _, p := range ps {
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// resettle constrains ws by the path's branches again, in order, and
// then by each of joins (the joins a test of the map's lookups leads
// to: joinAlts): one world for each way into the join. ok is false
// when the worlds grow past what the path keeps, or the work past its
// bound.
func (w *walk) resettle(ws []*world, joins []joinWays) ([]*world, bool) {
	for _, s := range w.settled {
		ws = w.constrain(ws, s.fr, s.ifi.Cond, s.want, s.why)
		if len(ws) == 0 {
			return nil, true
		}
		if len(ws) > maxWorlds || w.budget < 0 {
			return nil, false
		}
	}
	for _, j := range joins {
		var next []*world
		for _, edges := range j.ways {
			alt := ws
			for _, e := range edges {
				alt = w.constrain(alt, j.fr, e.ifi.Cond, e.want, w.guardReason(j.fr, e.ifi, e.want, nil, ReasonCond))
			}
			next = append(next, alt...)
		}
		ws = next
		if len(ws) == 0 {
			return nil, true
		}
		if len(ws) > maxWorlds || w.budget < 0 {
			return nil, false
		}
	}
	return ws, true
}

// joinWays are the ways into a join block of a path's frame: the
// branches each way from the join's immediate dominator takes.
type joinWays struct {
	fr   *frame
	ways [][]edgeOf
}

// joinAlts are the joins before the path's call (or its use) in each of
// its frames, where some way in takes a branch on a lookup of map field
// a: the path passes one of the ways in, and which is what the walk's
// conditions (the branches that dominate) do not say.
func (w *walk) joinAlts(a *types.Var) []joinWays {
	var out []joinWays
	for i, fr := range w.frames {
		var tb *ssa.BasicBlock
		switch {
		case fr.site != nil:
			tb = fr.site.Block()
		case i == len(w.frames)-1 && w.p.Target != nil && w.p.Target.Parent() == fr.fn:
			tb = w.p.Target.Block()
		}
		if tb == nil || fr.inline {
			continue
		}
		for _, j := range fr.fn.DomPreorder() {
			if !j.Dominates(tb) || len(j.Preds) < 2 || len(j.Preds) > maxSplit || j.Idom() == nil {
				continue
			}
			var ways [][]edgeOf
			relevant := false
			for _, p := range j.Preds {
				if !j.Idom().Dominates(p) {
					ways = nil // a way round a loop
					break
				}
				es := w.c.edgesBetween(fr.fn, j.Idom(), p, j)
				for _, e := range es {
					relevant = relevant || w.c.testsLookupOf(e.ifi.Cond, a)
				}
				ways = append(ways, es)
			}
			if relevant && len(ways) == len(j.Preds) {
				out = append(out, joinWays{fr: fr, ways: ways})
			}
		}
	}
	return out
}

// resolveIn is v as world wd has it: of a value that is one of several,
// the alternative wd takes; nil when wd takes none.
func resolveIn(wd *world, v *value) *value {
	for k := 0; v != nil && v.kind == kAlt && k < 16; k++ {
		i, ok := wd.choice.get(v.key)
		if !ok || i < 0 || i >= len(v.alts) {
			return nil
		}
		v = v.alts[i].value()
	}
	if v != nil && v.kind == kAlt {
		return nil
	}
	return v
}

// sameKey reports whether x and y are one value: one term plus one
// offset, or one integer constant.
func sameKey(x, y *value) bool {
	if x == nil || y == nil {
		return false
	}
	tx, ox, ok1 := linOf(x)
	ty, oy, ok2 := linOf(y)
	return ok1 && ok2 && tx == ty && ox == oy
}

// testsLookupOf reports whether cond tests a lookup of map field a for
// nil (or its ok), or what a call returned that looks one up (a check
// that returns an error unless the key is found): the lookup itself, or
// a call whose callees, or what they call (to maxInline deep), look up
// a.
func (c *Checker) testsLookupOf(cond ssa.Value, a *types.Var) bool {
	if lk, _, _, ok := lookupTest(cond, true); ok && heldIn(lk.X) == a {
		return true
	}
	var vs []ssa.Value
	if bo, ok := cond.(*ssa.BinOp); ok {
		vs = append(vs, bo.X, bo.Y)
	} else {
		vs = append(vs, cond)
	}
	for _, v := range vs {
		if x, ok := v.(*ssa.Extract); ok {
			v = x.Tuple
		}
		if call, isCall := v.(*ssa.Call); isCall {
			for _, fn := range c.calleesOf(call) {
				if c.looksUp(fn, a, maxInline) {
					return true
				}
			}
		}
	}
	return false
}

type looksKey struct {
	fn *ssa.Function
	a  *types.Var
}

// looksUp reports whether fn, or a function it calls (to depth deep),
// looks up map field a.
func (c *Checker) looksUp(fn *ssa.Function, a *types.Var, depth int) bool {
	k := looksKey{fn, a}
	if r, ok := c.looked[k]; ok {
		return r
	}
	if c.looked == nil {
		c.looked = map[looksKey]bool{}
	}
	c.looked[k] = false // a recursion finds nothing more
	r := false
	for _, b := range fn.Blocks {
		for _, ins := range b.Instrs {
			switch x := ins.(type) {
			case *ssa.Lookup:
				r = r || heldIn(x.X) == a
			case *ssa.Call:
				if depth > 0 && !r {
					for _, g := range c.calleesOf(x) {
						if c.looksUp(g, a, depth-1) {
							r = true
							break
						}
					}
				}
			}
		}
	}
	c.looked[k] = r
	return r
}
