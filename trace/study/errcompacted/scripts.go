package errcompacted

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/srctrace/srctrace/trace/lab"
)

// scripts are the lab's coverage scripts, one per behaviour and the
// baseline. Each makes the same setup and the same compaction to N-10
// with the Go client; what runs in a behaviour's script and not in the
// baseline is the behaviour's own code.
var scripts = []lab.Script{
	{Name: lab.Baseline, Doc: "the setup, a current watcher, the compaction to N-10 and a write after it: the common ground", Run: scriptBaseline},
	{Name: "evict", Doc: "the main round: a behind and a current watcher, the compaction when the behind one's first batch arrives", Run: scriptEvict},
	{Name: "reopen", Doc: "the setup, the compaction, and a watch from the compacted anchor revision", Run: scriptReopen},
	{Name: "read", Doc: "the setup, the compaction, and a get at the anchor revision and at N-10", Run: scriptRead},
	{Name: ProbeCompact, Doc: "the setup, the compaction, and a compaction to N-10 again", Run: scriptProbeCompact},
	{Name: ProbeHashKV, Doc: "the setup, the compaction, and a HashKV at N-11", Run: scriptProbeHashKV},
}

// setupCompacted is the scripts' common start: the setup and the
// compaction to N-10.
func setupCompacted(ctx context.Context, env *lab.Env, name string) (prefix string, a, n, c int64, err error) {
	prefix, a, n, err = setup(ctx, env, name)
	if err != nil {
		return "", 0, 0, 0, err
	}
	c = n - 10
	if _, err := env.Client.Compact(ctx, c); err != nil {
		return "", 0, 0, 0, fmt.Errorf("compacting to %d: %w", c, err)
	}
	return prefix, a, n, c, nil
}

// scriptBaseline is the main round without the behind watcher: the same
// setup, a current watcher, the same compaction, and a write after it that
// the current watcher receives.
func scriptBaseline(ctx context.Context, env *lab.Env) error {
	prefix, _, n, err := setup(ctx, env, lab.Baseline)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	current, err := openWatch(wctx, env.Client, "current", prefix, 0)
	if err != nil {
		return err
	}
	if _, err := env.Client.Compact(ctx, n-10); err != nil {
		return fmt.Errorf("compacting to %d: %w", n-10, err)
	}
	pr, err := env.Client.Put(ctx, prefix+"after-compaction", "1")
	if err != nil {
		return err
	}
	return followTo(ctx, current, pr.Header.Revision)
}

func followTo(ctx context.Context, s *watchState, rev int64) error {
	if err := follow(ctx, s, rev, 10*time.Second); err != nil {
		return err
	}
	if s.w.Ended {
		return fmt.Errorf("the %s watch ended: %s", s.w.Name, s.w.Error)
	}
	return nil
}

func scriptEvict(ctx context.Context, env *lab.Env) error {
	_, err := round(ctx, env, "evict", 0)
	return err
}

func scriptReopen(ctx context.Context, env *lab.Env) error {
	prefix, a, _, _, err := setupCompacted(ctx, env, "reopen")
	if err != nil {
		return err
	}
	r, err := reopenAt(ctx, env.Client, prefix, a)
	if err != nil {
		return err
	}
	if !r.Canceled {
		return fmt.Errorf("reopen from %d was not canceled", a)
	}
	return nil
}

func scriptRead(ctx context.Context, env *lab.Env) error {
	prefix, a, _, c, err := setupCompacted(ctx, env, "read")
	if err != nil {
		return err
	}
	if _, err := env.Client.Get(ctx, prefix+"k", clientv3.WithRev(a)); err == nil {
		return fmt.Errorf("get --rev=%d did not fail", a)
	}
	_, err = env.Client.Get(ctx, prefix+"k", clientv3.WithRev(c))
	return err
}

// The probes' scripts make the probe's request and do not judge its
// answer: what ran is what the coverage run is for.

func scriptProbeCompact(ctx context.Context, env *lab.Env) error {
	_, _, _, c, err := setupCompacted(ctx, env, ProbeCompact)
	if err != nil {
		return err
	}
	env.Client.Compact(ctx, c)
	return ctx.Err()
}

func scriptProbeHashKV(ctx context.Context, env *lab.Env) error {
	_, _, _, c, err := setupCompacted(ctx, env, ProbeHashKV)
	if err != nil {
		return err
	}
	env.Client.HashKV(ctx, env.Endpoints()[0], c-1)
	return ctx.Err()
}
