// Package tmpdir makes the temporary directories of a run (the go
// command's work, a server's data, a coverage run's files) so that a run
// that is killed before it can clean up (SIGKILL, a second Ctrl-C, the
// out-of-memory killer) does not leave them for good.
//
// Each directory made by Make has an owner file beside it, named after
// it with the suffix ".owner", that says which process made it: its pid,
// when it started (so that a pid used again by another process is not
// taken for it), the boot and the pid namespace it ran in. Sweep, which a
// run calls as it starts, removes the directories whose owner is gone.
// It removes nothing it cannot show is abandoned: a directory without an
// owner file, an owner file it cannot read, one of another user, and one
// written in another boot or another pid namespace (another machine or
// container sharing the temporary directory) are left alone. Where the process's identity
// cannot be read (systems without /proc), Sweep removes nothing.
package tmpdir

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Prefix starts the name of every directory Make makes.
const Prefix = "srctrace-"

// ownerSuffix ends the name of an owner file.
const ownerSuffix = ".owner"

// ownerMagic is an owner file's first line.
const ownerMagic = "srctrace temporary directory owner v1"

// identity is a process as an owner file records it.
type identity struct {
	pid   int
	start string // the process's start time, in clock ticks since boot
	boot  string // the boot's id
	pidNS string // the pid namespace
}

var (
	selfOnce sync.Once
	self     identity
)

// own is this process's identity; its fields other than pid are empty
// where they cannot be read.
func own() identity {
	selfOnce.Do(func() {
		self = identity{pid: os.Getpid(), start: startTime(os.Getpid()), boot: bootID(), pidNS: pidNamespace()}
	})
	return self
}

// complete reports whether the identity has every field: only then can
// another process's liveness be decided against it.
func (id identity) complete() bool {
	return id.pid > 0 && id.start != "" && id.boot != "" && id.pidNS != ""
}

func (id identity) String() string {
	return fmt.Sprintf("%s\npid %d\nstart %s\nboot %s\npidns %s\n", ownerMagic, id.pid, id.start, id.boot, id.pidNS)
}

// parseOwner reads an owner file's content.
func parseOwner(b []byte) (identity, bool) {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) != 5 || lines[0] != ownerMagic {
		return identity{}, false
	}
	var id identity
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, " ")
		if !ok {
			return identity{}, false
		}
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
		default:
			return identity{}, false
		}
	}
	return id, id.complete()
}

// Make makes a new directory in the temporary directory (os.TempDir), as
// os.MkdirTemp does with pattern, which must begin with Prefix, and its
// owner file. Remove removes both. The owner file is made first: a
// process killed at any moment leaves no directory without one.
func Make(pattern string) (string, error) {
	if !strings.HasPrefix(pattern, Prefix) || strings.ContainsRune(pattern, filepath.Separator) {
		return "", fmt.Errorf("tmpdir: pattern %q does not begin with %q or has a separator", pattern, Prefix)
	}
	tmp := os.TempDir()
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
	tmp := os.TempDir()
	ents, err := os.ReadDir(tmp)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, Prefix) || !strings.HasSuffix(name, ownerSuffix) || e.IsDir() {
			continue
		}
		owner := filepath.Join(tmp, name)
		if fi, err := os.Lstat(owner); err != nil || !fi.Mode().IsRegular() || !mine(fi) {
			continue // another user's, or not an owner file
		}
		b, err := os.ReadFile(owner)
		if err != nil {
			continue
		}
		id, ok := parseOwner(b)
		if !ok || id.boot != me.boot || id.pidNS != me.pidNS || alive(id) {
			continue
		}
		dir := strings.TrimSuffix(owner, ownerSuffix)
		if fi, err := os.Lstat(dir); err == nil && (!fi.IsDir() || !mine(fi)) {
			continue // not a directory Make made for this user: left alone
		}
		if Remove(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

// alive reports whether the process id names is still running: a process
// of its pid that started when it did. A process whose state cannot be
// read is taken to be running.
func alive(id identity) bool {
	st, err := readStartTime(id.pid)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	return st == id.start
}

// startTime is the start time of process pid, or "" when it cannot be
// read.
func startTime(pid int) string {
	st, err := readStartTime(pid)
	if err != nil {
		return ""
	}
	return st
}

// readStartTime reads the start time of process pid from /proc: the 22nd
// field of its stat file (after the command's name, which may hold
// spaces and parentheses, and ends at the last ')').
func readStartTime(pid int) (string, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return "", err
	}
	st, ok := statStart(string(b))
	if !ok {
		return "", fmt.Errorf("/proc/%d/stat cannot be read: %q", pid, b)
	}
	return st, nil
}

// statStart is the start time in a stat file's content.
func statStart(s string) (string, bool) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return "", false
	}
	// The fields after the name begin with the 3rd (the state).
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

// pidNamespace names this process's pid namespace, or "".
func pidNamespace() string {
	s, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return ""
	}
	return s
}
