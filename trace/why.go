package trace

import (
	"context"
	"errors"
	"fmt"
	"go/types"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/progress"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/roots"
	"github.com/srctrace/srctrace/trace/sites"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/study"
	"github.com/srctrace/srctrace/trace/target"
)

// WhyOptions configure Why.
type WhyOptions struct {
	// Symbol is a package-level object of the target's modules, or a
	// method or field of one of their types: "pkg/path.Name",
	// "pkg/path.(*T).M", "pkg/path.T.M", "pkg/path.T.f".
	Symbol string
	// Target is the repository read; nil means target.Etcd.
	Target       *target.Target
	Version, Dir string
	CacheDir     string
	Env          []string
	Paths        int // k, the shortest paths per (root, use); default 3
	Nearest      int // roots kept per use; default 5
}

// ErrNoObject is matched (errors.Is) by Why's error when the symbol names
// nothing; the error's text is the one sentence that says so.
var ErrNoObject = errors.New("no such object")

// noObject is the error of a symbol that names nothing.
type noObject struct{ msg string }

func (e noObject) Error() string        { return e.msg }
func (e noObject) Is(target error) bool { return target == ErrNoObject }

func noObjectf(format string, args ...any) error { return noObject{fmt.Sprintf(format, args...)} }

// Why finds every use of an object by identity and the roots found from
// the code that reach each use by a path that can run. No study is needed:
// the roots are the code's own (gRPC services, HTTP handlers, goroutines).
func Why(ctx context.Context, opts WhyOptions) (*report.Why, error) {
	t := opts.Target
	if t == nil {
		t = target.Etcd
	}
	k, nearest := opts.Paths, opts.Nearest
	if k == 0 {
		k = 3
	}
	if nearest == 0 {
		nearest = 5
	}
	pkgPath := study.PackageOf(opts.Symbol)
	if pkgPath == opts.Symbol || pkgPath == "" {
		return nil, fmt.Errorf("%w: %q is not a qualified name: write it as pkg/path.Name, pkg/path.(*T).M or pkg/path.T.f", source.ErrUsage, opts.Symbol)
	}
	mod := ""
	for _, f := range t.Layout {
		if (pkgPath == f.Module || strings.HasPrefix(pkgPath, f.Module+"/")) && len(f.Module) > len(mod) {
			mod = f.Module
		}
	}
	if mod == "" {
		return nil, fmt.Errorf("%w: %s is in no module of %s (they are %s)", source.ErrUsage, pkgPath, t.Name, strings.Join(t.Modules(), ", "))
	}
	mods := []string{t.Main}
	if mod != t.Main {
		mods = append(mods, mod)
	}
	ph := progress.Start(ctx, "why "+opts.Symbol, 0)
	defer ph.Done()
	src, err := source.Resolve(ctx, source.Spec{Target: t, Version: opts.Version, Dir: opts.Dir, Modules: mods, CacheDir: opts.CacheDir, Env: opts.Env})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if !src.HasPackage(pkgPath) {
		return nil, noObjectf("%s %s has no package %s", t.Name, src.Version, pkgPath)
	}
	pkgs, err := loadImporters(ctx, src, t, pkgPath)
	if err != nil {
		return nil, err
	}
	var pkg *packages.Package
	for _, p := range pkgs {
		if p.PkgPath == pkgPath {
			pkg = p
		}
	}
	if pkg == nil || pkg.Types == nil {
		return nil, noObjectf("%s %s has no package %s", t.Name, src.Version, pkgPath)
	}
	obj, kind, err := lookupObject(pkg.Types, strings.TrimPrefix(opts.Symbol, pkgPath+"."))
	if err != nil {
		return nil, noObjectf("%s %s: %v", t.Name, src.Version, err)
	}
	ph.Next("building the call graph of " + src.Version)
	var g *callpath.Graph
	if err := interruptible(ctx, func() (err error) { g, err = callpath.Build(pkgs); return err }); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		return nil, fmt.Errorf("analysing %s %s: %w", t.Name, src.Version, err)
	}
	r := &Result{Pass: &study.Pass{Source: src, Pkgs: pkgs, Graph: g, Feas: feasible.New(g), Sentinel: obj, Roots: roots.Find(g)},
		lines: newLineCache(), k: k}
	r.Lines = r.lines.line
	if err := r.useSites(obj, nil); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ph.Next("finding the roots that reach each use")
	rep := &report.Why{Symbol: opts.Symbol, Etcd: r.etcd(t), Nearest: nearest, Roots: map[string]int{},
		Sites: []report.Site{}, Entries: []report.Entry{}, Paths: []report.PairPaths{}}
	for _, x := range r.Roots {
		rep.Roots[string(x.Kind)]++
	}
	for _, p := range pkgs {
		rep.Packages = append(rep.Packages, p.PkgPath)
	}
	pos := g.Fset().Position(obj.Pos())
	rep.Object = report.Object{Name: opts.Symbol, Kind: kind, File: src.RepoPath(pos.Filename), Line: pos.Line}
	if text, err := r.lines.line(pos.Filename, pos.Line); err == nil {
		rep.Object.Text = strings.TrimSpace(text)
	}
	// The nearest roots of each use, by the shortest path that can run.
	added := map[*ssa.Function]int{}
	for si := range r.Sites {
		s := r.Sites[si]
		if s.Func == nil || s.Func.Synthetic == "package initializer" {
			continue
		}
		dist := r.callersWithin(s.Func, 32)
		var cands []roots.Root
		for _, x := range r.Roots {
			if _, ok := dist[x.Func]; ok {
				cands = append(cands, x)
			}
		}
		sort.SliceStable(cands, func(i, j int) bool { return dist[cands[i].Func] < dist[cands[j].Func] })
		type found struct {
			root roots.Root
			ways []study.Way
			n    int
		}
		var got []found
		for i, c := range cands {
			if i >= 4*nearest {
				break
			}
			e := rootEntry(g, c)
			ways, _, _ := r.bestWays(e, s.Func, s.Instr, nil)
			if len(ways) == 0 || !feasibleVerdict(bestWay(ways).Res.Verdict) {
				continue
			}
			got = append(got, found{root: c, ways: ways, n: len(bestWay(ways).Path)})
		}
		sort.SliceStable(got, func(i, j int) bool { return got[i].n < got[j].n })
		keep := outermost(g, len(got), func(i int) *ssa.Function { return got[i].root.Func })
		kept := got[:0]
		for i, f := range got {
			if keep[i] {
				kept = append(kept, f)
			}
		}
		got = kept
		if len(got) > nearest {
			got = got[:nearest]
		}
		for _, f := range got {
			ei, ok := added[f.root.Func]
			if !ok {
				ei = len(r.Entries)
				added[f.root.Func] = ei
				r.Entries = append(r.Entries, rootEntry(g, f.root))
			}
			r.Sites[si].Roots = append(r.Sites[si].Roots, ei)
			best := bestWay(f.ways)
			p := study.Pair{Entry: ei, Site: si, Ways: f.ways, Verdict: best.Res.Verdict, Because: best.Res.Because, Searched: len(f.ways)}
			for _, w := range f.ways {
				p.Paths = append(p.Paths, w.Path)
			}
			r.Pairs = append(r.Pairs, p)
		}
	}
	if rep.Sites, err = r.reportSites(); err != nil {
		return nil, err
	}
	rep.Entries, rep.Paths = r.reportEntries(), r.reportPaths()
	return rep, nil
}

// outermost says which of n roots no other of them reaches: a root that
// another starts (the goroutine its gRPC method starts, the handler a
// registered wrapper calls) is that root's way in, not a root of its own.
func outermost(g *callpath.Graph, n int, fn func(int) *ssa.Function) []bool {
	reach := make([]map[*ssa.Function]bool, n)
	for i := 0; i < n; i++ {
		reach[i] = g.Reachable(fn(i))
	}
	keep := make([]bool, n)
	for i := 0; i < n; i++ {
		keep[i] = true
		for j := 0; j < n; j++ {
			if i != j && reach[j][fn(i)] && !reach[i][fn(j)] {
				keep[i] = false
			}
		}
	}
	return keep
}

// rootEntry makes an entry of a root found from the code.
func rootEntry(g *callpath.Graph, c roots.Root) study.EntryPoint {
	name := callpath.Name(c.Func)
	return study.EntryPoint{
		Entry: study.Entry{Name: report.ShortName(name), Function: name, Doc: rootDoc(c)},
		Func:  c.Func, Pos: g.Prog.Fset.Position(c.Func.Pos()), Found: "code", Kind: c.Kind,
	}
}

// loadImporters loads from source pkgPath and every package of the
// target's modules that imports it, directly or not; everything else comes
// from export data.
func loadImporters(ctx context.Context, src *source.Source, t *target.Target, pkgPath string) ([]*packages.Package, error) {
	var patterns []string
	for m := range src.Modules {
		patterns = append(patterns, m+"/...")
	}
	sort.Strings(patterns)
	meta, err := src.Load(ctx, metaMode, patterns...)
	if err != nil {
		return nil, err
	}
	byPath := map[string]*packages.Package{}
	packages.Visit(meta, nil, func(p *packages.Package) { byPath[p.PkgPath] = p })
	reaches := map[*packages.Package]bool{}
	done := map[*packages.Package]bool{}
	var visit func(p *packages.Package) bool
	visit = func(p *packages.Package) bool {
		if done[p] {
			return reaches[p]
		}
		done[p] = true
		ok := p.PkgPath == pkgPath
		for _, imp := range p.Imports {
			if visit(imp) {
				ok = true
			}
		}
		reaches[p] = ok
		return ok
	}
	var set []string
	for path, p := range byPath {
		if t.Owns(path) && visit(p) && len(p.Errors) == 0 && !strings.HasSuffix(path, ".test") {
			set = append(set, path)
		}
	}
	sort.Strings(set)
	if len(set) == 0 {
		return nil, noObjectf("no package of %s %s is %s", t.Name, src.Version, pkgPath)
	}
	pkgs, err := src.Load(ctx, fullMode, set...)
	if err != nil {
		return nil, err
	}
	if err := source.Errors(pkgs); err != nil {
		return nil, fmt.Errorf("loading %s %s: %w", t.Name, src.Version, err)
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].PkgPath < pkgs[j].PkgPath })
	return pkgs, nil
}

// lookupObject finds name in pkg: "Name", "(*T).M", "T.M" or "T.f", and
// says what it is. A name that is not there gets the closest names.
func lookupObject(pkg *types.Package, name string) (types.Object, string, error) {
	ptr := strings.HasPrefix(name, "(*")
	typeName, member := "", name
	switch {
	case ptr:
		end := strings.Index(name, ").")
		if end < 0 {
			return nil, "", fmt.Errorf("%q: write a method as (*T).M", name)
		}
		typeName, member = name[2:end], name[end+2:]
	case strings.Contains(name, "."):
		i := strings.Index(name, ".")
		typeName, member = name[:i], name[i+1:]
	}
	sc := pkg.Scope()
	if typeName == "" {
		obj := sc.Lookup(member)
		if obj == nil {
			return nil, "", fmt.Errorf("package %s has no %s%s", pkg.Path(), member, closest(member, sc.Names()))
		}
		return obj, objectKind(obj), nil
	}
	tn, ok := sc.Lookup(typeName).(*types.TypeName)
	if !ok {
		return nil, "", fmt.Errorf("package %s has no type %s%s", pkg.Path(), typeName, closest(typeName, typeNames(sc)))
	}
	var recv types.Type = tn.Type()
	if ptr {
		recv = types.NewPointer(recv)
	}
	obj, _, _ := types.LookupFieldOrMethod(recv, true, pkg, member)
	if obj == nil {
		return nil, "", fmt.Errorf("type %s.%s has no field or method %s%s", pkg.Name(), typeName, member, closest(member, memberNames(tn.Type())))
	}
	return obj, objectKind(obj), nil
}

func objectKind(obj types.Object) string {
	switch o := obj.(type) {
	case *types.Var:
		if o.IsField() {
			return "field"
		}
		return "var"
	case *types.Const:
		return "const"
	case *types.Func:
		if o.Type().(*types.Signature).Recv() != nil {
			return "method"
		}
		return "func"
	case *types.TypeName:
		return "type"
	}
	return "object"
}

func typeNames(sc *types.Scope) []string {
	var out []string
	for _, n := range sc.Names() {
		if _, ok := sc.Lookup(n).(*types.TypeName); ok {
			out = append(out, n)
		}
	}
	return out
}

func memberNames(t types.Type) []string {
	var out []string
	for _, recv := range []types.Type{t, types.NewPointer(t)} {
		ms := types.NewMethodSet(recv)
		for i := 0; i < ms.Len(); i++ {
			out = append(out, ms.At(i).Obj().Name())
		}
	}
	if s, ok := t.Underlying().(*types.Struct); ok {
		for i := 0; i < s.NumFields(); i++ {
			out = append(out, s.Field(i).Name())
		}
	}
	sort.Strings(out)
	return out
}

// closest names the candidates nearest to name in edit distance (at most
// three), as a phrase for an error.
func closest(name string, cands []string) string {
	type c struct {
		s string
		d int
	}
	var cs []c
	seen := map[string]bool{}
	for _, s := range cands {
		if seen[s] {
			continue
		}
		seen[s] = true
		d := editDistance(strings.ToLower(name), strings.ToLower(s))
		if strings.Contains(strings.ToLower(s), strings.ToLower(name)) {
			d = 1 // a part of the name
		}
		if d <= max(2, len(name)/2) {
			cs = append(cs, c{s, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].s < cs[j].s
	})
	if len(cs) == 0 {
		return ""
	}
	if len(cs) > 3 {
		cs = cs[:3]
	}
	var names []string
	for _, x := range cs {
		names = append(names, x.s)
	}
	return "; the closest names are " + strings.Join(names, ", ")
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur := make([]int, len(rb)+1)
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(rb)]
}

// useSites finds the uses of obj (cited marks those in the cited files).
func (r *Result) useSites(obj types.Object, cited map[string]bool) error {
	ssaPkg := map[*types.Package]*ssa.Package{}
	for _, p := range r.Graph.Pkgs {
		ssaPkg[p.Pkg] = p
	}
	for _, s := range sites.Find(r.Pkgs, obj) {
		site := study.Site{Site: s, Repo: r.Source.RepoPath(s.Pos.Filename)}
		site.Cited = cited[site.Repo]
		text, err := r.lines.line(s.Pos.Filename, s.Pos.Line)
		if err != nil {
			return fmt.Errorf("reading %s: %w", site.Repo, err)
		}
		site.Text = text
		if s.Kind != sites.Definition {
			if sp := ssaPkg[s.Pkg.Types]; sp != nil {
				site.Func = ssa.EnclosingFunction(sp, s.Path)
			}
			if site.Func != nil {
				site.Instr = feasible.Use(site.Func, s.Ident.Pos())
			}
		}
		r.Sites = append(r.Sites, site)
	}
	return nil
}

// etcd says what source was read.
func (r *Result) etcd(t *target.Target) report.Etcd {
	e := report.Etcd{Version: r.Source.Version, Source: r.Source.Kind, Repo: t.Repo, Dirty: r.Source.Dirty}
	if r.Source.Kind == "module" {
		e.Ref = r.Source.Version
	}
	for m := range r.Source.Modules {
		e.Modules = append(e.Modules, report.Module{Path: m, Folder: r.Source.Folder(m)})
	}
	sort.Slice(e.Modules, func(i, j int) bool { return e.Modules[i].Path < e.Modules[j].Path })
	for m, why := range r.Source.Missing {
		e.Missing = append(e.Missing, report.Module{Path: m, Folder: t.LayoutMap()[m], Reason: why})
	}
	sort.Slice(e.Missing, func(i, j int) bool { return e.Missing[i].Path < e.Missing[j].Path })
	return e
}
