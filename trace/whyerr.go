package trace

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/errtext"
	"github.com/srctrace/srctrace/trace/progress"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/roots"
	"github.com/srctrace/srctrace/trace/signal"
	"github.com/srctrace/srctrace/trace/sites"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/study"
	"github.com/srctrace/srctrace/trace/target"
)

// goName is a qualified Go name as why takes it: pkg.Name, pkg.(*T).M,
// pkg.T.M, pkg.T.f; or a lone identifier (refused with a hint).
var goName = regexp.MustCompile(`^([A-Za-z0-9_.~/-]+\.)?(\(\*[A-Za-z_][A-Za-z0-9_]*\)\.[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?)$`)

// IsText reports whether why's argument is an error's text rather than
// a Go name: anything that is not written as one (a lone word is a name).
func IsText(s string) bool {
	return !goName.MatchString(strings.TrimSpace(s))
}

// maxMatches is how many objects a text may match (not counting the
// server errors translated into them) before it is refused as too vague.
const maxMatches = 12

// whyText answers for an error's text: every error object of the
// target's modules whose text it is, and the server errors translated
// into those, each as for its name, with its user's half.
func whyText(ctx context.Context, opts WhyOptions, t *target.Target) (*report.Why, error) {
	text := strings.TrimSpace(opts.Symbol)
	if t.Errors == nil {
		return nil, fmt.Errorf("%w: %q is not a Go name, and %s's errors are not described: name an object as pkg.Name", source.ErrUsage, text, t.Name)
	}
	if text == "" {
		return nil, fmt.Errorf("%w: an empty text names no error: give an error's text, or an object as pkg.Name", source.ErrUsage)
	}
	ph := progress.Start(ctx, fmt.Sprintf("why %q", text), 0)
	defer ph.Done()
	b, err := openWhy(ctx, opts, t)
	if err != nil {
		return nil, err
	}
	defer b.close()
	cat := b.catalog()
	res := cat.Match(text, b.forms())
	if len(res.Matches) == 0 {
		closest := cat.Closest(res.Stripped, 3)
		msg := ""
		if len(closest) > 0 {
			var qs []string
			for _, c := range closest {
				qs = append(qs, fmt.Sprintf("%q", c))
			}
			msg = "; the closest texts are " + strings.Join(qs, ", ")
		}
		code := ""
		if res.Code != "" {
			code = " with gRPC code " + res.Code
		}
		return nil, noObjectf("%s %s has no error whose text is or contains %q%s%s", t.Name, b.src.Version, res.Stripped, code, msg)
	}
	primary := 0
	for _, m := range res.Matches {
		if m.How != errtext.Translated {
			primary++
		}
	}
	if primary > maxMatches {
		var some []string
		for _, m := range res.Matches[:3] {
			some = append(some, fmt.Sprintf("%q (%s)", m.Object.Text, report.ShortName(m.Object.Name)))
		}
		return nil, fmt.Errorf("%w: %q is a part of the texts of %d errors of %s %s, among them %s: write more of the text", source.ErrUsage, res.Stripped, primary, t.Name, b.src.Version, strings.Join(some, ", "))
	}
	var paths []string
	for _, m := range res.Matches {
		paths = appendUnique(paths, m.Object.Pkg)
	}
	sort.Strings(paths)
	if err := b.load(ctx, ph, paths, true); err != nil {
		return nil, err
	}
	rep := &report.Why{Text: text, Stripped: res.Stripped, Forms: res.Forms, Code: res.Code, Nearest: b.nearest,
		Roots: map[string]int{}, Sites: []report.Site{}, Entries: []report.Entry{}, Paths: []report.PairPaths{}, Ways: []report.WhyWay{}, HandOffs: []report.Boundary{}}
	for _, p := range b.pkgs {
		rep.Packages = append(rep.Packages, p.PkgPath)
	}
	for _, x := range b.roots {
		rep.Roots[string(x.Kind)]++
	}
	for _, m := range res.Matches {
		o := m.Object
		ph.Next("answering for " + report.ShortName(o.Name))
		rep.Matches = append(rep.Matches, report.Match{Object: o.Name, Kind: string(o.Kind), Text: o.Text, Code: cat.WireCode(o),
			How: string(m.How), Via: m.Via, File: b.src.RepoPath(o.Pos.Filename), Line: o.Pos.Line, Decl: o.Pos.Text})
		obj, kind, err := b.lookup(o.Pkg, strings.TrimPrefix(o.Name, o.Pkg+"."))
		if err != nil {
			return nil, err
		}
		a, grpc, err := b.answer(ctx, obj, kind, o.Name, true)
		if err != nil {
			return nil, err
		}
		if a.User, err = b.user(ctx, a, grpc, 0, len(a.Sites)); err != nil {
			return nil, err
		}
		rep.Answers = append(rep.Answers, a)
	}
	rep.Etcd = rep.Answers[0].Etcd
	return rep, nil
}

// catalog reads, once, the error variables of every package of the
// target's modules from their syntax (nil when the target's errors are
// not described).
func (b *whyBase) catalog() *errtext.Catalog {
	if b.catRead {
		return b.cat
	}
	b.catRead = true
	if b.t.Errors == nil {
		return nil
	}
	fset := token.NewFileSet()
	var list []*packages.Package
	packages.Visit(b.meta, nil, func(p *packages.Package) {
		if b.t.Owns(p.PkgPath) && !strings.HasSuffix(p.PkgPath, ".test") && len(p.GoFiles) > 0 {
			list = append(list, p)
		}
	})
	sort.Slice(list, func(i, j int) bool { return list[i].PkgPath < list[j].PkgPath })
	ps := make([]errtext.Package, len(list))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, p := range list {
		ps[i] = errtext.Package{Path: p.PkgPath, Name: p.Name}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var files []*ast.File
			for _, name := range p.GoFiles {
				// A FileSet is safe for concurrent use.
				f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
				if err == nil {
					files = append(files, f)
				}
			}
			ps[i].Files = files
		}()
	}
	wg.Wait()
	b.cat = errtext.Read(fset, ps, b.spec())
	return b.cat
}

func (b *whyBase) spec() errtext.Spec {
	return errtext.Spec{Translate: b.t.Errors.Translate, Convert: b.t.Errors.Convert}
}

// forms are the forms a user's text may come in: gRPC's status forms and
// the tool's, read from its exit function.
func (b *whyBase) forms() []errtext.Form {
	forms := errtext.GRPCForms()
	if tl := b.t.Errors.Tool; tl != nil && b.cat != nil {
		if f, ok := b.cat.ExitForm(tl.Exit, tl.Name); ok {
			forms = append(forms, f)
		}
	}
	return forms
}

// toolSet is the tool's root package and every package of the target's
// modules it imports, directly or not.
func (b *whyBase) toolSet() []string {
	byPath := map[string]*packages.Package{}
	packages.Visit(b.meta, nil, func(p *packages.Package) { byPath[p.PkgPath] = p })
	seen := map[string]bool{}
	var visit func(string)
	visit = func(path string) {
		p := byPath[path]
		if p == nil || seen[path] || !b.t.Owns(path) || len(p.Errors) > 0 {
			return
		}
		seen[path] = true
		for ip := range p.Imports {
			visit(ip)
		}
	}
	visit(study.PackageOf(b.t.Errors.Tool.Root))
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// errorFlow is the user's half of the target's errors, prepared once per
// load: the tool's own program (its call graph: the tool runs in a
// process of its own, and the server's code is not in it), its commands
// and the gRPC methods each can send, its exit function and the client's
// retrying.
type errorFlow struct {
	tool     *signal.Commands
	commands []signal.Command
	// sends are, per command, the methods its calls can send in its own
	// goroutine, and the streams its client opens in goroutines of its
	// own.
	sends []map[string]bool
	// goOnly are, per command, the methods not streamed that its calls
	// can send only in goroutines it starts: it has no row for them.
	goOnly []map[string]bool
	stubs  map[*ssa.Function]bool
	method map[*ssa.Function]string
	stream map[string]bool
	retry  *signal.Retry
	runs   map[string]report.UserCommand
	notes  []string
	// g is the tool's call graph; fw the stores into fields of its code
	// (neverSets), read once.
	g       *callpath.Graph
	fw      *fieldWrites
	inits   map[*ssa.Function]bool
	reached map[*ssa.Function]map[*ssa.Function]bool
}

// flowOf prepares the error flow, once: a failure is kept and returned
// again, never a flow half made.
func (b *whyBase) flowOf() (*errorFlow, error) {
	b.flowRead.Do(func() { b.flow, b.flowErr = b.readFlow() })
	return b.flow, b.flowErr
}

func (b *whyBase) readFlow() (*errorFlow, error) {
	f := &errorFlow{runs: map[string]report.UserCommand{}, stubs: map[*ssa.Function]bool{}, method: map[*ssa.Function]string{}, stream: map[string]bool{}}
	e := b.t.Errors
	if e.Tool == nil || len(b.tool) == 0 {
		return f, nil
	}
	// One pass of VTA: what each command can send is the same as with
	// Build's two at v3.6.0, v3.7.1 and v3.7.3 (the atlas and why of
	// errors byte-identical), for less time.
	g, err := callpath.BuildOnce(b.tool)
	if err != nil {
		return nil, fmt.Errorf("analysing %s %s's %s: %w", b.t.Name, b.src.Version, e.Tool.Name, err)
	}
	inline := []string{study.PackageOf(e.Tool.Root)}
	if e.Tool.Exit != "" {
		inline = append(inline, study.PackageOf(e.Tool.Exit))
	}
	f.tool, f.g = signal.NewCommands(g, b.tool, inline), g
	cmds, err := f.tool.Tree(signal.CommandTree{Root: e.Tool.Root, Command: e.Tool.Command, Use: e.Tool.Use, Add: e.Tool.Add, Run: e.Tool.Run, Aliases: e.Tool.Aliases})
	if err != nil {
		f.notes = append(f.notes, fmt.Sprintf("%s's commands could not be read: %v", e.Tool.Name, err))
		return f, nil
	}
	f.commands = cmds
	for _, c := range cmds {
		if c.Run.Pkg != nil {
			f.tool.Inline(c.Run.Pkg.Pkg.Path())
		}
	}
	net, err := b.network()
	if err != nil {
		return nil, err
	}
	for _, m := range net.Methods {
		f.stream[m.FullName] = m.Stream
		for _, s := range m.Stubs {
			if fn, err := g.Func(s); err == nil {
				f.stubs[fn], f.method[fn] = true, m.FullName
			}
		}
	}
	for _, c := range cmds {
		ms := map[string]bool{}
		for st := range f.tool.Sends(c.Run, f.stubs, false) {
			ms[f.method[st]] = true
		}
		goOnly := map[string]bool{}
		for st := range f.tool.Sends(c.Run, f.stubs, true) {
			switch m := f.method[st]; {
			case f.stream[m]:
				ms[m] = true
			case !ms[m]:
				goOnly[m] = true
			}
		}
		for m := range ms {
			delete(goOnly, m)
		}
		f.sends, f.goOnly = append(f.sends, ms), append(f.goOnly, goOnly)
	}
	if e.Retry != "" {
		f.retry = f.tool.Retry(e.Retry, e.RetryLog, e.SafeRetry)
	}
	return f, nil
}

// loc converts an errtext position.
func (b *whyBase) tloc(p errtext.Pos) *report.Loc {
	if p.Filename == "" {
		return nil
	}
	return &report.Loc{File: b.src.RepoPath(p.Filename), Line: p.Line, Column: p.Column, Text: p.Text}
}

// sloc converts a signal position.
func (b *whyBase) sloc(p signal.Pos) *report.Loc {
	if p.Filename == "" {
		return nil
	}
	l := &report.Loc{File: b.src.RepoPath(p.Filename), Line: p.Line, Column: p.Column, Text: p.Text}
	if p.Func != nil {
		l.Function = callpath.Name(p.Func)
	}
	return l
}

// user is an error's user's half, from its answer: the gRPC code and text
// it is sent with, what the Go client returns, and the tool's commands
// whose calls can send a method whose server roots reach a use of it.
func (b *whyBase) user(ctx context.Context, rep *report.Why, grpc map[int][]roots.Root, lo, hi int) (*report.User, error) {
	cat := b.catalog()
	o := cat.Object(rep.Symbol)
	if o == nil {
		return nil, nil
	}
	f, err := b.flowOf()
	if err != nil {
		return nil, err
	}
	u := &report.User{Methods: []string{}, Etcdctl: []report.UserCommand{}, Notes: append([]string{}, f.notes...)}
	if b.t.Errors.Tool != nil {
		u.Tool = b.t.Errors.Tool.Name
	}
	u.GRPC = b.wire(o)
	if u.GRPC != nil {
		u.Client = b.client(u.GRPC, f)
		if u.Client != nil {
			u.Client.Own = b.clientReturns(u.Client.EqualTo)
		}
		if u.GRPC.By == "own" || u.GRPC.By == "made-from" {
			for _, t := range cat.Into(u.GRPC.Object) {
				u.TranslatedFrom = appendUnique(u.TranslatedFrom, t.From)
			}
		}
	}
	methods, dropped, err := b.methods(rep, grpc, lo, hi)
	u.Notes = append(u.Notes, b.onlyGoroutines(rep, grpc, lo, hi)...)
	u.Notes = append(u.Notes, dropped...)
	if err != nil {
		return nil, err
	}
	u.Methods = methods
	if err := b.commands(ctx, f, u, grpc, lo, hi); err != nil {
		return nil, err
	}
	return u, nil
}

// commands lists the tool's commands whose calls can send one of the
// user's half's methods, with what each prints.
func (b *whyBase) commands(ctx context.Context, f *errorFlow, u *report.User, grpc map[int][]roots.Root, lo, hi int) error {
	u.Etcdctl = []report.UserCommand{}
	if u.Client == nil || len(u.Methods) == 0 {
		return nil
	}
	net, err := b.network()
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, m := range u.Methods {
		want[m] = true
	}
	for ci, c := range f.commands {
		var ms []string
		for m := range f.sends[ci] {
			if want[m] {
				ms = append(ms, m)
			}
		}
		sort.Strings(ms)
		for _, m := range ms {
			if err := ctx.Err(); err != nil {
				return err
			}
			uc := b.command(f, c, m, u.Client.Text)
			if !uc.Stream && b.answered != nil && net != nil {
				// A request that leaves fields at zero that every way of
				// the method to a use needs set cannot take any of them.
				if unset := f.neverSets(c.Run, m); len(unset) > 0 {
					b.writtenOnce.Do(func() { b.written = serverWrites(b.g) })
					if cond, used := b.answered.refutedUnset(net, m, unset, grpc, lo, hi, b.written); cond != nil {
						uc.Unset, uc.Cannot = used, b.answered.because(cond)
					}
				}
			}
			u.Etcdctl = append(u.Etcdctl, uc)
		}
	}
	// The commands that make such a call only in goroutines they start:
	// named, with no row (what such a goroutine does with the error, and
	// whether the command prints it, is not followed).
	for _, m := range u.Methods {
		var names []string
		for ci, c := range f.commands {
			if f.goOnly[ci][m] {
				names = append(names, c.Path)
			}
		}
		if len(names) == 0 {
			continue
		}
		slices.Sort(names)
		verb, who := "makes a call", "it starts"
		if len(names) > 1 {
			verb, who = "make calls", "they start"
		}
		tool := "the tool's"
		if b.t.Errors.Tool != nil {
			tool = b.t.Errors.Tool.Name
		}
		u.Notes = append(u.Notes, fmt.Sprintf("%s %s %s that may send %s only in goroutines %s (what such a call is handed is not always followed, so it may send less): no row says what is printed then, as what such a goroutine does with the error is not followed.", tool, joinList(names, "and"), verb, m, who))
	}
	return nil
}

// wire is the gRPC code and text an object is sent with.
func (b *whyBase) wire(o *errtext.Object) *report.UserGRPC {
	cat := b.catalog()
	r := cat.Resolve(o)
	if r == nil || !r.Known() {
		return nil
	}
	g := &report.UserGRPC{}
	switch r.Kind {
	case errtext.Status:
		g.Code, g.Text, g.Object, g.By = r.Code, r.Text, r.Name, "own"
	case errtext.Client:
		g.Code, g.Text, g.Object, g.By = r.Code, r.Text, r.Of, "made-from"
		g.NotStatus = !cat.IsStatus(r)
	default:
		if t, ok := cat.From(r.Name); ok {
			to := cat.Resolve(cat.Object(t.To))
			if to == nil || !to.Known() {
				return nil
			}
			g.Text, g.Object, g.By, g.Translate = to.Text, t.To, "translation", t.Func
			g.Map, g.At = b.tloc(t.MapAt), b.tloc(t.At)
			g.Code = to.Code
			if !cat.IsStatus(to) {
				g.Code, g.NotStatus = errtext.NonStatusCode(), true
			}
		} else if len(cat.Defaults) > 0 {
			d := cat.Defaults[0]
			g.Code, g.Text, g.By, g.Translate, g.At = d.Code, r.Text, "default", d.Func, b.tloc(d.At)
		} else {
			return nil
		}
	}
	if g.NotStatus {
		g.NonStatus = errtext.NonStatusCode()
	}
	g.Status = errtext.StatusText(g.Code, g.Text)
	return g
}

// client is what the Go client returns for a wire error: what the
// conversion makes of it.
func (b *whyBase) client(g *report.UserGRPC, f *errorFlow) *report.UserClient {
	cat := b.catalog()
	cv := cat.Conversion
	if cv == nil {
		return nil
	}
	c := &report.UserClient{EqualTo: []string{}, Convert: b.tloc(cv.At)}
	if to, ok := cv.Table[g.Text]; ok && cv.Made != "" {
		code := ""
		if w := cat.Resolve(cat.Object(to)); w != nil {
			code = w.Code
		}
		c.Made, c.MadeAt = cv.Made, b.tloc(cv.MadeAt)
		c.Value = fmt.Sprintf("%s{code: %s, desc: %q}", report.ShortName(cv.Made), code, g.Text)
		c.Text = g.Text
		c.EqualTo = append(c.EqualTo, cat.MadeFrom(g.Text, code)...)
		g2 := code
		if f.retry != nil && f.retry.Code != "" && g2 == f.retry.Code {
			c.Retried, c.RetriedAt = true, b.sloc(f.retry.Only)
		}
	} else if cv.Passes {
		c.Passes, c.Value, c.Text, c.MadeAt = true, "the status error it received", g.Status, b.tloc(cv.PassAt)
		if f.retry != nil && f.retry.Code != "" && g.Code == f.retry.Code {
			c.Retried, c.RetriedAt = true, b.sloc(f.retry.Only)
		}
	} else {
		return nil
	}
	return c
}

// methods are the gRPC methods whose server roots reach a use of the
// error that can hand it on (see produces) and return it (whyRun.returnsIt):
// those of the roots kept, and grpc (every other gRPC root found to reach
// a use); notes say which methods are left out because the error does not
// come back to them. A root serves its method; a gRPC callback (an
// interceptor) serves every method of its kind (a unary interceptor
// returns a value and an error, a stream interceptor only an error).
func (b *whyBase) methods(rep *report.Why, grpc map[int][]roots.Root, lo, hi int) (list, notes []string, err error) {
	byName := map[string]report.Entry{}
	for _, e := range rep.Entries {
		byName[e.Name] = e
	}
	byFunc := map[string]roots.Root{}
	for _, r := range b.roots {
		byFunc[callpath.Name(r.Func)] = r
	}
	var rs []roots.Root
	for si := lo; si < hi; si++ {
		rs = append(rs, grpc[si]...)
	}
	for _, p := range rep.Paths {
		si := p.Site.Index
		if si < lo || si >= hi || si >= len(rep.Sites) || !produces(sites.Kind(rep.Sites[si].Kind)) {
			continue
		}
		if e, ok := byName[p.Entry]; ok && e.Kind == string(roots.GRPC) {
			if r, ok := byFunc[e.Function]; ok && !b.dropsAt(si, r.Func) {
				rs = append(rs, r)
			}
		}
	}
	out := map[string]bool{}
	if len(rs) > 0 || b.dropped != nil && len(b.dropped.not) > 0 {
		net, err := b.network()
		if err != nil {
			return nil, nil, err
		}
		of := func(r roots.Root) []string {
			if m, ok := net.Of(r); ok {
				return []string{m.FullName}
			}
			stream, ok := serverInterceptor(r)
			if !ok {
				return nil
			}
			var ms []string
			for _, m := range net.Methods {
				if m.Stream == stream {
					ms = append(ms, m.FullName)
				}
			}
			return ms
		}
		for _, r := range rs {
			for _, m := range of(r) {
				out[m] = true
			}
		}
		notes = b.droppedNotes(rep, lo, hi, out, of)
	}
	list = []string{}
	for m := range out {
		list = append(list, m)
	}
	sort.Strings(list)
	return list, notes, nil
}

// droppedAt reports whether a gRPC root reaches use si but does not
// return the error along any way (so the use is reached from more than
// goroutines).
func (b *whyBase) droppedAt(si int) bool {
	if b.dropped == nil {
		return false
	}
	for k := range b.dropped.not {
		if k.si == si {
			return true
		}
	}
	return false
}

// dropsAt reports whether the error that use si returns comes back to
// gRPC root fn along none of its ways that can run.
func (b *whyBase) dropsAt(si int, fn *ssa.Function) bool {
	if b.dropped == nil {
		return false
	}
	_, ok := b.dropped.not[dropKey{si, fn}]
	return ok
}

// droppedNotes says, of each gRPC method that a use in [lo, hi) is
// reached from but that does not return the error along any way, and
// that no other root lists (listed), where its way back ends: the
// function that does not return what its call returns.
func (b *whyBase) droppedNotes(rep *report.Why, lo, hi int, listed map[string]bool, of func(roots.Root) []string) []string {
	if b.dropped == nil {
		return nil
	}
	byFunc := map[*ssa.Function]roots.Root{}
	for _, r := range b.roots {
		byFunc[r.Func] = r
	}
	type drop struct {
		method string
		k      dropKey
		b      back
	}
	var ds []drop
	for k, x := range b.dropped.not {
		if k.si < lo || k.si >= hi {
			continue
		}
		r, ok := byFunc[k.root]
		if !ok {
			continue
		}
		for _, m := range of(r) {
			if !listed[m] {
				ds = append(ds, drop{m, k, x})
			}
		}
	}
	sort.Slice(ds, func(i, j int) bool {
		if ds[i].method != ds[j].method {
			return ds[i].method < ds[j].method
		}
		if ds[i].k.si != ds[j].k.si {
			return ds[i].k.si < ds[j].k.si
		}
		// Two roots of one method (a handler and an interceptor): by name,
		// so that the note is the same on every run.
		return callpath.Name(ds[i].k.root) < callpath.Name(ds[j].k.root)
	})
	var notes []string
	seen := map[string]bool{}
	for _, d := range ds {
		if seen[d.method] {
			continue
		}
		seen[d.method] = true
		if d.k.si >= len(rep.Sites) {
			continue
		}
		use := rep.Sites[d.k.si]
		at := b.g.Fset().Position(d.b.call)
		instead := "what it does with it instead, such as a response's field or a log line, is not followed, and may still reach the client"
		if tests, ok := onlyTested(d.b.fn, d.b.call); ok {
			var where []string
			for _, t := range tests {
				p := b.g.Fset().Position(t)
				if w := fmt.Sprintf("%s:%d", b.src.RepoPath(p.Filename), p.Line); !slices.Contains(where, w) {
					where = append(where, w)
				}
			}
			instead = "it only tests it, at " + strings.Join(where, ", ") + ", and hands it nowhere: the error goes no further"
		}
		notes = append(notes, fmt.Sprintf("%s is left out: it reaches the use at %s:%d, but the error comes back to it along none of its ways that can run (of those checked): on the first, %s does not return what its call at %s:%d returns when that is the error (%s).",
			d.method, use.File, use.Line, report.ShortName(callpath.Name(d.b.fn)), b.src.RepoPath(at.Filename), at.Line, instead))
	}
	return notes
}

// onlyGoroutines says, of each use that can hand the error on and that
// only goroutines (and no gRPC root) reach, that what a goroutine hands
// back to a waiting handler is not followed; and, when the error comes
// back to none of those goroutines along their ways that can run (of
// those checked: quietPairs), where the first way back ends.
func (b *whyBase) onlyGoroutines(rep *report.Why, grpc map[int][]roots.Root, lo, hi int) []string {
	kinds := map[string]string{}
	for _, e := range rep.Entries {
		kinds[e.Name] = e.Kind
	}
	var out []string
	for si := lo; si < hi; si++ {
		s := rep.Sites[si]
		if !produces(sites.Kind(s.Kind)) || len(s.Roots) == 0 || len(grpc[si]) > 0 || b.droppedAt(si) {
			continue
		}
		all := true
		for _, r := range s.Roots {
			all = all && kinds[r] == string(roots.Goroutine)
		}
		if !all {
			continue
		}
		quiet := b.quietAt(si)
		first, none := back{}, true
		for _, r := range s.Roots {
			x, ok := quiet[r]
			none = none && ok
			if ok && first.fn == nil {
				first = x
			}
		}
		if none && first.fn != nil {
			at := b.g.Fset().Position(first.call)
			out = append(out, fmt.Sprintf("At %s:%d every root with a way that can run is a goroutine (%s), and along none of their ways that can run (of those checked) is it returned to the goroutine's function: on the first, %s does not return what its call at %s:%d returns when that is the error. What it does with it instead (a log line, a panic, or a result it hands a waiting gRPC handler, which may return it to a client) is not followed.",
				s.File, s.Line, strings.Join(s.Roots, ", "), report.ShortName(callpath.Name(first.fn)), b.src.RepoPath(at.Filename), at.Line))
			continue
		}
		out = append(out, fmt.Sprintf("At %s:%d every root with a way that can run is a goroutine (%s): a gRPC handler that waits for what such a goroutine hands back (on a channel, or by a notification) may return it to a client, and that is not followed.",
			s.File, s.Line, strings.Join(s.Roots, ", ")))
	}
	return out
}

// quietAt is, by the short name of each goroutine root of use si whose
// error comes back to it along none of its ways (quietPairs), where the
// first way back ends.
func (b *whyBase) quietAt(si int) map[string]back {
	out := map[string]back{}
	if b.dropped == nil {
		return out
	}
	for k, x := range b.dropped.quiet {
		if k.si == si {
			out[report.ShortName(callpath.Name(k.root))] = x
		}
	}
	return out
}

// serverInterceptor reports whether a root is an interceptor gRPC calls
// back for each call a server serves, and for which kind: a function
// gRPC calls back that takes the gRPC library's information on the
// server's call (*UnaryServerInfo, *StreamServerInfo). A client's
// interceptor, or a method's handler, is not one.
func serverInterceptor(r roots.Root) (stream, ok bool) {
	if r.Kind != roots.GRPC || r.Iface != "" {
		return false, false
	}
	ps := r.Func.Signature.Params()
	for i := 0; i < ps.Len(); i++ {
		t := ps.At(i).Type()
		if p, isPtr := t.(*types.Pointer); isPtr {
			t = p.Elem()
		}
		n, isNamed := t.(*types.Named)
		if !isNamed || n.Obj().Pkg() == nil || !strings.HasPrefix(n.Obj().Pkg().Path(), "google.golang.org/grpc") {
			continue
		}
		switch n.Obj().Name() {
		case "UnaryServerInfo":
			return false, true
		case "StreamServerInfo":
			return true, true
		}
	}
	return false, false
}

// command evaluates what one command prints when a call it makes that can
// send method fails with an error whose text is text.
func (b *whyBase) command(f *errorFlow, c signal.Command, method, text string) report.UserCommand {
	key := c.Path + "\x00" + method + "\x00" + text
	if uc, ok := f.runs[key]; ok {
		return uc
	}
	uc := report.UserCommand{Command: c.Path, Method: method, Stderr: []string{}, Run: callpath.Name(c.Run)}
	if f.stream[method] {
		uc.Stream = true
		f.runs[key] = uc
		return uc
	}
	fails := func(fn *ssa.Function, call *ast.CallExpr, callee *types.Func) bool {
		if f.tool.Inlined(callee) {
			return false
		}
		for st := range f.tool.SendsAt(fn, call, f.stubs) {
			if f.method[st] == method {
				return true
			}
		}
		return false
	}
	run := f.tool.Run(c.Run, fails, text)
	if run != nil && run.Failed {
		uc.Evaluated = true
		for _, l := range run.Stderr {
			uc.Stderr = append(uc.Stderr, l.Text)
		}
		if run.Exited {
			code := run.Exit
			uc.ExitCode = &code
			uc.ExitConstant = run.ExitBy
			uc.At = b.sloc(run.ExitFrom)
			if run.ExitCall.Filename != "" {
				uc.At = b.sloc(run.ExitCall)
			}
		}
		uc.Assumed = run.Assumed
	} else if run != nil {
		// The call that fails is not reached when what the evaluation
		// could not decide is taken as false.
		uc.Assumed = run.Assumed
	}
	f.runs[key] = uc
	return uc
}

// clientReturns are the return statements of the client's own code that
// return one of vars (full names) itself: in the packages the tool's
// commands use, loaded from source, outside the tool's own code. Each
// with the function it is in, in the order of their positions. The
// client's code is read once (ownReturns), for every error answered.
func (b *whyBase) clientReturns(vars []string) []report.Loc {
	if len(vars) == 0 || b.t.Errors == nil || b.t.Errors.Tool == nil {
		return nil
	}
	if b.ownRet == nil {
		b.ownRet = b.ownReturns()
	}
	var out []report.Loc
	for _, v := range vars {
		out = append(out, b.ownRet[v]...)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		return out[i].Line < out[j].Line
	})
	return out
}

// ownReturns are the return statements of the client's own code whose
// result is a package-level variable, by the variable's full name; and
// the assignments of such a variable to a local one that a later return
// statement of the function returns, with no other assignment to it in
// between in the source (`err = rpctypes.ErrX` under a test of what a
// call received, then `return resp, err`), at the assignment.
func (b *whyBase) ownReturns() map[string][]report.Loc {
	// The tool's own code: its module, or, where it shares the server's,
	// its root command's package and those below it.
	root := study.PackageOf(b.t.Errors.Tool.Root)
	own := moduleOf(b.t, root)
	if own == "" || own == b.t.Main {
		own = root
	}
	out := map[string][]report.Loc{}
	for _, p := range b.tool {
		if p.TypesInfo == nil || p.PkgPath == own || strings.HasPrefix(p.PkgPath, own+"/") {
			continue
		}
		// pkgVar is the package-level variable expression e names, if any.
		pkgVar := func(e ast.Expr) *types.Var {
			var id *ast.Ident
			switch x := ast.Unparen(e).(type) {
			case *ast.Ident:
				id = x
			case *ast.SelectorExpr:
				id = x.Sel
			}
			if id == nil {
				return nil
			}
			v, ok := p.TypesInfo.Uses[id].(*types.Var)
			if !ok || v.Pkg() == nil || v.Parent() != v.Pkg().Scope() {
				return nil
			}
			return v
		}
		// local is the local variable identifier e names, if any.
		local := func(e ast.Expr) *types.Var {
			id, ok := ast.Unparen(e).(*ast.Ident)
			if !ok {
				return nil
			}
			obj := p.TypesInfo.Defs[id]
			if obj == nil {
				obj = p.TypesInfo.Uses[id]
			}
			v, ok := obj.(*types.Var)
			if !ok || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() || v.IsField() {
				return nil
			}
			return v
		}
		add := func(fn *types.Func, v *types.Var, at token.Pos) {
			pos := p.Fset.Position(at)
			l := report.Loc{File: b.src.RepoPath(pos.Filename), Line: pos.Line, Column: pos.Column, Function: callpath.FuncName(fn)}
			if text, err := b.lines.line(pos.Filename, pos.Line); err == nil {
				l.Text = strings.TrimSpace(text)
			}
			name := v.Pkg().Path() + "." + v.Name()
			out[name] = append(out[name], l)
		}
		for _, f := range p.Syntax {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				fn, ok := p.TypesInfo.Defs[fd.Name].(*types.Func)
				if !ok {
					continue
				}
				type assigned struct {
					x, v *types.Var
					at   token.Pos
				}
				var cands []assigned
				writes := map[*types.Var][]token.Pos{}
				returns := map[*types.Var][]token.Pos{}
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.FuncLit:
						return false // a function of its own
					case *ast.AssignStmt:
						for i, lhs := range n.Lhs {
							x := local(lhs)
							if x == nil {
								continue
							}
							writes[x] = append(writes[x], n.Pos())
							if len(n.Rhs) == len(n.Lhs) {
								if v := pkgVar(n.Rhs[i]); v != nil {
									cands = append(cands, assigned{x, v, n.Pos()})
								}
							}
						}
					case *ast.IncDecStmt:
						if x := local(n.X); x != nil {
							writes[x] = append(writes[x], n.Pos())
						}
					case *ast.ReturnStmt:
						for _, r := range n.Results {
							if v := pkgVar(r); v != nil {
								add(fn, v, n.Pos())
							} else if x := local(r); x != nil {
								returns[x] = append(returns[x], n.Pos())
							}
						}
					}
					return true
				})
				for _, c := range cands {
					for _, ret := range returns[c.x] {
						if ret < c.at || slices.ContainsFunc(writes[c.x], func(w token.Pos) bool { return w > c.at && w < ret }) {
							continue
						}
						add(fn, c.v, c.at)
						break
					}
				}
			}
		}
	}
	return out
}
