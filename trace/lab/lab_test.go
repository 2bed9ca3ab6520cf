package lab_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/srctrace/srctrace/trace/lab"
	"github.com/srctrace/srctrace/trace/lab/labtest"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/target"
)

// modules are those a work module needs to build etcdctl (the server
// first, as a study names them).
var modules = []string{"go.etcd.io/etcd/server/v3", "go.etcd.io/etcd/client/v3", "go.etcd.io/etcd/etcdctl/v3"}

func builder() func(context.Context, string) (string, error) {
	return lab.Builder("", modules, target.Etcd.LayoutMap(), nil)
}

// tiny is a lab of two phases: it writes a key under a fresh prefix, then
// runs etcdctl's get of it (when etcdctl is at hand) and records it.
var tiny = &lab.Lab{
	Phases:   []string{"write", "etcdctl"},
	Defaults: lab.Options{Writes: 3},
	Check: func(o lab.Options) error {
		if o.Writes < 1 {
			return fmt.Errorf("%w: --writes %d", lab.ErrUsage, o.Writes)
		}
		return nil
	},
	Run: func(ctx context.Context, env *lab.Env) (lab.Record, error) {
		rep := &tinyRecord{Writes: env.Opts.Writes, Etcdctl: env.Etcdctl()}
		if err := env.Phase(ctx, "write"); err != nil {
			return nil, err
		}
		p := env.Prefix("tiny")
		for i := range env.Opts.Writes {
			r, err := env.Client.Put(ctx, p+"k", strconv.Itoa(i))
			if err != nil {
				return nil, err
			}
			rep.HeadRevision = r.Header.Revision
		}
		if err := env.Phase(ctx, "etcdctl"); err != nil {
			return nil, err
		}
		if env.HasEtcdctl() {
			cp, err := env.Exec(ctx, "get", "--print-value-only", p+"k")
			if err != nil {
				return nil, err
			}
			rep.Read = cp
		}
		return rep, nil
	},
	Scripts: []lab.Script{{Name: lab.Baseline, Run: func(ctx context.Context, env *lab.Env) error {
		_, err := env.Client.Put(ctx, env.Prefix("k")+"k", "v")
		return err
	}}},
}

// tinyRecord is the tiny lab's record.
type tinyRecord struct {
	report.LabRun
	Writes       int             `json:"writes"`
	HeadRevision int64           `json:"head_revision"`
	Etcdctl      *report.LabTool `json:"etcdctl,omitempty"`
	Read         *report.Capture `json:"read,omitempty"`
}

func (r *tinyRecord) Run() *report.LabRun { return &r.LabRun }

// TestRun runs a tiny lab on an embedded etcd with the real etcdctl: the
// driver fills in the server, the prefix and the time; Exec keeps
// etcdctl's stdout exactly.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real etcd server")
	}
	var phases []string
	rec, err := lab.Run(context.Background(), tiny, lab.Options{Build: builder(), Phase: func(p string) { phases = append(phases, p) }})
	if err != nil {
		t.Fatal(err)
	}
	rep := rec.(*tinyRecord)
	if rep.Etcd.Version != lab.EmbeddedVersion() || rep.Etcd.Server != "embedded" || !strings.HasPrefix(rep.Prefix, "/srctrace-lab/") || rep.Writes != 3 {
		t.Errorf("rep = %+v", rep)
	}
	if diff := cmp.Diff(tiny.AllPhases(), phases); diff != "" {
		t.Errorf("phases (-want +got):\n%s", diff)
	}
	// etcdctl get --print-value-only prints the last value, 2, on a line
	// of its own (etcdctl/ctlv3/command/util.go, printKV: fmt.Println(v)).
	r := rep.Read
	if r == nil || r.Stdout == nil || *r.Stdout != "2\n" || r.StdoutLines != 1 || r.ExitCode != 0 || r.Stderr != "" {
		t.Errorf("etcdctl get = %+v", r)
	}
}

// TestRunInterrupted cancels a lab at the start of every phase and checks
// that nothing is left behind: no data dir, no etcdctl process.
func TestRunInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real etcd server")
	}
	labtest.Interrupt(t, tiny, lab.Options{Build: builder()})
}

// TestRunEndpoints runs a lab against a server it did not start, and
// checks that the prefix it wrote is gone afterwards and that it refuses to
// compact without permission or to talk to a non-loopback address.
func TestRunEndpoints(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a real etcd server")
	}
	ctx := context.Background()
	srv, err := lab.StartEmbedded(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	eps := srv.Endpoints()
	if _, err := lab.Run(ctx, tiny, lab.Options{Endpoints: eps}); !errors.Is(err, lab.ErrUsage) || !strings.Contains(err.Error(), "--allow-compact") {
		t.Errorf("without --allow-compact: err = %v", err)
	}
	if _, err := lab.Run(ctx, tiny, lab.Options{Endpoints: []string{"10.1.2.3:2379"}, AllowCompact: true}); !errors.Is(err, lab.ErrUsage) || !strings.Contains(err.Error(), "not a loopback address") {
		t.Errorf("remote endpoint: err = %v", err)
	}
	if _, err := lab.Run(ctx, tiny, lab.Options{Endpoints: eps, AllowCompact: true, Writes: -1}); !errors.Is(err, lab.ErrUsage) {
		t.Errorf("the lab's Check: err = %v", err)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: eps, DialTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.Put(ctx, "/someone-else/key", "v"); err != nil {
		t.Fatal(err)
	}
	rec, err := lab.Run(ctx, tiny, lab.Options{Endpoints: eps, AllowCompact: true, NoEtcdctl: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := rec.(*tinyRecord)
	if rep.Etcd.Server != "endpoints" || rep.Etcdctl != nil || len(rep.Notes) != 1 {
		t.Errorf("etcd %+v etcdctl %+v notes %q", rep.Etcd, rep.Etcdctl, rep.Notes)
	}
	if err := lab.RunScript(ctx, eps, tiny, lab.Baseline, lab.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := lab.RunScript(ctx, eps, tiny, "nope", lab.Options{}); !errors.Is(err, lab.ErrUsage) {
		t.Errorf("an unknown script: err = %v", err)
	}
	for _, p := range []string{rep.Prefix, "/srctrace-observe/"} {
		got, err := cli.Get(ctx, p, clientv3.WithPrefix(), clientv3.WithCountOnly())
		if err != nil || got.Count != 0 {
			t.Errorf("keys left under %s: %v %v", p, got, err)
		}
	}
	other, err := cli.Get(ctx, "/someone-else/key")
	if err != nil || other.Count != 1 {
		t.Errorf("another client's key: %v %v", other, err)
	}
}
