package errcompacted

import (
	"context"
	"fmt"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/srctrace/srctrace/trace/lab"
)

// scripts are the lab's coverage scripts, one per behaviour and the
// baseline (the setup and both watchers, no compaction).
var scripts = []lab.Script{
	{Name: lab.Baseline, Doc: "the setup and both watchers, replayed to the end; no compaction", Run: scriptBaseline},
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

// scriptBaseline is the setup and both watchers, the behind one followed
// to the end of its history; no compaction.
func scriptBaseline(ctx context.Context, env *lab.Env) error {
	prefix, a, n, err := setup(ctx, env, lab.Baseline)
	if err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if _, err := openWatch(wctx, env.Client, "current", prefix, 0); err != nil {
		return err
	}
	behind, err := openWatch(wctx, env.Client, "behind", prefix, a)
	if err != nil {
		return err
	}
	if err := follow(ctx, behind, n, 30*time.Second); err != nil {
		return err
	}
	if behind.w.Ended {
		return fmt.Errorf("the behind watch ended: %s", behind.w.Error)
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
