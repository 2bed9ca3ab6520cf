package layers

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/report"
)

// follower follows the signal's value through one layer's code: from where
// it arrives to the comparisons that recognise it, the logs that report it,
// what it is turned into, and where that goes. It stays in the layer's
// packages; it reads the bodies of what they call (a predicate, a
// constructor) wherever they were read from source.
type follower struct {
	a     *analysis
	q     Question
	layer map[string]bool

	seen    map[ssa.Value]bool
	entered map[*ssa.Function]map[int]bool
	carried map[*ssa.Function]map[int]bool
	errText map[ssa.Value]bool // results of Error() on the value
}

func (a *analysis) follow(q Question, layer map[string]bool) error {
	f := &follower{a: a, q: q, layer: layer, seen: map[ssa.Value]bool{}, entered: map[*ssa.Function]map[int]bool{},
		carried: map[*ssa.Function]map[int]bool{}, errText: map[ssa.Value]bool{}}
	switch {
	case q.From != "":
		obj, err := a.p.object(q.From)
		if err != nil {
			return err
		}
		fn, ok := obj.(*types.Func)
		if !ok {
			return fmt.Errorf("%s is not a function or method", q.From)
		}
		found := false
		f.calls(fn, func(c *ssa.Call) {
			found = true
			f.track(c)
		})
		if !found {
			return fmt.Errorf("no call of %s in the layer %s", q.From, q.Layer)
		}
	default:
		from := a.answers(q.FromRole)
		started := false
		for _, h := range from {
			switch h.Kind {
			case "event":
				if k, ok := a.consts[h.Object]; ok && f.receives(k) {
					started = true
				}
			case "becomes":
				if fn, ok := a.funcs[h.Object]; ok {
					f.calls(fn, func(c *ssa.Call) {
						started = true
						f.hop(c.Pos(), report.LayerHop{Kind: "becomes", Object: h.Object, Value: f.message(c)})
						f.track(c)
					})
				}
			}
		}
		if !started {
			return fmt.Errorf("the layer %s does not continue what %s found", q.Layer, q.FromRole)
		}
	}
	return nil
}

// calls visits the calls of fn in the layer's functions.
func (f *follower) calls(fn *types.Func, visit func(*ssa.Call)) {
	for _, g := range f.a.p.funcs {
		if !inLayer(g, f.layer) {
			continue
		}
		for _, b := range g.Blocks {
			for _, ins := range b.Instrs {
				if c, ok := ins.(*ssa.Call); ok && callee(&c.Call) == fn {
					visit(c)
				}
			}
		}
	}
}

func (f *follower) hop(pos token.Pos, h report.LayerHop) {
	f.a.add(f.q, pos, h)
}

// track follows v to every instruction that uses it.
func (f *follower) track(v ssa.Value) {
	if v == nil || f.seen[v] {
		return
	}
	if fn := v.Parent(); fn != nil && !inLayer(fn, f.layer) {
		return
	}
	f.seen[v] = true
	refs := v.Referrers()
	if refs == nil {
		return
	}
	for _, ins := range *refs {
		f.use(v, ins)
	}
}

func (f *follower) use(v ssa.Value, ins ssa.Instruction) {
	switch x := ins.(type) {
	case *ssa.Phi, *ssa.MakeInterface, *ssa.ChangeInterface, *ssa.ChangeType, *ssa.Convert,
		*ssa.Slice, *ssa.FieldAddr, *ssa.Field:
		f.track(x.(ssa.Value))
	case *ssa.TypeAssert:
		f.track(x)
	case *ssa.Extract:
		if !isBool(x.Type()) {
			f.track(x)
		}
	case *ssa.UnOp:
		if x.Op == token.MUL || x.Op == token.ARROW {
			f.track(x)
		}
	case *ssa.Store:
		if x.Val == v {
			if base := callpath.BaseAlloc(x.Addr); base != nil {
				f.event(base)
				f.track(base)
			}
		}
	case *ssa.BinOp:
		if x.Op == token.EQL || x.Op == token.NEQ {
			f.compare(v, x)
		}
	case *ssa.Return:
		for i, r := range x.Results {
			if r == v {
				f.returns(x.Parent(), i)
			}
		}
	case *ssa.Send:
		if x.X == v {
			f.hop(x.Pos(), report.LayerHop{Kind: "send", Value: f.a.p.src(f.sendChan(x.Pos()))})
		}
	case *ssa.Select:
		for _, st := range x.States {
			if st.Send == v {
				f.hop(st.Pos, report.LayerHop{Kind: "send", Value: f.a.p.src(f.sendChan(st.Pos))})
			}
		}
	case ssa.CallInstruction:
		f.call(v, x)
	}
}

// sendChan is the channel of the send statement at pos.
func (f *follower) sendChan(pos token.Pos) ast.Expr {
	for _, n := range f.a.p.path(pos, pos) {
		if s, ok := n.(*ast.SendStmt); ok {
			return s.Chan
		}
	}
	return nil
}

func isBool(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsBoolean != 0
}

// call handles v used by a call: a log, the text of an error, a predicate
// that classifies it, or a function of the layer it is handed to.
func (f *follower) call(v ssa.Value, ins ssa.CallInstruction) {
	c := ins.Common()
	fn := callee(c)
	name := qualified(fn)
	if lvl, ok := f.a.logs[fn]; ok {
		f.log(ins, lvl)
		return
	}
	call, _ := ins.(*ssa.Call)
	recv := (c.IsInvoke() && c.Value == v) || (c.Signature().Recv() != nil && len(c.Args) > 0 && c.Args[0] == v)
	if recv && fn != nil && fn.Name() == "Error" && call != nil && isString(call.Type()) {
		f.errText[call] = true
		f.texts(call)
		return
	}
	if call != nil && isBool(call.Type()) && fn != nil {
		f.hop(call.Pos(), report.LayerHop{Kind: "classifies", Object: name})
		if g := c.StaticCallee(); g != nil && len(g.Blocks) > 0 {
			f.tests(g, name, 3, map[*ssa.Function]bool{})
		}
		f.branch(call, name)
		return
	}
	g := c.StaticCallee()
	if g != nil && len(g.Blocks) > 0 && inLayer(g, f.layer) {
		for i, a := range c.Args {
			if a != v {
				continue
			}
			f.hop(ins.Pos(), report.LayerHop{Kind: "call", Object: callpathName(g)})
			if f.entered[g] == nil {
				f.entered[g] = map[int]bool{}
			}
			if !f.entered[g][i] && i < len(g.Params) {
				f.entered[g][i] = true
				f.track(g.Params[i])
			}
		}
		return
	}
	if recv && call != nil {
		// A method of the value (its status): what it returns carries it.
		f.track(call)
	}
}

func isString(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsString != 0
}

// returns marks result i of fn as carrying the value and follows it into
// fn's callers in the layer.
func (f *follower) returns(fn *ssa.Function, i int) {
	if f.carried[fn] == nil {
		f.carried[fn] = map[int]bool{}
	}
	if f.carried[fn][i] {
		return
	}
	f.carried[fn][i] = true
	for _, site := range f.a.p.callers[fn] {
		call, ok := site.(*ssa.Call)
		if !ok || !inLayer(call.Parent(), f.layer) {
			continue
		}
		f.hop(call.Pos(), report.LayerHop{Kind: "caller", Object: callpathName(call.Parent()), Value: callpathName(fn)})
		if call.Call.Signature().Results().Len() == 1 {
			f.track(call)
			continue
		}
		if refs := call.Referrers(); refs != nil {
			for _, r := range *refs {
				if e, ok := r.(*ssa.Extract); ok && e.Index == i {
					f.track(e)
				}
			}
		}
	}
}

// compare handles a comparison of the value: with the sentinel (by value)
// or, for its text, with a string constant (by text).
func (f *follower) compare(v ssa.Value, b *ssa.BinOp) {
	other := b.X
	if other == v {
		other = b.Y
	}
	if f.errText[v] {
		if k, ok := other.(*ssa.Const); ok && k.Value != nil && k.Value.Kind() == constant.String {
			lit := constant.StringVal(k.Value)
			f.hop(b.Pos(), report.LayerHop{Kind: "by-text", Object: "==", Value: strconv.Quote(lit), Match: lit == f.a.text})
		}
		return
	}
	if u, ok := other.(*ssa.UnOp); ok && u.Op == token.MUL {
		if g, ok := u.X.(*ssa.Global); ok && g.Object() == f.a.sentinel {
			f.hop(b.Pos(), report.LayerHop{Kind: "by-value", Object: objName(f.a.sentinel)})
			f.recognised(b)
		}
	}
}

// texts handles the text of the value tested for a string.
func (f *follower) texts(s *ssa.Call) {
	refs := s.Referrers()
	if refs == nil {
		return
	}
	for _, ins := range *refs {
		switch x := ins.(type) {
		case *ssa.BinOp:
			if x.Op == token.EQL || x.Op == token.NEQ {
				f.compare(s, x)
			}
		case *ssa.Call:
			fn := callee(&x.Call)
			if !f.a.text2[fn] {
				continue
			}
			for _, a := range x.Call.Args {
				k, ok := a.(*ssa.Const)
				if !ok || k.Value == nil || k.Value.Kind() != constant.String {
					continue
				}
				lit := constant.StringVal(k.Value)
				f.hop(x.Pos(), report.LayerHop{Kind: "by-text", Object: qualified(fn), Value: strconv.Quote(lit),
					Match: lit != "" && strings.Contains(f.a.text, lit)})
			}
		}
	}
}

// recognised handles what the code does where the value compared equal
// to the sentinel: a return of a constructor's result is what the signal
// becomes.
func (f *follower) recognised(b *ssa.BinOp) {
	refs := b.Referrers()
	if refs == nil {
		return
	}
	for _, r := range *refs {
		iff, ok := r.(*ssa.If)
		if !ok {
			continue
		}
		succ := iff.Block().Succs[0]
		if b.Op == token.NEQ {
			succ = iff.Block().Succs[1]
		}
		for _, r := range returned(iff.Block(), succ) {
			ret, i := r.ret, r.i
			{
				call := callOf(r.v)
				if call == nil {
					continue
				}
				g := call.Call.StaticCallee()
				if g == nil {
					continue
				}
				name := callpathName(g)
				f.hop(call.Pos(), report.LayerHop{Kind: "becomes", Object: name, Value: f.message(call)})
				if o, ok := g.Object().(*types.Func); ok {
					f.a.funcs[name] = o
				}
				f.a.status(f.q, g)
				f.returns(ret.Parent(), i)
			}
		}
	}
}

// message is a constructor call's first string argument: its constant, or
// the expression as written.
func (f *follower) message(c *ssa.Call) string {
	for _, a := range c.Call.Args {
		if k, ok := a.(*ssa.Const); ok && k.Value != nil && k.Value.Kind() == constant.String {
			return strconv.Quote(constant.StringVal(k.Value))
		}
	}
	for _, n := range f.a.p.path(c.Pos(), c.Pos()) {
		if ce, ok := n.(*ast.CallExpr); ok && ce.Lparen == c.Pos() {
			for _, a := range ce.Args {
				if tv, ok := f.a.p.info[f.a.p.file(a.Pos())].Types[a]; ok && isString(tv.Type) {
					return f.a.p.src(a)
				}
			}
		}
	}
	return ""
}

// callOf is the call a value is, seen through conversions to interfaces.
func callOf(v ssa.Value) *ssa.Call {
	c, _ := callpath.Unconvert(v).(*ssa.Call)
	return c
}

// reachableReturns are the returns that the block succ leads to from the
// branch in from, without going round a loop back past from.
func reachableReturns(from, succ *ssa.BasicBlock) []*ssa.Return {
	var out []*ssa.Return
	for _, r := range returned(from, succ) {
		if r.i == 0 {
			out = append(out, r.ret)
		}
	}
	return out
}

// result is what a return returns at index i: v, seen through a named
// result's variable to what the branch stored in it.
type result struct {
	ret *ssa.Return
	i   int
	v   ssa.Value
}

// returned are the results of the returns reachableReturns finds, each
// with the value the branch gives it.
func returned(from, succ *ssa.BasicBlock) []result {
	var out []result
	seen := map[*ssa.BasicBlock]bool{}
	var path []*ssa.BasicBlock
	work := []*ssa.BasicBlock{succ}
	for len(work) > 0 {
		b := work[0]
		work = work[1:]
		if seen[b] || b.Dominates(from) {
			continue
		}
		seen[b] = true
		path = append(path, b)
		n := len(b.Instrs)
		if n == 0 {
			continue
		}
		if r, ok := b.Instrs[n-1].(*ssa.Return); ok {
			if len(r.Results) == 0 {
				out = append(out, result{ret: r, i: 0})
			}
			for i, v := range r.Results {
				out = append(out, result{ret: r, i: i, v: stored(v, path)})
			}
		}
		work = append(work, b.Succs...)
	}
	return out
}

// stored sees through a load of a local variable (a named result) to the
// last value stored in it in blocks.
func stored(v ssa.Value, blocks []*ssa.BasicBlock) ssa.Value {
	u, ok := v.(*ssa.UnOp)
	if !ok || u.Op != token.MUL {
		return v
	}
	al, ok := u.X.(*ssa.Alloc)
	if !ok {
		return v
	}
	out := v
	for _, b := range blocks {
		for _, ins := range b.Instrs {
			if st, ok := ins.(*ssa.Store); ok && st.Addr == al {
				out = st.Val
			}
		}
	}
	return out
}

// branch handles the branch a predicate of the value decides: the returns
// it leads to.
func (f *follower) branch(call *ssa.Call, pred string) {
	refs := call.Referrers()
	if refs == nil {
		return
	}
	for _, r := range *refs {
		iff, ok := r.(*ssa.If)
		if !ok {
			continue
		}
		for _, ret := range reachableReturns(iff.Block(), iff.Block().Succs[0]) {
			f.hop(ret.Pos(), report.LayerHop{Kind: "return", Object: callpathName(ret.Parent()), Value: f.returnText(ret), Of: pred})
		}
	}
}

// returnText is a return statement as written ("return nil").
func (f *follower) returnText(ret *ssa.Return) string {
	for _, n := range f.a.p.path(ret.Pos(), ret.Pos()) {
		if rs, ok := n.(*ast.ReturnStmt); ok {
			return f.a.p.src(rs)
		}
	}
	return "return"
}

// tests are the comparisons with named constants that a predicate (and the
// predicates it calls, depth deep) makes.
func (f *follower) tests(g *ssa.Function, of string, depth int, seen map[*ssa.Function]bool) {
	if seen[g] || depth == 0 {
		return
	}
	seen[g] = true
	for _, b := range g.Blocks {
		for _, ins := range b.Instrs {
			switch x := ins.(type) {
			case *ssa.BinOp:
				if x.Op != token.EQL && x.Op != token.NEQ {
					continue
				}
				be := f.a.binaryAt(x.Pos())
				if be == nil {
					continue
				}
				for _, e := range []ast.Expr{be.X, be.Y} {
					k, ok := f.a.p.obj(e).(*types.Const)
					if !ok || k.Pkg() == nil {
						continue
					}
					f.hop(x.Pos(), report.LayerHop{Kind: "tests", Object: objName(k), Value: show(k.Val(), k.Type()), Of: of})
				}
			case *ssa.Call:
				if h := x.Call.StaticCallee(); h != nil && len(h.Blocks) > 0 && isBool(x.Type()) {
					f.tests(h, of, depth-1, seen)
				}
			}
		}
	}
}

// log records a log call: its level, its verbosity and its format.
func (f *follower) log(ins ssa.CallInstruction, level string) {
	c := ins.Common()
	h := report.LayerHop{Kind: "log", Object: qualified(callee(c)), Level: level}
	if c.IsInvoke() || c.Signature().Recv() != nil {
		recv := c.Value
		if !c.IsInvoke() && len(c.Args) > 0 {
			recv = c.Args[0]
		}
		h.Verbosity = f.a.verbosity(recv)
	}
	for _, a := range c.Args {
		if k, ok := a.(*ssa.Const); ok && k.Value != nil && k.Value.Kind() == constant.String {
			h.Value = strconv.Quote(constant.StringVal(k.Value))
			break
		}
	}
	f.hop(ins.Pos(), h)
}

// event records an event made with the value: a variable of the event
// type whose kind field is set to a named constant.
func (f *follower) event(alloc *ssa.Alloc) {
	if f.seen[alloc] {
		return
	}
	pt, ok := alloc.Type().(*types.Pointer)
	if !ok || !types.Identical(pt.Elem(), f.a.event) {
		return
	}
	refs := alloc.Referrers()
	if refs == nil {
		return
	}
	var uses []ssa.Instruction
	for _, r := range *refs {
		uses = append(uses, r)
		// A variable set from a composite literal is a copy of the
		// literal's own variable: its fields are stored there.
		if st, ok := r.(*ssa.Store); ok && st.Addr == alloc {
			if u, ok := st.Val.(*ssa.UnOp); ok && u.Op == token.MUL {
				if lit, ok := u.X.(*ssa.Alloc); ok && lit.Referrers() != nil {
					uses = append(uses, *lit.Referrers()...)
				}
			}
		}
	}
	for _, r := range uses {
		fa, ok := r.(*ssa.FieldAddr)
		if !ok || fa.Field != f.a.kindIndex {
			continue
		}
		for _, s := range *fa.Referrers() {
			st, ok := s.(*ssa.Store)
			if !ok {
				continue
			}
			k, ok := st.Val.(*ssa.Const)
			if !ok {
				continue
			}
			if named := f.a.constNamed(k); named != nil {
				pos := st.Pos()
				if !pos.IsValid() {
					pos = alloc.Pos()
				}
				f.hop(pos, report.LayerHop{Kind: "event", Object: objName(named), Value: show(named.Val(), named.Type())})
				f.a.consts[objName(named)] = named
			}
		}
	}
}

// receives starts the layer where an event's kind is compared with k: the
// error the branch returns, made from the event, carries the signal on.
func (f *follower) receives(k *types.Const) bool {
	found := false
	for _, g := range f.a.p.funcs {
		if !inLayer(g, f.layer) {
			continue
		}
		for _, b := range g.Blocks {
			for _, ins := range b.Instrs {
				bo, ok := ins.(*ssa.BinOp)
				if !ok || bo.Op != token.EQL {
					continue
				}
				be := f.a.binaryAt(bo.Pos())
				if be == nil || (f.a.p.obj(be.X) != k && f.a.p.obj(be.Y) != k) {
					continue
				}
				refs := bo.Referrers()
				if refs == nil {
					continue
				}
				for _, r := range *refs {
					iff, ok := r.(*ssa.If)
					if !ok {
						continue
					}
					for _, r := range returned(iff.Block(), iff.Block().Succs[0]) {
						{
							call := callOf(r.v)
							if call == nil || !callpath.IsError(call.Type()) {
								continue
							}
							found = true
							f.hop(bo.Pos(), report.LayerHop{Kind: "receives", Object: objName(k), Value: show(k.Val(), k.Type())})
							f.hop(call.Pos(), report.LayerHop{Kind: "error", Object: qualified(callee(&call.Call))})
							f.track(call)
						}
					}
				}
			}
		}
	}
	return found
}
