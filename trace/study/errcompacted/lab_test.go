package errcompacted

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/srctrace/srctrace/trace/lab"
	"github.com/srctrace/srctrace/trace/lab/labtest"
)

// The expected texts below are etcd's, derived by reading the release's
// source, not srctrace's output:
//
//   - the client's error for the sentinel on the wire is the description of
//     rpctypes.ErrGRPCCompacted (api/v3rpc/rpctypes/error.go, the same at
//     v3.6.0 and v3.7.3), with gRPC code OutOfRange;
//   - cobrautl.ExitWithError prints "Error: " and the error and exits with
//     its code; compactionCommandFunc and epHashKVCommandFunc pass ExitError,
//     1 (pkg/cobrautl/error.go);
//   - epHashKVCommandFunc first prints "Failed to get the hash of endpoint
//     EP (ERR)" for the endpoint and prints no table row for it
//     (etcdctl/ctlv3/command/ep_command.go, printer_simple.go);
//   - the client's unary retry interceptor logs a warning for the failed
//     attempt before it decides not to retry an OutOfRange error
//     (client/v3/retry_interceptor.go), and etcdctl's client logs warnings
//     to stderr as JSON (ctlv3/command/global.go, CreateDefaultZapLogger).
const (
	compactedText = "etcdserver: mvcc: required revision has been compacted"
	exitError     = 1
)

// retryWarning is the interceptor's line: zap's JSON with its message.
var retryWarning = regexp.MustCompile(`^\{"level":"warn",.*"msg":"retrying of unary invoker failed".*` + regexp.QuoteMeta(compactedText) + `"\}$`)

// hashFailed is epHashKVCommandFunc's line for the endpoint the lab
// passed (with or without a scheme).
var hashFailed = regexp.MustCompile(`^Failed to get the hash of endpoint (http://)?127\.0\.0\.1:[0-9]+ \(` + regexp.QuoteMeta(compactedText) + `\)$`)

func builder() func(context.Context, string) (string, error) {
	return lab.Builder("", Study.Modules(), Study.LayoutMap(), nil)
}

// TestLab runs the whole lab on an embedded etcd (the pinned v3.7.3) with
// the real etcdctl and checks the outcomes the exercise is about; timings
// are recorded, not asserted.
func TestLab(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real etcd server")
	}
	rec, err := lab.Run(context.Background(), Lab, lab.Options{Build: builder()})
	if err != nil {
		t.Fatal(err)
	}
	rep := rec.(*LabRecord)
	if rep.Etcd.Version != lab.EmbeddedVersion() || rep.Etcd.Server != "embedded" || rep.Writes != 2000 {
		t.Errorf("etcd = %+v, writes %d", rep.Etcd, rep.Writes)
	}
	if rep.CompactRevision != rep.HeadRevision-10 {
		t.Errorf("compact %d, head %d", rep.CompactRevision, rep.HeadRevision)
	}
	b, c := rep.Watchers[0], rep.Watchers[1]
	if b.Name != "behind" || c.Name != "current" {
		t.Fatalf("watchers %+v", rep.Watchers)
	}
	// Evicted mid-stream: some, not all, of its history arrived.
	if !b.Ended || b.Events <= 0 || b.Events >= b.Total || b.Total != rep.Writes+1 {
		t.Errorf("behind: ended=%v events=%d total=%d, want ended with 0 < events < total", b.Ended, b.Events, b.Total)
	}
	if b.Cancel == nil || !b.Cancel.Canceled || b.Cancel.CompactRevision != rep.CompactRevision {
		t.Errorf("behind cancel = %+v, want canceled with compact_revision %d", b.Cancel, rep.CompactRevision)
	}
	if b.Error != compactedText {
		t.Errorf("behind error %q", b.Error)
	}
	if c.Ended || c.EventsAfterCompaction < 1 {
		t.Errorf("current: ended=%v after=%d, want alive with an event after the compaction", c.Ended, c.EventsAfterCompaction)
	}
	// By hand: the behind watcher has caught up before the compaction.
	if rep.ByHand == nil || rep.ByHand.Evicted || rep.ByHand.Watchers[0].EventsAfterCompaction < 1 {
		t.Errorf("by hand = %+v, want not evicted", rep.ByHand)
	}
	// Reopen: accepted (created) and then canceled.
	r := rep.Reopen
	if !r.Created || !r.Canceled || r.Events != 0 || r.Error != b.Error {
		t.Errorf("reopen = %+v, want created then canceled with the same error as the eviction", r)
	}
	checkNegative373(t, rep)
	// Boundary: the compaction revision itself opens; one below does not.
	if rep.Boundary.LowestOpenRevision != rep.CompactRevision || rep.Read.LowestReadableRevision != rep.CompactRevision {
		t.Errorf("boundary %d, read %d, compaction %d", rep.Boundary.LowestOpenRevision, rep.Read.LowestReadableRevision, rep.CompactRevision)
	}
	for _, p := range rep.Boundary.Probes {
		if p.Open != (p.Revision >= rep.CompactRevision) {
			t.Errorf("probe %+v", p)
		}
		// The exercise's loop prints etcdctl's first line: an event's type
		// for a watch that opens, the cancel for one that does not.
		want := "watch was canceled (" + compactedText + ")"
		if p.Open {
			want = "PUT"
		}
		if p.By != "etcdctl" || p.Result != want {
			t.Errorf("probe %d: %s says %q, want etcdctl's %q", p.Revision, p.By, p.Result, want)
		}
	}
	e := rep.Etcdctl
	if e == nil || e.Version != rep.Etcd.Version {
		t.Fatalf("etcdctl = %+v, notes %v", e, rep.Notes)
	}
	// etcdctl's exit status for a watch canceled by the server, and its lines.
	if e.Evict == nil || e.Evict.ExitCode != 5 || e.Evict.Events <= 0 || e.Evict.StdoutLines != 3*e.Evict.Events {
		t.Errorf("etcdctl evict = %+v", e.Evict)
	}
	wantStderr := "watch was canceled (" + compactedText + ")\nError: watch is canceled by the server\n"
	if e.Evict.Stderr != wantStderr || e.Reopen == nil || e.Reopen.Stderr != wantStderr || e.Reopen.ExitCode != 5 || e.Reopen.StdoutLines != 0 {
		t.Errorf("etcdctl stderr: evict %q, reopen %+v", e.Evict.Stderr, e.Reopen)
	}
	if e.Read == nil || e.Read.ExitCode != 1 || !strings.HasSuffix(e.Read.Stderr, "Error: "+compactedText+"\n") {
		t.Errorf("etcdctl read = %+v", e.Read)
	}
	checkProbes(t, rep, true)
}

// checkNegative373 checks the watch from -1 at v3.7.3. The server refuses
// it in recvLoop (server/etcdserver/api/v3rpc/watch.go, `if
// creq.StartRevision < 0`): one response, created and canceled, with the
// invalid watch id -1, the text of rpctypes.ErrCompacted as cancel reason
// and no compact revision. The Go client's run loop
// (client/v3/watch.go) passes a created response to addSubstream, which
// for watch id -1 records the reason as the stream's closeErr and closes
// the substream without a channel; closeSubstream then sends a response of
// its own, canceled, with that error and nothing else: the user sees no
// created response, no cancel reason, no header revision.
func checkNegative373(t *testing.T, rep *LabRecord) {
	t.Helper()
	n := rep.Reopen.Negative
	if n == nil {
		t.Fatal("no watch from -1")
	}
	if len(n.Raw) != 1 {
		t.Fatalf("raw responses = %+v, want one", n.Raw)
	}
	raw := n.Raw[0]
	if raw.WatchID != -1 || !raw.Created || !raw.Canceled || raw.CancelReason != compactedText || raw.CompactRevision != 0 || raw.Events != 0 || raw.HeaderRevision < rep.HeadRevision {
		t.Errorf("raw = %+v", raw)
	}
	want := Cancel{Canceled: true}
	if n.Created || !n.Canceled || n.Error != compactedText || n.Cancel == nil || *n.Cancel != want {
		t.Errorf("the client's view = %+v (cancel %+v), want canceled only, with %q", n, n.Cancel, compactedText)
	}
}

// checkProbes checks the two probes. Compacting to C again is refused by
// mvcc.(*store).updateCompactRev (`rev <= s.compactMainRev`), a HashKV at
// C-1 by mvcc.(*store).hashByRev (`rev > 0 && rev < compactRev`), both with
// mvcc.ErrCompacted, which the gRPC layer translates to ErrGRPCCompacted
// (server/etcdserver/api/v3rpc/util.go); the same at v3.6.0 and v3.7.3.
func checkProbes(t *testing.T, rep *LabRecord, etcdctl bool) {
	t.Helper()
	c := rep.CompactRevision
	if len(rep.Probes) != 2 || rep.Probes[0].Name != ProbeCompact || rep.Probes[1].Name != ProbeHashKV {
		t.Fatalf("probes = %+v", rep.Probes)
	}
	compact, hash := rep.Probes[0], rep.Probes[1]
	if compact.Revision != c || hash.Revision != c-1 || compact.CompactRevision != c || hash.CompactRevision != c {
		t.Errorf("revisions: compact %d, hash %d, compaction %d", compact.Revision, hash.Revision, c)
	}
	for _, p := range rep.Probes {
		if p.ClientError != compactedText || p.ClientCode != "OutOfRange" {
			t.Errorf("%s: the client's error %q (%s)", p.Name, p.ClientError, p.ClientCode)
		}
		if !etcdctl {
			if p.Capture != nil {
				t.Errorf("%s: an etcdctl capture without etcdctl: %+v", p.Name, p.Capture)
			}
			continue
		}
		if p.Capture == nil || p.Stdout == nil || *p.Stdout != "" || p.StdoutLines != 0 || p.ExitCode != exitError {
			t.Errorf("%s: etcdctl = %+v", p.Name, p.Capture)
			continue
		}
		lines := strings.Split(strings.TrimSuffix(p.Stderr, "\n"), "\n")
		want := 2
		if p.Name == ProbeHashKV {
			want = 3
		}
		if len(lines) != want || !retryWarning.MatchString(lines[0]) || lines[len(lines)-1] != "Error: "+compactedText {
			t.Errorf("%s: stderr %q", p.Name, p.Stderr)
			continue
		}
		if p.Name == ProbeHashKV && !hashFailed.MatchString(lines[1]) {
			t.Errorf("%s: stderr line 2 %q", p.Name, lines[1])
		}
	}
	if etcdctl {
		if got := strings.Join(compact.Args, " "); got != "compaction "+itoa(c) {
			t.Errorf("compaction args %q", got)
		}
		if got := strings.Join(hash.Args, " "); got != "endpoint hashkv --rev="+itoa(c-1) {
			t.Errorf("hashkv args %q", got)
		}
	}
}

// TestLabInterrupted cancels the lab at the start of every phase, the
// probes' included, and checks that nothing is left behind.
func TestLabInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real etcd server")
	}
	if got, want := strings.Join(Lab.AllPhases(), " "), "server by-hand etcdctl-evict evict reopen boundary read "+ProbeCompact+" "+ProbeHashKV+" teardown"; got != want {
		t.Errorf("phases %q, want %q", got, want)
	}
	opts := lab.Options{Build: builder(), Writes: 40, Delay: 50 * time.Millisecond}
	t.Run("at", func(t *testing.T) { labtest.Interrupt(t, Lab, opts) })
	// Within a phase: 5 ms in, its first requests or etcdctl runs are under way.
	t.Run("within", func(t *testing.T) { labtest.InterruptWithin(t, Lab, opts, 5*time.Millisecond) })
}

// TestLabV360 runs the lab against a real etcd v3.6.0 (the release's own
// server binary, built from its module) with etcdctl v3.6.0. The lab's Go
// client is the pinned one's.
//
// At v3.6.0 recvLoop has no check of a negative start revision
// (server/etcdserver/api/v3rpc/watch.go): the watch from -1 is created
// (watch id 0 on a fresh stream), put among the unsynced watchers by
// watchableStore.watch (-1 is neither 0 nor above the current revision),
// and canceled by the sync loop's `w.minRev < compactRev`
// (storage/mvcc/watcher_group.go), whose response the send loop marks
// canceled with the compact revision: two responses. The Go client shows
// both: the created one (WithCreatedNotify) and the cancel with
// ErrCompacted (client/v3/watch.go, Err: CompactRevision != 0).
func TestLabV360(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs etcd v3.6.0")
	}
	rep := runRelease(t, "v3.6.0", builder(), 0)
	if rep.Etcd.Version != "v3.6.0" || rep.Etcdctl == nil || rep.Etcdctl.Version != "v3.6.0" {
		t.Fatalf("etcd %+v, etcdctl %+v, notes %q", rep.Etcd, rep.Etcdctl, rep.Notes)
	}
	n := rep.Reopen.Negative
	c := rep.CompactRevision
	if n == nil || len(n.Raw) != 2 {
		t.Fatalf("negative = %+v", n)
	}
	if r := n.Raw[0]; r.WatchID != 0 || !r.Created || r.Canceled || r.CancelReason != "" || r.CompactRevision != 0 {
		t.Errorf("raw[0] = %+v, want created", r)
	}
	if r := n.Raw[1]; r.WatchID != 0 || r.Created || !r.Canceled || r.CancelReason != "" || r.CompactRevision != c {
		t.Errorf("raw[1] = %+v, want canceled with compact_revision %d", r, c)
	}
	if !n.Created || !n.Canceled || n.Error != compactedText || n.Cancel == nil || n.Cancel.CompactRevision != c {
		t.Errorf("the client's view = %+v (cancel %+v)", n, n.Cancel)
	}
	if rep.Boundary.LowestOpenRevision != c || rep.Read.LowestReadableRevision != c {
		t.Errorf("boundary %d, read %d, compaction %d", rep.Boundary.LowestOpenRevision, rep.Read.LowestReadableRevision, c)
	}
	checkProbes(t, rep, true)
}

// TestLabNoEtcdctl runs the lab against etcd v3.6.9, whose etcdctl module
// the proxy here refuses: the lab goes on with the Go client and says why
// in a note; the probes record the client's errors only.
func TestLabNoEtcdctl(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs etcd v3.6.9")
	}
	rep := runRelease(t, "v3.6.9", builder(), 200)
	if rep.Etcd.Version != "v3.6.9" || rep.Etcdctl != nil {
		t.Fatalf("etcd %+v, etcdctl %+v", rep.Etcd, rep.Etcdctl)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "building etcdctl v3.6.9 failed") || !strings.HasSuffix(rep.Notes[0], "the results are the Go client's") {
		t.Errorf("notes %q", rep.Notes)
	}
	for _, p := range rep.Boundary.Probes {
		if p.By != "client" {
			t.Errorf("boundary probe %+v", p)
		}
	}
	checkProbes(t, rep, false)
}

// runRelease runs the lab on the etcd server of a release, built from
// its module and run by the lab (lab.Options.Version), and checks that no
// process or data dir is left. With writes 0 it makes the exercise's; it
// skips the by-hand round.
func runRelease(t *testing.T, version string, build func(context.Context, string) (string, error), writes int) *LabRecord {
	t.Helper()
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	rep, err := lab.Run(context.Background(), Lab, lab.Options{Version: version, BuildServer: lab.ServerBuilder("", Study.Module, Study.LayoutMap(), nil),
		Build: build, Writes: writes, Delay: -1})
	if err != nil {
		t.Fatal(err)
	}
	rec := rep.(*LabRecord)
	if rec.Etcd.Server != "process" || len(rec.Etcd.Endpoints) != 1 {
		t.Errorf("etcd = %+v, want a server the lab ran", rec.Etcd)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left behind in TMPDIR: %v", ents)
	}
	if procs := labtest.Children("etcd"); len(procs) != 0 {
		t.Errorf("etcd processes still running: %v", procs)
	}
	return rec
}

func TestSearch(t *testing.T) {
	for _, boundary := range []int64{1, 2, 7, 99, 100} {
		got, _, err := search(1, 100, func(r int64) (bool, error) { return r >= boundary, nil })
		if err != nil || got != boundary {
			t.Errorf("boundary %d: got %d, %v", boundary, got, err)
		}
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestLabConcurrent runs two labs at once on one etcd v3.7.3 server that
// someone else runs (the release's server, built from its module): they
// take turns, so each one's record is its own. Each watcher's counts are
// the lab's own events (the behind watcher is owed the anchor and the
// writes), no note speaks of other clients, and no key is left. Then a
// lab runs while another client writes all along: its counts are still
// its own, and a note says how many revisions of its rounds were the
// other client's.
func TestLabConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs etcd v3.7.3")
	}
	ctx := context.Background()
	bin, err := lab.ServerBuilder("", Study.Module, Study.LayoutMap(), nil)(ctx, "v3.7.3")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", t.TempDir())
	srv, err := lab.StartProcess(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	opts := lab.Options{Endpoints: srv.Endpoints(), AllowCompact: true, NoEtcdctl: true, Writes: 300, Delay: -1}
	own := func(t *testing.T, rep *LabRecord) {
		t.Helper()
		b := rep.Watchers[0]
		if b.Total != rep.Writes+1 || b.Events-b.EventsAfterCompaction > b.Total {
			t.Errorf("behind watcher: %d events (%d after the compaction) of %d, want at most the lab's own %d", b.Events, b.EventsAfterCompaction, b.Total, rep.Writes+1)
		}
		if rep.CompactRevision != rep.HeadRevision-10 {
			t.Errorf("compaction %d, head %d", rep.CompactRevision, rep.HeadRevision)
		}
	}
	var wg sync.WaitGroup
	recs := make([]*LabRecord, 2)
	errs := make([]error, 2)
	for i := range recs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec, err := lab.Run(ctx, Lab, opts)
			if err == nil {
				recs[i] = rec.(*LabRecord)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("lab %d: %v", i, err)
		}
	}
	if recs[0].Prefix == recs[1].Prefix {
		t.Errorf("both labs wrote under %s", recs[0].Prefix)
	}
	for _, rep := range recs {
		own(t, rep)
		// Turns: one lab's rounds lie wholly before or after the other's.
		if rep.HeadRevision-rep.AnchorRevision != int64(rep.Writes) {
			t.Errorf("anchor %d, head %d: %d revisions for %d writes", rep.AnchorRevision, rep.HeadRevision, rep.HeadRevision-rep.AnchorRevision+1, rep.Writes+1)
		}
		for _, n := range rep.Notes {
			if strings.Contains(n, "other client") {
				t.Errorf("note %q", n)
			}
		}
	}

	cli, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints(), DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; wctx.Err() == nil; i++ {
			cli.Put(wctx, "/someone-else/k", strconv.Itoa(i))
		}
	}()
	rec, err := lab.Run(ctx, Lab, opts)
	stop()
	<-done
	if err != nil {
		t.Fatal(err)
	}
	rep := rec.(*LabRecord)
	own(t, rep)
	others := rep.HeadRevision - rep.AnchorRevision - int64(rep.Writes)
	want := fmt.Sprintf("round evict: other clients made %d of the %d revisions from its anchor (%d) to its head (%d)", others, rep.HeadRevision-rep.AnchorRevision+1, rep.AnchorRevision, rep.HeadRevision)
	found := false
	for _, n := range rep.Notes {
		found = found || strings.HasPrefix(n, want)
	}
	if others <= 0 || !found {
		t.Errorf("%d other revisions; notes %q, want one that starts %q", others, rep.Notes, want)
	}
	for _, p := range []string{recs[0].Prefix, recs[1].Prefix, rep.Prefix} {
		got, err := cli.Get(ctx, p, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil || got.Count != 0 {
			t.Errorf("keys left under %s: %v, %v", p, got, err)
		}
	}
}
