// Package trace is srctrace's engine: it loads a release of the etcd
// source, finds every use of a study's sentinel by identity, builds a VTA
// call graph and traces call paths from the study's entry points to each
// use. It never prints; Run returns a Result and Report converts it to the
// plain data that package annotate renders.
//
// # What is loaded from source
//
// The entry points' packages, the sentinel's package and every package of
// etcd's own modules that lies on an import path between them are loaded
// from source; everything else comes from export data. That keeps a cold run
// on the server module within a couple of seconds, and it is enough: a call
// path from an entry to a use of the sentinel can only run through packages
// that import, directly or not, the sentinel's package. Why loads the
// same way around its object, and adds the importers of a hand-off's
// sending side when its receiving side is loaded (importerSet).
package trace

import (
	"context"
	"fmt"
	"go/token"
	"go/types"
	"os"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/progress"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/roots"
	"github.com/srctrace/srctrace/trace/signal"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/study"
	"github.com/srctrace/srctrace/trace/target"
)

// Options configure Run.
type Options struct {
	Study *study.Study
	// Version is an etcd release; empty means the release this program pins.
	Version string
	// Dir is the root of an etcd checkout (exclusive with Version).
	Dir string
	// CacheDir holds work modules; empty means the user cache dir.
	CacheDir string
	// Env is added to every go command's environment.
	Env []string
	// Paths is k, the number of shortest paths per pair (default 3).
	Paths int
}

// Result is what Run found, still holding the analysis objects: the
// engine's Pass and the study's Findings.
type Result struct {
	*study.Pass
	Findings *study.Findings

	lines *lineCache
	legs1 map[[2]int][]study.Leg
	// legsHanded are legs' answers for an entry handed an untyped
	// hand-off's message (handedState).
	legsHanded map[[2]int][]study.Leg
	recv       map[recvKey][]study.Way
	// once says a crossing goes on across a second hand-off only from a
	// receiving side that does not reach the use by calls (why's runs):
	// from one that does by ways that cannot run, the legs the second
	// hand-off needs run through code that why loads or not by what else
	// it answers (why of an error's text loads the packages of every
	// object the text names: the lessor's, whose revoke deletes a lease's
	// keys and so notifies the watchers, only there), so why of a text
	// and why of one of its objects by name would disagree.
	once bool
	// shared holds the requests each typed boundary's senders make, for
	// the runs on one call graph (one of its own when none is set).
	shared *sentShare
	k      int
	// zero, when set, are fields every path checked leaves at zero
	// (feasible.Path.Zero): a run that asks what a request that never
	// sets them can reach (zeroFork).
	zero []*types.Var
}

const (
	metaMode = packages.NeedName | packages.NeedImports | packages.NeedDeps | packages.NeedModule
	fullMode = packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedTypes |
		packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule
)

// Run runs the study on the etcd source that opts name.
func Run(ctx context.Context, opts Options) (*Result, error) {
	st := opts.Study
	if st == nil {
		return nil, fmt.Errorf("running a study: no study given")
	}
	if err := st.Check(); err != nil {
		return nil, err
	}
	k := opts.Paths
	if k == 0 {
		k = 3
	}
	ph := progress.Start(ctx, "the "+st.Name+" study", 0)
	defer ph.Done()
	src, err := source.Resolve(ctx, source.Spec{
		Version:  opts.Version,
		Dir:      opts.Dir,
		Modules:  st.Modules(),
		Target:   st.Tgt(),
		CacheDir: opts.CacheDir,
		Env:      opts.Env,
	})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	r := &Result{Pass: &study.Pass{Study: st, Source: src}, lines: newLineCache()}
	r.Lines = r.lines.line

	pkgs, err := loadStudyPackages(ctx, src, st)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.Pkgs = pkgs

	sentPkg := study.PackageOf(st.Sentinel)
	sentName := strings.TrimPrefix(st.Sentinel, sentPkg+".")
	var loaded *packages.Package
	for _, p := range pkgs {
		if p.PkgPath == sentPkg && p.Types != nil {
			loaded = p
			r.Sentinel = p.Types.Scope().Lookup(sentName)
		}
	}
	if r.Sentinel == nil {
		from := "it was not loaded"
		if loaded != nil {
			from = fmt.Sprintf("loaded from %d files", len(loaded.GoFiles))
			if m := loaded.Module; m != nil {
				from += fmt.Sprintf(" of %s@%s in %s", m.Path, m.Version, m.Dir)
			}
		}
		return nil, fmt.Errorf("etcd %s has no %s in package %s (%s): this release is not supported by the study", src.Version, sentName, sentPkg, from)
	}

	ph.Next("building the call graph of " + src.Version)
	var g *callpath.Graph
	err = interruptible(ctx, func() error {
		var err error
		if g, err = callpath.Build(pkgs); err != nil {
			return fmt.Errorf("analysing etcd %s: %w", src.Version, err)
		}
		r.Graph = g
		r.Feas = feasible.New(g)
		setSerial(r.Feas, g, st.Tgt())
		setOwns(r.Feas, st.Tgt())
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The roots found from the code are needed only once the pairs are
	// traced (the study's entries take their kinds from them; findRoots):
	// they are found beside the sites, entries and hand-offs (the Graph
	// is safe for concurrent use).
	found := make(chan []roots.Root, 1)
	go func() { found <- roots.Find(g) }()

	ph.Next("tracing the paths to each use")
	// The signal (when the study follows one) needs only the study's
	// entries: it is followed on a goroutine of its own while the pairs
	// are traced (the Graph is safe for concurrent use; the signal does
	// not use the feasibility checker).
	var sig chan error
	err = interruptible(ctx, func() error {
		if err := r.findSites(); err != nil {
			return err
		}
		if err := r.resolveEntries(); err != nil {
			return err
		}
		if err := r.resolveBoundaries(); err != nil {
			return err
		}
		if st.Signal != nil {
			in := signal.Input{Spec: st.Signal, Pkgs: pkgs, Graph: g, Sentinel: r.Sentinel,
				Entries: map[string]*ssa.Function{}, Reach: map[string]map[*ssa.Function]bool{}}
			for _, e := range r.Entries {
				in.Entries[e.Name], in.Reach[e.Name] = e.Func, e.Reach
			}
			sig = make(chan error, 1)
			go func() {
				var err error
				if r.Signal, err = signal.Analyze(in); err != nil {
					err = fmt.Errorf("following the signal in etcd %s: %w", src.Version, err)
				}
				sig <- err
			}()
		}
		r.k = k
		// The study's entries take their kinds from the roots before the
		// pairs are traced: a root that a framework calls is handed
		// requests that are never nil (roots.Kind.ArgsNonNil).
		r.Roots = <-found
		for i := range r.Entries {
			r.Entries[i].Kind = r.rootKind(r.Entries[i].Func)
		}
		r.tracePairs()
		r.startedDoc()
		r.findRoots()
		return r.grep()
	})
	if err != nil {
		return nil, err
	}
	if sig != nil {
		ph.Next("following the signal")
		select {
		case err := <-sig:
			if err != nil {
				return nil, err
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if st.Analyze != nil {
		ph.Next("the study's own analysis")
		err = interruptible(ctx, func() error {
			var err error
			if r.Findings, err = st.Analyze(r.Pass); err != nil {
				return fmt.Errorf("analysing etcd %s for the %s study: %w", src.Version, st.Name, err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

// interruptible runs fn, work that cannot be stopped from inside (the call
// graph's construction in x/tools, the analyses over it), and returns
// ctx's error as soon as ctx ends, so that an interrupt is honoured at
// once; fn then finishes in the background and what it made is dropped.
func interruptible(ctx context.Context, fn func() error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// loadStudyPackages loads from source the study's packages and every
// package of etcd's modules on an import path between them.
//
// Which packages those are is read first from the files of the source's
// modules (listPackages, in this process), then checked against the
// import graph of the go command's load: when the two differ (a package of
// a module the source does not list, such as etcd's api, on such a path,
// or build constraints read otherwise), the packages the go command's
// graph gives are loaded again. The go command's graph decides; the
// listing only spares the `go list` that would otherwise come first.
func loadStudyPackages(ctx context.Context, src *source.Source, st *study.Study) ([]*packages.Package, error) {
	sentPkg := study.PackageOf(st.Sentinel)
	roots := []string{sentPkg}
	for _, e := range st.Entries {
		roots = appendUnique(roots, study.PackageOf(e.Function))
	}
	for _, root := range roots {
		if !src.HasPackage(root) {
			return nil, fmt.Errorf("etcd %s has no package %s, which the %s study names: this release's layout is not supported (the study reads etcd 3.6 and later)", src.Version, root, st.Name)
		}
	}
	own := map[string]bool{}
	for _, f := range st.Tgt().Layout {
		own[f.Module] = true
	}
	// A package the go command loaded is the target's by its module.
	ownModule := func(p *packages.Package) bool { return p.Module != nil && own[p.Module.Path] }
	var set map[string]bool
	if listed, err := listPackages(src); err == nil {
		set = studySet(listed, roots, sentPkg, func(p *packages.Package) bool { return st.Tgt().Owns(p.PkgPath) })
	}
	if set == nil {
		// The files could not be listed: a `go list` of the roots' graph.
		meta, err := src.Load(ctx, metaMode, roots...)
		if err != nil {
			return nil, err
		}
		if _, err := checkLoaded(src, st, roots, meta); err != nil {
			return nil, err
		}
		set = studySet(meta, roots, sentPkg, ownModule)
	}
	for tries := 0; ; tries++ {
		pkgs, err := src.Load(ctx, fullMode, studyPatterns(src, st, set)...)
		if err != nil {
			return nil, err
		}
		byPath, err := checkLoaded(src, st, roots, pkgs)
		if err != nil {
			return nil, err
		}
		// The graph of this load holds every package on a path from the
		// roots (they are among the packages loaded): it gives the set.
		// The roots' graph is the same in a second load, so one is enough.
		var rootPkgs []*packages.Package
		for _, root := range roots {
			rootPkgs = append(rootPkgs, byPath[root])
		}
		want := studySet(rootPkgs, roots, sentPkg, ownModule)
		if !sameSet(want, set) && tries == 0 {
			set = want
			continue
		}
		sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].PkgPath < pkgs[j].PkgPath })
		return pkgs, nil
	}
}

// studySet is the set of packages loaded from source for a study: its
// roots and every package of own that is on an import path from a root
// to the sentinel's package; nil when a root is not among pkgs' graph.
func studySet(pkgs []*packages.Package, roots []string, sentPkg string, own func(*packages.Package) bool) map[string]bool {
	byPath := map[string]*packages.Package{}
	packages.Visit(pkgs, nil, func(p *packages.Package) { byPath[p.PkgPath] = p })
	// visit(p): p is the sentinel's package or imports it, transitively.
	visit := importsOf(sentPkg)
	set := map[string]bool{}
	for _, root := range roots {
		p := byPath[root]
		if p == nil {
			return nil
		}
		set[root] = true
		packages.Visit([]*packages.Package{p}, nil, func(p *packages.Package) {
			if own(p) && visit(p) {
				set[p.PkgPath] = true
			}
		})
	}
	return set
}

// checkLoaded checks a load of the study's packages: every module of the
// source at its release, each root loaded without errors, no errors in any
// package. It returns the packages of the load's graph by path.
func checkLoaded(src *source.Source, st *study.Study, roots []string, pkgs []*packages.Package) (map[string]*packages.Package, error) {
	if err := src.CheckVersions(pkgs); err != nil {
		return nil, err
	}
	byPath := map[string]*packages.Package{}
	packages.Visit(pkgs, nil, func(p *packages.Package) { byPath[p.PkgPath] = p })
	for _, root := range roots {
		if err := rootLoaded(src, st, root, byPath[root]); err != nil {
			return nil, err
		}
	}
	if err := source.Errors(pkgs); err != nil {
		return nil, fmt.Errorf("loading etcd %s: %w", src.Version, err)
	}
	return byPath, nil
}

// rootLoaded says why a root the study names was not loaded, or nil.
func rootLoaded(src *source.Source, st *study.Study, root string, p *packages.Package) error {
	if p != nil && len(p.Errors) == 0 && p.Module != nil {
		return nil
	}
	why := "it is not in this release"
	if p != nil && len(p.Errors) > 0 {
		why = p.Errors[0].Msg
	}
	return fmt.Errorf("etcd %s has no package %s, which the %s study names (%s): this release's layout is not supported", src.Version, root, st.Name, why)
}

// studyPatterns are the packages of set and those the study's signal
// loads, sorted.
func studyPatterns(src *source.Source, st *study.Study, set map[string]bool) []string {
	var patterns []string
	for p := range set {
		patterns = append(patterns, p)
	}
	if st.Signal != nil {
		// Packages of the study's modules are loaded when the source has
		// them (a checkout may lack etcdctl/); those of the modules they
		// depend on (api, pkg) come with them.
		for _, p := range st.Signal.Load {
			if (src.Provides(p) && src.HasPackage(p)) || (!src.Provides(p) && src.InLayout(p)) {
				patterns = appendUnique(patterns, p)
			}
		}
	}
	sort.Strings(patterns)
	return patterns
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// importsOf returns a function that says whether a package is the
// package of path of or imports it, directly or not.
func importsOf(of string) func(*packages.Package) bool {
	reaches := map[*packages.Package]bool{}
	done := map[*packages.Package]bool{}
	var visit func(p *packages.Package) bool
	visit = func(p *packages.Package) bool {
		if done[p] {
			return reaches[p]
		}
		done[p] = true
		ok := p.PkgPath == of
		for _, imp := range p.Imports {
			if visit(imp) {
				ok = true
			}
		}
		reaches[p] = ok
		return ok
	}
	return visit
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func (r *Result) findSites() error {
	cited := map[string]bool{}
	for _, f := range r.Study.Citation.Files {
		cited[f] = true
	}
	return r.useSites(r.Sentinel, cited)
}

func (r *Result) resolveEntries() error {
	for _, e := range r.Study.Entries {
		fn, err := r.Graph.Func(e.Function)
		if err != nil && e.Optional {
			r.Absent = append(r.Absent, e)
			continue
		}
		if err != nil {
			return fmt.Errorf("entry %s: %s is not in etcd %s: %w", e.Name, e.Function, r.Source.Version, err)
		}
		r.Entries = append(r.Entries, study.EntryPoint{
			Entry: e,
			Func:  fn,
			Pos:   r.Graph.Prog.Fset.Position(fn.Pos()),
			Reach: r.Graph.Reachable(fn),
			Found: "study", // its Kind once the roots are found
		})
	}
	return nil
}

// resolveBoundaries resolves the target's hand-offs, then the study's own
// boundaries. A hand-off whose receiving function is no entry's makes it
// one (found from the target), so that a way across it is followed from
// every entry that reaches its sending side; one whose sending side is not
// in the loaded code is left out, as the study cannot reach it.
func (r *Result) resolveBoundaries() error {
	for _, h := range r.Study.Tgt().HandOffs {
		ei := r.entryOf(h.To)
		if ei < 0 {
			if _, err := r.Graph.Func(h.From); err != nil {
				continue
			}
			to, err := r.Graph.Func(h.To)
			if err != nil {
				continue
			}
			ei = len(r.Entries)
			r.Entries = append(r.Entries, receiverEntry(r.Graph, h, to))
		}
		if err := r.addBoundary(boundaryOf(h, r.Entries[ei].Name)); err != nil {
			return err
		}
	}
	for _, b := range r.Study.Boundaries {
		if r.EntryIndex(b.To) < 0 {
			return fmt.Errorf("boundary %s: no entry named %s in the study", b.Name, b.To)
		}
		if err := r.addBoundary(b); err != nil {
			return err
		}
	}
	return nil
}

// receiverEntry is the entry of function to, the receiving side of
// hand-off h, found from the target.
func receiverEntry(g *callpath.Graph, h target.HandOff, to *ssa.Function) study.EntryPoint {
	name := callpath.Name(to)
	return study.EntryPoint{
		Entry: study.Entry{Name: report.ShortName(name), Function: name, Doc: "the receiving side of the " + h.Name + ": " + h.Doc},
		Func:  to, Pos: g.Prog.Fset.Position(to.Pos()), Reach: g.Reachable(to), Found: "target",
	}
}

// startedDoc says, in the doc of each entry of a hand-off's receiving
// side, which hand-offs it receives, when more than one (by name, the
// first's own doc then left out), and what starts it, when a root found
// from the code does.
func (r *Result) startedDoc() {
	for i, e := range r.Entries {
		if e.Found != "target" {
			continue
		}
		var names []string
		for _, b := range r.Boundaries {
			if b.To == e.Name {
				names = append(names, "the "+b.Name)
			}
		}
		if n := len(names); n > 1 {
			e.Doc = "the receiving side of " + strings.Join(names[:n-1], ", ") + " and " + names[n-1]
			r.Entries[i].Doc = e.Doc
		}
		for _, x := range r.Roots {
			// The root is the function, or a function literal that calls
			// it (go func() { f() }()).
			runs := x.Func == e.Func || x.Func.Parent() != nil && callsDirectly(x.Func, e.Func)
			if runs && x.Kind == roots.Goroutine && x.Starter != nil {
				at := r.Graph.Prog.Fset.Position(x.At)
				r.Entries[i].Doc = fmt.Sprintf("a goroutine %s starts (%s:%d); %s", report.ShortName(callpath.Name(x.Starter)), r.Source.RepoPath(at.Filename), at.Line, e.Doc)
				break
			}
		}
	}
}

// boundaryOf is a target's hand-off into the entry named to.
func boundaryOf(h target.HandOff, to string) study.Boundary {
	h.To = to
	return study.Boundary{HandOff: h}
}

// entryOf is the index of the entry whose function is the qualified fn,
// or -1.
func (r *Result) entryOf(fn string) int {
	for i, e := range r.Entries {
		if e.Function == fn || (e.Func != nil && callpath.Name(e.Func) == fn) {
			return i
		}
	}
	return -1
}

// addBoundary resolves one boundary (its sending function, the calls
// that hand off, its message) and adds it.
func (r *Result) addBoundary(b study.Boundary) error {
	from, err := r.Graph.Func(b.From)
	if err != nil {
		return fmt.Errorf("boundary %s: %s is not in etcd %s: %w", b.Name, b.From, r.Source.Version, err)
	}
	rb := study.HandOff{Boundary: b, From: from}
	if b.Via == study.ChannelSend {
		rb.Calls, rb.Instrs, rb.Sent = channelSends(r.Graph.Prog.Fset, from)
	} else {
		viaFn, viaMethod, err := r.Graph.Callable(b.Via)
		if err != nil {
			return fmt.Errorf("boundary %s: %s is not in etcd %s: %w", b.Name, b.Via, r.Source.Version, err)
		}
		for _, fn := range withAnon(from) {
			for _, blk := range fn.Blocks {
				for _, ins := range blk.Instrs {
					call, ok := ins.(ssa.CallInstruction)
					if !ok {
						continue
					}
					c := call.Common()
					if (viaMethod != nil && c.IsInvoke() && sameMethod(c.Method, viaMethod)) ||
						(viaFn != nil && c.StaticCallee() == viaFn) {
						rb.Calls = append(rb.Calls, r.Graph.CallPos(call))
						rb.Instrs = append(rb.Instrs, call)
					}
				}
			}
		}
	}
	if len(rb.Calls) == 0 {
		return fmt.Errorf("boundary %s: %s makes no %s in etcd %s", b.Name, b.From, viaText(b.Via), r.Source.Version)
	}
	if err := r.typeBoundary(&rb); err != nil {
		return err
	}
	r.Boundaries = append(r.Boundaries, rb)
	return nil
}

// withAnon returns fn and the function literals inside it.
func withAnon(fn *ssa.Function) []*ssa.Function {
	out := []*ssa.Function{fn}
	for _, a := range fn.AnonFuncs {
		out = append(out, withAnon(a)...)
	}
	return out
}

// channelSends returns the positions of the channel sends in fn (and the
// functions it encloses), and the instructions that make them.
func channelSends(fset *token.FileSet, fn *ssa.Function) ([]token.Position, []ssa.Instruction, []ssa.Value) {
	type send struct {
		pos token.Pos
		ins ssa.Instruction
		val ssa.Value
	}
	var all []send
	for _, f := range withAnon(fn) {
		for _, blk := range f.Blocks {
			for _, ins := range blk.Instrs {
				switch x := ins.(type) {
				case *ssa.Send:
					all = append(all, send{x.Pos(), x, x.X})
				case *ssa.Select:
					for _, st := range x.States {
						if st.Dir == types.SendOnly {
							all = append(all, send{st.Pos, x, st.Send})
						}
					}
				}
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].pos < all[j].pos })
	var pos []token.Position
	var ins []ssa.Instruction
	var vals []ssa.Value
	for _, s := range all {
		pos = append(pos, fset.Position(s.pos))
		ins = append(ins, s.ins)
		vals = append(vals, s.val)
	}
	return pos, ins, vals
}

// sameMethod reports whether an invoked method is m: the same object, or a
// method of the same name on an interface that embeds m's interface.
func sameMethod(got, m *types.Func) bool {
	if got == m {
		return true
	}
	return got.Name() == m.Name() && got.Origin() == m.Origin()
}

func viaText(via string) string {
	if via == study.ChannelSend {
		return "channel send"
	}
	return "call of " + via
}

func (r *Result) grep() error {
	pat := r.Study.Citation.Pattern
	siteAt := map[string]int{}
	for i, s := range r.Sites {
		key := fmt.Sprintf("%s:%d", s.Repo, s.Pos.Line)
		if _, ok := siteAt[key]; !ok {
			siteAt[key] = i
		}
	}
	for _, f := range r.Study.Citation.Files {
		fh := study.FileHit{Repo: f}
		for _, s := range r.Sites {
			if s.Repo == f {
				fh.Sites++
			}
		}
		abs, ok := r.Source.File(f)
		if ok {
			if _, err := os.Stat(abs); err == nil {
				fh.Present = true
			}
		}
		r.Files = append(r.Files, fh)
		if !fh.Present {
			continue
		}
		lines, err := r.lines.file(abs)
		if err != nil {
			return fmt.Errorf("reading %s: %w", f, err)
		}
		for i, l := range lines {
			if strings.Contains(l, pat) {
				site := -1
				if j, ok := siteAt[fmt.Sprintf("%s:%d", f, i+1)]; ok {
					site = j
				}
				r.Grep = append(r.Grep, study.GrepHit{Repo: f, Line: i + 1, Text: l, Site: site})
			}
		}
	}
	return nil
}
