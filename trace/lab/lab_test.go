package lab

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

func builder() func(context.Context, string) (string, error) {
	st := errcompacted.Study
	return Builder("", st.Modules(), st.LayoutMap(), nil)
}

// TestLab runs the whole lab on an embedded etcd with the real etcdctl and
// checks the outcomes the exercise is about; timings are recorded, not
// asserted.
func TestLab(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real etcd server")
	}
	rep, err := Run(context.Background(), Options{Build: builder()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Etcd.Version != EmbeddedVersion() || rep.Etcd.Server != "embedded" {
		t.Errorf("etcd = %+v", rep.Etcd)
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
	if !strings.Contains(b.Error, "required revision has been compacted") {
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
		want := "watch was canceled (etcdserver: mvcc: required revision has been compacted)"
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
	wantStderr := "watch was canceled (etcdserver: mvcc: required revision has been compacted)\nError: watch is canceled by the server\n"
	if e.Evict.Stderr != wantStderr || e.Reopen == nil || e.Reopen.Stderr != wantStderr || e.Reopen.ExitCode != 5 || e.Reopen.StdoutLines != 0 {
		t.Errorf("etcdctl stderr: evict %q, reopen %+v", e.Evict.Stderr, e.Reopen)
	}
	if e.Read == nil || e.Read.ExitCode != 1 || !strings.HasSuffix(e.Read.Stderr, "Error: etcdserver: mvcc: required revision has been compacted\n") {
		t.Errorf("etcdctl read = %+v", e.Read)
	}
}

// TestLabInterrupted cancels the lab at the start of every phase and checks
// that nothing is left behind: no data dir, no etcdctl process.
func TestLabInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real etcd server")
	}
	build := builder()
	for _, phase := range Phases {
		t.Run(phase, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := Run(ctx, Options{Build: build, Writes: 40, ByHandDelay: 50 * time.Millisecond, Phase: func(name string) {
				if name == phase {
					cancel()
				}
			}})
			if phase != "teardown" && !errors.Is(err, context.Canceled) {
				t.Errorf("err = %v, want context.Canceled", err)
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Errorf("left behind in TMPDIR: %v", ents)
			}
			if procs := children("etcdctl"); len(procs) != 0 {
				t.Errorf("etcdctl still running: %v", procs)
			}
		})
	}
}

// TestLabEndpoints runs the lab against a server it did not start, and
// checks that the prefix it wrote is gone afterwards and that it refuses to
// compact without permission or to talk to a non-loopback address.
func TestLabEndpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real etcd server")
	}
	ctx := context.Background()
	srv, err := StartEmbedded(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	eps := srv.Endpoints()
	if _, err := Run(ctx, Options{Endpoints: eps}); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "--allow-compact") {
		t.Errorf("without --allow-compact: err = %v", err)
	}
	if _, err := Run(ctx, Options{Endpoints: []string{"10.1.2.3:2379"}, AllowCompact: true}); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "not a loopback address") {
		t.Errorf("remote endpoint: err = %v", err)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Put(ctx, "/someone-else/key", "v"); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, Options{Endpoints: eps, AllowCompact: true, NoEtcdctl: true, Writes: 40, ByHandDelay: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Etcd.Server != "endpoints" || rep.Etcdctl != nil {
		t.Errorf("etcd %+v etcdctl %+v", rep.Etcd, rep.Etcdctl)
	}
	got, err := cli.Get(ctx, rep.Prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	if err != nil || got.Count != 0 {
		t.Errorf("keys left under %s: %v %v", rep.Prefix, got, err)
	}
	other, err := cli.Get(ctx, "/someone-else/key")
	if err != nil || other.Count != 1 {
		t.Errorf("another client's key: %v %v", other, err)
	}
}

func TestSearch(t *testing.T) {
	for _, boundary := range []int64{1, 2, 7, 99, 100} {
		got, _, err := search(1, 100, func(r int64) (bool, error) { return r >= boundary, nil })
		if err != nil || got != boundary {
			t.Errorf("boundary %d: got %d, %v", boundary, got, err)
		}
	}
}

func TestCheckLoopback(t *testing.T) {
	for ep, ok := range map[string]bool{
		"127.0.0.1:2379": true, "http://127.0.0.1:2379": true, "localhost:2379": true, "[::1]:2379": true,
		"127.9.9.9:1": true, "10.0.0.1:2379": false, "example.com:2379": false, "192.168.1.1": false,
	} {
		if err := checkLoopback([]string{ep}); (err == nil) != ok {
			t.Errorf("%s: err = %v", ep, err)
		}
	}
}

// children lists this process's child processes whose command is name.
func children(name string) []string {
	var out []string
	me := os.Getpid()
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		data, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		s := string(data)
		open, close := strings.Index(s, "("), strings.LastIndex(s, ")")
		if open < 0 || close < 0 {
			continue
		}
		comm := s[open+1 : close]
		fields := strings.Fields(s[close+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(me) && strings.HasPrefix(comm, name) {
			out = append(out, d)
		}
	}
	return out
}
