package trace

import (
	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/roots"
	"go/constant"
	"go/types"
	"maps"
	"slices"
	"sort"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
)

// fieldWrites indexes, over the tool's code loaded from source, the
// stores into each struct field: the value stored and the function that
// stores it. A field's value can come only from such a store, or from a
// copy of a struct that holds it (which copies what some store put
// there), or from code the index does not see (opaque).
type fieldWrites struct {
	stores map[*types.Var][]fieldStore
	// opaque are, per struct type, the functions that hand a pointer to
	// one on as an interface value (a decoder given it may fill any of
	// its fields), outside the request's stubs and the type's own
	// methods; owner is the struct type of each field stored into.
	// exported are the packages whose exported fields code not loaded
	// from source may write (those that a package read only from export
	// data imports).
	opaque   map[*types.TypeName]map[*ssa.Function]bool
	owner    map[*types.Var]*types.TypeName
	exported map[*types.Package]bool
	// memo holds setters' answers.
	memo map[*types.Var]setterSet
}

type fieldStore struct {
	fn  *ssa.Function
	val ssa.Value
}

// setterSet are the functions whose runs may store a value other than
// zero into a field (ok false: not known).
type setterSet struct {
	fns map[*ssa.Function]bool
	ok  bool
	// makers are those of fns that make the function literal that
	// stores (an option's constructor).
	makers map[*ssa.Function]bool
}

// newFieldWrites reads g's code loaded from source; stubs are the
// request's stubs, whose hand-off of the request to the transport is no
// write of it.
func newFieldWrites(g *callpath.Graph, stubs map[*ssa.Function]bool) *fieldWrites {
	fw := &fieldWrites{stores: map[*types.Var][]fieldStore{}, opaque: map[*types.TypeName]map[*ssa.Function]bool{}, owner: map[*types.Var]*types.TypeName{},
		exported: map[*types.Package]bool{}, memo: map[*types.Var]setterSet{}}
	src := map[*types.Package]bool{}
	for _, p := range g.Pkgs {
		src[p.Pkg] = true
	}
	for _, p := range g.Prog.AllPackages() {
		if src[p.Pkg] {
			continue
		}
		for _, imp := range p.Pkg.Imports() {
			fw.exported[imp] = true
		}
	}
	fns := make([]*ssa.Function, 0, len(g.Funcs))
	for fn := range g.Funcs {
		if fn.Blocks != nil && fn.Pkg != nil && src[fn.Pkg.Pkg] {
			fns = append(fns, fn)
		}
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].Pos() < fns[j].Pos() })
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				switch x := ins.(type) {
				case *ssa.Store:
					if fa, ok := x.Addr.(*ssa.FieldAddr); ok {
						if v := fieldVar(fa.X.Type(), fa.Field); v != nil {
							fw.stores[v] = append(fw.stores[v], fieldStore{fn, x.Val})
							fw.owner[v] = pointee(fa.X.Type())
						}
					}
				case *ssa.MakeInterface:
					tn := pointee(x.X.Type())
					if tn == nil || stubs[fn] || isNilConst(x.X) || methodOf(fn, tn) {
						continue
					}
					if fw.opaque[tn] == nil {
						fw.opaque[tn] = map[*ssa.Function]bool{}
					}
					fw.opaque[tn][litMaker(fn)] = true
				}
			}
		}
	}
	return fw
}

// fieldVar is field i of the struct t points to (or is).
func fieldVar(t types.Type, i int) *types.Var {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	if !ok || i >= st.NumFields() {
		return nil
	}
	return st.Field(i)
}

// pointee is the named type a pointer type points to, or nil.
func pointee(t types.Type) *types.TypeName {
	p, ok := t.Underlying().(*types.Pointer)
	if !ok {
		return nil
	}
	if n, ok := types.Unalias(p.Elem()).(*types.Named); ok {
		return n.Obj()
	}
	return nil
}

// setters are the functions that make a value other than zero for field
// v in the loaded code: for a store of a constant zero, none; for a copy
// of another field, that field's; for any other value, the function
// that stores it, or, for a function literal, the function that makes
// it (the literal runs only once that function made it). Not known when
// code the index does not see may write v: an exported field of a
// package that code read only from export data imports, a field of a
// struct that the loaded code hands on as an interface value (a decoder
// may fill it), or copies too deep to follow.
func (fw *fieldWrites) setters(v *types.Var, depth int) setterSet {
	if s, ok := fw.memo[v]; ok {
		return s
	}
	if depth > 4 || v.Pkg() == nil || v.Exported() && fw.exported[v.Pkg()] {
		return setterSet{}
	}
	fw.memo[v] = setterSet{} // a cycle of copies: not known
	out := setterSet{fns: map[*ssa.Function]bool{}, makers: map[*ssa.Function]bool{}, ok: true}
	for _, s := range fw.stores[v] {
		switch x := s.val.(type) {
		case *ssa.Const:
			if isZeroConst(x) {
				continue
			}
		case *ssa.UnOp:
			if fa, ok := x.X.(*ssa.FieldAddr); ok && x.Op.String() == "*" {
				if from := fieldVar(fa.X.Type(), fa.Field); from != nil {
					up := fw.setters(from, depth+1)
					if !up.ok {
						fw.memo[v] = setterSet{}
						return setterSet{}
					}
					maps.Copy(out.fns, up.fns)
					maps.Copy(out.makers, up.makers)
					continue
				}
			}
		case *ssa.Field:
			if from := fieldVar(x.X.Type(), x.Field); from != nil {
				up := fw.setters(from, depth+1)
				if !up.ok {
					fw.memo[v] = setterSet{}
					return setterSet{}
				}
				maps.Copy(out.fns, up.fns)
				maps.Copy(out.makers, up.makers)
				continue
			}
		}
		out.fns[litMaker(s.fn)] = true
		if s.fn.Parent() != nil {
			out.makers[litMaker(s.fn)] = true
		}
	}
	if tn := fw.owner[v]; tn != nil {
		for fn := range fw.opaque[tn] {
			out.fns[fn] = true
		}
	}
	fw.memo[v] = out
	return out
}

// litMaker is the function that makes fn's literal (its outermost
// enclosing function), or fn.
func litMaker(fn *ssa.Function) *ssa.Function {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	return fn
}

// isZeroConst reports whether c is its type's zero value.
func isZeroConst(c *ssa.Const) bool {
	if c.IsNil() || c.Value == nil {
		return c.IsNil()
	}
	switch c.Value.Kind() {
	case constant.Bool:
		return !constant.BoolVal(c.Value)
	case constant.String:
		return constant.StringVal(c.Value) == ""
	case constant.Int, constant.Float, constant.Complex:
		return constant.Sign(c.Value) == 0
	}
	return false
}

// isNilConst reports whether v is a nil constant (a typed nil handed on
// to register a type).
func isNilConst(v ssa.Value) bool {
	c, ok := v.(*ssa.Const)
	return ok && c.IsNil()
}

// methodOf reports whether fn is a method of tn (or of a pointer to
// it), or a function literal inside one.
func methodOf(fn *ssa.Function, tn *types.TypeName) bool {
	fn = litMaker(fn)
	recv := fn.Signature.Recv()
	if recv == nil {
		return false
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj() == tn
}

// requestFields are the struct a stub's request parameter points to and
// its exported fields.
func (fw *fieldWrites) requestFields(stub *ssa.Function) (*types.TypeName, []*types.Var) {
	sig := stub.Signature
	for i := 0; i < sig.Params().Len(); i++ {
		tn := pointee(sig.Params().At(i).Type())
		if tn == nil {
			continue
		}
		st, ok := tn.Type().Underlying().(*types.Struct)
		if !ok {
			continue
		}
		var out []*types.Var
		for j := 0; j < st.NumFields(); j++ {
			if f := st.Field(j); f.Exported() {
				out = append(out, f)
			}
		}
		return tn, out
	}
	return nil, nil
}

// neverSets are the fields of method's request (qualified,
// "pkg.Type.Field") that command run's code never sets: no function that
// may make a value other than zero for one (setters) is reached from run
// in the tool's call graph, in its goroutine or in those it starts, nor
// from the package initializers of the tool's code, which run before
// it. None of a field whose writes the loaded code may not show.
func (f *errorFlow) neverSets(run *ssa.Function, method string) []string {
	if f.g == nil {
		return nil
	}
	if f.fw == nil {
		f.fw = newFieldWrites(f.g, f.stubs)
	}
	var stub *ssa.Function
	for st, m := range f.method {
		if m == method && (stub == nil || st.Pos() < stub.Pos()) {
			stub = st
		}
	}
	if stub == nil {
		return nil
	}
	tn, fields := f.fw.requestFields(stub)
	reach := maps.Clone(f.g.Reachable(run))
	if f.inits == nil {
		// What the program's package initializers run comes before any
		// command: a function literal one makes may run in it.
		f.inits = map[*ssa.Function]bool{}
		for _, p := range f.g.Pkgs {
			if fn := p.Func("init"); fn != nil {
				maps.Copy(f.inits, f.g.Reachable(fn))
			}
		}
	}
	maps.Copy(reach, f.inits)
	var stubs []*ssa.Function
	for st, m := range f.method {
		if m == method {
			stubs = append(stubs, st)
		}
	}
	var out []string
	for _, v := range fields {
		s := f.fw.setters(v, 0)
		if !s.ok || slices.ContainsFunc(slices.Collect(maps.Keys(s.fns)), func(fn *ssa.Function) bool {
			// An option's constructor sets the field only where what it
			// makes can reach the method's request.
			return reach[fn] && (!s.makers[fn] || f.optionReaches(fn, reach, stubs))
		}) {
			continue
		}
		out = append(out, tn.Pkg().Path()+"."+tn.Name()+"."+v.Name())
	}
	return out
}

// optionReaches reports whether what a call of maker (a function that
// makes and returns a function literal: an option) made where reach runs
// it can be handed to a call from which one of stubs is reached. Its
// result is followed into the slices it is put in, the appends and phis
// of them, and the calls it or they are handed to, as an argument; any
// other use (a store elsewhere, a return, a conversion) is taken to
// reach.
func (f *errorFlow) optionReaches(maker *ssa.Function, reach map[*ssa.Function]bool, stubs []*ssa.Function) bool {
	n := f.g.CG.Nodes[maker]
	if n == nil {
		return true
	}
	for _, e := range n.In {
		if e.Caller == nil || !reach[e.Caller.Func] {
			continue
		}
		call, ok := e.Site.(*ssa.Call)
		if !ok {
			return true // go or defer: what it makes is dropped, but say so
		}
		if f.flowReaches(call, stubs) {
			return true
		}
	}
	return false
}

// flowReaches follows value v (see optionReaches).
func (f *errorFlow) flowReaches(v ssa.Value, stubs []*ssa.Function) bool {
	seen := map[ssa.Value]bool{}
	work := []ssa.Value{v}
	toCall := func(c ssa.CallInstruction) bool {
		if b, ok := c.Common().Value.(*ssa.Builtin); ok {
			return b.Name() != "append" && b.Name() != "len" && b.Name() != "cap"
		}
		edges := f.g.EdgesAt(c)
		if len(edges) == 0 {
			return true
		}
		for _, e := range edges {
			if slices.Contains(stubs, e.Callee.Func) {
				return true
			}
			r := f.g.Reachable(e.Callee.Func)
			if slices.ContainsFunc(stubs, func(st *ssa.Function) bool { return r[st] }) {
				return true
			}
		}
		return false
	}
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		refs := x.Referrers()
		if refs == nil {
			return true
		}
		for _, r := range *refs {
			switch u := r.(type) {
			case *ssa.Store:
				if u.Val != x {
					continue // x is where something is stored
				}
				// Into an element of a local array (a variadic call's or a
				// slice literal's backing array): follow its slices.
				ia, ok := u.Addr.(*ssa.IndexAddr)
				if !ok {
					return true
				}
				a, ok := ia.X.(*ssa.Alloc)
				if !ok {
					return true
				}
				work = append(work, a)
			case *ssa.IndexAddr:
				// The array's elements taken again: its stores are
				// followed from the value stored.
				if u.X != x {
					return true
				}
			case *ssa.Slice:
				work = append(work, u)
			case *ssa.Phi:
				work = append(work, u)
			case *ssa.Call:
				if u.Call.Value == x {
					return true // called: what it does is its own
				}
				if toCall(u) {
					return true
				}
				if b, ok := u.Call.Value.(*ssa.Builtin); ok && b.Name() == "append" {
					work = append(work, u)
				}
			case *ssa.DebugRef:
			default:
				return true
			}
		}
	}
	return false
}

// refutedUnset is, when every way of the gRPC roots that serve method to
// the uses in [lo, hi) that hand the error on is refuted with fields
// (qualified names) left at zero in the request, the condition that
// refutes the first such way, with the fields that the server's code
// names; nil when one such root reaches such a use by a way that can
// still run, or not decided, or across a hand-off, or by no way checked
// here (a root not kept for the use), and when no root serves method.
func (w *whyRun) refutedUnset(net *roots.Network, method string, fields []string, grpc map[int][]roots.Root, lo, hi int, written map[*types.Var][]*ssa.Function) (*feasible.Cond, []string) {
	var vars []*types.Var
	var names []string
	for _, name := range fields {
		if obj, _, err := w.Graph.Lookup(name); err == nil {
			if v, ok := obj.(*types.Var); ok && v.IsField() {
				vars, names = append(vars, v), append(names, name)
			}
		}
	}
	if len(vars) == 0 {
		return nil, nil
	}
	servesRoot := func(c roots.Root) bool {
		m, ok := net.Of(c)
		return ok && m.FullName == method
	}
	serves := func(fn *ssa.Function) bool {
		c, ok := w.roots[fn]
		return ok && servesRoot(c)
	}
	// The roots that serve the method: those kept, and those that reach
	// a use (grpc).
	var serving []*ssa.Function
	for fn, c := range w.roots {
		if servesRoot(c) {
			serving = append(serving, fn)
		}
	}
	for si := lo; si < hi; si++ {
		for _, r := range grpc[si] {
			if servesRoot(r) && !slices.Contains(serving, r.Func) {
				serving = append(serving, r.Func)
			}
		}
	}
	// A field that the server writes itself, in code a root of the
	// method reaches (a stream's pinned revision, a lease's ID it makes
	// when the request leaves it 0), is not the request's alone: left
	// out.
	var zero []*types.Var
	var used []string
	for i, v := range vars {
		if !slices.ContainsFunc(written[v], func(fn *ssa.Function) bool {
			return slices.ContainsFunc(serving, func(r *ssa.Function) bool { return w.reachable(r)[fn] })
		}) {
			zero, used = append(zero, v), append(used, names[i])
		}
	}
	if len(zero) == 0 {
		return nil, nil
	}
	var first *feasible.Cond
	var firstWay feasible.Path
	changed := false
	for si := lo; si < hi && si < len(w.Sites); si++ {
		s := w.Sites[si]
		if s.Func == nil || !produces(s.Kind) {
			continue
		}
		for _, u := range s.Undecided {
			if fn, err := w.Graph.Func(u.Root); err == nil && serves(fn) {
				return nil, nil
			}
		}
		checked := map[*ssa.Function]bool{}
		for _, p := range w.Pairs {
			e := w.Entries[p.Entry]
			if p.Site != si || !serves(e.Func) {
				continue
			}
			if len(p.Crossing) > 0 || len(p.Ways) == 0 {
				return nil, nil
			}
			checked[e.Func] = true
			for _, way := range p.Ways {
				res, _ := w.Feas.Check(feasible.Path{Root: e.Func, Hops: way.Path, Target: s.Instr, Zero: zero,
					RootState: e.Found == "code" && e.Kind == roots.Goroutine, ArgsNonNil: e.Kind.ArgsNonNil()})
				if res.Verdict != feasible.No || res.Because == nil {
					return nil, nil
				}
				// A way that could run with the fields as the request
				// chooses them, and cannot with them left at zero, says
				// why best: the fields it reads decide it.
				if first == nil || way.Res.Verdict != feasible.No && !changed {
					c := *res.Because
					first, changed = &c, way.Res.Verdict != feasible.No
					if changed {
						firstWay = feasible.Path{Root: e.Func, Hops: way.Path, Target: s.Instr,
							RootState: e.Found == "code" && e.Kind == roots.Goroutine, ArgsNonNil: e.Kind.ArgsNonNil()}
					}
				}
			}
		}
		// A root that reaches the use but was not kept for it: its
		// shortest paths, as a pair's are found.
		for _, r := range grpc[si] {
			if !servesRoot(r) || checked[r.Func] {
				continue
			}
			checked[r.Func] = true
			e := rootEntry(w.Graph, r)
			paths := w.Graph.Paths(r.Func, s.Func, w.k)
			if len(paths) == 0 {
				return nil, nil
			}
			for _, path := range paths {
				p := feasible.Path{Root: r.Func, Hops: path, Target: s.Instr,
					RootState: e.Found == "code" && e.Kind == roots.Goroutine, ArgsNonNil: e.Kind.ArgsNonNil()}
				plain, _ := w.Feas.Check(p)
				p.Zero = zero
				res, _ := w.Feas.Check(p)
				if res.Verdict != feasible.No || res.Because == nil {
					return nil, nil
				}
				if first == nil || plain.Verdict != feasible.No && !changed {
					c := *res.Because
					first, changed = &c, plain.Verdict != feasible.No
					if changed {
						p.Zero = nil
						firstWay = p
					}
				}
			}
		}
	}
	if first == nil {
		return nil, nil
	}
	// The fields that, each left at zero alone, refute the way that
	// could run otherwise.
	if changed {
		var alone []string
		for i, v := range zero {
			p := firstWay
			p.Zero = []*types.Var{v}
			if res, _ := w.Feas.Check(p); res.Verdict == feasible.No {
				alone = append(alone, used[i])
			}
		}
		if len(alone) > 0 {
			used = alone
		}
	}
	return first, used
}

// serverWrites are, per field, the functions of g's code loaded from
// source that store into it, in a struct they did not make there (a
// request handed to them: not a literal they build), outside the package
// that declares it (whose generated code decodes the requests it
// receives).
func serverWrites(g *callpath.Graph) map[*types.Var][]*ssa.Function {
	out := map[*types.Var][]*ssa.Function{}
	for fn := range g.Funcs {
		if fn.Blocks == nil || fn.Pkg == nil {
			continue
		}
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				st, ok := ins.(*ssa.Store)
				if !ok {
					continue
				}
				fa, ok := st.Addr.(*ssa.FieldAddr)
				if !ok {
					continue
				}
				if _, made := fa.X.(*ssa.Alloc); made {
					continue
				}
				if v := fieldVar(fa.X.Type(), fa.Field); v != nil && v.Pkg() != fn.Pkg.Pkg {
					if c, ok := st.Val.(*ssa.Const); (!ok || !isZeroConst(c)) && !slices.Contains(out[v], fn) {
						out[v] = append(out[v], fn)
					}
				}
			}
		}
	}
	return out
}
