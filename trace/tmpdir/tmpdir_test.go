package tmpdir

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needProc skips where the process's identity cannot be read: there
// Sweep removes nothing, which TestSweepWithoutIdentity checks.
func needProc(t *testing.T) {
	t.Helper()
	if !own().complete() {
		t.Skip("no /proc identity on this system: Sweep removes nothing here")
	}
}

func TestMakeAndRemove(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir, err := Make("srctrace-test-")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(dir), "srctrace-test-") || filepath.Dir(dir) != os.TempDir() {
		t.Fatalf("Make made %s, want srctrace-test-* in %s", dir, os.TempDir())
	}
	b, err := os.ReadFile(dir + ownerSuffix)
	if err != nil {
		t.Fatal(err)
	}
	id, ok := parseOwner(b)
	if own().complete() && (!ok || id != own()) {
		t.Fatalf("owner file says %+v (ok %v), want this process %+v", id, ok, own())
	}
	if err := os.WriteFile(filepath.Join(dir, "x"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Remove(dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, dir + ownerSuffix} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there after Remove (%v)", p, err)
		}
	}
	if _, err := Make("other-"); err == nil {
		t.Error("Make accepted a pattern without the prefix")
	}
}

// TestMain runs, when TMPDIR_HELPER is set, as the process that
// TestSweepKilled kills: it makes a directory, says its name and waits.
func TestMain(m *testing.M) {
	if os.Getenv("TMPDIR_HELPER") != "" {
		dir, err := Make("srctrace-killed-")
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if err := os.WriteFile(filepath.Join(dir, "work"), []byte("work"), 0o644); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(dir)
		time.Sleep(time.Minute) // killed long before
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestSweepKilled kills a process that made a directory, as SIGKILL does
// to a run: the directory stays, and the next Sweep removes it and its
// owner file, while it keeps a live process's directory (this one's).
func TestSweepKilled(t *testing.T) {
	needProc(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "TMPDIR_HELPER=1", "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := false
	t.Cleanup(func() {
		if !waited {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	var line string
	if _, err := fmt.Fscanln(out, &line); err != nil || !strings.HasPrefix(line, tmp) {
		t.Fatalf("helper said %q (%v)", line, err)
	}
	killed := line
	// The helper is alive: its directory stays.
	mine, err := Make("srctrace-live-")
	if err != nil {
		t.Fatal(err)
	}
	if got := Sweep(); len(got) != 0 {
		t.Fatalf("Sweep with every owner alive removed %v", got)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	waited = true
	if _, err := os.Stat(filepath.Join(killed, "work")); err != nil {
		t.Fatalf("the killed process's directory is already gone: %v", err)
	}
	got := Sweep()
	if !slices.Equal(got, []string{killed}) {
		t.Fatalf("Sweep removed %v, want only %s", got, killed)
	}
	for _, p := range []string{killed, killed + ownerSuffix} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there after Sweep (%v)", p, err)
		}
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("Sweep removed this live process's directory: %v", err)
	}
	Remove(mine)
}

// writeOwner makes dir (unless it is empty) and an owner file beside it
// with content.
func writeOwner(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+ownerSuffix, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSweepKeeps checks what Sweep must leave alone, and that a pid used
// again by another process does not keep a dead owner's directory.
func TestSweepKeeps(t *testing.T) {
	needProc(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	me := own()
	other := func(f func(*identity)) string {
		id := me
		f(&id)
		return id.String()
	}
	keep := map[string]string{
		// This process, alive.
		"srctrace-self": me.String(),
		// Another boot, another pid namespace: another machine or
		// container may still be running it.
		"srctrace-boot":  other(func(id *identity) { id.boot = "another-boot"; id.pid = 1 << 30 }),
		"srctrace-pidns": other(func(id *identity) { id.pidNS = "pid:[1]"; id.pid = 1 << 30 }),
		// Not an owner file that can be read.
		"srctrace-garbled": "not an owner\n",
		"srctrace-partial": ownerMagic + "\npid 12",
		// Not ours by name.
		"other-dead": other(func(id *identity) { id.pid = 1 << 30 }),
	}
	for name, content := range keep {
		writeOwner(t, filepath.Join(tmp, name), content)
	}
	// A directory with no owner file.
	if err := os.Mkdir(filepath.Join(tmp, "srctrace-noowner"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A file (not a directory) beside a dead owner's file.
	if err := os.WriteFile(filepath.Join(tmp, "srctrace-file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "srctrace-file"+ownerSuffix), []byte(other(func(id *identity) { id.pid = 1 << 30 })), 0o644); err != nil {
		t.Fatal(err)
	}
	// Gone: no such pid; this pid but another start (used again).
	gone := []string{filepath.Join(tmp, "srctrace-nopid"), filepath.Join(tmp, "srctrace-reused")}
	writeOwner(t, gone[0], other(func(id *identity) { id.pid = 1 << 30 }))
	writeOwner(t, gone[1], other(func(id *identity) { id.start = id.start + "0" }))
	// An owner file whose directory is gone already.
	orphan := filepath.Join(tmp, "srctrace-orphan")
	if err := os.WriteFile(orphan+ownerSuffix, []byte(other(func(id *identity) { id.pid = 1 << 30 })), 0o644); err != nil {
		t.Fatal(err)
	}
	gone = append(gone, orphan)
	slices.Sort(gone)

	got := Sweep()
	if !slices.Equal(got, gone) {
		t.Fatalf("Sweep removed %v, want %v", got, gone)
	}
	for name := range keep {
		for _, p := range []string{name, name + ownerSuffix} {
			if _, err := os.Lstat(filepath.Join(tmp, p)); err != nil {
				t.Errorf("Sweep removed %s: %v", p, err)
			}
		}
	}
	for _, p := range []string{"srctrace-noowner", "srctrace-file", "srctrace-file" + ownerSuffix} {
		if _, err := os.Lstat(filepath.Join(tmp, p)); err != nil {
			t.Errorf("Sweep removed %s: %v", p, err)
		}
	}
	for _, g := range gone {
		for _, p := range []string{g, g + ownerSuffix} {
			if _, err := os.Lstat(p); !os.IsNotExist(err) {
				t.Errorf("%s is still there after Sweep (%v)", p, err)
			}
		}
	}
}

// TestSweepWithoutIdentity: a process that cannot read its own identity
// removes nothing, though an owner file names a dead process.
func TestSweepWithoutIdentity(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	saved := own()
	defer func() { self = saved }()
	id := saved
	id.pid, id.start, id.boot, id.pidNS = 1<<30, "1", "b", "pid:[1]"
	writeOwner(t, filepath.Join(tmp, "srctrace-dead"), id.String())
	self.boot = ""
	if got := Sweep(); len(got) != 0 {
		t.Fatalf("Sweep without an identity removed %v", got)
	}
	if _, err := os.Stat(filepath.Join(tmp, "srctrace-dead")); err != nil {
		t.Fatal(err)
	}
}

func TestReadStartTime(t *testing.T) {
	// A command name with spaces and parentheses does not shift the fields.
	stat := "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10"
	if st, ok := statStart(stat); !ok || st != "987654" {
		t.Fatalf("statStart = %q, %v; want 987654", st, ok)
	}
	if _, ok := statStart("4242 (a) S 1"); ok {
		t.Fatal("statStart read a start time from a stat line that has none")
	}
	needProc(t)
	st, err := readStartTime(os.Getpid())
	if err != nil || st == "" {
		t.Fatalf("readStartTime(self) = %q, %v", st, err)
	}
	if _, err := readStartTime(1 << 30); !os.IsNotExist(err) {
		t.Fatalf("readStartTime of no process: %v, want not exist", err)
	}
}
