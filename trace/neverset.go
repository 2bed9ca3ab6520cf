package trace

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/roots"
	"github.com/srctrace/srctrace/trace/sites"
	"github.com/srctrace/srctrace/trace/study"
)

// fieldWrites indexes, over the tool's code loaded from source, the
// stores into each struct field: the value stored and the function that
// stores it. A field's value can come only from such a store, or from a
// copy of a struct that holds it (which copies what some store put
// there), or from code the index does not see (opaque, escaped).
type fieldWrites struct {
	stores map[*types.Var][]fieldStore
	// opaque are the functions that hand a value that can hold a
	// struct (a pointer to it, a slice of them, a struct holding one) on
	// as an interface value (a decoder given it may fill any of its
	// fields), outside the request's stubs and the type's own methods,
	// with the types they hand on, each followed by the interface's. escaped are the fields whose address
	// is taken for anything but a store into it or a load from it (a
	// flag parser or a decoder handed `&req.Revision`). exported are the
	// packages whose exported fields code not loaded from source may
	// write (those that a package read only from export data imports).
	opaque   map[*ssa.Function][]types.Type
	escaped  map[*types.Var]bool
	exported map[*types.Package]bool
	// src are the packages loaded from source.
	src map[*types.Package]bool
	// memo holds setters' answers; carried, whether a type handed on
	// as an interface value can hold an owner's (carries), by the two.
	memo    map[*types.Var]setterSet
	carried map[[2]types.Type]bool
}

// fieldStore is a store into a field: the function that makes it, the
// value stored, and the struct type stored into.
type fieldStore struct {
	fn    *ssa.Function
	val   ssa.Value
	owner types.Type
}

// fieldStores calls each for every store of fn into a field of a struct
// it reaches through a pointer: the field, the struct type and the store.
func fieldStores(fn *ssa.Function, each func(v *types.Var, owner types.Type, st *ssa.Store)) {
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
			if v := fieldVar(fa.X.Type(), fa.Field); v != nil {
				each(v, fa.X.Type().Underlying().(*types.Pointer).Elem(), st)
			}
		}
	}
}

// setterSet are the functions whose runs may store a value other than
// zero into a field (ok false: not known).
type setterSet struct {
	fns map[*ssa.Function]bool
	ok  bool
	// makers are those of fns that only make and return the function
	// literal that stores (an option's constructor), never storing
	// themselves; owners the struct types such literals store into.
	makers map[*ssa.Function]bool
	owners []types.Type
}

// srcPkg is the package of fn's code: its own, or for an instance of a
// generic function, its origin's.
func srcPkg(fn *ssa.Function) *ssa.Package {
	if fn.Pkg == nil && fn.Origin() != nil {
		return fn.Origin().Pkg
	}
	return fn.Pkg
}

// newFieldWrites reads g's code loaded from source; stubs are the
// request's stubs, whose hand-off of the request to the transport is no
// write of it.
func newFieldWrites(g *callpath.Graph, stubs map[*ssa.Function]bool) *fieldWrites {
	fw := &fieldWrites{stores: map[*types.Var][]fieldStore{}, opaque: map[*ssa.Function][]types.Type{}, escaped: map[*types.Var]bool{},
		exported: map[*types.Package]bool{}, memo: map[*types.Var]setterSet{}}
	src := map[*types.Package]bool{}
	for _, p := range g.Pkgs {
		src[p.Pkg] = true
	}
	fw.src = src
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
		if p := srcPkg(fn); fn.Blocks != nil && p != nil && src[p.Pkg] {
			fns = append(fns, fn)
		}
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].Pos() < fns[j].Pos() })
	for _, fn := range fns {
		fieldStores(fn, func(v *types.Var, owner types.Type, st *ssa.Store) {
			fw.stores[v] = append(fw.stores[v], fieldStore{fn, st.Val, owner})
		})
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				switch x := ins.(type) {
				case *ssa.FieldAddr:
					v := fieldVar(x.X.Type(), x.Field)
					if v == nil || x.Referrers() == nil {
						continue
					}
					for _, r := range *x.Referrers() {
						switch u := r.(type) {
						case *ssa.Store:
							if u.Addr == x && u.Val != ssa.Value(x) {
								continue
							}
						case *ssa.UnOp:
							if u.Op == token.MUL {
								continue
							}
						case *ssa.DebugRef:
							continue
						case *ssa.FieldAddr, *ssa.IndexAddr:
							continue // a part of it: its own stores are indexed
						}
						fw.escaped[v] = true
					}
				case *ssa.MakeInterface:
					if stubs[fn] || isNilConst(x.X) {
						continue
					}
					if tn := pointee(x.X.Type()); tn != nil && methodOf(fn, tn) {
						continue
					}
					fw.opaque[litMaker(fn)] = append(fw.opaque[litMaker(fn)], x.X.Type(), x.Type())
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

// carries reports whether a value of type t can hold a value of one of
// targets: the type itself, through pointers, slices, arrays, maps,
// channels and struct fields (of types whose packages are in src, when
// src is given), and, with funcs (a value's flow, not a decoder's
// reach), an interface one of targets (or a pointer to it) implements.
func carries(t types.Type, targets []types.Type, funcs bool, src map[*types.Package]bool, seen map[types.Type]bool) bool {
	for _, x := range targets {
		if types.Identical(t, x) {
			return true
		}
	}
	if seen[t] {
		return false
	}
	seen[t] = true
	if n, ok := types.Unalias(t).(*types.Named); ok && src != nil && n.Obj().Pkg() != nil && !src[n.Obj().Pkg()] {
		// A type of code read only from export data: that code is handed
		// the value only by a call or a conversion the flow meets.
		if _, isIface := n.Underlying().(*types.Interface); !isIface {
			return false
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Pointer:
		return carries(u.Elem(), targets, funcs, src, seen)
	case *types.Slice:
		return carries(u.Elem(), targets, funcs, src, seen)
	case *types.Array:
		return carries(u.Elem(), targets, funcs, src, seen)
	case *types.Chan:
		return carries(u.Elem(), targets, funcs, src, seen)
	case *types.Map:
		return carries(u.Key(), targets, funcs, src, seen) || carries(u.Elem(), targets, funcs, src, seen)
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if carries(u.Field(i).Type(), targets, funcs, src, seen) {
				return true
			}
		}
	case *types.Signature:
		// A function of another type is made by code the flow meets (a
		// literal that captures the value, which the flow takes as
		// reaching).
		return false
	case *types.Interface:
		// A value put in an interface was converted to it where it was:
		// a decoder's rule finds that conversion itself.
		if !funcs {
			return false
		}
		for _, x := range targets {
			if types.Implements(x, u) || types.Implements(types.NewPointer(x), u) {
				return true
			}
		}
	case *types.Tuple:
		for i := 0; i < u.Len(); i++ {
			if carries(u.At(i).Type(), targets, funcs, src, seen) {
				return true
			}
		}
	}
	return false
}

// setters are the functions that make a value other than zero for field
// v in the loaded code: for a store of a constant zero, none; for a copy
// of another field, that field's; for any other value, the function
// that stores it; for a function literal that its enclosing function
// only makes and returns (an option's constructor, not a package's
// initializer), that enclosing function, marked a maker (the literal
// runs only once it made it). Not known when code the index does not
// see may write v: an exported field of a package that code read only
// from export data imports, a field whose address is handed on, or
// copies too deep to follow. The functions that hand on as an interface
// value what can hold v's struct (a decoder may fill it) are setters
// too, for an exported field (reflection sets no other).
func (fw *fieldWrites) setters(v *types.Var, depth int) setterSet {
	if s, ok := fw.memo[v]; ok {
		return s
	}
	if depth > 4 || v.Pkg() == nil || v.Exported() && fw.exported[v.Pkg()] || fw.escaped[v] {
		return setterSet{}
	}
	fw.memo[v] = setterSet{} // a cycle of copies: not known
	out := setterSet{fns: map[*ssa.Function]bool{}, makers: map[*ssa.Function]bool{}, ok: true}
	plain := map[*ssa.Function]bool{}
	follow := func(from *types.Var) bool {
		up := fw.setters(from, depth+1)
		if !up.ok {
			return false
		}
		maps.Copy(out.fns, up.fns)
		maps.Copy(out.makers, up.makers)
		out.owners = append(out.owners, up.owners...)
		return true
	}
	stores := fw.stores[v]
	for _, s := range stores {
		switch x := s.val.(type) {
		case *ssa.Const:
			if isZeroConst(x) {
				continue
			}
		case *ssa.UnOp:
			if fa, ok := x.X.(*ssa.FieldAddr); ok && x.Op == token.MUL {
				if from := fieldVar(fa.X.Type(), fa.Field); from != nil {
					if !follow(from) {
						fw.memo[v] = setterSet{}
						return setterSet{}
					}
					continue
				}
			}
		case *ssa.Field:
			if from := fieldVar(x.X.Type(), x.Field); from != nil {
				if !follow(from) {
					fw.memo[v] = setterSet{}
					return setterSet{}
				}
				continue
			}
		}
		if m := optionMaker(s.fn); m != nil {
			out.fns[m] = true
			out.makers[m] = true
			out.owners = append(out.owners, s.owner)
			continue
		}
		out.fns[s.fn] = true
		plain[s.fn] = true
	}
	for fn := range plain {
		delete(out.makers, fn) // a store of its own: no option's only
	}
	if len(stores) > 0 && v.Exported() {
		owner := stores[0].owner
		// The generated code of the package that declares the struct
		// (its registration, its reflection, its handlers' decoding of
		// what they receive) and its own interfaces (a oneof's, whose
		// methods only its types have) are left out.
		home := v.Pkg()
		for fn, ts := range fw.opaque {
			if p := srcPkg(fn); p != nil && p.Pkg == home {
				continue
			}
			for i := 0; i+1 < len(ts); i += 2 {
				if n, ok := types.Unalias(ts[i+1]).(*types.Named); ok && n.Obj().Pkg() == home {
					continue
				}
				if fw.carries(ts[i], owner) {
					out.fns[fn] = true
					delete(out.makers, fn)
					break
				}
			}
		}
	}
	fw.memo[v] = out
	return out
}

// carries is carries(t, owner) with no flow through functions, memoized:
// setters asks it of the same types for every field of one struct.
func (fw *fieldWrites) carries(t, owner types.Type) bool {
	k := [2]types.Type{t, owner}
	c, ok := fw.carried[k]
	if !ok {
		c = carries(t, []types.Type{owner}, false, nil, map[types.Type]bool{})
		if fw.carried == nil {
			fw.carried = map[[2]types.Type]bool{}
		}
		fw.carried[k] = c
	}
	return c
}

// optionMaker is, for a function literal whose enclosing function only
// returns it (every use of the literal made there is a return), that
// enclosing function, when it is not a package's initializer; nil
// otherwise.
func optionMaker(fn *ssa.Function) *ssa.Function {
	parent := fn.Parent()
	if parent == nil || parent.Synthetic == "package initializer" {
		return nil
	}
	found := false
	for _, b := range parent.Blocks {
		for _, ins := range b.Instrs {
			mc, ok := ins.(*ssa.MakeClosure)
			if !ok || mc.Fn != fn {
				continue
			}
			found = true
			uses := []ssa.Value{mc}
			for len(uses) > 0 {
				u := uses[len(uses)-1]
				uses = uses[:len(uses)-1]
				for _, r := range *u.Referrers() {
					switch x := r.(type) {
					case *ssa.Return, *ssa.DebugRef:
					case *ssa.ChangeType:
						uses = append(uses, x) // to the option's named type
					default:
						return nil
					}
				}
			}
		}
	}
	if !found {
		return nil
	}
	return parent
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

// requestField is a field of a request, or of a struct a request holds,
// and the struct type it is a field of.
type requestField struct {
	owner *types.TypeName
	v     *types.Var
}

// requestFields are the exported fields of the struct a stub's request
// parameter (of its signature sig) points to, and of the structs it holds through fields,
// pointers, slices, arrays and maps, and through a sealed interface
// (one with an unexported method: only its package's types implement
// it, such as a protobuf oneof's wrappers), those of each of its
// package's types that implements it; but fields that hold a struct by
// value (set by stores into their own fields).
func requestFields(sig *types.Signature) []requestField {
	for i := 0; i < sig.Params().Len(); i++ {
		tn := pointee(sig.Params().At(i).Type())
		if tn == nil {
			continue
		}
		if _, ok := tn.Type().Underlying().(*types.Struct); !ok {
			continue
		}
		var out []requestField
		seen := map[*types.TypeName]bool{}
		var visit func(t types.Type)
		visit = func(t types.Type) {
			switch u := t.(type) {
			case *types.Pointer:
				visit(u.Elem())
				return
			case *types.Slice:
				visit(u.Elem())
				return
			case *types.Array:
				visit(u.Elem())
				return
			case *types.Map:
				visit(u.Key())
				visit(u.Elem())
				return
			}
			n, ok := t.(*types.Named)
			if !ok || seen[n.Obj()] {
				return
			}
			seen[n.Obj()] = true
			switch u := n.Underlying().(type) {
			case *types.Struct:
				for j := 0; j < u.NumFields(); j++ {
					f := u.Field(j)
					if _, isStruct := f.Type().Underlying().(*types.Struct); f.Exported() && !isStruct {
						out = append(out, requestField{n.Obj(), f})
					}
					visit(f.Type())
				}
			case *types.Interface:
				for _, impl := range sealedImpls(n, u) {
					visit(impl)
				}
			}
		}
		visit(tn.Type())
		return out
	}
	return nil
}

// sealedImpls are the types of n's package that implement interface n
// (u, its underlying type), when it has an unexported method, which no
// other package's type can have; none otherwise.
func sealedImpls(n *types.Named, u *types.Interface) []types.Type {
	sealed := false
	for i := 0; i < u.NumMethods(); i++ {
		sealed = sealed || !u.Method(i).Exported()
	}
	if !sealed || n.Obj().Pkg() == nil {
		return nil
	}
	var out []types.Type
	scope := n.Obj().Pkg().Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || tn.IsAlias() {
			continue
		}
		if _, isIface := tn.Type().Underlying().(*types.Interface); isIface {
			continue
		}
		for _, t := range []types.Type{tn.Type(), types.NewPointer(tn.Type())} {
			if types.Implements(t, u) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// reach is what the tool's code runs from fn: the functions its call
// graph reaches, and every function whose value a reached function takes
// (a literal it makes, a function it hands on), which code read only
// from export data (a library's callback) may call.
func (f *errorFlow) reach(fn *ssa.Function) map[*ssa.Function]bool {
	if r, ok := f.reached[fn]; ok {
		return r
	}
	out := map[*ssa.Function]bool{fn: true}
	work := []*ssa.Function{fn}
	add := func(x *ssa.Function) {
		if x != nil && !out[x] {
			out[x] = true
			work = append(work, x)
		}
	}
	for len(work) > 0 {
		x := work[len(work)-1]
		work = work[:len(work)-1]
		if n := f.g.CG.Nodes[x]; n != nil {
			for _, e := range n.Out {
				add(e.Callee.Func)
			}
		}
		for _, b := range x.Blocks {
			for _, ins := range b.Instrs {
				var ops [8]*ssa.Value
				for _, o := range ins.Operands(ops[:0]) {
					if o == nil {
						continue
					}
					switch v := (*o).(type) {
					case *ssa.Function:
						add(v)
					case *ssa.MakeClosure:
						add(v.Fn.(*ssa.Function))
					}
				}
			}
		}
	}
	if f.reached == nil {
		f.reached = map[*ssa.Function]map[*ssa.Function]bool{}
	}
	f.reached[fn] = out
	return out
}

// neverSets are the fields of method's request (qualified,
// "pkg.Type.Field") that command run's code never sets: no function that
// may make a value other than zero for one (setters) is reached from run
// (reach), in its goroutine or in those it starts, nor from the package
// initializers of the tool's code, which run before it; an option's
// constructor counts only where what it makes can be handed to a call
// that sends the method (optionReaches). None of a field whose writes
// the loaded code may not show.
func (f *errorFlow) neverSets(run *ssa.Function, method string) []string {
	if f.g == nil {
		return nil
	}
	if f.fw == nil {
		f.fw = newFieldWrites(f.g, f.stubs)
	}
	var stubs []*ssa.Function
	for st, m := range f.method {
		if m == method {
			stubs = append(stubs, st)
		}
	}
	if len(stubs) == 0 {
		return nil
	}
	sort.Slice(stubs, func(i, j int) bool { return stubs[i].Pos() < stubs[j].Pos() })
	fields := requestFields(stubs[0].Signature)
	reach := maps.Clone(f.reach(run))
	if f.inits == nil {
		// What the program's package initializers run comes before any
		// command: a function literal one makes may run in it.
		// By calls only: the functions an initializer takes the value
		// of it registers (a command's run), to be called later by what
		// reaches them.
		f.inits = map[*ssa.Function]bool{}
		for _, p := range f.g.Pkgs {
			if fn := p.Func("init"); fn != nil {
				maps.Copy(f.inits, f.g.Reachable(fn))
			}
		}
	}
	maps.Copy(reach, f.inits)
	var out []string
	for _, rf := range fields {
		v := rf.v
		s := f.fw.setters(v, 0)
		if !s.ok {
			continue
		}
		set := false
		for fn := range s.fns {
			// An option's constructor sets the field only where what it
			// makes can reach the method's request.
			if reach[fn] && (!s.makers[fn] || f.optionReaches(fn, reach, stubs, s.owners)) {
				set = true
				break
			}
		}
		if set {
			continue
		}
		out = append(out, rf.owner.Pkg().Path()+"."+rf.owner.Name()+"."+v.Name())
	}
	return out
}

// optionReaches reports whether what a call of maker (a function that
// makes and returns a function literal: an option) made where reach runs
// it can be handed to a call from which one of stubs is reached. Its
// result is followed into the slices it is put in, the appends and phis
// of them, loads of their elements, and the calls it or they are handed
// to; a call from which no stub is reached passes it on in its results
// when they can hold it or a struct the literal stores into (owners),
// and may store it through another argument that can: that counts as
// reaching. Any other use (a store elsewhere, a return, a conversion) is
// taken to reach.
func (f *errorFlow) optionReaches(maker *ssa.Function, reach map[*ssa.Function]bool, stubs []*ssa.Function, owners []types.Type) bool {
	n := f.g.CG.Nodes[maker]
	if n == nil {
		return true
	}
	targets := append([]types.Type{maker.Signature.Results().At(0).Type()}, owners...)
	for _, e := range n.In {
		if e.Caller == nil || !reach[e.Caller.Func] {
			continue
		}
		call, ok := e.Site.(*ssa.Call)
		if !ok {
			return true
		}
		if f.flowReaches(call, stubs, targets) {
			return true
		}
	}
	return false
}

// flowReaches follows value v (see optionReaches).
func (f *errorFlow) flowReaches(v ssa.Value, stubs []*ssa.Function, targets []types.Type) bool {
	seen := map[ssa.Value]bool{}
	work := []ssa.Value{v}
	sends := func(c ssa.CallInstruction) bool {
		edges := f.g.EdgesAt(c)
		if len(edges) == 0 {
			return true
		}
		for _, e := range edges {
			if e.Callee.Func.Blocks == nil {
				return true // code the analysis does not see
			}
			r := f.reach(e.Callee.Func)
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
				// slice literal's backing array): follow the array.
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
				work = append(work, u) // its loads
			case *ssa.UnOp:
				if u.Op != token.MUL {
					return true
				}
				work = append(work, u)
			case *ssa.Slice, *ssa.Phi:
				work = append(work, u.(ssa.Value))
			case *ssa.Call:
				if u.Call.Value == x {
					return true // called: what it does is its own
				}
				if b, ok := u.Call.Value.(*ssa.Builtin); ok {
					switch b.Name() {
					case "append":
						work = append(work, u)
					case "len", "cap":
					default:
						return true
					}
					continue
				}
				if sends(u) {
					return true
				}
				// What the call hands back, and what it may store through
				// another argument, may hold it.
				if carries(u.Type(), targets, true, f.fw.src, map[types.Type]bool{}) {
					work = append(work, u)
				}
				for _, a := range u.Call.Args {
					if a != x && carries(a.Type(), targets, true, f.fw.src, map[types.Type]bool{}) {
						return true
					}
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
	// Commands whose requests leave the same fields unset get one answer.
	k := fmt.Sprintf("%s|%d|%d|%s", method, lo, hi, strings.Join(fields, ","))
	if a, ok := w.unsetMemo[k]; ok {
		return a.cond, a.used
	}
	cond, used := w.refutedUnset1(net, method, fields, grpc, lo, hi, written)
	if w.unsetMemo == nil {
		w.unsetMemo = map[string]unsetAnswer{}
	}
	w.unsetMemo[k] = unsetAnswer{cond, used}
	return cond, used
}

// mapValue reports whether use s is the value of a map literal's entry.
func mapValue(s sites.Site) bool {
	if s.Kind != sites.Translation || s.Ident == nil {
		return false
	}
	for _, n := range s.Path {
		if kv, ok := n.(*ast.KeyValueExpr); ok {
			return kv.Value.Pos() <= s.Ident.Pos() && s.Ident.End() <= kv.Value.End()
		}
	}
	return false
}

// unsetAnswer is refutedUnset's answer.
type unsetAnswer struct {
	cond *feasible.Cond
	used []string
}

func (w *whyRun) refutedUnset1(net *roots.Network, method string, fields []string, grpc map[int][]roots.Root, lo, hi int, written map[*types.Var][]*ssa.Function) (*feasible.Cond, []string) {
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
	var servingRoots []roots.Root
	for fn, c := range w.roots {
		if servesRoot(c) {
			serving, servingRoots = append(serving, fn), append(servingRoots, c)
		}
	}
	for si := lo; si < hi; si++ {
		for _, r := range grpc[si] {
			if servesRoot(r) && !slices.Contains(serving, r.Func) {
				serving, servingRoots = append(serving, r.Func), append(servingRoots, r)
			}
		}
	}
	sort.Slice(servingRoots, func(i, j int) bool { return servingRoots[i].Func.Pos() < servingRoots[j].Func.Pos() })
	// A field that the server writes itself, in code a root of the
	// method or an interceptor (which runs before it) reaches (a stream's
	// pinned revision, a lease's ID it makes when the request leaves it
	// 0), is not the request's alone: left out.
	before := slices.Clone(serving)
	for _, c := range w.Roots {
		if _, ok := serverInterceptor(c); ok {
			before = append(before, c.Func)
		}
	}
	var zero []*types.Var
	var used []string
	for i, v := range vars {
		if !slices.ContainsFunc(written[v], func(fn *ssa.Function) bool {
			return slices.ContainsFunc(before, func(r *ssa.Function) bool { return w.reachable(r)[fn] })
		}) {
			zero, used = append(zero, v), append(used, names[i])
		}
	}
	if len(zero) == 0 {
		return nil, nil
	}
	// An error a map literal hands out as an entry's value (a wire error
	// the server's errors are translated into) reaches the user by the
	// ways to those errors' uses, which are not tried here: not decided.
	for si := lo; si < hi && si < len(w.Sites); si++ {
		if mapValue(w.Sites[si].Site) {
			return nil, nil
		}
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
		// Every root that serves the method and reaches the use, kept or
		// not, by every call path to it: when there are too many to try
		// them all, or one crosses a hand-off, it is not decided.
		var rs []roots.Root
		for _, p := range w.Pairs {
			e := w.Entries[p.Entry]
			if p.Site != si || !serves(e.Func) {
				continue
			}
			if len(p.Crossing) > 0 {
				return nil, nil
			}
			if !slices.ContainsFunc(rs, func(r roots.Root) bool { return r.Func == e.Func }) {
				rs = append(rs, w.roots[e.Func])
			}
		}
		for _, r := range grpc[si] {
			if servesRoot(r) && !slices.ContainsFunc(rs, func(x roots.Root) bool { return x.Func == r.Func }) {
				rs = append(rs, r)
			}
		}
		for _, r := range rs {
			e := rootEntry(w.Graph, r)
			paths := w.Graph.Paths(r.Func, s.Func, searchBound)
			if len(paths) == 0 || len(paths) >= searchBound {
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
				// A way that could run with the fields as the request
				// chooses them, and cannot with them left at zero, says
				// why best: the fields it reads decide it.
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
	across := zero
	if changed {
		var alone []string
		var aloneVars []*types.Var
		for i, v := range zero {
			p := firstWay
			p.Zero = []*types.Var{v}
			if res, _ := w.Feas.Check(p); res.Verdict == feasible.No {
				alone, aloneVars = append(alone, used[i]), append(aloneVars, v)
			}
		}
		if len(alone) > 0 {
			used, across = alone, aloneVars
		}
	}
	// The ways across the target's hand-offs, which a root may take
	// beside its calls (a write transaction's proposal to raft), with the
	// fields left at zero: every root that serves the method, to every
	// use, as a run connects them (cross); one that can run, or is not
	// decided, keeps the request from being refuted. They are tried with
	// the fields that refute the first way alone, then, if one can still
	// run, with all (a way that cannot run with some fields at zero
	// cannot with more).
	if !w.refutedAcross(across, servingRoots, lo, hi) && (len(across) == len(zero) || !w.refutedAcross(zero, servingRoots, lo, hi)) {
		return nil, nil
	}
	return first, used
}

// refutedAcross reports whether no way across the target's hand-offs
// from one of rs to a use in [lo, hi) that hands the error on can run
// with fields zero left at zero.
func (w *whyRun) refutedAcross(zero []*types.Var, rs []roots.Root, lo, hi int) bool {
	zf := w.zeroFork(zero)
	for si := lo; si < hi && si < len(zf.Sites); si++ {
		if s := zf.Sites[si]; s.Func == nil || !produces(s.Kind) {
			continue
		}
		for _, c := range rs {
			ei := zf.entry(c)
			zf.fillReach(ei)
			p := study.Pair{Entry: ei, Site: si}
			zf.cross(&p)
			if len(p.Crossing) > 0 && p.Verdict != feasible.No {
				return false
			}
			for _, a := range p.Also {
				if a.Verdict != feasible.No {
					return false
				}
			}
		}
	}
	return true
}

// zeroFork is a fork of w whose checks leave fields zero at zero
// (feasible.Path.Zero), with memos and legs across hand-offs of its own;
// its checker is w's (the checker keys what it memoizes of a path by the
// fields the path leaves at zero too, and what it learns of the program,
// a function's summary, holds for both), and so are the senders of each
// hand-off, which do not depend on the request's fields. One per set of
// fields, kept.
func (w *whyRun) zeroFork(zero []*types.Var) *whyRun {
	var b strings.Builder
	for _, v := range zero {
		fmt.Fprintf(&b, "%p,", v)
	}
	k := b.String()
	if f, ok := w.zeroForks[k]; ok {
		return f
	}
	f := w.fork()
	f.Feas, f.zero, f.shared = w.Feas, zero, w.share().seeded()
	if w.zeroForks == nil {
		w.zeroForks = map[string]*whyRun{}
	}
	w.zeroForks[k] = f
	return f
}

// serverWrites are, per field, the functions of g's code loaded from
// source that store into it (a request handed to them, or a literal they
// build: with the field left zero every read of it is taken as zero),
// outside the package that declares it (whose generated code decodes
// the requests it receives).
func serverWrites(g *callpath.Graph) map[*types.Var][]*ssa.Function {
	out := map[*types.Var][]*ssa.Function{}
	for fn := range g.Funcs {
		p := srcPkg(fn)
		if fn.Blocks == nil || p == nil {
			continue
		}
		fieldStores(fn, func(v *types.Var, _ types.Type, st *ssa.Store) {
			if c, ok := st.Val.(*ssa.Const); v.Pkg() != p.Pkg && (!ok || !isZeroConst(c)) && !slices.Contains(out[v], fn) {
				out[v] = append(out[v], fn)
			}
		})
	}
	return out
}
