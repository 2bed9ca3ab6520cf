package trace

import (
	"slices"
	"strings"
	"testing"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace/callpath"
)

// TestServerWrites: the server's own writes of a request's field are
// those into a struct it was handed (the errors fixture's pinned writes
// the Range request's revision) and the literals it builds (the client's
// Do, in the same program: with the field left zero, every read of it
// is), not its declaring package's own code (the generated decoders).
func TestServerWrites(t *testing.T) {
	pkgs := fixtures.Load(t, "errors")
	g, err := callpath.Build(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for v, fns := range serverWrites(g) {
		for _, fn := range fns {
			got[v.Name()] = append(got[v.Name()], callpath.Name(fn))
		}
	}
	const v3rpc = "example.com/etcd/server/v3/v3rpc"
	if !slices.Contains(got["Revision"], v3rpc+".pinned") {
		t.Errorf("the writers of Revision are %v, want %s among them", got["Revision"], v3rpc+".pinned")
	}
	if !slices.Contains(got["Revision"], "example.com/etcd/server/v3/client.(*kv).Do") {
		t.Errorf("the writers of Revision are %v, want the client's literal among them", got["Revision"])
	}
	for _, fn := range got["Revision"] {
		if strings.HasPrefix(fn, "example.com/etcd/server/v3/api/kvpb.") {
			t.Errorf("the writers of Revision are %v: the declaring package's own code is none", got["Revision"])
		}
	}
}
