package errcompacted

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/srctrace/srctrace/trace/lab"
	"github.com/srctrace/srctrace/trace/lab/labtest"
)

// compactedText is the description of rpctypes.ErrGRPCCompacted
// (api/v3rpc/rpctypes/error.go at v3.7.3), the client's error text.
const compactedText = "etcdserver: mvcc: required revision has been compacted"

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
	rep, err := lab.Run(context.Background(), Lab, lab.Options{Build: builder()})
	if err != nil {
		t.Fatal(err)
	}
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
	if !b.Ended || b.Events <= 0 || b.Events >= b.Total || b.Total != int(rep.HeadRevision-rep.AnchorRevision+1) {
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
	if r.Negative == nil || !r.Negative.Canceled {
		t.Errorf("negative = %+v, want canceled", r.Negative)
	}
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
}

// TestLabInterrupted cancels the lab at the start of every phase, the
// probes' included, and checks that nothing is left behind.
func TestLabInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real etcd server")
	}
	if got, want := strings.Join(Lab.AllPhases(), " "), "server by-hand etcdctl-evict evict reopen boundary read teardown"; got != want {
		t.Errorf("phases %q, want %q", got, want)
	}
	opts := lab.Options{Build: builder(), Writes: 40, Delay: 50 * time.Millisecond}
	t.Run("at", func(t *testing.T) { labtest.Interrupt(t, Lab, opts) })
	// Within a phase: 5 ms in, its first requests or etcdctl runs are under way.
	t.Run("within", func(t *testing.T) { labtest.InterruptWithin(t, Lab, opts, 5*time.Millisecond) })
}

func TestSearch(t *testing.T) {
	for _, boundary := range []int64{1, 2, 7, 99, 100} {
		got, _, err := search(1, 100, func(r int64) (bool, error) { return r >= boundary, nil })
		if err != nil || got != boundary {
			t.Errorf("boundary %d: got %d, %v", boundary, got, err)
		}
	}
}
