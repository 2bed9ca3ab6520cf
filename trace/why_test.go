package trace_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/report"
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

// TestWhyReleases: why on objects of real etcd v3.7.3, with expectations
// derived by reading the source.
func TestWhyReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a real etcd release")
	}
	for _, tc := range []struct {
		symbol string
		uses   map[string][]string // some uses and their nearest roots
	}{
		{"go.etcd.io/etcd/server/v3/storage/mvcc.ErrFutureRev", map[string][]string{
			// checkRange, from the Txn handler (read-only txn, applied
			// locally). The KV service registered is quotaKVServer
			// (v3rpc/grpc.go:80), whose Txn calls kvServer.Txn.
			"server/etcdserver/txn/range.go:179 return": {"v3rpc.(*quotaKVServer).Txn"},
			// hashByRev, from the peer HTTP handler and the HashKV method of
			// the registered maintenance service, authMaintenanceServer
			// (grpc.go:89, NewMaintenanceServer), which calls maintenanceServer's.
			"server/storage/mvcc/kvstore.go:191 return": {"etcdserver.(*hashKVHandler).ServeHTTP", "v3rpc.(*authMaintenanceServer).HashKV"},
		}},
		{"go.etcd.io/etcd/server/v3/lease.ErrLeaseNotFound", map[string][]string{
			// The lease HTTP handler compares the lessor's error (http.go:93).
			"server/lease/leasehttp/http.go:93 comparison": {"leasehttp.(*leaseHandler).ServeHTTP"},
			"server/lease/lessor.go:61 definition":         nil,
		}},
		{"go.etcd.io/etcd/api/v3/v3rpc/rpctypes.ErrGRPCNoLeader", map[string][]string{
			// The unary interceptor returns it when there is no leader; gRPC
			// calls the interceptor for each request.
			"server/etcdserver/api/v3rpc/interceptor.go:70 return": {"v3rpc.newUnaryInterceptor$1"},
		}},
	} {
		t.Run(tc.symbol[strings.LastIndex(tc.symbol, "/")+1:], func(t *testing.T) {
			w, err := trace.Why(context.Background(), trace.WhyOptions{Symbol: tc.symbol, Version: "v3.7.3"})
			if err != nil {
				t.Fatal(err)
			}
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
		})
	}
}
