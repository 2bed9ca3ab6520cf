package errcompacted_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/annotate"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

var update = flag.Bool("update", false, "rewrite the stored reports' notes and the golden Markdown and HTML")

// stored are the reports kept in testdata: a report of the analysis (with
// the lab's or coverage's record merged in for some) or a lab record.
func stored(t *testing.T) []string {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no stored reports: %v", err)
	}
	return files
}

func jsonOf(t *testing.T, v any) []byte {
	var b bytes.Buffer
	if err := annotate.Render(&b, "json", annotate.Output{Data: v}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestNotesGolden: the notes composed from each stored report's data are
// the notes stored with it, and render to the golden Markdown and HTML
// beside it. -update rewrites the stored notes and the goldens.
func TestNotesGolden(t *testing.T) {
	for _, in := range stored(t) {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var doc *report.Doc
			var etcd report.Etcd
			var value any
			if strings.HasPrefix(filepath.Base(in), "lab-") {
				var lab errcompacted.LabRecord
				if err := json.Unmarshal(data, &lab); err != nil {
					t.Fatal(err)
				}
				stored := lab.Doc
				lab.Doc = errcompacted.LabDoc(&lab)
				doc, value = lab.Doc, &lab
				etcd = report.Etcd{Version: lab.Etcd.Version, Repo: "etcd-io/etcd", Ref: lab.Etcd.Version}
				if !*update {
					if diff := cmp.Diff(stored, lab.Doc); diff != "" {
						t.Errorf("the lab's document, composed again (-stored +now):\n%s", diff)
					}
				}
			} else {
				var rep report.Report
				if err := json.Unmarshal(data, &rep); err != nil {
					t.Fatal(err)
				}
				stored := rep.Notes
				rep.Notes = errcompacted.Notes(&rep)
				doc, value, etcd = rep.Notes, &rep, rep.Etcd
				if !*update {
					if diff := cmp.Diff(stored, rep.Notes); diff != "" {
						t.Errorf("the notes, composed again (-stored +now):\n%s", diff)
					}
				}
			}
			if *update {
				if err := os.WriteFile(in, jsonOf(t, value), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, format := range []string{"markdown", "html"} {
				var out bytes.Buffer
				if err := annotate.RenderDoc(&out, format, doc, etcd); err != nil {
					t.Fatal(err)
				}
				golden := strings.TrimSuffix(in, ".json") + map[string]string{"markdown": ".md", "html": ".html"}[format]
				if *update {
					if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(string(want), out.String()); diff != "" {
					t.Errorf("%s (-want +got):\n%s", golden, diff)
				}
			}
		})
	}
}

// TestStoredReportIsCurrent: the analysis in each stored report of v3.7.3
// is what the analysis finds now; the lab's and coverage's records are
// measured and stay as stored. -update rewrites the reports without a
// coverage record (one with it is made again with srctrace errcompacted
// --observe --format json, as the README says).
func TestStoredReportIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a real etcd release")
	}
	res, err := trace.Run(context.Background(), trace.Options{Study: errcompacted.Study, Version: "v3.7.3"})
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := res.Report()
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range stored(t) {
		if strings.HasPrefix(filepath.Base(in), "lab-") {
			continue
		}
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var old report.Report
			if err := json.Unmarshal(data, &old); err != nil {
				t.Fatal(err)
			}
			if *update && old.Observe == nil {
				now := *fresh
				now.Lab = old.Lab
				now.Notes = errcompacted.Notes(&now)
				if err := os.WriteFile(in, jsonOf(t, &now), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if *update {
				// A coverage run's report: the fresh analysis, with what
				// the run saw carried over where the analysis has the same
				// lines in the same places (else the run is to be made
				// again: srctrace errcompacted --observe).
				now, err := carryObserved(fresh, data)
				if err != nil {
					t.Fatalf("%v: the analysis changed where the coverage run saw lines; run it again", err)
				}
				now.Lab, now.Observe = old.Lab, old.Observe
				now.Notes = errcompacted.Notes(now)
				if err := os.WriteFile(in, jsonOf(t, now), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if diff := cmp.Diff(string(jsonOf(t, stripObserved(fresh))), string(jsonOf(t, stripObserved(&old)))); diff != "" {
				t.Errorf("the stored analysis is stale (-now +stored):\n%s", diff)
			}
		})
	}
}

// stripObserved drops coverage's marks, which only a coverage run makes.
// carryObserved is fresh with the "observed" records of the stored
// report (its JSON) copied to the same places, where each object that
// holds one, and each on the way to it, names the same file and line in
// both.
func carryObserved(fresh *report.Report, stored []byte) (*report.Report, error) {
	var now, old any
	data, err := json.Marshal(fresh)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &now); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(stored, &old); err != nil {
		return nil, err
	}
	if err := carryInto(now, old, "$"); err != nil {
		return nil, err
	}
	data, err = json.Marshal(now)
	if err != nil {
		return nil, err
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func carryInto(now, old any, at string) error {
	switch o := old.(type) {
	case map[string]any:
		n, ok := now.(map[string]any)
		if !ok {
			if holdsObserved(o) {
				return fmt.Errorf("%s is no longer an object", at)
			}
			return nil
		}
		if holdsObserved(o) && (fmt.Sprint(n["file"]) != fmt.Sprint(o["file"]) || fmt.Sprint(n["line"]) != fmt.Sprint(o["line"])) {
			return fmt.Errorf("%s is %v:%v, was %v:%v", at, n["file"], n["line"], o["file"], o["line"])
		}
		for k, v := range o {
			if k == "observed" {
				if _, isMap := v.(map[string]any); isMap {
					n[k] = v
					continue
				}
			}
			if k == "lab" || k == "observe" || k == "notes" {
				continue
			}
			if err := carryInto(n[k], v, at+"."+k); err != nil {
				return err
			}
		}
	case []any:
		n, _ := now.([]any)
		if len(n) != len(o) && holdsObserved(o) {
			return fmt.Errorf("%s has %d elements, had %d", at, len(n), len(o))
		}
		for i := range min(len(n), len(o)) {
			if err := carryInto(n[i], o[i], fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// holdsObserved reports whether v holds an "observed" record.
func holdsObserved(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["observed"].(map[string]any); ok {
			return true
		}
		for k, y := range x {
			if k != "lab" && k != "observe" && k != "notes" && holdsObserved(y) {
				return true
			}
		}
	case []any:
		for _, y := range x {
			if holdsObserved(y) {
				return true
			}
		}
	}
	return false
}

func stripObserved(r *report.Report) *report.Report {
	data, _ := json.Marshal(r)
	var c report.Report
	_ = json.Unmarshal(data, &c)
	for i := range c.Sites {
		c.Sites[i].Observed = nil
	}
	for i := range c.Paths {
		for j := range c.Paths[i].Paths {
			for k := range c.Paths[i].Paths[j] {
				c.Paths[i].Paths[j][k].Observed = nil
			}
		}
		for k := range c.Paths[i].Hops {
			c.Paths[i].Hops[k].Observed = nil
		}
		for j := range c.Paths[i].Ways {
			for k := range c.Paths[i].Ways[j].Hops {
				c.Paths[i].Ways[j].Hops[k].Observed = nil
			}
		}
	}
	if c.Signal != nil {
		for i := range c.Signal.Comparisons {
			c.Signal.Comparisons[i].Observed = nil
		}
		for i := range c.Signal.Chains {
			for j := range c.Signal.Chains[i].Steps {
				c.Signal.Chains[i].Steps[j].Observed = nil
			}
		}
	}
	c.Lab, c.Observe, c.Notes = nil, nil, nil
	return &c
}
