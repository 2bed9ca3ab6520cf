package trace

import (
	"context"
	"fmt"
	"go/ast"
	"go/types"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/errtext"
	"github.com/srctrace/srctrace/trace/progress"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/roots"
	"github.com/srctrace/srctrace/trace/sites"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/study"
	"github.com/srctrace/srctrace/trace/target"
)

// ErrorsOptions configure Errors.
type ErrorsOptions struct {
	// Target is the repository read; nil means target.Etcd.
	Target       *target.Target
	Version, Dir string
	CacheDir     string
	Env          []string
	Paths        int // k, the shortest paths per (root, use); default 3
	Nearest      int // roots kept per use; default 5
}

// Errors makes the atlas of a release: every exported error variable of
// the target's atlas modules, with its text, the gRPC code it is carried
// with, its uses and the roots that reach each (as why finds them), and
// the target tool's commands that can print it. One load of every package
// of the target's modules and one call graph serve every error.
func Errors(ctx context.Context, opts ErrorsOptions) (*report.Atlas, error) {
	t := opts.Target
	if t == nil {
		t = target.Etcd
	}
	if t.Errors == nil || len(t.Errors.Atlas) == 0 {
		return nil, fmt.Errorf("%w: %s's errors are not described: there is no atlas to make", source.ErrUsage, t.Name)
	}
	ph := progress.Start(ctx, "the errors of "+t.Name, 0)
	defer ph.Done()
	b, err := openWhy(ctx, WhyOptions{Target: t, Version: opts.Version, Dir: opts.Dir, CacheDir: opts.CacheDir, Env: opts.Env, Paths: opts.Paths, Nearest: opts.Nearest}, t)
	if err != nil {
		return nil, err
	}
	defer b.close()
	cat := b.catalog()
	var all []string
	packages.Visit(b.meta, nil, func(p *packages.Package) {
		if t.Owns(p.PkgPath) && !strings.HasSuffix(p.PkgPath, ".test") && len(p.Errors) == 0 && len(p.GoFiles) > 0 {
			all = append(all, p.PkgPath)
		}
	})
	sort.Strings(all)
	if err := b.load(ctx, ph, all, true); err != nil {
		return nil, err
	}
	inAtlas := func(pkg string) bool {
		for _, m := range t.Errors.Atlas {
			if pkg == m || strings.HasPrefix(pkg, m+"/") {
				return true
			}
		}
		return false
	}
	errIface := types.Universe.Lookup("error").Type().Underlying().(*types.Interface)
	type errVar struct {
		obj  types.Object
		name string
	}
	var vars []errVar
	for _, p := range b.pkgs {
		if !inAtlas(p.PkgPath) || !inAtlasModule(t, p.PkgPath) {
			continue
		}
		sc := p.Types.Scope()
		for _, n := range sc.Names() {
			v, ok := sc.Lookup(n).(*types.Var)
			if !ok || !v.Exported() || !types.Implements(v.Type(), errIface) {
				continue
			}
			vars = append(vars, errVar{v, p.PkgPath + "." + n})
		}
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i].name < vars[j].name })
	atlas := &report.Atlas{Modules: append([]string{}, t.Errors.Atlas...), Nearest: b.nearest, Errors: []report.AtlasError{}}
	if t.Errors.Tool != nil {
		atlas.Tool = t.Errors.Tool.Name
	}
	ph.Next("finding the uses and roots of each error")
	// One Result for every error: the roots, the hand-offs and what the
	// search learns of them are found once.
	r := &Result{Pass: &study.Pass{Source: b.src, Pkgs: b.pkgs, Graph: b.g, Feas: b.feas, Roots: b.roots}, lines: b.lines, k: b.k, once: true}
	r.Lines = r.lines.line
	objs := map[types.Object]bool{}
	for _, v := range vars {
		objs[v.obj] = true
	}
	found := map[types.Object][]sites.Site{}
	for _, s := range sites.FindAny(b.pkgs, objs) {
		found[s.Object] = append(found[s.Object], s)
	}
	// An error's uses in generated code (a file whose header says so, as
	// go/ast.IsGenerated reads it) come last, and their roots are not
	// searched: at some releases they are thousands (a decoder's errors,
	// used in every message's Unmarshal), each reached from nearly every
	// root. [lo, gen) are the uses answered, [gen, hi) those listed only.
	type span struct{ lo, gen, hi int }
	spans := make([]span, len(vars))
	byPlace := func(ss []study.Site) {
		sort.SliceStable(ss, func(i, j int) bool {
			if ss[i].Repo != ss[j].Repo {
				return ss[i].Repo < ss[j].Repo
			}
			return ss[i].Pos.Offset < ss[j].Pos.Offset
		})
	}
	for i, v := range vars {
		var own, gen []study.Site
		for _, s := range found[v.obj] {
			site, err := r.site(s)
			if err != nil {
				return nil, err
			}
			if s.Kind != sites.Definition && s.File != nil && ast.IsGenerated(s.File) {
				gen = append(gen, site)
			} else {
				own = append(own, site)
			}
		}
		byPlace(own)
		byPlace(gen)
		spans[i].lo = len(r.Sites)
		r.Sites = append(r.Sites, own...)
		spans[i].gen = len(r.Sites)
		r.Sites = append(r.Sites, gen...)
		spans[i].hi = len(r.Sites)
	}
	w := &whyRun{Result: r, nearest: b.nearest, added: map[*ssa.Function]int{}, cache: b.cache, programs: b.programs(),
		translate: b.translateFuncs(), dropped: newDroppedLog()}
	r.shared = &b.cache.sent
	w.handOffs(t)
	// The user's half needs every gRPC root that reaches a use of an
	// error whose text is known.
	known := make([]bool, len(vars))
	for i, v := range vars {
		if o := cat.Var(v.name); o != nil && o.Known() {
			known[i] = true
		}
	}
	each := progress.Start(ctx, fmt.Sprintf("%d errors, %d uses", len(vars), len(r.Sites)), len(vars))
	var stepMu sync.Mutex
	stopped := false
	step := func() {
		stepMu.Lock()
		defer stepMu.Unlock()
		if !stopped {
			each.Step()
		}
	}
	lo, hi := make([]int, len(vars)), make([]int, len(vars))
	for i := range vars {
		lo[i], hi[i] = spans[i].lo, spans[i].gen
	}
	var answers []forked
	err = interruptible(ctx, func() (err error) {
		answers, err = answerErrors(ctx, w, lo, hi, known, errorShards, step)
		return err
	})
	stepMu.Lock()
	stopped = true
	stepMu.Unlock()
	each.Done()
	if err != nil {
		return nil, err
	}
	// Taken in the errors' order: the entries, pairs and roots are those
	// of one run over every error.
	reached := map[int][]roots.Root{}
	for _, a := range answers {
		w.adopt(a)
		for si, rs := range a.grpc {
			reached[si] = rs
		}
	}
	w.dropPairs()
	w.quietPairs()
	b.dropped, b.answered = w.dropped, w
	repSites, err := r.reportSites()
	if err != nil {
		return nil, err
	}
	net, err := b.network()
	if err != nil {
		return nil, err
	}
	entries := w.reportEntries(net)
	ways := w.reportWays()
	pairsOf := map[int][]report.PairPaths{}
	for _, p := range r.Pairs {
		pairsOf[p.Site] = append(pairsOf[p.Site], report.PairPaths{Entry: r.Entries[p.Entry].Name, Site: report.SiteRef{Index: p.Site}, Feasible: string(p.Verdict)})
	}
	waysOf := map[int][]string{}
	for _, x := range ways {
		waysOf[x.Site] = append(waysOf[x.Site], x.By)
	}
	atlas.Etcd = r.etcd(t)
	anchors := map[string]bool{}
	users := map[string]*report.User{}
	for i, v := range vars {
		o := cat.Var(v.name)
		pos := b.g.Fset().Position(v.obj.Pos())
		e := report.AtlasError{Object: v.name, Anchor: report.ErrorAnchor(v.name), Uses: []report.AtlasUse{}, Roots: []string{}, Etcdctl: []report.UserCommand{},
			File: b.src.RepoPath(pos.Filename), Line: pos.Line, Kind: string(errtext.Unknown)}
		if text, err := b.lines.line(pos.Filename, pos.Line); err == nil {
			e.Decl = strings.TrimSpace(text)
		}
		for n := 2; anchors[e.Anchor]; n++ {
			e.Anchor = fmt.Sprintf("%s-%d", report.ErrorAnchor(v.name), n)
		}
		anchors[e.Anchor] = true
		if o != nil {
			e.Kind, e.Expr = string(o.Kind), o.Expr
			if o.Known() {
				e.Text, e.GRPCCode = o.Text, cat.WireCode(o)
			}
			for _, tr := range cat.Into(v.name) {
				e.TranslatedFrom = appendUnique(e.TranslatedFrom, tr.From)
			}
		}
		roots := map[string]bool{}
		one := &report.Why{Symbol: v.name, Entries: entries, Paths: []report.PairPaths{}, Sites: repSites}
		for si := spans[i].lo; si < spans[i].hi; si++ {
			s := repSites[si]
			one.Paths = append(one.Paths, pairsOf[si]...)
			if s.Kind == "definition" {
				continue
			}
			u := report.AtlasUse{File: s.File, Line: s.Line, Kind: s.Kind, Function: s.Function, Text: strings.TrimSpace(s.Text), Init: s.Init, Roots: []string{}, Ways: waysOf[si],
				Generated: si >= spans[i].gen}
			u.Roots = append(u.Roots, s.Roots...)
			for _, x := range s.Roots {
				roots[x] = true
			}
			e.Uses = append(e.Uses, u)
		}
		for x := range roots {
			e.Roots = append(e.Roots, x)
		}
		sort.Strings(e.Roots)
		if o != nil && o.Known() {
			if e.User, err = b.user(ctx, one, reached, spans[i].lo, spans[i].hi); err != nil {
				return nil, err
			}
			if e.User != nil {
				e.User.Unsearched = spans[i].hi - spans[i].gen
				users[v.name] = e.User
			}
		}
		atlas.Errors = append(atlas.Errors, e)
	}
	ph.Next("following each error to the user")
	// A wire error's user's half is also that of the server errors
	// translated into it; a client value's, its wire error's.
	f, err := b.flowOf()
	if err != nil {
		return nil, err
	}
	// Each error's own rows whose requests cannot take a way to its uses
	// (Cannot), as its own answer found them.
	cannot := map[string]map[[2]string]report.UserCommand{}
	for name, u := range users {
		for _, c := range u.Etcdctl {
			if c.Cannot != nil {
				if cannot[name] == nil {
					cannot[name] = map[[2]string]report.UserCommand{}
				}
				cannot[name][[2]string{c.Command, c.Method}] = c
			}
		}
	}
	for i := range atlas.Errors {
		e := &atlas.Errors[i]
		if e.User == nil {
			continue
		}
		methods := map[string]bool{}
		from := map[string][]string{} // method -> the errors it is of
		add := func(name string) {
			if u := users[name]; u != nil {
				for _, m := range u.Methods {
					methods[m] = true
					from[m] = append(from[m], name)
				}
			}
		}
		add(e.Object)
		wire := e.Object
		if e.User.GRPC != nil && e.User.GRPC.By == "made-from" {
			wire = e.User.GRPC.Object
			add(wire)
		}
		for _, name := range []string{e.Object, wire} {
			for _, tr := range cat.Into(name) {
				add(tr.From)
			}
		}
		e.User.Methods = e.User.Methods[:0]
		for m := range methods {
			e.User.Methods = append(e.User.Methods, m)
		}
		sort.Strings(e.User.Methods)
		// Methods of several errors: no use of one is checked again here.
		if err := b.commands(ctx, f, e.User, nil, 0, 0); err != nil {
			return nil, err
		}
		// A row cannot be when it cannot be for every error whose method
		// it is.
		for j := range e.User.Etcdctl {
			c := &e.User.Etcdctl[j]
			var first *report.UserCommand
			all := len(from[c.Method]) > 0
			for _, name := range from[c.Method] {
				x, ok := cannot[name][[2]string{c.Command, c.Method}]
				if !ok {
					all = false
					break
				}
				if first == nil {
					first = &x
				}
			}
			if all && first != nil {
				c.Unset, c.Cannot = first.Unset, first.Cannot
			}
		}
		e.Etcdctl = e.User.Etcdctl
	}
	return atlas, nil
}

// inAtlasModule reports whether a package is in one of the target's atlas
// modules and not in a module nested in it (the longest module path that
// holds it is an atlas module).
func inAtlasModule(t *target.Target, pkg string) bool {
	m := moduleOf(t, pkg)
	for _, a := range t.Errors.Atlas {
		if m == a {
			return true
		}
	}
	return false
}

// errorShards is how many parts the atlas's errors are answered in, each
// on a fork of its own (with its own feasibility checker), beside each
// other: a fixed number, not the machine's, so that what each checker is
// asked, and in which order, is the same on every machine. Eight keep two
// to four workers busy to the end though an error's cost is known only
// roughly (at v3.7.3 one error is a fifth of the work); each fork learns
// again what its checker memoizes (measured at v3.7.3: 2% more
// allocation than one shard).
var errorShards = 8

// answerErrors answers the uses of each error i, [lo[i], hi[i]), with
// the gRPC roots of each when grpc[i]: the errors are split, in their
// order, into shards of about the same weight (shardsOf), and each shard
// is answered in order on a fork of w of its own (onForks). step is
// called after each error. The answers are by error, for w to adopt in
// order. What a shard's checker is asked, and in which order, depends on
// the errors only, not on the machine or on which shard ends first.
func answerErrors(ctx context.Context, w *whyRun, lo, hi []int, grpc []bool, shards int, step func()) ([]forked, error) {
	n := len(lo)
	// An error's weight is how many functions reach its uses (within
	// whyDepth calls): the roots to try and the paths to check grow with
	// them.
	weights := make([]int, n)
	for i := 0; i < n; i++ {
		weights[i] = 1
		for si := lo[i]; si < hi[i]; si++ {
			weights[i] += w.useWeight(si)
		}
	}
	parts, sizes := shardsOf(weights, shards)
	answers := make([]forked, n)
	err := onForks(w, parts, sizes, func(f *whyRun, pi int) error {
		for _, i := range parts[pi] {
			a, err := f.answer(ctx, lo[i], hi[i], grpc[i], false)
			if err != nil {
				return err
			}
			answers[i] = a
			step()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return answers, nil
}
