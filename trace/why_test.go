package trace_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/study"
)

// whyRoots maps each use (file:line kind) to its nearest roots.
func whyRoots(w *report.Why) map[string][]string {
	out := map[string][]string{}
	for _, s := range w.Sites {
		out[fmt.Sprintf("%s:%d %s", s.File, s.Line, s.Kind)] = s.Roots
	}
	return out
}

// TestWhyNoObject: a name that is not there is one error naming the
// closest names.
func TestWhyNoObject(t *testing.T) {
	dir, ar := fixtures.Unpack(t, "feasible")
	st, err := study.Parse(fixtures.File(ar, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ symbol, want string }{
		{"example.com/etcd/server/v3/storage/mvcc.ErrCompacte", "the closest names are ErrCompacted"},
		{"example.com/etcd/server/v3/storage/mvcc.(*Store).Hash", "no field or method Hash; the closest names are HashByRev"},
		{"example.com/etcd/server/v3/storage/nope.X", "has no package example.com/etcd/server/v3/storage/nope"},
	} {
		_, err := trace.Why(context.Background(), trace.WhyOptions{Symbol: tc.symbol, Target: st.Tgt(), Dir: dir, Env: fixtures.Env})
		if !errors.Is(err, trace.ErrNoObject) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want ErrNoObject saying %q", tc.symbol, err, tc.want)
		}
	}
}

// whyCase is one object of a real release and what reading the release
// says of some of its uses.
type whyCase struct {
	symbol string
	// uses maps some uses (file:line kind) to their nearest roots.
	uses map[string][]string
	// ways maps a use and a root ("file:line root") to how the root gets
	// there: by, then each hand-off:message, then "dynamic".
	ways map[string][]string
	// via maps a dynamic use (file:line) to what its call names.
	via map[string]string
	// methods maps a gRPC root to its method and client stubs.
	methods map[string][]string
	// all, when set, are every use but the declaration (file:line): for
	// v3.7.3 the non-test references `gopls references` reports (v0.23.0,
	// in a tree of the release's modules), for v3.6.0 what git grep and
	// reading find.
	all []string
	// verdicts maps a use and a root ("file:line root") to the pair's
	// verdict and words its reason holds ("only-if|words").
	verdicts map[string]string
	// notRoots are roots no use may give.
	notRoots []string
	// noWay are a use and a root ("file:line root") that the use may not
	// give, kept or not decided: every way of it is refuted; or, with a
	// hand-off ("file:line root hand-off"), every way across that one
	// ("calls": by calls).
	noWay []string
	// onlyIf maps a use and a root ("file:line root") to a condition the
	// shown way lists among its only-ifs, and words its note holds
	// ("text|words"; several are separated by " ;; ").
	onlyIf map[string]string
	// handsOff maps roots to a hand-off their ways cross, which what
	// runs them names (Entry.HandsOff), decided or not.
	handsOff map[string]string
	// later maps roots to whether the main function that reaches their
	// starter does so only through a goroutine it starts (Entry.Later).
	later map[string]bool
	// notOnlyIf maps a use and a root ("file:line root") to the text of
	// a condition the shown way does not list among its only-ifs.
	notOnlyIf map[string]string
	// wayThrough maps a use, a root and a function some way of the pair
	// passes ("file:line root function") to that way's verdict and words
	// its reason holds ("verdict|words").
	wayThrough map[string]string
	// asks maps a use and a root ("file:line root") to what the shown
	// way asks of the request: a condition's text and the words its note
	// holds ("text|words").
	asks map[string]string
	// never maps a command and a method of the user's half ("command
	// /svc/Method") to the field its requests never set that rules out
	// every way to a use ("Type.Field"), or "" for a row that is not so.
	never map[string]string
	// userNotes are words of the user's half's notes, each in one.
	userNotes []string
}

// nestedRanges is the verdict, and words of its reason, of v3.6.0's
// apply job's way to checkRange's refusals: applyEntryNormal drops a
// transaction's ranges when no one on this member waits for its result
// (server.go:1970-1974; removeNeedlessRangeReqs, server.go:2051-2067,
// keeps in place the operations that are no range, at the top level
// only), before the apply checks them (txn.go:454); but checkTxn calls
// itself for a transaction nested in another (txn.go:459-460), whose
// ranges the filter keeps: the way needs someone waiting only for a
// range at the top level, and the nested one is a way the path search
// does not take (it takes no call twice), so the way is not decided.
const nestedRanges = "unknown|but `txn.checkTxn`, a function the way runs from the call to the test, calls itself, so the element the test reads may be one of a struct held in an element the filter keeps (a transaction nested in another), which the filter does not reach"

// TestWhyReleases: why on objects of real etcd v3.7.3 and v3.6.0, with
// expectations derived by reading the source of each release.
func TestWhyReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	for _, tc := range []struct {
		version string
		whyCase
	}{
		{"v3.7.3", whyCase{symbol: "go.etcd.io/etcd/server/v3/storage/mvcc.ErrFutureRev",
			// check perf and check datascale get with WithPrefix and
			// WithLimit only (check.go), and reach no WithRev: their
			// Range's revision stays 0, which rangeKeys reads as the
			// current one (kvstore_txn.go:75-78, currentRev >= 0). elect
			// and lock make WithRev only for watches (election.go:189
			// and 220, key.go:30), whose requests are no Range's. get
			// sets it with --rev (get_command.go:150), make-mirror with
			// its syncer's (mirror/syncer.go:78).
			// Their transactions' ranges are OpGet's (election.go:76,
			// mutex.go:120-123), no revision either: checkRange returns
			// at `req.Revision == 0` (range.go:176-177), by calls and
			// across raft alike. txn's come from what the user types
			// (txn_command.go), make-mirror's Txn ops carry no range.
			never: map[string]string{
				"check perf /etcdserverpb.KV/Range":      "RangeRequest.Revision",
				"check datascale /etcdserverpb.KV/Range": "RangeRequest.Revision",
				"elect /etcdserverpb.KV/Range":           "RangeRequest.Revision",
				"lock /etcdserverpb.KV/Range":            "RangeRequest.Revision",
				"get /etcdserverpb.KV/Range":             "",
				"make-mirror /etcdserverpb.KV/Range":     "",
				"elect /etcdserverpb.KV/Txn":             "RangeRequest.Revision",
				"lock /etcdserverpb.KV/Txn":              "RangeRequest.Revision",
				"txn /etcdserverpb.KV/Txn":               "",
			},
			// The sync loops' ways to the range's refusal (kvstore_txn.go:76)
			// cross the watch channel and are not decided: what runs them
			// says so all the same.
			handsOff: map[string]string{"mvcc.(*watchableStore).syncWatchersLoop": "watch channel", "v3compactor.(*Periodic).Run$1": "raft proposal"},
			// The apply job calls the compaction through the applier field
			// (uber_applier.go:145, a.applyV3), which restoreAlarms sets
			// to an applierV3Corrupt under `if corruptAlarms`
			// (uber_applier.go:77-78): its Compaction returns ErrCorrupt
			// (corrupt.go:46) and calls nothing, so a way into
			// updateCompactRev needs that branch not taken when the field
			// was last set.
			onlyIf: map[string]string{
				"server/storage/mvcc/kvstore.go:218 v3compactor.(*Revision).Run$1": "rev > s.currentRev|so this holds only with `retention` below 0, the configuration's `cfg.AutoCompactionRetention` (`server/etcdserver/server.go:379`, in `etcdserver.NewServer`)",
				"server/storage/mvcc/kvstore.go:218 v3rpc.(*kvServer).Compact":     "corruptAlarms|sets `applyV3` to a `apply.applierV3Corrupt`, whose `Compaction` cannot lead on to this way",
			},
			// A read-only transaction skips the linearizable read when
			// every operation is a serializable range (v3_server.go:345-352,
			// IsTxnSerializable, txn.go:338-350), and goes on to checkRange
			// all the same (doSerialize, :369; checkTxn, txn.go:212): the
			// way to its refusal takes either, and nothing past the join
			// rules the serializable one out.
			asks: map[string]string{
				"server/etcdserver/txn/range.go:179 v3rpc.(*quotaKVServer).Txn": "txn.IsTxnSerializable(r)|, or else passes `s.read.LinearizableReadNotify(ctx)` (`server/etcdserver/v3_server.go:347`)",
			},
			// The raft loop's way through the restore (applySnapshot ->
			// restore -> compactLockfree(scheduledCompact) ->
			// updateCompactRev) needs `rev > s.currentRev` with rev the
			// scheduled revision; the restore raised currentRev to at
			// least it just before (kvstore.go:393-394) and writes it
			// nowhere after, within one run of the apply job. Its other
			// writes, at start-up (NewStore) and in a write transaction
			// reached outside the job, are not shown to stay out: not
			// decided (it said "only if").
			wayThrough: map[string]string{
				"server/storage/mvcc/kvstore.go:218 etcdserver.(*EtcdServer).run mvcc.(*store).restore": "unknown|is below the value `s.currentRev = scheduledCompact` (server/storage/mvcc/kvstore.go:394) raised it to",
			},
			uses: map[string][]string{
				// checkRange, from the Txn handler (read-only txn, applied
				// locally). The KV service registered is quotaKVServer
				// (v3rpc/grpc.go:80), whose Txn calls kvServer.Txn; and, for
				// a txn applied through raft, the raft loop (server.go:755,
				// started at server.go:594) that schedules the apply job
				// (server.go:845) which applies it: the Txn handler proposes
				// a write txn (v3_server.go:376), which the dispatch's Txn
				// branch (uber_applier.go:140) takes.
				"server/etcdserver/txn/range.go:179 return": {"v3rpc.(*quotaKVServer).Txn", "etcdserver.(*EtcdServer).run"},
				// hashByRev, from the peer HTTP handler and the HashKV method of
				// the registered maintenance service, authMaintenanceServer
				// (grpc.go:89, NewMaintenanceServer), which calls
				// maintenanceServer's; and, across the network, from the
				// corruption checks' goroutines (server.go:538-539), which ask
				// each peer for its hash at the leader's revision
				// (corrupt.go:184 and :285, HashByRev's cc.Do at :595): a peer
				// behind it refuses that revision (kvstore.go:189-191). The
				// handler stays a root of its own: any client of the peer
				// address can call it.
				"server/storage/mvcc/kvstore.go:191 return": {"etcdserver.(*hashKVHandler).ServeHTTP", "v3rpc.(*authMaintenanceServer).HashKV", "etcdserver.(*EtcdServer).monitorCompactHash", "etcdserver.(*EtcdServer).monitorKVHash"},
			},
			ways: map[string][]string{
				"server/storage/mvcc/kvstore.go:191 etcdserver.(*EtcdServer).monitorKVHash": {"hand-off", "peer hash request:", "dynamic"},
				"server/etcdserver/txn/range.go:179 v3rpc.(*quotaKVServer).Txn":             {"calls", "dynamic"}, // kvServer.Txn calls s.kv.Txn through etcdserver.RaftKV (key.go:130)
				"server/etcdserver/txn/range.go:179 etcdserver.(*EtcdServer).run":           {"hand-off", "scheduled job:", "dynamic"},
			},
			// Range of the KV service is kvServer's (quotaKVServer has it
			// by embedding); the client stub that sends it is kVClient's
			// (api/etcdserverpb/rpc_grpc.pb.go:73, KV_Range_FullMethodName).
			methods: map[string][]string{"v3rpc.(*kvServer).Range": {"/etcdserverpb.KV/Range", "etcdserverpb.(*kVClient).Range"}},
			all: []string{"server/etcdserver/api/v3rpc/util.go:46", "server/etcdserver/corrupt.go:609", "server/etcdserver/txn/range.go:179",
				"server/storage/mvcc/kvstore.go:191", "server/storage/mvcc/kvstore.go:218", "server/storage/mvcc/kvstore_txn.go:76"},
			// The store's own refusal of a future revision (rangeKeys,
			// kvstore_txn.go:75): the Range handler passes the client's
			// revision, which can be past the view's. The Txn handler's
			// read-only way checks every range first (checkTxn's loop,
			// txn.go:207, calling checkRange): a revision other than 0
			// past the view's returns ErrFutureRev there (range.go:178),
			// and checkRange passes revision 0 untested (range.go:176);
			// rangeKeys runs on the same view (NewReadOnlyTxnWrite wraps
			// it, kv.go:103), so only a range at revision 0 can be past
			// it: that needs a current revision below 0. Every write of
			// currentRev keeps it at or above 0 (its literal's 1,
			// kvstore.go:104; restore's 1, :315; the write transaction's
			// ++, kvstore_txn.go:214; restore's raises to the compaction
			// revisions, kvstore.go:383 and 394), restore's too, which
			// stores what the index read from the store's keys, received
			// from a channel (kvstore.go:377) that restoreIntoIndex makes
			// and hands back receive-only, sent only by its goroutine's
			// deferred send (kvstore.go:448) of a variable that holds 1
			// (:445) or a revision BytesToRev decoded from a key
			// (:479), which BytesToBucketKey returns only past its panic
			// on a negative one (revision.go:107-108): so no way of the
			// Txn handler can run.
			verdicts: map[string]string{
				"server/storage/mvcc/kvstore_txn.go:76 v3rpc.(*kvServer).Range": "yes|",
				// The apply job checks a transaction's ranges whether or not
				// anyone waits for their result: the flag it sets then
				// (apply.go:40-44, SkipRangeExecution) skips only their
				// execution (txn.go:151), after checkTxn (txn.go:54). No call
				// beside the way rewrites the transaction first, so the way
				// stays decided (v3.6.0's filters it, below).
				"server/etcdserver/txn/range.go:179 etcdserver.(*EtcdServer).run": "only-if|",
				// The watch stream's send loop ranges at the revision before
				// an event's (watch.go:451, `ModRevision - 1`) for a watcher
				// that asked for the previous value. A put records its change
				// at the write transaction's revision plus one (`ModRevision:
				// rev`, kvstore_txn.go:245, rev being beginRev + 1, read from
				// currentRev when the write began), before the event is sent
				// and the send loop's view reads currentRev again
				// (kvstore_txn.go:61): that revision is never past the view's
				// while currentRev does not go down. ModRevision has other
				// writes (a delete's event, watchable_store_txn.go:35, and
				// those decoded from the store's keys, kvstore_txn.go:100 and
				// watchable_store.go:459) and restore may lower currentRev, so
				// the way is not decided, not "only if rev > curRev".
				"server/storage/mvcc/kvstore_txn.go:76 v3rpc.(*watchServer).Watch": "unknown|not decided: the way can run only if `ModRevision`, read at server/etcdserver/api/v3rpc/watch.go:451, is more than 1 above `currentRev` read after it at server/storage/mvcc/kvstore_txn.go:61 (it needs `rev > curRev`); the writes of `ModRevision` at server/storage/mvcc/kvstore_txn.go:245 and server/storage/mvcc/watchable_store_txn.go:35 store at most an earlier read of `currentRev` plus 1",
				// The periodic compactor proposes the oldest revision it kept
				// (periodic.go:126, pc.revs[0]), each appended from the
				// store's revision (periodic.go:110, pc.rg.Rev(), a read of
				// currentRev through readView.Rev); the apply job refuses one
				// past the current revision (kvstore.go:216), read after the
				// proposal: not decided, as restore may lower currentRev.
				"server/storage/mvcc/kvstore.go:218 v3compactor.(*Periodic).Run$1": "unknown|not decided: the way can run only if the value its sender handed off, an element of `revs` read at server/etcdserver/api/v3compactor/periodic.go:126, is above `currentRev` read after the hand-off at server/storage/mvcc/kvstore.go:216 (it needs `rev > s.currentRev`); the append to `revs` at server/etcdserver/api/v3compactor/periodic.go:110 adds at most an earlier read of `currentRev`",
				// The revision compactor proposes the revision it read less
				// the number it keeps (revision.go:81, `rc.rg.Rev() -
				// rc.retention`, Rev a read of currentRev): past the current
				// revision, read after the proposal, only with a retention
				// below 0. That number is the configuration NewServer is
				// given (server.go:379-383, cfg.AutoCompactionRetention,
				// through v3compactor.New, compactor.go:69, to newRevision's
				// `retention: retention`, revision.go:54), which a program
				// may set to any value, and nothing rejects a negative one:
				// in revision mode a retention of "-5ns" is parsed as a
				// duration (embed/etcd.go:929-947), and a compactor is made
				// for any but 0 (server.go:379). So the way can run, only if
				// the proposed revision is past the current one.
				"server/storage/mvcc/kvstore.go:218 v3compactor.(*Revision).Run$1": "only-if|",
			},
			// The Watch handler's send loop asks for progress
			// (watch.go:564, RequestProgress), which hands the watch
			// channel a response with no events (watchable_store.go:536);
			// send copies events through the filters only into a slice
			// made empty (watchable_store.go:578), appended to in a loop
			// over those events (:579-590), so the send loop's loop over
			// them (watch.go:448) makes no pass and never ranges a
			// previous revision. (The Txn handler's write, applied across
			// its raft proposal, is the apply job's way.) The apply job's
			// Txn checks each range against a read view (txn.go:43, 54;
			// range.go:178) and runs it in a write begun after the view
			// ended (txn.go:66-67): currentRev, read at kvstore_txn.go:61
			// and :181, does not go down between, as only a restore may
			// lower it (kvstore.go:315, 377), made in the apply job's runs
			// (applySnapshot) or in NewServer, and none comes between the
			// two reads. So the job's way, and the Txn handler's across
			// its proposal, are refuted too.
			noWay: []string{"server/storage/mvcc/kvstore_txn.go:76 v3rpc.(*quotaKVServer).Txn calls", "server/storage/mvcc/kvstore_txn.go:76 v3rpc.(*watchServer).Watch watch channel",
				"server/storage/mvcc/kvstore_txn.go:76 etcdserver.(*EtcdServer).run scheduled job", "server/storage/mvcc/kvstore_txn.go:76 v3rpc.(*quotaKVServer).Txn raft proposal"},
		}},
		{"v3.7.3", whyCase{symbol: "go.etcd.io/etcd/server/v3/etcdserver/errors.ErrNoSpace",
			// The capped applier refuses a Put (capped.go:34). The dispatch
			// calls it through the applierV3 interface (uber_applier.go:136);
			// an applierV3Capped is made only by newApplierV3Capped
			// (capped.go:30), called only by restoreAlarms under
			// `if noSpaceAlarms` (uber_applier.go:74): a way through it
			// needs the NOSPACE alarm to have been on when the appliers were
			// last restored, though no step of the way tests it; and not the
			// CORRUPT alarm, whose applier restoreAlarms puts in the field
			// after it (uber_applier.go:77-78), answering first.
			onlyIf: map[string]string{
				"server/etcdserver/apply/capped.go:34 etcdserver.(*EtcdServer).run": "noSpaceAlarms|the only branch under which a `apply.applierV3Capped` is made (by `apply.newApplierV3Capped`)",
				"server/etcdserver/apply/capped.go:34 v3rpc.(*quotaKVServer).Put":   "corruptAlarms|which keeps that `apply.applierV3Capped` in the field",
				// The quota applier's refusal of a Txn (quota.go:49) is
				// reached through the applier field too; under the NOSPACE
				// alarm its value is an applierV3Capped, whose Txn forwards
				// only past `if a.q.Cost(r) > 0` (capped.go:38-41). The way
				// needs the alarm off, or else that test false, which the
				// analysis does not decide. (That alternative never holds
				// here: the way needs `!ok`, and a cost of 0 makes the
				// quota's Available true, storage/quota.go:129-130; the
				// analysis does not relate the two calls of Cost. The
				// condition is weaker than the truth, not false.)
				"server/etcdserver/apply/quota.go:49 v3rpc.(*quotaKVServer).Txn": "noSpaceAlarms|or else `a.q.Cost(r) > 0` is false (`server/etcdserver/apply/capped.go:38`) in the `Txn` the way then calls",
			},
		}},
		{"v3.7.3", whyCase{symbol: "go.etcd.io/etcd/server/v3/lease.ErrLeaseNotFound",
			// check perf and check datascale put only in the goroutines
			// they start (check.go:192-199, 374-381: c.Do of an OpPut from
			// a channel): no row, and a note that says so.
			userNotes: []string{"check datascale and check perf make calls that may send /etcdserverpb.KV/Put only in goroutines they start"},
			// A follower forwards the time-to-live to the leader it waits
			// for: waitLeader loops `for leader == nil` (v3_server.go:787),
			// each pass reading the leader again: every run that leaves
			// the loop finds one, so the loop's test is no condition.
			// The raft loop is started at start-up (server.go:594, from
			// main by calls); the revoker only when the loop receives
			// expired leases (server.go:846-847, 859).
			later: map[string]bool{"etcdserver.(*EtcdServer).run": false, "etcdserver.(*EtcdServer).revokeExpiredLeases$1": true},
			notOnlyIf: map[string]string{
				"server/etcdserver/v3_server.go:687 v3rpc.(*LeaseServer).LeaseTimeToLive": "leader == nil",
				// The handler compares the error of EtcdServer's
				// LeaseTimeToLive (lease.go:63-64), given the request: a
				// client makes it fail by naming a lease the lessor lacks
				// (v3_server.go:366-368, the lessor's lookup), so its
				// failure is not named a condition.
				"server/etcdserver/api/v3rpc/lease.go:64 v3rpc.(*LeaseServer).LeaseTimeToLive": "err != nil",
			},
			// A Put through the applier field: restoreAlarms sets it to an
			// applierV3Capped under `if noSpaceAlarms` (uber_applier.go:74),
			// whose Put returns ErrNoSpace (capped.go:34) and calls
			// nothing; the corrupt applier it may wrap after does not give
			// the Put back either. So the Put handler's way into checkLease
			// (put.go:84) needs neither alarm on when the field was last set.
			onlyIf: map[string]string{
				"server/etcdserver/txn/put.go:84 v3rpc.(*quotaKVServer).Put": "noSpaceAlarms|sets `applyV3` to a `apply.applierV3Capped`, whose `Put` cannot lead on to this way",
				// The Txn handler's way into it: the capped applier's Txn
				// forwards only past its cost test (capped.go:38-41), which
				// a transaction the way puts from never passes: the put op
				// costs at least kvOverhead, 256 (storage/quota.go:149), the
				// sum of its branch at least that (:161-168), and the
				// transaction the larger sum (:170-173). The way through
				// that Txn cannot run, so this one needs the alarm off.
				"server/etcdserver/txn/put.go:84 v3rpc.(*quotaKVServer).Txn": "noSpaceAlarms|it leads on only if `a.q.Cost(r) > 0` is false (`server/etcdserver/apply/capped.go:38`), which cannot hold on the same way through that `Txn`",
				// The same holds of the way, not decided, into the lessor's
				// Detach (lessor.go:588) through txn.put (txn.go:176): the
				// way through the capped Txn is no k shortest way to the
				// use, and is checked beside it all the same.
				"server/lease/lessor.go:588 v3rpc.(*quotaKVServer).Txn": "noSpaceAlarms|it leads on only if `a.q.Cost(r) > 0` is false (`server/etcdserver/apply/capped.go:38`), which cannot hold on the same way through that `Txn`",
				// The keep-alive's renewal waits for the apply where the
				// feature FastLeaseKeepAlive is off, or where the lessor
				// does not find the lease (v3_server.go:512-523), and goes
				// on to checkLeaseRenew only when the wait returns no error
				// (ErrStopped or a timeout otherwise, :459-466): the way to
				// a lease not found (lessor.go:409) needs the lease found
				// there or the wait passed. And a renewal that clears a
				// checkpointed TTL goes on past its checkpoint proposal
				// only when that returns no error (lessor.go:436-439).
				// The lessor's lookup is tested only where the feature is
				// on (v3_server.go:512): that alternative needs it.
				"server/lease/lessor.go:409 v3rpc.(*LeaseServer).LeaseKeepAlive": "le == nil| and `s.FeatureEnabled(features.FastLeaseKeepAlive)` holds (`server/etcdserver/v3_server.go:512`), or else `s.waitAppliedIndex()` returns no error (`server/etcdserver/v3_server.go:515 or 520`)",
				"server/lease/lessor.go:447 leasehttp.(*leaseHandler).ServeHTTP": "clearRemainingTTL|, or else `le.cp(…)` returns no error (`server/lease/lessor.go:437`)",
				// A leader's renewal goes on to forward the renewal
				// (v3_server.go:538-555) when its lessor is not primary
				// (:533), and gets there only past the same wait
				// (:512-523) and the check of the lease's keys (:525):
				// that alternative needs one of the wait's ways and the
				// check passed.
				"server/etcdserver/v3_server.go:555 v3rpc.(*LeaseServer).LeaseKeepAlive": "s.isLeader()|`s.ensureLeadership()` holds (`server/etcdserver/v3_server.go:504`) and (either not `le == nil` (`server/etcdserver/v3_server.go:514`) and `s.FeatureEnabled(features.FastLeaseKeepAlive)` holds (`server/etcdserver/v3_server.go:512`), or `s.waitAppliedIndex()` returns no error (`server/etcdserver/v3_server.go:515 or 520`)) and passes `s.checkLeaseRenew(ctx, id)` (`server/etcdserver/v3_server.go:525`)",
			},
			// The time-to-live checks the caller may list the lease's keys
			// only when the request asks for them (v3_server.go:706-712),
			// and compares the revision that check returns only after the
			// lease's answer (:719-723): the way into leaseTimeToLive
			// (:714), to its refusal of a lease the leader's lessor does
			// not find (:648), asks one of the two.
			asks: map[string]string{
				"server/etcdserver/v3_server.go:648 v3rpc.(*LeaseServer).LeaseTimeToLive": "r.Keys|, or else passes `s.checkLeaseTimeToLive(ctx, lease.LeaseID(r.ID))` (`server/etcdserver/v3_server.go:708`)",
				// The comparison at lease.go:64 runs only when that call
				// fails, which the request can make it do: it asks so.
				"server/etcdserver/api/v3rpc/lease.go:64 v3rpc.(*LeaseServer).LeaseTimeToLive": "err != nil|fails ls.le.LeaseTimeToLive(ctx, rr)",
				// A follower's renewal compares the error of its forward to
				// the leader only when there is one (`err == nil ||`,
				// v3_server.go:555); the request's lease ID can make it fail.
				"server/etcdserver/v3_server.go:555 v3rpc.(*LeaseServer).LeaseKeepAlive": "err == nil|fails leasehttp.RenewHTTP(cctx, id, lurl, s.peerRt)",
			},
			uses: map[string][]string{
				// The lease HTTP handler compares the lessor's error (http.go:93).
				"server/lease/leasehttp/http.go:93 comparison": {"leasehttp.(*leaseHandler).ServeHTTP"},
				// The leader revokes an expired lease in a goroutine that
				// revokeExpiredLeases starts (server.go:859, 883-885): a
				// LeaseRevoke across the raft proposal, a second of which
				// finds the lease gone (lessor.go:330-332; the lessor sends
				// it again after a retry interval). The raft loop starts it,
				// but its own way there is the scheduled job: the goroutine
				// is a root too.
				"server/lease/lessor.go:332 return":    {"etcdserver.(*EtcdServer).run", "v3rpc.(*LeaseServer).LeaseRevoke", "etcdserver.(*EtcdServer).revokeExpiredLeases$1"},
				"server/lease/lessor.go:61 definition": nil,
				// The lessor's Grant refuses an ID of NoLease (lessor.go:282).
				// The LeaseGrant handler is no root of it: EtcdServer.LeaseGrant
				// loops `for r.ID == int64(lease.NoLease)` (v3_server.go:437),
				// setting r.ID, and proposes r (v3_server.go:452) only after
				// the loop, changing r.ID no more; the apply passes lc.ID to
				// Grant (apply/backend.go:84). Nor is the raft loop: the
				// apply job it schedules dispatches a request a sender made,
				// and the LeaseGrant branch (uber_applier.go:146) takes only
				// that handler's, never with ID 0. No root remains.
				"server/lease/lessor.go:283 return": nil,
				// Detach's refusal (lessor.go:588) needs the lease it is
				// given missing from leaseMap (:586); every way in gives it
				// what GetLease read from itemMap (:575), tested not NoLease
				// (kvstore_txn.go:269 in put, :337 in delete), and Attach
				// puts an ID into itemMap (:567) only after finding it in
				// leaseMap (:559-560). Revoke deletes the lease (:355)
				// after deleting its keys (:349-351), whose delete detaches
				// them; that is what the analysis does not show, so no way
				// is decided and no root is kept.
				"server/lease/lessor.go:588 return": nil,
			},
			verdicts: map[string]string{
				// The raft loop reaches Attach (lessor.go:561) by the
				// scheduled job: applyAll -> applySnapshot (server.go:973),
				// which returns at once unless the batch the loop hands the
				// job holds a snapshot (server.go:996-998), then the store's
				// restore -> Attach (kvstore.go:408). The restore attaches
				// in a loop over keyToLease (kvstore.go:403), a map it made
				// (kvstore.go:334) and handed only to restoreChunk
				// (kvstore.go:363), which fills it from the stored keys
				// (kvstore.go:517): the way needs a stored key whose lease
				// the lessor, recovered from the same backend first
				// (server.go:1057-1062), lacks, which a backend this
				// release writes never holds (Revoke deletes a lease's keys
				// and its record in one transaction, lessor.go:349-361);
				// what stored data holds is not followed: not decided.
				"server/lease/lessor.go:561 etcdserver.(*EtcdServer).run": "unknown|a value of `keyToLease` ranged over at server/storage/mvcc/kvstore.go:403, a map the path made (server/storage/mvcc/kvstore.go:334) and handed to `restoreChunk(s.lg, rkvc, keys, vals, keyToLease)`",
				// The lease handler compares the error LeaseLeases returned
				// (lease.go:80), which is not nil only when
				// checkLeaseLeases fails (v3_server.go:740), each way of
				// which comes after its test that auth is on
				// (v3_server.go:754): the way needs that test, though not
				// which of its failures.
				"server/etcdserver/api/v3rpc/lease.go:80 v3rpc.(*LeaseServer).LeaseLeases": "only-if|only if `s.AuthStore().IsAuthEnabled()`, in `s.checkLeaseLeases(ctx, ls)`, whose result the way tests",
				"server/lease/lessor.go:588 v3rpc.(*quotaKVServer).Put":                    "unknown|`leaseMap` has no entry for the key it looks up at server/lease/lessor.go:586",
				"server/lease/lessor.go:588 v3rpc.(*kvServer).DeleteRange":                 "unknown|a value of `itemMap` read at server/lease/lessor.go:575, which the way needs non-zero (`leaseID != lease.NoLease`)",
				"server/lease/lessor.go:588 etcdserver.(*EtcdServer).run":                  "unknown|the analysis does not show that `delete(le.leaseMap, l.ID)` (server/lease/lessor.go:355) removes only keys that no value of `itemMap` names",
				// Attach's refusal (lessor.go:561) needs the lease missing
				// from leaseMap (:559-560). The Put and Txn handlers' ways
				// (through raft and the apply job) attach the lease the
				// request names only after checkLease (txn/put.go:80-87;
				// through checkTxn's loop for a Txn, txn.go:223) found it
				// with Lookup (lessor.go:461), in the same run of the apply
				// job, which grants (:311), revokes (:355) and recovers
				// (:606) every lease, besides NewServer at start-up
				// (newLessor → initAndRecover, :820, also reached from
				// Recover in the job), which returns before the job's runs
				// begin; but with IgnoreLease they attach the stored key's
				// lease (txn/put.go:58), and the two lookups reach the map
				// through different fields. Not decided, each.
				"server/lease/lessor.go:561 v3rpc.(*quotaKVServer).Put": "unknown|is not the one found, on the runs that look the same key up first at server/lease/lessor.go:461",
				"server/lease/lessor.go:561 v3rpc.(*quotaKVServer).Txn": "unknown|and those at server/lease/lessor.go:820 only within such runs or a call of `etcdserver.NewServer`, which returns before the runs it prepares begin",
			},
			// The gRPC Txn handler reaches checkLease (txn/put.go:84) and
			// the lessor's Attach (lessor.go:561) only through raft: its
			// direct way is EtcdServer.Txn's read-only branch
			// (v3_server.go:352, taken when txn.IsTxnReadonly(r) holds:
			// every operation a range), where txn.Txn's isWrite :=
			// !IsTxnReadonly(rt) (txn.go:34) is false, and checkTxn's put
			// case (txn.go:213) and the write path need a put.
			ways: map[string][]string{
				"server/etcdserver/txn/put.go:84 v3rpc.(*quotaKVServer).Txn": {"hand-off", "raft proposal:Txn", "dynamic"},
			},
			// The KV service registered is quotaKVServer (v3rpc/grpc.go:80,
			// NewQuotaKVServer), which embeds KVServer and declares Put and
			// Txn itself (quota.go:60, 67: the quota check, then the
			// embedded server's): gRPC never runs kvServer's Put or Txn.
			notRoots: []string{"v3rpc.(*kvServer).Put", "v3rpc.(*kvServer).Txn"},
		}},
		{"v3.7.3", whyCase{symbol: "rpctypes.ErrGRPCNoLeader",
			uses: map[string][]string{
				// The unary interceptor returns it when there is no leader; gRPC
				// calls the interceptor for each request.
				"server/etcdserver/api/v3rpc/interceptor.go:70 return": {"v3rpc.newUnaryInterceptor$1"},
			},
		}},
		// The store's Compact is called only through the mvcc.KV interface
		// the applier holds (apply/backend.go:73, a.options.KV.Compact), in
		// the Compaction branch of the dispatch (uber_applier.go:145); the
		// gRPC Compact handler (v3rpc/key.go:139) proposes a Compaction
		// (v3_server.go:393) that raft hands to the apply job.
		{"v3.7.3", whyCase{symbol: "mvcc.(*store).Compact",
			uses: map[string][]string{
				"server/storage/mvcc/kvstore.go:282 definition": nil,
			},
			ways: map[string][]string{
				"server/etcdserver/apply/backend.go:73 v3rpc.(*kvServer).Compact": {"hand-off", "raft proposal:Compaction", "dynamic"},
			},
			via:     map[string]string{"server/etcdserver/apply/backend.go:73": "mvcc.KV.Compact"},
			methods: map[string][]string{"v3rpc.(*kvServer).Compact": {"/etcdserverpb.KV/Compact", "etcdserverpb.(*kVClient).Compact"}},
			all:     []string{"server/etcdserver/apply/backend.go:73"},
		}},
		// The gRPC LeaseRevoke handler calls the server's LeaseRevoke
		// through the etcdserver.Lessor interface (v3rpc/lease.go:54);
		// the raft loop revokes expired leases (server.go:885).
		{"v3.7.3", whyCase{symbol: "etcdserver.(*EtcdServer).LeaseRevoke",
			uses: map[string][]string{
				"server/etcdserver/api/v3rpc/lease.go:54 other": {"v3rpc.(*LeaseServer).LeaseRevoke"},
				"server/etcdserver/server.go:885 other":         {"etcdserver.(*EtcdServer).run"},
			},
			via: map[string]string{"server/etcdserver/api/v3rpc/lease.go:54": "etcdserver.Lessor.LeaseRevoke"},
			all: []string{"server/etcdserver/api/v3rpc/lease.go:54", "server/etcdserver/server.go:885"},
		}},
		// NewServer runs at start-up only: main (server/main.go) calls
		// etcdmain.Main, which starts etcd (etcdmain/etcd.go:181,
		// embed.StartEtcd) and builds the server (embed/etcd.go:260).
		{"v3.7.3", whyCase{symbol: "etcdserver.NewServer",
			uses: map[string][]string{"server/embed/etcd.go:260 other": {"server/v3.main"}},
			ways: map[string][]string{"server/embed/etcd.go:260 server/v3.main": {"start-up"}},
			all:  []string{"server/embed/etcd.go:260"},
		}},
		// v3.6.0: the applier calls Compact through its kv field (apply.go:179).
		// The same at v3.6.0: the loop at v3_server.go:250, Grant's test
		// at lessor.go:282.
		{"v3.6.0", whyCase{symbol: "lease.ErrLeaseNotFound",
			userNotes: []string{"check datascale and check perf make calls that may send /etcdserverpb.KV/Put only in goroutines they start"},
			// As v3.7.3's: the capped applier's Txn is in apply.go here,
			// its cost test at apply.go:258, which a transaction that puts
			// never passes (storage/quota.go:149 and 159-172).
			onlyIf: map[string]string{
				"server/etcdserver/txn/txn.go:426 v3rpc.(*quotaKVServer).Txn": "noSpaceAlarms|it leads on only if `a.q.Cost(r) > 0` is false (`server/etcdserver/apply/apply.go:258`), which cannot hold on the same way through that `Txn`",
				// checkPut reads the key back, and needs it found, only for a
				// request that keeps its value or lease (txn.go:414-422),
				// before the lease's lookup: the way needs one of the two.
				"server/etcdserver/txn/txn.go:426 etcdserver.(*EtcdServer).run": "rr == nil || len(rr.KVs) == 0|, or else the request makes `req.IgnoreValue || req.IgnoreLease` false (`server/etcdserver/txn/txn.go:414`)",
				// The restore's way is not decided (below), and needs a
				// snapshot to restore beside that (server.go:1001).
				"server/lease/lessor.go:553 etcdserver.(*EtcdServer).run": "raft.IsEmptySnap(toApply.snapshot)|",
			},
			// The apply job checks the caller's permission for the
			// transaction's operations (apply_auth.go:109, CheckTxnAuth's
			// loop over Success and Failure, txn.go:676-692) after
			// applyEntryNormal may have dropped its ranges
			// (server.go:1972-1973): where the filter runs, the check is
			// of what it leaves. The put is kept, so the way runs either
			// way.
			asks: map[string]string{
				"server/etcdserver/txn/txn.go:426 etcdserver.(*EtcdServer).run": "txn.CheckTxnAuth(aa.as, &aa.authInfo, rt)|after where `removeNeedlessRangeReqs(raftReq.Txn)` (`server/etcdserver/server.go:1973`), a filter called under `!needResult && raftReq.Txn != nil`, runs: of what it leaves in `TxnRequest.Success` and `TxnRequest.Failure`",
				// A way not decided for another reason (below) lists the
				// checks beside that qualified all the same: checkTxn's
				// loop (txn.go:446-455) reads what the filter leaves.
				"server/lease/lessor.go:553 v3rpc.(*quotaKVServer).Txn": "checkTxn(txnRead, rt, lessor, txnPath)|after where `removeNeedlessRangeReqs(raftReq.Txn)` (`server/etcdserver/server.go:1973`), a filter called under `!needResult && raftReq.Txn != nil`, runs: of what it leaves in `TxnRequest.Success` and `TxnRequest.Failure`",
			},
			uses: map[string][]string{
				"server/lease/lessor.go:283 return": nil,
				// As v3.7.3's, at lessor.go:578-580 (Detach), :567
				// (GetLease), :559 (Attach's put into itemMap).
				"server/lease/lessor.go:580 return": nil,
			},
			verdicts: map[string]string{
				// As v3.7.3's restore, at kvstore.go:394-395 here.
				"server/lease/lessor.go:553 etcdserver.(*EtcdServer).run": "unknown|a value of `keyToLease` ranged over at server/storage/mvcc/kvstore.go:",
				// The same restore runs at start-up, in main's goroutine:
				// NewServer makes the store (server.go:379, mvcc.New), whose
				// NewStore restores what the backend holds (kvstore.go:128)
				// and attaches each key's lease (:392-397). Not decided
				// either, so listed with those not decided.
				"server/lease/lessor.go:553 server/v3.main":             "unknown|a value of `keyToLease` ranged over at server/storage/mvcc/kvstore.go:",
				"server/lease/lessor.go:580 v3rpc.(*quotaKVServer).Put": "unknown|a value of `itemMap` read at server/lease/lessor.go:567, which the way needs non-zero (`oldLease != lease.NoLease`)",
				// A revoke deletes the lease's keys (lessor.go:348-350),
				// whose delete detaches each from its lease
				// (kvstore_txn.go:311): not decided, as the apply job's way
				// (run) is. The gRPC method sends the same message as the
				// expiry's goroutine (v3_server.go LeaseRevoke), whose way
				// is not decided either: that is no reason to leave it
				// out (a message is left out only after a way that cannot
				// run).
				"server/lease/lessor.go:580 v3rpc.(*LeaseServer).LeaseRevoke": "unknown|`leaseMap` has no entry for the key it looks up at server/lease/lessor.go:578",
				// As v3.7.3's Attach (lessor.go:553 here), with the check
				// inline in txn.Put (txn.go:46-51): the way into the write
				// either names no lease or found it (lessor.go:453).
				"server/lease/lessor.go:553 v3rpc.(*quotaKVServer).Put": "unknown|is not the one found, on the runs that look the same key up first at server/lease/lessor.go:453",
				// From the Txn handler the check is checkTxn's loop
				// (txn.go:444-474) over the requests executeTxn puts:
				// checkPut returns an error for a missing lease
				// (txn.go:425-426) or a missing previous key (txn.go:421,
				// etcdserver/errors.ErrKeyNotFound, errors.New in a
				// package read from export data here, never nil).
				"server/lease/lessor.go:553 v3rpc.(*quotaKVServer).Txn": "unknown|what `checkTxn(txnRead, rt, lessor, txnPath)` checks of every element before it returns",
			},
		}},
		{"v3.6.0", whyCase{symbol: "mvcc.(*store).Compact",
			uses: map[string][]string{"server/storage/mvcc/kvstore.go:271 definition": nil},
			ways: map[string][]string{
				"server/etcdserver/apply/apply.go:179 v3rpc.(*kvServer).Compact": {"hand-off", "raft proposal:Compaction", "dynamic"},
			},
			via: map[string]string{"server/etcdserver/apply/apply.go:179": "mvcc.KV.Compact"},
		}},
		{"v3.6.0", whyCase{symbol: "etcdserver.(*EtcdServer).LeaseRevoke",
			uses: map[string][]string{
				"server/etcdserver/api/v3rpc/lease.go:54 other": {"v3rpc.(*LeaseServer).LeaseRevoke"},
				"server/etcdserver/server.go:896 other":         {"etcdserver.(*EtcdServer).run"},
			},
			via: map[string]string{"server/etcdserver/api/v3rpc/lease.go:54": "etcdserver.Lessor.LeaseRevoke"},
		}},
		{"v3.6.0", whyCase{symbol: "etcdserver.NewServer",
			uses: map[string][]string{"server/embed/etcd.go:262 other": {"server/v3.main"}},
		}},
		// ErrFutureRev: v3.6.0 checks the range in txn.go (437), not range.go.
		{"v3.6.0", whyCase{symbol: "mvcc.ErrCompacted",
			// A Range at revision 0 reads the current one, never below
			// the compaction (kvstore_txn.go:77-80, compactMainRev <=
			// currentRev): check perf never sets it.
			// elect's and lock's transactions range at revision 0 too;
			// their write transactions go to raft, where the apply job's
			// checkTxn calls checkRange (txn.go:455), which returns nil at
			// `req.Revision == 0` (txn.go:434-435).
			never: map[string]string{
				"check perf /etcdserverpb.KV/Range": "RangeRequest.Revision",
				"get /etcdserverpb.KV/Range":        "",
				"elect /etcdserverpb.KV/Txn":        "RangeRequest.Revision",
				"lock /etcdserverpb.KV/Txn":         "RangeRequest.Revision",
				"txn /etcdserverpb.KV/Txn":          "",
			},
			// The Txn handler reaches rangeKeys's refusal (kvstore_txn.go:81)
			// across raft as a write transaction, not by calls: its read-only
			// branch (v3_server.go:162) calls txn.Txn, whose IsTxnReadonly
			// (txn.go:258) gives the same answer, so the transaction's
			// End (txn.go:296) is the read's (NewReadOnlyTxnWrite,
			// txn.go:293), never the watchable store's that notifies
			// watchers (watchable_store_txn.go:44).
			// Across raft, the apply job checks the transaction's ranges
			// against a read view's first revision (txn.go:437), ends it
			// and opens a write, whose rangeKeys reads compactMainRev
			// again: only the apply job writes it, and NewStore's restore
			// at start-up, within NewServer (server.go:379), which returns
			// before the raft loop that schedules the job starts: no way.
			noWay: []string{"server/storage/mvcc/kvstore_txn.go:81 v3rpc.(*quotaKVServer).Txn"},
			// As ErrFutureRev's (below), at the compacted revision's test.
			verdicts: map[string]string{
				"server/etcdserver/txn/txn.go:439 etcdserver.(*EtcdServer).run": nestedRanges,
			},
			// The compactors compare the error of their compaction with
			// ErrCompacted only when there is one (`err == nil ||`,
			// periodic.go:143, revision.go:93). The compaction is
			// EtcdServer.Compact, which the analysis follows here: it
			// fails with the proposal's error or the apply's
			// (v3_server.go:230-235), by different branches, neither
			// listed, so the way needs the call's failure.
			onlyIf: map[string]string{
				"server/etcdserver/api/v3compactor/periodic.go:143 v3compactor.(*Periodic).Run$1": "err == nil|erred pc.c.Compact(pc.ctx, &pb.CompactionRequest{Revision: rev})",
				"server/etcdserver/api/v3compactor/revision.go:93 v3compactor.(*Revision).Run$1":  "err == nil|erred rc.c.Compact(rc.ctx, &pb.CompactionRequest{Revision: rev})",
			},
		}},
		{"v3.6.0", whyCase{symbol: "mvcc.ErrFutureRev",
			// As v3.7.3's: restoreAlarms (uber_applier.go:108-109 here).
			onlyIf: map[string]string{
				"server/storage/mvcc/kvstore.go:207 v3compactor.(*Revision).Run$1": "rev > s.currentRev|so this holds only with `retention` below 0, the configuration's `cfg.AutoCompactionRetention` (`server/etcdserver/server.go:392`, in `etcdserver.NewServer`)",
				"server/storage/mvcc/kvstore.go:207 v3rpc.(*kvServer).Compact":     "corruptAlarms|sets `applyV3` to a `apply.applierV3Corrupt`, whose `Compaction` cannot lead on to this way",
			},
			// As v3.7.3's: the raise at kvstore.go:382-383 here.
			wayThrough: map[string]string{
				"server/storage/mvcc/kvstore.go:207 etcdserver.(*EtcdServer).run mvcc.(*store).restore": "unknown|is below the value `s.currentRev = scheduledCompact` (server/storage/mvcc/kvstore.go:383) raised it to",
			},
			uses: map[string][]string{
				"server/etcdserver/txn/txn.go:437 return":   {"v3rpc.(*quotaKVServer).Txn"},
				"server/storage/mvcc/kvstore.go:180 return": {"etcdserver.(*hashKVHandler).ServeHTTP", "v3rpc.(*authMaintenanceServer).HashKV", "etcdserver.(*EtcdServer).monitorCompactHash", "etcdserver.(*EtcdServer).monitorKVHash"},
			},
			all: []string{"server/etcdserver/api/v3rpc/util.go:46", "server/etcdserver/corrupt.go:609", "server/etcdserver/txn/txn.go:437",
				"server/storage/mvcc/kvstore.go:180", "server/storage/mvcc/kvstore.go:207", "server/storage/mvcc/kvstore_txn.go:75"},
			verdicts: map[string]string{
				// The apply job's way: not decided (nestedRanges).
				"server/etcdserver/txn/txn.go:437 etcdserver.(*EtcdServer).run": nestedRanges,
				// As v3.7.3's, at v3.6.0's lines (watch.go:423 and 424).
				"server/storage/mvcc/kvstore_txn.go:75 v3rpc.(*watchServer).Watch": "unknown|is more than 1 above `currentRev` read after it at server/storage/mvcc/kvstore_txn.go:",
				// As v3.7.3's revision compactor, refused at v3.6.0's line:
				// the retention is the configuration's (server.go:392-396).
				"server/storage/mvcc/kvstore.go:207 v3compactor.(*Revision).Run$1": "only-if|",
			},
			// As v3.7.3's: the decoder refuses a negative revision at
			// revision.go:107-108 here too.
			// As at v3.7.3, at this release's lines (watch.go:529,
			// watchable_store.go:548, 589-602, watch.go:421). The apply
			// job's write transaction checks its ranges (txn.go:432)
			// against a view read before the write began: as at v3.7.3,
			// only restore lowers currentRev (kvstore.go:304, 366), in the
			// apply job's runs or NewServer, never between the two reads.
			noWay: []string{"server/storage/mvcc/kvstore_txn.go:75 v3rpc.(*quotaKVServer).Txn calls", "server/storage/mvcc/kvstore_txn.go:75 v3rpc.(*watchServer).Watch watch channel",
				"server/storage/mvcc/kvstore_txn.go:75 etcdserver.(*EtcdServer).run scheduled job", "server/storage/mvcc/kvstore_txn.go:75 v3rpc.(*quotaKVServer).Txn raft proposal"},
		}},
	} {
		t.Run(tc.version+"/"+tc.symbol[strings.LastIndex(tc.symbol, "/")+1:], func(t *testing.T) {
			w, err := trace.Why(context.Background(), trace.WhyOptions{Symbol: tc.symbol, Version: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			checkWhy(t, w, tc.whyCase)
		})
	}
}

// checkUndecidedLegs: a way not decided that crosses hand-offs starts
// at its root, each leg's receiving side is where the next leg starts,
// and what runs its root is said among the entries (whichever fork of
// the run answered its use).
func checkUndecidedLegs(t *testing.T, w *report.Why) {
	t.Helper()
	entries := map[string]bool{}
	for _, e := range w.Entries {
		entries[e.Name] = true
	}
	for _, s := range w.Sites {
		for _, u := range s.Undecided {
			if !entries[u.Root] {
				t.Errorf("%s:%d: the undecided root %s is not among the entries", s.File, s.Line, u.Root)
			}
			from := u.Root
			for _, c := range u.Crossing {
				if c.From != from {
					t.Errorf("%s:%d: %s's leg across the %s starts at %s, want %s", s.File, s.Line, u.Root, c.Boundary, c.From, from)
				}
				from = c.To
			}
		}
	}
}

// senderCount finds "none of the N requests that the H's senders make
// (made at LIST)": N and LIST.
var senderCount = regexp.MustCompile(`none of the (\d+) requests that the [^(]*'s senders make \(made at ([^)]*)\)`)

func checkWhy(t *testing.T, w *report.Why, tc whyCase) {
	t.Helper()
	checkUndecidedLegs(t, w)
	got := whyRoots(w)
	for use, roots := range tc.uses {
		r, ok := got[use]
		if !ok {
			t.Errorf("no use %s among %v", use, got)
			continue
		}
		if diff := cmp.Diff(roots, r); diff != "" {
			t.Errorf("%s (-want +got):\n%s", use, diff)
		}
	}
	at := map[string]int{}
	var all []string
	for i, s := range w.Sites {
		at[fmt.Sprintf("%s:%d", s.File, s.Line)] = i
		if s.Kind != "definition" {
			all = append(all, fmt.Sprintf("%s:%d", s.File, s.Line))
		}
	}
	if tc.all != nil {
		if diff := cmp.Diff(tc.all, all); diff != "" {
			t.Errorf("every use (-want +got):\n%s", diff)
		}
	}
	for key, want := range tc.ways {
		f := strings.Fields(key)
		si, ok := at[f[0]]
		if !ok {
			t.Errorf("no use at %s", f[0])
			continue
		}
		var way []string
		for _, x := range w.Ways {
			if x.Site == si && x.Root == f[1] {
				way = append(way, x.By)
				for i, h := range x.HandOffs {
					way = append(way, h+":"+x.Messages[i])
				}
				if x.Dynamic {
					way = append(way, "dynamic")
				}
			}
		}
		if diff := cmp.Diff(want, way); diff != "" {
			t.Errorf("the way of %s (-want +got):\n%s", key, diff)
		}
	}
	for key, want := range tc.wayThrough {
		f := strings.Fields(key)
		verdict, words, _ := strings.Cut(want, "|")
		found := false
		for _, p := range pairsAt(w, key) {
			for _, x := range p.Ways {
				if !slices.ContainsFunc(x.Hops, func(h report.Hop) bool { return shortName(h.Function) == f[2] }) {
					continue
				}
				found = true
				checkSays(t, key, x.Feasible, x.Because, verdict, words)
			}
		}
		if !found {
			t.Errorf("%s: no such way", key)
		}
	}
	for key, want := range tc.verdicts {
		f := strings.Fields(key)
		verdict, words, _ := strings.Cut(want, "|")
		found := false
		for _, p := range pairsAt(w, key) {
			found = true
			checkSays(t, key, p.Feasible, p.Because, verdict, words)
		}
		// A root whose way was not decided is listed with the use.
		for _, s := range w.Sites {
			if fmt.Sprintf("%s:%d", s.File, s.Line) != f[0] {
				continue
			}
			for _, u := range s.Undecided {
				if u.Root != f[1] {
					continue
				}
				found = true
				checkSays(t, key, "unknown", u.Because, verdict, words)
			}
		}
		if !found {
			t.Errorf("no pair %s", key)
		}
	}
	for _, key := range tc.noWay {
		f := strings.Fields(key)
		across := strings.Join(f[2:], " ")
		for _, s := range w.Sites {
			if fmt.Sprintf("%s:%d", s.File, s.Line) != f[0] {
				continue
			}
			if across == "" && slices.Contains(s.Roots, f[1]) {
				t.Errorf("%s: kept, want every way refuted", key)
			}
			for _, u := range s.Undecided {
				if u.Root == f[1] && (across == "" || u.HandOff == across || across == "calls" && u.By == "calls") {
					t.Errorf("%s: not decided (%+v), want every way refuted", key, u.Because)
				}
			}
		}
		if across == "" {
			continue
		}
		for _, p := range w.Paths {
			by := "calls"
			if len(p.Crossing) > 0 {
				by = p.Crossing[0].Boundary
			}
			if p.Entry == f[1] && fmt.Sprintf("%s:%d", p.Site.File, p.Site.Line) == f[0] && by == across && p.Feasible != "" && p.Feasible != "no" {
				t.Errorf("%s: kept (%s), want every way across it refuted", key, p.Feasible)
			}
		}
	}
	for _, s := range w.Sites {
		for _, r := range s.Roots {
			if slices.Contains(tc.notRoots, r) {
				t.Errorf("%s:%d gives the root %s, which gRPC does not run", s.File, s.Line, r)
			}
		}
	}
	for key, want := range tc.asks {
		checkListed(t, w, key, want, "asks", func(w report.Way) []report.Cond { return w.Asks })
	}
	for key, wants := range tc.onlyIf {
		for _, want := range strings.Split(wants, " ;; ") {
			checkOnlyIf(t, w, key, want)
		}
	}
	for name, want := range tc.handsOff {
		found := false
		for _, e := range w.Entries {
			if e.Name != name {
				continue
			}
			for _, h := range e.HandsOff {
				found = found || strings.HasPrefix(h, "the "+want+":")
			}
		}
		if !found {
			t.Errorf("root %s: no hand-off %q among what runs it", name, want)
		}
	}
	for name, want := range tc.later {
		found := false
		for _, e := range w.Entries {
			if e.Name == name {
				found = true
				if e.StartUp == "" || e.Later != want {
					t.Errorf("root %s: start-up %q, later %v; want later %v", name, e.StartUp, e.Later, want)
				}
			}
		}
		if !found {
			t.Errorf("no root %s", name)
		}
	}
	for key, text := range tc.notOnlyIf {
		ps := pairsAt(w, key)
		if len(ps) == 0 {
			t.Errorf("no pair %s", key)
		}
		for _, p := range ps {
			if p.Best >= len(p.Ways) {
				continue
			}
			for _, c := range p.Ways[p.Best].OnlyIf {
				if c.Text == text {
					t.Errorf("%s: the shown way lists %q among its only-ifs: %+v", key, text, c)
				}
			}
		}
	}
	for use, via := range tc.via {
		si, ok := at[use]
		if !ok {
			t.Errorf("no use at %s", use)
			continue
		}
		if s := w.Sites[si]; !s.Dynamic || s.Via != via {
			t.Errorf("%s: dynamic %v via %q, want via %q", use, s.Dynamic, s.Via, via)
		}
	}
	// A count of the requests a hand-off's senders make is the number of
	// lines it then lists (v3.6.0's lease.ErrLeaseNotFound said 32 of 31).
	js, err := json.Marshal(w)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range senderCount.FindAllStringSubmatch(string(js), -1) {
		lines := 0
		for _, file := range strings.Split(m[2], "; ") {
			_, nums, _ := strings.Cut(file, ":")
			lines += len(strings.FieldsFunc(nums, func(r rune) bool { return r == ',' || r == ' ' })) - strings.Count(nums, " and ")
		}
		if fmt.Sprint(lines) != m[1] {
			t.Errorf("%q: %d lines listed", m[0], lines)
		}
	}
	for key, want := range tc.never {
		cmdName, method, _ := strings.Cut(key, " /")
		found := false
		if w.User != nil {
			for _, c := range w.User.Etcdctl {
				if c.Command != cmdName || c.Method != "/"+method {
					continue
				}
				found = true
				got := ""
				if c.Cannot != nil {
					for _, u := range c.Unset {
						parts := strings.Split(u, ".")
						got = strings.Join(parts[len(parts)-2:], ".")
					}
				}
				if got != want {
					t.Errorf("%s: never sets %q (%v), want %q", key, got, c.Unset, want)
				}
			}
		}
		if !found {
			t.Errorf("no row %s", key)
		}
	}
	for _, words := range tc.userNotes {
		if w.User == nil || !slices.ContainsFunc(w.User.Notes, func(n string) bool { return strings.Contains(n, words) }) {
			t.Errorf("no note of the user's half says %q", words)
		}
	}
	for root, want := range tc.methods {
		found := false
		for _, e := range w.Entries {
			if e.Name == root {
				found = true
				got := []string{e.Method}
				for _, s := range e.Stubs {
					got = append(got, report.ShortName(s))
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s's method and stubs (-want +got):\n%s", root, diff)
				}
			}
		}
		if !found {
			t.Errorf("no root %s kept", root)
		}
	}
}

// TestWhyShortNames: a package named by the end of its path, one name
// two packages have (ambiguous: a usage error naming both) and a typo.
func TestWhyShortNames(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a real etcd release")
	}
	w, err := trace.Why(context.Background(), trace.WhyOptions{Symbol: "mvcc.ErrCompacted", Version: "v3.7.3"})
	if err != nil || w.Symbol != "go.etcd.io/etcd/server/v3/storage/mvcc.ErrCompacted" {
		t.Fatalf("mvcc.ErrCompacted: %v, symbol %q", err, w.Symbol)
	}
	// api/version and server/etcdserver/version: only the first declares
	// Version (api/version/version.go:29).
	if w, err := trace.Why(context.Background(), trace.WhyOptions{Symbol: "version.Version", Version: "v3.7.3"}); err != nil || w.Object.File != "api/version/version.go" {
		t.Errorf("version.Version: %v", err)
	}
	_, err = trace.Why(context.Background(), trace.WhyOptions{Symbol: "version.Nope", Version: "v3.7.3"})
	if !errors.Is(err, source.ErrUsage) || !strings.Contains(err.Error(), "go.etcd.io/etcd/api/v3/version, go.etcd.io/etcd/server/v3/etcdserver/version") {
		t.Errorf("version.Nope: %v", err)
	}
	_, err = trace.Why(context.Background(), trace.WhyOptions{Symbol: "mvc.ErrCompacted", Version: "v3.7.3"})
	if !errors.Is(err, trace.ErrNoObject) || !strings.Contains(err.Error(), "closest names are mvcc") {
		t.Errorf("mvc.ErrCompacted: %v", err)
	}
}

// TestWhyShards: why answers an object's uses in shards, each on a fork
// with its own feasibility checker, and adopts the forks' answers in the
// uses' order; the report is the one a single shard makes, whatever the
// number of shards (one per use, or more shards than uses).
func TestWhyShards(t *testing.T) {
	for _, fx := range []string{"why", "feasible", "errors", "carried", "still", "checked"} {
		t.Run(fx, func(t *testing.T) {
			dir, ar := fixtures.Unpack(t, fx)
			st, err := study.Parse(fixtures.File(ar, "study.json"))
			if err != nil {
				t.Fatal(err)
			}
			why := func(shards int) (string, int) {
				defer trace.SetUseShards(shards)()
				w, err := trace.Why(context.Background(), trace.WhyOptions{Symbol: st.Sentinel, Target: st.Tgt(), Dir: dir, Env: fixtures.Env})
				if err != nil {
					t.Fatalf("%d shards: %v", shards, err)
				}
				got, err := json.MarshalIndent(w, "", " ")
				if err != nil {
					t.Fatal(err)
				}
				return string(got), len(w.Sites)
			}
			one, n := why(1)
			if n < 3 {
				t.Fatalf("%d uses of %s, want more than the shards to split", n, st.Sentinel)
			}
			if !strings.Contains(one, `"by": "calls"`) {
				t.Fatalf("no use of %s has a root found by calls: nothing to compare", st.Sentinel)
			}
			for _, k := range []int{2, 3, n, 1000} {
				if got, _ := why(k); got != one {
					t.Errorf("%d shards and one differ (-one +%d):\n%s", k, k, cmp.Diff(one, got))
				}
			}
		})
	}
}

// checkSays reports a way whose verdict is not want or whose reason does
// not say words.
func checkSays(t *testing.T, key, got string, because *report.Because, want, words string) {
	t.Helper()
	text := ""
	if because != nil {
		text = because.Text
	}
	if got != want || !strings.Contains(text, words) {
		t.Errorf("%s: %s, because %q; want %s, saying %q", key, got, text, want, words)
	}
}

// checkOnlyIf checks that the shown way of the pair key ("file:line
// root") lists a condition among its only-ifs, and words its note holds
// (want: "text|words").
func checkOnlyIf(t *testing.T, w *report.Why, key, want string) {
	t.Helper()
	checkListed(t, w, key, want, "only-ifs", func(w report.Way) []report.Cond { return w.OnlyIf })
}

// checkListed checks that the shown way of the pair key lists, in the
// conditions of it that list gives (named what), one of text want's
// text and whose note holds its words ("text|words"), or that needs the
// error of the call CALL ("text|erred CALL"; "text|fails CALL" where the
// request may make it fail).
func checkListed(t *testing.T, w *report.Why, key, want, what string, list func(report.Way) []report.Cond) {
	t.Helper()
	text, words := cutBar(want)
	erred, isErred := strings.CutPrefix(words, "erred ")
	fails, isFails := strings.CutPrefix(words, "fails ")
	after, isAfter := strings.CutPrefix(words, "after ")
	paired := false
	shown := []report.Way{}
	for _, p := range pairsAt(w, key) {
		if p.Best < len(p.Ways) {
			shown = append(shown, p.Ways[p.Best])
		}
	}
	// A root not decided is listed with what its way needs beside that.
	f := strings.Fields(key)
	for _, s := range w.Sites {
		if fmt.Sprintf("%s:%d", s.File, s.Line) != f[0] {
			continue
		}
		for _, u := range s.Undecided {
			if u.Root == f[1] {
				shown = append(shown, report.Way{OnlyIf: u.OnlyIf, Asks: u.Asks})
			}
		}
	}
	for _, way := range shown {
		paired = true
		found := false
		for _, c := range list(way) {
			if isErred {
				found = found || c.Text == text && c.Erred == erred
				continue
			}
			if isFails {
				found = found || c.Text == text && c.Fails == fails
				continue
			}
			if isAfter {
				found = found || c.Passes == text && strings.Contains(c.After, after)
				continue
			}
			found = found || c.Text == text && strings.Contains(c.Note, words)
		}
		if !found {
			t.Errorf("%s: the shown way's %s are %+v; want %q, saying %q", key, what, list(way), text, words)
		}
	}
	if !paired {
		t.Errorf("no pair %s with a way", key)
	}
}

// cutBar cuts s at its first "|" that is not part of a "||" (text that
// holds Go's or, then words).
func cutBar(s string) (string, string) {
	for i := 0; i < len(s); i++ {
		if s[i] != '|' {
			continue
		}
		if i+1 < len(s) && s[i+1] == '|' {
			i++
			continue
		}
		return s[:i], s[i+1:]
	}
	return s, ""
}

// pairsAt are w's pairs of a use and a root, key "file:line root ...".
func pairsAt(w *report.Why, key string) []report.PairPaths {
	f := strings.Fields(key)
	var out []report.PairPaths
	for _, p := range w.Paths {
		if fmt.Sprintf("%s:%d", p.Site.File, p.Site.Line) == f[0] && p.Entry == f[1] {
			out = append(out, p)
		}
	}
	return out
}
