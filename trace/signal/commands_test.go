package signal_test

import (
	"path/filepath"
	"testing"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/signal"
)

// TestResolve: the command typed words run, as a library in the manner of
// cobra finds it, on fixtures/errors.txtar's tool: by name, by alias, by
// the start of a name when the tool turns prefix matching on (found from
// the store in its init function), and none.
func TestResolve(t *testing.T) {
	pkgs := fixtures.Load(t, "errors")
	g, err := callpath.Build(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	c := signal.NewCommands(g, pkgs, nil)
	tree := signal.CommandTree{Root: "example.com/etcd/server/v3/ctl.rootCmd", Command: "example.com/cli.Command",
		Use: "Use", Run: []string{"Run"}, Add: "AddCommand", Aliases: "Aliases"}
	set, on := c.SetTrue("example.com/cli.EnablePrefixMatching")
	if !on || filepath.Base(set.Filename) != "ctl.go" || set.Text != "cli.EnablePrefixMatching = true" {
		t.Fatalf("SetTrue: %v %+v, want the store in ctl.go's init", on, set)
	}
	if _, off := c.SetTrue("example.com/cli.Nothing"); off {
		t.Error("SetTrue found a store in a variable that does not exist")
	}
	for _, tc := range []struct {
		typed    string
		prefix   bool
		path     string // "" for none
		byPrefix bool
	}{
		{"get", true, "get", false},
		{"ge", true, "get", true},
		{"ge", false, "", false},
		{"member list", true, "member list", false},
		{"members list", false, "member list", false}, // an alias is a name
		{"mem list", true, "member list", true},
		{"memb", true, "member", true},
		{"delete", true, "", false},
		{"get x", true, "", false},
	} {
		res, found, err := c.Resolve(tree, tc.typed, tc.prefix)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if found {
			got = res.Path
		}
		if got != tc.path || (found && res.ByPrefix != tc.byPrefix) {
			t.Errorf("Resolve(%q, prefix %v) = %q (by prefix %v), want %q (by prefix %v)", tc.typed, tc.prefix, got, res.ByPrefix, tc.path, tc.byPrefix)
		}
		if found && res.UseAt.Line == 0 {
			t.Errorf("Resolve(%q): no position for its usage line", tc.typed)
		}
	}
}
