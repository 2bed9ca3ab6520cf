//go:build unix

package tmpdir

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// mine reports whether this process's user owns the file.
func mine(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// openOwner opens an owner file to read, not following a link, and not
// waiting on a pipe put in its place.
func openOwner(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// pidExists reports whether a process of that pid exists: only "no such
// process" says it does not.
func pidExists(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
