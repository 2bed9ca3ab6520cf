//go:build unix

package source

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a new process group.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// signalGroup sends sig to cmd's process group, once it has started.
func signalGroup(cmd *exec.Cmd, sig os.Signal) error {
	if cmd.Process == nil {
		return nil
	}
	s, ok := sig.(syscall.Signal)
	if !ok {
		return cmd.Process.Signal(sig)
	}
	err := syscall.Kill(-cmd.Process.Pid, s)
	if err == syscall.ESRCH {
		return os.ErrProcessDone
	}
	return err
}
