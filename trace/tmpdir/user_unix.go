//go:build unix

package tmpdir

import (
	"io/fs"
	"os"
	"syscall"
)

// mine reports whether this process's user owns the file.
func mine(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
