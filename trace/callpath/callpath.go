// Package callpath builds a precise call graph (go/ssa and VTA) over loaded
// packages and finds the k shortest call paths between two functions.
//
// # Precision
//
// The graph is VTA (golang.org/x/tools/go/callgraph/vta) refined over
// itself: VTA seeded with a CHA graph, then VTA again seeded with the first
// result. CHA alone links every interface call to every method of that name
// and invents paths; VTA keeps only the types that can flow to each call.
//
// Both run over the functions of the packages loaded from source (and the
// wrappers and functions they refer to), not over the whole program: a
// package read from export data has no bodies to follow, and the wrappers
// its types' method sets would add run none of the source's code. That
// halves the graph's cost and gives the same graph over the source.
//
// # Paths
//
// # Function-valued parameters
//
// VTA is context-insensitive: a helper such as func GoAttach(f func()) that
// calls its parameter is linked to every function passed to it anywhere, so
// any caller of the helper would seem to reach all of them. The search
// therefore runs over (function, binding) nodes: when a call passes known
// functions for a function-typed parameter of its callee, the callee (and
// the closures it makes) may call that parameter only with those functions.
//
// # Paths
//
// Paths are loopless and distinct as sequences of functions. Between two
// functions, one edge stands for all of the caller's calls to that callee:
// the first call site in source order. Synthetic wrappers (bound method
// values, interface thunks) are folded into the hop that passes through them.
package callpath

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// Graph is a call graph over a program built from loaded packages.
type Graph struct {
	Prog *ssa.Program
	// Pkgs are the SSA packages of the loaded packages, in load order.
	Pkgs []*ssa.Package
	CG   *callgraph.Graph
	// Funcs are the functions the call graph was built over: those of the
	// packages loaded from source, and what they refer to (sourceFunctions).
	Funcs map[*ssa.Function]bool

	out   map[*ssa.Function][]*callgraph.Edge // deduplicated by callee, sorted
	ctx   contexts
	calls map[*token.File]map[token.Pos]token.Pos
	fset  *token.FileSet
	files map[*token.File]*ast.File
	memo  map[pathsKey][]Path
	// mu guards what searches learn (ctx, memo), callsMu the index of
	// calls (calls): a Graph is safe for concurrent use.
	mu      sync.Mutex
	callsMu sync.Mutex
}

// Build makes SSA for pkgs (and, from type information only, their
// dependencies) and the VTA call graph over all functions: two passes,
// the second seeded with the first's graph (x/tools' advice).
func Build(pkgs []*packages.Package) (*Graph, error) { return build(pkgs, 2) }

// BuildOnce is Build with one pass of VTA, seeded with CHA: every edge of
// Build's graph is in it, and maybe more (a function value's flow that
// the second pass would rule out); for a question whose answer is the
// same with a coarser graph, at less cost.
func BuildOnce(pkgs []*packages.Package) (*Graph, error) { return build(pkgs, 1) }

func build(pkgs []*packages.Package, passes int) (*Graph, error) {
	prog, spkgs := ssautil.Packages(pkgs, ssa.InstantiateGenerics|ssa.GlobalDebug)
	for i, p := range spkgs {
		if p == nil {
			return nil, fmt.Errorf("building SSA: package %s has errors", pkgs[i].PkgPath)
		}
	}
	prog.Build()
	fns := sourceFunctions(prog, spkgs)
	cg := vta.CallGraph(fns, nil) // seeded with CHA over fns
	for i := 1; i < passes; i++ {
		cg = vta.CallGraph(fns, cg)
	}
	cg.DeleteSyntheticNodes()

	g := &Graph{Prog: prog, Pkgs: spkgs, CG: cg, Funcs: fns, fset: prog.Fset, ctx: newContexts(),
		out:   map[*ssa.Function][]*callgraph.Edge{},
		calls: map[*token.File]map[token.Pos]token.Pos{},
		files: map[*token.File]*ast.File{},
	}
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			g.files[prog.Fset.File(f.Pos())] = f
		}
	}
	for fn, n := range cg.Nodes {
		if fn == nil {
			continue
		}
		best := map[*ssa.Function]*callgraph.Edge{}
		for _, e := range n.Out {
			c := e.Callee.Func
			if b, ok := best[c]; !ok || e.Pos() < b.Pos() || (e.Pos() == b.Pos() && isGo(e) && !isGo(b)) {
				best[c] = e
			}
		}
		es := make([]*callgraph.Edge, 0, len(best))
		for _, e := range best {
			es = append(es, e)
		}
		sort.Slice(es, func(i, j int) bool { return edgeLess(es[i], es[j]) })
		g.out[fn] = es
	}
	return g, nil
}

// sourceFunctions are the functions VTA analyses: those of the packages
// loaded from source (their members, the methods of their types, with the
// wrappers those need) and every function they refer to or call
// statically, transitively. Functions of packages read from export data
// have no bodies; the wrappers of their types' methods, which the whole
// program's method sets would add, run no code of the source.
func sourceFunctions(prog *ssa.Program, pkgs []*ssa.Package) map[*ssa.Function]bool {
	fns := map[*ssa.Function]bool{}
	var queue []*ssa.Function
	add := func(f *ssa.Function) {
		if f != nil && !fns[f] {
			fns[f] = true
			queue = append(queue, f)
		}
	}
	for _, p := range pkgs {
		for _, m := range p.Members {
			switch m := m.(type) {
			case *ssa.Function:
				add(m)
			case *ssa.Type:
				if _, isIface := m.Type().Underlying().(*types.Interface); isIface {
					continue
				}
				for _, t := range []types.Type{m.Type(), types.NewPointer(m.Type())} {
					ms := prog.MethodSets.MethodSet(t)
					for i := 0; i < ms.Len(); i++ {
						add(prog.MethodValue(ms.At(i)))
					}
				}
			}
		}
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		for _, a := range f.AnonFuncs {
			add(a)
		}
		var ops []*ssa.Value
		for _, b := range f.Blocks {
			for _, ins := range b.Instrs {
				ops = ins.Operands(ops[:0])
				for _, op := range ops {
					if op != nil {
						if g, ok := (*op).(*ssa.Function); ok {
							add(g)
						}
					}
				}
			}
		}
	}
	return fns
}

func isGo(e *callgraph.Edge) bool {
	_, ok := e.Site.(*ssa.Go)
	return ok
}

func edgeLess(a, b *callgraph.Edge) bool {
	if a.Pos() != b.Pos() {
		return a.Pos() < b.Pos()
	}
	return a.Callee.Func.String() < b.Callee.Func.String()
}

// Hop is one call on a path: the callee and the call site in the caller.
type Hop struct {
	Caller, Callee *ssa.Function
	Site           ssa.CallInstruction
	Pos            token.Position // start of the call expression (or go statement)
	Goroutine      bool           // the call is a go statement
	Dynamic        bool           // an interface method call or a call of a function value
}

// Path is a sequence of hops from an entry to a target.
type Path []Hop

// Out returns the deduplicated calls made by fn, in source order.
func (g *Graph) Out(fn *ssa.Function) []*callgraph.Edge { return g.out[fn] }

// Reachable returns the functions reachable from fn, fn included.
func (g *Graph) Reachable(fn *ssa.Function) map[*ssa.Function]bool { return g.reachable(fn, false) }

// SyncReachable returns the functions that fn reaches by calls that
// start no goroutine, fn included: what runs in fn's own goroutine.
func (g *Graph) SyncReachable(fn *ssa.Function) map[*ssa.Function]bool { return g.reachable(fn, true) }

func (g *Graph) reachable(fn *ssa.Function, noGo bool) map[*ssa.Function]bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	src := g.node(fn, nil)
	seen := map[int]bool{src: true}
	fns := map[*ssa.Function]bool{fn: true}
	queue := []int{src}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, a := range g.succ(n) {
			if !seen[a.to] && !(noGo && isGo(a.edge)) {
				seen[a.to] = true
				fns[g.ctx.nodes[a.to].fn] = true
				queue = append(queue, a.to)
			}
		}
	}
	return fns
}

type edgeKey struct{ from, to int }

// shortest is a breadth-first search from node src to any node of dst
// that avoids the given edges and nodes. It returns the nodes of the path.
func (g *Graph) shortest(src int, dst *ssa.Function, noEdge map[edgeKey]bool, noNode map[int]bool, noGo bool) []int {
	if g.ctx.nodes[src].fn == dst {
		return []int{src}
	}
	prev := map[int]int{src: -1}
	queue := []int{src}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, a := range g.succ(n) {
			c := a.to
			if _, seen := prev[c]; seen || noNode[c] || noEdge[edgeKey{n, c}] || (noGo && isGo(a.edge)) {
				continue
			}
			prev[c] = n
			if g.ctx.nodes[c].fn == dst {
				var rev []int
				for x := c; x >= 0; x = prev[x] {
					rev = append(rev, x)
				}
				for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
					rev[i], rev[j] = rev[j], rev[i]
				}
				return rev
			}
			queue = append(queue, c)
		}
	}
	return nil
}

// Paths returns up to k shortest loopless paths from src to dst (Yen's
// algorithm), shortest first; ties keep the order of breadth-first search
// over calls in source order. A path from a function to itself has no hops.
func (g *Graph) Paths(src, dst *ssa.Function, k int) []Path { return g.paths(src, dst, k, false) }

// SyncPaths are the Paths from src to dst that start no goroutine: the
// ways in which dst runs in src's own goroutine (code run at start-up by
// a main function, not by what it starts).
func (g *Graph) SyncPaths(src, dst *ssa.Function, k int) []Path { return g.paths(src, dst, k, true) }

// pathsKey names one search of paths, which the graph remembers: the
// objects srctrace answers on one graph (the atlas of errors) ask for the
// paths between the same functions again and again.
type pathsKey struct {
	src, dst *ssa.Function
	k        int
	noGo     bool
}

func (g *Graph) paths(src, dst *ssa.Function, k int, noGo bool) []Path {
	if k <= 0 {
		return nil
	}
	key := pathsKey{src, dst, k, noGo}
	g.mu.Lock()
	defer g.mu.Unlock()
	ps, ok := g.memo[key]
	if !ok {
		ps = g.search(src, dst, k, noGo)
		if g.memo == nil {
			g.memo = map[pathsKey][]Path{}
		}
		g.memo[key] = ps
	}
	if ps == nil {
		return nil
	}
	// Copies: a caller may change what it is given.
	out := make([]Path, len(ps))
	for i, p := range ps {
		out[i] = append(Path(nil), p...)
	}
	return out
}

func (g *Graph) search(src, dst *ssa.Function, k int, noGo bool) []Path {
	first := g.shortest(g.node(src, nil), dst, nil, nil, noGo)
	if first == nil {
		return nil
	}
	found := [][]int{first}
	seen := map[string]bool{g.key(first): true}
	var cands [][]int
	// Candidates that differ from a found path only in contexts (the same
	// functions) are not distinct; try a bounded number of rounds.
	for rounds := 0; len(found) < k && rounds < 4*k; rounds++ {
		last := found[len(found)-1]
		for i := 0; i < len(last)-1; i++ {
			spur := last[i]
			root := last[:i+1]
			noEdge := map[edgeKey]bool{}
			for _, p := range found {
				if len(p) > i+1 && sameNodes(p[:i+1], root) {
					noEdge[edgeKey{p[i], p[i+1]}] = true
				}
			}
			noNode := map[int]bool{}
			for _, n := range root[:i] {
				noNode[n] = true
			}
			sp := g.shortest(spur, dst, noEdge, noNode, noGo)
			if sp == nil {
				continue
			}
			total := append(append([]int{}, root[:i]...), sp...)
			if kk := g.key(total); !seen[kk] {
				seen[kk] = true
				cands = append(cands, total)
			}
		}
		if len(cands) == 0 {
			break
		}
		best := 0
		for i, c := range cands {
			if len(c) < len(cands[best]) {
				best = i
			}
		}
		found = append(found, cands[best])
		cands = append(cands[:best], cands[best+1:]...)
	}
	out := make([]Path, 0, len(found))
	for _, ns := range found {
		out = append(out, g.hops(ns))
	}
	return out
}

func sameNodes(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// key identifies a path by its functions: paths through the same functions
// in different contexts are the same path to a reader.
func (g *Graph) key(ns []int) string {
	var b strings.Builder
	for _, n := range ns {
		fmt.Fprintf(&b, "%p;", g.ctx.nodes[n].fn)
	}
	return b.String()
}

func (g *Graph) hops(ns []int) Path {
	var p Path
	for i := 0; i+1 < len(ns); i++ {
		for _, a := range g.succ(ns[i]) {
			if a.to == ns[i+1] {
				p = append(p, g.Hop(a.edge))
				break
			}
		}
	}
	return p
}

// Hop describes one call edge.
func (g *Graph) Hop(e *callgraph.Edge) Hop {
	h := Hop{Caller: e.Caller.Func, Callee: e.Callee.Func, Site: e.Site}
	if e.Site != nil {
		_, h.Goroutine = e.Site.(*ssa.Go)
		c := e.Site.Common()
		h.Dynamic = c.IsInvoke() || c.StaticCallee() == nil
		h.Pos = g.CallPos(e.Site)
	}
	return h
}

// CallPos is the position of the start of a call expression: the callee
// expression for a call, the keyword for a go or defer statement.
func (g *Graph) CallPos(site ssa.CallInstruction) token.Position {
	pos := site.Pos()
	switch site.(type) {
	case *ssa.Go, *ssa.Defer:
		return g.fset.Position(pos)
	}
	if !pos.IsValid() {
		return token.Position{}
	}
	tf := g.fset.File(pos)
	g.callsMu.Lock()
	defer g.callsMu.Unlock()
	idx, ok := g.calls[tf]
	if !ok {
		idx = map[token.Pos]token.Pos{}
		if f := g.files[tf]; f != nil {
			ast.Inspect(f, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					idx[c.Lparen] = c.Pos()
				}
				return true
			})
		}
		g.calls[tf] = idx
	}
	if start, ok := idx[pos]; ok {
		pos = start
	}
	return g.fset.Position(pos)
}

// Func finds a function by qualified name: "pkg/path.F",
// "pkg/path.(*T).M" or "pkg/path.T.M".
func (g *Graph) Func(name string) (*ssa.Function, error) { return FuncIn(g.Prog, name) }

// FuncIn is Func in any program: a function by qualified name.
func FuncIn(prog *ssa.Program, name string) (*ssa.Function, error) {
	obj, recv, err := LookupIn(prog, name)
	if err != nil {
		return nil, err
	}
	if recv == nil {
		fn, ok := obj.(*types.Func)
		if !ok {
			return nil, fmt.Errorf("%s is not a function", name)
		}
		if f := prog.FuncValue(fn); f != nil {
			return f, nil
		}
		return nil, fmt.Errorf("function %s has no SSA form", name)
	}
	sel := types.NewMethodSet(recv).Lookup(obj.Pkg(), obj.Name())
	if sel == nil {
		return nil, fmt.Errorf("method %s not found", name)
	}
	f := prog.MethodValue(sel)
	if f == nil {
		return nil, fmt.Errorf("method %s has no SSA form", name)
	}
	return f, nil
}

// Callable finds a function or an interface method by qualified name. For
// an interface method it returns the method object; calls of it are invoke
// calls whose Method is that object.
func (g *Graph) Callable(name string) (fn *ssa.Function, method *types.Func, err error) {
	obj, recv, err := g.Lookup(name)
	if err != nil {
		return nil, nil, err
	}
	if recv != nil {
		if _, isIface := recv.Underlying().(*types.Interface); isIface {
			m, ok := obj.(*types.Func)
			if !ok {
				return nil, nil, fmt.Errorf("%s is not a method", name)
			}
			return nil, m, nil
		}
	}
	fn, err = g.Func(name)
	return fn, nil, err
}

// Lookup splits a qualified name ("pkg/path.Name", "pkg/path.T.M",
// "pkg/path.(*T).M", "pkg/path.T.field") and finds the object (and, for a
// method or field, the receiver type as written).
func (g *Graph) Lookup(name string) (types.Object, types.Type, error) { return LookupIn(g.Prog, name) }

// LookupIn is Lookup in any program: the object a qualified name denotes.
func LookupIn(prog *ssa.Program, name string) (types.Object, types.Type, error) {
	pkgPath, _, err := SplitName(name)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range prog.AllPackages() {
		if p.Pkg.Path() == pkgPath {
			return LookupPackage(p.Pkg, name)
		}
	}
	return nil, nil, fmt.Errorf("package %s is not loaded", pkgPath)
}

// SplitName splits a qualified name into its package path and the rest
// ("Name", "T.M", "(*T).M", "T.field").
func SplitName(name string) (pkgPath, rest string, err error) {
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return "", "", fmt.Errorf("%q is not a qualified name (pkg/path.Name)", name)
	}
	return name[:slash+1+dot], name[slash+1+dot+1:], nil
}

// LookupPackage finds the object a qualified name denotes in pkg, the
// package the name names (and, for a method or field, the receiver type
// as written).
func LookupPackage(pkg *types.Package, name string) (types.Object, types.Type, error) {
	pkgPath, rest, err := SplitName(name)
	if err != nil {
		return nil, nil, err
	}
	ptr := false
	typeName, member := "", rest
	switch {
	case strings.HasPrefix(rest, "(*"):
		end := strings.Index(rest, ").")
		if end < 0 {
			return nil, nil, fmt.Errorf("%q: bad method name", name)
		}
		ptr, typeName, member = true, rest[2:end], rest[end+2:]
	case strings.Contains(rest, "."):
		i := strings.Index(rest, ".")
		typeName, member = rest[:i], rest[i+1:]
	}
	if typeName == "" {
		obj := pkg.Scope().Lookup(member)
		if obj == nil {
			return nil, nil, fmt.Errorf("%s: no %s in package %s", name, member, pkgPath)
		}
		return obj, nil, nil
	}
	tn, ok := pkg.Scope().Lookup(typeName).(*types.TypeName)
	if !ok {
		return nil, nil, fmt.Errorf("%s: no type %s in package %s", name, typeName, pkgPath)
	}
	var recv types.Type = tn.Type()
	if ptr {
		recv = types.NewPointer(recv)
	}
	obj, _, _ := types.LookupFieldOrMethod(recv, true, pkg, member)
	if obj == nil {
		return nil, nil, fmt.Errorf("%s: type %s has no method %s", name, typeName, member)
	}
	return obj, recv, nil
}

// File returns the syntax of the loaded file that holds pos, or nil.
func (g *Graph) File(pos token.Pos) *ast.File {
	return g.files[g.fset.File(pos)]
}

// Fset is the program's file set.
func (g *Graph) Fset() *token.FileSet { return g.fset }

// DynamicCallers are the calls that reach fn through an interface method
// or a function value, as the VTA graph resolves them: one edge per call
// site, in source order. They are uses of fn that no identifier names
// (a call of a promoted method's wrapper is one too; its selector names
// fn, so a caller that also finds uses by identity has it already).
func (g *Graph) DynamicCallers(fn *ssa.Function) []*callgraph.Edge {
	n := g.CG.Nodes[fn]
	if n == nil {
		return nil
	}
	seen := map[ssa.CallInstruction]bool{}
	var out []*callgraph.Edge
	for _, e := range n.In {
		if e.Site == nil || seen[e.Site] {
			continue
		}
		// A call that names fn itself is a use by identity; one whose
		// callee is a function value (a closure of a method value
		// included) or an interface method is not.
		if e.Site.Common().StaticCallee() == fn {
			continue
		}
		seen[e.Site] = true
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pos() != out[j].Pos() {
			return out[i].Pos() < out[j].Pos()
		}
		return Name(out[i].Caller.Func) < Name(out[j].Caller.Func)
	})
	return out
}

// EdgesAt returns the call graph's edges of one call instruction.
func (g *Graph) EdgesAt(site ssa.CallInstruction) []*callgraph.Edge {
	n := g.CG.Nodes[site.Parent()]
	if n == nil {
		return nil
	}
	var out []*callgraph.Edge
	for _, e := range n.Out {
		if e.Site == site {
			out = append(out, e)
		}
	}
	return out
}

// Sites returns every call instruction in caller that the call graph links
// to callee, in source order (Out keeps only the first).
func (g *Graph) Sites(caller, callee *ssa.Function) []ssa.CallInstruction {
	n := g.CG.Nodes[caller]
	if n == nil {
		return nil
	}
	seen := map[ssa.CallInstruction]bool{}
	var out []ssa.CallInstruction
	for _, e := range n.Out {
		if e.Callee.Func == callee && e.Site != nil && !seen[e.Site] {
			seen[e.Site] = true
			out = append(out, e.Site)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos() < out[j].Pos() })
	return out
}
