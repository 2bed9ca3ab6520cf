package trace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/txtar"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/study"
)

// TestUseWaitsForStartedRoots: in testdata/starts.txtar the gRPC method
// kvServer.Range reads the store (one call) and starts the goroutine
// kvServer.recheck, which reads it too (two calls). The method is the
// nearer candidate and is searched; the goroutine is one the method
// starts, so outermost would drop it whatever its search found: why keeps
// the method alone and never searches the goroutine.
func TestUseWaitsForStartedRoots(t *testing.T) {
	ar, err := txtar.ParseFile(filepath.Join("testdata", "starts.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range ar.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err := study.Parse(fixtures.File(ar, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex // the hook is called from the forks' goroutines
		searched []string
	)
	searchedHook = func(si int, root *ssa.Function) {
		mu.Lock()
		defer mu.Unlock()
		searched = append(searched, callpath.Name(root))
	}
	defer func() { searchedHook = nil }()
	rep, err := Why(context.Background(), WhyOptions{Symbol: "example.com/etcd/server/v3/storage/mvcc.ErrCompacted", Target: st.Tgt(), Dir: dir, Env: fixtures.Env})
	if err != nil {
		t.Fatal(err)
	}
	const method, goroutine = "example.com/etcd/server/v3/server.(*kvServer).Range", "example.com/etcd/server/v3/server.(*kvServer).recheck"
	if !slices.Contains(searched, method) {
		t.Errorf("searched %v, want %s among them", searched, method)
	}
	if slices.Contains(searched, goroutine) {
		t.Errorf("searched %v: %s was searched, though the method that starts it was found", searched, goroutine)
	}
	var roots []string
	for _, s := range rep.Sites {
		if s.Kind == "return" {
			roots = append(roots, s.Roots...)
		}
	}
	if want := []string{"server.(*kvServer).Range"}; !slices.Equal(roots, want) {
		t.Errorf("the return's roots are %v, want %v", roots, want)
	}
}

// TestAnswerNoUses: an object with no use found (v3.7.3's
// etcdserver.raftNode.ForgetLeader, whose why panicked here) has no part
// to answer: the answers are none, and the checker after them is the
// run's own.
func TestAnswerNoUses(t *testing.T) {
	for _, grpc := range []bool{false, true} {
		w := &whyRun{Result: &Result{Pass: &study.Pass{}}, added: map[*ssa.Function]int{}}
		reached, err := answerUses(context.Background(), w, grpc, useShards)
		if err != nil || len(reached) != 0 || len(w.Pairs) != 0 {
			t.Errorf("grpc %v: reached %v, %d pairs, err %v; want nothing", grpc, reached, len(w.Pairs), err)
		}
	}
}
