package check

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace/cite"
	"github.com/srctrace/srctrace/trace/source"
)

func fixtureTree(t *testing.T) *Tree {
	t.Helper()
	dir, _ := fixtures.Unpack(t, "watchshape")
	tree, err := Open(context.Background(), source.Spec{Dir: dir, Modules: []string{"example.com/etcd/server/v3"},
		Layout: map[string]string{"example.com/etcd/server/v3": "server"}, Env: fixtures.Env})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// The fixture's server/storage/mvcc/store.go has `return nil, ErrCompacted`
// at line 11 and `return ErrCompacted` at line 20 (see its // want: lines);
// every file of the archive is in the tree.
func TestCheck(t *testing.T) {
	tree := fixtureTree(t)
	if tree.Version != "v3.9.0-fixture" {
		t.Fatalf("version %q", tree.Version)
	}
	k := &Checker{Default: tree}
	notes := strings.Join([]string{
		"a server/storage/mvcc/store.go:11 b",                          // ok, no text
		"server/storage/mvcc/store.go:11:\t\treturn nil, ErrCompacted", // ok, grep form
		"store.go:20 `return ErrCompacted`",                            // ok, bare with text
		"store.go:12 `return ErrCompacted`",                            // drifted to 20
		"store.go:10-12 `return nil, ErrCompacted // want: return`",    // drifted range: 11-13
		"store.go:11 `no such text anywhere`",                          // mismatch
		"store.go:999",                                                 // missing: beyond the end
		"nosuch.go:1",                                                  // missing file
		"https://github.com/etcd-io/etcd/blob/v3.9.0-fixture/server/storage/mvcc/store.go#L19 `return ErrCompacted`", // drifted link
		"https://github.com/other/repo/blob/v3.9.0-fixture/x.go#L1",                                                  // unresolved
		"https://github.com/etcd-io/etcd/blob/main/x.go#L1",                                                          // unresolved
		"https://github.com/etcd-io/etcd/blob/v3.8.8/x.go#L1",                                                        // unresolved: no opener
		"kv.go:5 and storage/mvcc/store.go:20 `return ErrCompacted`",                                                 // ok bare in rpc/, module-relative ok
	}, "\n") + "\n"
	cs, ps := cite.Parse([]byte(notes))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	var got []string
	var results []Result
	for _, c := range cs {
		r := k.Check(context.Background(), c)
		results = append(results, r)
		s := string(r.Status)
		if r.Status == Drifted {
			s += " " + itoa(r.Now)
		}
		got = append(got, s)
	}
	want := []string{"ok", "ok", "ok", "drifted 20", "drifted 11", "mismatch", "missing", "missing",
		"drifted 20", "unresolved", "unresolved", "unresolved", "ok", "ok"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	fixed := string(Fix([]byte(notes), results))
	wantFixed := strings.NewReplacer(
		"store.go:12 `return ErrCompacted`", "store.go:20 `return ErrCompacted`",
		"store.go:10-12", "store.go:11-13",
		"store.go#L19", "store.go#L20",
	).Replace(notes)
	if diff := cmp.Diff(wantFixed, fixed); diff != "" {
		t.Errorf("fixed notes (-want +got):\n%s", diff)
	}
	// Fixing fixed notes changes nothing more.
	cs, _ = cite.Parse([]byte(fixed))
	results = results[:0]
	for _, c := range cs {
		results = append(results, k.Check(context.Background(), c))
	}
	if again := string(Fix([]byte(fixed), results)); again != fixed {
		t.Errorf("a second fix changed:\n%s", again)
	}
}

func TestFixGrepAndCRLF(t *testing.T) {
	tree := fixtureTree(t)
	k := &Checker{Default: tree}
	notes := "x\r\nserver/storage/mvcc/store.go:19:\t\treturn ErrCompacted // want: return\r\nkeep\xff bytes\r\n"
	cs, _ := cite.Parse([]byte(notes))
	var rs []Result
	for _, c := range cs {
		rs = append(rs, k.Check(context.Background(), c))
	}
	want := strings.Replace(notes, "store.go:19:", "store.go:20:", 1)
	if got := string(Fix([]byte(notes), rs)); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestAmbiguous(t *testing.T) {
	tree := &Tree{Version: "v", files: map[string]string{"a/x.go": "", "b/x.go": ""}, base: map[string][]string{"x.go": {"a/x.go", "b/x.go"}}}
	r := (&Checker{Default: tree}).Check(context.Background(), cite.Citation{Form: cite.Bare, File: "x.go", Line: 1})
	if r.Status != Ambiguous || !strings.Contains(r.Msg, "a/x.go, b/x.go") {
		t.Errorf("%+v", r)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for n > 0 {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}
