package observe_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/observe"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

// TestObserve runs the behaviours on an instrumented etcd v3.7.3 and checks
// what reading etcd predicts: none of step 6's lines runs in a behaviour of
// the exercise, its two returns run in the probes that the lab adds (the
// compaction to C again returns the sentinel in mvcc.(*store).updateCompactRev,
// kvstore.go:214 at v3.7.3, for `rev <= s.compactMainRev`; the HashKV at C-1
// in mvcc.(*store).hashByRev, kvstore.go:188, for `rev > 0 && rev <
// compactRev`), and neither runs in the baseline, which compacts as the
// behaviours do; the eviction is decided by the watcher group's comparison
// (its guarded send runs only when a compaction evicts), the read's return
// of the sentinel runs only in the read, and every measured step of the
// sync loop's chain runs.
func TestObserve(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs an instrumented etcd")
	}
	st := errcompacted.Study
	res, err := trace.Run(context.Background(), trace.Options{Study: st, Version: "v3.7.3"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := res.Report()
	if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, p := range rep.Packages {
		if len(p) >= len(st.Module) && p[:len(st.Module)] == st.Module {
			pkgs = append(pkgs, p)
		}
	}
	ob, err := observe.Run(context.Background(), observe.Options{Version: "v3.7.3", Packages: pkgs, Modules: st.Modules(), Layout: st.LayoutMap(), Lab: st.Lab})
	if err != nil {
		t.Fatal(err)
	}
	observe.Apply(rep, ob)
	site := func(at string) report.Site {
		for _, s := range rep.Sites {
			if fmt.Sprintf("%s:%d", s.File, s.Line) == at {
				return s
			}
		}
		t.Fatalf("no site %s", at)
		return report.Site{}
	}
	probe := map[string]bool{}
	for _, b := range st.Behaviours {
		probe[b.ID] = b.Probe
	}
	ranIn := map[string][]string{}
	for _, l := range rep.Citation.Lines {
		if l.Site < 0 {
			continue
		}
		for b, ran := range rep.Sites[l.Site].Observed {
			if ran && !probe[b] {
				t.Errorf("step 6's %s:%d ran in %s", l.File, l.Line, b)
			}
			if ran {
				ranIn[fmt.Sprintf("%s:%d", l.File, l.Line)] = append(ranIn[fmt.Sprintf("%s:%d", l.File, l.Line)], b)
			}
		}
	}
	wantRan := map[string][]string{
		"server/storage/mvcc/kvstore.go:188": {errcompacted.ProbeHashKV},
		"server/storage/mvcc/kvstore.go:214": {errcompacted.ProbeCompact},
	}
	if diff := cmp.Diff(wantRan, ranIn); diff != "" {
		t.Errorf("step 6's lines that ran, and where (-want +got):\n%s", diff)
	}
	if o := site("server/storage/mvcc/kvstore_txn.go:82").Observed; !o["read"] || o["evict"] || o["baseline"] {
		t.Errorf("rangeKeys' return: %v, want read only", o)
	}
	decided := map[string]string{}
	for _, d := range rep.Observe.Decided {
		decided[d.Behaviour] = fmt.Sprintf("%s:%d", d.File, d.Line)
	}
	if decided["evict"] != "server/storage/mvcc/watcher_group.go:255" || decided["reopen"] != "server/storage/mvcc/watcher_group.go:255" ||
		decided["read"] != "server/storage/mvcc/kvstore_txn.go:81" || decided[observe.Baseline] != "" {
		t.Errorf("decided = %v", decided)
	}
	// The compaction's own guard (`if rev <= s.compactMainRev` in
	// updateCompactRev, kvstore.go:209 at v3.7.3) runs in the baseline,
	// which compacts the same way, so no behaviour of the exercise lists
	// it as its own.
	for _, o := range rep.Observe.Only {
		for _, l := range o.Lines {
			if strings.HasPrefix(l, "server/storage/mvcc/kvstore.go:209 ") && !probe[o.Behaviour] {
				t.Errorf("%s lists the compaction's guard as its own: %s", o.Behaviour, l)
			}
		}
	}
	for _, c := range rep.Observe.Chains {
		if c.Behaviour == "evict" && (c.Measured < 5 || c.Ran != c.Measured) {
			t.Errorf("evict chain: %d of %d measured steps ran; not: %v", c.Ran, c.Measured, c.NotRan)
		}
	}
	if got, want := len(ob.Runs), len(st.Lab.Scripts); got != want || want != 6 {
		t.Errorf("%d runs of %d scripts", got, want)
	}
	// A second run reuses the instrumented server.
	again, err := observe.Run(context.Background(), observe.Options{Version: "v3.7.3", Packages: pkgs, Modules: st.Modules(), Layout: st.LayoutMap(), Lab: st.Lab, Scripts: []string{observe.Baseline}})
	if err != nil {
		t.Fatal(err)
	}
	if again.Built || again.Binary != ob.Binary {
		t.Errorf("second run built=%v binary %s, want the cached %s", again.Built, again.Binary, ob.Binary)
	}
}
