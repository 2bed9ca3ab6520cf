// Package tmpdir makes the temporary directories of a run (the go
// command's work, a server's data, a coverage run's files) so that a run
// that is killed before it can clean up (SIGKILL, a second Ctrl-C, the
// out-of-memory killer) does not leave them for good.
//
// Each directory made by Make has an owner file beside it, named after
// it with the suffix ".owner" and made before it, that says which process
// made it: its pid, when it started (so that a pid used again by another
// process is not taken for it), and the boot, pid namespace and time
// namespace it ran in. Sweep, which a run calls as it starts, removes the
// directories whose owner process has ended. It removes only what it can
// tell is its own user's and was made in its own boot and namespaces by
// a process that is gone: a directory without an owner file, an owner
// file it cannot read, another user's, one written in another boot or
// another pid or time namespace (another machine or container sharing
// the temporary directory, or one restarted), and one whose process it
// cannot see end are left alone. Where the process's identity cannot be
// read (systems without /proc, a /proc of another pid namespace), Sweep
// removes nothing. What a process the owner started may still do in the
// directory (a go command outlives a killed run in its own process
// group) does not keep it: that work has no one to use it.
package tmpdir

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Prefix starts the name of every directory Make makes.
const Prefix = "srctrace-"

// ownerSuffix ends the name of an owner file.
const ownerSuffix = ".owner"

// ownerMagic is an owner file's first line.
const ownerMagic = "srctrace temporary directory owner v2"

// maxOwner bounds what is read of an owner file.
const maxOwner = 4096

// staleOwner is how old an owner file that cannot be read, with no
// directory beside it, must be before Sweep removes it: one Make was
// killed while it wrote.
const staleOwner = time.Minute

// identity is a process as an owner file records it.
type identity struct {
	pid    int
	start  string // the process's start time, in clock ticks since boot
	boot   string // the boot's id
	pidNS  string // the pid namespace
	timeNS string // the time namespace ("none" before Linux 5.6)
}

var (
	selfOnce sync.Once
	self     identity
)

// own is this process's identity; its fields other than pid are empty
// where they cannot be read.
func own() identity {
	selfOnce.Do(func() { self = readOwn() })
	return self
}

func readOwn() identity {
	id := identity{pid: os.Getpid()}
	// A /proc mounted for another pid namespace names other processes by
	// this one's pids: nothing read from it could be trusted.
	if me, err := os.Readlink("/proc/self"); err != nil || me != strconv.Itoa(id.pid) {
		return id
	}
	id.start, _ = readStartTime("self")
	id.boot = bootID()
	id.pidNS = namespace("pid")
	id.timeNS = namespace("time")
	if id.timeNS == "" {
		id.timeNS = "none"
	}
	return id
}

// complete reports whether the identity has every field: only then can
// another process's liveness be decided against it.
func (id identity) complete() bool {
	return id.pid > 0 && id.start != "" && id.boot != "" && id.pidNS != "" && id.timeNS != ""
}

// sameWorld reports whether the process id names ran where this one runs:
// the same boot and the same pid and time namespaces (only then do its
// pid and start time mean the same here).
func (id identity) sameWorld(me identity) bool {
	return id.boot == me.boot && id.pidNS == me.pidNS && id.timeNS == me.timeNS
}

func (id identity) String() string {
	return fmt.Sprintf("%s\npid %d\nstart %s\nboot %s\npidns %s\ntimens %s\n", ownerMagic, id.pid, id.start, id.boot, id.pidNS, id.timeNS)
}

// parseOwner reads an owner file's content.
func parseOwner(b []byte) (identity, bool) {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) != 6 || lines[0] != ownerMagic {
		return identity{}, false
	}
	var id identity
	seen := map[string]bool{}
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, " ")
		if !ok || v == "" || seen[k] {
			return identity{}, false
		}
		seen[k] = true
		switch k {
		case "pid":
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return identity{}, false
			}
			id.pid = n
		case "start":
			id.start = v
		case "boot":
			id.boot = v
		case "pidns":
			id.pidNS = v
		case "timens":
			id.timeNS = v
		default:
			return identity{}, false
		}
	}
	return id, id.complete()
}

// Make makes a new directory in the temporary directory (os.TempDir,
// made absolute), named pattern followed by a random number, and its
// owner file; pattern must begin with Prefix. Remove removes both. The
// owner file is made first: a process killed at any moment leaves no
// directory without one.
func Make(pattern string) (string, error) {
	if !strings.HasPrefix(pattern, Prefix) || strings.ContainsAny(pattern, string(filepath.Separator)+"*") {
		return "", fmt.Errorf("tmpdir: pattern %q does not begin with %q, or has a separator or a *", pattern, Prefix)
	}
	tmp, err := filepath.Abs(os.TempDir())
	if err != nil {
		return "", err
	}
	for try := 0; ; try++ {
		dir := filepath.Join(tmp, pattern+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(dir+ownerSuffix, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) && try < 10000 {
			continue
		}
		if err != nil {
			return "", &fs.PathError{Op: "mkdirtemp", Path: filepath.Join(tmp, pattern+"*"), Err: underlying(err)}
		}
		_, err = f.WriteString(own().String())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Mkdir(dir, 0o700)
		}
		if err != nil {
			os.Remove(dir + ownerSuffix)
			if errors.Is(err, fs.ErrExist) && try < 10000 {
				continue // a directory of that name without an owner file
			}
			return "", err
		}
		return dir, nil
	}
}

// underlying is the error a path error wraps.
func underlying(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Remove removes a directory Make made, with what it holds, then its
// owner file.
func Remove(dir string) error {
	if dir == "" {
		return errors.New("tmpdir: Remove of no directory")
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.Remove(dir + ownerSuffix); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// Sweep removes, from the temporary directory, each directory Make made
// whose owner process has ended (with its owner file), and each owner
// file left without its directory. It returns what it removed, sorted.
// It removes nothing when this process's identity cannot be read.
func Sweep() []string {
	me := own()
	if !me.complete() {
		return nil
	}
	tmp, err := filepath.Abs(os.TempDir())
	if err != nil {
		return nil
	}
	d, err := os.Open(tmp)
	if err != nil {
		return nil
	}
	defer d.Close()
	var removed []string
	for {
		// In batches: a TMPDIR may hold very many entries.
		ents, err := d.ReadDir(1024)
		for _, e := range ents {
			name := e.Name()
			if strings.HasPrefix(name, Prefix) && strings.HasSuffix(name, ownerSuffix) && !e.IsDir() {
				if dir, ok := sweepOne(me, filepath.Join(tmp, name)); ok {
					removed = append(removed, dir)
				}
			}
		}
		if err != nil {
			break
		}
	}
	slices.Sort(removed)
	return removed
}

// sweepOne removes the directory of owner file owner, and the file, when
// its process has ended; it says what it removed.
func sweepOne(me identity, owner string) (string, bool) {
	fi, err := os.Lstat(owner)
	if err != nil || !fi.Mode().IsRegular() || !mine(fi) {
		return "", false // another user's, or not an owner file
	}
	dir := strings.TrimSuffix(owner, ownerSuffix)
	di, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		di = nil
	case err != nil:
		return "", false
	case !di.IsDir() || !mine(di):
		return "", false // not a directory Make made for this user
	}
	b, err := readOwner(owner)
	if err != nil {
		return "", false
	}
	id, ok := parseOwner(b)
	if !ok {
		// An owner file that a Make killed while it wrote left, before
		// it made the directory.
		if di == nil && time.Since(fi.ModTime()) > staleOwner && os.Remove(owner) == nil {
			return dir, true
		}
		return "", false
	}
	if !id.sameWorld(me) || alive(id) {
		return "", false
	}
	// Another sweep may have removed it already and a new Make taken the
	// name: the owner file must still be the one read.
	if again, err := readOwner(owner); err != nil || !bytes.Equal(again, b) {
		return "", false
	}
	if Remove(dir) != nil {
		return "", false
	}
	return dir, true
}

// readOwner reads an owner file, at most maxOwner bytes of it, without
// following a link or waiting on a pipe.
func readOwner(path string) ([]byte, error) {
	f, err := openOwner(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxOwner))
}

// alive reports whether the process id names (one of this boot and
// namespaces) is still running: a process of its pid that started when
// it did. A process whose state cannot be read is taken to be running,
// and so is one whose /proc entry is hidden (hidepid) while its pid
// exists.
func alive(id identity) bool {
	st, err := readStartTime(strconv.Itoa(id.pid))
	if errors.Is(err, fs.ErrNotExist) {
		return pidExists(id.pid)
	}
	if err != nil {
		return true
	}
	return st == id.start
}

// readStartTime reads the start time of process pid ("self" or a number)
// from /proc: the 22nd field of its stat file. A variable for tests.
var readStartTime = func(pid string) (string, error) {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return "", err
	}
	st, ok := statStart(string(b))
	if !ok {
		return "", fmt.Errorf("/proc/%s/stat cannot be read: %q", pid, b)
	}
	return st, nil
}

// statStart is the start time in a stat file's content: the fields after
// the command's name, which may hold spaces and parentheses and ends at
// the last ')', begin with the 3rd.
func statStart(s string) (string, bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return "", false
	}
	return f[19], true
}

// bootID is the id of this boot, or "".
func bootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// namespace names this process's namespace of a kind ("pid", "time"),
// or "".
func namespace(kind string) string {
	s, err := os.Readlink("/proc/self/ns/" + kind)
	if err != nil {
		return ""
	}
	return s
}
