package callpath

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"
)

// binding says which functions the function-typed parameters of owner can
// hold in one calling context. A parameter absent from funcs is unknown.
type binding struct {
	owner *ssa.Function
	funcs map[*ssa.Parameter]map[*ssa.Function]bool
	key   string
}

type node struct {
	fn  *ssa.Function
	ctx *binding
}

type arc struct {
	to   int
	edge *callgraph.Edge
}

type contexts struct {
	ids       map[string]int
	nodes     []node
	succ      map[int][]arc
	calledPar map[*ssa.Function]bool // has function-typed params that it or its closures call
}

func newContexts() contexts {
	return contexts{ids: map[string]int{}, succ: map[int][]arc{}, calledPar: map[*ssa.Function]bool{}}
}

// node interns (fn, ctx).
func (g *Graph) node(fn *ssa.Function, ctx *binding) int {
	k := fmt.Sprintf("%p", fn)
	if ctx != nil {
		k += "|" + ctx.key
	}
	if id, ok := g.ctx.ids[k]; ok {
		return id
	}
	id := len(g.ctx.nodes)
	g.ctx.nodes = append(g.ctx.nodes, node{fn: fn, ctx: ctx})
	g.ctx.ids[k] = id
	return id
}

// succ returns the successors of node n, computed once.
func (g *Graph) succ(n int) []arc {
	if as, ok := g.ctx.succ[n]; ok {
		return as
	}
	cur := g.ctx.nodes[n]
	var as []arc
	for _, e := range g.out[cur.fn] {
		callee := e.Callee.Func
		if e.Site != nil && cur.ctx != nil {
			if allowed, ok := g.allowed(cur, e.Site); ok && !allowed[callee] {
				continue
			}
		}
		as = append(as, arc{to: g.node(callee, g.enter(cur, e.Site, callee)), edge: e})
	}
	g.ctx.succ[n] = as
	return as
}

// allowed returns the functions a dynamic call in cur may reach when its
// callee value is a parameter bound in cur's context.
func (g *Graph) allowed(cur node, site ssa.CallInstruction) (map[*ssa.Function]bool, bool) {
	c := site.Common()
	if c.IsInvoke() || c.StaticCallee() != nil {
		return nil, false
	}
	p := rootParam(c.Value)
	if p == nil || p.Parent() != cur.ctx.owner {
		return nil, false
	}
	set, ok := cur.ctx.funcs[p]
	return set, ok
}

// enter computes the context in which callee runs when called from cur at
// site: a new binding when callee calls a function-typed parameter and the
// site passes known functions for it; the caller's binding for a closure of
// the bound function; none otherwise.
func (g *Graph) enter(cur node, site ssa.CallInstruction, callee *ssa.Function) *binding {
	if site == nil {
		return nil
	}
	if g.callsParam(callee) {
		c := site.Common()
		var args []ssa.Value
		if c.IsInvoke() {
			args = append([]ssa.Value{c.Value}, c.Args...)
		} else {
			args = c.Args
		}
		b := &binding{owner: callee, funcs: map[*ssa.Parameter]map[*ssa.Function]bool{}}
		for i, p := range callee.Params {
			if i >= len(args) || !isFunc(p.Type()) {
				continue
			}
			if set, ok := g.funcsOf(args[i], cur); ok {
				b.funcs[p] = set
			}
		}
		if len(b.funcs) == 0 {
			return nil
		}
		b.key = bindingKey(b)
		return b
	}
	if cur.ctx != nil && isAncestor(cur.ctx.owner, callee) {
		return cur.ctx
	}
	return nil
}

// callsParam reports whether fn, or a closure inside it, calls one of fn's
// function-typed parameters.
func (g *Graph) callsParam(fn *ssa.Function) bool {
	if v, ok := g.ctx.calledPar[fn]; ok {
		return v
	}
	found := false
	var visit func(f *ssa.Function)
	visit = func(f *ssa.Function) {
		for _, blk := range f.Blocks {
			for _, ins := range blk.Instrs {
				call, ok := ins.(ssa.CallInstruction)
				if !ok {
					continue
				}
				c := call.Common()
				if c.IsInvoke() || c.StaticCallee() != nil {
					continue
				}
				if p := rootParam(c.Value); p != nil && p.Parent() == fn {
					found = true
				}
			}
		}
		for _, a := range f.AnonFuncs {
			visit(a)
		}
	}
	visit(fn)
	g.ctx.calledPar[fn] = found
	return found
}

// funcsOf resolves the functions a value can hold, if it is known from the
// syntax of the call: a function, a closure, a bound method, or a parameter
// bound in the caller's context.
func (g *Graph) funcsOf(v ssa.Value, cur node) (map[*ssa.Function]bool, bool) {
	switch v := v.(type) {
	case *ssa.Function:
		return map[*ssa.Function]bool{unwrap(v): true}, true
	case *ssa.MakeClosure:
		fn, ok := v.Fn.(*ssa.Function)
		if !ok {
			return nil, false
		}
		if fn.Synthetic != "" {
			t := unwrap(fn)
			if t == fn {
				return nil, false // a bound interface method: unknown
			}
			return map[*ssa.Function]bool{t: true}, true
		}
		return map[*ssa.Function]bool{fn: true}, true
	case *ssa.Const:
		if v.IsNil() {
			return map[*ssa.Function]bool{}, true
		}
	case *ssa.ChangeType:
		return g.funcsOf(v.X, cur)
	}
	if p := rootParam(v); p != nil && cur.ctx != nil && p.Parent() == cur.ctx.owner {
		set, ok := cur.ctx.funcs[p]
		return set, ok
	}
	return nil, false
}

// unwrap returns the function a synthetic wrapper (bound method, thunk)
// calls statically, or fn itself.
func unwrap(fn *ssa.Function) *ssa.Function {
	if fn.Synthetic == "" {
		return fn
	}
	for _, blk := range fn.Blocks {
		for _, ins := range blk.Instrs {
			if call, ok := ins.(ssa.CallInstruction); ok {
				if t := call.Common().StaticCallee(); t != nil {
					return t
				}
			}
		}
	}
	return fn
}

// rootParam follows free variables of closures back to the parameter of
// an enclosing function that they are bound to. A parameter that is kept in
// a variable (as SSA does in functions with defer) is followed through the
// load, when the variable's only store is of that parameter.
func rootParam(v ssa.Value) *ssa.Parameter {
	for {
		switch x := v.(type) {
		case *ssa.Parameter:
			return x
		case *ssa.FreeVar:
			b := binding_(x)
			if b == nil {
				return nil
			}
			v = b
		case *ssa.UnOp:
			if x.Op != token.MUL {
				return nil
			}
			addr := x.X
			if fv, ok := addr.(*ssa.FreeVar); ok {
				if addr = binding_(fv); addr == nil {
					return nil
				}
			}
			alloc, ok := addr.(*ssa.Alloc)
			if !ok {
				return nil
			}
			v = onlyStored(alloc)
			if v == nil {
				return nil
			}
		default:
			return nil
		}
	}
}

// binding_ is the value a closure's free variable is bound to.
func binding_(fv *ssa.FreeVar) ssa.Value {
	if bs := FreeVarBindings(fv); len(bs) > 0 {
		return bs[0]
	}
	return nil
}

// FreeVarBindings are the values free variable fv is bound to: one for
// each closure of its function that the function enclosing it makes, in
// the order they are made.
func FreeVarBindings(fv *ssa.FreeVar) []ssa.Value {
	fn := fv.Parent()
	parent := fn.Parent()
	idx := slices.Index(fn.FreeVars, fv)
	if parent == nil || idx < 0 {
		return nil
	}
	var out []ssa.Value
	for _, blk := range parent.Blocks {
		for _, ins := range blk.Instrs {
			if mc, ok := ins.(*ssa.MakeClosure); ok && mc.Fn == fn && idx < len(mc.Bindings) {
				out = append(out, mc.Bindings[idx])
			}
		}
	}
	return out
}

// onlyStored returns the value of the one store to alloc, or nil.
func onlyStored(alloc *ssa.Alloc) ssa.Value {
	var val ssa.Value
	for _, r := range *alloc.Referrers() {
		if st, ok := r.(*ssa.Store); ok && st.Addr == alloc {
			if val != nil {
				return nil
			}
			val = st.Val
		}
	}
	return val
}

func isAncestor(owner, fn *ssa.Function) bool {
	for f := fn.Parent(); f != nil; f = f.Parent() {
		if f == owner {
			return true
		}
	}
	return false
}

func isFunc(t types.Type) bool {
	_, ok := t.Underlying().(*types.Signature)
	return ok
}

func bindingKey(b *binding) string {
	var parts []string
	for p, set := range b.funcs {
		var fs []string
		for f := range set {
			fs = append(fs, fmt.Sprintf("%p", f))
		}
		sort.Strings(fs)
		parts = append(parts, p.Name()+"="+strings.Join(fs, ","))
	}
	sort.Strings(parts)
	return fmt.Sprintf("%p:", b.owner) + strings.Join(parts, ";")
}
