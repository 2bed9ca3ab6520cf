//go:build unix

package lab

import (
	"fmt"
	"syscall"
)

// roomHint says how much room the filesystem of dir has left, for an error
// about a data dir.
func roomHint(dir string) string {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return ""
	}
	free := float64(st.Bavail) * float64(st.Bsize) / (1 << 20)
	return fmt.Sprintf(" (the filesystem of %s has %.1f MB free to this user)", dir, free)
}
