package feasible

import (
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// What an earlier call on the path returned: a path often calls g and
// goes on only when g's result passes a test (`if err := check(x); err !=
// nil { return err }`). The value g returns is one of the values at its
// returns, each reached only under the branches that lead to it; a test of
// the result needs one of those returns. A function's returns and their
// branches are summarised once (summary); a call evaluates the summary
// with its arguments (inlining, to a bounded depth), as x/tools' ctrlflow
// analysis exports what a function does at its returns as a fact that its
// callers read.

// maxInline bounds how deep calls whose results the path tests are
// followed; maxInlineBlocks how big a function may be to be followed.
const (
	maxInline       = 4
	maxInlineBlocks = 64
)

// summary is the shape of a function's returns.
type summary struct {
	ok   bool // the function is followed: it has a body, no recover, is small
	rets []retInfo
	// opaque: deferred calls may change its named results, so the values
	// at its returns are not what it returns (its branches still hold).
	opaque bool
}

// retInfo is one return: the branches that dominate it, and the loops it
// comes after, which it needs to have completed.
type retInfo struct {
	ret   *ssa.Return
	edges []edgeOf
	loops []*loopInfo
	// ways are, for a return that several branches lead to (a `return
	// nil` after a check), the branches of each way into its block: a
	// recheck (walk.thorough) takes one world for each.
	ways [][]edgeOf
}

// edgeOf is one edge of a branch: the If and the outcome.
type edgeOf struct {
	ifi  *ssa.If
	want bool
}

// loopInfo is a range loop over a slice that completes only when no
// iteration returns: what every element passes is what the returns inside
// it do not take.
type loopInfo struct {
	head  *ssa.BasicBlock
	slice ssa.Value
	elems []ssa.Value // the element, as the body reads it
	// exits are the branches (inside the body) of each return in it.
	exits [][]edgeOf
	// sums are the sums the loop carries (`n += f(x)`), each pass adding
	// a part that is never below 0 (leastOf).
	sums []*sumInfo
}

// sumInfo is a sum a loop carries: the phi at its head, where it starts
// (a constant), and the part each pass adds, as the body computes it.
type sumInfo struct {
	phi   *ssa.Phi
	start int64
	part  ssa.Value
}

func (c *Checker) summary(fn *ssa.Function) *summary {
	if s, ok := c.sums[fn]; ok {
		return s
	}
	s := &summary{}
	c.sums[fn] = s
	// A function that defers calls is followed when none of them may
	// recover a panic: what it returns is what its returns return (or,
	// with named results, which a deferred call may change, its branches
	// only: opaque). A getter of a field under a lock is not: what it
	// returns stays a read of that field, as the order of reads
	// (carry.go) names it.
	if fn.Blocks == nil || fn.Recover != nil && (mayRecover(fn) || lockedGetter(fn) && !c.returnsLookup(fn)) || len(fn.Blocks) > maxInlineBlocks {
		return s
	}
	s.ok = true
	res := fn.Signature.Results()
	named := res.Len() > 0 && res.At(0).Name() != ""
	if named {
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				if _, ok := ins.(*ssa.Defer); ok {
					s.opaque = true
				}
			}
		}
	}
	loops := c.loops(fn)
	for _, b := range fn.Blocks {
		if len(b.Instrs) == 0 || b == fn.Recover {
			continue // no deferred call recovers: a panic goes on up
		}
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		var lps []*loopInfo
		for _, l := range loops {
			if l.head.Succs[1].Dominates(b) {
				lps = append(lps, l)
			}
		}
		ri := retInfo{ret: ret, edges: c.domEdges(fn, b), loops: lps}
		// A return that several branches lead to is reached by one of
		// them: what a run that reaches it from one predecessor passed.
		if splitPreds(b, ret) {
			for _, p := range b.Preds {
				ri.ways = append(ri.ways, c.edgesBetween(fn, fn.Blocks[0], p, b))
			}
		}
		s.rets = append(s.rets, ri)
	}
	return s
}

// maxSplit bounds how many predecessors of a return are told apart.
const maxSplit = 4

// splitPreds reports whether return block b is told apart by its
// predecessors: it has a few, at least one ends in a branch, and it
// returns constants (`return nil` after a check: what the way into it
// passed is all there is to tell of it).
func splitPreds(b *ssa.BasicBlock, ret *ssa.Return) bool {
	if len(b.Preds) < 2 || len(b.Preds) > maxSplit || len(ret.Results) == 0 {
		return false
	}
	for _, r := range ret.Results {
		if _, isConst := r.(*ssa.Const); !isConst {
			return false
		}
	}
	for _, p := range b.Preds {
		if n := len(p.Instrs); n > 0 {
			if _, ok := p.Instrs[n-1].(*ssa.If); ok {
				return true
			}
		}
	}
	return false
}

// lockedGetter reports whether fn, which defers calls, is a getter that
// reads under a lock it takes and releases (`le.mu.RLock(); defer
// le.mu.RUnlock(); return le.m[id]`): one block besides the one a
// recovered panic would run, no call but of the standard library's sync
// package (or a builtin), and no deferred call that may recover. Such a
// getter is followed only when it returns a map's entry (returnsLookup):
// what it finds is what a later lookup of the same key may find again
// (entry.go).
func lockedGetter(fn *ssa.Function) bool {
	if len(fn.Blocks) != 2 || fn.Recover == nil || mayRecover(fn) {
		return false
	}
	for _, b := range fn.Blocks {
		if b == fn.Recover {
			continue
		}
		for _, ins := range b.Instrs {
			c, ok := ins.(ssa.CallInstruction)
			if !ok {
				continue
			}
			if _, isB := c.Common().Value.(*ssa.Builtin); isB {
				continue
			}
			callee := c.Common().StaticCallee()
			if callee == nil || !inSync(callee) {
				return false
			}
		}
	}
	return true
}

// returnsLookup reports whether fn returns one result, an entry it looks
// up in a map (kept in its result's variable while the deferred calls
// run).
func (c *Checker) returnsLookup(fn *ssa.Function) bool {
	found := false
	for _, b := range fn.Blocks {
		if b == fn.Recover || len(b.Instrs) == 0 {
			continue
		}
		r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		if len(r.Results) != 1 {
			return false
		}
		lk, ok := c.stored(r.Results[0]).(*ssa.Lookup)
		if !ok || lk.CommaOk {
			return false
		}
		found = true
	}
	return found
}

// mayRecover reports whether a deferred call of fn may recover a panic:
// recover stops one only when the deferred function calls it itself, so
// a deferred call of a function whose body does not, or of a method of
// the standard library's sync package (a lock's release), does not.
func mayRecover(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, ins := range b.Instrs {
			d, ok := ins.(*ssa.Defer)
			if !ok {
				continue
			}
			callee := d.Call.StaticCallee()
			if callee == nil {
				return true
			}
			if callee.Blocks == nil {
				if inSync(callee) {
					continue
				}
				return true
			}
			if callsRecover(callee) {
				return true
			}
		}
	}
	return false
}

// inSync reports whether fn is of the standard library's sync package:
// a function of it, or a method of one of its types.
func inSync(fn *ssa.Function) bool {
	if fn.Pkg != nil && fn.Pkg.Pkg.Path() == "sync" {
		return true
	}
	if fn.Signature.Recv() == nil {
		return false
	}
	t := fn.Signature.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "sync"
}

// callsRecover reports whether fn calls the built-in recover.
func callsRecover(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, ins := range b.Instrs {
			if c, ok := ins.(*ssa.Call); ok {
				if bi, ok := c.Call.Value.(*ssa.Builtin); ok && bi.Name() == "recover" {
					return true
				}
			}
		}
	}
	return false
}

// domEdges are the branch edges that every run reaching block target in
// fn takes: an If ends block p, and its successor b has p as its only
// predecessor and dominates target. This is the shape of x/tools' nilness
// analysis.
func (c *Checker) domEdges(fn *ssa.Function, target *ssa.BasicBlock) []edgeOf {
	if es, ok := c.dom[target]; ok {
		return es
	}
	var out []edgeOf
	for _, b := range fn.DomPreorder() {
		if !b.Dominates(target) || len(b.Preds) != 1 {
			continue
		}
		p := b.Preds[0]
		if len(p.Instrs) == 0 || len(p.Succs) != 2 || p.Succs[0] == p.Succs[1] {
			continue
		}
		ifi, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		out = append(out, edgeOf{ifi, p.Succs[0] == b})
	}
	// In the order the code runs: a branch before the branches it
	// dominates.
	sortEdges(out)
	c.dom[target] = out
	return out
}

func sortEdges(es []edgeOf) {
	for i := 1; i < len(es); i++ {
		for j := i; j > 0 && es[j].ifi.Block().Dominates(es[j-1].ifi.Block()) && es[j].ifi.Block() != es[j-1].ifi.Block(); j-- {
			es[j], es[j-1] = es[j-1], es[j]
		}
	}
}

// edgesBetween are the branch edges a run takes from block top to the
// edge pred → b (top dominates pred).
func (c *Checker) edgesBetween(fn *ssa.Function, top, pred, b *ssa.BasicBlock) []edgeOf {
	var out []edgeOf
	for _, e := range c.domEdges(fn, pred) {
		if top.Dominates(e.ifi.Block()) {
			out = append(out, e)
		}
	}
	if n := len(pred.Instrs); n > 0 {
		if ifi, ok := pred.Instrs[n-1].(*ssa.If); ok && pred.Succs[0] != pred.Succs[1] {
			out = append(out, edgeOf{ifi, pred.Succs[0] == b})
		}
	}
	return out
}

// loops finds fn's range loops over slices whose only ways out are the
// loop's own end and returns.
func (c *Checker) loops(fn *ssa.Function) []*loopInfo {
	if ls, ok := c.loopsOf[fn]; ok {
		return ls
	}
	out := c.loops1(fn)
	c.loopsOf[fn] = out
	return out
}

func (c *Checker) loops1(fn *ssa.Function) []*loopInfo {
	var out []*loopInfo
	for _, head := range fn.Blocks {
		if head.Comment != "rangeindex.loop" || len(head.Succs) != 2 || len(head.Instrs) == 0 {
			continue
		}
		ifi, ok := head.Instrs[len(head.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		lt, ok := ifi.Cond.(*ssa.BinOp)
		if !ok || lt.Op != token.LSS {
			continue
		}
		inc := lt.X
		call, ok := lt.Y.(*ssa.Call)
		if !ok {
			continue
		}
		if b, ok := call.Common().Value.(*ssa.Builtin); !ok || b.Name() != "len" || len(call.Common().Args) != 1 {
			continue
		}
		slice := call.Common().Args[0]
		if _, ok := slice.Type().Underlying().(*types.Slice); !ok {
			continue
		}
		body, done := head.Succs[0], head.Succs[1]
		if len(done.Preds) != 1 {
			continue // a break: the loop may end before its last element
		}
		l := &loopInfo{head: head, slice: slice}
		closed := true
		for _, b := range fn.Blocks {
			if !body.Dominates(b) {
				continue
			}
			for _, s := range b.Succs {
				if s != head && !body.Dominates(s) {
					closed = false
				}
			}
			for _, ins := range b.Instrs {
				switch x := ins.(type) {
				case *ssa.IndexAddr:
					if x.X == slice && x.Index == inc {
						l.elems = append(l.elems, x)
					}
				case *ssa.Index:
					if x.X == slice && x.Index == inc {
						l.elems = append(l.elems, x)
					}
				case *ssa.Return:
					var exit []edgeOf
					for _, e := range c.domEdges(fn, b) {
						if body.Dominates(e.ifi.Block()) {
							exit = append(exit, e)
						}
					}
					l.exits = append(l.exits, exit)
				}
			}
		}
		l.sums = c.loopSums(head, body)
		if closed && len(l.elems) > 0 && (len(l.exits) > 0 || len(l.sums) > 0) {
			out = append(out, l)
		}
	}
	return out
}

// loopSums are the sums the loop at head carries: a phi of the head
// that starts at a constant and to which each pass through body adds a
// part never below 0. When the loop ends, no part is above the sum less
// its start.
func (c *Checker) loopSums(head, body *ssa.BasicBlock) []*sumInfo {
	var out []*sumInfo
	for _, ins := range head.Instrs {
		phi, ok := ins.(*ssa.Phi)
		if !ok {
			break
		}
		if !isInteger(phi.Type()) || len(phi.Edges) != 2 {
			continue
		}
		si := &sumInfo{phi: phi}
		okStart, okPart := false, false
		for i, e := range phi.Edges {
			pred := head.Preds[i]
			if body.Dominates(pred) {
				part, adds := addsTo(e, phi)
				if _, counter := part.(*ssa.Const); !adds || counter {
					break // not a sum, or a counter (see countsUp)
				}
				if fl := c.leastOf(part); !fl.ok || fl.least < 0 {
					break
				}
				si.part, okPart = part, true
				continue
			}
			k, isConst := e.(*ssa.Const)
			if !isConst {
				break
			}
			v, exact := constInt(k)
			if !exact {
				break
			}
			si.start, okStart = v, true
		}
		if okStart && okPart {
			out = append(out, si)
		}
	}
	return out
}

// template is what a loop that completed says of every element of its
// slice, in the frame the loop ran in.
type template struct {
	loop *loopInfo
	fr   *frame
	via  []*viaCall
}

// name names the template within one path: its frame and its loop.
func (t *template) name() string {
	return itoa(t.fr.id) + "." + itoa(t.loop.head.Index)
}

// target is a function a call may run, with what it is bound to.
type target struct {
	fn   *ssa.Function
	recv *value   // an interface method's receiver, when known
	free []*value // a closure's captured variables
}

// callees are the functions call v (in frame f) may run, when the path
// can say.
func (f *frame) callees(v ssa.CallInstruction, c *ssa.CallCommon) []target {
	prog := f.fn.Prog
	switch {
	case c.IsInvoke():
		recv := f.eval(c.Value)
		if fn, rv, known := f.dispatch(recv, c.Method, 0); known {
			return []target{{fn: fn, recv: rv}}
		}
		_ = prog
		return f.graphCallees(v, recv)
	case c.StaticCallee() != nil:
		fn := c.StaticCallee()
		t := target{fn: fn}
		if mc, ok := c.Value.(*ssa.MakeClosure); ok {
			for _, b := range mc.Bindings {
				t.free = append(t.free, f.eval(b))
			}
		}
		return []target{t}
	}
	if _, ok := c.Value.(*ssa.Builtin); ok {
		return nil
	}
	fv := f.eval(c.Value)
	if fv.fn != nil {
		t := target{fn: fv.fn}
		if len(fv.fn.FreeVars) > 0 {
			t.free = fv.bindings
		} else if fv.fn.Synthetic != "" && len(fv.bindings) == 1 {
			t.recv = fv.bindings[0] // a bound method
		}
		return []target{t}
	}
	return f.graphCallees(v, nil)
}

// graphCallees are the call graph's callees of v, when they are few.
func (f *frame) graphCallees(v ssa.CallInstruction, recv *value) []target {
	if f.p.c.edges == nil {
		return nil
	}
	seen := map[*ssa.Function]bool{}
	var out []target
	for _, e := range f.p.c.edges(v) {
		fn := e.Callee.Func
		if fn == nil || seen[fn] {
			continue
		}
		seen[fn] = true
		out = append(out, target{fn: fn, recv: recv})
	}
	if len(out) > 3 {
		return nil
	}
	return out
}

// onStack reports whether fn is being evaluated already (a recursion).
func (f *frame) onStack(fn *ssa.Function) bool {
	for x := f; x != nil; x = x.parent {
		if x.fn == fn {
			return true
		}
	}
	return false
}

// call is what call v returns: one of the values at its callee's returns,
// each with the branches that lead to it; what the old analysis knew
// (callResult) when the callee cannot be followed.
func (f *frame) call(v *ssa.Call, c *ssa.CallCommon) *value {
	old := f.pureName(c, f.callResult(c))
	if c.IsInvoke() && f.promotedInput(f.eval(c.Value), c.Method) {
		// A method a wrapper promotes from an interface it embeds that
		// holds the input (a request's stream a handler wraps): the
		// input's method, as a call of it would be.
		return f.pureName(c, opaque(input))
	}
	if f.depth >= maxInline {
		return old
	}
	ts := f.callees(v, c)
	if len(ts) == 0 {
		return old
	}
	var outer []*alt
	for i, t := range ts {
		inner := f.inlineOne(v, c, t, old)
		if inner == nil {
			inner = &value{kind: kOpaque, org: old.org, why: old.why, term: v.Name() + "@" + itoa(f.id) + "#" + itoa(i)}
		}
		outer = append(outer, &alt{fr: f, val: inner, at: v.Pos(), what: "calls"})
	}
	if len(outer) == 1 {
		return outer[0].val
	}
	return &value{kind: kAlt, org: old.org, why: old.why, key: altKey{frame: f.id, v: v}, alts: outer}
}

// pureName names the result of a call given only parts of the request
// (and constants) by the call itself: the same function given the same
// parts gives the same value wherever the path calls it (the request does
// not change while it is handled). old is the call's value otherwise.
func (f *frame) pureName(c *ssa.CallCommon, old *value) *value {
	if old.org != input || old.kind != kOpaque {
		return old
	}
	name := f.pureKey(c)
	if name == "" {
		return old
	}
	r := *old
	r.term = name
	return &r
}

// pureKey is the name of call c given only parts of the request and
// constants: "call:F(args)"; "" for any other call.
func (f *frame) pureKey(c *ssa.CallCommon) string {
	name := ""
	var args []ssa.Value
	switch {
	case c.IsInvoke():
		name = c.Method.FullName()
		args = append([]ssa.Value{c.Value}, c.Args...)
	case c.StaticCallee() != nil:
		name = c.StaticCallee().String()
		args = c.Args
	default:
		return ""
	}
	parts := make([]string, 0, len(args))
	for _, a := range args {
		x := f.eval(a)
		switch {
		case x.kind == kConst && !x.isNil && x.c != nil:
			parts = append(parts, x.c.ExactString())
		case x.kind == kConst && x.isNil:
			parts = append(parts, "nil")
		case x.org == input && x.term != "" && x.kind != kAlt:
			parts = append(parts, x.term)
		default:
			return ""
		}
	}
	return "call:" + name + "(" + strings.Join(parts, ",") + ")"
}

// inlineOne is the value of call v when it runs t.fn: one alternative per
// return; nil when t.fn is not followed.
func (f *frame) inlineOne(v *ssa.Call, c *ssa.CallCommon, t target, old *value) *value {
	if f.onStack(t.fn) {
		return nil
	}
	s := f.p.c.summary(t.fn)
	if !s.ok || len(s.rets) == 0 {
		return nil
	}
	nf := f.p.newFrame(t.fn, f, v)
	nf.inline, nf.depth = true, f.depth+1
	ik := inlineKey{f.id, v, t.fn}
	if _, ok := f.p.inlined[ik]; !ok {
		f.p.inlined[ik] = nf
	}
	var args []ssa.Value
	if c.IsInvoke() {
		args = c.Args
	} else {
		args = c.Args
	}
	var pre []*value
	if t.recv != nil {
		pre = append(pre, t.recv)
	} else if c.IsInvoke() {
		pre = append(pre, f.eval(c.Value))
	}
	if len(pre)+len(args) == len(t.fn.Params) {
		for j, p := range t.fn.Params {
			if j < len(pre) {
				nf.params[p] = adapt(f, pre[j], p.Type())
				continue
			}
			nf.params[p] = f.eval(args[j-len(pre)]).fixedAt(v.Pos())
		}
	}
	for j, b := range t.free {
		if j < len(t.fn.FreeVars) {
			nf.free[t.fn.FreeVars[j]] = b
		}
	}
	via := &viaCall{call: v, callee: t.fn, text: f.p.c.text.callText(v)}
	out := &value{kind: kAlt, org: old.org, why: old.why, key: altKey{frame: nf.id, v: v}}
	// A function called by name with the same parts of the request
	// returns the same way wherever the path calls it. (Not a call
	// through an interface: its wrappers call the same method again.)
	if c.StaticCallee() != nil {
		if name := f.pureKey(c); name != "" {
			out.key = altKey{pure: name}
		}
	}
	for _, r := range s.rets {
		a := &alt{fr: nf, at: r.ret.Pos(), what: "returns", call: via}
		switch {
		case s.opaque:
			a.val = &value{kind: kOpaque, org: old.org, term: v.Name() + "@" + itoa(nf.id) + "/" + itoa(len(out.alts))}
		case len(r.ret.Results) == 1:
			a.v, a.res = r.ret.Results[0], r.ret.Results
		default:
			a.res = r.ret.Results
			a.val = &value{kind: kOpaque, org: old.org, term: v.Name() + "@" + itoa(nf.id) + "/" + itoa(len(out.alts))}
		}
		rv := *via
		rv.outcome = returned(r.ret)
		for _, e := range r.edges {
			a.guards = append(a.guards, guard{fr: nf, ifi: e.ifi, want: e.want, via: []*viaCall{&rv}})
		}
		for _, l := range r.loops {
			a.guards = append(a.guards, guard{fr: nf, tmpl: &template{loop: l, fr: nf, via: []*viaCall{&rv}}})
		}
		for _, way := range r.ways {
			var gs []guard
			for _, e := range way {
				gs = append(gs, guard{fr: nf, ifi: e.ifi, want: e.want, via: []*viaCall{&rv}})
			}
			a.ways = append(a.ways, gs)
		}
		out.alts = append(out.alts, a)
	}
	return out
}

type inlineKey struct {
	frame int
	call  ssa.CallInstruction
	fn    *ssa.Function
}

// adapt is v as a value of type t, where v holds t inside it (a method
// promoted from an embedded field, called through the outer value, as a
// call graph without its wrappers shows it): the embedded value, found
// through the embedded fields. A value of known structure that holds no
// value of type t is not bound to it (a fresh value instead); a term
// names what it is whatever its type.
func adapt(f *frame, v *value, t types.Type) *value {
	if v == nil {
		return v
	}
	if r := adapt1(f, v, t, 0); r != nil {
		return r
	}
	// A value that holds no value of this type: the way that gives it
	// cannot run this call.
	return &value{kind: kNone, org: state, dyn: v.dyn, obj: v.obj}
}

// dispatch is the method m that a call on recv runs, with its receiver,
// when the path knows recv's dynamic type: the method its type declares,
// or, for a method promoted from an embedded field, the one the embedded
// value runs. known is false when the path cannot say.
func (f *frame) dispatch(recv *value, m *types.Func, depth int) (fn *ssa.Function, rv *value, known bool) {
	if recv == nil || depth > 6 {
		return nil, nil, false
	}
	dyn, inner, ok := structRecv(recv)
	if !ok {
		return nil, nil, false
	}
	prog := f.fn.Prog
	fn = prog.LookupMethod(dyn, m.Pkg(), m.Name())
	if fn == nil {
		return nil, nil, false
	}
	if fn.Synthetic == "" {
		return fn, inner, true
	}
	// Promoted: follow the embedded fields to the value that has it.
	v, _, ok := f.embeddedHolder(dyn, inner, m)
	if !ok {
		return nil, nil, false
	}
	switch v.kind {
	case kObj:
		if fn := prog.LookupMethod(types.NewPointer(v.obj.typ), m.Pkg(), m.Name()); fn != nil && fn.Synthetic == "" {
			return fn, v, true
		}
		return f.dispatch(v, m, depth+1)
	case kNonNil:
		return f.dispatch(v, m, depth+1)
	}
	return nil, nil, false
}

// structRecv is the type whose methods a call on recv runs and the value
// that has them: an object the path made, or what an interface that
// holds a value of a known type holds (recv itself when that is not
// known); false when recv is neither.
func structRecv(recv *value) (dyn types.Type, inner *value, ok bool) {
	switch recv.kind {
	case kNonNil:
		if recv.dyn == nil {
			return nil, nil, false
		}
		if recv.inner != nil {
			return recv.dyn, recv.inner, true
		}
		return recv.dyn, recv, true
	case kObj:
		return types.NewPointer(recv.obj.typ), recv, true
	}
	return nil, nil, false
}

// embeddedHolder follows the embedded fields of inner, an object of type
// dyn, to the value that has the method m the type promotes, and the
// field that holds that value.
func (f *frame) embeddedHolder(dyn types.Type, inner *value, m *types.Func) (*value, *types.Var, bool) {
	obj, index, _ := types.LookupFieldOrMethod(dyn, true, m.Pkg(), m.Name())
	if _, isFunc := obj.(*types.Func); !isFunc || len(index) < 2 || inner.kind != kObj {
		return nil, nil, false
	}
	v := inner
	var fld *types.Var
	for _, i := range index[:len(index)-1] {
		if v.kind != kObj {
			return nil, nil, false
		}
		st, ok := v.obj.typ.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return nil, nil, false
		}
		fld = st.Field(i)
		v = f.fieldOf(v, i, fld, nil)
	}
	return v, fld, true
}

// promotedInput reports whether method m of recv, a struct the path
// made (or an interface holding one), is promoted from an interface
// field it embeds (through embedded fields) whose value is the input's.
func (f *frame) promotedInput(recv *value, m *types.Func) bool {
	dyn, inner, ok := structRecv(recv)
	if !ok {
		return false
	}
	v, fld, ok := f.embeddedHolder(dyn, inner, m)
	if !ok {
		return false
	}
	_, isIface := fld.Type().Underlying().(*types.Interface)
	return isIface && v.org == input
}

// canCall reports whether a call of method m on recv may run callee: no,
// when every way recv can be is known to run another method.
func (f *frame) canCall(recv *value, m *types.Func, callee *ssa.Function) bool {
	return f.canCall1(recv, m, callee, 0)
}

func (f *frame) canCall1(recv *value, m *types.Func, callee *ssa.Function, depth int) bool {
	if recv == nil || depth > 8 {
		return true
	}
	if recv.kind == kAlt {
		for _, a := range recv.alts {
			if f.canCall1(a.value(), m, callee, depth+1) {
				return true
			}
		}
		return len(recv.alts) == 0
	}
	var dyn types.Type
	inner := recv
	switch recv.kind {
	case kNonNil:
		if recv.dyn == nil {
			return true
		}
		dyn = recv.dyn
		if recv.inner != nil {
			inner = recv.inner
		}
	case kObj:
		dyn = types.NewPointer(recv.obj.typ)
	default:
		return true
	}
	fn := f.fn.Prog.LookupMethod(dyn, m.Pkg(), m.Name())
	if fn == nil {
		return true
	}
	if fn.Synthetic == "" {
		return fn == callee
	}
	// Promoted: the embedded value's method runs.
	_, index, _ := types.LookupFieldOrMethod(dyn, true, m.Pkg(), m.Name())
	if len(index) < 2 || inner.kind != kObj {
		return true
	}
	v := inner
	for _, i := range index[:len(index)-1] {
		if v.kind != kObj {
			break
		}
		st, ok := v.obj.typ.Underlying().(*types.Struct)
		if !ok || i >= st.NumFields() {
			return true
		}
		v = f.fieldOf(v, i, st.Field(i), nil)
	}
	if v.kind == kObj {
		if fn := f.fn.Prog.LookupMethod(types.NewPointer(v.obj.typ), m.Pkg(), m.Name()); fn != nil && fn.Synthetic == "" {
			return fn == callee
		}
	}
	return f.canCall1(v, m, callee, depth+1)
}

// callers is recv, when it is one of several values, with only those that
// can run callee as method m (each with the branches that pick it): the
// call runs callee only when the receiver is one of them. recv itself
// when every one can, or none.
func (f *frame) callers(recv *value, m *types.Func, callee *ssa.Function) *value {
	if recv == nil || recv.kind != kAlt {
		return recv
	}
	var keep []*alt
	for _, a := range recv.alts {
		if f.canCall(a.value(), m, callee) {
			keep = append(keep, a)
		}
	}
	if len(keep) == len(recv.alts) || len(keep) == 0 {
		return recv
	}
	out := *recv
	out.alts = keep
	return &out
}

// canHold reports whether v, as far as the path knows it, may hold a
// value of type t (every way it can be, when it is one of several, known
// to hold none says no).
func canHold(f *frame, v *value, t types.Type) bool {
	if v == nil {
		return true
	}
	if v.kind == kAlt {
		for _, a := range v.alts {
			if canHold(f, a.value(), t) {
				return true
			}
		}
		return len(v.alts) == 0
	}
	return adapt1(f, v, t, 0) != nil
}

// typeName names the dynamic type of a value the path knows.
func typeName(v *value) string {
	switch {
	case v.kind == kNonNil && v.dyn != nil:
		return types.TypeString(v.dyn, nil)
	case v.kind == kObj:
		return types.TypeString(types.NewPointer(v.obj.typ), nil)
	case v.kind == kAlt && len(v.alts) > 0:
		return typeName(v.alts[0].value())
	}
	return "another type"
}

func adapt1(f *frame, v *value, t types.Type, depth int) *value {
	if depth > 12 {
		return v // too deep to tell: not known to hold none
	}
	switch v.kind {
	case kAlt:
		return lift(v, func(x *value) *value { return adapt(f, x, t) })
	case kNonNil:
		if v.dyn != nil && (types.Identical(v.dyn, t) || types.Identical(types.NewPointer(v.dyn), t)) {
			if v.inner != nil {
				return v.inner
			}
			return v
		}
		if v.inner != nil {
			return adapt1(f, v.inner, t, depth+1)
		}
		return v // its parts are not known
	case kObj:
		o := v.obj
		if types.Identical(types.NewPointer(o.typ), t) || types.Identical(o.typ, t) {
			return v
		}
		st, ok := o.typ.Underlying().(*types.Struct)
		if !ok {
			return nil
		}
		for i := 0; i < st.NumFields(); i++ {
			fv := st.Field(i)
			if !fv.Embedded() {
				continue
			}
			fval := f.fieldOf(v, i, fv, nil)
			if r := adapt1(f, fval, t, depth+1); r != nil {
				return r
			}
		}
		return nil
	}
	return v
}

// returned is what return ret gives, as written, when every result is a
// constant ("nil", "true", "nil, 0"); "" otherwise.
func returned(ret *ssa.Return) string {
	var parts []string
	for _, v := range ret.Results {
		c, ok := v.(*ssa.Const)
		if !ok {
			return ""
		}
		switch {
		case c.Value == nil:
			if !isNilable(c.Type()) {
				return ""
			}
			parts = append(parts, "nil")
		default:
			parts = append(parts, c.Value.ExactString())
		}
	}
	return strings.Join(parts, ", ")
}

// isNilable reports whether nil is a value of t.
func isNilable(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Interface, *types.Slice, *types.Map, *types.Chan, *types.Signature:
		return true
	}
	return false
}
