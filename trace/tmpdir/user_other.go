//go:build !unix

package tmpdir

import (
	"io/fs"
	"os"
)

// mine reports whether this process's user owns the file: never known
// here, so Sweep removes nothing.
func mine(fi fs.FileInfo) bool { return false }

func openOwner(path string) (*os.File, error) { return os.Open(path) }

func pidExists(pid int) bool { return true }
