package trace

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/errtext"
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
	// "pkg/path.(*T).M", "pkg/path.T.M", "pkg/path.T.f"; the package may
	// be named by the end of its path ("mvcc.ErrCompacted",
	// "client/v3.(*WatchResponse).Err") or by its name.
	Symbol string
	// Target is the repository read; nil means target.Etcd.
	Target       *target.Target
	Version, Dir string
	CacheDir     string
	Env          []string
	Paths        int // k, the shortest paths per (root, use); default 3
	Nearest      int // roots kept per use; default 5
	// LoadingTool, when set, is called once, just before the packages
	// are loaded, when the tool's packages are loaded with them (an
	// error's user's half): such a run holds most at its end, not after
	// the load, which a caller may use to tune its collector.
	LoadingTool func()
}

// ErrNoObject is matched (errors.Is) by Why's error when the symbol names
// nothing; the error's text is the one sentence that says so.
var ErrNoObject = errors.New("no such object")

// noObject is the error of a symbol that names nothing.
type noObject struct{ msg string }

func (e noObject) Error() string        { return e.msg }
func (e noObject) Is(target error) bool { return target == ErrNoObject }

func noObjectf(format string, args ...any) error { return noObject{fmt.Sprintf(format, args...)} }

// whyDepth bounds the calls between a root (or a hand-off) and a use.
const whyDepth = 32

// Why finds every use of an object by identity (and, for a function or
// method, the calls that reach it through an interface or a function
// value; for an interface method, its implementations' uses), and the
// roots found from the code that reach each use by a path that can run:
// by calls, across the target's hand-offs, or at start-up from a
// program's main function. No study is needed. An error variable also
// gets the user's half: what the wire, the client and the target's tool
// make of it. A symbol that is not a Go name is an error's text (see
// whyText).
func Why(ctx context.Context, opts WhyOptions) (*report.Why, error) {
	t := opts.Target
	if t == nil {
		t = target.Etcd
	}
	if IsText(opts.Symbol) {
		return whyText(ctx, opts, t)
	}
	qual := study.PackageOf(opts.Symbol)
	if qual == opts.Symbol || qual == "" || strings.HasSuffix(opts.Symbol, ".") {
		return nil, fmt.Errorf("%w: %q is not a qualified name: write it as pkg.Name, pkg.(*T).M or pkg.T.f (pkg: the package's path, the end of it, or its name), or quote an error's text of more than one word", source.ErrUsage, opts.Symbol)
	}
	member := strings.TrimPrefix(opts.Symbol, qual+".")
	if strings.Contains(qual, ".") && moduleOf(t, qual) == "" {
		return nil, fmt.Errorf("%w: %s is in no module of %s (they are %s)", source.ErrUsage, qual, t.Name, strings.Join(t.Modules(), ", "))
	}
	ph := progress.Start(ctx, "why "+opts.Symbol, 0)
	defer ph.Done()
	b, err := openWhy(ctx, opts, t)
	if err != nil {
		return nil, err
	}
	defer b.close()
	pkgPath, err := resolvePackage(t, b.src, b.meta, qual, member)
	if err != nil {
		return nil, err
	}
	symbol := pkgPath + "." + member
	// An error variable gets the user's half: the tool's packages are
	// loaded too.
	var isErr bool
	if b.t.Errors != nil && !strings.ContainsAny(member, "(.") && declaresVar(b.meta, pkgPath, member) {
		if cat := b.catalog(); cat != nil && cat.Object(symbol) != nil {
			isErr = true
		}
	}
	if err := b.load(ctx, ph, []string{pkgPath}, isErr); err != nil {
		return nil, err
	}
	obj, kind, err := b.lookup(pkgPath, member)
	if err != nil {
		return nil, err
	}
	ph.Next("finding the roots that reach each use")
	rep, grpc, err := b.answer(ctx, obj, kind, symbol, isErr)
	if err != nil {
		return nil, err
	}
	if isErr {
		ph.Next("following it to the user")
		if rep.User, err = b.user(ctx, rep, grpc, 0, len(rep.Sites)); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// whyBase is what Why, whyText and the atlas share between the objects
// they answer: the source and its packages, the call graph and its roots,
// and the target's error flow when errors are answered.
type whyBase struct {
	t          *target.Target
	src        *source.Source
	meta       []*packages.Package
	pkgs       []*packages.Package // the main set, loaded from source
	g          *callpath.Graph
	feas       *feasible.Checker
	roots      []roots.Root
	lines      *lineCache
	k, nearest int
	env        []string
	// net is the gRPC network (network), read once; netMu guards it, as
	// the error flow, which reads it too, may be read beside the answers.
	netMu   sync.Mutex
	net     *roots.Network
	netRead bool
	cache   *whyCache
	cat     *errtext.Catalog
	catRead bool
	// ownRet are ownReturns' answers, once read.
	ownRet map[string][]report.Loc
	// dropped are the gRPC roots that reach a use of the error answered
	// last but return it along none of their ways (whyRun.returnsIt).
	dropped *droppedLog
	// answered is the run that answered the object answered last: the
	// user's half checks its ways again for what a command's requests
	// leave unset (refutedUnset).
	answered *whyRun
	// written are the fields the server's code stores into (serverWrites),
	// read once.
	writtenOnce sync.Once
	written     map[*types.Var][]*ssa.Function
	// flow is the error flow (flowOf), read once.
	flowRead sync.Once
	flow     *errorFlow
	flowErr  error
	// tool are the tool's packages, loaded from source with the main set
	// (nil unless errors are answered).
	tool []*packages.Package
	// loadingTool is WhyOptions.LoadingTool.
	loadingTool func()
	// progs maps a package to the programs that contain it (programs).
	progs     map[string][]string
	progsDone bool
	// ics are the server interceptors of the loaded code (interceptors),
	// found once: they depend on the load, not on the object answered.
	ics    []report.Interceptor
	icDone bool
}

// openWhy resolves the source and lists its packages.
func openWhy(ctx context.Context, opts WhyOptions, t *target.Target) (*whyBase, error) {
	k, nearest := opts.Paths, opts.Nearest
	if k == 0 {
		k = 3
	}
	if nearest == 0 {
		nearest = 5
	}
	// Every module of the target: a package's importers may be in any
	// (the client's in etcdctl), and a short name is looked for in all.
	mods := t.Modules()
	src, err := source.Resolve(ctx, source.Spec{Target: t, Version: opts.Version, Dir: opts.Dir, Modules: mods, CacheDir: opts.CacheDir, Env: opts.Env})
	if err != nil {
		return nil, err
	}
	meta, err := listPackages(src)
	if err != nil {
		src.Close()
		return nil, fmt.Errorf("listing the packages of %s %s: %w", t.Name, src.Version, err)
	}
	return &whyBase{t: t, src: src, meta: meta, lines: newLineCache(), k: k, nearest: nearest, env: opts.Env, cache: newWhyCache(), loadingTool: opts.LoadingTool}, nil
}

func (b *whyBase) close() { b.src.Close() }

// programs maps each package to the programs loaded from source (their
// main packages) whose imports contain it, directly or not; nil when
// fewer than two programs are loaded (then every root and use share one).
func (b *whyBase) programs() map[string][]string {
	if b.progs != nil || b.progsDone {
		return b.progs
	}
	b.progsDone = true
	byPath := map[string]*packages.Package{}
	packages.Visit(b.meta, nil, func(p *packages.Package) { byPath[p.PkgPath] = p })
	var mains []string
	for _, p := range b.pkgs {
		if p.Name == "main" {
			mains = append(mains, p.PkgPath)
		}
	}
	if len(mains) < 2 {
		return nil
	}
	sort.Strings(mains)
	out := map[string][]string{}
	for _, m := range mains {
		seen := map[string]bool{}
		var visit func(string)
		visit = func(path string) {
			p := byPath[path]
			if p == nil || seen[path] || !b.t.Owns(path) {
				return
			}
			seen[path] = true
			out[path] = append(out[path], m)
			for ip := range p.Imports {
				visit(ip)
			}
		}
		visit(m)
	}
	b.progs = out
	return out
}

// load loads from source the packages that import those of pkgPaths (see
// importerSet) and, with tool, the target's tool and every package of
// the target it imports; then builds the call graph of the main set.
func (b *whyBase) load(ctx context.Context, ph *progress.Phase, pkgPaths []string, tool bool) error {
	set, err := importerSet(b.src, b.t, b.meta, pkgPaths)
	if err != nil {
		return err
	}
	var toolSet []string
	if tool && b.t.Errors != nil && b.t.Errors.Tool != nil {
		toolSet = b.toolSet()
	}
	all := append(append([]string{}, set...), toolSet...)
	if len(toolSet) > 0 && b.loadingTool != nil {
		b.loadingTool()
	}
	pkgs, err := loadSet(ctx, b.src, b.t, all)
	if err != nil {
		return err
	}
	in := map[string]bool{}
	for _, p := range set {
		in[p] = true
	}
	inTool := map[string]bool{}
	for _, p := range toolSet {
		inTool[p] = true
	}
	for _, p := range pkgs {
		if in[p.PkgPath] {
			b.pkgs = append(b.pkgs, p)
		}
		if inTool[p.PkgPath] {
			b.tool = append(b.tool, p)
		}
	}
	if len(b.tool) > 0 && b.t.Errors != nil {
		// The error flow reads the tool's own call graph, not the
		// server's: it is read beside the server's, whose passes leave a
		// core idle, where it would otherwise wait for the answers.
		go b.flowOf()
	}
	ph.Next("building the call graph of " + b.src.Version)
	var g *callpath.Graph
	if err := interruptible(ctx, func() (err error) { g, err = callpath.Build(b.pkgs); return err }); err != nil {
		if ctx.Err() != nil {
			return err
		}
		return fmt.Errorf("analysing %s %s: %w", b.t.Name, b.src.Version, err)
	}
	b.g, b.feas, b.roots = g, feasible.New(g), roots.Find(g)
	setSerial(b.feas, g, b.t)
	setOwns(b.feas, b.t)
	return nil
}

// setOwns tells checker c which packages are target t's own code.
func setOwns(c *feasible.Checker, t *target.Target) {
	if t != nil {
		c.Owns = t.Owns
	}
}

// setSerial tells checker c which functions of g run one call at a
// time: the receiving sides of target t's serial hand-offs, each with
// the function whose calls return before its runs begin, where the
// target names one.
func setSerial(c *feasible.Checker, g *callpath.Graph, t *target.Target) {
	if t == nil {
		return
	}
	for _, h := range t.HandOffs {
		if !h.Serial {
			continue
		}
		if fn, err := g.Func(h.To); err == nil {
			c.SetSerial(fn, h.Name)
			if h.After != "" {
				if after, err := g.Func(h.After); err == nil {
					c.SetSerialAfter(fn, after, h.AfterWhy)
				}
			}
		}
	}
}

// lookup finds a member of a loaded package.
func (b *whyBase) lookup(pkgPath, member string) (types.Object, string, error) {
	var pkg *packages.Package
	for _, p := range b.pkgs {
		if p.PkgPath == pkgPath {
			pkg = p
		}
	}
	if pkg == nil || pkg.Types == nil {
		return nil, "", noObjectf("%s %s has no package %s", b.t.Name, b.src.Version, pkgPath)
	}
	obj, kind, err := lookupObject(pkg.Types, member)
	if err != nil {
		return nil, "", noObjectf("%s %s: %v", b.t.Name, b.src.Version, err)
	}
	return obj, kind, nil
}

// answer finds the uses of one object and the roots that reach each;
// with grpc, also every gRPC root that reaches each use (for the user's
// half), by the use's index.
func (b *whyBase) answer(ctx context.Context, obj types.Object, kind, symbol string, grpc bool) (*report.Why, map[int][]roots.Root, error) {
	r := &Result{Pass: &study.Pass{Source: b.src, Pkgs: b.pkgs, Graph: b.g, Feas: b.feas, Sentinel: obj, Roots: b.roots},
		lines: b.lines, k: b.k, once: true}
	r.Lines = r.lines.line
	if err := r.whyUses(obj); err != nil {
		return nil, nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	rep := &report.Why{Symbol: symbol, Etcd: r.etcd(b.t), Nearest: b.nearest, Roots: map[string]int{},
		Sites: []report.Site{}, Entries: []report.Entry{}, Paths: []report.PairPaths{}, Ways: []report.WhyWay{}, HandOffs: []report.Boundary{}}
	for _, x := range r.Roots {
		rep.Roots[string(x.Kind)]++
	}
	for _, p := range b.pkgs {
		rep.Packages = append(rep.Packages, p.PkgPath)
	}
	pos := b.g.Fset().Position(obj.Pos())
	rep.Object = report.Object{Name: symbol, Kind: kind, File: b.src.RepoPath(pos.Filename), Line: pos.Line}
	if text, err := r.lines.line(pos.Filename, pos.Line); err == nil {
		rep.Object.Text = strings.TrimSpace(text)
	}
	w := &whyRun{Result: r, nearest: b.nearest, added: map[*ssa.Function]int{}, cache: b.cache, programs: b.programs(),
		translate: b.translateFuncs(), dropped: newDroppedLog()}
	if grpc {
		// The user's half reads the error flow next; it needs neither the
		// answers nor the graph, so a core the answers leave idle reads it.
		w.idle = func() { b.flowOf() }
	}
	r.shared = &b.cache.sent
	w.handOffs(b.t)
	var reached map[int][]roots.Root
	if err := interruptible(ctx, func() (err error) {
		reached, err = answerUses(ctx, w, grpc, useShards)
		return err
	}); err != nil {
		return nil, nil, err
	}
	if grpc {
		w.dropPairs()
		w.quietPairs()
	}
	b.dropped, b.answered = w.dropped, w
	var err error
	if rep.Sites, err = r.reportSites(); err != nil {
		return nil, nil, err
	}
	var net *roots.Network
	if w.needsNetwork() {
		if net, err = b.network(); err != nil {
			return nil, nil, err
		}
		if !b.icDone {
			b.ics, b.icDone = w.interceptors(), true
		}
		rep.Interceptors = b.ics
	}
	rep.Entries, rep.Paths = w.reportEntries(net), r.reportPaths()
	rep.Ways = w.reportWays()
	for _, bd := range r.Boundaries {
		pos := bd.Calls[0]
		rep.HandOffs = append(rep.HandOffs, report.Boundary{Name: bd.Name, From: bd.Boundary.From, Via: bd.Via, To: bd.To, Doc: bd.Doc,
			File: b.src.RepoPath(pos.Filename), Line: pos.Line, Column: pos.Column, Message: bd.Boundary.Message})
	}
	rep.Absent = w.absent
	return rep, reached, nil
}

// useShards is how many parts why answers an object's uses in, each on a
// fork of its own (with its own feasibility checker), beside each other:
// a fixed number, not the machine's, so that what each checker is asked,
// and in which order, is the same on every machine; each fork learns
// again what its checker memoizes.
var useShards = 4

// answerUses finds the roots of each of w's uses, then, with grpc, the
// gRPC roots of each (by the use's index), as if w had answered them one
// after the other: the uses are split, in their order, into shards of
// about the same weight, each answered on a fork of w of its own
// (onForks), and w adopts the forks' answers in the uses' order, every
// use's roots before any use's gRPC roots.
func answerUses(ctx context.Context, w *whyRun, grpc bool, shards int) (map[int][]roots.Root, error) {
	n := len(w.Sites)
	weights := make([]int, n)
	for si := range weights {
		weights[si] = 1 + w.useWeight(si)
	}
	parts, sizes := shardsOf(weights, shards)
	answers := make([]forked, len(parts))
	// warm is the first part's checker, kept past its fork's release.
	var warm *feasible.Checker
	err := onForks(w, parts, sizes, func(f *whyRun, pi int) error {
		part := parts[pi]
		a, err := f.answer(ctx, part[0], part[len(part)-1]+1, grpc, true)
		answers[pi] = a
		if pi == 0 {
			warm = f.Feas
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, a := range answers {
		w.adopt(a)
	}
	w.adoptGRPC(answers)
	// What is checked after the answers (the pairs dropped, the user's
	// half) is checked by the first part's checker, which the answers
	// warmed, not by w's, which they did not use: always the same part's,
	// so that what it is asked after what it learnt is the same on every
	// machine.
	if warm != nil {
		w.Feas = warm
	}
	if !grpc {
		return nil, nil
	}
	reached := map[int][]roots.Root{}
	for _, a := range answers {
		for si, rs := range a.grpc {
			reached[si] = rs
		}
	}
	return reached, nil
}

// moduleOf is the module of the target that holds package path pkg
// (the longest that prefixes it), or "".
func moduleOf(t *target.Target, pkg string) string {
	mod := ""
	for _, f := range t.Layout {
		if (pkg == f.Module || strings.HasPrefix(pkg, f.Module+"/")) && len(f.Module) > len(mod) {
			mod = f.Module
		}
	}
	return mod
}

// resolvePackage finds the package a symbol's qualifier names: a
// package's path, the end of it ("mvcc", "client/v3") or its name
// ("clientv3"). Several packages that declare the member's first name are
// a usage error that lists them; a qualifier that names no package gets
// the closest package names.
func resolvePackage(t *target.Target, src *source.Source, meta []*packages.Package, qual, member string) (string, error) {
	byPath := map[string]*packages.Package{}
	packages.Visit(meta, nil, func(p *packages.Package) {
		if t.Owns(p.PkgPath) && !strings.HasSuffix(p.PkgPath, ".test") && !strings.HasSuffix(p.PkgPath, "_test") {
			byPath[p.PkgPath] = p
		}
	})
	if _, ok := byPath[qual]; ok {
		return qual, nil
	}
	if strings.Contains(qual, ".") && moduleOf(t, qual) != "" {
		return "", noObjectf("%s %s has no package %s", t.Name, src.Version, qual)
	}
	var cands []string
	for path, p := range byPath {
		if strings.HasSuffix(path, "/"+qual) || (!strings.Contains(qual, "/") && p.Name == qual) {
			cands = append(cands, path)
		}
	}
	sort.Strings(cands)
	if len(cands) == 0 {
		var names []string
		for path, p := range byPath {
			names = append(names, path[strings.LastIndex(path, "/")+1:], p.Name)
		}
		return "", noObjectf("%s %s has no package %s%s", t.Name, src.Version, qual, closest(qual, names))
	}
	if len(cands) == 1 {
		return cands[0], nil
	}
	// Several: those that declare the member's first name.
	first := member
	if strings.HasPrefix(first, "(*") {
		first = strings.TrimPrefix(first, "(*")
		if i := strings.Index(first, ")"); i >= 0 {
			first = first[:i]
		}
	} else if i := strings.Index(first, "."); i >= 0 {
		first = first[:i]
	}
	var declare []string
	for _, c := range cands {
		if declares(byPath[c], first) {
			declare = append(declare, c)
		}
	}
	if len(declare) == 1 {
		return declare[0], nil
	}
	if len(declare) > 1 {
		cands = declare
	}
	return "", fmt.Errorf("%w: %s names %d packages of %s %s (%s): write the one you mean by its path, e.g. %s.%s", source.ErrUsage,
		qual, len(cands), t.Name, src.Version, strings.Join(cands, ", "), cands[0], member)
}

// declaresVar reports whether package path's files declare a variable
// name at package level.
func declaresVar(meta []*packages.Package, path, name string) bool {
	found := false
	packages.Visit(meta, nil, func(p *packages.Package) {
		if p.PkgPath != path || found {
			return
		}
		fset := token.NewFileSet()
		for _, f := range p.GoFiles {
			af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				continue
			}
			for _, d := range af.Decls {
				if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.VAR {
					for _, sp := range gd.Specs {
						for _, n := range sp.(*ast.ValueSpec).Names {
							found = found || n.Name == name
						}
					}
				}
			}
		}
	})
	return found
}

// declares reports whether a package's files declare name at package
// level (read with go/parser, declarations only).
func declares(p *packages.Package, name string) bool {
	fset := token.NewFileSet()
	for _, f := range p.GoFiles {
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == name {
					return true
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						if sp.Name.Name == name {
							return true
						}
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							if n.Name == name {
								return true
							}
						}
					}
				}
			}
		}
	}
	return false
}

// importerSet is what is loaded from source for objects of pkgPaths:
// each of them and every package of the target's modules that imports
// one, directly or not; and, for each of the target's hand-offs whose
// receiving side is among them, the packages that import its sending
// side's (the roots that send work across it need not import the
// object's package: the compactor proposes a compaction that the applier
// runs); and the target's Messages and Gates. Everything else comes from
// export data.
func importerSet(src *source.Source, t *target.Target, meta []*packages.Package, pkgPaths []string) ([]string, error) {
	byPath := map[string]*packages.Package{}
	packages.Visit(meta, nil, func(p *packages.Package) { byPath[p.PkgPath] = p })
	in := map[string]bool{}
	addImporters := func(of string) {
		visit := importsOf(of)
		for path, p := range byPath {
			if t.Owns(path) && visit(p) && len(p.Errors) == 0 && !strings.HasSuffix(path, ".test") {
				in[path] = true
			}
		}
	}
	for _, p := range pkgPaths {
		addImporters(p)
	}
	crossed := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for _, h := range t.HandOffs {
			from := study.PackageOf(h.From)
			if in[study.PackageOf(h.To)] && !crossed[from] {
				crossed[from] = true
				addImporters(from)
				changed = true
			}
		}
	}
	if len(in) == 0 {
		return nil, noObjectf("no package of %s %s is %s", t.Name, src.Version, strings.Join(pkgPaths, ", "))
	}
	for _, m := range append(append([]string{}, t.Messages...), t.Gates...) {
		if p, ok := byPath[m]; ok && len(p.Errors) == 0 {
			in[m] = true
		}
	}
	var set []string
	for path := range in {
		set = append(set, path)
	}
	sort.Strings(set)
	if len(set) == 0 {
		return nil, noObjectf("no package of %s %s is %s", t.Name, src.Version, strings.Join(pkgPaths, ", "))
	}
	return set, nil
}

// loadSet loads packages from source, sorted by path.
func loadSet(ctx context.Context, src *source.Source, t *target.Target, set []string) ([]*packages.Package, error) {
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

// translateFuncs are the target's translate functions found in the
// loaded code.
func (b *whyBase) translateFuncs() map[*ssa.Function]bool {
	out := map[*ssa.Function]bool{}
	if b.t == nil || b.t.Errors == nil {
		return out
	}
	for _, name := range b.t.Errors.Translate {
		if fn, err := b.g.Func(name); err == nil {
			out[fn] = true
		}
	}
	return out
}
