package drift_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace/drift"
	"github.com/srctrace/srctrace/trace/report"
)

// at is a position as a test writes it: kind, function, what, file:line
// and text.
func at(p drift.Position) string {
	return fmt.Sprintf("%s|%s|%s|%s:%d|%s", p.Kind, p.Function, p.What, p.File, p.Line, p.Text)
}

func TestPositions(t *testing.T) {
	loc := func(fn string, line int, text string) report.Loc {
		return report.Loc{File: "a.go", Line: line, Function: fn, Text: text}
	}
	rep := &report.Report{
		Entries: []report.Entry{
			{Name: "open", Function: "p.Open", File: "a.go", Line: 1},
			{Name: "apply", Function: "p.Apply", File: "b.go", Line: 1},
		},
		Sites: []report.Site{{Function: "p.F", Kind: "return", Text: "return  Err", File: "a.go", Line: 10}},
		Citation: report.Citation{Lines: []report.GrepLine{
			{File: "a.go", Line: 10, Text: "\treturn Err", Site: 0},
			{File: "c.go", Line: 3, Text: "// Err", Site: -1},
		}},
		Paths: []report.PairPaths{
			{Entry: "open", Paths: [][]report.Hop{{{Function: "p.G", File: "a.go", Line: 2}, {Function: "p.F", File: "a.go", Line: 20}}},
				// Hops repeats the first path: listed once.
				Hops: []report.Hop{{Function: "p.G", File: "a.go", Line: 2}, {Function: "p.F", File: "a.go", Line: 20}}},
			{Entry: "open", Crossing: []report.Crossing{{Boundary: "queue", From: "open", To: "apply", Function: "p.G", File: "a.go", Line: 21,
				Hops: []report.Hop{{Function: "p.G", File: "a.go", Line: 2}}, MessageAt: &report.Loc{File: "a.go", Line: 22, Text: "m{}"}}},
				// A crossing's ways start at the entry on the other side.
				Ways: []report.Way{{Hops: []report.Hop{{Function: "p.H", File: "b.go", Line: 5}},
					OnlyIf: []report.Cond{{Text: "x > 0", File: "b.go", Line: 4, Function: "p.Apply", Want: true}}}}},
		},
		Signal: &report.Signal{
			Comparisons: []report.Comparison{{Loc: loc("p.F", 9, "rev < c"), Kind: "decision", Guarded: &report.Loc{File: "a.go", Line: 10, Function: "p.F", Text: "Err"}}},
			Refusals:    []report.Refusal{{Loc: loc("p.R", 30, ""), Cond: "r < 0", Reason: "E.Error()", Text: "the error's text"}},
			Progress:    report.Field{Writes: []report.Write{{Loc: loc("p.S", 40, "w.min = c + 1"), Field: "p.w.min"}}},
			Chains: []report.Chain{{Behaviour: "evict", Steps: []report.Step{
				{Loc: loc("p.Open", 1, ""), Kind: "entry", Label: "a client opens"},
				{Loc: loc("p.Open", 2, "g()"), Kind: "call", Label: "calls p.G"},
			}}},
			Verdicts:  []report.Verdict{{ID: "v", Lines: []report.Loc{loc("p.F", 9, "rev < c")}, Facts: []report.Fact{{Key: "k", Lines: []report.Loc{loc("p.F", 9, "rev < c")}}}}},
			Corrected: []report.Loc{loc("p.F", 9, "\tif rev < c {")},
		},
	}
	var got []string
	for _, p := range drift.Positions(rep) {
		got = append(got, at(p))
	}
	want := []string{
		"entry|p.Open|entry open|a.go:1|",
		"entry|p.Apply|entry apply|b.go:1|",
		"site|p.F|return|a.go:10|return Err",
		"grep|p.F|grep line|a.go:10|return Err",
		"grep||grep line|c.go:3|// Err",
		"hop|p.Open|call of p.G|a.go:2|",
		"hop|p.G|call of p.F|a.go:20|",
		"hop|p.Apply|call of p.H|b.go:5|",
		"condition|p.Apply|condition a path needs true|b.go:4|x > 0",
		"crossing|p.G|hand-off by queue to apply|a.go:21|",
		"crossing||message handed off by queue|a.go:22|m{}",
		"comparison|p.F|decision|a.go:9|rev < c",
		"guarded|p.F|guarded by a decision|a.go:10|Err",
		// A refusal without code of its own is its condition and reason.
		"refusal|p.R|refusal|a.go:30|r < 0 → E.Error()",
		"progress|p.S|write of p.w.min|a.go:40|w.min = c + 1",
		// A step without code is its label.
		"step|p.Open|evict: entry|a.go:1|a client opens",
		"step|p.Open|evict: call|a.go:2|g()",
		"verdict|p.F|line of verdict v|a.go:9|rev < c",
		"fact|p.F|line of fact v/k|a.go:9|rev < c",
		"corrected|p.F|line of the corrected citation|a.go:9|if rev < c {",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("positions (-want +got):\n%s", diff)
	}
}

// TestPositionsEveryLoc fills every field of a report by reflection, each
// position with its own line, and wants every one among the positions: a
// field added to the report later is followed, or this test says which.
// Not followed on purpose: references to a site (SiteRef, the site itself
// is followed), what a lab or coverage run observed, and the notes.
func TestPositionsEveryLoc(t *testing.T) {
	rep := &report.Report{}
	n := 0
	var fill func(v reflect.Value, path string)
	var want []string
	posOf := map[string]string{}
	fill = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem(), path)
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
			fill(v.Index(0), path+"[0]")
		case reflect.String:
			v.SetString("s")
		case reflect.Struct:
			tp := v.Type()
			for i := 0; i < tp.NumField(); i++ {
				f := tp.Field(i)
				// --drift runs no lab, no coverage and no Kubernetes layers.
				if tp == reflect.TypeFor[report.Report]() && (f.Name == "Lab" || f.Name == "Observe" || f.Name == "Notes" || f.Name == "Layers") {
					continue
				}
				if tp == reflect.TypeFor[report.GrepLine]() && f.Name == "Site" {
					continue // 0: the one site
				}
				fill(v.Field(i), path+"."+f.Name)
			}
			// Its own File and Line, not those of an embedded Loc.
			ff, okf := tp.FieldByName("File")
			fl, okl := tp.FieldByName("Line")
			if okf && okl && len(ff.Index) == 1 && len(fl.Index) == 1 && ff.Type.Kind() == reflect.String && fl.Type.Kind() == reflect.Int {
				file, line := v.FieldByIndex(ff.Index), v.FieldByIndex(fl.Index)
				n++
				name := fmt.Sprintf("f%d.go", n)
				file.SetString(name)
				line.SetInt(int64(n))
				if tp != reflect.TypeFor[report.SiteRef]() {
					want = append(want, name)
					posOf[name] = path
				}
			}
		}
	}
	fill(reflect.ValueOf(rep).Elem(), "report")
	got := map[string]bool{}
	for _, p := range drift.Positions(rep) {
		got[p.File] = true
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("%s is not followed", posOf[w])
		}
	}
	if len(want) < 40 {
		t.Errorf("only %d positions filled: the filler misses the report's fields", len(want))
	}
}

// release is a report of one release with the given positions.
func release(version string, missing []report.Module, sites ...report.Site) *report.Report {
	return &report.Report{Study: report.Study{Name: "s"}, Etcd: report.Etcd{Version: version, Repo: "o/r", Ref: version, Missing: missing}, Sites: sites}
}

func site(fn, text, file string, line int) report.Site {
	return report.Site{Function: fn, Kind: "write", Text: text, File: file, Line: line}
}

// row finds the row of kind site whose key starts with prefix.
func row(t *testing.T, d *report.Drift, key string) report.DriftRow {
	t.Helper()
	var found []report.DriftRow
	for _, r := range d.Rows {
		if r.Key == key {
			found = append(found, r)
		}
	}
	if len(found) != 1 {
		var keys []string
		for _, r := range d.Rows {
			keys = append(keys, r.Key)
		}
		t.Fatalf("%d rows with key %q among\n%s", len(found), key, strings.Join(keys, "\n"))
	}
	return found[0]
}

func TestCompute(t *testing.T) {
	etcdctl := []report.Module{{Path: "m/etcdctl", Folder: "etcdctl", Reason: "refused by the proxy"}}
	// Given out of order: the drift puts them in semver order.
	reps := []*report.Report{
		release("v3.7.0", nil,
			site("p.Sync", "w.min = max(cur+1, w.min)", "w.go", 374),
			site("p.Recv", "Canceled: true", "x.go", 274), // new, before the two old ones
			site("p.Recv", "Canceled: true", "x.go", 307),
			site("p.Recv", "Canceled: true", "x.go", 380),
			site("p.Recv", "Cond: a", "x.go", 290), // anchors for x.go: +14 ...
			site("p.Recv", "Cond: b", "x.go", 362), // ... and +27
			site("p.Back", "back", "y.go", 5),
			site("p.Tool", "print()", "etcdctl/t.go", 9),
			site("p.Same", "same", "z.go", 1),
		),
		release("v3.6.0", nil,
			site("p.Sync", "w.min = cur + 1", "w.go", 370),
			site("p.Recv", "Canceled: true", "x.go", 293),
			site("p.Recv", "Canceled: true", "x.go", 353),
			site("p.Recv", "Cond: a", "x.go", 276),
			site("p.Recv", "Cond: b", "x.go", 335),
			site("p.Back", "back", "y.go", 5),
			site("p.Gone", "gone", "y.go", 9),
			site("p.Tool", "print()", "etcdctl/t.go", 8),
			site("p.Same", "same", "z.go", 1),
		),
		release("v3.6.10", etcdctl,
			site("p.Sync", "w.min = cur + 1", "w.go", 370),
			site("p.Recv", "Canceled: true", "x.go", 293),
			site("p.Recv", "Canceled: true", "x.go", 353),
			site("p.Recv", "Cond: a", "x.go", 276),
			site("p.Recv", "Cond: b", "x.go", 335),
			site("p.Gone", "gone", "y.go", 9),
			site("p.Mid", "mid", "y.go", 20),
			site("p.Same", "same", "z.go", 1),
		),
		release("v3.6.2", nil,
			site("p.Sync", "w.min = cur + 1", "w.go", 370),
			site("p.Recv", "Canceled: true", "x.go", 293),
			site("p.Recv", "Canceled: true", "x.go", 353),
			site("p.Recv", "Cond: a", "x.go", 276),
			site("p.Recv", "Cond: b", "x.go", 335),
			site("p.Back", "back", "y.go", 5),
			site("p.Gone", "gone", "y.go", 9),
			site("p.Tool", "print()", "etcdctl/t.go", 8),
			site("p.Same", "same", "z.go", 1),
		),
	}
	d := drift.Compute(reps)
	if diff := cmp.Diff([]string{"v3.6.0", "v3.6.2", "v3.6.10", "v3.7.0"}, d.Releases); diff != "" {
		t.Errorf("releases in semver order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(d.Releases, d.Refs); diff != "" {
		t.Errorf("refs (-want +got):\n%s", diff)
	}
	span := func(from, to, at, text string) report.DriftSpan {
		return report.DriftSpan{From: from, To: to, At: at, Text: text}
	}
	for _, tc := range []struct {
		key    string
		change string
		spans  []report.DriftSpan
	}{
		// The same write with other code: changed, grouped by release.
		{"p.Sync write `w.min = cur + 1`", report.DriftChanged, []report.DriftSpan{
			span("v3.6.0", "v3.6.10", "w.go:370", "w.min = cur + 1"),
			span("v3.7.0", "v3.7.0", "w.go:374", "w.min = max(cur+1, w.min)"),
		}},
		// Repeats follow the unique positions around them: 293 moved with
		// the +14 of "Cond: a" to 307, 353 with the +27 of "Cond: b" to
		// 380; 274 is new.
		{"p.Recv write `Canceled: true`", report.DriftMoved, []report.DriftSpan{
			span("v3.6.0", "v3.6.10", "x.go:293", "Canceled: true"),
			span("v3.7.0", "v3.7.0", "x.go:307", "Canceled: true"),
		}},
		{"p.Recv write `Canceled: true` #2", report.DriftMoved, []report.DriftSpan{
			span("v3.6.0", "v3.6.10", "x.go:353", "Canceled: true"),
			span("v3.7.0", "v3.7.0", "x.go:380", "Canceled: true"),
		}},
		{"p.Recv write `Canceled: true` #3", report.DriftAppeared, []report.DriftSpan{
			span("v3.6.0", "v3.6.10", "", ""),
			span("v3.7.0", "v3.7.0", "x.go:274", "Canceled: true"),
		}},
		{"p.Back write `back`", report.DriftReturned, []report.DriftSpan{
			span("v3.6.0", "v3.6.2", "y.go:5", "back"),
			span("v3.6.10", "v3.6.10", "", ""),
			span("v3.7.0", "v3.7.0", "y.go:5", "back"),
		}},
		{"p.Gone write `gone`", report.DriftVanished, []report.DriftSpan{
			span("v3.6.0", "v3.6.10", "y.go:9", "gone"),
			span("v3.7.0", "v3.7.0", "", ""),
		}},
		{"p.Mid write `mid`", report.DriftTransient, []report.DriftSpan{
			span("v3.6.0", "v3.6.2", "", ""),
			span("v3.6.10", "v3.6.10", "y.go:20", "mid"),
			span("v3.7.0", "v3.7.0", "", ""),
		}},
		// Not known where the release lacks the module: moved, judged on
		// the others, not returned.
		{"p.Tool write `print()`", report.DriftMoved, []report.DriftSpan{
			span("v3.6.0", "v3.6.2", "etcdctl/t.go:8", "print()"),
			{From: "v3.6.10", To: "v3.6.10", Unknown: true},
			span("v3.7.0", "v3.7.0", "etcdctl/t.go:9", "print()"),
		}},
		{"p.Same write `same`", report.DriftSame, []report.DriftSpan{
			span("v3.6.0", "v3.7.0", "z.go:1", "same"),
		}},
	} {
		r := row(t, d, tc.key)
		if r.Change != tc.change {
			t.Errorf("%s: %s, want %s", tc.key, r.Change, tc.change)
		}
		if diff := cmp.Diff(tc.spans, r.Spans); diff != "" {
			t.Errorf("%s: spans (-want +got):\n%s", tc.key, diff)
		}
		if len(r.At) != len(d.Releases) {
			t.Errorf("%s: %d places for %d releases", tc.key, len(r.At), len(d.Releases))
		}
	}
	if got := row(t, d, "p.Sync write `w.min = cur + 1`").At; !cmp.Equal(got, []string{"w.go:370", "w.go:370", "w.go:370", "w.go:374"}) {
		t.Errorf("at per release: %v", got)
	}
	wantCounts := map[string]int{"changed": 1, "moved": 5, "appeared": 1, "returned": 1, "vanished": 1, "transient": 1, "same": 1}
	if diff := cmp.Diff(wantCounts, d.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	if len(d.Kinds) != 1 || !cmp.Equal(d.Kinds[0].Counts, d.Counts) {
		t.Errorf("kinds: %+v", d.Kinds)
	}
	if len(d.Missing) != 1 || d.Missing[0].Release != "v3.6.10" || d.Missing[0].Folder != "etcdctl" {
		t.Errorf("missing: %+v", d.Missing)
	}
	// Changes first within a kind, in DriftChanges' order.
	var order []string
	for _, r := range d.Rows {
		if len(order) == 0 || order[len(order)-1] != r.Change {
			order = append(order, r.Change)
		}
	}
	if diff := cmp.Diff([]string{"changed", "appeared", "vanished", "returned", "transient", "moved", "same"}, order); diff != "" {
		t.Errorf("row order (-want +got):\n%s", diff)
	}
}

// TestComputeChangedTwice: a text that changes twice is one row, and a
// different thing in another function is not taken for it.
func TestComputeChangedTwice(t *testing.T) {
	d := drift.Compute([]*report.Report{
		release("v1.0.0", nil, site("p.F", "a", "f.go", 10), site("p.G", "g", "f.go", 30)),
		release("v1.1.0", nil, site("p.F", "b", "f.go", 11), site("p.H", "h", "f.go", 30)),
		release("v1.2.0", nil, site("p.F", "c", "f.go", 12), site("p.H", "h", "f.go", 31)),
	})
	r := row(t, d, "p.F write `a`")
	if r.Change != report.DriftChanged || len(r.Spans) != 3 || r.Spans[2].Text != "c" {
		t.Errorf("p.F: %+v", r)
	}
	if g := row(t, d, "p.G write `g`"); g.Change != report.DriftVanished {
		t.Errorf("p.G: %+v", g)
	}
	if h := row(t, d, "p.H write `h`"); h.Change != report.DriftAppeared {
		t.Errorf("p.H: %+v", h)
	}
}

// TestComputeDeterministic: the same reports in another order give the
// same drift.
func TestComputeDeterministic(t *testing.T) {
	a := release("v1.0.0", nil, site("p.F", "x", "f.go", 1), site("p.F", "x", "f.go", 2), site("p.F", "y", "f.go", 3))
	b := release("v1.1.0", nil, site("p.F", "x", "f.go", 2), site("p.F", "x", "f.go", 5), site("p.F", "z", "f.go", 3))
	d1 := drift.Compute([]*report.Report{a, b})
	d2 := drift.Compute([]*report.Report{b, a})
	if diff := cmp.Diff(d1, d2); diff != "" {
		t.Errorf("(-first +second):\n%s", diff)
	}
}
