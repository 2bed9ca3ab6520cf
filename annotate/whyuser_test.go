package annotate

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/srctrace/srctrace/trace/report"
)

// TestCommandTableGroupsByExitPlace: commands that print the same
// through one method share a row only when they exit from the same
// place, which the row cites.
func TestCommandTableGroupsByExitPlace(t *testing.T) {
	one := 1
	cmd := func(name, file string, line int) report.UserCommand {
		return report.UserCommand{Command: name, Method: "/kv/Txn", Evaluated: true, Stderr: []string{"Error: boom"},
			ExitCode: &one, ExitConstant: "cobrautl.ExitError", At: &report.Loc{File: file, Line: line}}
	}
	tbl := commandTable([]report.UserCommand{
		cmd("elect", "elect_command.go", 64),
		cmd("lock", "lock_command.go", 54),
		cmd("txn", "txn_command.go", 86),
		cmd("txn2", "txn_command.go", 86),
	})
	var got [][2]string
	for _, r := range tbl.Rows {
		got = append(got, [2]string{plain(r[0].Text), plain(r[3].Text)})
	}
	want := [][2]string{
		{"elect", "1 (cobrautl.ExitError), elect_command.go:64"},
		{"lock", "1 (cobrautl.ExitError), lock_command.go:54"},
		{"txn, txn2", "1 (cobrautl.ExitError), txn_command.go:86"},
	}
	if len(got) != len(want) {
		t.Fatalf("rows %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// plain is a text's words, spans and citations as they read.
func plain(tx report.Text) string {
	s := ""
	for _, p := range tx {
		switch {
		case p.Loc != nil && p.Text == "":
			s += p.Loc.File + ":" + strconv.Itoa(p.Loc.Line)
		default:
			s += p.Text
		}
	}
	return s
}

// TestNoWayCell: a use that no root reaches by a way that can run, but
// that a root reaches by ways that cannot, says which root, how it
// reaches the use, and what refutes it, with the line; one with neither
// keeps the general sentence.
func TestNoWayCell(t *testing.T) {
	w := &report.Why{Symbol: "mvcc.ErrX", Object: report.Object{Name: "mvcc.ErrX", Kind: "var", File: "kv.go", Line: 5},
		Sites: []report.Site{
			{File: "kv.go", Line: 59, Function: "example.com/mvcc.Defrag", Kind: "return",
				NoWay: &report.NoWay{Root: "server.(*Server).applyLoop", By: "hand-off", HandOff: "scheduled job",
					Because: &report.Because{Text: "`r.Defrag != nil` is false on this path", File: "apply.go", Line: 31}}},
			{File: "kv.go", Line: 70, Function: "example.com/mvcc.Other", Kind: "return"},
		}}
	d := WhyDoc(w)
	var cells []string
	for _, sec := range d.Sections {
		for _, b := range sec.Blocks {
			if b.Table == nil || len(b.Table.Head) != 4 {
				continue
			}
			for _, r := range b.Table.Rows {
				cells = append(cells, plain(r[3].Text))
			}
		}
	}
	want := []string{
		"no root reaches it by a way that can run: the nearest that reaches it, server.(*Server).applyLoop (across the scheduled job), has no way that can: r.Defrag != nil is false on this path (apply.go:31)",
		"no root found: ",
	}
	if len(cells) != 2 || cells[0] != want[0] || !strings.HasPrefix(cells[1], want[1]) {
		t.Errorf("cells %q, want %q", cells, want)
	}
}

// TestUndecidedRoots: a root whose way to a use the analysis could not
// decide is named in the use's cell after the roots that reach it, with
// how, and in the use's section with why not.
func TestUndecidedRoots(t *testing.T) {
	w := &report.Why{Symbol: "mvcc.ErrX", HandOffs: []report.Boundary{{Name: "raft proposal", Message: "pb.InternalRaftRequest"}}, Object: report.Object{Name: "mvcc.ErrX", Kind: "var", File: "kv.go", Line: 5},
		Sites: []report.Site{
			{File: "kv.go", Line: 76, Function: "example.com/mvcc.rangeKeys", Kind: "return",
				Undecided: []report.NoWay{{Root: "v3rpc.(*kvServer).Txn", By: "calls",
					Because: &report.Because{Text: "not decided: the way can run only if `currentRev` is below 0", File: "kv.go", Line: 377},
					Hops:    []report.Hop{{Function: "example.com/mvcc.rangeKeys", File: "kv.go", Line: 70}}},
					{Root: "v3compactor.(*Periodic).Run$1", By: "hand-off", HandOff: "raft proposal", Message: "Compaction",
						Because: &report.Because{Text: "not decided: the way can run only if `currentRev` is below 0 (kv.go:377)", File: "kv.go", Line: 377}}}},
		}}
	d := WhyDoc(w)
	var cells, paras, items []string
	var walk func(secs []report.Section)
	walk = func(secs []report.Section) {
		for _, sec := range secs {
			for _, b := range sec.Blocks {
				if b.Table != nil && len(b.Table.Head) == 4 {
					for _, r := range b.Table.Rows {
						cells = append(cells, plain(r[3].Text))
					}
				}
				if b.Para != nil {
					paras = append(paras, plain(b.Para))
				}
				if b.List != nil {
					for _, it := range b.List.Items {
						items = append(items, plain(it))
					}
				}
			}
			walk(sec.Sections)
		}
	}
	walk(d.Sections)
	if want := "v3rpc.(*kvServer).Txn (by calls, not decided); v3compactor.(*Periodic).Run$1 (across the raft proposal of a Compaction request, not decided)"; len(cells) != 1 || cells[0] != want {
		t.Errorf("cells %q, want %q", cells, want)
	}
	// The way's steps follow its reason.
	if want := "mvcc.rangeKeys, called at kv.go:70"; !slices.Contains(items, want) {
		t.Errorf("list items %q, want one %q", items, want)
	}
	// The line is cited after the reason, unless the reason names it.
	for _, want := range []string{
		"v3rpc.(*kvServer).Txn (by calls): not decided: the way can run only if currentRev is below 0 (kv.go:377)",
		"v3compactor.(*Periodic).Run$1 (across the raft proposal of a Compaction request): not decided: the way can run only if currentRev is below 0 (kv.go:377)",
	} {
		if !slices.Contains(paras, want) {
			t.Errorf("paragraphs %q, want one %q", paras, want)
		}
	}
}

// TestPairVerdictNamesEveryCondition: a pair that can run only if says
// every condition of state its way needs: each leg's across a hand-off,
// then those of the way it shows (Best, not the first), each with what
// its note adds (an operand the path leaves one value).
func TestPairVerdictNamesEveryCondition(t *testing.T) {
	send := report.Cond{Text: "len(data) > max", File: "v3_server.go", Line: 1099, Want: false, Class: "state"}
	apply := report.Cond{Text: "shouldApply", File: "uber_applier.go", Line: 126, Want: true, Class: "state"}
	pinned := report.Cond{Text: "rev > curRev", File: "kvstore_txn.go", Line: 75, Want: true, Class: "state"}
	other := report.Cond{Text: "scheduled != 0", File: "kvstore.go", Line: 421, Want: true, Class: "state"}
	p := report.PairPaths{Entry: "v3rpc.(*kvServer).Compact", Feasible: "only-if",
		Because:  &report.Because{Text: "only if not `len(data) > max`", Cond: send},
		Crossing: []report.Crossing{{Boundary: "raft proposal", OnlyIf: []report.Cond{send}}},
		Ways: []report.Way{
			{Feasible: "only-if", OnlyIf: []report.Cond{other, pinned}},
			{Feasible: "only-if", OnlyIf: []report.Cond{apply, send}},
		},
		Best: 1,
	}
	got := plain(pairVerdict(p))
	want := "a path that can run only if not len(data) > max (v3_server.go:1099) and only if shouldApply (uber_applier.go:126)"
	if got != want {
		t.Errorf("pairVerdict = %q, want %q", got, want)
	}
	pinned.Note = ", where `rev` can only be 0 on the runs that take it (a reason): so only if `0 > curRev`"
	q := report.PairPaths{Feasible: "only-if",
		Because: &report.Because{Text: "only if `shouldApply`", Cond: apply},
		Ways:    []report.Way{{Feasible: "only-if", OnlyIf: []report.Cond{apply, pinned}}},
	}
	got = plain(pairVerdict(q))
	want = "a path that can run only if shouldApply (uber_applier.go:126) and only if rev > curRev (kvstore_txn.go:75), where rev can only be 0 on the runs that take it (a reason): so only if 0 > curRev"
	if got != want {
		t.Errorf("pairVerdict = %q, want %q", got, want)
	}
}

// TestPairVerdictSaysWhatTheRequestAsks: after the verdict, a way that
// can run says what it needs of the request, the legs' first, in order,
// each once (a check it needs passed with a verb of its own); a way that
// cannot says nothing of it.
func TestPairVerdictSaysWhatTheRequestAsks(t *testing.T) {
	state := report.Cond{Text: "shouldApply", File: "uber_applier.go", Line: 126, Want: true, Class: "state"}
	kind := report.Cond{Text: "r.Compaction != nil", File: "uber_applier.go", Line: 143, Want: true, Class: "input"}
	below := report.Cond{Text: "rev <= s.compactMainRev", File: "kvstore.go", Line: 209, Want: true, Class: "input"}
	part := report.Cond{Text: "rev > 0", Whole: "rev > 0 && rev < compactRev", File: "kvstore.go", Line: 186, Want: false, Class: "input"}
	p := report.PairPaths{Feasible: "only-if",
		Because:  &report.Because{Text: "only if `shouldApply`", Cond: state},
		Crossing: []report.Crossing{{Boundary: "raft proposal", Asks: []report.Cond{kind}}},
		Ways:     []report.Way{{Feasible: "only-if", OnlyIf: []report.Cond{state}, Asks: []report.Cond{kind, below}}},
	}
	got := plain(pairVerdict(p))
	want := "a path that can run only if shouldApply (uber_applier.go:126), for a request that makes r.Compaction != nil true (uber_applier.go:143) and rev <= s.compactMainRev true (kvstore.go:209)"
	if got != want {
		t.Errorf("pairVerdict = %q, want %q", got, want)
	}
	y := report.PairPaths{Feasible: "yes", Ways: []report.Way{{Feasible: "yes", Asks: []report.Cond{part}}}}
	got = plain(pairVerdict(y))
	want = "a path that can run, for a request that makes rev > 0 false (part of rev > 0 && rev < compactRev, kvstore.go:186)"
	if got != want {
		t.Errorf("pairVerdict = %q, want %q", got, want)
	}
	check := report.Cond{Text: "err != nil", Passes: "s.aa.isPermitted(ctx)", File: "key.go", Line: 140, Want: false, Class: "ordinary"}
	v := report.PairPaths{Feasible: "yes", Ways: []report.Way{{Feasible: "yes", Asks: []report.Cond{check, below}}}}
	got = plain(pairVerdict(v))
	want = "a path that can run, for a request that passes s.aa.isPermitted(ctx) (key.go:140) and makes rev <= s.compactMainRev true (kvstore.go:209)"
	if got != want {
		t.Errorf("pairVerdict = %q, want %q", got, want)
	}
	handed := report.Cond{Text: "err != nil", Passes: "chk(ai)", PassesMade: &report.Loc{File: "v3_server.go", Line: 146}, File: "v3_server.go", Line: 1045, Class: "ordinary"}
	h := report.PairPaths{Feasible: "yes", Ways: []report.Way{{Feasible: "yes", Asks: []report.Cond{handed}}}}
	got = plain(pairVerdict(h))
	want = "a path that can run, for a request that passes chk(ai) (v3_server.go:1045, the function value made at v3_server.go:146)"
	if got != want {
		t.Errorf("pairVerdict = %q, want %q", got, want)
	}
	kept := report.Cond{Text: "rev == h.Revision", Every: "s.hashes", File: "hash.go", Line: 142, Class: "input"}
	k := report.PairPaths{Feasible: "yes", Ways: []report.Way{{Feasible: "yes", Asks: []report.Cond{kept}}}}
	got = plain(pairVerdict(k))
	want = "a path that can run, for a request that makes rev == h.Revision false for every element of s.hashes (hash.go:142)"
	if got != want {
		t.Errorf("pairVerdict = %q, want %q", got, want)
	}
	n := report.PairPaths{Feasible: "no", Because: &report.Because{Text: "`x` is false on this path", File: "a.go", Line: 3},
		Ways: []report.Way{{Feasible: "no", Asks: []report.Cond{below}}}}
	if got = plain(pairVerdict(n)); strings.Contains(got, "request") {
		t.Errorf("pairVerdict of a way that cannot run = %q, want nothing of the request", got)
	}
}

// TestJudgedSection: why's lead says in one sentence when a path can run
// and refers to the appendix that lists the rules; a why of a text has
// that appendix once, after its answers, and every answer's lead refers
// to it.
func TestJudgedSection(t *testing.T) {
	one := func(sym string) *report.Why {
		return &report.Why{Symbol: sym, Object: report.Object{Name: sym, Kind: "var", File: "kv.go", Line: 5},
			Sites: []report.Site{{File: "kv.go", Line: 70, Function: "example.com/mvcc.Other", Kind: "return"}}}
	}
	refs := func(x report.Text) (n int) {
		for _, sp := range x {
			if sp.Ref == "judged" {
				n++
			}
		}
		return n
	}
	judged := func(secs []report.Section) (n int, last bool) {
		for i, s := range secs {
			if s.ID == "judged" {
				n++
				last = i == len(secs)-1 && s.Appendix && len(s.Blocks) > 0
			}
		}
		return n, last
	}
	d := WhyDoc(one("mvcc.ErrX"))
	if refs(d.Lead) != 1 {
		t.Errorf("the lead %q does not refer to the judged section once", plain(d.Lead))
	}
	if words := len(strings.Fields(plain(d.Lead))); words > 300 {
		t.Errorf("the lead has %d words: the rules belong in the appendix", words)
	}
	if n, last := judged(d.Sections); n != 1 || !last {
		t.Errorf("judged sections: %d (last, an appendix: %v); want one, the last", n, last)
	}
	text := WhyDoc(&report.Why{Text: "x", Answers: []*report.Why{one("mvcc.ErrX"), one("rpctypes.ErrY")}})
	if n, last := judged(text.Sections); n != 1 || !last {
		t.Errorf("a text's judged sections: %d (last, an appendix: %v); want one, the last", n, last)
	}
	leads := 0
	for _, s := range text.Sections {
		for _, sub := range s.Sections {
			if sub.ID == "judged" || strings.HasSuffix(sub.ID, "-judged") {
				t.Errorf("answer section %s holds its own judged section %s", s.ID, sub.ID)
			}
		}
		for _, b := range s.Blocks {
			leads += refs(b.Para)
		}
	}
	if leads != 2 {
		t.Errorf("%d answers' leads refer to the judged section, want 2", leads)
	}
}

// TestShortSection: an error's answer says first what a client gets (the
// code and text, through the translation, from which methods, and what
// the Go client's error equals), before its uses; not when the code sent
// is not the error's own.
func TestShortSection(t *testing.T) {
	w := &report.Why{Symbol: "mvcc.ErrX", Object: report.Object{Name: "mvcc.ErrX", Kind: "var", File: "kv.go", Line: 5},
		Sites: []report.Site{{File: "kv.go", Line: 70, Function: "example.com/mvcc.Other", Kind: "return"}},
		User: &report.User{
			GRPC: &report.UserGRPC{Code: "OutOfRange", Text: "etcdserver: x", Object: "example.com/rpctypes.ErrGRPCX", By: "translation", Translate: "example.com/v3rpc.togRPCError"},
			Client: &report.UserClient{Value: "rpctypes.EtcdError{}", Text: "etcdserver: x", EqualTo: []string{"example.com/rpctypes.ErrX"},
				Own: []report.Loc{{File: "client/watch.go", Line: 128, Function: "example.com/client/v3.(*WatchResponse).Err"}}},
			Methods: []string{"/etcdserverpb.KV/Range", "/etcdserverpb.KV/Txn"},
		}}
	d := WhyDoc(w)
	ids := []string{}
	for _, s := range d.Sections {
		ids = append(ids, s.ID)
	}
	if len(ids) < 2 || ids[0] != "short" || ids[1] != "uses" {
		t.Fatalf("sections %v: want the short answer first, then the uses", ids)
	}
	got := plain(d.Sections[0].Blocks[0].Para)
	for _, want := range []string{"gRPC code OutOfRange with the text etcdserver: x (through v3rpc.togRPCError)", "from /etcdserverpb.KV/Range and /etcdserverpb.KV/Txn, the methods whose roots can return it", "compares equal to rpctypes.ErrX, a variable the client's own code also returns (at client/watch.go:128, in client/v3.(*WatchResponse).Err), on conditions this answer does not follow"} {
		if !strings.Contains(got, want) {
			t.Errorf("the short answer %q does not say %q", got, want)
		}
	}
	refs := 0
	for _, sp := range d.Sections[0].Blocks[0].Para {
		if sp.Ref == "user" {
			refs++
		}
	}
	if refs != 1 {
		t.Errorf("the short answer refers to the user's section %d times, want once", refs)
	}
	// A value that is no gRPC status is sent with another error's code:
	// no short answer then, nor without a user's half.
	w.User.GRPC.By, w.User.GRPC.NotStatus = "made-from", true
	if d := WhyDoc(w); d.Sections[0].ID == "short" {
		t.Error("a short answer for a value that is no gRPC status")
	}
	w.User = nil
	if d := WhyDoc(w); d.Sections[0].ID == "short" {
		t.Error("a short answer with no user's half")
	}
}

// TestSharedStart: a way that begins with the calls an earlier way of the
// same use began with (the apply's chain after a hand-off) refers to it
// for them, the earlier way that shares the most; fewer than minShared
// alike, or none, and it lists them all.
func TestSharedStart(t *testing.T) {
	hop := func(fn string, line int) report.Hop {
		return report.Hop{Function: "example.com/etcdserver." + fn, File: "server.go", Line: line}
	}
	chain := []report.Hop{hop("applyEntries", 974), hop("apply", 1206), hop("applyEntryNormal", 1918), hop("Apply", 1970), hop("dispatch", 47)}
	put := append(append([]report.Hop{}, chain...), hop("Put", 136))
	txn := append(append([]report.Hop{}, chain...), hop("Txn", 142))
	short := []report.Hop{hop("applyEntries", 974), hop("apply", 1206), hop("Other", 1)}
	shown := []shownWay{{root: "run", hops: short}, {root: "Put", hops: put}}
	k, from := sharedStart(shown, txn)
	if k != len(chain) || from != "Put" {
		t.Fatalf("sharedStart = %d, %q; want %d, %q (the way that shares the most)", k, from, len(chain), "Put")
	}
	got := plain(sameSteps(k, from, txn[0], txn[k-1]))
	want := "the same 5 calls as the way from Put above, etcdserver.applyEntries to etcdserver.dispatch, called at server.go:47"
	if got != want {
		t.Errorf("sameSteps = %q, want %q", got, want)
	}
	if k, _ := sharedStart(shown[:1], txn); k != 0 {
		t.Errorf("sharedStart with 2 calls alike = %d, want 0 (fewer than %d)", k, minShared)
	}
	if k, _ := sharedStart(nil, txn); k != 0 {
		t.Errorf("sharedStart with no way shown = %d, want 0", k)
	}
}

// TestHandOffNames: the hand-offs an answer follows are named from its
// report, in its order.
func TestHandOffNames(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"raft proposal"}, " (the raft proposal)"},
		{[]string{"raft proposal", "scheduled job", "peer hash request"}, " (the raft proposal, the scheduled job and the peer hash request)"},
	} {
		var hs []report.Boundary
		for _, n := range tc.names {
			hs = append(hs, report.Boundary{Name: n})
		}
		if got := handOffNames(hs); got != tc.want {
			t.Errorf("handOffNames(%v) = %q, want %q", tc.names, got, tc.want)
		}
	}
}

// TestMessageNoun: what a hand-off carries is named by its message type.
func TestMessageNoun(t *testing.T) {
	hs := []report.Boundary{{Name: "proposal", Message: "pkg/a.InternalRaftRequest"}, {Name: "channel", Message: "pkg/b.WatchResponse"}, {Name: "other", Message: "pkg/c.Note"}, {Name: "job"}}
	for name, want := range map[string]string{"proposal": "request", "channel": "response", "other": "message", "job": "message", "absent": "message"} {
		if got := messageNoun(hs, name); got != want {
			t.Errorf("messageNoun(%s) = %q, want %q", name, got, want)
		}
	}
}
