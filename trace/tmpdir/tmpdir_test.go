package tmpdir

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
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
	for _, bad := range []string{"other-", "srctrace-a/b-", "srctrace-a*-"} {
		if _, err := Make(bad); err == nil {
			t.Errorf("Make accepted the pattern %q", bad)
		}
	}
	if err := Remove(""); err == nil {
		t.Error("Remove of no directory did not fail")
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

// writeOwner makes dir and an owner file beside it with content.
func writeOwner(t *testing.T, dir, content string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+ownerSuffix, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// exists reports whether every path is there.
func exists(paths ...string) bool {
	for _, p := range paths {
		if _, err := os.Lstat(p); err != nil {
			return false
		}
	}
	return true
}

// TestSweepKeeps checks what Sweep must leave alone, and what it
// removes: a dead owner's directory, one whose pid another process took,
// an owner file without its directory.
func TestSweepKeeps(t *testing.T) {
	needProc(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	me := own()
	as := func(f func(*identity)) string {
		id := me
		f(&id)
		return id.String()
	}
	dead := func(id *identity) { id.pid = 1 << 30 }
	keep := map[string]string{
		// This process, alive.
		"srctrace-self": me.String(),
		// Another boot, another pid or time namespace: another machine or
		// container may still be running it.
		"srctrace-boot":   as(func(id *identity) { dead(id); id.boot = "another-boot" }),
		"srctrace-pidns":  as(func(id *identity) { dead(id); id.pidNS = "pid:[1]" }),
		"srctrace-timens": as(func(id *identity) { dead(id); id.timeNS = "time:[1]" }),
		// Not an owner file that can be read.
		"srctrace-garbled": "not an owner\n",
		"srctrace-partial": ownerMagic + "\npid 12",
		"srctrace-twice":   strings.Replace(as(dead), "boot ", "pid 12\nboot ", 1),
		// Not ours by name.
		"other-dead": as(dead),
	}
	for name, content := range keep {
		writeOwner(t, filepath.Join(tmp, name), content)
	}
	// A directory with no owner file.
	if err := os.Mkdir(filepath.Join(tmp, "srctrace-noowner"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A file, not a directory, beside a dead owner's file.
	if err := os.WriteFile(filepath.Join(tmp, "srctrace-file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "srctrace-file"+ownerSuffix), []byte(as(dead)), 0o644); err != nil {
		t.Fatal(err)
	}
	// A link to a directory outside, beside a dead owner's file: what it
	// points to survives.
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(tmp, "srctrace-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "srctrace-link"+ownerSuffix), []byte(as(dead)), 0o644); err != nil {
		t.Fatal(err)
	}
	// An owner file that is a link to a dead owner's content.
	target := filepath.Join(outside, "owner")
	if err := os.WriteFile(target, []byte(as(dead)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(tmp, "srctrace-ownerlink"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(tmp, "srctrace-ownerlink"+ownerSuffix)); err != nil {
		t.Fatal(err)
	}
	// An owner file that cannot be read, without its directory, but new:
	// a Make may be writing it.
	fresh := filepath.Join(tmp, "srctrace-fresh"+ownerSuffix)
	if err := os.WriteFile(fresh, nil, 0o644); err != nil {
		t.Fatal(err)
	}

	// Gone: no such pid; this pid but another start (used again); an
	// owner file whose directory is gone already; an empty owner file
	// older than a minute, without its directory (a Make killed while it
	// wrote).
	gone := []string{filepath.Join(tmp, "srctrace-nopid"), filepath.Join(tmp, "srctrace-reused")}
	writeOwner(t, gone[0], as(dead))
	writeOwner(t, gone[1], as(func(id *identity) { id.start += "0" }))
	orphan := filepath.Join(tmp, "srctrace-orphan")
	if err := os.WriteFile(orphan+ownerSuffix, []byte(as(dead)), 0o644); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(tmp, "srctrace-stale")
	if err := os.WriteFile(stale+ownerSuffix, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-2 * staleOwner)
	if err := os.Chtimes(stale+ownerSuffix, old, old); err != nil {
		t.Fatal(err)
	}
	gone = append(gone, orphan, stale)
	slices.Sort(gone)

	if got := Sweep(); !slices.Equal(got, gone) {
		t.Fatalf("Sweep removed %v, want %v", got, gone)
	}
	for name := range keep {
		if !exists(filepath.Join(tmp, name), filepath.Join(tmp, name+ownerSuffix)) {
			t.Errorf("Sweep removed %s or its owner file", name)
		}
	}
	for _, p := range []string{"srctrace-noowner", "srctrace-file", "srctrace-file" + ownerSuffix, "srctrace-link", "srctrace-link" + ownerSuffix,
		"srctrace-ownerlink", "srctrace-ownerlink" + ownerSuffix, "srctrace-fresh" + ownerSuffix} {
		if !exists(filepath.Join(tmp, p)) {
			t.Errorf("Sweep removed %s", p)
		}
	}
	if !exists(filepath.Join(outside, "keep"), target) {
		t.Error("Sweep removed what a link points to")
	}
	for _, g := range gone {
		for _, p := range []string{g, g + ownerSuffix} {
			if _, err := os.Lstat(p); !os.IsNotExist(err) {
				t.Errorf("%s is still there after Sweep (%v)", p, err)
			}
		}
	}
}

// TestSweepUndecided: a process whose /proc entry cannot be read is taken
// to be running, and so is one whose entry is hidden (hidepid) while its
// pid exists.
func TestSweepUndecided(t *testing.T) {
	needProc(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	me := own()
	saved := readStartTime
	defer func() { readStartTime = saved }()
	for name, fail := range map[string]error{"unreadable": os.ErrPermission, "hidden": os.ErrNotExist} {
		t.Run(name, func(t *testing.T) {
			// This process's own pid, which exists, with another start.
			id := me
			id.start += "0"
			dir := filepath.Join(tmp, "srctrace-"+name)
			writeOwner(t, dir, id.String())
			readStartTime = func(string) (string, error) { return "", fail }
			if got := Sweep(); len(got) != 0 {
				t.Fatalf("Sweep removed %v", got)
			}
			readStartTime = saved
			if got := Sweep(); !slices.Equal(got, []string{dir}) {
				t.Fatalf("with /proc read, Sweep removed %v, want %s", got, dir)
			}
		})
	}
}

// TestSweepOtherUser: another user's directory and owner file stay,
// though the owner file names a dead process (root only: it gives them
// away).
func TestSweepOtherUser(t *testing.T) {
	needProc(t)
	if os.Geteuid() != 0 {
		t.Skip("only root can give a file to another user")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	id := own()
	id.pid = 1 << 30
	for _, which := range []string{"dir", "owner"} {
		dir := filepath.Join(tmp, "srctrace-"+which)
		writeOwner(t, dir, id.String())
		p := dir
		if which == "owner" {
			p += ownerSuffix
		}
		if err := os.Lchown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	if got := Sweep(); len(got) != 0 {
		t.Fatalf("Sweep removed another user's %v", got)
	}
}

// TestSweepWithoutIdentity: a process that cannot read its own identity
// removes nothing, though an owner file of its own boot and namespaces
// names a dead process.
func TestSweepWithoutIdentity(t *testing.T) {
	needProc(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	saved := own()
	defer func() { self = saved }()
	id := saved
	id.pid = 1 << 30
	dir := filepath.Join(tmp, "srctrace-dead")
	writeOwner(t, dir, id.String())
	self.start = ""
	if got := Sweep(); len(got) != 0 {
		t.Fatalf("Sweep without an identity removed %v", got)
	}
	self = saved
	if got := Sweep(); !slices.Equal(got, []string{dir}) {
		t.Fatalf("with its identity, Sweep removed %v, want %s", got, dir)
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
	st, err := readStartTime("self")
	if err != nil || st == "" || st != own().start {
		t.Fatalf("readStartTime(self) = %q, %v; own start %q", st, err, own().start)
	}
	if _, err := readStartTime(strconv.Itoa(1 << 30)); !os.IsNotExist(err) {
		t.Fatalf("readStartTime of no process: %v, want not exist", err)
	}
}
