package signal

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
)

// deriver finds the values that carry one struct field's value through a
// program: loads of the field, and, transitively, fields, locals,
// parameters and results it is copied into. It follows copies only, not
// arithmetic: rev-10 is not the compaction revision.
//
// It runs in two passes over the VTA call graph. A forward pass collects
// every field, local, parameter and result that some copy of the value
// reaches. A refinement then keeps only those whose every definition is
// such a copy: a field that is once set from the compaction revision and
// elsewhere from other revisions (currentRev, on restore) does not carry it.
type deriver struct {
	g       *callpath.Graph
	tainted map[ssa.Value]bool
	fields  map[*types.Var]bool
	queue   []ssa.Value

	loads     map[*types.Var][]ssa.Value // loads of each field
	allocLoad map[*ssa.Alloc][]ssa.Value // loads of each local
	stores    map[*types.Var][]ssa.Value // values stored into each field
	allocSet  map[*ssa.Alloc][]ssa.Value // values stored into each local
	returns   map[*ssa.Function][][]ssa.Value

	src     *types.Var
	keepF   map[*types.Var]bool
	keepP   map[*ssa.Parameter]bool
	keepA   map[*ssa.Alloc]bool
	keepR   map[*ssa.Function]map[int]bool
	results map[*ssa.Function]map[int]bool // forward pass
	// Comparisons are the ordering comparisons with a tainted operand.
	Comparisons []*ssa.BinOp
}

func newDeriver(g *callpath.Graph, fns []*ssa.Function) *deriver {
	d := &deriver{g: g, tainted: map[ssa.Value]bool{}, fields: map[*types.Var]bool{},
		loads: map[*types.Var][]ssa.Value{}, allocLoad: map[*ssa.Alloc][]ssa.Value{},
		stores: map[*types.Var][]ssa.Value{}, allocSet: map[*ssa.Alloc][]ssa.Value{},
		returns: map[*ssa.Function][][]ssa.Value{}, results: map[*ssa.Function]map[int]bool{}}
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				switch x := ins.(type) {
				case *ssa.UnOp:
					if x.Op != token.MUL {
						continue
					}
					switch a := x.X.(type) {
					case *ssa.FieldAddr:
						if f := fieldOf(a.X.Type(), a.Field, true); f != nil {
							d.loads[f] = append(d.loads[f], x)
						}
					case *ssa.Alloc:
						d.allocLoad[a] = append(d.allocLoad[a], x)
					}
				case *ssa.Field:
					if f := fieldOf(x.X.Type(), x.Field, false); f != nil {
						d.loads[f] = append(d.loads[f], x)
					}
				case *ssa.Store:
					switch a := x.Addr.(type) {
					case *ssa.FieldAddr:
						if f := fieldOf(a.X.Type(), a.Field, true); f != nil {
							d.stores[f] = append(d.stores[f], x.Val)
						}
					case *ssa.Alloc:
						d.allocSet[a] = append(d.allocSet[a], x.Val)
					}
				case *ssa.Return:
					d.returns[fn] = append(d.returns[fn], x.Results)
				}
			}
		}
	}
	return d
}

// fieldOf returns field i of the struct that t is (or points to).
func fieldOf(t types.Type, i int, ptr bool) *types.Var {
	if ptr {
		p, ok := t.Underlying().(*types.Pointer)
		if !ok {
			return nil
		}
		t = p.Elem()
	}
	s, ok := t.Underlying().(*types.Struct)
	if !ok || i >= s.NumFields() {
		return nil
	}
	return s.Field(i)
}

func (d *deriver) taint(v ssa.Value) {
	if v == nil || d.tainted[v] {
		return
	}
	d.tainted[v] = true
	d.queue = append(d.queue, v)
}

func (d *deriver) taintField(f *types.Var) {
	if d.fields[f] {
		return
	}
	d.fields[f] = true
	for _, l := range d.loads[f] {
		d.taint(l)
	}
}

// run propagates from field src to a fixed point.
func (d *deriver) run(src *types.Var) {
	d.src = src
	d.taintField(src)
	seenCmp := map[*ssa.BinOp]bool{}
	for len(d.queue) > 0 {
		v := d.queue[0]
		d.queue = d.queue[1:]
		refs := v.Referrers()
		if refs == nil {
			continue
		}
		for _, r := range *refs {
			switch x := r.(type) {
			case *ssa.Phi:
				d.taint(x)
			case *ssa.ChangeType:
				d.taint(x)
			case *ssa.Convert:
				d.taint(x)
			case *ssa.BinOp:
				switch x.Op {
				case token.LSS, token.LEQ, token.GTR, token.GEQ:
					if !seenCmp[x] {
						seenCmp[x] = true
						d.Comparisons = append(d.Comparisons, x)
					}
				}
			case *ssa.Store:
				if x.Val != v {
					continue
				}
				switch a := x.Addr.(type) {
				case *ssa.FieldAddr:
					if f := fieldOf(a.X.Type(), a.Field, true); f != nil {
						d.taintField(f)
					}
				case *ssa.Alloc:
					for _, l := range d.allocLoad[a] {
						d.taint(l)
					}
				}
			case *ssa.MakeClosure:
				fn, ok := x.Fn.(*ssa.Function)
				if !ok {
					continue
				}
				for i, b := range x.Bindings {
					if b == v && i < len(fn.FreeVars) {
						d.taint(fn.FreeVars[i])
					}
				}
			case *ssa.Return:
				for i, res := range x.Results {
					if res == v {
						d.taintResult(x.Parent(), i, len(x.Results))
					}
				}
			case ssa.CallInstruction:
				d.taintArgs(x, v)
			}
		}
	}
}

// taintArgs taints the parameters that receive v at a call.
func (d *deriver) taintArgs(site ssa.CallInstruction, v ssa.Value) {
	c := site.Common()
	args := c.Args
	if c.IsInvoke() {
		args = append([]ssa.Value{c.Value}, c.Args...)
	}
	for _, e := range d.g.EdgesAt(site) {
		callee := e.Callee.Func
		off := 0
		if len(callee.Params) == len(args)+1 && callee.Signature.Recv() != nil {
			off = 1 // a bound method: the receiver is not an argument
		}
		for i, a := range args {
			if a == v && i+off < len(callee.Params) {
				d.taint(callee.Params[i+off])
			}
		}
	}
}

// taintResult taints result i of fn at every call of fn.
func (d *deriver) taintResult(fn *ssa.Function, i, n int) {
	if d.results[fn] == nil {
		d.results[fn] = map[int]bool{}
	}
	d.results[fn][i] = true
	node := d.g.CG.Nodes[fn]
	if node == nil {
		return
	}
	for _, e := range node.In {
		call, ok := e.Site.(*ssa.Call)
		if !ok {
			continue
		}
		if n == 1 {
			d.taint(call)
			continue
		}
		for _, r := range *call.Referrers() {
			if ex, ok := r.(*ssa.Extract); ok && ex.Index == i {
				d.taint(ex)
			}
		}
	}
}

// refine keeps the carriers whose every definition derives from the
// source, to a fixed point, and returns the comparisons that still have a
// deriving operand.
func (d *deriver) refine() []*ssa.BinOp {
	d.keepF = map[*types.Var]bool{}
	for f := range d.fields {
		d.keepF[f] = true
	}
	d.keepP = map[*ssa.Parameter]bool{}
	d.keepA = map[*ssa.Alloc]bool{}
	for v := range d.tainted {
		switch x := v.(type) {
		case *ssa.Parameter:
			d.keepP[x] = true
		case *ssa.UnOp:
			if a, ok := x.X.(*ssa.Alloc); ok {
				d.keepA[a] = true
			}
		}
	}
	d.keepR = map[*ssa.Function]map[int]bool{}
	for fn, rs := range d.results {
		d.keepR[fn] = map[int]bool{}
		for i := range rs {
			d.keepR[fn][i] = true
		}
	}
	for changed := true; changed; {
		changed = false
		memo := map[ssa.Value]bool{}
		// Constants (a zero for a write transaction's first revision) are
		// neutral: every other definition must derive, and one at least.
		all := func(vs []ssa.Value) bool {
			some := false
			for _, v := range vs {
				if _, isConst := v.(*ssa.Const); isConst {
					continue
				}
				if !d.derives(v, memo) {
					return false
				}
				some = true
			}
			return some
		}
		for f := range d.keepF {
			if f != d.src && !all(d.stores[f]) {
				delete(d.keepF, f)
				changed = true
			}
		}
		for a := range d.keepA {
			if !all(d.allocSet[a]) {
				delete(d.keepA, a)
				changed = true
			}
		}
		for p := range d.keepP {
			if !all(d.argsOf(p)) {
				delete(d.keepP, p)
				changed = true
			}
		}
		for fn, rs := range d.keepR {
			for i := range rs {
				var vs []ssa.Value
				for _, res := range d.returns[fn] {
					if i < len(res) {
						vs = append(vs, res[i])
					}
				}
				if !all(vs) {
					delete(rs, i)
					changed = true
				}
			}
		}
	}
	memo := map[ssa.Value]bool{}
	var out []*ssa.BinOp
	for _, b := range d.Comparisons {
		if d.derives(b.X, memo) != d.derives(b.Y, memo) {
			out = append(out, b)
		}
	}
	return out
}

// argsOf returns the values passed for parameter p at every call of its
// function; none when the function has no known caller.
func (d *deriver) argsOf(p *ssa.Parameter) []ssa.Value {
	fn := p.Parent()
	idx := -1
	for i, q := range fn.Params {
		if q == p {
			idx = i
		}
	}
	node := d.g.CG.Nodes[fn]
	if node == nil || idx < 0 {
		return nil
	}
	var out []ssa.Value
	for _, e := range node.In {
		if e.Site == nil {
			return nil
		}
		c := e.Site.Common()
		args := c.Args
		if c.IsInvoke() {
			args = append([]ssa.Value{c.Value}, c.Args...)
		}
		off := 0
		if len(fn.Params) == len(args)+1 && fn.Signature.Recv() != nil {
			off = 1
		}
		if j := idx - off; j >= 0 && j < len(args) {
			out = append(out, args[j])
		} else {
			return nil
		}
	}
	return out
}

// derives reports whether v is a copy of the source under the current
// carriers. A cycle (through phis) is taken as deriving, as a greatest
// fixed point does.
func (d *deriver) derives(v ssa.Value, memo map[ssa.Value]bool) bool {
	if r, ok := memo[v]; ok {
		return r
	}
	memo[v] = true // provisional, for cycles
	r := false
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op == token.MUL {
			switch a := x.X.(type) {
			case *ssa.FieldAddr:
				f := fieldOf(a.X.Type(), a.Field, true)
				r = f != nil && d.keepF[f]
			case *ssa.Alloc:
				r = d.keepA[a]
			case *ssa.FreeVar:
				if al, ok := freeBinding(a).(*ssa.Alloc); ok {
					r = d.keepA[al]
				}
			}
		}
	case *ssa.Field:
		f := fieldOf(x.X.Type(), x.Field, false)
		r = f != nil && d.keepF[f]
	case *ssa.Parameter:
		r = d.keepP[x]
	case *ssa.FreeVar:
		if b := freeBinding(x); b != nil {
			r = d.derives(b, memo)
		}
	case *ssa.Phi:
		for _, e := range x.Edges {
			if _, isConst := e.(*ssa.Const); isConst {
				continue
			}
			if !d.derives(e, memo) {
				r = false
				break
			}
			r = true
		}
	case *ssa.ChangeType:
		r = d.derives(x.X, memo)
	case *ssa.Convert:
		r = d.derives(x.X, memo)
	case *ssa.Extract:
		if call, ok := x.Tuple.(*ssa.Call); ok {
			r = d.calleesReturn(call, x.Index)
		}
	case *ssa.Call:
		r = d.calleesReturn(x, 0)
	}
	memo[v] = r
	return r
}

func (d *deriver) calleesReturn(call *ssa.Call, i int) bool {
	es := d.g.EdgesAt(call)
	if len(es) == 0 {
		return false
	}
	for _, e := range es {
		if !d.keepR[e.Callee.Func][i] {
			return false
		}
	}
	return true
}

// freeBinding is the value a closure's free variable is bound to (by
// the first closure of its function made).
func freeBinding(fv *ssa.FreeVar) ssa.Value {
	if bs := callpath.FreeVarBindings(fv); len(bs) > 0 {
		return bs[0]
	}
	return nil
}
