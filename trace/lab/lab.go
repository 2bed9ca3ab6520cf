// Package lab runs the evict-watcher exercise on a real etcd server and
// records exactly what happens: per watcher what arrived and how it ended,
// the cancel response's fields, the client's error text, the real
// etcdctl's output and exit status, and where the compaction boundary lies.
//
// # Making the eviction land mid-stream
//
// Typed by hand, the compaction comes too late: the server replays a behind
// watcher's history in a few sync passes, a fraction of a second, and a
// watcher that has caught up is no longer behind. The lab therefore
// compacts as soon as the first batch of replayed events reaches the
// client, while the server still holds the watcher as unsynced. It also
// runs the by-hand timing (a fixed delay) and records both outcomes.
//
// # Safety
//
// Every key is written under a fresh unique prefix, and only that prefix is
// deleted. Compaction is cluster-wide: against endpoints the lab compacts
// only when AllowCompact is set. Endpoints must be loopback addresses.
package lab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/srctrace/srctrace/trace/report"
)

// Options configure Run.
type Options struct {
	// Endpoints of an existing server; empty starts an embedded one.
	Endpoints []string
	// AllowCompact permits compacting a server given by Endpoints.
	AllowCompact bool
	// Etcdctl is the etcdctl binary; empty means find or build one
	// (see FindEtcdctl), unless NoEtcdctl is set.
	Etcdctl   string
	NoEtcdctl bool
	// Build builds etcdctl for a release when none is found; nil disables it.
	Build func(ctx context.Context, version string) (string, error)
	// Writes is how many writes the setup makes (default 2000).
	Writes int
	// ByHandDelay is the by-hand compaction delay (default 1.5 s); negative
	// skips the by-hand round.
	ByHandDelay time.Duration
	// Phase, when set, is called as each phase begins (tests use it to
	// interrupt the lab at every phase).
	Phase func(name string)
}

// Phases are the lab's phases in order.
var Phases = []string{"server", "by-hand", "etcdctl-evict", "evict", "reopen", "boundary", "read", "teardown"}

// ErrUsage marks errors in what the user asked for.
var ErrUsage = errors.New("usage")

// Run runs the lab. Whatever happens, and also when ctx is canceled, it
// deletes what it wrote, stops its watches and processes, closes an
// embedded server and removes its data dir before returning.
func Run(ctx context.Context, opts Options) (rep *report.Lab, err error) {
	if opts.Writes == 0 {
		opts.Writes = 2000
	}
	if opts.Writes < 20 {
		return nil, fmt.Errorf("%w: --writes %d: the lab needs at least 20 writes (it compacts to head-10)", ErrUsage, opts.Writes)
	}
	if opts.ByHandDelay == 0 {
		opts.ByHandDelay = 1500 * time.Millisecond
	}
	if len(opts.Endpoints) > 0 {
		if err := checkLoopback(opts.Endpoints); err != nil {
			return nil, err
		}
		if !opts.AllowCompact {
			return nil, fmt.Errorf("%w: the lab compacts the server, and compaction is cluster-wide: it destroys history for every client of %s; pass --allow-compact to allow it", ErrUsage, strings.Join(opts.Endpoints, ","))
		}
	}
	start := time.Now()
	l := &run{opts: opts, rep: &report.Lab{Writes: opts.Writes}}
	defer func() {
		l.phase("teardown")
		if terr := l.teardown(); terr != nil && err == nil {
			err = terr
		}
		if err == nil {
			rep.Millis = time.Since(start).Milliseconds()
		}
	}()
	l.phase("server")
	if err := l.start(ctx); err != nil {
		return nil, err
	}
	steps := []struct {
		name string
		fn   func(context.Context) error
	}{
		{"by-hand", l.byHand},
		{"etcdctl-evict", l.etcdctlEvict},
		{"evict", l.evict},
		{"reopen", l.reopen},
		{"boundary", l.boundary},
		{"read", l.read},
	}
	for _, s := range steps {
		l.phase(s.name)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := s.fn(ctx); err != nil {
			return nil, fmt.Errorf("lab %s: %w", s.name, err)
		}
	}
	return l.rep, nil
}

type run struct {
	opts    Options
	rep     *report.Lab
	srv     Server
	cli     *clientv3.Client
	etcdctl string
	base    string   // the run's unique prefix
	written []string // prefixes to delete
}

func (l *run) phase(name string) {
	if l.opts.Phase != nil {
		l.opts.Phase(name)
	}
}

func (l *run) start(ctx context.Context) error {
	var err error
	if len(l.opts.Endpoints) == 0 {
		l.srv, err = StartEmbedded(ctx)
		if err != nil {
			return err
		}
	} else {
		l.srv = external{eps: l.opts.Endpoints}
	}
	l.rep.Etcd = report.LabEtcd{Server: l.srv.Kind()}
	if l.srv.Kind() == "endpoints" {
		l.rep.Etcd.Endpoints = l.opts.Endpoints
	}
	l.cli, err = clientv3.New(clientv3.Config{
		Endpoints:   l.srv.Endpoints(),
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return fmt.Errorf("connecting to etcd: %w", err)
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := l.cli.Status(sctx, l.srv.Endpoints()[0])
	if err != nil {
		return fmt.Errorf("connecting to etcd at %s: %w", strings.Join(l.srv.Endpoints(), ","), err)
	}
	l.rep.Etcd.Version = "v" + st.Version
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	l.base = "/srctrace-lab/" + hex.EncodeToString(b[:]) + "/"
	l.rep.Prefix = l.base
	if !l.opts.NoEtcdctl {
		path, ver, note := FindEtcdctl(ctx, l.opts.Etcdctl, l.rep.Etcd.Version, l.opts.Build)
		if note != "" {
			l.rep.Notes = append(l.rep.Notes, note)
		}
		if path != "" {
			l.etcdctl = path
			l.rep.Etcdctl = &report.Etcdctl{Path: path, Version: ver}
		}
	} else {
		l.rep.Notes = append(l.rep.Notes, "etcdctl was not used (--no-etcdctl): the results are the Go client's")
	}
	return nil
}

func (l *run) teardown() error {
	var errs []error
	if l.cli != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		for _, p := range l.written {
			if _, err := l.cli.Delete(ctx, p, clientv3.WithPrefix()); err != nil && l.srv.Kind() == "endpoints" {
				errs = append(errs, fmt.Errorf("deleting %s: %w", p, err))
			}
		}
		cancel()
		l.cli.Close()
	}
	if l.srv != nil {
		if err := l.srv.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing the server: %w", err))
		}
	}
	return errors.Join(errs...)
}

// setup writes an anchor key and then opts.Writes writes to one key under a
// fresh prefix, as the exercise does, and returns the prefix, the anchor
// revision A and the head revision N.
func (l *run) setup(ctx context.Context, name string) (prefix string, a, n int64, err error) {
	prefix = l.base + name + "/"
	l.written = append(l.written, prefix)
	resp, err := l.cli.Put(ctx, prefix+"anchor", "0")
	if err != nil {
		return "", 0, 0, fmt.Errorf("writing the anchor: %w", err)
	}
	a = resp.Header.Revision
	for i := 1; i <= l.opts.Writes; i++ {
		r, err := l.cli.Put(ctx, prefix+"k", strconv.Itoa(i))
		if err != nil {
			return "", 0, 0, fmt.Errorf("write %d: %w", i, err)
		}
		n = r.Header.Revision
	}
	st, err := l.cli.Status(ctx, l.srv.Endpoints()[0])
	if err != nil {
		return "", 0, 0, err
	}
	if st.Header.Revision > n {
		n = st.Header.Revision
	}
	return prefix, a, n, nil
}

// watchState follows one watch channel.
type watchState struct {
	w       report.Watcher
	opened  time.Time
	ch      clientv3.WatchChan
	compact time.Time
}

func (s *watchState) ms(t time.Time) int64 { return t.Sub(s.opened).Milliseconds() }

// take records one response; it reports whether the watch ended.
func (s *watchState) take(resp clientv3.WatchResponse, now time.Time) bool {
	if n := len(resp.Events); n > 0 {
		first, last := resp.Events[0].Kv.ModRevision, resp.Events[n-1].Kv.ModRevision
		s.w.Responses = append(s.w.Responses, report.Batch{Events: n, AtMs: s.ms(now), First: first, Last: last})
		if s.w.Events == 0 {
			s.w.FirstRevision = first
		}
		s.w.Events += n
		s.w.LastRevision = last
		if !s.compact.IsZero() {
			s.w.EventsAfterCompaction += n
		}
	}
	if resp.Canceled || resp.Err() != nil {
		s.w.Ended = true
		s.w.EndedMs = s.ms(now)
		s.w.Cancel = &report.Cancel{
			Canceled: resp.Canceled, Created: resp.Created, CompactRevision: resp.CompactRevision,
			CancelReason: resp.CancelReason, HeaderRevision: resp.Header.GetRevision(),
		}
		if err := resp.Err(); err != nil {
			s.w.Error = err.Error()
		}
		return true
	}
	return false
}

// openWatch opens a watch on prefix and waits for its created response.
func (l *run) openWatch(ctx context.Context, name, prefix string, rev int64) (*watchState, error) {
	opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithCreatedNotify()}
	if rev != 0 {
		opts = append(opts, clientv3.WithRev(rev))
	}
	s := &watchState{w: report.Watcher{Name: name, StartRevision: rev}, opened: time.Now()}
	s.ch = l.cli.Watch(ctx, prefix, opts...)
	select {
	case resp, ok := <-s.ch:
		if !ok {
			return nil, fmt.Errorf("watch %s closed before it was created", name)
		}
		if s.take(resp, time.Now()) {
			return s, nil
		}
		if !resp.Created {
			return nil, fmt.Errorf("watch %s: first response is not the created notification", name)
		}
	case <-time.After(10 * time.Second):
		return nil, fmt.Errorf("watch %s: no created notification in 10 s", name)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s, nil
}

// round runs the exercise's steps 1 to 3 with the Go client: a behind and a
// current watcher, a compaction to N-10 (when the first replayed batch
// arrives, or after a fixed delay), and a write afterwards that a living
// watcher receives.
func (l *run) round(ctx context.Context, name string, delay time.Duration) (a, n, c int64, ws []report.Watcher, err error) {
	return l.roundOpts(ctx, name, delay, true)
}

// roundOpts is round; without compact it only replays (a baseline).
func (l *run) roundOpts(ctx context.Context, name string, delay time.Duration, compactIt bool) (a, n, c int64, ws []report.Watcher, err error) {
	prefix, a, n, err := l.setup(ctx, name)
	if err != nil {
		return 0, 0, 0, nil, err
	}
	c = n - 10
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	current, err := l.openWatch(wctx, "current", prefix, 0)
	if err != nil {
		return 0, 0, 0, nil, err
	}
	behind, err := l.openWatch(wctx, "behind", prefix, a)
	if err != nil {
		return 0, 0, 0, nil, err
	}
	behind.w.Total = int(n - a + 1)
	var timer <-chan time.Time
	if delay > 0 {
		timer = time.After(delay)
	}
	compact := func() error {
		if _, err := l.cli.Compact(ctx, c); err != nil {
			return fmt.Errorf("compacting to %d: %w", c, err)
		}
		now := time.Now()
		behind.compact, current.compact = now, now
		behind.w.CompactedAtMs = behind.ms(now)
		current.w.CompactedAtMs = current.ms(now)
		return nil
	}
	// Without a compaction: follow the behind watcher to the end of its
	// history.
	for !compactIt && !behind.w.Ended && behind.w.Events < behind.w.Total {
		select {
		case resp, ok := <-behind.ch:
			if !ok {
				return 0, 0, 0, nil, fmt.Errorf("behind watch closed without a final response")
			}
			behind.take(resp, time.Now())
		case <-time.After(30 * time.Second):
			return 0, 0, 0, nil, fmt.Errorf("behind watch: nothing for 30 s")
		case <-ctx.Done():
			return 0, 0, 0, nil, ctx.Err()
		}
	}
	// Until the compaction: follow the behind watcher.
	for compactIt && behind.compact.IsZero() && !behind.w.Ended {
		select {
		case resp, ok := <-behind.ch:
			if !ok {
				return 0, 0, 0, nil, fmt.Errorf("behind watch closed without a final response")
			}
			behind.take(resp, time.Now())
			if delay <= 0 && behind.w.Events > 0 {
				if err := compact(); err != nil {
					return 0, 0, 0, nil, err
				}
			}
		case <-timer:
			if err := compact(); err != nil {
				return 0, 0, 0, nil, err
			}
		case <-time.After(30 * time.Second):
			return 0, 0, 0, nil, fmt.Errorf("behind watch: nothing for 30 s")
		case <-ctx.Done():
			return 0, 0, 0, nil, ctx.Err()
		}
	}
	// A write after the compaction: a living watcher receives it.
	pr, err := l.cli.Put(ctx, prefix+"after-compaction", "1")
	if err != nil {
		return 0, 0, 0, nil, fmt.Errorf("writing after the compaction: %w", err)
	}
	probe := pr.Header.Revision
	for _, s := range []*watchState{behind, current} {
		for !s.w.Ended && s.w.LastRevision < probe {
			select {
			case resp, ok := <-s.ch:
				if !ok {
					return 0, 0, 0, nil, fmt.Errorf("%s watch closed without a final response", s.w.Name)
				}
				s.take(resp, time.Now())
			case <-time.After(10 * time.Second):
				return 0, 0, 0, nil, fmt.Errorf("%s watch: the write after the compaction did not arrive in 10 s", s.w.Name)
			case <-ctx.Done():
				return 0, 0, 0, nil, ctx.Err()
			}
		}
	}
	return a, n, c, []report.Watcher{behind.w, current.w}, nil
}

func (l *run) byHand(ctx context.Context) error {
	if l.opts.ByHandDelay < 0 {
		return nil
	}
	a, n, c, ws, err := l.round(ctx, "by-hand", l.opts.ByHandDelay)
	if err != nil {
		return err
	}
	l.rep.ByHand = &report.ByHand{AnchorRevision: a, HeadRevision: n, CompactRevision: c,
		DelayMs: l.opts.ByHandDelay.Milliseconds(), Watchers: ws, Evicted: ws[0].Ended}
	return nil
}

func (l *run) evict(ctx context.Context) error {
	a, n, c, ws, err := l.round(ctx, "evict", 0)
	if err != nil {
		return err
	}
	l.rep.AnchorRevision, l.rep.HeadRevision, l.rep.CompactRevision = a, n, c
	l.rep.Watchers = ws
	return nil
}

// reopen opens a watch from the compacted anchor revision, and one from a
// negative revision, and records the responses in order.
func (l *run) reopen(ctx context.Context) error {
	prefix := l.base + "evict/"
	r, err := l.reopenAt(ctx, prefix, l.rep.AnchorRevision)
	if err != nil {
		return err
	}
	neg, err := l.reopenAt(ctx, prefix, -1)
	if err != nil {
		return err
	}
	r.Negative = &neg
	l.rep.Reopen = r
	if l.etcdctl != "" {
		cp, err := l.capture(ctx, nil, "", "watch", "--prefix", prefix, "--rev="+strconv.FormatInt(l.rep.AnchorRevision, 10))
		if err != nil {
			return err
		}
		l.rep.Etcdctl.Reopen = cp
	}
	return nil
}

func (l *run) reopenAt(ctx context.Context, prefix string, rev int64) (report.Reopen, error) {
	r := report.Reopen{StartRevision: rev}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := l.cli.Watch(wctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(rev), clientv3.WithCreatedNotify())
	var created time.Time
	for {
		select {
		case resp, ok := <-ch:
			if !ok {
				return r, nil
			}
			now := time.Now()
			if resp.Created {
				r.Created = true
				created = now
			}
			r.Events += len(resp.Events)
			if resp.Canceled || resp.Err() != nil {
				r.Canceled = resp.Canceled
				if err := resp.Err(); err != nil {
					r.Error = err.Error()
				}
				r.Cancel = &report.Cancel{Canceled: resp.Canceled, Created: resp.Created, CompactRevision: resp.CompactRevision,
					CancelReason: resp.CancelReason, HeaderRevision: resp.Header.GetRevision()}
				if !created.IsZero() {
					r.MsBetween = now.Sub(created).Milliseconds()
				}
				return r, nil
			}
			if len(resp.Events) > 0 {
				return r, nil // open: it delivers history
			}
		case <-time.After(5 * time.Second):
			return r, nil
		case <-ctx.Done():
			return r, ctx.Err()
		}
	}
}

// probeWatch reports whether a watch from rev opens: it delivers events
// (open) or is canceled (compacted).
func (l *run) probeWatch(ctx context.Context, prefix string, rev int64) (report.Probe, error) {
	r, err := l.reopenAt(ctx, prefix, rev)
	if err != nil {
		return report.Probe{}, err
	}
	// What the Go client saw; etcdctl's own first line replaces it where
	// the lab has etcdctl (see boundary).
	p := report.Probe{Revision: rev, By: "client"}
	switch {
	case r.Canceled || r.Error != "":
		p.Result = "canceled: " + r.Error
	case r.Events > 0:
		p.Open = true
		p.Result = fmt.Sprintf("open: %d events", r.Events)
	default:
		p.Result = "no response in 5 s"
	}
	return p, nil
}

// boundary probes the exercise's four revisions and searches for the
// lowest revision that still opens a watch.
func (l *run) boundary(ctx context.Context) error {
	prefix := l.base + "evict/"
	n, c := l.rep.HeadRevision, l.rep.CompactRevision
	b := report.WatchBoundary{CompactRevision: c}
	for _, r := range []int64{n - 12, n - 11, n - 10, n - 9} {
		p, err := l.probeWatch(ctx, prefix, r)
		if err != nil {
			return err
		}
		if l.etcdctl != "" {
			if line, err := l.firstLine(ctx, "watch", "--prefix", prefix, "--rev="+strconv.FormatInt(r, 10)); err == nil {
				p.Result, p.By = line, "etcdctl"
			}
		}
		b.Probes = append(b.Probes, p)
	}
	lowest, probes, err := search(1, n, func(r int64) (bool, error) {
		p, err := l.probeWatch(ctx, prefix, r)
		return p.Open, err
	})
	if err != nil {
		return err
	}
	b.LowestOpenRevision, b.Searched = lowest, probes
	l.rep.Boundary = b
	return nil
}

// search finds the lowest r in [lo, hi] with ok(r), for a predicate that is
// false below some revision and true from it on; hi must satisfy ok.
func search(lo, hi int64, ok func(int64) (bool, error)) (int64, int, error) {
	probes := 0
	for lo < hi {
		mid := lo + (hi-lo)/2
		probes++
		yes, err := ok(mid)
		if err != nil {
			return 0, probes, err
		}
		if yes {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, probes, nil
}

// read is exercise 6's get --rev at the anchor and around the boundary.
func (l *run) read(ctx context.Context) error {
	key := l.base + "evict/k"
	c := l.rep.CompactRevision
	get := func(r int64) report.ReadProbe {
		_, err := l.cli.Get(ctx, key, clientv3.WithRev(r))
		p := report.ReadProbe{Revision: r, OK: err == nil}
		if err != nil {
			p.Error = err.Error()
		}
		return p
	}
	revs := []int64{l.rep.AnchorRevision, c - 1, c, c + 1}
	sort.Slice(revs, func(i, j int) bool { return revs[i] < revs[j] })
	for _, r := range revs {
		l.rep.Read.Probes = append(l.rep.Read.Probes, get(r))
	}
	lowest, _, err := search(1, l.rep.HeadRevision, func(r int64) (bool, error) {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		return get(r).OK, nil
	})
	if err != nil {
		return err
	}
	l.rep.Read.LowestReadableRevision = lowest
	if l.etcdctl != "" {
		cp, err := l.capture(ctx, nil, "", "get", "--rev="+strconv.FormatInt(l.rep.AnchorRevision, 10), key)
		if err != nil {
			return err
		}
		l.rep.Etcdctl.Read = cp
	}
	return nil
}

func checkLoopback(eps []string) error {
	for _, ep := range eps {
		host := ep
		if u, err := url.Parse(ep); err == nil && u.Host != "" {
			host = u.Host
		}
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		if host == "localhost" {
			continue
		}
		ip := net.ParseIP(strings.Trim(host, "[]"))
		if ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("%w: endpoint %q is not a loopback address: srctrace lab talks only to servers on this machine (127.0.0.0/8, ::1, localhost)", ErrUsage, ep)
		}
	}
	return nil
}

// Scripts are the behaviours a coverage run can drive one at a time.
var Scripts = []string{"baseline", "evict", "reopen", "read"}

// Script drives one behaviour against a server at endpoints that this
// process does not own: "baseline" (the setup and both watchers, no
// compaction), "evict" (a compaction mid-replay), "reopen" (a watch from a
// compacted revision) or "read" (a get at a compacted revision).
func Script(ctx context.Context, endpoints []string, name string, writes int) (err error) {
	if writes == 0 {
		writes = 2000
	}
	l := &run{opts: Options{Writes: writes}, rep: &report.Lab{}, srv: external{eps: endpoints}}
	l.cli, err = clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return fmt.Errorf("connecting to etcd: %w", err)
	}
	defer l.cli.Close()
	l.base = "/srctrace-observe/" + name + "/"
	switch name {
	case "baseline":
		_, _, _, _, err = l.roundOpts(ctx, name, 0, false)
	case "evict":
		_, _, _, _, err = l.round(ctx, name, 0)
	case "reopen", "read":
		prefix, a, n, err := l.setup(ctx, name)
		if err != nil {
			return err
		}
		if _, err := l.cli.Compact(ctx, n-10); err != nil {
			return err
		}
		if name == "reopen" {
			r, err := l.reopenAt(ctx, prefix, a)
			if err != nil {
				return err
			}
			if !r.Canceled {
				return fmt.Errorf("reopen from %d was not canceled", a)
			}
			return nil
		}
		if _, err := l.cli.Get(ctx, prefix+"k", clientv3.WithRev(a)); err == nil {
			return fmt.Errorf("get --rev=%d did not fail", a)
		}
		_, err = l.cli.Get(ctx, prefix+"k", clientv3.WithRev(n-10))
		return err
	default:
		return fmt.Errorf("%w: no script %q: want one of %s", ErrUsage, name, strings.Join(Scripts, ", "))
	}
	return err
}
