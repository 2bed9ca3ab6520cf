package lab

import (
	"context"
	"fmt"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/srctrace/srctrace/trace/progress"
)

// lockKey is the key that says a srctrace lab runs on a server.
const lockKey = "/srctrace-lab/lock"

// lockWait bounds how long a lab waits for another one on the same server.
const lockWait = 10 * time.Minute

// lock makes the run the only srctrace lab on a server someone else runs,
// waiting while another holds it: two labs at once would compact under
// each other's watchers and interleave their revisions. The lock is a key
// created only where it is absent (a transaction that writes nothing when
// it fails, so a waiting lab adds no revision to the running lab's range),
// attached to a lease that the run keeps alive and that teardown revokes;
// a lab that dies without its teardown frees the server when the lease
// runs out.
func (e *Env) lock(ctx context.Context) error {
	cli := e.Client
	lease, err := cli.Grant(ctx, 10)
	if err != nil {
		return fmt.Errorf("taking the lab's lock on %s: %w", strings.Join(e.Endpoints(), ","), err)
	}
	kctx, stop := context.WithCancel(context.Background())
	ka, err := cli.KeepAlive(kctx, lease.ID)
	if err != nil {
		stop()
		return fmt.Errorf("taking the lab's lock on %s: %w", strings.Join(e.Endpoints(), ","), err)
	}
	go func() {
		for range ka {
		}
	}()
	e.unlock = func() {
		stop()
		rctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, _ = cli.Revoke(rctx, lease.ID)
	}
	var wait *progress.Phase
	defer func() {
		if wait != nil {
			wait.Done()
		}
	}()
	deadline := time.Now().Add(lockWait)
	for {
		resp, err := cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(lockKey), "=", 0)).
			Then(clientv3.OpPut(lockKey, e.base, clientv3.WithLease(lease.ID))).
			Else(clientv3.OpGet(lockKey)).
			Commit()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("taking the lab's lock on %s: %w", strings.Join(e.Endpoints(), ","), err)
		}
		if resp.Succeeded {
			return nil
		}
		holder := ""
		if rs := resp.Responses; len(rs) > 0 && len(rs[0].GetResponseRange().Kvs) > 0 {
			holder = string(rs[0].GetResponseRange().Kvs[0].Value)
		}
		if wait == nil {
			wait = progress.Start(ctx, "waiting for another srctrace lab on "+strings.Join(e.Endpoints(), ","), 0)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("another srctrace lab (keys under %s) has held etcd at %s for %v: run the lab again when it is done", holder, strings.Join(e.Endpoints(), ","), lockWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
