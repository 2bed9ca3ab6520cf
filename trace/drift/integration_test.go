package drift_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/drift"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

// TestReleases3637 runs the errcompacted study at v3.6.0 and v3.7.3 and
// wants the three changes between them that a reader finds in etcd's
// source (module cache, server/v3@v3.6.0 and @v3.7.3), each "changed" or
// "appeared" at the lines read there:
//
//   - The sync loop's update of a watcher's progress, in
//     mvcc.(*watchableStore).syncWatchers: v3.6.0
//     server/storage/mvcc/watchable_store.go:370 `w.minRev = curRev + 1`,
//     v3.7.3 server/storage/mvcc/watchable_store.go:374
//     `w.minRev = max(curRev+1, w.minRev)`.
//   - The receive loop's handling of start revision 0, in
//     v3rpc.(*serverWatchStream).recvLoop: v3.6.0 replaces 0 by the next
//     revision (server/etcdserver/api/v3rpc/watch.go:309-312,
//     `rev := creq.StartRevision` / `if rev == 0 {` / `rev = wsrev + 1`)
//     and hands the store `rev` at watch.go:313
//     `id, err := sws.watchStream.Watch(mvcc.WatchID(creq.WatchId), creq.Key, creq.RangeEnd, rev, filters...)`;
//     v3.7.3 hands it the request's own value at watch.go:340
//     `id, err := sws.watchStream.Watch(ctx, mvcc.WatchID(creq.WatchId), creq.Key, creq.RangeEnd, creq.StartRevision, filters...)`.
//     The notes cite that call as a step of the watch chains.
//   - The refusal of a negative start revision, in recvLoop: not in
//     v3.6.0 (no `StartRevision < 0` in watch.go); v3.7.3
//     watch.go:270 `if creq.StartRevision < 0 {`, its create response
//     built at watch.go:271 `wr := &pb.WatchResponse{`.
func TestReleases3637(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	var reps []*report.Report
	for _, v := range []string{"v3.7.3", "v3.6.0"} {
		res, err := trace.Run(context.Background(), trace.Options{Study: errcompacted.Study, Version: v})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := res.Report()
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, rep)
	}
	start := time.Now()
	d := drift.Compute(reps)
	if el := time.Since(start); el > 200*time.Millisecond {
		t.Errorf("the drift of two releases took %v: it should be negligible beside loading them", el)
	}
	if strings.Join(d.Releases, ",") != "v3.6.0,v3.7.3" {
		t.Fatalf("releases %v", d.Releases)
	}
	const (
		store = "server/storage/mvcc/watchable_store.go"
		watch = "server/etcdserver/api/v3rpc/watch.go"
	)
	find := func(kind, fn, what string) []report.DriftRow {
		var out []report.DriftRow
		for _, r := range d.Rows {
			if r.Kind == kind && strings.HasSuffix(r.Function, fn) && strings.HasSuffix(r.What, what) {
				out = append(out, r)
			}
		}
		return out
	}
	type place struct{ at, text string }
	check := func(name string, rows []report.DriftRow, change string, want ...place) {
		t.Helper()
		for _, r := range rows {
			var got []place
			for _, s := range r.Spans {
				got = append(got, place{s.At, s.Text})
			}
			if r.Change == change && len(got) == len(want) {
				ok := true
				for i := range want {
					ok = ok && got[i] == want[i]
				}
				if ok {
					return
				}
			}
		}
		t.Errorf("%s: no row %s at %v among %d rows:", name, change, want, len(rows))
		for _, r := range rows {
			t.Logf("  %s %s %+v", r.Change, r.Key, r.Spans)
		}
	}

	check("the sync loop's update of a watcher's progress",
		find("progress", ".(*watchableStore).syncWatchers", "minRev"), report.DriftChanged,
		place{store + ":370", "w.minRev = curRev + 1"},
		place{store + ":374", "w.minRev = max(curRev+1, w.minRev)"})

	v360 := "id, err := sws.watchStream.Watch(mvcc.WatchID(creq.WatchId), creq.Key, creq.RangeEnd, rev, filters...)"
	v373 := "id, err := sws.watchStream.Watch(ctx, mvcc.WatchID(creq.WatchId), creq.Key, creq.RangeEnd, creq.StartRevision, filters...)"
	for _, chain := range []string{"evict", "reopen"} {
		check("the receive loop's start revision, chain "+chain,
			find("step", ".(*serverWatchStream).recvLoop", chain+": call"), report.DriftChanged,
			place{watch + ":313", v360}, place{watch + ":340", v373})
	}

	// The refusal is cited at its condition or at the response it builds.
	var refusal []report.DriftRow
	for _, r := range find("refusal", ".(*serverWatchStream).recvLoop", "refusal") {
		if r.Change == report.DriftAppeared && strings.Contains(r.Key, "creq.StartRevision < 0") {
			refusal = append(refusal, r)
		}
	}
	at270 := false
	for _, r := range refusal {
		if r.At[0] != "" || (r.At[1] != watch+":270" && r.At[1] != watch+":271") {
			t.Errorf("the negative-revision refusal: %+v", r)
		}
		at270 = at270 || r.At[1] == watch+":270"
	}
	if len(refusal) == 0 || !at270 {
		t.Errorf("the negative-revision refusal's condition: %+v", refusal)
	}

	// What changed is the same thing with other code: never two texts that
	// are equal, never a row without a place.
	for _, r := range d.Rows {
		texts := map[string]bool{}
		n := 0
		for _, s := range r.Spans {
			if s.At != "" {
				texts[s.Text] = true
				n++
			}
		}
		if n == 0 {
			t.Errorf("%s: at no release", r.Key)
		}
		if (r.Change == report.DriftChanged) != (len(texts) > 1) {
			t.Errorf("%s is %s with %d texts", r.Key, r.Change, len(texts))
		}
	}
	if d.Counts[report.DriftChanged] < 4 || d.Counts[report.DriftAppeared] < 1 {
		t.Errorf("counts %v", d.Counts)
	}
}
