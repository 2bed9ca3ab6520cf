package trace_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/report"
)

func TestDrift(t *testing.T) {
	mk := func(v string, sites ...report.Site) *report.Report {
		return &report.Report{Study: report.Study{Name: "s"}, Etcd: report.Etcd{Version: v}, Sites: sites,
			Entries: []report.Entry{{Name: "e", Function: "p.E", File: "f.go", Line: 1}}}
	}
	site := func(fn, text string, line int) report.Site {
		return report.Site{Function: fn, Kind: "return", Text: text, File: "a.go", Line: line}
	}
	d := trace.Drift([]*report.Report{
		mk("v1", site("p.F", "return x", 10), site("p.G", "return y", 20), site("p.H", "return z", 30)),
		mk("v2", site("p.F", "return x", 12), site("p.H", "return z", 30), site("p.K", "return w", 40)),
	})
	got := map[string]string{}
	for _, r := range d.Rows {
		got[r.Key] = r.Change
	}
	want := map[string]string{
		"e p.E":                 "same",
		"p.F return `return x`": "moved",
		"p.G return `return y`": "vanished",
		"p.H return `return z`": "same",
		"p.K return `return w`": "appeared",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"v1", "v2"}, d.Releases); diff != "" {
		t.Error(diff)
	}
}
