package errcompacted

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/status"

	"github.com/srctrace/srctrace/trace/lab"
)

// The exercise's lab.
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
// # Probes
//
// After the main round's compaction to C the lab makes two requests that
// the exercise does not: a compaction to C again, and a HashKV at C-1. Each
// is answered with the study's error by code that step 6 cites and that no
// behaviour of the exercise runs; the coverage scripts of the same names
// show it running.

// Lab is the exercise run on a real etcd server.
var Lab = &lab.Lab{
	Phases: phaseNames(),
	// The exercise's setup is an anchor and 2000 writes; by hand, the
	// compaction is typed in a third terminal some 1.5 s after the watch
	// opens.
	Defaults: lab.Options{Writes: 2000, Delay: 1500 * time.Millisecond},
	Check:    checkLab,
	Run:      runLab,
	Scripts:  scripts,
}

// The probes' names, each also the name of its coverage script and of the
// behaviour (a Probe) that the script shows.
const (
	ProbeCompact = "compact-compacted"
	ProbeHashKV  = "hashkv-compacted"
)

// The probes' titles, also their behaviours'.
const (
	probeCompactTitle = "Compaction to a revision already compacted to"
	probeHashKVTitle  = "HashKV at a compacted revision"
)

// labSteps are the lab's phases in order, each a method of labRun.
var labSteps = []struct {
	name string
	fn   func(*labRun, context.Context) error
}{
	{"by-hand", (*labRun).byHand},
	{"etcdctl-evict", (*labRun).etcdctlEvict},
	{"evict", (*labRun).evict},
	{"reopen", (*labRun).reopen},
	{"boundary", (*labRun).boundary},
	{"read", (*labRun).read},
	{ProbeCompact, (*labRun).probeCompact},
	{ProbeHashKV, (*labRun).probeHashKV},
}

func phaseNames() []string {
	var out []string
	for _, s := range labSteps {
		out = append(out, s.name)
	}
	return out
}

func checkLab(o lab.Options) error {
	if o.Writes < 20 {
		return fmt.Errorf("%w: --writes %d: the lab needs at least 20 writes (it compacts to head-10)", lab.ErrUsage, o.Writes)
	}
	return nil
}

// labRun is one run of the lab.
type labRun struct {
	env    *lab.Env
	cli    *clientv3.Client
	rep    *LabRecord
	prefix string // the main round's
}

func runLab(ctx context.Context, env *lab.Env) (lab.Record, error) {
	l := &labRun{env: env, cli: env.Client, rep: &LabRecord{Writes: env.Opts.Writes, Etcdctl: etcdctlRecord(env)}}
	for _, s := range labSteps {
		if err := env.Phase(ctx, s.name); err != nil {
			return nil, err
		}
		if err := s.fn(l, ctx); err != nil {
			return nil, fmt.Errorf("lab %s: %w", s.name, err)
		}
	}
	// A request interrupted in the last phase records the interruption as
	// its result: the record is not the server's.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return l.rep, nil
}

// setup writes an anchor key and then Writes writes to one key under a
// fresh prefix, as the exercise does, and returns the prefix, the anchor
// revision A and the head revision N. Revisions from A to N that are not
// the lab's are other clients' writes: a note says how many, and what they
// change.
func setup(ctx context.Context, env *lab.Env, name string) (prefix string, a, n int64, err error) {
	defer func() {
		if err != nil {
			return
		}
		if others := n - a - int64(env.Opts.Writes); others > 0 {
			env.Note("round %s: other clients made %d of the %d revisions from its anchor (%d) to its head (%d): the watchers' counts are of the lab's own keys, but the compaction to the head minus 10 and the behind watcher's replay span their revisions too", name, others, n-a+1, a, n)
		}
	}()
	prefix = env.Prefix(name)
	cli := env.Client
	resp, err := cli.Put(ctx, prefix+"anchor", "0")
	if err != nil {
		return "", 0, 0, fmt.Errorf("writing the anchor: %w", err)
	}
	a = resp.Header.Revision
	for i := 1; i <= env.Opts.Writes; i++ {
		r, err := cli.Put(ctx, prefix+"k", strconv.Itoa(i))
		if err != nil {
			return "", 0, 0, fmt.Errorf("write %d: %w", i, err)
		}
		n = r.Header.Revision
	}
	st, err := cli.Status(ctx, env.Endpoints()[0])
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
	w       Watcher
	opened  time.Time
	ch      clientv3.WatchChan
	compact time.Time
}

func (s *watchState) ms(t time.Time) int64 { return t.Sub(s.opened).Milliseconds() }

// take records one response; it reports whether the watch ended.
func (s *watchState) take(resp clientv3.WatchResponse, now time.Time) bool {
	if n := len(resp.Events); n > 0 {
		first, last := resp.Events[0].Kv.ModRevision, resp.Events[n-1].Kv.ModRevision
		s.w.Responses = append(s.w.Responses, Batch{Events: n, AtMs: s.ms(now), First: first, Last: last})
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
		s.w.Cancel = cancelOf(resp)
		if err := resp.Err(); err != nil {
			s.w.Error = err.Error()
		}
		return true
	}
	return false
}

func cancelOf(resp clientv3.WatchResponse) *Cancel {
	return &Cancel{Canceled: resp.Canceled, Created: resp.Created, CompactRevision: resp.CompactRevision,
		CancelReason: resp.CancelReason, HeaderRevision: resp.Header.GetRevision()}
}

// openWatch opens a watch on prefix and waits for its created response.
func openWatch(ctx context.Context, cli *clientv3.Client, name, prefix string, rev int64) (*watchState, error) {
	opts := []clientv3.OpOption{clientv3.WithPrefix(), clientv3.WithCreatedNotify()}
	if rev != 0 {
		opts = append(opts, clientv3.WithRev(rev))
	}
	s := &watchState{w: Watcher{Name: name, StartRevision: rev}, opened: time.Now()}
	s.ch = cli.Watch(ctx, prefix, opts...)
	select {
	case resp, ok := <-s.ch:
		if !ok {
			if err := ctx.Err(); err != nil {
				return nil, err // interrupted: the client closed the channel
			}
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

// follow takes responses from s until it ended or its last revision is at
// least rev.
func follow(ctx context.Context, s *watchState, rev int64, wait time.Duration) error {
	for !s.w.Ended && s.w.LastRevision < rev {
		select {
		case resp, ok := <-s.ch:
			if !ok {
				return fmt.Errorf("%s watch closed without a final response", s.w.Name)
			}
			s.take(resp, time.Now())
		case <-time.After(wait):
			return fmt.Errorf("%s watch: revision %d did not arrive in %v", s.w.Name, rev, wait)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// round runs the exercise's steps 1 to 3 with the Go client: a behind and a
// current watcher, a compaction to N-10 (when the first replayed batch
// arrives, or after a fixed delay), and a write afterwards that a living
// watcher receives.
func round(ctx context.Context, env *lab.Env, name string, delay time.Duration) (rd roundResult, err error) {
	cli := env.Client
	prefix, a, n, err := setup(ctx, env, name)
	if err != nil {
		return roundResult{}, err
	}
	c := n - 10
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	current, err := openWatch(wctx, cli, "current", prefix, 0)
	if err != nil {
		return roundResult{}, err
	}
	behind, err := openWatch(wctx, cli, "behind", prefix, a)
	if err != nil {
		return roundResult{}, err
	}
	// The behind watcher is owed the lab's own events from A to N: the
	// anchor and the writes (its prefix is the run's own).
	behind.w.Total = env.Opts.Writes + 1
	var timer <-chan time.Time
	if delay > 0 {
		timer = time.After(delay)
	}
	compact := func() error {
		if _, err := cli.Compact(ctx, c); err != nil {
			return compactError(c, err)
		}
		now := time.Now()
		behind.compact, current.compact = now, now
		behind.w.CompactedAtMs = behind.ms(now)
		current.w.CompactedAtMs = current.ms(now)
		return nil
	}
	// Until the compaction: follow the behind watcher.
	for behind.compact.IsZero() && !behind.w.Ended {
		select {
		case resp, ok := <-behind.ch:
			if !ok {
				return roundResult{}, fmt.Errorf("behind watch closed without a final response")
			}
			behind.take(resp, time.Now())
			if delay <= 0 && behind.w.Events > 0 {
				if err := compact(); err != nil {
					return roundResult{}, err
				}
			}
		case <-timer:
			if err := compact(); err != nil {
				return roundResult{}, err
			}
		case <-time.After(30 * time.Second):
			return roundResult{}, fmt.Errorf("behind watch: nothing for 30 s")
		case <-ctx.Done():
			return roundResult{}, ctx.Err()
		}
	}
	if cc := behind.w.Cancel; cc != nil && cc.CompactRevision != 0 && cc.CompactRevision != c {
		env.Note("round %s: the behind watcher was ended by a compaction to %d, not by the lab's to %d: another client compacted the server", name, cc.CompactRevision, c)
	}
	// A write after the compaction: a living watcher receives it.
	pr, err := cli.Put(ctx, prefix+"after-compaction", "1")
	if err != nil {
		return roundResult{}, fmt.Errorf("writing after the compaction: %w", err)
	}
	for _, s := range []*watchState{behind, current} {
		if err := follow(ctx, s, pr.Header.Revision, 10*time.Second); err != nil {
			return roundResult{}, err
		}
	}
	return roundResult{prefix, a, n, c, []Watcher{behind.w, current.w}}, nil
}

// compactError is the error of the lab's compaction to c: one that
// another client's compaction past c refused says so.
func compactError(c int64, err error) error {
	if errors.Is(err, rpctypes.ErrCompacted) {
		return fmt.Errorf("compacting to %d: another client has compacted the server past it during the lab (%v): the lab measures its own compaction; run it when no other client compacts", c, err)
	}
	return fmt.Errorf("compacting to %d: %w", c, err)
}

// roundResult is a round's prefix, anchor A, head N, compaction C and
// watchers (behind, current).
type roundResult struct {
	prefix  string
	a, n, c int64
	ws      []Watcher
}

func (l *labRun) byHand(ctx context.Context) error {
	if l.env.Opts.Delay < 0 {
		return nil
	}
	rd, err := round(ctx, l.env, "by-hand", l.env.Opts.Delay)
	if err != nil {
		return err
	}
	l.rep.ByHand = &ByHand{AnchorRevision: rd.a, HeadRevision: rd.n, CompactRevision: rd.c,
		DelayMs: l.env.Opts.Delay.Milliseconds(), Watchers: rd.ws, Evicted: rd.ws[0].Ended}
	return nil
}

// etcdctlEvict runs the real etcdctl as terminal 1 and compacts as soon as
// its first line appears, so that the eviction lands mid-stream.
func (l *labRun) etcdctlEvict(ctx context.Context) error {
	if !l.env.HasEtcdctl() {
		return nil
	}
	prefix, a, n, err := setup(ctx, l.env, "etcdctl-evict")
	if err != nil {
		return err
	}
	// After the compaction, a write: if etcdctl prints its key, the watch
	// survived and the lab stops it.
	after := prefix + "after-compaction"
	compact := func() error {
		if _, err := l.cli.Compact(ctx, n-10); err != nil {
			return compactError(n-10, err)
		}
		_, err := l.cli.Put(ctx, after, "1")
		return err
	}
	cp, err := l.env.Capture(ctx, compact, after, "watch", "--prefix", prefix, "--rev="+strconv.FormatInt(a, 10))
	if err != nil {
		return err
	}
	l.rep.Etcdctl.Evict = cp
	return nil
}

func (l *labRun) evict(ctx context.Context) error {
	rd, err := round(ctx, l.env, "evict", 0)
	if err != nil {
		return err
	}
	l.prefix = rd.prefix
	l.rep.AnchorRevision, l.rep.HeadRevision, l.rep.CompactRevision = rd.a, rd.n, rd.c
	l.rep.Watchers = rd.ws
	return nil
}

// reopen opens a watch from the compacted anchor revision, and one from a
// negative revision, and records the responses in order: for the negative
// one both what the Go client's Watch delivered and what the server sent
// on a watch stream of the lab's own.
func (l *labRun) reopen(ctx context.Context) error {
	prefix := l.prefix
	r, err := reopenAt(ctx, l.cli, prefix, l.rep.AnchorRevision)
	if err != nil {
		return err
	}
	neg, err := reopenAt(ctx, l.cli, prefix, -1)
	if err != nil {
		return err
	}
	if neg.Raw, err = rawWatch(ctx, l.cli, prefix, -1); err != nil {
		return err
	}
	r.Negative = &neg
	l.rep.Reopen = r
	if l.env.HasEtcdctl() {
		cp, err := l.env.Capture(ctx, nil, "", "watch", "--prefix", prefix, "--rev="+strconv.FormatInt(l.rep.AnchorRevision, 10))
		if err != nil {
			return err
		}
		l.rep.Etcdctl.Reopen = cp
	}
	return nil
}

func reopenAt(ctx context.Context, cli *clientv3.Client, prefix string, rev int64) (Reopen, error) {
	r := Reopen{StartRevision: rev}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := cli.Watch(wctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(rev), clientv3.WithCreatedNotify())
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
				r.Cancel = cancelOf(resp)
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

// rawWatch sends one create request on a gRPC watch stream of its own,
// past the Go client's Watch, and records the server's responses exactly,
// up to the one that cancels it (or the first with events, or 5 s).
func rawWatch(ctx context.Context, cli *clientv3.Client, prefix string, rev int64) ([]RawWatchResponse, error) {
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	stream, err := pb.NewWatchClient(cli.ActiveConnection()).Watch(wctx)
	if err != nil {
		return nil, fmt.Errorf("opening a watch stream: %w", err)
	}
	start := time.Now()
	req := &pb.WatchRequest{RequestUnion: &pb.WatchRequest_CreateRequest{CreateRequest: &pb.WatchCreateRequest{
		Key: []byte(prefix), RangeEnd: []byte(clientv3.GetPrefixRangeEnd(prefix)), StartRevision: rev}}}
	if err := stream.Send(req); err != nil {
		return nil, fmt.Errorf("sending the create request: %w", err)
	}
	out := []RawWatchResponse{}
	for {
		resp, err := stream.Recv()
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			if wctx.Err() != nil || errors.Is(err, io.EOF) {
				return out, nil // nothing more in 5 s: the record says so by its last response
			}
			return nil, fmt.Errorf("receiving on the watch stream: %w", err)
		}
		out = append(out, RawWatchResponse{WatchID: resp.WatchId, Created: resp.Created, Canceled: resp.Canceled,
			CancelReason: resp.CancelReason, CompactRevision: resp.CompactRevision, HeaderRevision: resp.Header.GetRevision(),
			Events: len(resp.Events), AtMs: time.Since(start).Milliseconds()})
		if resp.Canceled || len(resp.Events) > 0 {
			stream.CloseSend()
			return out, nil
		}
	}
}

// probeWatch reports whether a watch from rev opens: it delivers events
// (open) or is canceled (compacted).
func probeWatch(ctx context.Context, cli *clientv3.Client, prefix string, rev int64) (Probe, error) {
	r, err := reopenAt(ctx, cli, prefix, rev)
	if err != nil {
		return Probe{}, err
	}
	// What the Go client saw; etcdctl's own first line replaces it where
	// the lab has etcdctl (see boundary).
	p := Probe{Revision: rev, By: "client"}
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
func (l *labRun) boundary(ctx context.Context) error {
	prefix := l.prefix
	n, c := l.rep.HeadRevision, l.rep.CompactRevision
	b := WatchBoundary{CompactRevision: c}
	for _, r := range []int64{n - 12, n - 11, n - 10, n - 9} {
		p, err := probeWatch(ctx, l.cli, prefix, r)
		if err != nil {
			return err
		}
		if l.env.HasEtcdctl() {
			if line, err := l.env.FirstLine(ctx, "watch", "--prefix", prefix, "--rev="+strconv.FormatInt(r, 10)); err == nil {
				p.Result, p.By = line, "etcdctl"
			}
		}
		b.Probes = append(b.Probes, p)
	}
	lowest, probes, err := search(1, n, func(r int64) (bool, error) {
		p, err := probeWatch(ctx, l.cli, prefix, r)
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
func (l *labRun) read(ctx context.Context) error {
	key := l.prefix + "k"
	c := l.rep.CompactRevision
	get := func(r int64) ReadProbe {
		_, err := l.cli.Get(ctx, key, clientv3.WithRev(r))
		p := ReadProbe{Revision: r, OK: err == nil}
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
	if l.env.HasEtcdctl() {
		cp, err := l.env.Capture(ctx, nil, "", "get", "--rev="+strconv.FormatInt(l.rep.AnchorRevision, 10), key)
		if err != nil {
			return err
		}
		l.rep.Etcdctl.Read = cp
	}
	return nil
}

// probeCompact compacts to the main round's compaction revision C again:
// the Go client's Compact, then `etcdctl compaction C`.
func (l *labRun) probeCompact(ctx context.Context) error {
	c := l.rep.CompactRevision
	p := RequestProbe{Name: ProbeCompact, Title: probeCompactTitle, Revision: c, CompactRevision: c}
	_, err := l.cli.Compact(ctx, c)
	return l.probe(ctx, p, err, "compaction", strconv.FormatInt(c, 10))
}

// probeHashKV asks for the hash of the store at C-1, below the main
// round's compaction: the Go client's HashKV, then `etcdctl endpoint
// hashkv --rev=C-1`.
func (l *labRun) probeHashKV(ctx context.Context) error {
	c := l.rep.CompactRevision
	p := RequestProbe{Name: ProbeHashKV, Title: probeHashKVTitle, Revision: c - 1, CompactRevision: c}
	_, err := l.cli.HashKV(ctx, l.env.Endpoints()[0], c-1)
	return l.probe(ctx, p, err, "endpoint", "hashkv", "--rev="+strconv.FormatInt(c-1, 10))
}

// probe records the Go client's error and etcdctl's run of args.
func (l *labRun) probe(ctx context.Context, p RequestProbe, err error, args ...string) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	p.ClientError, p.ClientCode = clientError(err)
	if l.env.HasEtcdctl() {
		cp, err := l.env.Exec(ctx, args...)
		if err != nil {
			return err
		}
		p.Capture = cp
	}
	l.rep.Probes = append(l.rep.Probes, p)
	return nil
}

// clientError returns a Go client error's text and its gRPC status code.
func clientError(err error) (text, code string) {
	if err == nil {
		return "", ""
	}
	var ee rpctypes.EtcdError
	if errors.As(err, &ee) {
		return err.Error(), ee.Code().String()
	}
	if s, ok := status.FromError(err); ok {
		return err.Error(), s.Code().String()
	}
	return err.Error(), ""
}

// etcdctlRecord names the etcdctl in use, for the lab to add its captures
// to, or nil without etcdctl.
func etcdctlRecord(env *lab.Env) *Etcdctl {
	t := env.Etcdctl()
	if t == nil {
		return nil
	}
	return &Etcdctl{LabTool: *t}
}
