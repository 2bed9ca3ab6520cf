package lab

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
)

// RequestTimeout is the deadline of every request the lab's client makes
// (unless the caller's is sooner). The lab's requests are small: a reply
// that takes longer means a server that stopped answering.
const RequestTimeout = 5 * time.Second

// silentFor is how long a server may leave the watchdog's status requests
// unanswered (each waits 2 s) before the lab ends: long enough for a
// loaded machine, short enough that a dead server ends the run in seconds.
const silentFor = 5 * time.Second

// newClient connects a Go client to eps whose every unary request has a
// deadline (see withDeadline).
func newClient(eps []string) (*clientv3.Client, error) {
	return clientv3.New(clientv3.Config{
		Endpoints:   eps,
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithChainUnaryInterceptor(withDeadline(RequestTimeout))},
	})
}

// withDeadline gives each attempt of a unary request a deadline d. The
// client's own retry interceptor runs around it and retries an attempt
// that ended at a deadline the caller did not set; a NoReplyError is not
// an error it retries, so the request ends after d.
func withDeadline(d time.Duration) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= d {
			return invoker(ctx, method, req, reply, cc, opts...)
		}
		rctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		err := invoker(rctx, method, req, reply, cc, opts...)
		if err != nil && ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded) {
			return &NoReplyError{Method: method, After: d}
		}
		return err
	}
}

// NoReplyError is a request that got no reply in time.
type NoReplyError struct {
	Method string
	After  time.Duration
}

func (e *NoReplyError) Error() string {
	return fmt.Sprintf("no reply to %s in %v", e.Method[strings.LastIndex(e.Method, "/")+1:], e.After)
}

// ServerDownError says the lab's server stopped answering, or exited,
// while the lab ran.
type ServerDownError struct {
	Endpoints []string
	// Kind is the server's (Server.Kind), Version its release.
	Kind, Version string
	// Phase is the lab's phase at the time; Exited is set for a server
	// this program started that exited (with Status, its exit status).
	Phase  string
	Exited bool
	Status string
	// Err is what the lab was doing when it failed (nil when the
	// watchdog ended it), Why what the server last answered.
	Err, Why error
	// Left is set when the run's keys are still on the server.
	Left *KeysLeftError
}

func (e *ServerDownError) Error() string {
	var b strings.Builder
	eps := strings.Join(e.Endpoints, ",")
	switch {
	case e.Exited:
		fmt.Fprintf(&b, "the etcd %s server this lab started at %s exited (%s)", e.Version, eps, e.Status)
	default:
		fmt.Fprintf(&b, "the etcd server at %s stopped answering (%v)", eps, e.Why)
	}
	fmt.Fprintf(&b, " during the lab's %s phase", e.Phase)
	if e.Err != nil {
		// The study's error may name the phase too.
		fmt.Fprintf(&b, " (%s)", strings.TrimPrefix(e.Err.Error(), "lab "+e.Phase+": "))
	}
	if k := e.Left; k != nil {
		fmt.Fprintf(&b, "; the lab's keys under %s are still on it: delete them with `%s` once it answers", k.Prefix, k.command())
	}
	return b.String()
}

// ping asks the server for its status, with a deadline of its own; a
// connection that cannot be made fails it at once (the client's requests
// otherwise wait for one).
func (e *Env) ping(ctx context.Context, d time.Duration) error {
	pctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	_, err := pb.NewMaintenanceClient(e.Client.ActiveConnection()).Status(pctx, &pb.StatusRequest{}, grpc.WaitForReady(false))
	if err != nil && ctx.Err() == nil && errors.Is(pctx.Err(), context.DeadlineExceeded) {
		return &NoReplyError{Method: "Status", After: d}
	}
	return err
}

// startWatchdog watches a server this process does not embed while the
// lab runs: every second it asks for the server's status, and ends lctx
// with a ServerDownError when no answer came for silentFor or the server this
// program started exited. Env.stopWatchdog ends it.
func (e *Env) startWatchdog(lctx context.Context, cancel context.CancelCauseFunc) {
	if e.Server == nil || e.Server.Kind() == "embedded" || e.Client == nil {
		return
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	e.stopDog = func() { close(stop); <-done }
	exited := func() <-chan struct{} { return nil }
	if p, ok := e.Server.(*process); ok {
		exited = func() <-chan struct{} { return p.done }
	}
	go func() {
		defer close(done)
		last := time.Now()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-lctx.Done():
				return
			case <-exited():
				cancel(e.downError(nil, nil))
				return
			case <-tick.C:
				err := e.ping(lctx, 2*time.Second)
				switch {
				case lctx.Err() != nil:
					return
				case err == nil:
					last = time.Now()
				case time.Since(last) >= silentFor:
					cancel(e.downError(nil, err))
					return
				}
			}
		}
	}()
}

func (e *Env) stopWatchdog() {
	if e.stopDog != nil {
		e.stopDog()
		e.stopDog = nil
	}
}

// downError describes the server's end during the current phase: err is
// what the lab was doing, why what the server last answered.
func (e *Env) downError(err, why error) *ServerDownError {
	d := &ServerDownError{Endpoints: e.Endpoints(), Kind: e.Server.Kind(), Version: e.Etcd.Version, Phase: e.phase, Err: err, Why: why}
	if p, ok := e.Server.(*process); ok {
		select {
		case <-p.done:
			d.Exited, d.Status = true, p.exitStatus()
		default:
		}
	}
	return d
}

// explain turns the error a run ended with into what the user reads: an
// interrupt stays one (ctx's error); a server that stopped answering, as
// the watchdog found or as a status request after the failure shows, is a
// ServerDownError with what the lab was doing.
func (e *Env) explain(ctx, lctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	var down *ServerDownError
	if errors.As(context.Cause(lctx), &down) {
		e.down = true
		if !errors.Is(err, context.Canceled) {
			down.Err = err
		}
		return down
	}
	if e.Server == nil || e.Client == nil || errors.Is(err, ErrUsage) || e.Server.Kind() == "embedded" {
		return err
	}
	if perr := e.ping(ctx, 2*time.Second); perr != nil {
		e.down = true
		return e.downError(err, perr)
	}
	return err
}
