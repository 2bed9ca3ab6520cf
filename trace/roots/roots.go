// Package roots finds, from the code, the functions that something outside
// the program's own calls starts: the methods of gRPC services, HTTP
// handlers, and functions started with a go statement.
//
// # gRPC services
//
// Generated gRPC code declares, for each service, an interface
// (KVServer) and a function that registers an implementation of it
// (RegisterKVServer(s, srv KVServer)). Both are in the export data of
// the generated package, so the service interfaces are found from the
// registration functions' signatures, and the roots are the methods of
// that interface on every type of the loaded source that implements it.
//
// # HTTP handlers
//
// ServeHTTP methods (the http.Handler interface) of the loaded source,
// and the function values passed to HandleFunc.
//
// # Goroutines
//
// The function of every go statement; where the go statement calls a
// function-valued parameter (a helper like GoAttach(f)), the functions
// that the helper's callers pass for it.
//
// # Library callbacks
//
// A function stored in a function field of a struct that a package not
// loaded from source declares (a cobra command's Run) is called back by
// that library.
//
// # Programs
//
// The main function of every main package loaded from source: what runs
// when the program starts. A goroutine whose starter a main function
// reaches is started at start-up (StartUp says which).
//
// # The network
//
// ReadNetwork reads the gRPC methods that generated code declares: for
// each full method name ("/etcdserverpb.KV/Range"), the server interface
// method that serves it, the handler registered for it, and the client
// stubs that send it, all from the generated code's method-name strings.
// Serving answers which roots a client's call of a method reaches.
package roots

import (
	"go/token"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
)

// Kind is what starts a root.
type Kind string

// The kinds.
const (
	GRPC      Kind = "grpc"
	HTTP      Kind = "http"
	Goroutine Kind = "goroutine"
	Main      Kind = "main"
	// Callback is a function a library calls back: stored in a function
	// field of a struct of a package not loaded from source (Service
	// names the field, "cobra.Command.Run").
	Callback Kind = "callback"
)

// ArgsNonNil reports whether a root of kind k is always handed pointers
// that are not nil: a gRPC method's request, which its generated handler
// decodes into a message it allocates; an HTTP handler's request, which
// net/http makes for each one it reads.
func (k Kind) ArgsNonNil() bool { return k == GRPC || k == HTTP }

// Root is a function started from outside the program's calls.
type Root struct {
	Func *ssa.Function
	Kind Kind
	// Service is the gRPC service interface ("etcdserverpb.KVServer"), or
	// empty; Iface is that interface, qualified
	// ("go.etcd.io/etcd/api/v3/etcdserverpb.KVServer").
	Service, Iface string
	// Starter is the function that starts a goroutine (its go statement,
	// or the call that hands a helper the function), registers an HTTP
	// handler function or makes a gRPC callback; At is where. Nil for a
	// gRPC method, a ServeHTTP method and a main function.
	Starter *ssa.Function
	At      token.Pos
	// Helper, for a goroutine that a helper starts for the function
	// handed to it (GoAttach(f)), is that helper: Starter hands it the
	// function at At, and the helper's go statement starts it.
	Helper *ssa.Function
}

// Find returns the roots in the functions of the source packages of g
// (those whose files were loaded), sorted by kind and name.
func Find(g *callpath.Graph) []Root {
	src := map[*ssa.Package]bool{}
	for _, p := range g.Pkgs {
		src[p] = true
	}
	seen := map[*ssa.Function]bool{}
	var out []Root
	add := func(fn *ssa.Function, k Kind, svc string) *Root {
		if fn == nil || seen[fn] || fn.Synthetic != "" || fn.Blocks == nil {
			return nil
		}
		seen[fn] = true
		out = append(out, Root{Func: fn, Kind: k, Service: svc})
		return &out[len(out)-1]
	}
	// started adds a root that starter starts (or registers) at pos.
	started := func(fn *ssa.Function, k Kind, starter *ssa.Function, pos token.Pos) {
		if r := add(fn, k, ""); r != nil {
			r.Starter, r.At = starter, pos
		}
	}
	// gRPC: service interfaces from the Register…Server functions, and the
	// packages of the loaded source that call them.
	var ifaces []*types.Named
	registers := map[*types.Named]*types.Func{}
	for _, p := range g.Prog.AllPackages() {
		sc := p.Pkg.Scope()
		for _, name := range sc.Names() {
			fn, ok := sc.Lookup(name).(*types.Func)
			if !ok || !strings.HasPrefix(name, "Register") || !strings.HasSuffix(name, "Server") {
				continue
			}
			sig := fn.Type().(*types.Signature)
			if sig.Params().Len() != 2 {
				continue
			}
			n, ok := sig.Params().At(1).Type().(*types.Named)
			if !ok || n.Obj().Name() != strings.TrimPrefix(name, "Register") {
				continue
			}
			if _, isIface := n.Underlying().(*types.Interface); isIface {
				ifaces = append(ifaces, n)
				registers[n] = fn
			}
		}
	}
	sort.Slice(ifaces, func(i, j int) bool { return typeName(ifaces[i]) < typeName(ifaces[j]) })
	var named []*types.Named
	for _, p := range g.Pkgs {
		sc := p.Pkg.Scope()
		for _, name := range sc.Names() {
			if tn, ok := sc.Lookup(name).(*types.TypeName); ok && !tn.IsAlias() {
				if n, ok := tn.Type().(*types.Named); ok {
					if _, isIface := n.Underlying().(*types.Interface); !isIface {
						named = append(named, n)
					}
				}
			}
		}
	}
	registeredIn := registrations(g, src)
	for _, iface := range ifaces {
		it := iface.Underlying().(*types.Interface)
		// A service registered by the loaded source is served by the types
		// of the packages that register it (not by every type that happens
		// to have its methods, such as the server the handlers call).
		by := registeredIn[registers[iface]]
		// A type of those packages that embeds the service interface wraps
		// another server (a quota check before the call): a method it
		// declares itself is what gRPC runs, and the wrapped server's
		// method of that name runs only from it.
		wrapped := map[string]bool{}
		for _, n := range named {
			if (len(by) == 0 || by[n.Obj().Pkg()]) && embeds(n, iface) {
				for i := 0; i < n.NumMethods(); i++ {
					wrapped[n.Method(i).Name()] = true
				}
			}
		}
		for _, n := range named {
			if len(by) > 0 && !by[n.Obj().Pkg()] {
				continue
			}
			var recv types.Type = n
			if !types.Implements(recv, it) {
				recv = types.NewPointer(n)
				if !types.Implements(recv, it) {
					continue
				}
			}
			ms := g.Prog.MethodSets.MethodSet(recv)
			wrapper := embeds(n, iface)
			for i := 0; i < it.NumMethods(); i++ {
				m := it.Method(i)
				sel := ms.Lookup(m.Pkg(), m.Name())
				if sel == nil {
					continue
				}
				if wrapped[m.Name()] && !wrapper {
					continue // served by the wrapper's own method
				}
				if r := add(g.Prog.MethodValue(sel), GRPC, typeName(iface)); r != nil {
					r.Iface = iface.Obj().Pkg().Path() + "." + iface.Obj().Name()
				}
			}
		}
	}
	// HTTP: ServeHTTP methods, and functions passed to HandleFunc.
	for _, n := range named {
		for _, recv := range []types.Type{n, types.NewPointer(n)} {
			ms := g.Prog.MethodSets.MethodSet(recv)
			for i := 0; i < ms.Len(); i++ {
				sel := ms.At(i)
				if sel.Obj().Name() == "ServeHTTP" && isServeHTTP(sel.Type().(*types.Signature)) {
					if fn := g.Prog.MethodValue(sel); fn != nil && src[fn.Pkg] {
						add(fn, HTTP, "")
					}
				}
			}
		}
	}
	var fns []*ssa.Function
	for fn := range g.CG.Nodes {
		if fn != nil && fn.Pkg != nil && src[fn.Pkg] {
			fns = append(fns, fn)
		}
	}
	names := map[*ssa.Function]string{} // callpath.Name of each function, made once
	name := func(fn *ssa.Function) string {
		n, ok := names[fn]
		if !ok {
			n = callpath.Name(fn)
			names[fn] = n
		}
		return n
	}
	sort.Slice(fns, func(i, j int) bool { return name(fns[i]) < name(fns[j]) })
	helpers := map[*ssa.Function][]int{} // function -> indices of parameters it starts
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				call, ok := ins.(ssa.CallInstruction)
				if !ok {
					continue
				}
				c := call.Common()
				if _, isGo := call.(*ssa.Go); isGo {
					if t := funcValue(c.Value); t != nil {
						// A closure that only runs a function its maker was
						// given (go func() { f() }()) starts what the
						// maker's callers pass; those are the roots.
						if i, ok := runsParam(t, fn); ok {
							helpers[fn] = append(helpers[fn], i)
							continue
						}
						started(t, Goroutine, fn, call.Pos())
					} else if c.StaticCallee() != nil {
						started(c.StaticCallee(), Goroutine, fn, call.Pos())
					} else if p, ok := c.Value.(*ssa.Parameter); ok && p.Parent() == fn {
						helpers[fn] = append(helpers[fn], paramIndex(p))
					}
					continue
				}
				if callee := c.StaticCallee(); callee != nil && isHandleFunc(callee) && len(c.Args) >= 2 {
					started(funcValue(c.Args[len(c.Args)-1]), HTTP, fn, call.Pos())
				}
			}
			// gRPC calls back the functions given to it as its own function
			// types (interceptors, handlers).
			for _, ins := range b.Instrs {
				if v, ok := ins.(ssa.Value); ok {
					if t := funcValue(v); t != nil && flowsToGRPCFunc(v) {
						started(t, GRPC, fn, v.Pos())
					}
				}
			}
		}
	}
	// Functions passed to helpers that start their parameter.
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				call, ok := ins.(ssa.CallInstruction)
				if !ok {
					continue
				}
				callee := call.Common().StaticCallee()
				idx, ok := helpers[callee]
				if !ok {
					continue
				}
				args := call.Common().Args
				for _, i := range idx {
					if i < len(args) {
						if t := funcValue(args[i]); t != nil && !seen[t] {
							started(t, Goroutine, fn, call.Pos())
							if r := &out[len(out)-1]; r.Func == t {
								r.Helper = callee
							}
						}
					}
				}
			}
		}
	}
	// A library calls back the functions stored in the function fields of
	// its structs (a cobra command's Run): code that runs from a program's
	// main through the library. Last, so that a function that is a root of
	// another kind too keeps that kind.
	for _, fn := range fns {
		if fn.Synthetic == "package initializer" {
			continue
		}
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				st, ok := ins.(*ssa.Store)
				if !ok {
					continue
				}
				if t := funcValue(st.Val); t != nil {
					if field, ok := libraryField(st.Addr, src); ok {
						if r := add(t, Callback, field); r != nil {
							r.Starter, r.At = fn, st.Pos()
						}
					}
				}
			}
		}
	}
	// Programs: the main function of each main package.
	for _, p := range g.Pkgs {
		if p.Pkg.Name() == "main" {
			add(p.Func("main"), Main, "")
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return name(out[i].Func) < name(out[j].Func)
	})
	return out
}

// StartUp returns, of the goroutine and callback roots, those whose
// starter a main function reaches by calls: the goroutines a program
// starts at start-up (or later, from code that start-up code reaches) and
// the callbacks it hands a library then, each with the main function that
// reaches its starter.
func StartUp(g *callpath.Graph, rs []Root) map[*ssa.Function]*ssa.Function {
	out := map[*ssa.Function]*ssa.Function{}
	for _, m := range rs {
		if m.Kind != Main {
			continue
		}
		reach := g.Reachable(m.Func)
		for _, r := range rs {
			if (r.Kind == Goroutine || r.Kind == Callback) && r.Starter != nil && reach[r.Starter] && out[r.Func] == nil {
				out[r.Func] = m.Func
			}
		}
	}
	return out
}

// registrations maps each function called in the source packages to the
// packages that call it.
func registrations(g *callpath.Graph, src map[*ssa.Package]bool) map[*types.Func]map[*types.Package]bool {
	out := map[*types.Func]map[*types.Package]bool{}
	for fn := range g.CG.Nodes {
		if fn == nil || fn.Pkg == nil || !src[fn.Pkg] {
			continue
		}
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				call, ok := ins.(ssa.CallInstruction)
				if !ok {
					continue
				}
				callee := call.Common().StaticCallee()
				if callee == nil {
					continue
				}
				if o, ok := callee.Object().(*types.Func); ok {
					if out[o] == nil {
						out[o] = map[*types.Package]bool{}
					}
					out[o][fn.Pkg.Pkg] = true
				}
			}
		}
	}
	return out
}

// libraryField names the struct field that addr points into ("cobra.Command.Run")
// when the struct is declared in a package not loaded from source, other
// than gRPC's (whose callbacks are roots of their own kind).
func libraryField(addr ssa.Value, src map[*ssa.Package]bool) (string, bool) {
	fa, ok := addr.(*ssa.FieldAddr)
	if !ok {
		return "", false
	}
	ptr, ok := fa.X.Type().Underlying().(*types.Pointer)
	if !ok {
		return "", false
	}
	n, ok := ptr.Elem().(*types.Named)
	if !ok || n.Obj().Pkg() == nil || strings.HasPrefix(n.Obj().Pkg().Path(), "google.golang.org/grpc") {
		return "", false
	}
	for p := range src {
		if p.Pkg == n.Obj().Pkg() {
			return "", false
		}
	}
	st, ok := n.Underlying().(*types.Struct)
	if !ok || fa.Field >= st.NumFields() {
		return "", false
	}
	f := st.Field(fa.Field)
	if _, isFunc := f.Type().Underlying().(*types.Signature); !isFunc {
		return "", false
	}
	return n.Obj().Pkg().Name() + "." + n.Obj().Name() + "." + f.Name(), true
}

// runsParam reports whether closure fn, made in parent, calls a function
// value it captured from one of parent's parameters; it returns the
// parameter's index.
func runsParam(fn, parent *ssa.Function) (int, bool) {
	if fn.Parent() != parent {
		return 0, false
	}
	mc := makeClosure(parent, fn)
	for _, b := range fn.Blocks {
		for _, ins := range b.Instrs {
			call, ok := ins.(ssa.CallInstruction)
			if !ok || call.Common().IsInvoke() || call.Common().StaticCallee() != nil {
				continue
			}
			if mc == nil {
				continue
			}
			// The function value is a captured variable, or a load of one
			// (parent keeps its parameter in a variable when it defers).
			v := call.Common().Value
			load := false
			if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
				v, load = u.X, true
			}
			fv, ok := v.(*ssa.FreeVar)
			if !ok {
				continue
			}
			for i, x := range fn.FreeVars {
				if x != fv || i >= len(mc.Bindings) {
					continue
				}
				b := mc.Bindings[i]
				if a, ok := b.(*ssa.Alloc); ok && load {
					b = onlyStored(a)
				}
				if p, ok := b.(*ssa.Parameter); ok && p.Parent() == parent {
					return paramIndex(p), true
				}
			}
		}
	}
	return 0, false
}

// onlyStored is the value of the one store to a, or nil.
func onlyStored(a *ssa.Alloc) ssa.Value {
	var val ssa.Value
	for _, r := range *a.Referrers() {
		if st, ok := r.(*ssa.Store); ok && st.Addr == a {
			if val != nil {
				return nil
			}
			val = st.Val
		}
	}
	return val
}

func makeClosure(parent, fn *ssa.Function) *ssa.MakeClosure {
	for _, b := range parent.Blocks {
		for _, ins := range b.Instrs {
			if mc, ok := ins.(*ssa.MakeClosure); ok && mc.Fn == fn {
				return mc
			}
		}
	}
	return nil
}

// flowsToGRPCFunc reports whether a function value is returned as, or
// converted to, a named function type of the gRPC library.
func flowsToGRPCFunc(v ssa.Value) bool {
	isGRPC := func(t types.Type) bool {
		n, ok := t.(*types.Named)
		if !ok || n.Obj().Pkg() == nil {
			return false
		}
		_, isFunc := n.Underlying().(*types.Signature)
		return isFunc && strings.HasPrefix(n.Obj().Pkg().Path(), "google.golang.org/grpc")
	}
	if isGRPC(v.Type()) {
		return true
	}
	refs := v.Referrers()
	if refs == nil {
		return false
	}
	for _, r := range *refs {
		switch x := r.(type) {
		case *ssa.ChangeType:
			if isGRPC(x.Type()) {
				return true
			}
		case *ssa.Return:
			res := x.Parent().Signature.Results()
			for i, rv := range x.Results {
				if rv == v && i < res.Len() && isGRPC(res.At(i).Type()) {
					return true
				}
			}
		}
	}
	return false
}

// funcValue is the function a function value denotes, when the code
// makes it right there: a function, a closure, a bound method.
func funcValue(v ssa.Value) *ssa.Function {
	switch x := v.(type) {
	case *ssa.Function:
		return unwrap(x)
	case *ssa.MakeClosure:
		if fn, ok := x.Fn.(*ssa.Function); ok {
			return unwrap(fn)
		}
	case *ssa.ChangeType:
		return funcValue(x.X)
	}
	return nil
}

// unwrap returns the method a bound method wrapper calls.
func unwrap(fn *ssa.Function) *ssa.Function {
	if fn.Synthetic == "" {
		return fn
	}
	for _, b := range fn.Blocks {
		for _, ins := range b.Instrs {
			if c, ok := ins.(ssa.CallInstruction); ok {
				if t := c.Common().StaticCallee(); t != nil {
					return t
				}
			}
		}
	}
	return nil
}

func paramIndex(p *ssa.Parameter) int {
	for i, x := range p.Parent().Params {
		if x == p {
			return i
		}
	}
	return -1
}

func typeName(n *types.Named) string {
	if n.Obj().Pkg() == nil {
		return n.Obj().Name()
	}
	return n.Obj().Pkg().Name() + "." + n.Obj().Name()
}

// isServeHTTP reports whether sig is func(http.ResponseWriter, *http.Request).
func isServeHTTP(sig *types.Signature) bool {
	if sig.Params().Len() != 2 || sig.Results().Len() != 0 {
		return false
	}
	return isNetHTTP(sig.Params().At(0).Type(), "ResponseWriter") && isNetHTTP(sig.Params().At(1).Type(), "*Request")
}

func isNetHTTP(t types.Type, name string) bool {
	if strings.HasPrefix(name, "*") {
		p, ok := t.(*types.Pointer)
		if !ok {
			return false
		}
		t, name = p.Elem(), name[1:]
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == name
}

// isHandleFunc reports whether fn is net/http's HandleFunc (the function
// or the ServeMux method).
func isHandleFunc(fn *ssa.Function) bool {
	if fn.Name() != "HandleFunc" {
		return false
	}
	o := fn.Object()
	return o != nil && o.Pkg() != nil && o.Pkg().Path() == "net/http"
}

// embeds reports whether struct type n embeds interface iface.
func embeds(n, iface *types.Named) bool {
	st, ok := n.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := 0; i < st.NumFields(); i++ {
		if f := st.Field(i); f.Embedded() && types.Identical(f.Type(), iface) {
			return true
		}
	}
	return false
}
