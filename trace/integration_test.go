package trace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

// The expectations below were derived by reading etcd's source at each
// release (git grep -n ErrCompacted, and following the calls by hand), not
// from srctrace's output.
var releases = []struct {
	version string
	// grep is step 6's git grep output, file:line.
	grep []string
	// sites are the uses of mvcc.ErrCompacted in the loaded packages.
	sites []string
	// reach and unreach are (entry, site) pairs.
	reach, unreach [][2]string
	entries        map[string]string
	// feasible are pairs with their verdict and what decides it.
	feasible []feasibleWant
	// roots are the roots found from the code nearest to a use.
	roots map[string][]string
}{
	{
		version: "v3.7.3",
		grep: []string{
			"server/storage/mvcc/kvstore.go:38",
			"server/storage/mvcc/kvstore.go:188",
			"server/storage/mvcc/kvstore.go:214",
		},
		sites: []string{
			"server/etcdserver/api/v3compactor/periodic.go:143 comparison",
			"server/etcdserver/api/v3compactor/revision.go:93 comparison",
			"server/etcdserver/api/v3rpc/util.go:45 translation",
			"server/etcdserver/apply/uber_applier.go:97 comparison",
			"server/etcdserver/corrupt.go:606 text-comparison", // strings.Contains(string(b), mvcc.ErrCompacted.Error())
			"server/etcdserver/txn/range.go:181 return",
			"server/storage/mvcc/kvstore.go:38 definition",
			"server/storage/mvcc/kvstore.go:188 return",
			"server/storage/mvcc/kvstore.go:214 return",
			"server/storage/mvcc/kvstore_txn.go:82 return",
		},
		reach: [][2]string{
			// The send loop's previous-value read (watch.go) reaches rangeKeys.
			{"watch-open", "server/storage/mvcc/kvstore_txn.go:82"},
			{"kv-range", "server/storage/mvcc/kvstore_txn.go:82"},
			{"hash-kv", "server/storage/mvcc/kvstore.go:188"},
			// Compaction applied from raft: Compaction -> store.Compact -> updateCompactRev.
			{"apply", "server/storage/mvcc/kvstore.go:214"},
			{"compactor-periodic", "server/etcdserver/api/v3compactor/periodic.go:143"},
		},
		unreach: [][2]string{
			{"watch-open", "server/storage/mvcc/kvstore.go:188"},
			{"watch-open", "server/storage/mvcc/kvstore.go:214"},
			{"sync-loop", "server/storage/mvcc/kvstore.go:188"},
			{"sync-loop", "server/storage/mvcc/kvstore.go:214"},
			{"sync-loop", "server/storage/mvcc/kvstore_txn.go:82"},
			// txn.checkRange is called for Txn requests only, not for Range.
			{"kv-range", "server/etcdserver/txn/range.go:181"},
			// GoAttach's function parameter must not link apply to the monitors.
			{"apply", "server/storage/mvcc/kvstore.go:188"},
		},
		entries: map[string]string{
			"watch-open": "server/etcdserver/api/v3rpc/watch.go:163",
			"sync-loop":  "server/storage/mvcc/watchable_store.go:224",
		},
		feasible: []feasibleWant{
			// PeriodicCheck calls cm.hasher.HashByRev(0) (corrupt.go:180);
			// hashByRev returns ErrCompacted only if rev > 0 && rev < compactRev.
			// Across the network it asks each peer for the hash at its own
			// revision (corrupt.go:184, PeerHashByRev(h.Revision); then
			// getPeerHashKVs and HashByRev, whose cc.Do is at :595); the
			// peer's handler (corrupt.go:522) hashes at the request's
			// revision (:550), which the peer's store refuses below its own
			// compaction (kvstore.go:186-188): only if, on the peer. The
			// compaction check does the same (corrupt.go:285).
			{entry: "kv-hash-check", site: "server/storage/mvcc/kvstore.go:188", verdict: "no", cond: "rev > 0", at: "server/etcdserver/corrupt.go:180", also: "only-if"},
			{entry: "compact-hash-check", site: "server/storage/mvcc/kvstore.go:188", verdict: "only-if", boundary: "peer hash request"},
			// maintenanceServer.HashKV passes the request's revision.
			{entry: "hash-kv", site: "server/storage/mvcc/kvstore.go:188", verdict: "yes"},
			// The corruption alarm proposes &pb.InternalRaftRequest{Alarm: a}
			// (corrupt.go:441); dispatch applies a compaction only for
			// r.Compaction != nil.
			{entry: "kv-hash-check", site: "server/storage/mvcc/kvstore.go:214", verdict: "no", cond: "r.Compaction != nil", at: "server/etcdserver/corrupt.go:441",
				boundary: "raft proposal", message: []string{"Alarm"}},
			// EtcdServer.Compact proposes {Compaction: r} (v3_server.go:393).
			{entry: "kv-compact", site: "server/storage/mvcc/kvstore.go:214", verdict: "feasible", boundary: "raft proposal", message: []string{"Compaction"}, messageAt: "server/etcdserver/v3_server.go:393"},
			// The automatic compactors' legs list every test of state before
			// they propose: the revision compactor's rev <= 0 (revision.go:82,
			// `continue` past it), the periodic one's time test (periodic.go:127).
			{entry: "compactor-revision", site: "server/storage/mvcc/kvstore.go:214", verdict: "feasible", senderNeeds: []string{"rev <= 0@server/etcdserver/api/v3compactor/revision.go:82"}},
			{entry: "compactor-periodic", site: "server/storage/mvcc/kvstore.go:214", verdict: "feasible", senderNeeds: []string{"pc.clock.Now().Sub(lastSuccess) < baseInterval@server/etcdserver/api/v3compactor/periodic.go:127"}},
			// The send loop ranges for a previous value only when the watch
			// asked for it and the event is no create: needPrevKV :=
			// sws.prevKV[wresp.WatchID] (watch.go:446, branch at 450). The
			// map is filled only with true under `if creq.PrevKv`
			// (watch.go:346), by the receive loop of the stream the handler
			// made (watch.go:163): the client's choice, no condition of
			// state. The first condition of state is the event's kind.
			{entry: "watch-open", site: "server/storage/mvcc/kvstore_txn.go:82", verdict: "only-if", cond: "IsCreateEvent(evs[i])", condAt: "server/etcdserver/api/v3rpc/watch.go:450"},
			// The sync loop replays a watcher's events on the watcher's
			// channel (watchable_store.go:388 → :614); the send loop reads
			// each event's previous value for a watch that asked for it
			// (watch.go:450-452), at ModRevision-1, which a compaction to
			// the event's revision has removed. Its sender leg needs the
			// watcher not behind the compaction (watchable_store.go:369).
			// The eviction's response (watcher_group.go:257) sets no events:
			// the send loop's loop over them makes no pass, and no way
			// across it reaches the read (alsoNot). What the sync loop sends
			// is its literal (watchable_store.go:388), handed through send's
			// copy, which sets only the events it filters.
			{entry: "sync-loop", site: "server/storage/mvcc/kvstore_txn.go:82", verdict: "only-if", boundary: "watch channel",
				message: []string{"WatchID", "Events", "Revision"}, messageAt: "server/storage/mvcc/watchable_store.go:388",
				senderNeeds: []string{"w.minRev < compactionRev@server/storage/mvcc/watchable_store.go:369"}, alsoNot: "watch eviction"},
			// dispatch returns early when !shouldApplyV3 (uber_applier.go:126).
			{entry: "apply", site: "server/etcdserver/txn/range.go:181", verdict: "only-if", cond: "shouldApplyV3", condAt: "server/etcdserver/apply/uber_applier.go:126"},
			// The Txn handler goes on only when the quota check returned nil
			// (quota.go:68), which it does only when qa.q.Available(r)
			// (quota.go:41); a read-only transaction costs nothing, so that
			// holds on its way (storage/quota.go:129): a branch that calls a
			// function given the request is not listed as a condition of
			// state. The range's revision is the client's.
			{entry: "v3rpc.(*quotaKVServer).Txn", site: "server/etcdserver/txn/range.go:181", verdict: "yes"},
			// What the path checked earlier. The store's restore sets
			// scheduledCompact to 0 when it is at or below compactMainRev
			// (kvstore.go:399) and compacts only when it is not 0
			// (kvstore.go:404), passing it as rev; updateCompactRev refuses
			// rev <= s.compactMainRev (kvstore.go:213) under the same s.mu
			// (Restore's lock, kvstore.go:303): that way cannot run; the
			// compaction applied by dispatch (uber_applier.go:145) can.
			{entry: "apply", site: "server/storage/mvcc/kvstore.go:214", verdict: "feasible", noWayThrough: "mvcc.(*store).Restore"},
			// The gRPC Txn handler's only way to rangeKeys' refusal is the
			// read-only branch: txn.Txn runs checkTxn on the same read view
			// first (txn.go:54), whose checkRange returns ErrCompacted for
			// req.Revision < rv.FirstRev() (range.go:180), the compaction
			// revision read under s.mu (kvstore_txn.go:61) that the view
			// holds until End; rangeKeys (kvstore_txn.go:81) reads it again.
			// Across its proposal to raft (a Txn with a range that is not
			// read-only), the apply job's view and write read the same
			// compactMainRev (below): that way cannot run; but a Txn that
			// puts is applied, and the apply's write notifies the watchers
			// (watchable_store_txn.go:44, notify), whose send loop, across
			// the watch channel, ranges an event's previous revision for a
			// watch with prevKV (watch.go:450-452), which a compaction to
			// the event's own revision, applied before the send loop gets
			// to it, has compacted: only if, across both hand-offs.
			{entry: "v3rpc.(*quotaKVServer).Txn", site: "server/storage/mvcc/kvstore_txn.go:82", verdict: "no", refutedBy: "guard", also: "only-if"},
			// The compactions' only way to rangeKeys is the header read after
			// the compaction, kv.Range with RangeOptions{} (apply/backend.go):
			// revision 0, which becomes the current revision
			// (kvstore_txn.go:78); compactMainRev never passes currentRev
			// (updateCompactRev refuses rev > s.currentRev, kvstore.go:217,
			// before it writes compactMainRev, kvstore.go:221).
			{entry: "kv-compact", site: "server/storage/mvcc/kvstore_txn.go:82", verdict: "no", refutedBy: "invariant"},
			{entry: "compactor-periodic", site: "server/storage/mvcc/kvstore_txn.go:82", verdict: "no", refutedBy: "invariant"},
			{entry: "compactor-revision", site: "server/storage/mvcc/kvstore_txn.go:82", verdict: "no", refutedBy: "invariant"},
			// The apply job's write transaction checks its ranges on a read
			// view first (txn.Txn: checkTxn at txn.go:54, checkRange's
			// ErrCompacted at range.go:180 against rv.FirstRev(), the
			// compactMainRev read at kvstore_txn.go:61), ends the view
			// (txn.go:66) and opens a write (txn.go:67), whose rangeKeys
			// reads compactMainRev again (kvstore_txn.go:81). Only the apply
			// job, which the FIFO scheduler's one worker runs, writes it
			// (updateCompactRev, kvstore.go:221; Restore, :316), and the
			// transaction does not; restore also writes it when the store
			// is made at start-up (kvstore.go:343, and :221 through
			// compactLockfree), within NewServer (mvcc.New, server.go:366),
			// which returns before Start starts the raft loop that
			// schedules the job (server.go:594, 845): no (it was "not
			// decided", and before that "only if shouldApplyV3"). By calls
			// the apply job has no way that can run; across the watch
			// channel, as the Txn handler's above, it does, and the raft
			// loop, which hands the job its entries, across both.
			{entry: "apply", site: "server/storage/mvcc/kvstore_txn.go:82", verdict: "no", also: "only-if"},
			{entry: "raft-loop", site: "server/storage/mvcc/kvstore_txn.go:82", verdict: "only-if", crossings: []string{"scheduled job", "watch channel"}},
			// What must stay feasible: the read at an old revision.
			{entry: "kv-range", site: "server/storage/mvcc/kvstore_txn.go:82", verdict: "yes"},
			// The apply's deferred result check compares ar.Err with
			// ErrCompacted only when ar.Err is not nil (uber_applier.go:97),
			// when dispatch returns. The hash checks reach it only by the
			// corruption alarm's proposal (corrupt.go:441), whose case
			// stores what a.Alarm returned (uber_applier.go:157): the
			// backend's Alarm returns a nil error at both its returns
			// (apply/backend.go:133, 135), and the literal leaves ar.Err
			// nil. A compaction's error can be ErrCompacted.
			{entry: "kv-hash-check", site: "server/etcdserver/apply/uber_applier.go:97", verdict: "no", refutedBy: "value", because: "when `dispatch` returns, `ar.Err` holds"},
			{entry: "compact-hash-check", site: "server/etcdserver/apply/uber_applier.go:97", verdict: "no", refutedBy: "value"},
			{entry: "kv-compact", site: "server/etcdserver/apply/uber_applier.go:97", verdict: "feasible", boundary: "raft proposal", message: []string{"Compaction"}},
		},
		// The registered KV service is quotaKVServer (v3rpc/grpc.go:80, NewQuotaKVServer):
		// quotaKVServer.Txn -> kvServer.Txn -> EtcdServer.Txn -> txn.Txn (read-only) -> checkTxn -> checkRange.
		roots: map[string][]string{"server/etcdserver/txn/range.go:181": {"v3rpc.(*quotaKVServer).Txn"}},
	},
	{
		version: "v3.6.0",
		grep: []string{
			"server/storage/mvcc/kvstore.go:37",
			"server/storage/mvcc/kvstore.go:177",
			"server/storage/mvcc/kvstore.go:203",
		},
		sites: []string{
			"server/etcdserver/api/v3compactor/periodic.go:143 comparison",
			"server/etcdserver/api/v3compactor/revision.go:93 comparison",
			"server/etcdserver/api/v3rpc/util.go:45 translation",
			"server/etcdserver/apply/uber_applier.go:128 comparison",
			"server/etcdserver/corrupt.go:606 text-comparison", // strings.Contains(string(b), mvcc.ErrCompacted.Error())
			"server/etcdserver/txn/txn.go:439 return",
			"server/storage/mvcc/kvstore.go:37 definition",
			"server/storage/mvcc/kvstore.go:177 return",
			"server/storage/mvcc/kvstore.go:203 return",
			"server/storage/mvcc/kvstore_txn.go:81 return",
		},
		reach: [][2]string{
			{"watch-open", "server/storage/mvcc/kvstore_txn.go:81"},
			{"kv-range", "server/storage/mvcc/kvstore_txn.go:81"},
			{"hash-kv", "server/storage/mvcc/kvstore.go:177"},
			{"apply", "server/storage/mvcc/kvstore.go:203"},
		},
		unreach: [][2]string{
			{"watch-open", "server/storage/mvcc/kvstore.go:177"},
			{"watch-open", "server/storage/mvcc/kvstore.go:203"},
			{"sync-loop", "server/storage/mvcc/kvstore.go:203"},
			{"sync-loop", "server/storage/mvcc/kvstore_txn.go:81"},
		},
		entries: map[string]string{
			"watch-open": "server/etcdserver/api/v3rpc/watch.go:156",
			"sync-loop":  "server/storage/mvcc/watchable_store.go:218",
		},
		feasible: []feasibleWant{
			// PeriodicCheck: cm.hasher.HashByRev(0) at corrupt.go:180.
			// As at v3.7.3 (corrupt.go:184, :285, :595, :522, :550).
			{entry: "kv-hash-check", site: "server/storage/mvcc/kvstore.go:177", verdict: "no", cond: "rev > 0", at: "server/etcdserver/corrupt.go:180", also: "only-if"},
			{entry: "compact-hash-check", site: "server/storage/mvcc/kvstore.go:177", verdict: "only-if", boundary: "peer hash request"},
			{entry: "hash-kv", site: "server/storage/mvcc/kvstore.go:177", verdict: "yes"},
			// Compact proposes pb.InternalRaftRequest{Compaction: r} (v3_server.go:205).
			{entry: "kv-compact", site: "server/storage/mvcc/kvstore.go:203", verdict: "feasible", boundary: "raft proposal", message: []string{"Compaction"}, messageAt: "server/etcdserver/v3_server.go:205"},
			{entry: "compactor-revision", site: "server/storage/mvcc/kvstore.go:203", verdict: "feasible", senderNeeds: []string{"rev <= 0@server/etcdserver/api/v3compactor/revision.go:82"}},
			{entry: "compactor-periodic", site: "server/storage/mvcc/kvstore.go:203", verdict: "feasible", senderNeeds: []string{"pc.clock.Now().Sub(lastSuccess) < baseInterval@server/etcdserver/api/v3compactor/periodic.go:127"}},
			{entry: "kv-hash-check", site: "server/storage/mvcc/kvstore.go:203", verdict: "no", cond: "r.Compaction != nil", boundary: "raft proposal", message: []string{"Alarm"}},
			{entry: "watch-open", site: "server/storage/mvcc/kvstore_txn.go:81", verdict: "only-if", cond: "IsCreateEvent(evs[i])"},
			{entry: "sync-loop", site: "server/storage/mvcc/kvstore_txn.go:81", verdict: "only-if", boundary: "watch channel",
				message: []string{"WatchID", "Events", "Revision"}, messageAt: "server/storage/mvcc/watchable_store.go:384",
				senderNeeds: []string{"w.minRev < compactionRev@server/storage/mvcc/watchable_store.go:365"}, alsoNot: "watch eviction"},
			{entry: "v3rpc.(*quotaKVServer).Txn", site: "server/etcdserver/txn/txn.go:439", verdict: "yes"},
			// As at v3.7.3: restore's scheduledCompact is 0 at or below
			// compactMainRev (kvstore.go:388); the Txn handler checks its
			// ranges first (txn.go:302 checkTxn, txn.go:497 checkRange's
			// ErrCompacted); the compactions' header read is at revision 0.
			{entry: "apply", site: "server/storage/mvcc/kvstore.go:203", verdict: "feasible", noWayThrough: "mvcc.(*store).Restore"},
			{entry: "v3rpc.(*quotaKVServer).Txn", site: "server/storage/mvcc/kvstore_txn.go:81", verdict: "no", refutedBy: "guard", also: "only-if"},
			{entry: "kv-compact", site: "server/storage/mvcc/kvstore_txn.go:81", verdict: "no", refutedBy: "invariant"},
			{entry: "compactor-periodic", site: "server/storage/mvcc/kvstore_txn.go:81", verdict: "no", refutedBy: "invariant"},
			{entry: "compactor-revision", site: "server/storage/mvcc/kvstore_txn.go:81", verdict: "no", refutedBy: "invariant"},
			{entry: "kv-range", site: "server/storage/mvcc/kvstore_txn.go:81", verdict: "yes"},
			// As at v3.7.3, at v3.6.0's lines (mvcc.New at server.go:379).
			{entry: "apply", site: "server/storage/mvcc/kvstore_txn.go:81", verdict: "no", also: "only-if"},
			{entry: "raft-loop", site: "server/storage/mvcc/kvstore_txn.go:81", verdict: "only-if", crossings: []string{"scheduled job", "watch channel"}},
			// The deferred result check (uber_applier.go:128 here): the
			// corruption alarm's ar.Err is always nil.
			{entry: "kv-hash-check", site: "server/etcdserver/apply/uber_applier.go:128", verdict: "no", refutedBy: "value"},
			{entry: "kv-compact", site: "server/etcdserver/apply/uber_applier.go:128", verdict: "feasible", boundary: "raft proposal", message: []string{"Compaction"}},
		},
		roots: map[string][]string{"server/etcdserver/txn/txn.go:439": {"v3rpc.(*quotaKVServer).Txn"}},
	},
}

func TestReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	for _, rel := range releases {
		t.Run(rel.version, func(t *testing.T) {
			res, err := trace.Run(context.Background(), trace.Options{Study: errcompacted.Study, Version: rel.version})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := res.Report()
			if err != nil {
				t.Fatal(err)
			}
			checkRelease(t, rep, rel.grep, rel.sites, rel.reach, rel.unreach, rel.entries)
			checkFeasible(t, rep, rel.feasible, rel.roots)
			if rep.Etcd.Version != rel.version || rep.Etcd.Source != "module" {
				t.Errorf("etcd = %+v", rep.Etcd)
			}
		})
	}
}

func checkRelease(t *testing.T, rep *report.Report, grep, sites []string, reach, unreach [][2]string, entries map[string]string) {
	t.Helper()
	var gotGrep []string
	for _, l := range rep.Citation.Lines {
		gotGrep = append(gotGrep, fmt.Sprintf("%s:%d", l.File, l.Line))
	}
	if diff := cmp.Diff(grep, gotGrep); diff != "" {
		t.Errorf("citation grep (-want +got):\n%s", diff)
	}
	var gotSites []string
	siteAt := map[string]int{}
	for i, s := range rep.Sites {
		gotSites = append(gotSites, fmt.Sprintf("%s:%d %s", s.File, s.Line, s.Kind))
		siteAt[fmt.Sprintf("%s:%d", s.File, s.Line)] = i
	}
	if diff := cmp.Diff(sites, gotSites); diff != "" {
		t.Errorf("sites (-want +got):\n%s", diff)
	}
	for _, f := range rep.Files {
		if f.File == "server/storage/mvcc/watchable_store.go" && (!f.Present || f.Sites != 0) {
			t.Errorf("watchable_store.go: %+v, want present with 0 sites", f)
		}
	}
	answer := map[[2]string]bool{}
	for _, p := range rep.Paths {
		answer[[2]string{p.Entry, fmt.Sprintf("%s:%d", p.Site.File, p.Site.Line)}] = p.Reachable
		if p.Reachable && len(p.Hops) == 0 && rep.Sites[p.Site.Index].Function != entryFunc(rep, p.Entry) {
			t.Errorf("%s -> %s: reachable with no hops", p.Entry, p.Site.File)
		}
	}
	if want := len(rep.Entries) * len(rep.Sites); len(rep.Paths) != want {
		t.Errorf("%d pairs, want %d (every entry with every site)", len(rep.Paths), want)
	}
	for _, pr := range reach {
		if got, ok := answer[pr]; !ok || !got {
			t.Errorf("%s -> %s: want reachable (found=%v)", pr[0], pr[1], ok)
		}
	}
	for _, pr := range unreach {
		if got, ok := answer[pr]; !ok || got {
			t.Errorf("%s -> %s: want unreachable (found=%v)", pr[0], pr[1], ok)
		}
	}
	for name, at := range entries {
		found := false
		for _, e := range rep.Entries {
			if e.Name == name {
				found = true
				if got := fmt.Sprintf("%s:%d", e.File, e.Line); got != at {
					t.Errorf("entry %s at %s, want %s", name, got, at)
				}
			}
		}
		if !found {
			t.Errorf("no entry %s", name)
		}
	}
}

func entryFunc(rep *report.Report, name string) string {
	for _, e := range rep.Entries {
		if e.Name == name {
			return e.Function
		}
	}
	return ""
}

// TestEtcdDir assembles a tree shaped like an etcd checkout from the module
// cache (v3.7.3) and loads it with --etcd-dir: the same sites and lines as
// the release, the release read from api/version.
func TestEtcdDir(t *testing.T) {
	if testing.Short() {
		t.Skip("copies real etcd modules")
	}
	root := assembleCheckout(t, "v3.7.3")
	res, err := trace.Run(context.Background(), trace.Options{Study: errcompacted.Study, Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := res.Report()
	if err != nil {
		t.Fatal(err)
	}
	rel := releases[0]
	checkRelease(t, rep, rel.grep, rel.sites, rel.reach, rel.unreach, rel.entries)
	if rep.Etcd.Version != "v3.7.3" || rep.Etcd.Source != "dir" {
		t.Errorf("etcd = %+v, want v3.7.3 from api/version, source dir", rep.Etcd)
	}
}

// TestDeterministic: two runs give byte-identical JSON.
func TestDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd")
	}
	var outs [2][]byte
	for i := range outs {
		res, err := trace.Run(context.Background(), trace.Options{Study: errcompacted.Study, Version: "v3.7.3"})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := res.Report()
		if err != nil {
			t.Fatal(err)
		}
		outs[i], _ = json.Marshal(rep)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("two runs differ")
	}
}

// assembleCheckout copies the modules of one release into the folders of
// an etcd checkout and makes them writable.
func assembleCheckout(t *testing.T, version string) string {
	t.Helper()
	mods := []string{"go.etcd.io/etcd/server/v3", "go.etcd.io/etcd/api/v3", "go.etcd.io/etcd/pkg/v3", "go.etcd.io/etcd/client/v3", "go.etcd.io/etcd/client/pkg/v3", "go.etcd.io/etcd/etcdctl/v3"}
	src, err := source.Resolve(context.Background(), source.Spec{Version: version, Modules: mods, Layout: errcompacted.Study.LayoutMap()})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	root := t.TempDir()
	for _, m := range mods {
		dst := filepath.Join(root, filepath.FromSlash(errcompacted.Study.LayoutMap()[m]))
		if err := os.CopyFS(dst, os.DirFS(src.Modules[m])); err != nil {
			t.Fatal(err)
		}
	}
	if err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Chmod(p, info.Mode()|0o200)
	}); err != nil {
		t.Fatal(err)
	}
	return root
}

// feasibleWant is a pair's verdict and what decides it: the condition's
// text (and place), the place of the value that fixes it, and for a
// crossing the boundary and the fields its message sets. verdict
// "feasible" means yes or only-if.
type feasibleWant struct {
	entry, site, verdict string
	cond, condAt, at     string
	boundary             string
	message              []string
	messageAt            string
	// refutedBy is a kind of reason the "no" must give (guard,
	// invariant, lock); noWayThrough a function whose ways must be "no".
	refutedBy    string
	noWayThrough string
	// because are words the verdict's reason must hold.
	because string
	// senderNeeds are conditions (text@file:line) the crossing's sender
	// leg must list among its only-ifs.
	senderNeeds []string
	// alsoNot is a hand-off no other way across reaches the use by.
	alsoNot string
	// also, for a pair whose call paths cannot run, is the verdict of
	// the first way across a hand-off that connects it (Also).
	also string
	// crossings are the hand-offs the pair's way crosses, in order.
	crossings []string
}

func checkFeasible(t *testing.T, rep *report.Report, want []feasibleWant, roots map[string][]string) {
	t.Helper()
	for _, p := range rep.Paths {
		if (p.Reachable || len(p.Crossing) > 0) && p.Feasible == "" {
			t.Errorf("%s -> %s:%d: connected without a verdict", p.Entry, p.Site.File, p.Site.Line)
		}
	}
	for _, w := range want {
		var p *report.PairPaths
		for i := range rep.Paths {
			if rep.Paths[i].Entry == w.entry && fmt.Sprintf("%s:%d", rep.Paths[i].Site.File, rep.Paths[i].Site.Line) == w.site {
				p = &rep.Paths[i]
			}
		}
		if p == nil {
			t.Errorf("no pair %s -> %s", w.entry, w.site)
			continue
		}
		name := w.entry + " -> " + w.site
		switch {
		case w.verdict == "feasible" && p.Feasible != "yes" && p.Feasible != "only-if":
			t.Errorf("%s: feasible = %q (%+v), want yes or only-if", name, p.Feasible, p.Because)
		case w.verdict != "feasible" && p.Feasible != w.verdict:
			t.Errorf("%s: feasible = %q (%+v), want %s", name, p.Feasible, p.Because, w.verdict)
		}
		if w.cond != "" && (p.Because == nil || p.Because.Cond.Text != w.cond) {
			t.Errorf("%s: because = %+v, want the condition %q", name, p.Because, w.cond)
		}
		if w.condAt != "" && (p.Because == nil || fmt.Sprintf("%s:%d", p.Because.Cond.File, p.Because.Cond.Line) != w.condAt) {
			t.Errorf("%s: because = %+v, want the condition at %s", name, p.Because, w.condAt)
		}
		if w.at != "" && (p.Because == nil || fmt.Sprintf("%s:%d", p.Because.File, p.Because.Line) != w.at) {
			t.Errorf("%s: because = %+v, want it fixed at %s", name, p.Because, w.at)
		}
		if w.refutedBy != "" {
			found := false
			for _, r := range refutedOf(p) {
				found = found || r.Kind == w.refutedBy
			}
			if !found {
				t.Errorf("%s: because = %+v, want a reason of kind %s", name, p.Because, w.refutedBy)
			}
		}
		if w.crossings != nil {
			var got []string
			for _, c := range p.Crossing {
				got = append(got, c.Boundary)
			}
			if !slices.Equal(got, w.crossings) {
				t.Errorf("%s: crossing %q, want %q", name, got, w.crossings)
			}
		}
		if w.also != "" && (len(p.Also) == 0 || p.Also[0].Feasible != w.also) {
			t.Errorf("%s: also across = %+v, want the first %s", name, p.Also, w.also)
		}
		if w.because != "" && (p.Because == nil || !strings.Contains(p.Because.Text, w.because)) {
			t.Errorf("%s: because = %+v, want it to say %q", name, p.Because, w.because)
		}
		if w.noWayThrough != "" {
			through := 0
			for _, way := range p.Ways {
				for _, h := range way.Hops {
					if h.Function == "go.etcd.io/etcd/server/v3/storage/"+w.noWayThrough {
						through++
						if way.Feasible != "no" {
							t.Errorf("%s: a way through %s is %q (%+v), want no", name, w.noWayThrough, way.Feasible, way.Because)
						}
						break
					}
				}
			}
			if through == 0 {
				t.Errorf("%s: no way through %s among %d", name, w.noWayThrough, len(p.Ways))
			}
		}
		if w.boundary != "" {
			if len(p.Crossing) != 1 || p.Crossing[0].Boundary != w.boundary {
				t.Errorf("%s: crossing %+v, want one across %s", name, p.Crossing, w.boundary)
				continue
			}
			c := p.Crossing[0]
			if diff := cmp.Diff(w.message, c.Message); diff != "" {
				t.Errorf("%s: message fields (-want +got):\n%s", name, diff)
			}
			if w.messageAt != "" && (c.MessageAt == nil || fmt.Sprintf("%s:%d", c.MessageAt.File, c.MessageAt.Line) != w.messageAt) {
				t.Errorf("%s: message made at %+v, want %s", name, c.MessageAt, w.messageAt)
			}
		}
		for _, need := range w.senderNeeds {
			found := false
			var got []string
			for _, c := range p.Crossing {
				for _, x := range c.OnlyIf {
					s := fmt.Sprintf("%s@%s:%d", x.Text, x.File, x.Line)
					got = append(got, s)
					found = found || s == need
				}
			}
			if !found {
				t.Errorf("%s: the sender's leg needs %q; its only-ifs are %q", name, need, got)
			}
		}
		if w.alsoNot != "" {
			for _, a := range p.Also {
				if len(a.Crossing) > 0 && a.Crossing[0].Boundary == w.alsoNot {
					t.Errorf("%s: a way across the %s reaches it (%s): %+v", name, w.alsoNot, a.Feasible, a.Because)
				}
			}
		}
	}
	for site, names := range roots {
		found := false
		for _, s := range rep.Sites {
			if fmt.Sprintf("%s:%d", s.File, s.Line) == site {
				found = true
				if diff := cmp.Diff(names, s.Roots); diff != "" {
					t.Errorf("%s: roots found from the code (-want +got):\n%s", site, diff)
				}
			}
		}
		if !found {
			t.Errorf("no site %s", site)
		}
	}
	for _, e := range rep.Entries {
		if e.Found != "study" && e.Found != "code" && e.Found != "target" {
			t.Errorf("entry %s: found = %q", e.Name, e.Found)
		}
	}
}

// refutedOf are the reasons of a pair's "no": its own, or its crossing's.
func refutedOf(p *report.PairPaths) []report.Reason {
	var out []report.Reason
	if p.Because != nil {
		out = append(out, p.Because.Refuted...)
	}
	for _, c := range p.Crossing {
		if c.Because != nil {
			out = append(out, c.Because.Refuted...)
		}
	}
	return out
}
