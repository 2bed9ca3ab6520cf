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
	// fr is the path's frame that makes the call; until the step (or the
	// test) it is made before.
	fr    *frame
	call  ssa.CallInstruction
	until ssa.Instruction
}

// Drop, on a condition that a way needs because a filter beside it
// leaves no element the way's test needs (keptOutcome), says so: the
// call (as written, and where), where the filter's own test is, and the
// way's test of the element (as written, the outcome it needs, where).
type Drop struct {
	Call     string
	At       token.Pos
	FilterAt token.Pos
	Test     string
	Want     bool
	TestAt   token.Pos
}

// maxReach bounds how deep typeReaches follows a type's pointers and
// fields.
const maxReach = 4

// rewrittenNeeded makes an OnlyIf or Yes result Unknown when a test of
// the request that the way needs may read what a call beside the way
// wrote (rewriteBefore): the first such test, as the way meets them.
func (w *walk) rewrittenNeeded(res Result) Result {
	avoided := map[ssa.CallInstruction]bool{}
	for i := range res.Conds {
		c := &res.Conds[i]
		if c.Class != Input || c.If == nil || c.hop < 0 || c.hop >= len(w.frames) {
			continue
		}
		fs := c.Fields
		if len(fs) == 0 {
			continue
		}
		rw, ok := w.rewriteBefore(c, fs)
		if !ok || avoided[rw.call] {
			continue // none, or the way does not make it
		}
		switch out, k := w.keptOutcome(c, rw.fr, rw.call, rw.Field); out {
		case keptOut, otherTest:
			continue // what the test reads are elements the request held
		case droppedOut:
			if avoid, ok := w.avoidCall(rw.fr, rw.call, rw.until); ok {
				avoid.Drop = &Drop{Call: rw.Call, At: rw.At, FilterAt: k.at, Test: c.Text, Want: c.Want, TestAt: c.Pos}
				res = withCond(res, avoid)
				avoided[rw.call] = true
				continue
			}
		}
		cond := Cond{Class: Gave, Why: Rewritten, Func: c.Func, Pos: c.Pos, Text: c.Text, Want: c.Want, Rewrite: rw}
		return gaveOn(res, cond, []*Cond{c})
	}
	return res
}

// avoidCall is the condition that the way does not make call, in fr
// before until: the way needs the branch it is made under not taken, or,
// for a chain of the parts of one if statement's condition that leads to
// it, the whole condition false (chainCond). False when the call is not
// under such branches, each from a block that only leads to the next, or
// the condition is not one of state or of the request.
func (w *walk) avoidCall(fr *frame, call ssa.CallInstruction, until ssa.Instruction) (Cond, bool) {
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

// rewriteBefore is a call that the way may make before test c, in one
// of the path's functions up to the one where the way meets c, that is
// not the path's step there: it is handed a value through which one of
// fields fs can be reached (by its type), and it, or a function it may
// call, writes that field (but for writes to what it makes itself).
func (w *walk) rewriteBefore(c *Cond, fs []*types.Var) (*Rewrite, bool) {
	for k := 0; k <= c.hop; k++ {
		fr := w.frames[k]
		var until ssa.Instruction
		switch {
		case k < c.hop:
			until = fr.site
		case c.If.Parent() == fr.fn:
			until = c.If
		}
		if until == nil {
			continue
		}
		for _, b := range fr.fn.Blocks {
			for _, ins := range b.Instrs {
				call, ok := ins.(ssa.CallInstruction)
				if !ok || ins == until || call == fr.site || !mayRunBefore(ins, until) {
					continue
				}
				if _, isDefer := ins.(*ssa.Defer); isDefer {
					continue // runs at the function's end
				}
				for _, f := range fs {
					if !handedReach(call, f) || !w.c.anyCallee(call, func(fn *ssa.Function) bool { return w.c.rewrites(fn, f, 0) }) {
						continue
					}
					text := w.c.text.callText(call)
					if text == "" {
						continue
					}
					return &Rewrite{Call: text, At: call.Pos(), Field: f, Owner: ownerOf(call, f), Under: w.c.branchesOnly(fr.fn, ins, until),
						fr: fr, call: call, until: until}, true
				}
			}
		}
	}
	return nil, false
}

// branchesOnly are where the branches are (their conditions, as
// written) that dominate instruction x in fn and not until.
func (c *Checker) branchesOnly(fn *ssa.Function, x, until ssa.Instruction) []token.Pos {
	shared := map[*ssa.If]bool{}
	for _, e := range c.domEdges(fn, until.Block()) {
		shared[e.ifi] = true
	}
	var out []token.Pos
	for _, e := range c.domEdges(fn, x.Block()) {
		if shared[e.ifi] {
			continue
		}
		if _, pos, _ := c.text.condText(e.ifi); pos.IsValid() && !slices.Contains(out, pos) {
			out = append(out, pos)
		}
	}
	slices.Sort(out)
	return out
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

// handedReach reports whether call is handed a value (an argument, or
// the receiver of a call through an interface) through which field f
// can be reached by its type: a pointer to, or a slice or map of, a
// struct that holds f, or holds such a value, a few levels down.
func handedReach(call ssa.CallInstruction, f *types.Var) bool {
	cc := call.Common()
	args := cc.Args
	if cc.IsInvoke() {
		args = append([]ssa.Value{cc.Value}, args...)
	}
	for _, a := range args {
		if _, ok := a.Type().Underlying().(*types.Interface); ok {
			continue // what it holds is not known by its type
		}
		if typeReaches(a.Type(), f, 0, true) != "" {
			return true
		}
	}
	return false
}

// typeReaches is the name of the struct type that holds field f, when a
// value of type t reaches it: through a pointer, a slice, an array or a
// map, and the fields of structs on the way; "" when it does not. A
// struct held by value (top, a value handed to a call) is a copy: what a
// call writes in it is not what the caller holds.
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
		if top {
			return ""
		}
		for i := 0; i < u.NumFields(); i++ {
			if u.Field(i) == f {
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
	cc := call.Common()
	args := cc.Args
	if cc.IsInvoke() {
		args = append([]ssa.Value{cc.Value}, args...)
	}
	for _, a := range args {
		if s := typeReaches(a.Type(), f, 0, true); s != "" {
			return s
		}
	}
	return ""
}
