package feasible

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace/callpath"
)

// loadMain builds the call graph of a one-file main package src in
// module mod, and returns it with a lookup of its functions by name.
func loadMain(t *testing.T, mod, src string) (*callpath.Graph, func(name string) *ssa.Function) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string]string{"go.mod": "module " + mod + "\n\ngo 1.22\n", "main.go": src} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedTypes |
		packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule | packages.NeedDeps,
		Dir: dir, Env: append(os.Environ(), fixtures.Env...)}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil || packages.PrintErrors(pkgs) > 0 {
		t.Fatalf("loading: %v", err)
	}
	g, err := callpath.Build(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	return g, func(name string) *ssa.Function {
		t.Helper()
		f, err := g.Func(mod + "." + name)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
}
