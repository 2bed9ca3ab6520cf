package source

import (
	"context"
	"os"
	"os/exec"
	"time"

	"github.com/srctrace/srctrace/trace/tmpdir"
)

// GoCommand returns the go command with args, run in dir with env, that
// ctx stops together with every process it started: the go command runs in
// a process group of its own, which an interrupt (the end of ctx) reaches
// as a whole (os.Interrupt, and a kill if it is still there after a few
// seconds), so no compiler or linker it started outlives it and writes
// into a GOTMPDIR being removed. Run it with Run, Output or CombinedOutput;
// after Wait the group's stragglers are killed too.
func GoCommand(ctx context.Context, dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = env
	ownGroup(cmd)
	cmd.Cancel = func() error { return signalGroup(cmd, os.Interrupt) }
	cmd.WaitDelay = 3 * time.Second
	return cmd
}

// Go returns GoCommand in the source's module context (its Dir and Env).
func (s *Source) Go(ctx context.Context, args ...string) *exec.Cmd {
	return GoCommand(ctx, s.Dir, s.Env, args...)
}

// RunGo runs cmd, made by GoCommand, to its end and returns its combined
// output; if ctx ended it, what is left of its process group is killed
// before it returns.
func RunGo(cmd *exec.Cmd) ([]byte, error) {
	out, err := cmd.CombinedOutput()
	_ = signalGroup(cmd, os.Kill)
	return out, err
}

// removeAll removes dir (made by tmpdir.Make), trying again for a short
// while when a process that is being stopped still writes into it.
func removeAll(dir string) {
	for range 20 {
		if err := tmpdir.Remove(dir); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}
