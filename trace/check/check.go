// Package check verifies the citations that package cite finds in study
// notes against the files of a release or checkout of the target: that
// each cited line exists, that the notes give evidence it is the line they
// mean, and where it is now when it is not where they say.
//
// # Evidence
//
// No citation is ok without evidence. In order of strength:
//
//  1. code text for the line (a grep line's text, inline code beside the
//     citation or in its sentence, list item or table cell): the line holds
//     it;
//  2. a function or method named in the same unit, declared in the cited
//     file, whose body holds the line;
//  3. the notes' own release (--from, a permalink's tag, or the marker that
//     srctrace errcompacted writes): the cited line is read at that
//     release, and its text, its neighbours and its function are located
//     at the release checked.
//
// When the notes' release is known and differs from the one checked, the
// line is carried from it (3), after 1 and 2 have been checked at that
// release: a citation that is wrong at its own release is not ok.
// Otherwise 1 decides (and locates the text when the line does not hold
// it), then 2, then a release that is the one checked.
//
// # Statuses
//
// ok, drifted (the line is now another line of the file: Now), moved (it
// is now in another file: NowFile), missing (no such file, or line), mismatch
// (what the notes say is on the line is nowhere to be found), ambiguous
// (several files or places fit), unresolved (cannot be checked: a release
// that cannot be had, a link elsewhere), unanchored (the line exists, but
// nothing in the notes confirms it).
package check

import (
	"context"
	"fmt"
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

// result is one checked citation, with what --fix needs.
type result struct {
	c        cite.Citation
	status   Status
	release  string // the release checked against
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
	// A symbol's declaration.
	symFile string
	symLine int
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
	Open  func(ctx context.Context, version string) (*Tree, error)
	trees map[string]*Tree
	errs  map[string]error
}

func (k *Checker) tgt() *target.Target {
	if k.Target != nil {
		return k.Target
	}
	return target.Etcd
}

// tree returns the tree of release v.
func (k *Checker) tree(ctx context.Context, v string) (*Tree, error) {
	if k.Default != nil && k.Default.Version == v {
		return k.Default, nil
	}
	if t, ok := k.trees[v]; ok {
		return t, nil
	}
	if err, ok := k.errs[v]; ok {
		return nil, err
	}
	if k.Open == nil {
		return nil, fmt.Errorf("%s %s is not open; check with --%s-version %s", k.tgt().Name, v, k.tgt().Name, v)
	}
	if k.trees == nil {
		k.trees, k.errs = map[string]*Tree{}, map[string]error{}
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
	by   string // flag, marker
	name string // the release, also when it cannot be had
	err  error
}

// check checks one citation; o is the notes' own release for citations
// that are not links.
func (k *Checker) check(ctx context.Context, c cite.Citation, o own) result {
	r := result{c: c}
	if c.Form == cite.Symbol {
		return k.checkSymbol(c)
	}
	if c.Form == cite.GitHub || c.Ref != "" {
		// A link, or the text of one: at the link's tag, or carried from
		// it to the release checked with --to.
		if !strings.EqualFold(c.Repo, k.tgt().Repo) {
			r.status, r.msg = Unresolved, fmt.Sprintf("a link to %s, not to %s: not checked", c.Repo, k.tgt().Repo)
			return r
		}
		if !k.tgt().IsRelease(c.Ref) {
			r.status, r.msg = Unresolved, fmt.Sprintf("the link is at %q, which is not a release tag: srctrace checks links at release tags", c.Ref)
			return r
		}
		r0, err := k.tree(ctx, c.Ref)
		if err != nil {
			r.release, r.status, r.msg = c.Ref, Unresolved, err.Error()
			return r
		}
		t := r0
		if k.To != "" {
			t = k.Default
		}
		return k.checkLine(c, own{tree: r0, by: "link", name: c.Ref}, t)
	}
	if o.tree == nil && o.name != "" && k.Default != nil && o.name == k.Default.Version {
		o.tree = k.Default
	}
	if k.Default == nil {
		r.status, r.msg = Unresolved, "no release to check against"
		return r
	}
	return k.checkLine(c, o, k.Default)
}

func (k *Checker) checkSymbol(c cite.Citation) result {
	t := k.Default
	r := result{c: c, release: t.Version, anchor: AnchorSymbol}
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

// checkLine checks a file citation at t, with o its own release.
func (k *Checker) checkLine(c cite.Citation, o own, t *Tree) result {
	r := result{c: c, release: t.Version}
	if o.name != "" {
		r.from, r.fromBy = o.name, o.by
	}
	if c.Line < 1 {
		r.status, r.msg = Missing, "line 0 does not exist"
		return r
	}
	if o.tree != nil && o.tree.Version != t.Version {
		return k.carry(r, o.tree, t)
	}
	if o.name != "" && o.tree == nil && o.err != nil {
		// The notes' release cannot be had: the citation stands on its own
		// evidence, and says why the release did not help.
		r = k.direct(r, t, false)
		if r.status == Unanchored {
			r.msg = fmt.Sprintf("the line exists, but nothing in the notes confirms it, and their release %s cannot be had (%v)", o.name, o.err)
		}
		return r
	}
	return k.direct(r, t, o.tree != nil)
}

// direct checks a citation at t by the notes' own evidence; sameRelease
// says t is the notes' own release.
func (k *Checker) direct(r result, t *Tree, sameRelease bool) result {
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
	last := c.Line
	if c.End > last {
		last = c.End
	}
	if last <= len(lines) {
		if txt, ok := holdsAny(t, rp, c.Line, last, c.Own, c.Confirm); ok {
			r.status, r.anchor, r.evidence = OK, AnchorText, txt
			return r
		}
	}
	if len(c.Own) > 0 {
		return k.locateText(r, t, rp, fmt.Sprintf("%s %s", k.tgt().Name, t.Version))
	}
	if last > len(lines) {
		r.status, r.msg = Missing, fmt.Sprintf("%s has %d lines in %s %s", rp, len(lines), k.tgt().Name, t.Version)
		return r
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

type fileWhy struct {
	status Status
	msg    string
}

// resolveFile finds the cited file at t; a name that several files have
// is settled by the notes' evidence when exactly one of them fits it.
func (k *Checker) resolveFile(t *Tree, c cite.Citation) (string, fileWhy) {
	rp, cands := t.resolve(c.File)
	if rp != "" {
		return rp, fileWhy{}
	}
	if len(cands) == 0 {
		if why, ok := t.unread(c.File); ok {
			return "", fileWhy{Unresolved, why}
		}
		return "", fileWhy{Missing, fmt.Sprintf("no file %s in %s %s", c.File, k.tgt().Name, t.Version)}
	}
	var fit []string
	for _, cand := range cands {
		last := c.Line
		if c.End > last {
			last = c.End
		}
		if _, ok := holdsAny(t, cand, c.Line, last, c.Own, nil); ok && len(c.Own) > 0 {
			fit = append(fit, cand)
		} else if _, ok := inNamedFunc(t, cand, c.Line, c.Names); ok {
			fit = append(fit, cand)
		}
	}
	if len(fit) == 1 {
		return fit[0], fileWhy{}
	}
	return "", fileWhy{Ambiguous, fmt.Sprintf("%d files of %s %s are named so: %s", len(cands), k.tgt().Name, t.Version, strings.Join(cands, ", "))}
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
				if i >= 1 && strings.Contains(ns[i-1], n) {
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
	ns := t.normalized(rp)
	var spans []fnSpan
	for _, n := range names {
		spans = append(spans, t.funcsNamed(rp, n)...)
	}
	var out []int
	for i, l := range ns {
		for _, txt := range texts {
			n := cite.Normalize(txt)
			if n == "" || !strings.Contains(l, n) {
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
func (k *Checker) locateText(r result, t *Tree, rp, at string) result {
	c := r.c
	places := textPlaces(t, rp, c.Own, c.Names)
	switch {
	case len(places) == 1:
		return k.drift(r, rp, places[0], AnchorText, c.Own[0], fmt.Sprintf("the cited code is at line %d at %s", places[0], at))
	case len(places) > 1:
		r.status, r.msg = Ambiguous, fmt.Sprintf("the cited code is on %d lines of %s at %s: %s; cite one of them", len(places), rp, at, lineList(places))
		return r
	}
	var other []string
	var line int
	for _, f := range siblings(t, rp) {
		if ps := textPlaces(t, f, c.Own, c.Names); len(ps) > 0 {
			other = append(other, f)
			line = ps[0]
			if len(ps) > 1 {
				line = 0
			}
		}
	}
	if len(other) == 1 && line > 0 {
		return k.drift(r, other[0], line, AnchorText, c.Own[0], fmt.Sprintf("the cited code is in %s at %s", other[0], at))
	}
	if ls, _ := t.read(rp); c.Line > len(ls) {
		r.status, r.msg = Missing, fmt.Sprintf("%s has %d lines at %s, and the cited code is not in it", rp, len(ls), at)
		return r
	}
	r.status, r.msg = Mismatch, fmt.Sprintf("the cited code `%s` is nowhere in %s at %s", c.Own[0], rp, at)
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
// line (drifted), or another file (moved).
func (k *Checker) drift(r result, rp string, line int, anchor, evidence, msg string) result {
	c := r.c
	r.anchor, r.evidence = anchor, evidence
	switch {
	case rp == r.resolved && line == c.Line:
		r.status = OK
		return r
	case rp == r.resolved || r.resolved == "" && sameFile(rp, c.File):
		r.status, r.resolved = Drifted, rp
	default:
		r.status, r.nowFile = Moved, rp
	}
	r.now = line
	if c.End > 0 {
		r.nowEnd = c.End + line - c.Line
	}
	r.msg = msg
	return r
}

func sameFile(rp, written string) bool {
	w := strings.TrimPrefix(strings.TrimPrefix(written, "…/"), ".../")
	return rp == w || strings.HasSuffix(rp, "/"+w)
}

// carry checks a citation of release r0 at t: the cited line is read at
// r0, checked there against the notes' evidence, and located at t by its
// text, its neighbours and its function.
func (k *Checker) carry(r result, r0, t *Tree) result {
	c := r.c
	r.carried = true
	at0 := fmt.Sprintf("%s, the notes' release", r0.Version)
	rp0, why := k.resolveFile(r0, c)
	if rp0 == "" {
		r.status, r.msg = why.status, why.msg+" (the notes' release)"
		return r
	}
	lines0, err := r0.read(rp0)
	if err != nil {
		r.status, r.msg = Unresolved, fmt.Sprintf("reading %s at %s: %v", rp0, r0.Version, err)
		return r
	}
	last := c.Line
	if c.End > last {
		last = c.End
	}
	if last > len(lines0) {
		r.status, r.msg = Missing, fmt.Sprintf("%s has %d lines at %s: the citation is wrong at its own release", rp0, len(lines0), at0)
		return r
	}
	line0, wrong := c.Line, ""
	if len(c.Own) > 0 {
		if _, ok := holdsAny(r0, rp0, c.Line, last, c.Own, c.Confirm); !ok {
			places := textPlaces(r0, rp0, c.Own, c.Names)
			switch len(places) {
			case 0:
				r.status, r.msg = Mismatch, fmt.Sprintf("the cited code `%s` is nowhere in %s at %s: the citation is wrong at its own release", c.Own[0], rp0, at0)
				return r
			case 1:
				line0 = places[0]
				wrong = fmt.Sprintf("wrong already at %s, where the cited code is at line %d", at0, line0)
			default:
				r.status, r.msg = Ambiguous, fmt.Sprintf("the cited code is on %d lines of %s at %s: %s, and not on line %d", len(places), rp0, at0, lineList(places), c.Line)
				return r
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
		r.status, r.msg = Ambiguous, fmt.Sprintf("the line of %s, `%s`, is at several places of %s %s: %s", r0.Version, strings.TrimSpace(lines0[line0-1]), k.tgt().Name, t.Version, strings.Join(amb, ", "))
		return r
	}
	edited := ""
	if file != "" && sim < 1 {
		edited = fmt.Sprintf("the line of %s, `%s`, changed: %s:%d of %s %s is `%s` (%.0f%% of its tokens alike)", r0.Version, strings.TrimSpace(lines0[line0-1]), file, line, k.tgt().Name, t.Version, strings.TrimSpace(lineAt(t, file, line)), 100*sim)
	}
	if file == "" {
		// The line itself changed: its code may still be there.
		if len(c.Own) > 0 && rp != "" {
			rr := k.locateText(r, t, rp, fmt.Sprintf("%s %s", k.tgt().Name, t.Version))
			if rr.status == Drifted || rr.status == Moved || rr.status == OK {
				rr.msg = fmt.Sprintf("the line of %s changed; %s", r0.Version, rr.msg)
				if rr.status == OK {
					rr.msg = ""
				}
				return rr
			}
		}
		if rp == "" {
			r.status, r.msg = Missing, fmt.Sprintf("no file %s in %s %s, and the line of %s, `%s`, is not in its directory", rp0, k.tgt().Name, t.Version, r0.Version, strings.TrimSpace(lines0[line0-1]))
			return r
		}
		r.status, r.msg = Mismatch, fmt.Sprintf("the line of %s, `%s`, is nowhere in %s (nor its directory) at %s %s", r0.Version, strings.TrimSpace(lines0[line0-1]), rp, k.tgt().Name, t.Version)
		return r
	}
	msg := fmt.Sprintf("the line of %s is at %s:%d of %s %s", r0.Version, file, line, k.tgt().Name, t.Version)
	if edited != "" {
		msg = edited
	}
	if wrong != "" {
		msg = wrong + "; " + msg
	}
	if r.resolved == "" {
		r.resolved = rp0
	}
	r = k.drift(r, file, line, AnchorRelease, r0.Version, msg)
	if edited != "" && r.status == OK {
		r.msg = edited
	}
	if wrong != "" && r.status == OK {
		r.status, r.msg = Mismatch, fmt.Sprintf("%s; line %d does hold it at %s %s", wrong, c.Line, k.tgt().Name, t.Version)
	}
	if c.Col > 0 && r.status != Mismatch {
		r.nowCol = shiftColumn(c.Col, lines0[line0-1], lineAt(t, file, line))
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
