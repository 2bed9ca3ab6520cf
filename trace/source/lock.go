package source

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/srctrace/srctrace/trace/progress"
)

// Locked runs fn, a go command in the source's module context, without
// another srctrace process working in the same work module at the same
// time. A release's work module is shared by every srctrace process that
// reads that release (tests of several packages run at once, a user's two
// shells), and the go command rewrites its go.mod (the go line, indirect
// requirements) and go.sum when it runs with -mod=mod; one process could
// otherwise rewrite go.mod for its modules while another's go command is
// reading or updating it. Under the lock, go.mod is written afresh for this
// source's modules, so each go command sees the requirements it was made
// for. A checkout is the user's and needs no lock: fn just runs.
func (s *Source) Locked(ctx context.Context, fn func() error) error {
	if s.Kind != "module" {
		return fn()
	}
	unlock, err := lockDir(ctx, s.Dir)
	if err != nil {
		return fmt.Errorf("locking the work module %s: %w", s.Dir, err)
	}
	defer unlock()
	if err := WriteFileAtomic(filepath.Join(s.Dir, "go.mod"), s.gomod); err != nil {
		return fmt.Errorf("writing work module: %w", err)
	}
	return fn()
}

// lockDir takes the exclusive lock of dir, waiting for it as long as ctx
// allows.
func lockDir(ctx context.Context, dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".srctrace.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	var wait *progress.Phase
	defer func() {
		if wait != nil {
			wait.Done()
		}
	}()
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, err
		}
		if ok {
			return func() { unlock(f); f.Close() }, nil
		}
		if wait == nil {
			wait = progress.Start(ctx, "waiting for another srctrace working in "+dir, 0)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
