package trace_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study"
)

// runFixture runs the study stored in a fixture archive on the archive's
// checkout and returns the report.
func runFixture(t *testing.T, name string) (*report.Report, string, []byte) {
	t.Helper()
	dir, ar := fixtures.Unpack(t, name)
	st, err := study.Parse(fixtures.File(ar, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := trace.Run(context.Background(), trace.Options{Study: st, Dir: dir, Env: fixtures.Env})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := res.Report()
	if err != nil {
		t.Fatal(err)
	}
	return rep, dir, fixtures.File(ar, "want")
}

var wantRE = regexp.MustCompile(`// want: (\w+)`)

// TestFixtureSites checks that every `// want: KIND` comment in the fixture
// marks exactly one site of that kind on its line, and nothing else is found.
func TestFixtureSites(t *testing.T) {
	rep, dir, _ := runFixture(t, "watchshape")
	var want []string
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
			if m := wantRE.FindStringSubmatch(line); m != nil {
				want = append(want, fmt.Sprintf("%s:%d %s", filepath.ToSlash(rel), i+1, m[1]))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range rep.Sites {
		got = append(got, fmt.Sprintf("%s:%d %s", s.File, s.Line, s.Kind))
	}
	sort.Strings(want)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sites (-want +got):\n%s", diff)
	}
}

// TestFixtureWant checks each archive's want file: reachability and
// feasibility per pair, shortest paths, roots found from the code, the
// citation's grep and the cited files.
func TestFixtureWant(t *testing.T) {
	for _, name := range []string{"watchshape", "feasible"} {
		t.Run(name, func(t *testing.T) {
			rep, _, want := runFixture(t, name)
			checkWant(t, rep, want)
		})
	}
}

func checkWant(t *testing.T, rep *report.Report, want []byte) {
	siteAt := map[string]int{}
	for i, s := range rep.Sites {
		siteAt[fmt.Sprintf("%s:%d", s.File, s.Line)] = i
	}
	pair := func(entry, site string) *report.PairPaths {
		i, ok := siteAt[site]
		if !ok {
			t.Fatalf("no site at %s", site)
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
	if !strings.HasPrefix(rep.Etcd.Version, "v3.9.0-") || rep.Etcd.Source != "dir" {
		t.Errorf("etcd = %+v, want version from api/version and source dir", rep.Etcd)
	}
}

func shortName(q string) string {
	head := q
	if i := strings.Index(q, "("); i >= 0 {
		head = q[:i]
	}
	return q[strings.LastIndex(head, "/")+1:]
}
