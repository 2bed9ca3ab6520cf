// Package errcompacted is the study of the course's evict-watcher exercise:
// two watchers on one prefix, a compaction past the behind one, one stream
// that dies with ErrCompacted, a reopen from the compacted revision, and
// step 6's `git grep` citation of "the site".
//
// The package holds everything that is particular to the exercise: the
// names it follows, the exercise's claims in its words, the rules of its
// verdicts, its prose and its lab. The engine in package trace and the
// renderers in package annotate know none of it.
package errcompacted

import (
	"time"

	"github.com/srctrace/srctrace/trace/signal"
	"github.com/srctrace/srctrace/trace/study"
	"github.com/srctrace/srctrace/trace/target"
)

func init() {
	Study.Analyze = analyze
	Study.Notes = Notes
	Study.LabNotes = LabDoc
	Study.Validate = checkClaims
	Study.Consumers = Kubernetes
	study.Register(Study)
}

// Study is the study of the evict-watcher exercise: two watchers on
// one prefix, a compaction past the behind one, one stream that dies, a
// reopen from the compacted revision, and step 6's citation of "the site".
//
// Everything here is a name or prose. Positions are found in the loaded
// release; none is written here.
var Study = &study.Study{
	Name:  "errcompacted",
	Title: "Delete the history a watcher is still standing in",
	Summary: "The exercise says that compacting past the revision a watcher still needs " +
		"ends that watcher's stream, while a watcher that is caught up is untouched. Step 6 of the exercise " +
		"cites \"the site\" with a git grep for ErrCompacted. These notes check that " +
		"citation against the code of the release loaded: which uses of the sentinel " +
		"exist, from which entry points each one is really reached, and which lab " +
		"behaviour each belongs to.",

	Lab: Lab,

	Module: "go.etcd.io/etcd/server/v3",
	Extra:  []string{"go.etcd.io/etcd/client/v3", "go.etcd.io/etcd/etcdctl/v3"},
	Target: target.Etcd,

	Sentinel: "go.etcd.io/etcd/server/v3/storage/mvcc.ErrCompacted",

	Citation: study.Citation{
		Step:    "step 6",
		Pattern: "ErrCompacted",
		Files: []string{
			"server/storage/mvcc/watchable_store.go",
			"server/storage/mvcc/kvstore.go",
		},
		// "Cite the site" of this exercise's ErrCompacted: the eviction
		// and the refused reopen, not exercise 6's read.
		About: []string{"evict", "reopen"},
	},

	Entries: []study.Entry{
		{
			Name:     "watch-open",
			Function: "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*watchServer).Watch",
			Doc:      "the gRPC Watch handler: runs for each watch stream a client opens, and starts the stream's receive and send loops",
		},
		{
			Name:     "sync-loop",
			Function: "go.etcd.io/etcd/server/v3/storage/mvcc.(*watchableStore).syncWatchersLoop",
			Doc:      "the goroutine the watchable store starts when it is created; it brings unsynced (behind) watchers up to date",
		},
		{
			Name:     "kv-range",
			Function: "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*kvServer).Range",
			Doc:      "the gRPC Range handler: a get (without --stream), including exercise 6's get --rev",
		},
		{
			Name:     "kv-range-stream",
			Function: "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*kvServer).RangeStream",
			Doc:      "the gRPC RangeStream handler: etcdctl get --stream",
			Optional: true,
		},
		{
			Name:     "kv-compact",
			Function: "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*kvServer).Compact",
			Doc:      "the gRPC Compact handler: etcdctl compaction (the exercise's `etcdctl compact`)",
		},
		{
			Name:     "apply",
			Function: "go.etcd.io/etcd/server/v3/etcdserver.(*EtcdServer).applyAll",
			Doc:      "the job the raft loop schedules for each batch of committed entries; it applies them to the store",
		},
		{
			Name:     "raft-loop",
			Function: "go.etcd.io/etcd/server/v3/etcdserver.(*EtcdServer).run",
			Doc:      "the server's long-running raft loop, started once when the server starts",
		},
		{
			Name:     "compactor-periodic",
			Function: "go.etcd.io/etcd/server/v3/etcdserver/api/v3compactor.(*Periodic).Run",
			Doc:      "the automatic compactor in periodic mode (--auto-compaction-mode=periodic)",
		},
		{
			Name:     "compactor-revision",
			Function: "go.etcd.io/etcd/server/v3/etcdserver/api/v3compactor.(*Revision).Run",
			Doc:      "the automatic compactor in revision mode (--auto-compaction-mode=revision)",
		},
		{
			Name:     "hash-kv",
			Function: "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*maintenanceServer).HashKV",
			Doc:      "the maintenance service's HashKV, which the gRPC handler (authMaintenanceServer.HashKV) calls after its permission check: etcdctl endpoint hashkv --rev",
		},
		{
			Name:     "peer-hash",
			Function: "go.etcd.io/etcd/server/v3/etcdserver.(*hashKVHandler).ServeHTTP",
			Doc:      "the peer HTTP handler that serves this member's hash of a revision to other members",
		},
		{
			Name:     "compact-hash-check",
			Function: "go.etcd.io/etcd/server/v3/etcdserver.(*EtcdServer).monitorCompactHash",
			Doc:      "the long-running goroutine that compares compaction hashes with peers",
		},
		{
			Name:     "kv-hash-check",
			Function: "go.etcd.io/etcd/server/v3/etcdserver.(*EtcdServer).monitorKVHash",
			Doc:      "the long-running goroutine of the periodic corruption check",
		},
	},

	// The hand-offs it crosses (the raft proposal and the scheduled apply
	// job, into the apply entry) are the target's: see target.Etcd.

	Behaviours: []study.Behaviour{
		{
			ID:       "evict",
			Observed: "evict",
			Setup:    []string{"kv-compact", "apply"},
			Title:    "Behind watcher evicted mid-stream",
			// etcdctl watch --prefix /evict/ [--rev=A]: no --prev-kv, so
			// the watch stream keeps no previous-value option for it.
			Unset:   []string{"go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.serverWatchStream.prevKV"},
			Lab:     "terminal 1, watching from the anchor revision, stops after the compaction; terminal 2 keeps delivering events",
			Entries: []string{"watch-open", "sync-loop"},
			Prose: "The behind watcher dies because the revisions it was still walking towards " +
				"no longer exist; the current watcher survives because it is fed from the write " +
				"path and needs no history.",
		},
		{
			ID:       "reopen",
			Observed: "reopen",
			Setup:    []string{"kv-compact", "apply"},
			Title:    "Watch opened from a compacted revision",
			Unset:    []string{"go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.serverWatchStream.prevKV"},
			Lab:      "etcdctl watch --rev=A after the compaction fails",
			Entries:  []string{"watch-open", "sync-loop"},
			Prose: "The exercise calls this a request refused at open, as opposed to a stream " +
				"torn down mid-flight, and expects the lowest revision that still opens a watch " +
				"to be the compaction revision.",
		},
		{
			ID:       "read",
			Observed: "read",
			Setup:    []string{"kv-compact", "apply"},
			Title:    "Failed historical read (exercise 6)",
			Lab:      "etcdctl get --rev=A after the compaction fails",
			Entries:  []string{"kv-range"},
			Prose: "Exercise 6's failed --rev read carries the same error name; the exercise " +
				"says it is one mechanism with the watch, on another surface.",
		},
		// Two demonstrations the lab adds after the main round's
		// compaction to C: requests the exercise does not make, answered
		// with the sentinel by the two returns of it that step 6's grep
		// finds besides its definition.
		{
			ID:       ProbeCompact,
			Observed: ProbeCompact,
			Probe:    true,
			Setup:    []string{"kv-compact", "apply"},
			Title:    probeCompactTitle,
			// Its only request is a Compaction: the raft request it
			// proposes sets no Txn and no Range.
			Unset: []string{
				"go.etcd.io/etcd/api/v3/etcdserverpb.InternalRaftRequest.Txn",
				"go.etcd.io/etcd/api/v3/etcdserverpb.InternalRaftRequest.Range",
			},
			Lab:     "etcdctl compaction C, after the compaction to C, fails",
			Entries: []string{"kv-compact", "apply"},
			Prose: "Not in the exercise: a compaction to a revision the store is already " +
				"compacted to, which the lab adds to show the compaction's own refusal run.",
		},
		{
			ID:       ProbeHashKV,
			Observed: ProbeHashKV,
			Probe:    true,
			Setup:    []string{"kv-compact", "apply"},
			Title:    probeHashKVTitle,
			Lab:      "etcdctl endpoint hashkv --rev=C-1, after the compaction to C, fails",
			Entries:  []string{"hash-kv"},
			Prose: "Not in the exercise: a hash of the store at a revision below the " +
				"compaction, which the lab adds to show the hash's refusal run.",
		},
	},

	// The exercise's own claims, in its words, each with the verdict that
	// decides it and the facts (keys of package trace) for and against.
	Claims: []study.Claim{
		{
			Where: "step 1",
			Says:  "Terminal 1 will spend a while replaying. Do not wait for it to finish — that is the point.",
			// Decided, as the claims of step 3 and of Observe are, by what
			// a compaction typed by hand finds.
			Verdict: "replay", Holds: "replay-outlasts-typing", Fails: "both-survive-by-hand",
			OnlyIf: "dies-if-early",
		},
		{
			Where:   "step 3",
			Says:    "One of them ends; one does not.",
			Verdict: "replay", Holds: "behind-dies-by-hand", Fails: "both-survive-by-hand",
			OnlyIf: "dies-if-early",
		},
		{
			Where: "step 4",
			Says:  "one is a stream that was torn down mid-flight, one is a request refused at open",
			// Both halves, decided together: the server's side of the
			// eviction and the open path of the reopen.
			Verdict: "closing", Holds: "torn-down-and-refused", Fails: "not-torn-down-or-not-refused",
			// The stream ends mid-flight all the same, by the client.
			Partly: "torn-down-by-client",
		},
		{
			Where:   "step 6",
			Says:    "Cite the site: git grep -n 'ErrCompacted' -- server/storage/mvcc/watchable_store.go server/storage/mvcc/kvstore.go",
			Verdict: "citation", Holds: "cited-lines-run", Fails: "no-cited-line-runs",
		},
		{
			Where:   "observe",
			Says:    "terminal 2 keeps delivering events after the compaction and never notices it happened.",
			Verdict: "current", Holds: "synced-not-told",
			// It is told nothing; it prints events only as keys are
			// written, and the exercise writes none.
			Partly: "synced-prints-only-writes",
		},
		{
			Where:   "observe",
			Says:    "Terminal 1 stops.",
			Verdict: "replay", Holds: "behind-dies-by-hand", Fails: "both-survive-by-hand",
			OnlyIf: "dies-if-early",
		},
		{
			Where:   "expect",
			Says:    "Step 5's boundary should be the compaction revision itself",
			Verdict: "boundary", Holds: "watch-boundary-is-C", Fails: "watch-boundary-not-C",
		},
		{
			Where:   "expect",
			Says:    "matching exercise 6's finding on --rev reads",
			Verdict: "boundary", Holds: "read-boundary-is-C", Fails: "read-boundary-not-C",
		},
		{
			Where:   "expect",
			Says:    "one mechanism, two surfaces",
			Verdict: "boundary", Holds: "one-comparison", Fails: "separate-comparisons",
			// One value, compared by separate comparisons.
			Partly: "one-value-compared",
		},
		{
			Where:   "expect",
			Says:    "The behind watcher dies because the revisions it was still walking towards no longer exist",
			Verdict: "evict", Holds: "compares-progress", Fails: "compares-start",
			// The comparison is by number: the compaction revision is set
			// before what it compacts is removed.
			Partly: "set-before-removal",
		},
		{
			Where:   "expect",
			Says:    "the current watcher survives because it needs no history: it is fed from the write path",
			Verdict: "current", Holds: "current-not-compared",
			// Only while it stays in the synced group: one moved into the
			// unsynced group is compared like a behind one.
			Partly: "current-can-be-moved",
		},
		{
			Where:   "write down",
			Says:    "Two different callers, two different consequences, one error value.",
			Verdict: "values", Holds: "one-value-at-client", Fails: "different-values",
			// One value at the client, not on the server.
			Partly: "not-one-value-on-server",
		},
	},

	Signal: &signal.Spec{
		Revision: "go.etcd.io/etcd/server/v3/storage/mvcc.store.compactMainRev",
		Current:  "go.etcd.io/etcd/server/v3/storage/mvcc.store.currentRev",
		Fields: []string{
			"go.etcd.io/etcd/server/v3/storage/mvcc.WatchResponse.CompactRevision",
			"go.etcd.io/etcd/api/v3/etcdserverpb.WatchResponse.CompactRevision",
			"go.etcd.io/etcd/client/v3.WatchResponse.CompactRevision",
		},
		Cancel:   "go.etcd.io/etcd/api/v3/etcdserverpb.WatchResponse.Canceled",
		Created:  "go.etcd.io/etcd/api/v3/etcdserverpb.WatchResponse.Created",
		Reason:   "go.etcd.io/etcd/api/v3/etcdserverpb.WatchResponse.CancelReason",
		Progress: "go.etcd.io/etcd/server/v3/storage/mvcc.watcher.minRev",
		Start:    "go.etcd.io/etcd/server/v3/storage/mvcc.watcher.startRev",
		Groups: []string{
			"go.etcd.io/etcd/server/v3/storage/mvcc.watchableStore.synced",
			"go.etcd.io/etcd/server/v3/storage/mvcc.watchableStore.unsynced",
		},
		Behind:       "go.etcd.io/etcd/server/v3/storage/mvcc.watchableStore.unsynced",
		Channel:      "go.etcd.io/etcd/server/v3/storage/mvcc.WatchResponse",
		Open:         "watch-open",
		Sync:         "sync-loop",
		Read:         "kv-range",
		Recv:         "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*serverWatchStream).recvLoop",
		Send:         "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*serverWatchStream).sendLoop",
		ClientErr:    "go.etcd.io/etcd/client/v3.(*WatchResponse).Err",
		ClientBuffer: "go.etcd.io/etcd/client/v3.watcherStream.buf",
		ClientRecv:   "go.etcd.io/etcd/client/v3.(*watchGRPCStream).run",
		ClientServe:  "go.etcd.io/etcd/client/v3.(*watchGRPCStream).serveSubstream",
		ClientOut:    "go.etcd.io/etcd/client/v3.watcherStream.outc",
		ClientResume: "go.etcd.io/etcd/client/v3.(*watchGRPCStream).nextResume",
		// etcdctl's watch would ask for created responses with this option.
		ClientCreatedOpt: "go.etcd.io/etcd/client/v3.WithCreatedNotify",
		// The client turns a server's gRPC error into its own with this.
		ClientConvert: "go.etcd.io/etcd/api/v3/v3rpc/rpctypes.Error",
		// The exercise's three sets: synced and unsynced (Groups), and the
		// watchers whose channel was full.
		Victims:    "go.etcd.io/etcd/server/v3/storage/mvcc.watchableStore.victims",
		VictimFlag: "go.etcd.io/etcd/server/v3/storage/mvcc.watcher.victim",
		Compacted:  "go.etcd.io/etcd/server/v3/storage/mvcc.watcher.compacted",
		Fragment:   "go.etcd.io/etcd/api/v3/etcdserverpb.WatchResponse.Fragment",
		Events: []string{
			"go.etcd.io/etcd/server/v3/storage/mvcc.WatchResponse.Events",
			"go.etcd.io/etcd/api/v3/etcdserverpb.WatchResponse.Events",
		},
		ClientCancel:    "go.etcd.io/etcd/api/v3/etcdserverpb.WatchCancelRequest",
		ClientClose:     "go.etcd.io/etcd/client/v3.(*watcher).closeStream",
		ClientRetry:     "go.etcd.io/etcd/client/v3.(*Client).unaryClientInterceptor",
		ClientLog:       "go.uber.org/zap.(*Logger).Warn",
		ClientSafeRetry: "go.etcd.io/etcd/client/v3.isSafeRetryImmutableRPC",
		// A compaction's removal of what it compacts, run as a scheduled job.
		Removal:  "go.etcd.io/etcd/server/v3/storage/mvcc.(*store).scheduleCompaction",
		Schedule: "go.etcd.io/etcd/pkg/v3/schedule.Scheduler.Schedule",
		Tool: signal.ToolSpec{
			Name:    "etcdctl",
			Watch:   "go.etcd.io/etcd/etcdctl/v3/ctlv3/command.watchCommandFunc",
			Get:     "go.etcd.io/etcd/etcdctl/v3/ctlv3/command.getCommandFunc",
			Exit:    "go.etcd.io/etcd/pkg/v3/cobrautl.ExitWithError",
			Failing: "go.etcd.io/etcd/client/v3.KV.Get",
			// -w json's printer, and the switch that chooses it.
			JSON:     "go.etcd.io/etcd/etcdctl/v3/ctlv3/command.printJSON",
			Printers: "go.etcd.io/etcd/etcdctl/v3/ctlv3/command.NewPrinter",
			// The commands the exercise types, in its words.
			Typed: []string{"put", "get", "endpoint status", "watch", "compact", "del"},
		},
		Pacing: []signal.Pace{
			{Name: "revisions one sync pass sends a behind watcher", Object: "go.etcd.io/etcd/server/v3/storage/mvcc.watchBatchMaxRevs", Role: "batch"},
			{Name: "period of the sync loop's ticker", Object: "sync-loop:time.NewTicker", Role: "period"},
			{Name: "buffer of a watch stream's channel", Object: "go.etcd.io/etcd/server/v3/storage/mvcc.chanBufLen"},
		},
		// The exercise's setup: an anchor and 2000 puts, so the behind
		// watcher opens 2001 revisions back; by hand, the compaction comes
		// from a third terminal, typed some 1.5 s after the watch opens, to
		// 10 revisions before the head. Steps 1 to 6 write no key: the
		// next write is the teardown's del.
		Replay: &signal.Replay{Revisions: 2001, TypedAfter: 1500 * time.Millisecond, Short: 10, Quiet: true},
		Load: []string{
			"go.etcd.io/etcd/client/v3",
			"go.etcd.io/etcd/api/v3/v3rpc/rpctypes",
			"go.etcd.io/etcd/etcdctl/v3/ctlv3/command",
			// The tool's root command, and what it sets when it starts.
			"go.etcd.io/etcd/etcdctl/v3/ctlv3",
			"go.etcd.io/etcd/pkg/v3/cobrautl",
		},
	},
}
