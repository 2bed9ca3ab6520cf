package trace

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace/callpath"
)

// TestServerWrites: the server's own writes of a request's field are
// those into a struct it was handed (the errors fixture's pinned writes
// the Range request's revision), not the literals that build one (the
// client's Do, in the same program), and not its package's own code.
func TestServerWrites(t *testing.T) {
	dir, _ := fixtures.Unpack(t, "errors")
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedTypes |
		packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule | packages.NeedDeps,
		Dir: filepath.Join(dir, "server"), Env: append(os.Environ(), fixtures.Env...)}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatal(err)
	}
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
	for _, fn := range got["Revision"] {
		if fn == "example.com/etcd/server/v3/client.(*kv).Do" {
			t.Errorf("the writers of Revision are %v: the client's literal is none", got["Revision"])
		}
	}
}
