package trace_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"golang.org/x/tools/txtar"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/study"
)

// TestFixtures is the one driver of the fixture archives (fixtures/*.txtar):
// each holds a small module shaped like etcd, the study to run on it
// (study.json) and its expectations, which this test reads and checks:
//
//   - `// want: KIND` on a line: exactly one use of the sentinel, of that
//     kind, is found there, and no use is found on an unmarked line;
//   - `// want comparison: KIND` on a line: the signal's comparisons are
//     exactly the lines so marked (decision or boundary), when the study
//     follows a signal;
//   - a want file: one expectation a line (see checkWant), about pairs,
//     paths, feasibility, roots, the citation, and srctrace why.
func TestFixtures(t *testing.T) {
	archives, err := filepath.Glob(filepath.Join(fixtures.Dir(), "*.txtar"))
	if err != nil || len(archives) == 0 {
		t.Fatalf("no fixture archives in %s: %v", fixtures.Dir(), err)
	}
	for _, a := range archives {
		name := strings.TrimSuffix(filepath.Base(a), ".txtar")
		t.Run(name, func(t *testing.T) {
			dir, ar, st, res := runFixture(t, name)
			rep, err := res.Report()
			if err != nil {
				t.Fatal(err)
			}
			// The release is the archive's version file's, read as a checkout.
			v := versionRE.FindSubmatch(fixtures.File(ar, "api/version/version.go"))
			if v == nil || rep.Etcd.Version != "v"+string(v[1]) || rep.Etcd.Source != "dir" {
				t.Errorf("etcd = %+v, want the version of api/version/version.go and source dir", rep.Etcd)
			}
			sites, comparisons := marks(t, dir)
			if len(sites) == 0 {
				t.Fatal("the archive marks no use of the sentinel with // want: KIND")
			}
			var got []string
			for _, s := range rep.Sites {
				got = append(got, fmt.Sprintf("%s:%d %s", s.File, s.Line, s.Kind))
			}
			sort.Strings(got)
			if diff := cmp.Diff(sites, got); diff != "" {
				t.Errorf("uses of the sentinel (-want +got):\n%s", diff)
			}
			if rep.Signal != nil {
				got = nil
				for _, c := range rep.Signal.Comparisons {
					got = append(got, fmt.Sprintf("%s:%d %s", c.File, c.Line, c.Kind))
				}
				sort.Strings(got)
				if diff := cmp.Diff(comparisons, got); diff != "" {
					t.Errorf("the signal's comparisons (-want +got):\n%s", diff)
				}
			} else if len(comparisons) > 0 {
				t.Errorf("comparisons marked, but the study follows no signal: %q", comparisons)
			}
			if want := fixtures.File(ar, "want"); want != nil {
				checkWant(t, rep, want, st.Sentinel, func(symbol string) (*report.Why, error) {
					return trace.Why(context.Background(), trace.WhyOptions{Symbol: symbol, Target: st.Tgt(), Dir: dir, Env: fixtures.Env})
				})
			}
		})
	}
}

// runFixture unpacks archive name and runs its study on it.
func runFixture(t *testing.T, name string) (dir string, ar *txtar.Archive, st *study.Study, res *trace.Result) {
	t.Helper()
	dir, ar = fixtures.Unpack(t, name)
	st, err := study.Parse(fixtures.File(ar, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err = trace.Run(context.Background(), trace.Options{Study: st, Dir: dir, Env: fixtures.Env})
	if err != nil {
		t.Fatal(err)
	}
	return dir, ar, st, res
}

var (
	versionRE      = regexp.MustCompile(`\bVersion\s+= "([^"]+)"`)
	siteMark       = regexp.MustCompile(`// want: ([\w-]+)`)
	comparisonMark = regexp.MustCompile(`// want comparison: (\w+)`)
)

// marks reads the // want comments of the unpacked archive's Go files.
func marks(t *testing.T, dir string) (sites, comparisons []string) {
	err := filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		for i, line := range strings.Split(string(data), "\n") {
			at := fmt.Sprintf("%s:%d ", filepath.ToSlash(rel), i+1)
			if m := siteMark.FindStringSubmatch(line); m != nil {
				sites = append(sites, at+m[1])
			}
			if m := comparisonMark.FindStringSubmatch(line); m != nil {
				comparisons = append(comparisons, at+m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(sites)
	sort.Strings(comparisons)
	return sites, comparisons
}

// checkWant checks a want file's lines against the report (and, for why
// lines, against srctrace why on the sentinel, run once when needed):
//
//	reach|unreachable|definition|init ENTRY SITE   whether the pair has a path
//	cross ENTRY SITE BOUNDARY TO                   only across one hand-off
//	path ENTRY SITE HOP...                         the shortest path's hops
//	feasible ENTRY SITE VERDICT [WORDS]            the pair's verdict and reason
//	invariant RELATION [FILE:LINE...]              an invariant found, with the lines of its writes
//	noinvariant RELATION                           one not found (or only assumed)
//	root KIND NAME                                 a root found from the code
//	siteroot SITE ROOT                             a nearest feasible root of a use
//	grep FILE:LINE site|text                       a line of the citation's grep
//	file FILE present|absent N                     a cited file and its uses
//	carries N                                      sends that carry the signal
//	whysymbol SYMBOL                               the symbol of the why lines after it (first: the sentinel)
//	why SITE KIND [ROOT...]                        srctrace why's roots of a use
//	whyobject KIND FILE:LINE                       the object why describes
//	whyway SITE ROOT BY [HANDOFF:MESSAGE...] [dynamic]  how a root gets to a use
//	whyvia SITE VIA                                a dynamic use: what its call names
//	whyimpl SITE IMPL                              a use of an interface method's implementation
//	whyroot ROOT METHOD [STUB...]                  a gRPC root's method and its client stubs
//	whyroot ROOT callback FIELD MAIN               a library callback: the field it is stored in, the main that reaches its starter
//	whyerror SYMBOL usage|noobject WORDS           why refuses the symbol, saying WORDS
//
// Every path srctrace why keeps can run (yes or only-if).
func checkWant(t *testing.T, rep *report.Report, want []byte, sentinel string, why func(string) (*report.Why, error)) {
	symbol := sentinel
	var w *report.Why
	runs := map[string]*report.Why{}
	siteAt := map[string]int{}
	for i, s := range rep.Sites {
		siteAt[fmt.Sprintf("%s:%d", s.File, s.Line)] = i
	}
	pair := func(entry, site string) *report.PairPaths {
		i, ok := siteAt[site]
		if !ok {
			t.Fatalf("no site at %s (sites: %v)", site, siteAt)
		}
		for k := range rep.Paths {
			if p := &rep.Paths[k]; p.Entry == entry && p.Site.Index == i {
				return p
			}
		}
		t.Fatalf("no pair (%s, %s)", entry, site)
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(want))
	checked := 0
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		checked++
		switch f[0] {
		case "reach", "unreachable", "definition", "init":
			p := pair(f[1], f[2])
			if got := p.Reachable; got != (f[0] == "reach") {
				t.Errorf("%s: reachable = %v", sc.Text(), got)
			}
			if f[0] != "reach" && f[0] != "unreachable" && p.Why != f[0] {
				t.Errorf("%s: why = %q", sc.Text(), p.Why)
			}
			if f[0] == "unreachable" && len(p.Crossing) > 0 {
				t.Errorf("%s: unexpected crossing %+v", sc.Text(), p.Crossing)
			}
		case "cross":
			p := pair(f[1], f[2])
			if p.Reachable || len(p.Crossing) != 1 || p.Crossing[0].Boundary != f[3] || p.Crossing[0].To != f[4] {
				t.Errorf("%s: got reachable=%v crossing=%+v", sc.Text(), p.Reachable, p.Crossing)
			}
		case "also":
			// also ENTRY SITE [BOUNDARY...]: the other message kinds that
			// reach the use, by the first hand-off of each.
			p := pair(f[1], f[2])
			got := []string{}
			for _, a := range p.Also {
				got = append(got, a.Crossing[0].Boundary)
			}
			if diff := cmp.Diff(append([]string{}, f[3:]...), got); diff != "" {
				t.Errorf("%s: also (-want +got):\n%s", sc.Text(), diff)
			}
		case "path":
			p := pair(f[1], f[2])
			var got []string
			for _, h := range p.Hops {
				s := fmt.Sprintf("%s@%s:%d:%d", shortName(h.Function), h.File, h.Line, h.Column)
				if h.Goroutine {
					s += ":go"
				}
				if h.Dynamic {
					s += ":dynamic"
				}
				got = append(got, s)
			}
			if diff := cmp.Diff(f[3:], got); diff != "" {
				t.Errorf("%s %s path (-want +got):\n%s", f[1], f[2], diff)
			}
		case "grep":
			found := false
			for _, l := range rep.Citation.Lines {
				if fmt.Sprintf("%s:%d", l.File, l.Line) == f[1] {
					found = true
					if (l.Site >= 0) != (f[2] == "site") {
						t.Errorf("%s: site = %d", sc.Text(), l.Site)
					}
				}
			}
			if !found {
				t.Errorf("%s: no such grep line in %+v", sc.Text(), rep.Citation.Lines)
			}
		case "file":
			found := false
			for _, fl := range rep.Files {
				if fl.File == f[1] {
					found = true
					if got := fmt.Sprintf("%s %d", map[bool]string{true: "present", false: "absent"}[fl.Present], fl.Sites); got != f[2]+" "+f[3] {
						t.Errorf("%s: got %s", sc.Text(), got)
					}
				}
			}
			if !found {
				t.Errorf("%s: file not reported", sc.Text())
			}
		case "feasible":
			p := pair(f[1], f[2])
			if p.Feasible != f[3] {
				t.Errorf("%s: feasible = %q (because %+v)", sc.Text(), p.Feasible, p.Because)
				continue
			}
			if len(f) > 4 {
				words := strings.Join(f[4:], " ")
				if p.Because == nil || !strings.Contains(p.Because.Text, words) {
					t.Errorf("%s: because = %+v, want it to say %q", sc.Text(), p.Because, words)
				}
			}
		case "feasibleway":
			// feasibleway ENTRY SITE VERDICT WORDS: some way of the pair
			// has the verdict, and its reason says the words.
			p := pair(f[1], f[2])
			words := strings.Join(f[4:], " ")
			found := false
			for _, x := range p.Ways {
				if x.Feasible == f[3] && x.Because != nil && strings.Contains(x.Because.Text, words) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no such way among %d (pair %q because %+v)", sc.Text(), len(p.Ways), p.Feasible, p.Because)
			}
		case "invariant", "noinvariant":
			// The relation is the words up to the first FILE:LINE.
			var rel, lines []string
			for _, x := range f[1:] {
				if strings.Contains(x, ".go:") {
					lines = append(lines, x)
				} else {
					rel = append(rel, x)
				}
			}
			relation := strings.Join(rel, " ")
			var found *report.Invariant
			for i := range rep.Invariants {
				if rep.Invariants[i].Relation == relation {
					found = &rep.Invariants[i]
				}
			}
			if (found != nil) != (f[0] == "invariant") {
				t.Errorf("%s: invariants are %+v", sc.Text(), rep.Invariants)
				continue
			}
			if found != nil {
				var got []string
				for _, w := range found.Writes {
					got = append(got, fmt.Sprintf("%s:%d", w.File, w.Line))
				}
				if !slices.Equal(got, lines) {
					t.Errorf("%s: writes are %v", sc.Text(), got)
				}
			}
		case "onlyif":
			// onlyif ENTRY SITE [not] TEXT [| WORDS]: the shown way lists
			// the condition among its only-ifs (with WORDS in its note;
			// ending it, with WORDS ending in $).
			p := pair(f[1], f[2])
			want, text := true, strings.Join(f[3:], " ")
			text, words, _ := strings.Cut(text, " | ")
			if rest, ok := strings.CutPrefix(text, "not "); ok {
				want, text = false, rest
			}
			words, atEnd := strings.CutSuffix(words, "$")
			found := false
			if p.Best < len(p.Ways) {
				for _, c := range p.Ways[p.Best].OnlyIf {
					has := strings.Contains(c.Note, words)
					if atEnd {
						has = strings.HasSuffix(c.Note, words)
					}
					found = found || c.Text == text && c.Want == want && has
				}
			}
			if !found {
				t.Errorf("%s: the shown way's only-ifs are %+v", sc.Text(), p.Ways)
			}
		case "askat":
			// askat ENTRY SITE CALL FILE:LINE: the check CALL that the
			// shown way needs passed or failed is cited at FILE:LINE.
			p := pair(f[1], f[2])
			call, at := strings.Join(f[3:len(f)-1], " "), f[len(f)-1]
			cs := shownAsks(p)
			var got []string
			for _, c := range cs {
				if c.Passes == call || c.Fails == call {
					got = append(got, fmt.Sprintf("%s:%d", c.File, c.Line))
				}
			}
			if !slices.Equal(got, []string{at}) {
				t.Errorf("%s: %s is cited at %v", sc.Text(), call, got)
			}
		case "asks":
			// asks ENTRY SITE [not] TEXT [for every SLICE] ; passes|fails
			// CALL [@FILE:LINE] [|AFTER] ; …, or -: what the shown way (with
			// its legs across hand-offs) needs of the request, in the way's
			// order (@ where the function value a check calls is made; |
			// what a filter beside the way leaves, which the check reads).
			p := pair(f[1], f[2])
			var want []string
			if list := strings.Join(f[3:], " "); list != "-" {
				want = strings.Split(list, " ; ")
			}
			cs := shownAsks(p)
			var got []string
			for _, c := range cs {
				if c.Passes != "" || c.Fails != "" {
					made := ""
					if c.PassesMade != nil {
						made = fmt.Sprintf(" @%s:%d", c.PassesMade.File, c.PassesMade.Line)
					}
					if c.After != "" {
						made += " |" + c.After
					}
					if c.Passes != "" {
						got = append(got, "passes "+c.Passes+made)
					} else {
						got = append(got, "fails "+c.Fails+made)
					}
					continue
				}
				every := ""
				if c.Every != "" {
					every = " for every " + c.Every
				}
				if c.Either {
					// One of several: the others in the note.
					every += " |" + c.Note
				}
				got = append(got, map[bool]string{true: "", false: "not "}[c.Want]+c.Text+every)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: the shown way asks %q", sc.Text(), got)
			}
		case "legonlyif":
			// legonlyif ENTRY SITE TEXT: a leg of the pair's way across a
			// hand-off lists the condition among its only-ifs.
			p := pair(f[1], f[2])
			text := strings.Join(f[3:], " ")
			found := false
			for _, l := range p.Crossing {
				for _, c := range l.OnlyIf {
					found = found || c.Text == text
				}
			}
			if !found {
				t.Errorf("%s: the legs are %+v", sc.Text(), p.Crossing)
			}
		case "notonlyif":
			// notonlyif ENTRY SITE TEXT [| erred CALL]: the shown way lists
			// no condition on TEXT, taken or not (none that needs CALL's
			// error, when given).
			p := pair(f[1], f[2])
			text, erred, _ := strings.Cut(strings.Join(f[3:], " "), " | erred ")
			if p.Best >= len(p.Ways) {
				t.Errorf("%s: no way is shown", sc.Text())
				continue
			}
			for _, c := range p.Ways[p.Best].OnlyIf {
				if c.Text == text && (erred == "" || c.Erred == erred) {
					t.Errorf("%s: the shown way's only-ifs are %+v", sc.Text(), p.Ways[p.Best].OnlyIf)
				}
			}
		case "root":
			found := false
			for _, e := range rep.Entries {
				if e.Name == f[2] {
					found = true
					if e.Found != "code" || e.Kind != f[1] {
						t.Errorf("%s: entry %+v", sc.Text(), e)
					}
				}
			}
			if !found {
				t.Errorf("%s: no such entry among %d", sc.Text(), len(rep.Entries))
			}
		case "siteroot":
			i, ok := siteAt[f[1]]
			if !ok {
				t.Fatalf("no site at %s", f[1])
			}
			found := false
			for _, r := range rep.Sites[i].Roots {
				found = found || r == f[2]
			}
			if !found {
				t.Errorf("%s: roots = %v", sc.Text(), rep.Sites[i].Roots)
			}
		case "carries":
			var carries int
			for _, h := range rep.Signal.Handoffs {
				if h.Kind == "send" && strings.Contains(h.Detail, "carries the signal") {
					carries++
				}
			}
			if fmt.Sprint(carries) != f[1] {
				t.Errorf("%s: %d sends carry the signal: %+v", sc.Text(), carries, rep.Signal.Handoffs)
			}
		case "whysymbol":
			symbol, w = f[1], nil
		case "whyerror":
			_, err := why(f[1])
			words := strings.Join(f[3:], " ")
			isUsage, isNone := errors.Is(err, source.ErrUsage), errors.Is(err, trace.ErrNoObject)
			if err == nil || (f[2] == "usage" && !isUsage) || (f[2] == "noobject" && !isNone) || !strings.Contains(err.Error(), words) {
				t.Errorf("%s: err = %v (usage %v, no object %v)", sc.Text(), err, isUsage, isNone)
			}
		case "why", "whyobject", "whyway", "whyvia", "whyimpl", "whyroot", "whynoway", "whyhands":
			if w == nil {
				if w = runs[symbol]; w == nil {
					var err error
					if w, err = why(symbol); err != nil {
						t.Fatalf("why %s: %v", symbol, err)
					}
					runs[symbol] = w
					for _, p := range w.Paths {
						if p.Feasible != "yes" && p.Feasible != "only-if" {
							t.Errorf("why: %s -> %s:%d kept with verdict %q", p.Entry, p.Site.File, p.Site.Line, p.Feasible)
						}
					}
				}
			}
			if f[0] == "whyroot" {
				found := false
				for _, e := range w.Entries {
					if e.Name != f[1] {
						continue
					}
					found = true
					got := strings.TrimSpace(e.Method + " " + strings.Join(shortNames(e.Stubs), " "))
					if len(f) > 2 && f[2] == "callback" {
						got = "callback " + e.Doc[strings.LastIndex(e.Doc, "stored in ")+len("stored in "):]
						got = strings.Fields(got)[0] + " " + strings.Fields(got)[1] + " " + shortName(e.StartUp)
					}
					if got != strings.Join(f[2:], " ") {
						t.Errorf("%s: got %q (doc %q)", sc.Text(), got, e.Doc)
					}
				}
				if !found {
					t.Errorf("%s: why keeps no such root", sc.Text())
				}
				continue
			}
			if f[0] == "whyhands" {
				// whyhands ROOT HANDOFF...: the hand-offs the root's ways
				// cross from it, by name.
				var got []string
				for _, e := range w.Entries {
					if e.Name == f[1] {
						for _, h := range e.HandsOff {
							name, _, _ := strings.Cut(strings.TrimPrefix(h, "the "), ":")
							got = append(got, name)
						}
					}
				}
				if diff := cmp.Diff(f[2:], got); diff != "" {
					t.Errorf("%s: hands off (-want +got):\n%s", sc.Text(), diff)
				}
				continue
			}
			if f[0] == "whyobject" {
				if got := fmt.Sprintf("%s %s:%d", w.Object.Kind, w.Object.File, w.Object.Line); got != f[1]+" "+f[2] {
					t.Errorf("%s: why's object is %s", sc.Text(), got)
				}
				continue
			}
			var use *report.Site
			ui := -1
			for i := range w.Sites {
				if s := &w.Sites[i]; fmt.Sprintf("%s:%d", s.File, s.Line) == f[1] {
					use, ui = s, i
				}
			}
			switch {
			case use == nil:
				t.Errorf("%s: why finds no use there", sc.Text())
			case f[0] == "whyvia":
				if !use.Dynamic || use.Via != f[2] {
					t.Errorf("%s: dynamic %v via %q", sc.Text(), use.Dynamic, use.Via)
				}
			case f[0] == "whynoway":
				// whynoway SITE ROOT BY WORDS: no root reaches the use by a
				// way that can run; the nearest that reaches it does so BY
				// calls or hand-off, and what refutes it says WORDS.
				nw := use.NoWay
				if nw == nil || nw.Root != f[2] || nw.By != f[3] || nw.Because == nil || !strings.Contains(nw.Because.Text, strings.Join(f[4:], " ")) {
					because := ""
					if nw != nil && nw.Because != nil {
						because = nw.Because.Text
					}
					t.Errorf("%s: no way %+v (because %q)", sc.Text(), nw, because)
				}
			case f[0] == "whyimpl":
				if shortName(use.Impl) != f[2] {
					t.Errorf("%s: impl %q", sc.Text(), use.Impl)
				}
			case f[0] == "whyway":
				var got []string
				for _, x := range w.Ways {
					if x.Site != ui || x.Root != f[2] {
						continue
					}
					got = append(got, x.By)
					for i, h := range x.HandOffs {
						got = append(got, h+":"+x.Messages[i])
					}
					if x.Dynamic {
						got = append(got, "dynamic")
					}
				}
				if diff := cmp.Diff(f[3:], got); diff != "" {
					t.Errorf("%s: the way (-want +got):\n%s", sc.Text(), diff)
				}
			case use.Kind != f[2]:
				t.Errorf("%s: why says the use is a %s", sc.Text(), use.Kind)
			default:
				if diff := cmp.Diff(f[3:], use.Roots, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("%s: why's roots (-want +got):\n%s", sc.Text(), diff)
				}
			}
		default:
			t.Fatalf("want: unknown line %q", sc.Text())
		}
	}
	if checked == 0 {
		t.Fatal("want file checked nothing")
	}
	var grepLines int
	for _, l := range strings.Split(string(want), "\n") {
		if strings.HasPrefix(l, "grep ") {
			grepLines++
		}
	}
	if grepLines > 0 && len(rep.Citation.Lines) != grepLines {
		t.Errorf("citation has %d lines, want %d: %+v", len(rep.Citation.Lines), grepLines, rep.Citation.Lines)
	}
}

func shortNames(qs []string) []string {
	var out []string
	for _, q := range qs {
		out = append(out, shortName(q))
	}
	return out
}

func shortName(q string) string {
	head := q
	if i := strings.Index(q, "("); i >= 0 {
		head = q[:i]
	}
	return q[strings.LastIndex(head, "/")+1:]
}

// TestForkSharesInvariants: a fork of a feasibility checker answers a
// path as a checker of its own does, and the invariants it reads are its
// parent's too (and its other forks'), while a checker that is no fork
// of theirs has read none.
func TestForkSharesInvariants(t *testing.T) {
	_, _, _, res := runFixture(t, "earlier")
	var pair *study.Pair
	for i, p := range res.Pairs {
		if res.Entries[p.Entry].Name == "head" && len(p.Ways) > 0 && len(p.Crossing) == 0 {
			pair = &res.Pairs[i]
		}
	}
	if pair == nil {
		t.Fatal("no pair of the entry head with a way")
	}
	e, s, way := res.Entries[pair.Entry], res.Sites[pair.Site], pair.Ways[0]
	parent := feasible.New(res.Graph)
	fork := parent.Fork()
	got, _ := fork.Check(feasible.Path{Root: e.Func, Hops: way.Path, Target: s.Instr})
	if got.Verdict != feasible.No || got.Verdict != way.Res.Verdict {
		t.Fatalf("the fork's verdict = %s, want no, the run's (%s)", got.Verdict, way.Res.Verdict)
	}
	invs := parent.Invariants()
	names := func(invs []*feasible.Invariant) []string {
		var out []string
		for _, inv := range invs {
			switch {
			case inv.Grows:
				out = append(out, inv.A.Name()+" never goes down")
			case inv.Floor():
				out = append(out, inv.A.Name()+" >= 0")
			default:
				out = append(out, fmt.Sprintf("%s - %s <= %d", inv.A.Name(), inv.B.Name(), inv.C))
			}
		}
		return out
	}
	found := names(invs)
	if !slices.Contains(found, "compactRev - currentRev <= 0") {
		t.Fatalf("the parent's invariants after its fork's check = %v, want compactRev - currentRev <= 0 among them", found)
	}
	if other := names(parent.Fork().Invariants()); !slices.Equal(other, found) {
		t.Fatalf("another fork's invariants = %v, want the same: %v", other, found)
	}
	if none := feasible.New(res.Graph).Invariants(); len(none) != 0 {
		t.Fatalf("a checker of its own read %v, want none", none)
	}
}

// shownAsks is what pair p's shown way (with its legs across hand-offs)
// needs of the request, in the way's order.
func shownAsks(p *report.PairPaths) []report.Cond {
	var cs []report.Cond
	for _, c := range p.Crossing {
		cs = append(cs, c.Asks...)
	}
	if p.Best < len(p.Ways) {
		cs = append(cs, p.Ways[p.Best].Asks...)
	}
	return cs
}
