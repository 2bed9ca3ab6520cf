package source

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	a := &Source{Kind: "module", Dir: dir, gomod: workGoMod([]string{"example.com/a"}, "v3.0.0")}
	b := &Source{Kind: "module", Dir: dir, gomod: workGoMod([]string{"example.com/a", "example.com/b"}, "v3.0.0")}
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
