package source

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
	"golang.org/x/tools/go/packages"
)

var layout = map[string]string{
	"go.etcd.io/etcd/server/v3": "server",
	"go.etcd.io/etcd/api/v3":    "api",
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestResolveDirErrors(t *testing.T) {
	ctx := context.Background()
	spec := func(dir string) Spec {
		return Spec{Dir: dir, Modules: []string{"go.etcd.io/etcd/server/v3"}, Layout: layout}
	}
	empty := t.TempDir()
	wrong := t.TempDir()
	write(t, filepath.Join(wrong, "server", "go.mod"), "module example.com/other\n")
	file := filepath.Join(t.TempDir(), "f")
	write(t, file, "x")
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"no server/go.mod", empty, "no go.mod under " + filepath.Join(empty, "server") + ": --etcd-dir wants the root of an etcd checkout"},
		{"other module", wrong, "declares module example.com/other"},
		{"not a directory", file, "is not a directory"},
		{"missing", filepath.Join(empty, "nope"), "is not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve(ctx, spec(tc.dir))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if !errors.Is(err, ErrUsage) {
				t.Errorf("err = %v, want a usage error", err)
			}
		})
	}
}

func TestResolveDirVersion(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "server", "go.mod"), "module go.etcd.io/etcd/server/v3\n\ngo 1.22\n")
	write(t, filepath.Join(root, "api", "go.mod"), "module go.etcd.io/etcd/api/v3\n\ngo 1.22\n")
	write(t, filepath.Join(root, "api", "version", "version.go"), "package version\n\nvar (\n\tMinClusterVersion = \"3.0.0\"\n\tVersion = \"3.6.99\"\n)\n")
	ctx := context.Background()
	spec := Spec{Dir: root, Modules: []string{"go.etcd.io/etcd/server/v3", "go.etcd.io/etcd/etcdctl/v3"},
		Layout: map[string]string{"go.etcd.io/etcd/server/v3": "server", "go.etcd.io/etcd/etcdctl/v3": "etcdctl"}}
	s, err := Resolve(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Version != "v3.6.99" || s.Kind != "dir" {
		t.Errorf("version %q kind %q, want v3.6.99 from api/version and dir", s.Version, s.Kind)
	}
	if got := s.Missing["go.etcd.io/etcd/etcdctl/v3"]; !strings.Contains(got, "etcdctl/go.mod") {
		t.Errorf("missing etcdctl = %q", got)
	}
	if got := s.RepoPath(filepath.Join(root, "server", "storage", "mvcc", "kvstore.go")); got != "server/storage/mvcc/kvstore.go" {
		t.Errorf("RepoPath = %q", got)
	}
	if f, ok := s.File("server/storage/mvcc/kvstore.go"); !ok || f != filepath.Join(root, "server", "storage", "mvcc", "kvstore.go") {
		t.Errorf("File = %q, %v", f, ok)
	}

	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "x")
	git("tag", "v3.6.98")
	s, err = Resolve(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Version != "v3.6.98" {
		t.Errorf("version %q, want git describe's v3.6.98", s.Version)
	}
}

func TestResolveReleaseErrors(t *testing.T) {
	ctx := context.Background()
	for _, v := range []string{"banana", "3.7.3", "v3.7", "v4.0.0", "v3.7.3; rm -rf /"} {
		_, err := Resolve(ctx, Spec{Version: v, Modules: []string{"go.etcd.io/etcd/server/v3"}, CacheDir: t.TempDir()})
		if err == nil || !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "is not an etcd release") {
			t.Errorf("%q: err = %v, want a usage error", v, err)
		}
	}
	_, err := Resolve(ctx, Spec{Version: "v3.7.3", Dir: "x", Modules: []string{"m"}})
	if err == nil || !errors.Is(err, ErrUsage) {
		t.Errorf("both: err = %v", err)
	}
}

// TestResolveOffline: an empty module cache with no proxy says so in one
// sentence and leaves no work module behind.
func TestResolveOffline(t *testing.T) {
	for _, tc := range []struct{ proxy, want string }{
		{"off", "etcd v3.7.3 is not in the module cache, and GOPROXY=off forbids fetching it"},
		{"http://127.0.0.1:9", "etcd v3.7.3 is not in the module cache and the module proxy cannot be reached"},
	} {
		cache := t.TempDir()
		modcache := t.TempDir()
		_, err := Resolve(context.Background(), Spec{
			Version: "v3.7.3", Modules: []string{"go.etcd.io/etcd/server/v3"}, CacheDir: cache,
			Env: []string{"GOMODCACHE=" + modcache, "GOPROXY=" + tc.proxy},
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("GOPROXY=%s: err = %v, want %q", tc.proxy, err, tc.want)
		}
		if ents, _ := os.ReadDir(filepath.Join(cache, "work")); len(ents) != 0 {
			t.Errorf("GOPROXY=%s: left behind: %v", tc.proxy, ents)
		}
		// The go command makes its module cache read-only; let TempDir clean it.
		exec.Command("chmod", "-R", "u+w", modcache).Run()
	}
}

func TestProxySays(t *testing.T) {
	for in, want := range map[string]string{
		"go.etcd.io/etcd/server/v3@v3.9.9: reading https://proxy.golang.org/go.etcd.io/etcd/server/v3/@v/v3.9.9.info: 403 Forbidden\n\tserver response: This module version is not available.": "This module version is not available.",
		"go.etcd.io/etcd/server/v3@v3.9.9: module lookup disabled by GOPROXY=off":                                                                                                              "module lookup disabled by GOPROXY=off",
	} {
		if got := proxySays(in); got != want {
			t.Errorf("proxySays(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out")
	if err := WriteFileAtomic(name, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(name, []byte("two")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(name); string(b) != "two" {
		t.Errorf("content %q", b)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "no", "such", "dir"), []byte("x")); err == nil {
		t.Error("want an error for a missing directory")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func TestImportFile(t *testing.T) {
	s := &Source{layout: map[string]string{
		"go.etcd.io/etcd/server/v3": "server", "go.etcd.io/etcd/client/v3": "client/v3", "go.etcd.io/etcd/client/pkg/v3": "client/pkg",
	}}
	for in, want := range map[string]string{
		"go.etcd.io/etcd/server/v3/storage/mvcc/watcher_group.go": "server/storage/mvcc/watcher_group.go",
		"go.etcd.io/etcd/client/v3/watch.go":                      "client/v3/watch.go",
		"go.etcd.io/etcd/client/pkg/v3/types/id.go":               "client/pkg/types/id.go",
		"srctrace.work/etcd/runner/main.go":                       "srctrace.work/etcd/runner/main.go",
	} {
		if got := s.ImportFile(in); got != want {
			t.Errorf("ImportFile(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLocked: two sources of one work module never run their go commands
// at once, and each runs with the go.mod written for its own modules.
func TestLocked(t *testing.T) {
	dir := t.TempDir()
	a := &Source{Kind: "module", Dir: dir, gomod: workGoMod([]string{"example.com/a"}, "v3.0.0", nil)}
	b := &Source{Kind: "module", Dir: dir, gomod: workGoMod([]string{"example.com/a", "example.com/b"}, "v3.0.0", nil)}
	ctx := context.Background()
	inA, leaveA := make(chan struct{}), make(chan struct{})
	doneA := make(chan error)
	go func() {
		doneA <- a.Locked(ctx, func() error {
			close(inA)
			<-leaveA
			if got, _ := os.ReadFile(filepath.Join(dir, "go.mod")); string(got) != string(a.gomod) {
				return fmt.Errorf("a ran with go.mod %q", got)
			}
			return nil
		})
	}()
	<-inA
	// While a holds the lock, b waits: with a context that ends, it gives up.
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	ran := false
	if err := b.Locked(short, func() error { ran = true; return nil }); !errors.Is(err, context.DeadlineExceeded) || ran {
		t.Errorf("b while a holds the lock: err %v, ran %v", err, ran)
	}
	close(leaveA)
	if err := <-doneA; err != nil {
		t.Error(err)
	}
	err := b.Locked(ctx, func() error {
		if got, _ := os.ReadFile(filepath.Join(dir, "go.mod")); string(got) != string(b.gomod) {
			return fmt.Errorf("b ran with go.mod %q", got)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	// A checkout is not locked and its go.mod not written.
	c := &Source{Kind: "dir", Dir: t.TempDir()}
	if err := c.Locked(ctx, func() error { return nil }); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(c.Dir, "go.mod")); !os.IsNotExist(err) {
		t.Errorf("checkout: go.mod written (%v)", err)
	}
}

// checkoutTree writes a tree shaped like an etcd 3.6 checkout: a server
// and an etcdctl module that replace their siblings api and pkg with
// ../api and ../pkg, while api and pkg replace siblings they must not
// depend on with ./FORBIDDEN_DEPENDENCY (as etcd's go.mod files do), so
// that a go.work using every module has conflicting replacements. With
// gowork, the tree has no FORBIDDEN_DEPENDENCY replacements and a go.work
// of its own, as a 3.7 checkout has.
func checkoutTree(t *testing.T, gowork bool) string {
	t.Helper()
	root := t.TempDir()
	forbid := func(paths ...string) string {
		if gowork {
			return ""
		}
		var b strings.Builder
		for _, p := range paths {
			b.WriteString("replace " + p + " => ./FORBIDDEN_DEPENDENCY\n")
		}
		return b.String()
	}
	write(t, filepath.Join(root, "api", "go.mod"), "module go.etcd.io/etcd/api/v3\n\ngo 1.22\n\n"+forbid("go.etcd.io/etcd/pkg/v3", "go.etcd.io/etcd"))
	write(t, filepath.Join(root, "api", "a", "a.go"), "package a\n\nconst Y = 1\n")
	write(t, filepath.Join(root, "api", "version", "version.go"), "package version\n\nvar Version = \"3.6.97\"\n")
	write(t, filepath.Join(root, "pkg", "go.mod"), "module go.etcd.io/etcd/pkg/v3\n\ngo 1.22\n\nrequire go.etcd.io/etcd/api/v3 v3.6.0\n\n"+forbid("go.etcd.io/etcd/api/v3"))
	write(t, filepath.Join(root, "pkg", "p", "p.go"), "package p\n\nimport \"go.etcd.io/etcd/api/v3/a\"\n\nconst Z = a.Y\n")
	sib := "replace (\n\tgo.etcd.io/etcd/api/v3 => ../api\n\tgo.etcd.io/etcd/pkg/v3 => ../pkg\n)\n\n"
	for _, m := range []string{"server", "etcdctl"} {
		write(t, filepath.Join(root, m, "go.mod"), "module go.etcd.io/etcd/"+m+"/v3\n\ngo 1.23.0\n\nrequire (\n\tgo.etcd.io/etcd/api/v3 v3.6.0\n\tgo.etcd.io/etcd/pkg/v3 v3.6.0\n)\n\n"+sib+forbid("go.etcd.io/etcd"))
		write(t, filepath.Join(root, m, "x", "x.go"), "package x\n\nimport (\n\t\"go.etcd.io/etcd/api/v3/a\"\n\t\"go.etcd.io/etcd/pkg/v3/p\"\n)\n\nconst X = a.Y + p.Z\n")
	}
	if gowork {
		write(t, filepath.Join(root, "go.work"), "go 1.23.0\n\nuse (\n\t./api\n\t./etcdctl\n\t./pkg\n\t./server\n)\n")
	}
	return root
}

// snapshot lists every file under root (also in .git) with its size and
// modification time.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out[p] = fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestResolveCheckout: a checkout without a go.work (etcd 3.6) and one with
// its own (3.7) both load, from the checkout's folders, and nothing in the
// checkout is written.
func TestResolveCheckout(t *testing.T) {
	for _, gowork := range []bool{false, true} {
		t.Run(fmt.Sprintf("go.work=%v", gowork), func(t *testing.T) {
			root := checkoutTree(t, gowork)
			before := snapshot(t, root)
			s, err := Resolve(context.Background(), Spec{Dir: root, Modules: []string{"go.etcd.io/etcd/server/v3", "go.etcd.io/etcd/etcdctl/v3"},
				Env: []string{"GOPROXY=off"}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			pkgs, err := s.Load(context.Background(), packages.NeedName|packages.NeedFiles|packages.NeedModule|packages.NeedDeps|packages.NeedImports,
				"go.etcd.io/etcd/server/v3/x", "go.etcd.io/etcd/etcdctl/v3/x")
			if err != nil {
				t.Fatal(err)
			}
			if err := Errors(pkgs); err != nil {
				t.Fatal(err)
			}
			var files []string
			packages.Visit(pkgs, nil, func(p *packages.Package) {
				for _, f := range p.GoFiles {
					files = append(files, s.RepoPath(f))
				}
			})
			sort.Strings(files)
			want := []string{"api/a/a.go", "etcdctl/x/x.go", "pkg/p/p.go", "server/x/x.go"}
			if strings.Join(files, " ") != strings.Join(want, " ") {
				t.Errorf("files %v, want %v (all from the checkout)", files, want)
			}
			if s.Version != "v3.6.97" || s.Dirty {
				t.Errorf("version %q dirty %v, want v3.6.97 from api/version, not dirty", s.Version, s.Dirty)
			}
			s.Close()
			if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
				t.Errorf("the checkout changed (-before +after):\n%s", diff)
			}
		})
	}
	// A go.work that uses every module of the 3.6-shaped tree is what fails.
	root := checkoutTree(t, false)
	write(t, filepath.Join(root, "go.work"), "go 1.23.0\n\nuse (\n\t./api\n\t./etcdctl\n\t./pkg\n\t./server\n)\n")
	cmd := exec.Command("go", "list", "go.etcd.io/etcd/server/v3/x")
	cmd.Dir = filepath.Join(root, "server")
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=readonly", "GOWORK="+filepath.Join(root, "go.work"))
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "conflicting replacements") {
		t.Errorf("a naive go.work: err %v, output %s; the fixture no longer has etcd's conflict", err, out)
	}
}

// TestDescribeDirty: in a git work tree, the version is git describe's,
// with -dirty when a tracked file has changed (an untracked file does not
// count, as for git describe --dirty), and git writes nothing, not even
// .git/index.
func TestDescribeDirty(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := checkoutTree(t, false)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "x")
	git("tag", "v3.6.98")
	ctx := context.Background()
	for _, tc := range []struct {
		change  func()
		version string
		dirty   bool
	}{
		{func() {}, "v3.6.98", false},
		{func() { write(t, filepath.Join(root, "notes.txt"), "untracked") }, "v3.6.98", false},
		{func() { write(t, filepath.Join(root, "api", "a", "a.go"), "package a\n\nconst Y = 2\n") }, "v3.6.98-dirty", true},
	} {
		tc.change()
		// Let a rewrite of .git/index show as a new modification time.
		time.Sleep(10 * time.Millisecond)
		before := snapshot(t, root)
		v, dirty := Describe(ctx, root, nil)
		if v != tc.version || dirty != tc.dirty {
			t.Errorf("Describe = %q, %v; want %q, %v", v, dirty, tc.version, tc.dirty)
		}
		if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
			t.Errorf("describing changed the tree (-before +after):\n%s", diff)
		}
	}
}

// fileProxy writes a GOPROXY=file:// tree holding each module version
// (path@version: its go.mod) with one Go file, and returns its URL.
func fileProxy(t *testing.T, mods map[string]string) string {
	t.Helper()
	root := t.TempDir()
	lists := map[string][]string{}
	for pv, gomod := range mods {
		path, v, _ := strings.Cut(pv, "@")
		dir := filepath.Join(root, filepath.FromSlash(path), "@v")
		write(t, filepath.Join(dir, v+".mod"), gomod)
		write(t, filepath.Join(dir, v+".info"), fmt.Sprintf(`{"Version":%q,"Time":"2024-01-01T00:00:00Z"}`, v))
		src := t.TempDir()
		write(t, filepath.Join(src, "go.mod"), gomod)
		write(t, filepath.Join(src, "a.go"), "package a\n")
		f, err := os.Create(filepath.Join(dir, v+".zip"))
		if err != nil {
			t.Fatal(err)
		}
		if err := modzip.CreateFromDir(f, module.Version{Path: path, Version: v}, src); err != nil {
			t.Fatal(err)
		}
		f.Close()
		lists[dir] = append(lists[dir], v)
	}
	for dir, vs := range lists {
		sort.Strings(vs)
		write(t, filepath.Join(dir, "list"), strings.Join(vs, "\n")+"\n")
	}
	return "file://" + filepath.ToSlash(root)
}

// TestResolveWith: a work module that requires a module of another
// repository at its own release, and minimum version selection raising the
// release asked for, which Selected shows.
func TestResolveWith(t *testing.T) {
	proxy := fileProxy(t, map[string]string{
		"example.com/a/v3@v3.0.0":   "module example.com/a/v3\n\ngo 1.22\n",
		"example.com/a/v3@v3.1.0":   "module example.com/a/v3\n\ngo 1.22\n",
		"example.com/fits@v0.1.0":   "module example.com/fits\n\ngo 1.22\n\nrequire example.com/a/v3 v3.0.0\n",
		"example.com/raises@v0.2.0": "module example.com/raises\n\ngo 1.22\n\nrequire example.com/a/v3 v3.1.0\n",
	})
	cache := t.TempDir()
	env := []string{"GOMODCACHE=" + filepath.Join(cache, "mod"), "GOPROXY=" + proxy, "GOSUMDB=off", "GONOSUMDB=*", "GOFLAGS=-mod=mod"}
	ctx := context.Background()
	for _, tc := range []struct {
		with, want string
	}{{"example.com/fits@v0.1.0", "v3.0.0"}, {"example.com/raises@v0.2.0", "v3.1.0"}} {
		path, v, _ := strings.Cut(tc.with, "@")
		s, err := Resolve(ctx, Spec{Version: "v3.0.0", Modules: []string{"example.com/a/v3"}, Layout: map[string]string{"example.com/a/v3": "a"},
			With: []Require{{Path: path, Version: v}}, Name: "v3.0.0+" + path[len("example.com/"):], CacheDir: cache, Env: env})
		if err != nil {
			t.Fatal(err)
		}
		if got := filepath.Base(s.Dir); got != "v3.0.0+"+path[len("example.com/"):] {
			t.Errorf("work module %s, want it named by Name", s.Dir)
		}
		if s.Modules[path] == "" {
			t.Errorf("%s: no directory for %s in %v", tc.with, path, s.Modules)
		}
		sel, err := s.Selected(ctx, "example.com/a/v3", path, "example.com/none")
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"example.com/a/v3": tc.want, path: v}
		if d := cmp.Diff(want, sel); d != "" {
			t.Errorf("%s: Selected (-want +got):\n%s", tc.with, d)
		}
		s.Close()
	}
	_, err := Resolve(ctx, Spec{Version: "v3.0.0", Modules: []string{"example.com/a/v3"}, Layout: map[string]string{"example.com/a/v3": "a"},
		With: []Require{{Path: "example.com/fits", Version: "v0.9.0"}}, Name: "v3.0.0+nope", CacheDir: cache, Env: env})
	if err == nil || !strings.Contains(err.Error(), "example.com/fits v0.9.0 cannot be had") {
		t.Errorf("a With module the proxy lacks: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "work", "v3.0.0+nope")); !os.IsNotExist(err) {
		t.Errorf("the failed work module is left behind: %v", err)
	}
}

func TestMissingRoots(t *testing.T) {
	pkgs := []*packages.Package{{PkgPath: "a/b"}, {PkgPath: "a/c"}}
	got := missingRoots(pkgs, []string{"a/b", "a/d", "a/d", "./x", "a/...", "f.go", "a/c", "a/e"})
	if want := []string{"a/d", "a/e"}; !cmp.Equal(got, want) {
		t.Errorf("missingRoots = %v, want %v", got, want)
	}
	if got := missingRoots(pkgs, []string{"a/c", "a/b"}); len(got) != 0 {
		t.Errorf("missingRoots of loaded roots = %v, want none", got)
	}
}

// A work module whose go.sum lacks a module's checksum cannot verify it
// under GOPROXY=off, and go list, asked for export data, then fails with
// nothing on its standard output: go/packages returns no package and no
// error. A go command that fails so (a script in front of the real one)
// stands for it: Load tries again through the proxy, and when that fails
// too, names the package it could not list and where.
func TestLoadWhenListingFails(t *testing.T) {
	const pkg = "github.com/google/go-cmp/cmp"
	realGo, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(realGo, "list", "-m", "-f", "{{.Version}}", "github.com/google/go-cmp").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	bin := t.TempDir()
	write(t, filepath.Join(bin, "go"), `#!/bin/sh
case " $* " in
*" -export=true "*)
	if [ "$GOPROXY" = off ] || [ -n "$SRCTRACE_TEST_FAIL" ]; then
		echo "verifying module: checksum database unreachable" >&2
		exit 1
	fi;;
esac
exec `+realGo+` "$@"
`)
	if err := os.Chmod(filepath.Join(bin, "go"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, fail := range []bool{false, true} {
		dir := t.TempDir()
		write(t, filepath.Join(dir, "go.mod"), "module example.com/w\n\ngo 1.24\n\nrequire github.com/google/go-cmp "+strings.TrimSpace(string(out))+"\n")
		env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOTMPDIR="+t.TempDir())
		if fail {
			env = append(env, "SRCTRACE_TEST_FAIL=1")
		}
		s := &Source{Version: "vtest", Dir: dir, Env: append(env, "GOPROXY=off")}
		pkgs, err := s.Load(context.Background(), packages.NeedName|packages.NeedTypes, pkg)
		if fail {
			if err == nil || !strings.Contains(err.Error(), "listed no package for "+pkg) || !strings.Contains(err.Error(), dir) {
				t.Errorf("Load when every listing fails: err = %v, want one naming %s and %s", err, pkg, dir)
			}
			continue
		}
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if len(pkgs) != 1 || pkgs[0].PkgPath != pkg || pkgs[0].Types == nil {
			t.Fatalf("Load = %v, want %s with its types", pkgs, pkg)
		}
		if s.Offline() {
			t.Errorf("Load did not go on through the proxy: Env still has GOPROXY=off")
		}
	}
}
