package errcompacted_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

// factWants are the lines each fact of the notes stands on, per release,
// found by reading etcd's source at that tag (git grep -n and following
// the code by hand), not from srctrace's output. Short file names stand
// for these paths:
var factPaths = map[string]string{
	"watchable_store.go":    "server/storage/mvcc/watchable_store.go",
	"watcher_group.go":      "server/storage/mvcc/watcher_group.go",
	"kvstore.go":            "server/storage/mvcc/kvstore.go",
	"kvstore_txn.go":        "server/storage/mvcc/kvstore_txn.go",
	"v3rpc/watch.go":        "server/etcdserver/api/v3rpc/watch.go",
	"v3rpc/key.go":          "server/etcdserver/api/v3rpc/key.go",
	"v3rpc/util.go":         "server/etcdserver/api/v3rpc/util.go",
	"client/watch.go":       "client/v3/watch.go",
	"retry_interceptor.go":  "client/v3/retry_interceptor.go",
	"retry.go":              "client/v3/retry.go",
	"rpctypes/error.go":     "api/v3rpc/rpctypes/error.go",
	"watch_command.go":      "etcdctl/ctlv3/command/watch_command.go",
	"compaction_command.go": "etcdctl/ctlv3/command/compaction_command.go",
	"ctlv3/ctl.go":          "etcdctl/ctlv3/ctl.go",
	"printer.go":            "etcdctl/ctlv3/command/printer.go",
	"printer_json.go":       "etcdctl/ctlv3/command/printer_json.go",
	"cobrautl/error.go":     "pkg/cobrautl/error.go",
	"get_command.go":        "etcdctl/ctlv3/command/get_command.go",
	"hash.go":               "server/storage/mvcc/hash.go",
}

type factWant struct {
	version string
	// facts are the lines of each fact, by verdict/key, in the order the
	// sentence cites them; a fact that must be absent maps to nil.
	facts map[string][]string
	// fragment are the lines that decide the client's `case cur.Fragment`
	// (which then does not match a compaction cancel).
	fragment []string
	// corrected is the corrected citation.
	corrected []string
	// pacing are the first lines the replay's verdict cites: the batch,
	// the period's declaration, the ticker, its reset after each pass, and
	// the condition and call of its other reset.
	pacing []string
	// tail are the eviction's way from etcdctl's first printed line on:
	// the kind and line of each step.
	tail []string
	// handOut is where the client's substream hands the cancel out on the
	// watch's channel: the step its return is drawn from, whenever
	// etcdctl prints.
	handOut string
	// dispatch is the verdict of the apply entry at the use in
	// uberApplier.dispatch's deferred function literal, with the line of
	// the condition that decides it (none for yes).
	dispatch string
}

var factWants = []factWant{
	{
		version: "v3.7.3",
		facts: map[string][]string{
			// watch(): synced := startRev > s.store.currentRev || startRev == 0 (141); s.synced.add(wa) (147); s.unsynced.add(wa) (150);
			// recvLoop passes the request's own start revision: sws.watchStream.Watch(ctx, ..., creq.StartRevision, filters...) (340).
			"sets/current-in-synced":  {"watchable_store.go:147", "watchable_store.go:141", "v3rpc/watch.go:340"},
			"sets/behind-in-unsynced": {"watchable_store.go:150"},
			// syncWatchers: wg, minRev := s.unsynced.choose(...) (363); chooseAll: if w.minRev < compactRev (255).
			"sets/decided-over-unsynced": {"watchable_store.go:363", "watcher_group.go:255"},
			// syncWatchers: s.synced.add(w) (379, 401); w.victim = true (391), s.unsynced.delete(w) (403),
			// s.addVictim(victims) (405); moveVictims: s.unsynced.add(w) (322).
			"sets/leaves-unsynced": {"watchable_store.go:379", "watchable_store.go:401", "watchable_store.go:391", "watchable_store.go:403", "watchable_store.go:405", "watchable_store.go:322"},
			// chooseAll: wg.delete(w) (259); cancelWatcher: if s.unsynced.delete(wa) (164).
			"sets/unsynced-ends": {"watcher_group.go:259", "watchable_store.go:164"},
			// notify: w.victim = true (481), s.synced.delete(w) (483); Restore: s.unsynced.add(wa) (217);
			// cancelWatcher: } else if s.synced.delete(wa) (168).
			"sets/leaves-synced": {"watchable_store.go:481", "watchable_store.go:483", "watchable_store.go:217", "watchable_store.go:168"},
			"sets/behind-dies":   {},
			// var watchBatchMaxRevs = 1000 (28); watchResyncPeriod = 100 * time.Millisecond (44).
			"replay/by-hand":              {"watcher_group.go:28", "watchable_store.go:44"},
			"replay/both-survive-by-hand": {"watcher_group.go:28", "watchable_store.go:44"},
			// The same lines: pass 2 comes 100ms (watchable_store.go:44) after pass 1, each of 1000 revisions (watcher_group.go:28).
			"replay/dies-if-early": {"watcher_group.go:28", "watchable_store.go:44"},
			// chooseAll's send, the only write of the channel response's CompactRevision (257);
			// notify's send itself: if w.send(WatchResponse{WatchID: w.id, Events: eb.evs, Revision: rev}) (477),
			// not its w.minRev = rev + 1 (489).
			"current/synced-not-told":           {"watcher_group.go:257"},
			"current/synced-prints-only-writes": {"watchable_store.go:477"},
			// The prediction in one sentence: its lines are the items' that follow it.
			"sets/prediction": {},
			// Two comparisons, chooseAll's w.minRev < compactRev (255) and rangeKeys' rev < tr.s.compactMainRev (81),
			// of one value, set by updateCompactRev: s.compactMainRev = rev (221).
			"boundary/separate-comparisons": {"watcher_group.go:255", "kvstore_txn.go:81"},
			"boundary/one-value-compared":   {"kvstore.go:221"},
			// The eviction's field (257) against rangeKeys' return of the sentinel (82).
			"values/not-one-value-on-server": {"watcher_group.go:257", "kvstore_txn.go:82"},
			// sendLoop: canceled := wresp.CompactRevision != 0 (459), no branch on it;
			// run: if len(w.substreams)+len(w.resuming) == 0 { return } (689); closeStream: wgs.cancel() (459).
			"closing/server-keeps-stream":           {"watcher_group.go:257", "v3rpc/watch.go:459", "client/watch.go:689", "client/watch.go:459"},
			"closing/not-torn-down-or-not-refused":  {"v3rpc/watch.go:361", "watcher_group.go:255"},
			"closing/torn-down-by-client":           {"watcher_group.go:257", "v3rpc/watch.go:459", "client/watch.go:689", "client/watch.go:459"},
			"retry/client-warn-line":                {"retry_interceptor.go:68"},
			"probes/returns-first:hashkv-compacted": {"hash.go:142", "hash.go:164", "kvstore.go:260"},
			// updateCompactRev: s.compactMainRev = rev (221); Compact calls s.updateCompactRev(rev) (285),
			// then return s.compact(...) (293), which runs s.fifoSched.Schedule(j) (267).
			"evict/set-before-removal": {"kvstore.go:221", "kvstore.go:285", "kvstore.go:293", "kvstore.go:267"},
			// chooseAll: w.compacted = true (258); wg.delete(w) (259).
			"cleanup/marked-compacted": {"watcher_group.go:258", "watcher_group.go:259"},
			// recvLoop: sws.watchStream.Cancel (375); Watch: sws.close() (233); cancelWatcher: } else if wa.compacted { (174).
			"cleanup/forgotten-when-stream-cancels": {"v3rpc/watch.go:375", "v3rpc/watch.go:233", "watchable_store.go:174"},
			// maxWatchersPerSync = 512 (41); choose: if len(wg.watchers) < maxWatchers (227),
			// for w := range wg.watchers (231), ret := newWatcherGroup() (230), return &ret, ret.chooseAll (238).
			"choose/at-most-per-pass": {"watchable_store.go:41", "watcher_group.go:227", "watcher_group.go:231", "watcher_group.go:230", "watcher_group.go:238"},
			// serveSubstream: if ws.buf[0].Err() != nil { return } (827); run: w.closeSubstream(ws) (686);
			// if len(w.substreams)+len(w.resuming) == 0 { return } (689); closeStream: wgs.cancel() (459);
			// if ws.id != InvalidWatchID (692), &pb.WatchCancelRequest{ (697), wc.Send(req) (703).
			"closing/client-closes": {"client/watch.go:827", "client/watch.go:686", "client/watch.go:689", "client/watch.go:459", "client/watch.go:692", "client/watch.go:697", "client/watch.go:703"},
			// recvLoop: if creq.StartRevision < 0 (270); err := sws.isWatchPermitted(creq) (287); Canceled: err != nil (361).
			"refused/refused-at-open-for-other-reasons": {"v3rpc/watch.go:270", "v3rpc/watch.go:287", "v3rpc/watch.go:361"},
			// addSubstream: w.closeErr = v3rpc.Error(errors.New(resp.CancelReason)) (469);
			// closeSubstream: go w.sendCloseSubstream(ws, &WatchResponse{... closeErr: w.closeErr}) (495);
			// Err: return v3rpc.Error(wr.closeErr) (126).
			"refused/refusal-shown-as-eviction": {"client/watch.go:469", "client/watch.go:495", "client/watch.go:126"},
			// Refused at open (270): no sentence on a negative start revision reaching the store.
			"refused/negative-start-accepted": nil,
			// unaryClientInterceptor: c.GetLogger().Warn( (68); if !isSafeRetry(c, lastErr, callOpts) (96);
			// isSafeRetryImmutableRPC: serverErr.Code() != codes.Unavailable (57).
			"retry/client-warns-once": {"retry_interceptor.go:68", "retry_interceptor.go:96", "retry.go:57"},
			// chooseAll's send (257); the client's doc comment of CompactRevision, "// CompactRevision is the
			// minimum revision the watcher may receive." (105), the line above the field (106); the decision (255).
			"minimum/cancel-carries-minimum": {"watcher_group.go:257", "client/watch.go:105", "watcher_group.go:255"},
			// printWatchCh: display.Watch(&resp) (174); printerRPC.Watch: p.p(r) (103); newJSONPrinter:
			// &printerRPC{newPrinterUnsupported("json"), printJSON} (72); printJSON calls printJSONTo, whose
			// b, err := json.Marshal(v) (91) encodes it (func printJSON is at 99);
			// WatchResponse's CompactRevision (106) and Canceled (111), no json tags; closeSubstream's
			// &WatchResponse{Header: ..., Canceled: true, closeErr: w.closeErr} for a refusal (495).
			"json/json-prints-cancel": {"watch_command.go:174", "printer.go:103", "printer_json.go:72", "printer_json.go:91", "client/watch.go:106", "client/watch.go:111", "client/watch.go:495"},
			// The exercise's `etcdctl compact`: Use: "compaction [options] <revision>" (32), run by
			// prefix matching, which ctlv3's init turns on: cobra.EnablePrefixMatching = true (ctl.go:155).
			"typed/typed-by-prefix": {"compaction_command.go:32", "ctlv3/ctl.go:155"},
		},
		// run: cur = pbresp, when pbresp.Canceled (592); sendFragments: Fragment: true (611)
		// past if uint(proto.Size(wr)) < maxRequestBytes || len(wr.Events) < 2 { return } (588);
		// chooseAll's WatchResponse{WatchID: w.id, CompactRevision: compactRev} (257); sendLoop: Events: events (463).
		fragment: []string{"client/watch.go:592", "v3rpc/watch.go:611", "v3rpc/watch.go:588", "watcher_group.go:257", "v3rpc/watch.go:463"},
		// recvLoop hands the store creq.StartRevision as it is (340); watch(): synced := startRev >
		// s.store.currentRev || startRev == 0 (141), s.synced.add(wa) (147), s.unsynced.add(wa) (150);
		// updateCompactRev: s.compactMainRev = rev (221); syncWatchers: compactionRev := s.store.compactMainRev
		// (361), wg, minRev := s.unsynced.choose(...) (363); the pacing: var watchBatchMaxRevs = 1000
		// (watcher_group.go:28), watchResyncPeriod = 100 * time.Millisecond (44); ...; watchCommandFunc:
		// cobrautl.ExitWithError(cobrautl.ExitInterrupted, fmt.Errorf("watch is canceled by the server")) (92);
		// getCommandFunc: cobrautl.ExitWithError(cobrautl.ExitError, err) (103); closeSubstream:
		// close(ws.outc) (client/watch.go:497); the retrying interceptor's c.GetLogger().Warn(
		// (retry_interceptor.go:68); the unary call's err = rpctypes.Error(err) (client.go:610).
		corrected: []string{
			"v3rpc/watch.go:340", "watchable_store.go:141", "watchable_store.go:147", "watchable_store.go:150",
			"kvstore.go:221", "watchable_store.go:361", "watchable_store.go:363",
			"watcher_group.go:28", "watchable_store.go:44",
			// what a pass does to a behind watcher's progress (374, 385) and its moves to synced (379, 401)
			"watchable_store.go:374", "watchable_store.go:385", "watchable_store.go:379", "watchable_store.go:401",
			"watcher_group.go:255", "watcher_group.go:257", "v3rpc/watch.go:459", "v3rpc/watch.go:464",
			"client/watch.go:729", "client/watch.go:825", "client/watch.go:128", "rpctypes/error.go:177", "rpctypes/error.go:32",
			"watch_command.go:169", "client/watch.go:497", "cobrautl/error.go:38", "watch_command.go:92",
			"kvstore_txn.go:81", "kvstore_txn.go:82", "kvstore.go:38", "v3rpc/key.go:55", "v3rpc/util.go:103", "v3rpc/util.go:45",
			"client/v3/retry_interceptor.go:68", "client/v3/client.go:610", "get_command.go:103",
		},
		// watchBatchMaxRevs (28); watchResyncPeriod (44); time.NewTicker(watchResyncPeriod) (227);
		// delayTicker.Reset(watchResyncPeriod) (242); if unsyncedWatchers != 0 && lastUnsyncedWatchers >
		// unsyncedWatchers (244); delayTicker.Reset(syncDuration) (246).
		pacing: []string{"watcher_group.go:28", "watchable_store.go:44", "watchable_store.go:227", "watchable_store.go:242", "watchable_store.go:244", "watchable_store.go:246"},
		// printWatchCh: fmt.Fprintf(os.Stderr, "watch was canceled (%v)\n", resp.Err()) (169); the client's
		// serveSubstream: if ws.buf[0].Err() != nil { return } (827); run: w.closeSubstream(ws) (686);
		// closeSubstream: close(ws.outc) (497), which ends printWatchCh's range loop; watchCommandFunc then
		// calls cobrautl.ExitWithError (92), which prints "Error:" (cobrautl/error.go:38) and exits (39).
		// apply.Apply calls uberApply.Apply(wrapper, shouldApplyV3) (apply.go:46) whatever shouldApplyV3
		// is; dispatch registers its deferred literal (uber_applier.go:96-97) before its own
		// if !shouldApplyV3 { return nil } (126): the literal runs on every dispatch, but
		// its comparison with the sentinel only when ar.Err is not nil, which only a case
		// after that return sets (133-207): only if shouldApplyV3.
		dispatch: "only-if server/etcdserver/apply/uber_applier.go:126",
		handOut:  "client/watch.go:825",
		tail:     []string{"tool watch_command.go:169", "close client/watch.go:827", "close client/watch.go:686", "close client/watch.go:497", "tool cobrautl/error.go:38", "exit cobrautl/error.go:39"},
	},
	{
		version: "v3.6.0",
		facts: map[string][]string{
			// recvLoop: wsrev := sws.watchStream.Rev() (308); rev := creq.StartRevision; if rev == 0 {
			// rev = wsrev + 1 (311) }; the store sees wsrev + 1, not 0: watch() (141, 135).
			"sets/current-in-synced":     {"v3rpc/watch.go:311", "v3rpc/watch.go:308", "watchable_store.go:141", "watchable_store.go:135"},
			"sets/behind-in-unsynced":    {"watchable_store.go:144"},
			"sets/decided-over-unsynced": {"watchable_store.go:359", "watcher_group.go:251"},
			"sets/leaves-unsynced":       {"watchable_store.go:375", "watchable_store.go:397", "watchable_store.go:387", "watchable_store.go:399", "watchable_store.go:401", "watchable_store.go:318"},
			"sets/unsynced-ends":         {"watcher_group.go:255", "watchable_store.go:158"},
			"sets/leaves-synced":         {"watchable_store.go:497", "watchable_store.go:499", "watchable_store.go:211", "watchable_store.go:162"},
			"sets/behind-dies":           {},
			// The period is a local here: waitDuration := 100 * time.Millisecond (221).
			"replay/by-hand":              {"watcher_group.go:28", "watchable_store.go:221"},
			"replay/both-survive-by-hand": {"watcher_group.go:28", "watchable_store.go:221"},
			"replay/dies-if-early":        {"watcher_group.go:28", "watchable_store.go:221"},
			"current/synced-not-told":     {"watcher_group.go:253"},
			// notify's send: if w.send(WatchResponse{...}) (493), not w.minRev = rev + 1 (505).
			"current/synced-prints-only-writes": {"watchable_store.go:493"},
			"sets/prediction":                   {},
			// chooseAll (251), rangeKeys (80); updateCompactRev: s.compactMainRev = rev (210).
			"boundary/separate-comparisons":         {"watcher_group.go:251", "kvstore_txn.go:80"},
			"boundary/one-value-compared":           {"kvstore.go:210"},
			"values/not-one-value-on-server":        {"watcher_group.go:253", "kvstore_txn.go:81"},
			"closing/server-keeps-stream":           {"watcher_group.go:253", "v3rpc/watch.go:432", "client/watch.go:679", "client/watch.go:452"},
			"closing/not-torn-down-or-not-refused":  {"v3rpc/watch.go:334", "watcher_group.go:251"},
			"closing/torn-down-by-client":           {"watcher_group.go:253", "v3rpc/watch.go:432", "client/watch.go:679", "client/watch.go:452"},
			"retry/client-warn-line":                {"retry_interceptor.go:65"},
			"probes/returns-first:hashkv-compacted": {"hash.go:142", "hash.go:164", "kvstore.go:249"},
			"evict/set-before-removal":              {"kvstore.go:210", "kvstore.go:274", "kvstore.go:282", "kvstore.go:256"},
			"cleanup/marked-compacted":              {"watcher_group.go:254", "watcher_group.go:255"},
			"cleanup/forgotten-when-stream-cancels": {"v3rpc/watch.go:348", "v3rpc/watch.go:226", "watchable_store.go:165"},
			"choose/at-most-per-pass":               {"watchable_store.go:39", "watcher_group.go:223", "watcher_group.go:227", "watcher_group.go:226", "watcher_group.go:234"},
			"closing/client-closes":                 {"client/watch.go:814", "client/watch.go:676", "client/watch.go:679", "client/watch.go:452", "client/watch.go:682", "client/watch.go:687", "client/watch.go:693"},
			// No refusal of a negative start revision before v3.6.6: only the
			// permission check (err := sws.isWatchPermitted(creq), 273) and the
			// create response (Canceled: err != nil, 334).
			"refused/refused-at-open-for-other-reasons": {"v3rpc/watch.go:273", "v3rpc/watch.go:334"},
			"refused/refusal-shown-as-eviction":         nil,
			// No refusal: recvLoop's rev := creq.StartRevision (309), set anew only if rev == 0 (310);
			// watch(): synced := startRev > s.store.currentRev || startRev == 0 (135); chooseAll:
			// if w.minRev < compactRev (251); sendLoop marks a cancel only for
			// canceled := wresp.CompactRevision != 0 (432).
			// Before any compaction the field is the store's compactMainRev: -1 (kvstore.go:104).
			"refused/negative-start-accepted": {"v3rpc/watch.go:309", "v3rpc/watch.go:310", "watchable_store.go:135", "watcher_group.go:251", "v3rpc/watch.go:432", "kvstore.go:104"},
			"retry/client-warns-once":         {"retry_interceptor.go:65", "retry_interceptor.go:92", "retry.go:57"},
			// The doc comment (95) above the field (96).
			"minimum/cancel-carries-minimum": {"watcher_group.go:253", "client/watch.go:95", "watcher_group.go:251"},
			// display.Watch(resp) (173); printerRPC.Watch: p.p(&r) (103); newJSONPrinter's printerRPC (35);
			// func printJSON (51): b, err := json.Marshal(v) (52). No refusal at open to print.
			"json/json-prints-cancel": {"watch_command.go:173", "printer.go:103", "printer_json.go:35", "printer_json.go:52", "client/watch.go:96", "client/watch.go:101"},
			// compaction_command.go:32 Use: "compaction [options] <revision>"; ctl.go:125 in init.
			"typed/typed-by-prefix": {"compaction_command.go:32", "ctlv3/ctl.go:125"},
		},
		// ow.Fragment = true (558) past the same return (552); the send loop's Events: events (436).
		fragment: []string{"client/watch.go:582", "v3rpc/watch.go:558", "v3rpc/watch.go:552", "watcher_group.go:253", "v3rpc/watch.go:436"},
		// recvLoop: wsrev := sws.watchStream.Rev() (308), if rev == 0 { (310) rev = wsrev + 1 (311);
		// watch(): synced := ... (135), s.synced.add(wa) (141), s.unsynced.add(wa) (144); the pacing:
		// watchBatchMaxRevs (watcher_group.go:28), waitDuration := 100 * time.Millisecond (221).
		corrected: []string{
			"v3rpc/watch.go:308", "v3rpc/watch.go:310", "v3rpc/watch.go:311",
			"watchable_store.go:135", "watchable_store.go:141", "watchable_store.go:144",
			"kvstore.go:210", "watchable_store.go:357", "watchable_store.go:359",
			"watcher_group.go:28", "watchable_store.go:221",
			// w.minRev = curRev + 1 (370), w.minRev = eb.moreRev (381); s.synced.add(w) (375, 397)
			"watchable_store.go:370", "watchable_store.go:381", "watchable_store.go:375", "watchable_store.go:397",
			"watcher_group.go:251", "watcher_group.go:253", "v3rpc/watch.go:432", "v3rpc/watch.go:437",
			"client/watch.go:723", "client/watch.go:813", "client/watch.go:128", "rpctypes/error.go:177", "rpctypes/error.go:32",
			"watch_command.go:168", "client/watch.go:490", "cobrautl/error.go:38", "watch_command.go:91",
			"kvstore_txn.go:80", "kvstore_txn.go:81", "kvstore.go:37", "v3rpc/key.go:48", "v3rpc/util.go:102", "v3rpc/util.go:45",
			"client/v3/retry_interceptor.go:65", "client/v3/client.go:607", "get_command.go:87",
		},
		// watchBatchMaxRevs (28); waitDuration := 100 * time.Millisecond (221); the ticker (222);
		// delayTicker.Reset(waitDuration) (238); the condition (240); delayTicker.Reset(syncDuration) (242).
		pacing: []string{"watcher_group.go:28", "watchable_store.go:221", "watchable_store.go:222", "watchable_store.go:238", "watchable_store.go:240", "watchable_store.go:242"},
		// The same at v3.6.0: printWatchCh (168); serveSubstream (814); run (676); closeSubstream (490).
		// applyInternalRaftRequest: if !shouldApplyV3 { return nil } (server.go:2013) before
		// s.uberApply.Apply(r) (2016): dispatch, and its deferred literal (uber_applier.go:127-128),
		// run only if shouldApplyV3. Different code, not an artefact of the analysis.
		dispatch: "only-if server/etcdserver/server.go:2013",
		handOut:  "client/watch.go:813",
		tail:     []string{"tool watch_command.go:168", "close client/watch.go:814", "close client/watch.go:676", "close client/watch.go:490", "tool cobrautl/error.go:38", "exit cobrautl/error.go:39"},
	},
}

func long(s string) string {
	f, line, _ := strings.Cut(s, ":")
	if p, ok := factPaths[f]; ok {
		return p + ":" + line
	}
	return s
}

func longs(ss []string) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, long(s))
	}
	return out
}

func locs(ls []report.Loc) []string {
	out := []string{}
	for _, l := range ls {
		out = append(out, fmt.Sprintf("%s:%d", l.File, l.Line))
	}
	return out
}

// TestFacts: each fact the notes add stands on the lines reading etcd
// gives, at v3.7.3 and at v3.6.0 (where the refusal of a negative start
// revision does not exist yet); the client's case over the fragment flag is
// decided; the claim that the revisions no longer exist holds in part; the
// corrected citation names the declarations and the read's lines.
func TestFacts(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	for _, w := range factWants {
		t.Run(w.version, func(t *testing.T) {
			res, err := trace.Run(context.Background(), trace.Options{Study: errcompacted.Study, Version: w.version})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := res.Report()
			if err != nil {
				t.Fatal(err)
			}
			s := rep.Signal
			got := map[string]report.Fact{}
			for _, v := range s.Verdicts {
				for _, f := range v.Facts {
					got[v.ID+"/"+f.Key] = f
				}
			}
			for key, want := range w.facts {
				f, ok := got[key]
				if want == nil {
					if ok {
						t.Errorf("%s: want no such fact, got %q", key, f.Text)
					}
					continue
				}
				if !ok {
					t.Errorf("%s: no such fact", key)
					continue
				}
				if diff := cmp.Diff(longs(want), locs(f.Lines)); diff != "" {
					t.Errorf("%s: lines (-want +got):\n%s\n%s", key, diff, f.Text)
				}
			}
			var frag *report.Case
			for i, c := range s.Receive.Cases {
				if strings.Contains(c.Text, "Fragment") {
					frag = &s.Receive.Cases[i]
				}
			}
			if frag == nil || frag.Takes != "excludes" {
				t.Fatalf("the fragment case: %+v", frag)
			}
			if diff := cmp.Diff(longs(w.fragment), locs(frag.Because)); diff != "" {
				t.Errorf("the fragment case's lines (-want +got):\n%s", diff)
			}
			outcomes := map[string]string{}
			for _, c := range s.Claims {
				outcomes[c.HoldsIf] = c.Outcome
				if (c.Outcome == report.OutcomePartly || c.Outcome == report.OutcomeOnlyIf) && (c.Part == nil || len(c.Part.Lines) == 0) {
					t.Errorf("claim %q holds in part or only if, with no part: %+v", c.Says, c.Part)
				}
			}
			// The decision compares numbers: the compaction revision is set
			// before the removal is scheduled. Neither half of step 4 holds as
			// it says, though the stream does end mid-flight, by the client;
			// by hand, neither watcher ends, though terminal 1 does if the
			// compaction comes before the replay's second pass (only if);
			// terminal 2 is told nothing and
			// prints nothing; one value at the client, not on the server.
			want := map[string]string{
				"compares-progress": report.OutcomePartly,
				// Survives while it stays synced: moveVictims (a watcher
				// whose channel was full, watchable_store.go:322) and Restore
				// (:217) move it into unsynced, where a compaction past its
				// progress cancels it.
				"current-not-compared":   report.OutcomePartly,
				"torn-down-and-refused":  report.OutcomePartly, // the client ends the stream
				"replay-outlasts-typing": report.OutcomeOnlyIf,
				"behind-dies-by-hand":    report.OutcomeOnlyIf,
				"synced-not-told":        report.OutcomePartly,
				"one-value-at-client":    report.OutcomePartly,
				// One value, compared by two separate comparisons.
				"one-comparison": report.OutcomePartly,
			}
			for k, o := range want {
				if outcomes[k] != o {
					t.Errorf("the claim that holds if %s: %q, want %q", k, outcomes[k], o)
				}
			}
			// The current watcher's part that does not hold names the
			// client's resumes too (its receive loop's w.nextResume(): on
			// a created response, and on the stream's error): a watch the
			// client opens again is a new watcher, which the open puts in
			// unsynced unless its start revision is 0 or ahead.
			for _, c := range s.Claims {
				if c.HoldsIf != "current-not-compared" || c.Part == nil {
					continue
				}
				clientLines := 0
				for _, l := range c.Part.Lines {
					if strings.HasPrefix(l.File, "client/v3/") {
						clientLines++
					}
				}
				if !strings.Contains(c.Part.Text, "create request once more") || !strings.Contains(c.Part.Text, "w.nextResume()") || clientLines != 2 {
					t.Errorf("the current watcher's part that does not hold leaves out the client's resumes: %q, lines %+v", c.Part.Text, c.Part.Lines)
				}
			}
			// The replay's pacing: the period's declaration, the ticker,
			// its resets and the condition of the sooner one.
			var replay *report.Verdict
			for i := range s.Verdicts {
				if s.Verdicts[i].ID == "replay" {
					replay = &s.Verdicts[i]
				}
			}
			if replay == nil || len(replay.Lines) < len(w.pacing) {
				t.Fatalf("the replay's verdict: %+v", replay)
			}
			if diff := cmp.Diff(longs(w.pacing), locs(replay.Lines[:len(w.pacing)])); diff != "" {
				t.Errorf("the replay's pacing (-want +got):\n%s\n%s", diff, replay.Sentence)
			}
			if diff := cmp.Diff(longs(w.corrected), locs(s.Corrected)); diff != "" {
				t.Errorf("the corrected citation (-want +got):\n%s", diff)
			}
			// The apply entry's verdict at dispatch's deferred literal.
			dispatch := ""
			for _, p := range rep.Paths {
				if p.Entry == "apply" && strings.HasSuffix(p.Site.File, "apply/uber_applier.go") {
					dispatch = p.Feasible
					if p.Because != nil {
						dispatch += fmt.Sprintf(" %s:%d", p.Because.File, p.Because.Line)
					}
				}
			}
			if dispatch != w.dispatch {
				t.Errorf("apply at uberApplier.dispatch's deferred literal: %q, want %q", dispatch, w.dispatch)
			}
			// The client closes the watch's channel before etcdctl prints
			// its last line: the loop over it ends then.
			var tail []string
			for _, c := range s.Chains {
				if c.Behaviour != "evict" {
					continue
				}
				for _, st := range c.Steps {
					if len(tail) > 0 || st.Kind == "tool" {
						tail = append(tail, st.Kind+" "+st.File+":"+strconv.Itoa(st.Line))
					}
				}
			}
			var want2 []string
			for _, x := range w.tail {
				k, l, _ := strings.Cut(x, " ")
				want2 = append(want2, k+" "+long(l))
			}
			if diff := cmp.Diff(want2, tail); diff != "" {
				t.Errorf("the eviction's way from etcdctl's first line (-want +got):\n%s", diff)
			}
			// The substream returns right after it hands the cancel out,
			// not after etcdctl prints: its step comes from the hand-out.
			for _, c := range s.Chains {
				if c.Behaviour != "evict" {
					continue
				}
				var from []string
				for _, st := range c.Steps {
					if st.Kind == "close" && strings.HasSuffix(want2[1], st.File+":"+strconv.Itoa(st.Line)) {
						for _, f := range st.From {
							from = append(from, c.Steps[f.Step].File+":"+strconv.Itoa(c.Steps[f.Step].Line))
						}
					}
				}
				if diff := cmp.Diff([]string{long(w.handOut)}, from); diff != "" {
					t.Errorf("the substream's return is drawn from (-want +got):\n%s", diff)
				}
			}
		})
	}
}
