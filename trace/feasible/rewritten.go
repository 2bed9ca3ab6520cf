package feasible

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"
)

// What a call beside the way may leave in the request. A test of the
// request (class Input) says what the request must hold for the way to go
// on: "for a request that makes …". That is so only if nothing the way
// runs before the test changes what it reads. A function of the path may
// call, before its step on the path, a function that is not on the path
// and is handed the request, or a part of it, and that writes a field
// the test reads (a filter that drops a transaction's ranges when no one
// waits for their result, say). What the test then reads is what that
// call left, which the analysis does not follow: the way is not decided
// (Unknown), rather than an only-if whose condition about the request may
// not be the one that matters.

// Rewritten is the Why of a path's condition of class Gave when a call
// the way may make before a test of the request, beside the path, may
// write a field the test reads (Cond.Rewrite).
const Rewritten = "rewritten"

// Rewrite is such a call: as written and where it is made, and the
// field it may write that the test reads, with the struct type that
// holds it.
type Rewrite struct {
	Call  string
	At    token.Pos
	Field *types.Var
	Owner string
	// Under are where the branches are that the call is made under and
	// the way's step past it is not: the way may take them or not.
	Under []token.Pos
	// UnderText is the nearest of those branches' conditions, as
	// written.
	UnderText string
	// Kind says why a test that reads what a filter leaves is not
	// decided (KindUnlinked, KindUnnamed, KindFails, KindRecursive,
	// KindEarly), or, KindAlways, why it cannot hold; "" for a call not
	// read as a filter.
	Kind string
	// FilterAt is where the filter's own test is.
	FilterAt token.Pos
	// Always says the call is made on every run of the way (its block
	// dominates the way's next step, and comes before it in the step's
	// own block).
	Always bool
	// Check, when the test is of a check the way needs passed (or, with
	// Fails, failed), is the check's call as written.
	Check string
	Fails bool
	// Fields are every field the call rewrites that the test reads
	// (Field the first).
	Fields []*types.Var
	// Through, with Kind KindRecursive, is the function the way runs
	// from the call to the test that calls itself.
	Through *ssa.Function
	// Looped says the call is made in a loop with the way's step, not
	// before it on every pass: it is not read as a filter.
	Looped bool
	// Others says other code the way may run before the test (another
	// call that rewrites the field, or, past a filter, any write of what
	// the test reads) may write it too: it is not read as a filter.
	Others bool
	// fr is the path's frame that makes the call; until the step (or the
	// test) it is made before.
	fr    *frame
	call  ssa.CallInstruction
	until ssa.Instruction
}

// Drop, on a condition that a way needs because a filter beside it
// leaves no element the way's test needs (keptOutcome), says so: the
// call (its Call, At and Owner), where the filter's own test is, and the
// way's test of the element (as written, the outcome it needs, where).
type Drop struct {
	*Rewrite
	FilterAt token.Pos
	Test     string
	Want     bool
	TestAt   token.Pos
	// Fields are the slices the filter rewrites that the way's element
	// may be read from.
	Fields []*types.Var
}

// Why a test that reads what a filter beside the way leaves is not
// decided (Rewrite.Kind).
const (
	KindUnlinked  = "unlinked"  // the test's element is not shown to be read from what the filter is handed
	KindAlways    = "always"    // it needs an element the filter drops, and the call is made on every run of the way: the way cannot run (a condition of class False)
	KindFails     = "fails"     // a check the way needs failed, of what the filter leaves
	KindUnnamed   = "unnamed"   // it needs an element the filter drops, and the branches the call is made under are not read
	KindRecursive = "recursive" // it needs an element the filter drops, read in a function that calls itself (Through)
	KindEarly     = "early"     // its element is of the slice as loaded before the call
)

// maxReach bounds how deep typeReaches follows a type's pointers and
// fields.
const maxReach = 4

// rewrittenNeeded adds to a result what calls beside the way may leave
// in what its tests of the request read (rewriteBefore): the branch a
// filter is called under, where the way needs it not taken (avoidCall);
// what a test reads where a filter runs (Cond.After); and, for a result
// that could run, Unknown at the first test whose reads it does not
// decide.
func (w *walk) rewrittenNeeded(res Result) Result {
	type found struct {
		idx int // of the test in res.Conds
		c   *Cond
		rw  *Rewrite
	}
	var tests []found
	for i := range res.Conds {
		c := &res.Conds[i]
		if c.Class != Input || c.If == nil || c.hop < 0 || c.hop >= len(w.frames) {
			continue
		}
		// What the test reads: the fields its value is read from, and,
		// for a check it needs passed or failed, what the check's call
		// is handed (a check that loops over a slice of it).
		chk := w.checkCallOf(c)
		if len(c.Fields) == 0 && chk == nil {
			continue
		}
		reads := func(f *types.Var) bool {
			return slices.Contains(c.Fields, f) || chk != nil && w.handedInput(c, chk, f)
		}
		if rw, ok := w.rewriteBefore(c, reads, chk); ok {
			tests = append(tests, found{i, c, rw})
		}
	}
	if len(tests) == 0 {
		return res
	}
	// First the tests a filter beside the way decides: one that needs an
	// element the filter drops needs the call not made, and then the
	// call changes nothing any test of the way reads.
	avoided := map[ssa.CallInstruction]bool{}
	kept := map[*Cond]bool{}
	outs := make([]filterOutcome, len(tests))
	ks := make([]keep, len(tests))
	var adds []Cond
	for i, t := range tests {
		if avoided[t.rw.call] {
			continue
		}
		if t.rw.Others || t.rw.Looped {
			continue // not read as a filter: what the test reads may be another call's, or the field as it was
		}
		out, k := w.keptOutcome(t.c, t.rw.fr, t.rw.call, t.rw.Field)
		if out == again {
			t.rw.Others, out = true, notFilter // what the test reads may be another write's
		}
		outs[i], ks[i] = out, k
		switch out {
		case keptOut:
			kept[t.c] = true // the element is one the request held, with that outcome
		case droppedOut:
			handed, _ := handedBase(t.rw.call, t.rw.Field)
			if avoid, ok := w.avoidCall(t.rw.fr, t.rw.call, t.rw.until, handed); ok {
				avoid.Drop = &Drop{Rewrite: t.rw, FilterAt: k.at, Test: t.c.Text, Want: t.c.Want, TestAt: t.c.Pos, Fields: k.fields}
				adds = append(adds, avoid)
				avoided[t.rw.call] = true
			}
		}
	}
	// Then any other test that reads what the call may leave. Of what a
	// filter made under a branch the way may avoid leaves, as a whole (a
	// check that loops over it, its length) or of an element it keeps or
	// not: the way asks it of the request or of what the filter leaves of
	// it, where the filter runs (After). Of an element not shown to be of
	// what the filter is handed, or what a call not read as a filter
	// leaves: not decided.
	var after []found
	var gave, refuted *Cond
	gaveAt, refutedAt := -1, -1
	for i, t := range tests {
		if avoided[t.rw.call] || kept[t.c] {
			continue
		}
		if outs[i] == otherTest && t.c.Fails == "" {
			// A check the way needs passed, or a test of an element a
			// loop does not reach: asked of what the filter leaves,
			// where it runs (on every run, when it is made under no
			// branch the way could avoid). One the way needs failed may
			// fail only by an element the filter drops: not decided.
			after = append(after, t)
			continue
		}
		if outs[i] == droppedOut && t.rw.Always {
			// A filter made on every run of the way (its call dominates
			// the way's next step) leaves no element the test needs: the
			// way cannot run, whatever else it could not decide.
			if refuted == nil {
				t.rw.Kind, t.rw.FilterAt, t.rw.Fields = KindAlways, ks[i].at, ks[i].fields
				refuted = &Cond{Class: False, Why: Rewritten, Func: t.c.Func, Pos: t.c.Pos, Text: t.c.Text, Want: t.c.Want, Rewrite: t.rw, hop: t.c.hop}
				refutedAt = t.idx
			}
			continue
		}
		if res.Verdict == Unknown || gave != nil {
			continue // already not decided: its list beside that is qualified all the same
		}
		cond := Cond{Class: Gave, Why: Rewritten, Func: t.c.Func, Pos: t.c.Pos, Text: t.c.Text, Want: t.c.Want, Rewrite: t.rw}
		switch {
		case outs[i] == unlinked:
			cond.Rewrite.Kind = KindUnlinked
		case outs[i] == early:
			cond.Rewrite.Kind = KindEarly
		case outs[i] == recursed:
			cond.Rewrite.Kind, cond.Rewrite.Through = KindRecursive, ks[i].through
		case outs[i] == droppedOut:
			cond.Rewrite.Kind = KindUnnamed // under branches avoidCall does not read
		case outs[i] == otherTest:
			cond.Rewrite.Kind = KindFails
		}
		if outs[i] != notFilter {
			cond.Rewrite.FilterAt = ks[i].at
		}
		cond.Rewrite.Check, cond.Rewrite.Fails = t.c.check(), t.c.Fails != ""
		gave, gaveAt = &cond, t.idx
	}
	if refuted != nil {
		// The test is false on this way: it ends there.
		conds := append(append([]Cond(nil), res.Conds[:refutedAt]...), *refuted)
		return Result{Verdict: No, Because: &conds[len(conds)-1], Conds: conds, Sites: res.Sites}
	}
	if len(after) > 0 {
		conds := append([]Cond(nil), res.Conds...)
		for _, t := range after {
			conds[t.idx].After = t.rw
		}
		because := res.Because
		res.Conds = conds
		if because != nil {
			res.Because = findCond(conds, because)
		}
	}
	for _, a := range adds {
		res = withCond(res, a)
	}
	if gave != nil {
		// withCond appends: the test is where it was.
		return gaveOn(res, *gave, []*Cond{&res.Conds[gaveAt]})
	}
	return res
}

// avoidCall is the condition that the way does not make call, in fr
// before until: the way needs the branch it is made under not taken, or,
// for a chain of the parts of one if statement's condition that leads to
// it, the whole condition false (chainCond). False when the call is not
// under such branches, each from a block that only leads to the next, or
// the condition is not one of state or of the request.
func (w *walk) avoidCall(fr *frame, call ssa.CallInstruction, until ssa.Instruction, handed ssa.Value) (Cond, bool) {
	var chain []edgeOf
	cur, top := call.Block(), false
	for len(chain) < 8 && len(cur.Preds) == 1 {
		p := cur.Preds[0]
		ifi, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If)
		if !ok || p.Succs[0] == p.Succs[1] {
			break
		}
		chain = append(chain, edgeOf{ifi: ifi, want: p.Succs[0] == cur})
		if p.Dominates(until.Block()) {
			top = true
			break
		}
		cur = p
	}
	if !top {
		return Cond{}, false
	}
	// A test that what the call is handed is not nil, when the way reads
	// its element through it (keptOutcome linked the two), the way takes
	// anyway, as a way runs without a panic: it needs one of the others
	// not taken.
	var open []edgeOf
	for _, e := range chain {
		if !notNilOf(e, handed) {
			open = append(open, e)
		}
	}
	if len(open) == 0 {
		return Cond{}, false
	}
	chain = open
	var c Cond
	if len(chain) == 1 {
		c = w.decide(fr, chain[0].ifi, !chain[0].want)
		if c.Class != State && c.Class != Input {
			return Cond{}, false
		}
	} else {
		var ok bool
		if c, ok = w.chainCond(fr, chain, call.Pos()); !ok {
			return Cond{}, false
		}
		// chainCond makes a condition with a part of the request the
		// request's; this one the way needs of the state as well, where
		// a part is of state (that someone waits for the result): a
		// condition of its only-if.
		for _, e := range chain {
			pc := Cond{Func: fr.fn, If: e.ifi}
			w.classify(fr, &pc, e.ifi.Cond, e.want)
			if pc.Class == State {
				c.Class = State
			}
		}
	}
	// Met before a handed request's dispatch or not, the way needs it:
	// it is listed.
	c.unasked = false
	return c, true
}

// notNilOf reports whether branch e is taken when v is not nil: a
// comparison of v, or of a load of the same field of the same struct,
// with nil.
func notNilOf(e edgeOf, v ssa.Value) bool {
	if v == nil {
		return false
	}
	x, notNil, ok := nilTest(e.ifi.Cond, e.want)
	return ok && notNil && sameRead(x, v)
}

// withCond is res with condition c added, listed where the way meets
// it (late: by its frame on the path, then its place), and its verdict
// what the conditions then make it: a condition of state makes a way
// that could run an only-if, and the first such condition in the path's
// order decides it.
func withCond(res Result, c Cond) Result {
	because := res.Because
	c.late = true
	conds := append(append([]Cond(nil), res.Conds...), c)
	res.Conds = conds
	if because != nil {
		res.Because = findCond(conds, because)
	}
	if c.Class != State {
		return res
	}
	if res.Verdict == Yes {
		res.Verdict = OnlyIf
		res.Because = &conds[len(conds)-1]
	}
	return res
}

// findCond is the condition of cs that is c (by its place and text).
func findCond(cs []Cond, c *Cond) *Cond {
	for k := range cs {
		if cs[k].Pos == c.Pos && cs[k].Text == c.Text && cs[k].Want == c.Want {
			return &cs[k]
		}
	}
	return c
}

// stepBefore is what the way runs next in the path's frame k on its way
// to test c: the frame's step, or, in the test's own function, the test;
// nil where the test is in no frame of the path.
func (w *walk) stepBefore(c *Cond, k int) ssa.Instruction {
	switch {
	case k < c.hop:
		return w.frames[k].site
	case c.If != nil && c.If.Parent() == w.frames[k].fn:
		return c.If
	}
	return nil
}

// rewriteBefore is a call that the way may make before test c, in one
// of the path's functions up to the one where the way meets c, that is
// neither the path's step there nor the test's own check (chk): it is
// handed a value through which a field the test reads (reads) can be
// reached, by its type, and it, or a function it calls, rewrites that
// field from what it held (rewrites). A call handed a struct its
// function makes itself (a decoder that fills it) is not one.
func (w *walk) rewriteBefore(c *Cond, reads func(*types.Var) bool, chk ssa.CallInstruction) (*Rewrite, bool) {
	var first *Rewrite
	for k := 0; k <= c.hop; k++ {
		fr := w.frames[k]
		until := w.stepBefore(c, k)
		if until == nil {
			continue
		}
		for _, b := range fr.fn.Blocks {
			for _, ins := range b.Instrs {
				call, ok := ins.(*ssa.Call)
				if !ok || ins == until || ssa.CallInstruction(call) == fr.site || ssa.CallInstruction(call) == chk || !mayRunBefore(ins, until) {
					continue
				}
				for _, fn := range w.c.calleesOf(call) {
					for _, f := range w.c.rewrittenFields(fn) {
						if !reads(f) || !handedReach(call, f) {
							continue
						}
						if h, _ := handedBase(call, f); isMade(h) {
							continue // a decoder filling what the function made: what it leaves is the data's
						}
						text := w.c.text.callText(call)
						if text == "" {
							continue
						}
						var all []*types.Var
						for _, g := range w.c.rewrittenFields(fn) {
							if reads(g) && handedReach(call, g) {
								all = append(all, g)
							}
						}
						if first != nil {
							// Another call may rewrite what the test reads:
							// what the first leaves is not what it reads.
							first.Others = true
							return first, true
						}
						under, underText := w.c.branchesOnly(fr.fn, ins, until)
						// Made on every run of the way before its next step:
						// its block dominates the step's, and, in the step's
						// own block, it comes first.
						always := call.Block().Dominates(until.Block()) && (call.Block() != until.Block() || instrIndex(call) < instrIndex(until))
						first = &Rewrite{Always: always, Call: text, At: call.Pos(), Field: f, Fields: all, Owner: ownerOf(call, f), Under: under, UnderText: underText,
							fr: fr, call: call, until: until}
						// In a loop with the step, and not before it on
						// every pass: the test may read the field as it was,
						// or as an earlier pass's call left it.
						first.Looped = !always && reachedAfter(until.Block(), call.Block())
						break
					}
					if first != nil && first.call == call {
						break
					}
				}
			}
		}
	}
	return first, first != nil
}

// rewrittenFields are the fields a run of fn may rewrite from what they
// held (rewrites), in the order fn's code and its callees' first store
// in them.
func (c *Checker) rewrittenFields(fn *ssa.Function) []*types.Var {
	if fs, ok := c.rewrittenMemo[fn]; ok {
		return fs
	}
	var out []*types.Var
	seen := map[*ssa.Function]bool{}
	var visit func(g *ssa.Function, depth int)
	visit = func(g *ssa.Function, depth int) {
		if g == nil || g.Blocks == nil || seen[g] || depth > maxRewrite {
			return
		}
		seen[g] = true
		for _, b := range g.Blocks {
			for _, ins := range b.Instrs {
				switch x := ins.(type) {
				case *ssa.Store:
					if fa, ok := x.Addr.(*ssa.FieldAddr); ok {
						if f := fieldVar(fa.X.Type(), fa.Field); f != nil && !slices.Contains(out, f) && c.rewrites(fn, f, 0) {
							out = append(out, f)
						}
					}
				case *ssa.Call:
					visit(x.Call.StaticCallee(), depth+1)
				}
			}
		}
	}
	visit(fn, 0)
	if c.rewrittenMemo == nil {
		c.rewrittenMemo = map[*ssa.Function][]*types.Var{}
	}
	c.rewrittenMemo[fn] = out
	return out
}

// handedInput reports whether check call chk, in the frame that meets
// test c, is handed a part of the request (a value the path evaluates as
// the root's input) through which field f can be reached: what else it
// is handed (a trace it records steps in) is not what the test asks of
// the request.
func (w *walk) handedInput(c *Cond, chk ssa.CallInstruction, f *types.Var) bool {
	fr := w.condFrame(c)
	if fr == nil {
		return false
	}
	return slices.ContainsFunc(reaching(chk, f), func(a ssa.Value) bool { return fr.eval(a).org == input })
}

// isMade reports whether v is a struct the function makes itself (new,
// or a local whose address is taken).
func isMade(v ssa.Value) bool {
	_, ok := v.(*ssa.Alloc)
	return ok
}

// checkCallOf is the call of the check that test c needs passed or
// failed (`if err := check(x); err != nil`); nil when c is none.
func (w *walk) checkCallOf(c *Cond) ssa.CallInstruction {
	if c.check() == "" || c.taken == nil {
		return nil
	}
	call, _, ok := w.c.checkOf(c.If.Cond, c.If.Block().Succs[0] == c.taken, nil)
	if !ok {
		return nil
	}
	return call
}

// branchesOnly are where the branches are (their conditions, as
// written) that dominate instruction x in fn and not until, and the
// nearest one's condition as written (its if statement's whole).
func (c *Checker) branchesOnly(fn *ssa.Function, x, until ssa.Instruction) ([]token.Pos, string) {
	shared := map[*ssa.If]bool{}
	for _, e := range c.domEdges(fn, until.Block()) {
		shared[e.ifi] = true
	}
	var out []token.Pos
	nearest := ""
	for _, e := range c.domEdges(fn, x.Block()) {
		if shared[e.ifi] {
			continue
		}
		text, pos, _ := c.text.condText(e.ifi)
		if !pos.IsValid() {
			continue
		}
		if wh := c.text.whole(pos, text); wh != "" {
			text = wh
		}
		nearest = text
		if !slices.Contains(out, pos) {
			out = append(out, pos)
		}
	}
	slices.Sort(out)
	return out, nearest
}

// maxRewrite bounds how deep rewrites follows the calls of a function.
const maxRewrite = 2

// rewrites reports whether a run of fn may rewrite field f from what it
// held: store in it a value computed from a read of f (`t.Success =
// filter(t.Success)`), in fn or a function it calls by name, a few calls
// deep. Such a call changes what the field holds without replacing it
// with something else whole: what the request held there is what it
// works on, and what it leaves is not what the request held. A call
// that stores in the field a value not computed from it (a value of
// state, a reset) is not taken for one: what the field then holds is
// not followed here. Writes to what fn makes itself do not count.
func (c *Checker) rewrites(fn *ssa.Function, f *types.Var, depth int) bool {
	if fn == nil || fn.Blocks == nil || depth > maxRewrite {
		return false
	}
	k := rewriteKey{fn, f}
	if r, ok := c.rewriteMemo[k]; ok {
		return r
	}
	if c.rewriteMemo == nil {
		c.rewriteMemo = map[rewriteKey]bool{}
	}
	c.rewriteMemo[k] = false // a cycle of calls rewrites nothing more
	out := false
	for _, b := range fn.Blocks {
		for _, ins := range b.Instrs {
			switch x := ins.(type) {
			case *ssa.Store:
				fa, ok := x.Addr.(*ssa.FieldAddr)
				if ok && fieldVar(fa.X.Type(), fa.Field) == f && !madeWrite(x) && computedFrom(x.Val, f, 0, map[ssa.Value]bool{}) {
					out = true
				}
			case *ssa.Call:
				if g := x.Call.StaticCallee(); g != nil && c.rewrites(g, f, depth+1) {
					out = true
				}
			}
			if out {
				break
			}
		}
		if out {
			break
		}
	}
	c.rewriteMemo[k] = out
	return out
}

type rewriteKey struct {
	fn *ssa.Function
	f  *types.Var
}

// computedFrom reports whether v is computed from a load of field f:
// through operators, calls' arguments, slicing, phis and loads, a few
// levels deep.
func computedFrom(v ssa.Value, f *types.Var, depth int, seen map[ssa.Value]bool) bool {
	if v == nil || depth > 8 || seen[v] {
		return false
	}
	seen[v] = true
	switch x := v.(type) {
	case *ssa.FieldAddr:
		if fieldVar(x.X.Type(), x.Field) == f {
			return true
		}
		return false
	case *ssa.Field:
		if fieldVar(x.X.Type(), x.Field) == f {
			return true
		}
		return false
	}
	ins, ok := v.(ssa.Instruction)
	if !ok {
		return false
	}
	for _, op := range ins.Operands(nil) {
		if op != nil && *op != nil && computedFrom(*op, f, depth+1, seen) {
			return true
		}
	}
	return false
}

// handedArgs are what call is handed: its arguments, after the value
// it is called on for a call through an interface.
func handedArgs(cc *ssa.CallCommon) []ssa.Value {
	if cc.IsInvoke() {
		return append([]ssa.Value{cc.Value}, cc.Args...)
	}
	return cc.Args
}

// reaching are what call is handed through which field f can be reached
// by its type (typeReaches): a pointer to, or a slice or map of, a
// struct that holds f, or holds such a value, a few levels down. A value
// of an interface type is not one: what it holds is not known by its
// type.
func reaching(call ssa.CallInstruction, f *types.Var) []ssa.Value {
	var out []ssa.Value
	for _, a := range handedArgs(call.Common()) {
		if _, isIface := a.Type().Underlying().(*types.Interface); !isIface && typeReaches(a.Type(), f, 0, true) != "" {
			out = append(out, a)
		}
	}
	return out
}

// handedReach reports whether call is handed a value through which
// field f can be reached (reaching).
func handedReach(call ssa.CallInstruction, f *types.Var) bool { return len(reaching(call, f)) > 0 }

// handedBase is the first value call is handed through which it reaches
// field f.
func handedBase(call ssa.CallInstruction, f *types.Var) (ssa.Value, bool) {
	if vs := reaching(call, f); len(vs) > 0 {
		return vs[0], true
	}
	return nil, false
}

// typeReaches is the name of the struct type that holds field f, when a
// value of type t reaches it: through a pointer, a slice, an array or a
// map, and the fields of structs on the way; "" when it does not. A
// struct held by value (top, a value handed to a call) is a copy: what a
// call writes in its own fields is not what the caller holds, but a
// pointer it holds reaches what the caller's does.
func typeReaches(t types.Type, f *types.Var, depth int, top bool) string {
	if depth > maxReach {
		return ""
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return typeReaches(u.Elem(), f, depth+1, false)
	case *types.Slice:
		return typeReaches(u.Elem(), f, depth+1, false)
	case *types.Array:
		if top {
			return ""
		}
		return typeReaches(u.Elem(), f, depth+1, false)
	case *types.Map:
		return typeReaches(u.Elem(), f, depth+1, false)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if u.Field(i) == f && !top {
				if n, ok := t.(*types.Named); ok {
					return n.Obj().Name()
				}
				return "struct"
			}
		}
		for i := 0; i < u.NumFields(); i++ {
			if s := typeReaches(u.Field(i).Type(), f, depth+1, false); s != "" {
				return s
			}
		}
	}
	return ""
}

// ownerOf is the name of the struct type that holds f, as reached from
// what call is handed.
func ownerOf(call ssa.CallInstruction, f *types.Var) string {
	if a, ok := handedBase(call, f); ok {
		return typeReaches(a.Type(), f, 0, true)
	}
	return ""
}
