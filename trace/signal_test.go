package trace_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

// signalWant holds what reading etcd by hand gives, per release (git grep
// and following the code), for the layer-by-layer analysis.
type signalWant struct {
	version   string
	decisions []string // file:line op
	boundary  []string // comparisons against the compaction revision that guard something else
	mark      [2]string
	refusal   string // a create response refused with the compaction's text; "" if none
	gos       []string
	behindAdd string
	// behindRead is where the sync loop takes the behind group's watchers.
	behindRead string
	// syncGo starts the sync loop.
	syncGo    string
	sendCarry string
	recv      string
	client    [2]string // case, return
	toolWatch []string
	toolGet   []string
	mapKey    string
	called    string
	errorUse  string
	pacing    []string
	// revWrite and revRead are the compaction's write of the compaction
	// revision and the sync loop's read of it, each "file:line lock".
	revWrite, revRead string
	lookup            string // the lookup of the read's translation map
}

const compacted = "etcdserver: mvcc: required revision has been compacted"

var signalWants = []signalWant{
	{
		version: "v3.7.3",
		decisions: []string{
			"server/etcdserver/txn/range.go:180 <",
			"server/storage/mvcc/kvstore.go:186 <",
			"server/storage/mvcc/kvstore.go:209 <=",
			"server/storage/mvcc/kvstore_txn.go:81 <",
			"server/storage/mvcc/watcher_group.go:255 <",
		},
		boundary:   []string{"server/storage/mvcc/watchable_store.go:369"},
		mark:       [2]string{"server/etcdserver/api/v3rpc/watch.go:459", "server/etcdserver/api/v3rpc/watch.go:465"},
		refusal:    "server/etcdserver/api/v3rpc/watch.go:271",
		gos:        []string{"server/etcdserver/api/v3rpc/watch.go:189", "server/etcdserver/api/v3rpc/watch.go:199", "server/storage/mvcc/watchable_store.go:87"},
		behindAdd:  "server/storage/mvcc/watchable_store.go:150",
		behindRead: "server/storage/mvcc/watchable_store.go:363",
		syncGo:     "server/storage/mvcc/watchable_store.go:87",
		sendCarry:  "server/storage/mvcc/watcher_group.go:257",
		recv:       "server/etcdserver/api/v3rpc/watch.go:435",
		client:     [2]string{"client/v3/watch.go:127", "client/v3/watch.go:128"},
		toolWatch:  []string{"watch was canceled (" + compacted + ")", "Error: watch is canceled by the server"},
		toolGet:    []string{"Error: " + compacted},
		mapKey:     "server/etcdserver/api/v3rpc/util.go:45",
		called:     "server/etcdserver/api/v3rpc/key.go:55",
		errorUse:   "server/etcdserver/api/v3rpc/watch.go:452",
		pacing:     []string{"1000 server/storage/mvcc/watcher_group.go:28", "100ms server/storage/mvcc/watchable_store.go:227", "128 server/storage/mvcc/watchable_store.go:38"},
		revWrite:   "server/storage/mvcc/kvstore.go:221 s.revMu.Lock()",
		revRead:    "server/storage/mvcc/watchable_store.go:361 s.store.revMu.RLock()",
		lookup:     "server/etcdserver/api/v3rpc/util.go:103",
	},
	{
		version: "v3.6.0",
		decisions: []string{
			"server/etcdserver/txn/txn.go:438 <",
			"server/storage/mvcc/kvstore.go:175 <",
			"server/storage/mvcc/kvstore.go:198 <=",
			"server/storage/mvcc/kvstore_txn.go:80 <",
			"server/storage/mvcc/watcher_group.go:251 <",
		},
		boundary:   []string{"server/storage/mvcc/watchable_store.go:365"},
		mark:       [2]string{"server/etcdserver/api/v3rpc/watch.go:432", "server/etcdserver/api/v3rpc/watch.go:438"},
		gos:        []string{"server/etcdserver/api/v3rpc/watch.go:182", "server/etcdserver/api/v3rpc/watch.go:192", "server/storage/mvcc/watchable_store.go:82"},
		behindAdd:  "server/storage/mvcc/watchable_store.go:144",
		behindRead: "server/storage/mvcc/watchable_store.go:359",
		syncGo:     "server/storage/mvcc/watchable_store.go:82",
		sendCarry:  "server/storage/mvcc/watcher_group.go:253",
		recv:       "server/etcdserver/api/v3rpc/watch.go:408",
		client:     [2]string{"client/v3/watch.go:127", "client/v3/watch.go:128"},
		toolWatch:  []string{"watch was canceled (" + compacted + ")", "Error: watch is canceled by the server"},
		toolGet:    []string{"Error: " + compacted},
		mapKey:     "server/etcdserver/api/v3rpc/util.go:45",
		called:     "server/etcdserver/api/v3rpc/key.go:48",
		errorUse:   "server/etcdserver/api/v3rpc/watch.go:425",
		pacing:     []string{"1000 server/storage/mvcc/watcher_group.go:28", "100ms server/storage/mvcc/watchable_store.go:222", "128 server/storage/mvcc/watchable_store.go:36"},
		revWrite:   "server/storage/mvcc/kvstore.go:210 s.revMu.Lock()",
		revRead:    "server/storage/mvcc/watchable_store.go:357 s.store.revMu.RLock()",
		lookup:     "server/etcdserver/api/v3rpc/util.go:102",
	},
}

func at(l report.Loc) string { return fmt.Sprintf("%s:%d", l.File, l.Line) }

func TestSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	for _, w := range signalWants {
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
			if s == nil {
				t.Fatal("no signal analysis")
			}
			var dec []string
			kinds := map[string]string{}
			for _, c := range s.Comparisons {
				kinds[at(c.Loc)] = c.Kind
				if c.Kind == "decision" {
					dec = append(dec, at(c.Loc)+" "+c.Op)
				}
			}
			if diff := cmp.Diff(w.decisions, dec); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
			for _, b := range w.boundary {
				if kinds[b] != "boundary" {
					t.Errorf("%s: kind %q, want boundary", b, kinds[b])
				}
			}
			for _, c := range s.Comparisons {
				if at(c.Loc) == w.decisions[len(w.decisions)-1][:strings.Index(w.decisions[len(w.decisions)-1], " ")] {
					if !strings.Contains(c.Consequence, "CompactRevision") || c.Revision != "w.minRev" || c.Passing != "revision C passes, C-1 fails" {
						t.Errorf("the watch decision: %+v", c)
					}
				}
			}
			if len(s.Marks) != 1 || at(s.Marks[0].Read) != w.mark[0] || at(s.Marks[0].Write) != w.mark[1] || !s.Marks[0].NonZero {
				t.Errorf("marks = %+v, want %v", s.Marks, w.mark)
			}
			var refused []string
			for _, x := range s.Refusals {
				if x.Text == compacted {
					refused = append(refused, at(x.Loc))
				}
			}
			if (w.refusal == "" && len(refused) != 0) || (w.refusal != "" && (len(refused) != 1 || refused[0] != w.refusal)) {
				t.Errorf("refusals with the compaction's text = %v, want %q", refused, w.refusal)
			}
			var gos []string
			found := map[string]string{}
			for _, h := range s.Handoffs {
				if h.Kind == "go" {
					gos = append(gos, at(h.Loc))
				}
				found[h.Kind+" "+at(h.Loc)] = h.Detail
			}
			if diff := cmp.Diff(w.gos, gos); diff != "" {
				t.Errorf("go statements (-want +got):\n%s", diff)
			}
			if d := found["group "+w.behindAdd]; !strings.HasPrefix(d, "unsynced.add") {
				t.Errorf("behind add at %s: %q", w.behindAdd, d)
			}
			if d := found["send "+w.sendCarry]; !strings.Contains(d, "carries the signal") {
				t.Errorf("send at %s: %q", w.sendCarry, d)
			}
			if _, ok := found["receive "+w.recv]; !ok {
				t.Errorf("no receive at %s", w.recv)
			}
			c := s.Client
			if c == nil || at(c.Case) != w.client[0] || at(c.Return) != w.client[1] ||
				c.Error.Object != "go.etcd.io/etcd/api/v3/v3rpc/rpctypes.ErrCompacted" || c.Error.Text != compacted || c.Error.Code != "OutOfRange" {
				t.Errorf("client = %+v", c)
			}
			tl := s.Tool
			if tl == nil || tl.Watch == nil || tl.Get == nil {
				t.Fatalf("tool = %+v", tl)
			}
			lines := func(ls []report.ToolLine) []string {
				var out []string
				for _, l := range ls {
					out = append(out, l.Text)
				}
				return out
			}
			if diff := cmp.Diff(w.toolWatch, lines(tl.Watch.Stderr)); diff != "" || tl.Watch.Exit != 5 || tl.Watch.ExitBy != "go.etcd.io/etcd/pkg/v3/cobrautl.ExitInterrupted" {
				t.Errorf("etcdctl watch: exit %d (%s), stderr (-want +got):\n%s", tl.Watch.Exit, tl.Watch.ExitBy, diff)
			}
			if diff := cmp.Diff(w.toolGet, lines(tl.Get.Stderr)); diff != "" || tl.Get.Exit != 1 || tl.Get.ExitBy != "go.etcd.io/etcd/pkg/v3/cobrautl.ExitError" {
				t.Errorf("etcdctl get: exit %d (%s), stderr (-want +got):\n%s", tl.Get.Exit, tl.Get.ExitBy, diff)
			}
			if rp := s.Read; rp == nil || at(rp.Key) != w.mapKey || len(rp.Called) == 0 || at(rp.Called[0]) != w.called || rp.Wire.Code != "OutOfRange" || rp.Wire.Text != compacted {
				t.Errorf("read map = %+v", s.Read)
			}
			if len(s.ErrorUses) == 0 || at(s.ErrorUses[0].Call) != w.errorUse || !s.ErrorUses[0].Dropped {
				t.Errorf("error uses = %+v, want the previous-value read at %s, dropped", s.ErrorUses, w.errorUse)
			}
			var pacing []string
			for _, p := range s.Pacing {
				pacing = append(pacing, p.Value+" "+at(p.Loc))
			}
			if diff := cmp.Diff(w.pacing, pacing); diff != "" {
				t.Errorf("pacing (-want +got):\n%s", diff)
			}
			var writes, reads []string
			for _, a := range s.RevisionAccesses {
				if a.Lock == nil {
					continue
				}
				x := at(a.Loc) + " " + a.Lock.Text
				if a.Write {
					writes = append(writes, x)
				} else {
					reads = append(reads, x)
				}
			}
			if !slices.Contains(writes, w.revWrite) || !slices.Contains(reads, w.revRead) {
				t.Errorf("accesses of the compaction revision under a lock: writes %q, reads %q; want %q and %q", writes, reads, w.revWrite, w.revRead)
			}
			var chain []string
			for _, c := range s.Chains {
				for _, st := range c.Steps {
					chain = append(chain, at(st.Loc))
				}
			}
			for _, want := range []string{strings.Fields(w.revWrite)[0], strings.Fields(w.revRead)[0], w.lookup} {
				if !slices.Contains(chain, want) {
					t.Errorf("no chain has a step at %s", want)
				}
			}
			verdicts := map[string]string{}
			for _, v := range s.Verdicts {
				verdicts[v.ID] = v.Sentence
			}
			if !strings.HasPrefix(verdicts["reopen"], "Accepted, then canceled") {
				t.Errorf("reopen verdict: %q", verdicts["reopen"])
			}
			if got := strings.Contains(verdicts["refused"], "The refusal by `creq.StartRevision < 0` has the compaction's text"); got != (w.refusal != "") {
				t.Errorf("refused verdict names a refusal with the compaction's text = %v: %q", got, verdicts["refused"])
			}
			if !strings.Contains(verdicts["evict"], "progress") {
				t.Errorf("evict verdict: %q", verdicts["evict"])
			}
			for _, v := range []string{"evict", "current", "replay", "reopen", "boundary", "read", "citation", "sets", "cleanup", "choose", "closing", "refused", "retry", "minimum", "json"} {
				if verdicts[v] == "" {
					t.Errorf("no %s verdict", v)
				}
			}
			// The exercise's claims, as reading etcd decides them for both
			// releases: the open path has no comparison with the compaction
			// revision (accepted, then canceled); watch and read each pass at
			// C by a comparison of their own; the sync loop compares the
			// watcher's progress; step 6's lines run in neither behaviour.
			claims := map[string]string{}
			for _, c := range s.Claims {
				got := "undecided"
				if c.Holds != nil {
					got = fmt.Sprint(*c.Holds)
				}
				claims[c.HoldsIf] = got
				if c.Holds != nil && (c.Fact == nil || len(c.Fact.Lines) == 0) {
					t.Errorf("claim %q decided without lines: %+v", c.Says, c.Fact)
				}
			}
			wantClaims := map[string]string{
				// Step 4: neither half holds; the stream is not torn
				// down, the reopen is not refused at open.
				"torn-down-and-refused": "false",
				// Step 3 and Observe: by hand, neither watcher ends.
				"behind-dies-by-hand": "false",
				// Observe: terminal 2 is told nothing (but prints
				// nothing either: it holds in part).
				"synced-not-told":     "true",
				"watch-boundary-is-C": "true",
				"read-boundary-is-C":  "true",
				"one-comparison":      "false",
				// Both behaviours end in one error value at the client: the
				// server's two forms (a compaction revision, a cancel reason)
				// are turned into v3rpc.ErrCompacted's text.
				"one-value-at-client":  "true",
				"compares-progress":    "true",
				"current-not-compared": "true",
				"cited-lines-run":      "false",
				// 2001 revisions at 1000 a pass, a pass every 100ms: over
				// in about 300ms, long before a compaction typed 1.5s later.
				"replay-outlasts-typing": "false",
			}
			if diff := cmp.Diff(wantClaims, claims); diff != "" {
				t.Errorf("claims (-want +got):\n%s", diff)
			}
			if len(s.Chains) != 3 {
				t.Errorf("%d chains, want one per behaviour", len(s.Chains))
			}
			for _, ch := range s.Chains {
				handoffs := map[string]bool{}
				for i, st := range ch.Steps {
					if st.File == "" || st.Line == 0 {
						t.Errorf("%s: step without a position: %+v", ch.Behaviour, st)
					}
					if at(st.Loc) == w.syncGo && len(st.From) != 0 {
						t.Errorf("%s: the sync loop's start has arrows into it: %+v", ch.Behaviour, st.From)
					}
					for _, l := range st.From {
						if l.Step < 0 || l.Step >= i {
							t.Errorf("%s: step %d has an arrow from step %d", ch.Behaviour, i, l.Step)
						} else if l.Handoff {
							handoffs[at(ch.Steps[l.Step].Loc)+" -> "+at(st.Loc)] = true
						}
					}
				}
				if ch.Behaviour == "read" {
					if len(handoffs) != 0 {
						t.Errorf("read: hand-offs %v, want calls only", handoffs)
					}
					continue
				}
				// The watcher group and the channel join the open path, the
				// sync loop and the send loop.
				for _, want := range []string{w.behindAdd + " -> " + w.behindRead, w.sendCarry + " -> " + w.recv} {
					if !handoffs[want] {
						t.Errorf("%s: no hand-off %s in %v", ch.Behaviour, want, handoffs)
					}
				}
			}
		})
	}
}
