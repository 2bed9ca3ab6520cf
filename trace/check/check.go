// Package check verifies the citations that package cite finds in study
// notes against the files of a release or checkout of the target: that
// each cited line exists, that the notes give evidence it is the line they
// mean, and where it is now when it is not where they say.
//
// # Evidence
//
// No citation is ok without evidence, and none is ok that the notes' own
// text contradicts. In order of strength:
//
//  1. code the notes quote: a grep line's text, or inline code beside the
//     citation (its own code), which the line must hold (else it is
//     located: drifted, moved, ambiguous or mismatch); else other code of
//     its sentence, list item or table row, of which the line must hold
//     some. That other code is compared whatever else anchors the
//     citation: code that is elsewhere in the function holding the cited
//     line (or within three lines of it), on none of the unit's cited
//     lines nor on a line that guards another of them (an if's condition,
//     a case), and not a part of a condition that guards the cited line
//     itself, contradicts it: the citation is drifted to that code, or
//     ambiguous when several lines hold it. A name (`unsynced`, `w.minRev`, `chooseAll`) confirms a
//     line that holds it but is not code of one line, and a keyword or a
//     literal alone (`nil`, `0`) says nothing;
//  2. a function or method named in the same unit, declared in the cited
//     file, whose body holds the line;
//  3. the notes' own release (--from, a permalink's tag, or the marker that
//     srctrace errcompacted writes). It says only which release the line
//     numbers are of: 1 and 2 are checked at that release first (a
//     citation wrong at its own release is not ok), and then the line is
//     located at the release checked by its text, its neighbours and its
//     function, a range end by end; the code the notes quote must still be
//     on the line there.
//
// # Links
//
// A GitHub link is read at its ref: a release tag from the module proxy,
// or any tag, branch or commit through the history of the checkout given
// as the source (--etcd-dir, a clone with its .git), with git show. The
// module proxy serves releases, not commits: without such a checkout a
// link at a commit or a branch is unresolved, and says why. A link to a
// fork of the repository is read only at a commit the history has. A tag
// or a commit pins the code, so it is the notes' own release for the link;
// a branch moves, so it is not: a link at a branch is ok only on the
// notes' other evidence.
//
// # Statuses
//
// ok, drifted (the line is now another line of the file: Now), moved (it
// is now in another file: NowFile), missing (no such file, or line), mismatch
// (what the notes say is on the line is nowhere to be found, or the line
// was edited and no longer holds the code the notes quote), ambiguous
// (several files or places fit), unresolved (cannot be checked: a release
// that cannot be had, a link elsewhere), unanchored (the line exists, but
// nothing in the notes confirms it).
package check

import (
	"context"
	"fmt"
	"go/scanner"
	"go/token"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/srctrace/srctrace/trace/cite"
	"github.com/srctrace/srctrace/trace/target"
)

// Status of a citation.
type Status string

// The statuses.
const (
	OK         Status = "ok"
	Drifted    Status = "drifted"
	Moved      Status = "moved"
	Missing    Status = "missing"
	Mismatch   Status = "mismatch"
	Ambiguous  Status = "ambiguous"
	Unresolved Status = "unresolved"
	Unanchored Status = "unanchored"
)

// Statuses lists the statuses, most serious first (ok last): the order of
// a reviewer's attention.
var Statuses = []Status{Missing, Mismatch, Moved, Drifted, Ambiguous, Unanchored, Unresolved, OK}

func rank(s Status) int {
	for i, x := range Statuses {
		if x == s {
			return i
		}
	}
	return len(Statuses)
}

// Anchors: what confirmed a citation, or located it.
const (
	AnchorText     = "text"
	AnchorFunction = "function"
	AnchorRelease  = "release"
	AnchorSymbol   = "symbol"
)

// How the tree a citation was checked at was chosen (Citation.CheckedBy).
const (
	ByRelease = "release" // the release (or checkout) checked against
	ByLink    = "link"    // a link's own tag, from the module proxy
	ByHistory = "history" // a link's ref, from the checkout's history
)

// result is one checked citation, with what --fix needs.
type result struct {
	c        *cite.Citation
	status   Status
	release  string // the release (or ref) checked against
	commit   string // its commit, when read from a checkout's history
	by       string // ByRelease, ByLink, ByHistory
	from     string // the notes' own release, when known
	fromBy   string // how it is known: flag, marker, link
	resolved string // the repo path at the release checked
	now      int
	nowEnd   int
	nowCol   int
	nowFile  string // moved: the new repo path
	anchor   string
	evidence string
	msg      string
	carried  bool // carried from the notes' own release
	// requotes is the quoted code that --fix rewrites with the line: the
	// code of the line now, for each quote of the notes' release's line
	// that the line no longer holds; stuck says why it cannot (then
	// nothing carried is rewritten).
	requotes []requote
	stuck    string
	// A symbol's declaration.
	symFile string
	symLine int
}

// requote is a quote of the notes and the code to write in its place.
type requote struct {
	q    cite.Quote
	code string
}

// context lines compared on either side when carrying a line.
const contextLines = 3

// Checker checks citations against trees.
type Checker struct {
	Target *target.Target
	// Default is the tree checked against (links: see To).
	Default *Tree
	// To is the release links are carried to ("": links are checked at
	// their own tag).
	To string
	// Open opens a release (nil: only Default's).
	Open func(ctx context.Context, version string) (*Tree, error)
	// hist is the history of the checkout checked against, if it has one.
	hist  *history
	trees map[string]*Tree
	errs  map[string]error
	// symbols caches what a symbol citation found, by its name as written.
	symbols map[string]result
}

func (k *Checker) tgt() *target.Target {
	if k.Target != nil {
		return k.Target
	}
	return target.Etcd
}

// tree returns the tree of release v: from the checkout's history when it
// has the tag, else opened (from the module proxy).
func (k *Checker) tree(ctx context.Context, v string) (*Tree, error) {
	if k.Default != nil && k.Default.Version == v && !k.Default.Dirty {
		return k.Default, nil
	}
	if t, ok := k.trees[v]; ok {
		return t, nil
	}
	if err, ok := k.errs[v]; ok {
		return nil, err
	}
	if k.trees == nil {
		k.trees, k.errs = map[string]*Tree{}, map[string]error{}
	}
	if k.hist != nil && k.hist.resolve(ctx, v).kind == "tag" {
		t, err := k.hist.tree(ctx, v)
		if err == nil {
			k.trees[v] = t
			return t, nil
		}
	}
	if k.Open == nil {
		return nil, fmt.Errorf("%s %s is not open; check with --%s-version %s", k.tgt().Name, v, k.tgt().Name, v)
	}
	t, err := k.Open(ctx, v)
	if err != nil {
		k.errs[v] = err
		return nil, err
	}
	k.trees[v] = t
	return t, nil
}

// own is the notes' own release for a citation: a tree (nil when unknown or
// when it cannot be had) and how it is known.
type own struct {
	tree *Tree
	by   string // flag, marker, link
	name string // the release, also when it cannot be had
	err  error
	// moves says tree is a branch's: it does not say which code the line
	// numbers were written against, only where they are read now.
	moves bool
}

func sameTree(a, b *Tree) bool {
	return a == b || a != nil && b != nil && a.Version == b.Version && a.Commit == b.Commit && a.Dirty == b.Dirty
}

// check checks one citation; o is the notes' own release for citations
// that are not links, and unit the citations of its unit (itself too).
func (k *Checker) check(ctx context.Context, c *cite.Citation, o own, unit []cite.Citation) result {
	r := result{c: c, by: ByRelease}
	if c.Form == cite.Symbol {
		return k.checkSymbol(c)
	}
	if c.Form == cite.GitHub || c.Ref != "" {
		return k.checkLink(ctx, c, unit)
	}
	if o.tree == nil && o.name != "" && k.Default != nil && o.name == k.Default.Version {
		o.tree = k.Default
	}
	if k.Default == nil {
		r.status, r.msg = Unresolved, "no release to check against"
		return r
	}
	return k.checkLine(c, o, k.Default, unit)
}

// checkLink checks a link, or the text of one: at the link's ref, or
// carried from it to the release checked with --to.
func (k *Checker) checkLink(ctx context.Context, c *cite.Citation, unit []cite.Citation) result {
	tgt := k.tgt()
	r := result{c: c, release: c.Ref, by: ByLink}
	same := strings.EqualFold(c.Repo, tgt.Repo)
	fork := !same && strings.EqualFold(path.Base(c.Repo), path.Base(tgt.Repo))
	if !same && !fork {
		r.status, r.msg = Unresolved, fmt.Sprintf("a link to %s, not to %s: not checked", c.Repo, tgt.Repo)
		return r
	}
	r0, err := k.linkTree(ctx, c.Repo, c.Ref, fork)
	if err != nil {
		r.status, r.msg = Unresolved, err.Error()
		return r
	}
	t := r0
	if k.To != "" {
		t = k.Default
	}
	out := k.checkLine(c, own{tree: r0, by: "link", name: c.Ref, moves: r0.RefKind == "branch"}, t, unit)
	if sameTree(t, r0) {
		out.by = ByLink
		if r0.Kind == "git" {
			out.by = ByHistory
		}
	}
	return out
}

// linkTree finds the tree of a link's ref: the release checked, the
// checkout's history, or a release from the module proxy.
func (k *Checker) linkTree(ctx context.Context, repo, ref string, fork bool) (*Tree, error) {
	tgt := k.tgt()
	if !fork && k.Default != nil && ref == k.Default.Version && !k.Default.Dirty {
		return k.Default, nil
	}
	if k.hist != nil {
		g := k.hist.resolve(ctx, ref)
		switch {
		case g.err == nil && fork && g.kind != "commit":
			return nil, fmt.Errorf("a link to %s (a fork of %s?) at its %s %s: only a commit names the same code in both; not checked", repo, tgt.Repo, g.kind, ref)
		case g.err == nil:
			return k.hist.tree(ctx, ref)
		case fork:
			return nil, fmt.Errorf("a link to %s (a fork of %s?) at %s: %v; a fork's link is read only at a commit that history has", repo, tgt.Repo, ref, g.err)
		case !tgt.IsRelease(ref):
			return nil, fmt.Errorf("the link is at %s: %v", ref, g.err)
		}
	}
	switch {
	case fork:
		return nil, fmt.Errorf("a link to %s (a fork of %s?) at %s: it is read only at a commit that the history of a checkout of %s has (--%s-dir)", repo, tgt.Repo, ref, tgt.Repo, tgt.Name)
	case tgt.IsRelease(ref):
		return k.tree(ctx, ref)
	case commitRE.MatchString(ref):
		return nil, fmt.Errorf("the link is at commit %s: the module proxy serves releases, not commits; check it with --%s-dir DIR, a clone of %s with its history", ref, tgt.Name, tgt.Repo)
	}
	return nil, fmt.Errorf("the link is at %q, which is not a release tag (a branch?): the module proxy serves releases; check it with --%s-dir DIR, a clone of %s with its history, where it is read at that ref", ref, tgt.Name, tgt.Repo)
}

func (k *Checker) checkSymbol(c *cite.Citation) result {
	if r, ok := k.symbols[c.Name.Raw]; ok {
		r.c = c
		return r
	}
	r := k.findSymbol(c)
	if k.symbols == nil {
		k.symbols = map[string]result{}
	}
	k.symbols[c.Name.Raw] = r
	return r
}

func (k *Checker) findSymbol(c *cite.Citation) result {
	t := k.Default
	r := result{c: c, release: t.Version, commit: t.Commit, by: ByRelease, anchor: AnchorSymbol}
	found, pkgs, isPkg := t.symbol(*c.Name)
	if !isPkg {
		r.status = "" // not a symbol: dropped
		return r
	}
	// One declaration, or several of one package (a name declared in
	// files for different platforms): the first.
	dirs := map[string]bool{}
	for _, d := range found {
		dirs[path2dir(d.file)] = true
	}
	switch {
	case len(found) == 0:
		r.status, r.msg = Missing, fmt.Sprintf("package %s of %s %s declares no %s", strings.Join(pkgs, ", "), k.tgt().Name, t.Version, strings.Join(symbolParts(*c.Name), "."))
	case len(dirs) > 1:
		var at []string
		for _, d := range found {
			at = append(at, d.file+":"+strconv.Itoa(d.line))
		}
		r.status, r.msg = Ambiguous, fmt.Sprintf("%d packages of %s %s declare it: %s", len(dirs), k.tgt().Name, t.Version, strings.Join(at, ", "))
	default:
		r.status, r.symFile, r.symLine, r.resolved = OK, found[0].file, found[0].line, found[0].file
		r.evidence = found[0].file + ":" + strconv.Itoa(found[0].line)
	}
	return r
}

func symbolParts(n cite.Name) []string {
	if n.Path != "" {
		return n.Parts
	}
	return n.Parts[1:]
}

func path2dir(rp string) string {
	if i := strings.LastIndexByte(rp, '/'); i >= 0 {
		return rp[:i]
	}
	return ""
}

// at names a tree in messages: "etcd v3.7.3", "etcd main (c34dc7e)".
func (k *Checker) at(t *Tree) string {
	s := k.tgt().Name + " " + t.Version
	if t.Commit != "" && t.RefKind != "tag" && !strings.HasPrefix(t.Commit, t.Version) {
		s += " (" + short(t.Commit) + ")"
	}
	return s
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// checkLine checks a file citation at t, with o its own release.
func (k *Checker) checkLine(c *cite.Citation, o own, t *Tree, unit []cite.Citation) result {
	r := result{c: c, release: t.Version, commit: t.Commit, by: ByRelease}
	if o.name != "" {
		r.from, r.fromBy = o.name, o.by
	}
	if c.Line < 1 {
		r.status, r.msg = Missing, "line 0 does not exist"
		return r
	}
	if o.tree != nil && !sameTree(o.tree, t) {
		return k.carry(r, o.tree, t, unit)
	}
	if o.name != "" && o.tree == nil && o.err != nil {
		// The notes' release cannot be had: the citation stands on its own
		// evidence, and says why the release did not help.
		r = k.direct(r, t, false, unit)
		if r.status == Unanchored {
			r.msg = fmt.Sprintf("the line exists, but nothing in the notes confirms it, and their release %s cannot be had (%v)", o.name, o.err)
		}
		return r
	}
	r = k.direct(r, t, o.tree != nil && !o.moves, unit)
	if r.status == Unanchored && o.moves {
		r.msg = fmt.Sprintf("the link is at the branch %s, which moves: its line numbers are of %s as it was when they were written, and nothing in the notes confirms the line there now (%s); give its code or its function", o.name, o.name, short(t.Commit))
	}
	return r
}

// quotesOf returns a citation's own code (a grep line's text, code beside
// it: what the notes say the line holds) and the other code of its unit
// that can say which line it is: code with a name or a string in it, not
// a keyword or a literal alone, and names (which confirm a line that
// holds them).
func quotesOf(c *cite.Citation) (ownCode, other []string) {
	for _, q := range c.Quotes {
		switch {
		case q.Own && !q.Name:
			ownCode = append(ownCode, q.Code)
		case telling(q.Code):
			other = append(other, q.Code)
		}
	}
	return ownCode, other
}

// ownNames returns the Go names written beside a citation: what the notes
// say its line is in.
func ownNames(c *cite.Citation) []cite.Name {
	var out []cite.Name
	for _, q := range c.Quotes {
		if q.Own && q.Name {
			if n, ok := cite.ParseName(q.Code); ok {
				out = append(out, n)
			}
		}
	}
	return out
}

// telling reports whether code can tell one line from another: it has an
// identifier of two letters or more that is not predeclared, or a string.
func telling(code string) bool {
	var s scanner.Scanner
	fset := token.NewFileSet()
	src := []byte(code)
	s.Init(fset.AddFile("", fset.Base(), len(src)), src, func(token.Position, string) {}, 0)
	for {
		_, tok, lit := s.Scan()
		switch tok {
		case token.EOF:
			return false
		case token.STRING, token.CHAR:
			if len(lit) > 3 {
				return true
			}
		case token.IDENT:
			if len(lit) >= 2 && !predeclared[lit] {
				return true
			}
		}
	}
}

var predeclared = map[string]bool{}

func init() {
	for _, s := range strings.Fields(`any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64
		rune string uint uint8 uint16 uint32 uint64 uintptr true false iota nil append cap clear close complex copy delete
		imag len make max min new panic print println real recover`) {
		predeclared[s] = true
	}
}

// direct checks a citation at t by the notes' own evidence; sameRelease
// says t is the notes' own release.
func (k *Checker) direct(r result, t *Tree, sameRelease bool, unit []cite.Citation) result {
	c := r.c
	rp, why := k.resolveFile(t, c)
	if rp == "" {
		r.status, r.msg = why.status, why.msg
		return r
	}
	r.resolved = rp
	lines, err := t.read(rp)
	if err != nil {
		r.status, r.msg = Unresolved, fmt.Sprintf("reading %s: %v", rp, err)
		return r
	}
	first, last := c.Line, max(c.Line, c.End)
	ownCode, other := quotesOf(c)
	inRange := last <= len(lines)
	if inRange {
		evidence := ownCode
		if len(evidence) == 0 {
			evidence = other
		}
		if txt, ok := holdsAny(t, rp, first, last, evidence, nil); ok {
			r.status, r.anchor, r.evidence = OK, AnchorText, txt
			return r
		}
	}
	if len(ownCode) > 0 {
		return k.locateText(r, t, rp, ownCode, k.at(t))
	}
	if !inRange {
		r.status, r.msg = Missing, fmt.Sprintf("%s has %d lines in %s", rp, len(lines), k.at(t))
		return r
	}
	if rr, ok := k.notInNamed(r, t, rp); ok {
		return rr
	}
	if rr, ok := k.contradicted(r, t, rp, other, unit); ok {
		return rr
	}
	if f, ok := inNamedFunc(t, rp, c.Line, c.Names); ok {
		r.status, r.anchor, r.evidence = OK, AnchorFunction, f
		return r
	}
	if sameRelease {
		r.status, r.anchor, r.evidence = OK, AnchorRelease, t.Version
		return r
	}
	r.status = Unanchored
	r.msg = "the line exists, but nothing in the notes confirms it: give its code, its function, or the notes' release (--from)"
	return r
}

// notInNamed says whether a function named beside the citation says it
// is not the line: the notes write `storeTxnWrite.End()` (file.go:139), the
// file declares that function, and the cited line is neither in its body
// nor names it (a call of it). Then the citation is drifted to the
// function (a range to its lines), or ambiguous when several fit.
func (k *Checker) notInNamed(r result, t *Tree, rp string) (result, bool) {
	c := r.c
	first, last := c.Line, max(c.Line, c.End)
	var spans []fnSpan
	var named []string
	for _, n := range ownNames(c) {
		fs := t.funcsNamed(rp, n)
		if len(fs) == 0 {
			continue
		}
		// In it, or a call of it; a range holds its start.
		if inSpans(fs, first) || c.End == 0 && lineNames(t, rp, first, first, n.Last()) || startsIn(fs, first, last) {
			return r, false
		}
		spans = append(spans, fs...)
		named = append(named, "`"+n.Raw+"`")
	}
	switch {
	case len(spans) == 0:
		return r, false
	case len(spans) == 1:
		f := spans[0]
		end := 0
		if c.End > 0 {
			end = f.end
		}
		return k.drift(r, rp, f.start, end, AnchorFunction, named[0],
			fmt.Sprintf("the notes name %s beside it, which is lines %d-%d at %s, and line %d is not in it", named[0], f.start, f.end, k.at(t), c.Line)), true
	}
	var at []int
	for _, f := range spans {
		at = append(at, f.start)
	}
	r.status, r.resolved = Ambiguous, rp
	r.msg = fmt.Sprintf("the notes name %s beside it, declared at lines %s at %s, and line %d is in none of them", strings.Join(dedupe(named), ", "), lineList(at), k.at(t), c.Line)
	return r, true
}

// startsIn reports whether one of spans starts in lines first..last.
func startsIn(spans []fnSpan, first, last int) bool {
	for _, f := range spans {
		if f.start >= first && f.start <= last {
			return true
		}
	}
	return false
}

// lineNames reports whether lines first..last of rp mention name as a
// word.
func lineNames(t *Tree, rp string, first, last int, name string) bool {
	ns := t.normalized(rp)
	for i := first; i <= last && i <= len(ns); i++ {
		if i >= 1 && containsWord(ns[i-1], name) {
			return true
		}
	}
	return false
}

func containsWord(s, w string) bool { return wordAt(s, w) >= 0 }

func isIdentByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// contradicted says whether the unit's code says the citation is not the
// line: code the unit quotes (not a name: a name is not code of a line)
// that is elsewhere in the function that holds the cited line (or, for a
// line outside functions, outside them), or within three lines of it,
// while none of the unit's cited lines holds it, nor a line that guards
// another of them (the condition of an if or a case whose body holds
// it), and it is not a part of a condition that guards the cited line
// (the notes speak of the condition; a whole line quoted is that line).
// Then the citation is drifted to that code, or ambiguous when several
// lines hold it.
func (k *Checker) contradicted(r result, t *Tree, rp string, other []string, unit []cite.Citation) (result, bool) {
	c := r.c
	fn, inFn := t.enclosing(rp, c.Line)
	cited := k.unitLines(t, rp, c, unit)
	guards := t.guardsOf(rp, c.Line)
	count := map[int]int{}
	var quoted []string
	for _, q := range other {
		if _, isName := cite.ParseName(q); isName {
			continue
		}
		if holdsOn(t, q, cited) || partOfGuard(t, rp, q, guards) {
			continue
		}
		var places []int
		for _, p := range textPlaces(t, rp, []string{q}, c.Names) {
			f, in := t.enclosing(rp, p)
			if in == inFn && (!inFn || f == fn) || absInt(p-c.Line) <= contextLines {
				places = append(places, p)
			}
		}
		if len(places) == 0 {
			continue
		}
		quoted = append(quoted, q)
		for _, p := range places {
			count[p]++
		}
	}
	if len(quoted) == 0 {
		return r, false
	}
	most := 0
	for _, n := range count {
		most = max(most, n)
	}
	var best []int
	for l, n := range count {
		if n == most {
			best = append(best, l)
		}
	}
	sort.Ints(best)
	what := quoteList(quoted)
	if len(best) == 1 {
		return k.drift(r, rp, best[0], 0, AnchorText, quoted[0],
			fmt.Sprintf("the notes quote %s beside it, which is at line %d, not on line %d, at %s", what, best[0], c.Line, k.at(t))), true
	}
	r.status, r.resolved = Ambiguous, rp
	r.msg = fmt.Sprintf("the notes quote %s beside it, which is not on line %d but on lines %s of %s at %s; quote the line's own code beside the citation", what, c.Line, lineList(best), rp, k.at(t))
	return r, true
}

// unitLines are the lines the citations of a unit cite at t, by file (c's
// file is rp), and the lines that guard the others' (their code too).
func (k *Checker) unitLines(t *Tree, rp string, c *cite.Citation, unit []cite.Citation) map[string][]int {
	out := map[string][]int{}
	add := func(file string, o *cite.Citation, guards bool) {
		for l := o.Line; l <= max(o.Line, o.End); l++ {
			out[file] = append(out[file], l)
		}
		if guards {
			out[file] = append(out[file], t.guardsOf(file, o.Line)...)
		}
	}
	add(rp, c, false)
	for i := range unit {
		o := &unit[i]
		if o.Form == cite.Symbol || o.NotesLine == c.NotesLine && o.Start == c.Start {
			continue
		}
		if f, _ := t.resolve(fileOf(*o)); f != "" {
			add(f, o, true)
		}
	}
	return out
}

// partOfGuard reports whether code is part of, not the whole of, a line
// that guards the cited line (a condition of the if whose body holds it):
// the notes speak of the condition. A whole line quoted is that line.
func partOfGuard(t *Tree, rp, code string, guards []int) bool {
	n := trimBrace(cite.Normalize(code))
	ns := t.normalized(rp)
	for _, l := range guards {
		if l < 1 || l > len(ns) {
			continue
		}
		if line := ns[l-1]; strings.Contains(line, n) && trimBrace(line) != n {
			return true
		}
	}
	return false
}

// trimBrace drops what ends a line that opens a block or a case.
func trimBrace(s string) string {
	return strings.TrimSpace(strings.TrimRight(s, "{:"))
}

// holdsOn reports whether one of lines (by file) holds code.
func holdsOn(t *Tree, code string, lines map[string][]int) bool {
	n := cite.Normalize(code)
	for f, ls := range lines {
		ns := t.normalized(f)
		for _, l := range ls {
			if l >= 1 && l <= len(ns) && strings.Contains(ns[l-1], n) {
				return true
			}
		}
	}
	return false
}

func quoteList(qs []string) string {
	var out []string
	for i, q := range qs {
		if i == 3 {
			out = append(out, fmt.Sprintf("and %d more", len(qs)-3))
			break
		}
		out = append(out, "`"+q+"`")
	}
	return strings.Join(out, ", ")
}

// fileOf is the file a citation means: the link's path for the text of a
// link that names the same file, else the file written.
func fileOf(c cite.Citation) string {
	if c.LinkPath != "" {
		lp := strings.TrimLeft(c.LinkPath, "./")
		if sameFile(lp, c.File) {
			return c.LinkPath
		}
	}
	return c.File
}

type fileWhy struct {
	status Status
	msg    string
}

// resolveFile finds the cited file at t; a name that several files have
// is settled by the notes' evidence when exactly one of them fits it.
func (k *Checker) resolveFile(t *Tree, c *cite.Citation) (string, fileWhy) {
	file := fileOf(*c)
	rp, cands := t.resolve(file)
	if rp != "" {
		return rp, fileWhy{}
	}
	if len(cands) == 0 {
		if why, ok := t.unread(file); ok {
			return "", fileWhy{Unresolved, why}
		}
		return "", fileWhy{Missing, fmt.Sprintf("no file %s in %s", file, k.at(t))}
	}
	ownCode, other := quotesOf(c)
	var fit []string
	for _, cand := range cands {
		last := max(c.Line, c.End)
		switch {
		case len(ownCode) > 0:
			if _, ok := holdsAny(t, cand, c.Line, last, ownCode, nil); ok {
				fit = append(fit, cand)
			}
		default:
			if _, ok := holdsAny(t, cand, c.Line, last, other, nil); ok {
				fit = append(fit, cand)
			} else if _, ok := inNamedFunc(t, cand, c.Line, c.Names); ok {
				fit = append(fit, cand)
			}
		}
	}
	if len(fit) == 1 {
		return fit[0], fileWhy{}
	}
	return "", fileWhy{Ambiguous, fmt.Sprintf("%d files of %s are named so: %s", len(cands), k.at(t), strings.Join(cands, ", "))}
}

// holdsAny reports whether lines first..last of rp hold one of the texts
// (own first), and which.
func holdsAny(t *Tree, rp string, first, last int, own, confirm []string) (string, bool) {
	ns := t.normalized(rp)
	for _, group := range [][]string{own, confirm} {
		for _, txt := range group {
			n := cite.Normalize(txt)
			if n == "" {
				continue
			}
			for i := first; i <= last && i <= len(ns); i++ {
				if i >= 1 && holds(ns[i-1], n, txt) {
					return txt, true
				}
			}
		}
	}
	return "", false
}

// inNamedFunc reports whether line is in the body of a function of rp
// that one of names names.
func inNamedFunc(t *Tree, rp string, line int, names []cite.Name) (string, bool) {
	for _, n := range names {
		for _, f := range t.funcsNamed(rp, n) {
			if line >= f.start && line <= f.end {
				return n.Raw, true
			}
		}
	}
	return "", false
}

// textPlaces returns the lines of rp that hold one of texts, in the body of
// a function that names names when any of them is declared in rp.
func textPlaces(t *Tree, rp string, texts []string, names []cite.Name) []int {
	var key strings.Builder
	key.WriteString(rp)
	for _, x := range texts {
		key.WriteString("\x00" + x)
	}
	key.WriteString("\x01")
	for _, n := range names {
		key.WriteString("\x00" + n.Raw)
	}
	if ps, ok := t.places[key.String()]; ok {
		return ps
	}
	ps := findPlaces(t, rp, texts, names)
	t.places[key.String()] = ps
	return ps
}

func findPlaces(t *Tree, rp string, texts []string, names []cite.Name) []int {
	ns := t.normalized(rp)
	var spans []fnSpan
	for _, n := range names {
		spans = append(spans, t.funcsNamed(rp, n)...)
	}
	norm := make([]string, len(texts))
	for i, txt := range texts {
		norm[i] = cite.Normalize(txt)
	}
	var out []int
	for i, l := range ns {
		for j, n := range norm {
			if !holds(l, n, texts[j]) {
				continue
			}
			if len(spans) > 0 && !inSpans(spans, i+1) {
				continue
			}
			out = append(out, i+1)
			break
		}
	}
	return out
}

func inSpans(spans []fnSpan, line int) bool {
	for _, f := range spans {
		if line >= f.start && line <= f.end {
			return true
		}
	}
	return false
}

// locateText finds the citation's own code at t when the cited line does
// not hold it: in the cited file (drifted), else in another file of its
// directory (moved).
func (k *Checker) locateText(r result, t *Tree, rp string, code []string, at string) result {
	c := r.c
	places := textPlaces(t, rp, code, c.Names)
	switch {
	case len(places) == 1:
		return k.drift(r, rp, places[0], 0, AnchorText, code[0], fmt.Sprintf("the cited code is at line %d at %s", places[0], at))
	case len(places) > 1:
		r.status, r.msg = Ambiguous, fmt.Sprintf("the cited code is on %d lines of %s at %s: %s; cite one of them", len(places), rp, at, lineList(places))
		return r
	}
	var other []string
	var line int
	for _, f := range siblings(t, rp) {
		if ps := textPlaces(t, f, code, c.Names); len(ps) > 0 {
			other = append(other, f)
			line = ps[0]
			if len(ps) > 1 {
				line = 0
			}
		}
	}
	if len(other) == 1 && line > 0 {
		return k.drift(r, other[0], line, 0, AnchorText, code[0], fmt.Sprintf("the cited code is in %s at %s", other[0], at))
	}
	if ls, _ := t.read(rp); c.Line > len(ls) {
		r.status, r.msg = Missing, fmt.Sprintf("%s has %d lines at %s, and the cited code is not in it", rp, len(ls), at)
		return r
	}
	r.status, r.msg = Mismatch, fmt.Sprintf("the cited code `%s` is nowhere in %s at %s", code[0], rp, at)
	return r
}

// siblings are the other files where a file's code may have moved: the
// files of its directory, and the files of its name elsewhere.
func siblings(t *Tree, rp string) []string {
	seen := map[string]bool{rp: true}
	var out []string
	ext := ""
	if i := strings.LastIndexByte(rp, '.'); i >= 0 {
		ext = rp[i:]
	}
	for _, group := range [][]string{t.dirs[path2dir(rp)], t.base[baseOf(rp)]} {
		for _, f := range group {
			if !seen[f] && strings.HasSuffix(f, ext) && !strings.HasSuffix(f, "_test.go") {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

func baseOf(rp string) string { return rp[strings.LastIndexByte(rp, '/')+1:] }

func lineList(ls []int) string {
	var s []string
	for i, l := range ls {
		if i == 5 {
			s = append(s, fmt.Sprintf("and %d more", len(ls)-5))
			break
		}
		s = append(s, strconv.Itoa(l))
	}
	return strings.Join(s, ", ")
}

// drift sets r to where the cited line is now: the same line (ok), another
// line (drifted), or another file (moved). end is where a range ends now
// (0: moved with its start).
func (k *Checker) drift(r result, rp string, line, end int, anchor, evidence, msg string) result {
	c := r.c
	r.anchor, r.evidence = anchor, evidence
	r.nowEnd = 0
	if c.End > 0 {
		r.nowEnd = end
		if end == 0 {
			r.nowEnd = c.End + line - c.Line
		}
	}
	switch {
	case rp == r.resolved && line == c.Line && (c.End == 0 || r.nowEnd == c.End):
		r.status, r.nowEnd = OK, 0
		return r
	case rp == r.resolved || r.resolved == "" && sameFile(rp, c.File):
		r.status, r.resolved = Drifted, rp
	default:
		r.status, r.nowFile = Moved, rp
	}
	r.now = line
	r.msg = msg
	return r
}

func sameFile(rp, written string) bool {
	w := strings.TrimPrefix(strings.TrimPrefix(written, "…/"), ".../")
	for strings.HasPrefix(w, "../") || strings.HasPrefix(w, "./") {
		_, w, _ = strings.Cut(w, "/")
	}
	return rp == w || strings.HasSuffix(rp, "/"+w)
}

// carry checks a citation of release r0 at t: the citation is judged at
// r0 on the notes' evidence (a citation wrong at its own release is not
// ok), its line is located at t by its text, its neighbours and its
// function (a range's end by its own), and the code the notes quote
// that r0's line holds must be on the line at t.
func (k *Checker) carry(r result, r0, t *Tree, unit []cite.Citation) result {
	c := r.c
	r.carried = true
	at0 := fmt.Sprintf("%s, the notes' release", r0.Version)
	j := k.direct(result{c: c}, r0, true, unit)
	rp0, line0, wrong := j.resolved, c.Line, ""
	switch j.status {
	case OK:
	case Drifted:
		line0 = j.now
		wrong = fmt.Sprintf("wrong already at %s: %s", at0, j.msg)
	case Moved:
		rp0, line0 = j.nowFile, j.now
		wrong = fmt.Sprintf("wrong already at %s: %s", at0, j.msg)
	default:
		r.status, r.resolved = j.status, ""
		r.msg = fmt.Sprintf("%s (at %s): the citation is wrong at its own release", j.msg, at0)
		return r
	}
	lines0, err := r0.read(rp0)
	if err != nil {
		r.status, r.msg = Unresolved, fmt.Sprintf("reading %s at %s: %v", rp0, r0.Version, err)
		return r
	}
	end0 := 0
	if c.End > 0 {
		end0 = c.End + line0 - c.Line
	}
	// The code the notes quote that the line holds at r0: it must be on
	// the line at t too.
	type held struct {
		q    cite.Quote
		line int // the line of r0 that holds it
	}
	var helds []held
	ns0 := r0.normalized(rp0)
	for _, q := range c.Quotes {
		n := cite.Normalize(q.Code)
		if n == "" || !q.Own && !telling(q.Code) {
			continue
		}
		for l := line0; l <= max(line0, end0) && l <= len(ns0); l++ {
			if strings.Contains(ns0[l-1], n) {
				helds = append(helds, held{q, l})
				break
			}
		}
	}
	a := newAnchor(r0, rp0, line0)
	rp, _ := t.resolve(rp0)
	if rp == "" {
		if why, ok := t.unread(rp0); ok {
			r.status, r.msg = Unresolved, why
			return r
		}
		rp, _ = k.resolveFile(t, c)
	}
	r.resolved = rp
	file, line, sim, amb := locateAnchor(t, rp, rp0, a)
	if file == "" && amb != nil {
		r.status, r.msg = Ambiguous, fmt.Sprintf("the line of %s, `%s`, is at several places of %s: %s", r0.Version, strings.TrimSpace(lines0[line0-1]), k.at(t), strings.Join(amb, ", "))
		return r
	}
	edited := ""
	if file != "" && sim < 1 {
		edited = fmt.Sprintf("the line of %s, `%s`, changed: %s:%d of %s is `%s` (%.0f%% of its tokens alike)", r0.Version, strings.TrimSpace(lines0[line0-1]), file, line, k.at(t), strings.TrimSpace(lineAt(t, file, line)), 100*sim)
	}
	if file == "" {
		// The line itself changed: its code may still be there.
		if ownCode, _ := quotesOf(c); len(ownCode) > 0 && rp != "" {
			rr := k.locateText(r, t, rp, ownCode, k.at(t))
			if rr.status == Drifted || rr.status == Moved || rr.status == OK {
				rr.msg = fmt.Sprintf("the line of %s changed; %s", r0.Version, rr.msg)
				if rr.status == OK {
					rr.msg = ""
				}
				return rr
			}
		}
		if rp == "" {
			r.status, r.msg = Missing, fmt.Sprintf("no file %s in %s, and the line of %s, `%s`, is not in its directory", rp0, k.at(t), r0.Version, strings.TrimSpace(lines0[line0-1]))
			return r
		}
		r.status, r.msg = Mismatch, fmt.Sprintf("the line of %s, `%s`, is nowhere in %s (nor its directory) at %s", r0.Version, strings.TrimSpace(lines0[line0-1]), rp, k.at(t))
		return r
	}
	// A range is carried end by end: its end is a line of its own.
	end, endNote := 0, ""
	if end0 > 0 {
		ef, el, _, _ := locateAnchor(t, file, rp0, newAnchor(r0, rp0, end0))
		if ef == file && el >= line {
			end = el
		} else {
			end = line + end0 - line0
			endNote = fmt.Sprintf("; the range's last line of %s, `%s`, is not found after its first: the end is moved with the first", r0.Version, strings.TrimSpace(lines0[end0-1]))
		}
	}
	msg := fmt.Sprintf("the line of %s is at %s:%d of %s", r0.Version, file, line, k.at(t))
	if edited != "" {
		msg = edited
	}
	if wrong != "" {
		msg = wrong + "; " + msg
	}
	if r.resolved == "" {
		r.resolved = rp0
	}
	r = k.drift(r, file, line, end, AnchorRelease, r0.Version, msg+endNote)
	if edited != "" && r.status == OK {
		r.msg = edited
	}
	if wrong != "" && r.status == OK {
		r.status, r.msg = Mismatch, fmt.Sprintf("%s; line %d does hold it at %s", wrong, c.Line, k.at(t))
		return r
	}
	if c.Col > 0 {
		r.nowCol = shiftColumn(c.Col, lines0[line0-1], lineAt(t, file, line))
	}
	// The quoted code at t.
	var gone []string
	for _, h := range helds {
		newLine := line + (h.line - line0)
		if h.line == end0 && end > 0 {
			newLine = end
		}
		if _, ok := holdsAny(t, file, newLine, newLine, []string{h.q.Code}, nil); ok {
			continue
		}
		gone = append(gone, h.q.Code)
		was, is := lineAt(r0, rp0, h.line), lineAt(t, file, newLine)
		code, ok := carryQuote(h.q, was, is)
		switch {
		case !ok:
			r.stuck = fmt.Sprintf("the quoted `%s` has no counterpart in the edited line `%s`", h.q.Code, strings.TrimSpace(is))
		case h.q.NotesLine == 0:
			r.stuck = fmt.Sprintf("the quoted `%s` runs over lines of the notes", h.q.Code)
		default:
			r.requotes = append(r.requotes, requote{h.q, code})
		}
	}
	if len(gone) > 0 {
		was := r.status
		r.status = Mismatch
		r.msg = fmt.Sprintf("%s; the notes quote %s, which that line no longer holds", msg, quoteList(gone))
		if was == OK {
			r.now = line
			r.nowEnd = end
		}
	}
	return r
}

func lineAt(t *Tree, rp string, line int) string {
	ls, _ := t.read(rp)
	if line >= 1 && line <= len(ls) {
		return ls[line-1]
	}
	return ""
}

// shiftColumn moves a column by the change in the line's indentation.
func shiftColumn(col int, was, is string) int {
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }
	if n := col + indent(is) - indent(was); n >= 1 {
		return n
	}
	return col
}

// anchor is a line of the notes' release: its text, its neighbours and
// the function it is in.
type anchor struct {
	line           int
	text           string
	before, after  []string // nearest first
	fn             fnSpan
	inFn           bool
	trivial        bool // no letter or digit: found by its neighbours only
	expectedOffset int  // line - fn.start
}

func newAnchor(t *Tree, rp string, line int) anchor {
	ns := t.normalized(rp)
	a := anchor{line: line, text: ns[line-1]}
	for d := 1; d <= contextLines; d++ {
		if line-1-d >= 0 {
			a.before = append(a.before, ns[line-1-d])
		}
		if line-1+d < len(ns) {
			a.after = append(a.after, ns[line-1+d])
		}
	}
	a.fn, a.inFn = t.enclosing(rp, line)
	if a.inFn {
		a.expectedOffset = line - a.fn.start
	}
	a.trivial = !meaningful(a.text)
	return a
}

// meaningful reports whether a line has a letter or a digit.
func meaningful(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

// locateAnchor finds a's line at t: the same text in rp (the cited file at
// t, if any), unless the files where its code may have moved hold it in
// its function while rp does not; else an edited line, in rp first. A line
// found elsewhere needs a neighbour or its function to show it is the
// line. It returns the file and line (and, for an edited line, how alike it
// is), or the places that fit equally well.
func locateAnchor(t *Tree, rp, rp0 string, a anchor) (string, int, float64, []string) {
	base := rp
	if base == "" {
		base = rp0
	}
	var here exact
	if rp != "" {
		here = locateExact(t, []string{rp}, a, 0)
		if here.file != "" && (here.inFn || !a.inFn) || here.amb != nil {
			return here.file, here.line, 1, here.amb
		}
	}
	if there := locateExact(t, siblings(t, base), a, 1); there.file != "" || there.amb != nil {
		if here.file == "" || there.score > here.score {
			return there.file, there.line, 1, there.amb
		}
	}
	if here.file != "" {
		return here.file, here.line, 1, nil
	}
	if rp != "" {
		if f, l, sim := locateEdited(t, []string{rp}, a); f != "" {
			return f, l, sim, nil
		}
	}
	f, l, sim := locateEdited(t, siblings(t, base), a)
	return f, l, sim, nil
}

// exact is the best line of locateExact.
type exact struct {
	file  string
	line  int
	score int
	inFn  bool     // in the anchor's function
	amb   []string // places that fit equally well
}

// locateExact finds the lines of files whose text is a's, scored by the
// neighbours they share with it and by being in its function; a line
// scoring less than min is not taken.
func locateExact(t *Tree, files []string, a anchor, min int) exact {
	type cand struct {
		file  string
		line  int
		score int
		inFn  bool
		dist  int
	}
	var cs []cand
	for _, f := range files {
		ns := t.normalized(f)
		for i, l := range ns {
			if l != a.text {
				continue
			}
			s := sharedContext(ns, i, a)
			expected, inFn := a.line, false
			if a.inFn && t.mentions(f, a.fn.name) {
				if fn, ok := t.enclosing(f, i+1); ok && fn.name == a.fn.name && fn.recv == a.fn.recv {
					s += 2 * contextLines
					expected, inFn = fn.start+a.expectedOffset, true
				}
			}
			if s < min || a.trivial && s == 0 {
				continue
			}
			cs = append(cs, cand{f, i + 1, s, inFn, absInt(i + 1 - expected)})
		}
	}
	if len(cs) == 0 {
		return exact{}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].score != cs[j].score {
			return cs[i].score > cs[j].score
		}
		return cs[i].dist < cs[j].dist
	})
	if len(cs) > 1 && cs[1].score == cs[0].score && cs[1].dist == cs[0].dist {
		var amb []string
		for _, c := range cs {
			if c.score == cs[0].score && c.dist == cs[0].dist {
				amb = append(amb, c.file+":"+strconv.Itoa(c.line))
			}
		}
		return exact{amb: amb}
	}
	return exact{file: cs[0].file, line: cs[0].line, score: cs[0].score, inFn: cs[0].inFn}
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
