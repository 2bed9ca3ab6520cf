package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// stopOnBrokenPipe returns ctx ended also when the reader of the
// process's stdout or stderr goes away (`srctrace … 2>&1 | head -1`): the
// run then cleans up and stops as after an interrupt. Otherwise Go ends
// the program with SIGPIPE at its next write to fd 1 or 2, and what it
// made (its go command's GOTMPDIR, a lab's data directory) is left
// behind. SIGPIPE is caught until release: a write to the broken pipe
// during the clean-up then fails with EPIPE instead. Other pipes breaking
// (a connection's, a child's stdin) raise SIGPIPE too while it is caught,
// and do not end the run. out are the run's stdout and stderr; only
// os.Stdout and os.Stderr are watched.
func stopOnBrokenPipe(ctx context.Context, out ...io.Writer) (_ context.Context, release func()) {
	var fds []int
	for _, w := range out {
		switch w {
		case os.Stdout:
			fds = append(fds, 1)
		case os.Stderr:
			fds = append(fds, 2)
		}
	}
	if len(fds) == 0 {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGPIPE)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-sig:
				for _, fd := range fds {
					if readerGone(fd) {
						cancel()
					}
				}
			case <-done:
				return
			}
		}
	}()
	return ctx, func() {
		close(done)
		signal.Stop(sig)
		cancel()
	}
}
