package lab

import (
	"os/exec"
	"syscall"
)

// DieWithParent makes the process cmd starts receive SIGKILL when this
// program ends, also when it ends at once on a second Ctrl-C, before its
// teardown: a server or an etcdctl watch it started must not outlive it.
func DieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
