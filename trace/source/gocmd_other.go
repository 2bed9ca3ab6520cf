//go:build !unix

package source

import (
	"os"
	"os/exec"
)

// Elsewhere a go command is stopped alone: the processes it started may
// outlive it.
func ownGroup(*exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, sig os.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	if sig == os.Interrupt {
		sig = os.Kill // Windows cannot interrupt a process
	}
	return cmd.Process.Signal(sig)
}
