// Package lab runs a study's lab on a real etcd server and records exactly
// what happens. It holds the mechanisms only; what a lab does is the
// study's (a Lab value, the way an analysis.Analyzer is an analysis).
//
// # Drivers
//
// Run starts the server (an embedded etcd, or existing loopback endpoints),
// finds the real etcdctl of the server's release, gives the study's Lab an
// Env to work in, and tears everything down afterwards. RunScript runs one
// of the Lab's scripts against a server that someone else owns, for a
// coverage run (package observe).
//
// # Servers
//
// The lab runs on an etcd server embedded in this program when it is of the
// release asked for (the pinned one, by default); on a server of another
// release built from that release's module (Options.BuildServer) and
// started on loopback; or on a server someone else runs (Options.Endpoints).
//
// # Safety
//
// Every key is written under a fresh prefix unique to the run (Env.Prefix),
// and only that prefix is deleted. Compaction is cluster-wide: against
// endpoints a lab runs only when AllowCompact is set, and only one srctrace
// lab at a time runs on one server (the others wait, see lock). Endpoints
// must be loopback addresses. Whatever happens, and also when the context
// is canceled (Ctrl-C), Run deletes what was written, stops the etcdctl
// processes it started, stops a server it started and removes its data dir
// before it returns; where it cannot delete its keys from a server someone
// else runs, its error says so (KeysLeftError).
//
// # A server that dies
//
// Every request has a deadline (RequestTimeout), and a watchdog asks a
// server this process does not embed for its status every second while the
// lab runs: a server that dies or stops answering ends the run within
// seconds with a ServerDownError that names the server and the phase.
package lab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/srctrace/srctrace/trace/progress"
	"github.com/srctrace/srctrace/trace/report"
)

// A Lab is a study's lab: what it runs on a real server, and the scripts a
// coverage run drives one at a time. The drivers Run and RunScript run it
// without knowing what it does.
type Lab struct {
	// Phases are the names Run announces through Env.Phase, in order,
	// between the drivers' own "server" and "teardown".
	Phases []string
	// Defaults are the study's Writes and Delay, used where Options leave
	// them zero (and shown as the CLI's flag defaults).
	Defaults Options
	// Check validates the options, the defaults applied, before a server
	// is started. An error wrapping ErrUsage is the user's mistake.
	Check func(Options) error
	// Run runs the lab in env and returns its record, of the study's own
	// type. The driver fills in the record's server (Etcd), Prefix, Notes
	// and Millis.
	Run func(ctx context.Context, env *Env) (Record, error)
	// Scripts are the behaviours a coverage run drives, one per server
	// process. The one named Baseline is what the others are compared with.
	Scripts []Script
}

// Record is a lab run's record: a value of the study's own type, which holds
// the part every run has (report.LabRun).
type Record interface {
	Run() *report.LabRun
}

// Script is one behaviour driven on its own, for a coverage run.
type Script struct {
	Name string
	// Doc says in one sentence what the script does.
	Doc string
	Run func(ctx context.Context, env *Env) error
}

// Baseline names the script that every other script is compared with: the
// common ground (setup and the requests that set a behaviour up), so that
// what runs in a behaviour and not in the baseline is the behaviour's own.
const Baseline = "baseline"

// Script returns the script named name.
func (l *Lab) Script(name string) (Script, bool) {
	for _, s := range l.Scripts {
		if s.Name == name {
			return s, true
		}
	}
	return Script{}, false
}

// ScriptNames lists the scripts' names in order.
func (l *Lab) ScriptNames() []string {
	var out []string
	for _, s := range l.Scripts {
		out = append(out, s.Name)
	}
	return out
}

// check applies the defaults to o and validates it.
func (l *Lab) check(o *Options) error {
	if o.Writes == 0 {
		o.Writes = l.Defaults.Writes
	}
	if o.Delay == 0 {
		o.Delay = l.Defaults.Delay
	}
	if l.Check != nil {
		return l.Check(*o)
	}
	return nil
}

// The drivers' own phases: before the lab's, and after them.
const (
	PhaseServer   = "server"
	PhaseTeardown = "teardown"
)

// AllPhases lists every phase Run announces, in order: the server's, the
// lab's and the teardown.
func (l *Lab) AllPhases() []string {
	return append(append([]string{PhaseServer}, l.Phases...), PhaseTeardown)
}

// Options configure Run.
type Options struct {
	// Endpoints of an existing server; empty starts an embedded one.
	Endpoints []string
	// AllowCompact permits running the lab against a server given by
	// Endpoints (a lab compacts, and compaction is cluster-wide).
	AllowCompact bool
	// Version is the release of the server to run: empty or the embedded
	// release (EmbeddedVersion) runs the embedded server, another one a
	// server built by BuildServer. Exclusive with Endpoints.
	Version string
	// BuildServer builds the etcd server of a release and returns the
	// binary (see ServerBuilder).
	BuildServer func(ctx context.Context, version string) (string, error)
	// Etcdctl is the etcdctl binary; empty means find or build one
	// (see FindEtcdctl), unless NoEtcdctl is set.
	Etcdctl   string
	NoEtcdctl bool
	// Build builds etcdctl for a release when none is found; nil disables it.
	Build func(ctx context.Context, version string) (string, error)
	// Writes and Delay are the study's knobs (how many writes its setup
	// makes, and a delay it waits for); zero means the study's default
	// (Lab.Defaults).
	Writes int
	Delay  time.Duration
	// Phase, when set, is called as each phase begins (the CLI prints
	// progress with it; tests interrupt the lab at every phase).
	Phase func(name string)
}

// ErrUsage marks errors in what the user asked for.
var ErrUsage = errors.New("usage")

// Run runs lab l. Whatever happens, and also when ctx is canceled, it
// deletes what was written, stops its processes, closes an embedded server
// and removes its data dir before returning.
func Run(ctx context.Context, l *Lab, opts Options) (rep Record, err error) {
	if l == nil || l.Run == nil {
		return nil, fmt.Errorf("%w: the study has no lab", ErrUsage)
	}
	if err := l.check(&opts); err != nil {
		return nil, err
	}
	if len(opts.Endpoints) > 0 {
		if err := checkLoopback(opts.Endpoints); err != nil {
			return nil, err
		}
		if !opts.AllowCompact {
			return nil, fmt.Errorf("%w: the lab compacts the server, and compaction is cluster-wide: it destroys history for every client of %s; pass --allow-compact to allow it", ErrUsage, strings.Join(opts.Endpoints, ","))
		}
		if opts.Version != "" {
			return nil, fmt.Errorf("%w: --etcd-version and --endpoints exclude each other: the server at %s runs its own release", ErrUsage, strings.Join(opts.Endpoints, ","))
		}
	}
	start := time.Now()
	// The lab works under lctx, which the watchdog ends when the server
	// stops answering; ctx's end is the user's interrupt.
	lctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	env := &Env{Opts: opts, prog: progress.Start(ctx, "the lab", len(l.AllPhases()))}
	defer func() {
		env.stopWatchdog()
		if err != nil {
			rep, err = nil, env.explain(ctx, lctx, err)
		}
		env.announce(PhaseTeardown)
		if terr := env.teardown(); terr != nil {
			if err == nil {
				rep = nil
			}
			err = env.leftBehind(err, terr)
		}
		if err == nil {
			rep.Run().Millis = time.Since(start).Milliseconds()
		}
		env.prog.Done()
	}()
	env.announce(PhaseServer)
	if err := env.start(lctx); err != nil {
		return nil, err
	}
	if err := lctx.Err(); err != nil {
		return nil, err
	}
	env.startWatchdog(lctx, cancel)
	rep, err = l.Run(lctx, env)
	if err != nil {
		return nil, err
	}
	// A request interrupted in the last phase may have recorded the
	// interruption as its result: the record is not the server's then.
	if err := lctx.Err(); err != nil {
		return nil, err
	}
	if rep == nil || rep.Run() == nil {
		return nil, fmt.Errorf("the lab returned no record")
	}
	run := rep.Run()
	run.Etcd = env.Etcd
	run.Prefix = env.base
	run.Notes = append(append([]string{}, env.notes...), run.Notes...)
	return rep, nil
}

// RunScript runs lab l's script name against a server at endpoints that
// this process does not own, with the Go client only, under the prefix
// /srctrace-observe/NAME/. The keys it wrote are deleted afterwards.
func RunScript(ctx context.Context, endpoints []string, l *Lab, name string, opts Options) (err error) {
	s, ok := l.Script(name)
	if !ok {
		return fmt.Errorf("%w: no script %q: want one of %s", ErrUsage, name, strings.Join(l.ScriptNames(), ", "))
	}
	if err := l.check(&opts); err != nil {
		return err
	}
	env := &Env{Opts: opts, Server: external{eps: endpoints}}
	defer func() {
		if terr := env.teardown(); terr != nil && err == nil {
			err = terr
		}
	}()
	if err := env.connect(); err != nil {
		return err
	}
	env.base = "/srctrace-observe/" + s.Name + "/"
	if err := s.Run(ctx, env); err != nil {
		return fmt.Errorf("script %s: %w", s.Name, err)
	}
	return nil
}

// Env is what a lab works with: a client of the server, the real etcdctl
// (when one was had), fresh key prefixes, and the phase hook.
type Env struct {
	// Client is a Go client of the server.
	Client *clientv3.Client
	Server Server
	// Etcd names the server (release, kind, endpoints).
	Etcd report.LabEtcd
	// Opts are the options of the run, with the study's defaults set.
	Opts Options

	etcdctl, etcdctlVersion string
	base                    string // the run's unique prefix, deleted at teardown
	notes                   []string
	prog                    *progress.Phase
	phase                   string // the phase running
	down                    bool   // the server stopped answering
	unlock                  func() // releases the lab's lock on a server someone else runs
	stopDog                 func()
}

// Phase announces that phase name begins and returns ctx's error, so that
// a lab stops at the next phase once it is interrupted.
func (e *Env) Phase(ctx context.Context, name string) error {
	e.announce(name)
	return ctx.Err()
}

func (e *Env) announce(name string) {
	e.phase = name
	if e.prog != nil {
		e.prog.Next(name)
	}
	if e.Opts.Phase != nil {
		e.Opts.Phase(name)
	}
}

// Prefix returns a fresh key prefix under the run's unique one, for a
// round called name; everything under the run's prefix is deleted at
// teardown.
func (e *Env) Prefix(name string) string {
	return e.base + name + "/"
}

// RunPrefix is the prefix unique to the run that every key the lab writes
// is under.
func (e *Env) RunPrefix() string { return e.base }

// Endpoints are the server's client endpoints.
func (e *Env) Endpoints() []string { return e.Server.Endpoints() }

// Note records a sentence about how the run went.
func (e *Env) Note(format string, args ...any) {
	e.notes = append(e.notes, fmt.Sprintf(format, args...))
}

// HasEtcdctl reports whether the real etcdctl is at hand.
func (e *Env) HasEtcdctl() bool { return e.etcdctl != "" }

// Etcdctl names the etcdctl in use, or nil without etcdctl.
func (e *Env) Etcdctl() *report.LabTool {
	if e.etcdctl == "" {
		return nil
	}
	return &report.LabTool{Path: e.etcdctl, Version: e.etcdctlVersion}
}

func (e *Env) start(ctx context.Context) error {
	switch {
	case len(e.Opts.Endpoints) > 0:
		e.Server = external{eps: e.Opts.Endpoints}
	case e.Opts.Version == "" || e.Opts.Version == EmbeddedVersion():
		srv, err := StartEmbedded(ctx)
		if err != nil {
			return err
		}
		e.Server = srv
	default:
		if e.Opts.BuildServer == nil {
			return fmt.Errorf("the lab cannot run etcd %s: this program embeds %s and was given no way to build another release", e.Opts.Version, EmbeddedVersion())
		}
		bin, err := e.Opts.BuildServer(ctx, e.Opts.Version)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("building etcd %s for the lab: %w", e.Opts.Version, err)
		}
		srv, err := StartProcess(ctx, bin)
		if err != nil {
			return err
		}
		e.Server = srv
	}
	e.Etcd = report.LabEtcd{Server: e.Server.Kind()}
	if e.Server.Kind() != "embedded" {
		e.Etcd.Endpoints = e.Server.Endpoints()
	}
	if err := e.connect(); err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	st, err := e.Client.Status(sctx, e.Endpoints()[0])
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("connecting to etcd at %s: %w", strings.Join(e.Endpoints(), ","), err)
	}
	e.Etcd.Version = "v" + st.Version
	if e.Opts.Version != "" && e.Etcd.Version != e.Opts.Version {
		return fmt.Errorf("the lab's server is etcd %s, not the %s asked for", e.Etcd.Version, e.Opts.Version)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	e.base = "/srctrace-lab/" + hex.EncodeToString(b[:]) + "/"
	if e.Server.Kind() == "endpoints" {
		if err := e.lock(ctx); err != nil {
			return err
		}
	}
	if e.Opts.NoEtcdctl {
		e.Note("etcdctl was not used (--no-etcdctl): the results are the Go client's")
		return nil
	}
	path, ver, note := FindEtcdctl(ctx, e.Opts.Etcdctl, e.Etcd.Version, e.Opts.Build)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if note != "" {
		e.Note("%s", note)
	}
	e.etcdctl, e.etcdctlVersion = path, ver
	return nil
}

func (e *Env) connect() error {
	cli, err := newClient(e.Endpoints())
	if err != nil {
		return fmt.Errorf("connecting to etcd: %w", err)
	}
	e.Client = cli
	return nil
}

// teardown deletes the run's keys, closes the client and stops a server
// the run started. The error is about keys left on a server someone else
// runs, or about stopping a server.
func (e *Env) teardown() error {
	var errs []error
	if e.Client != nil {
		// A server that stopped answering (as the run found, or as a
		// status request now shows: an interrupt may come while it hangs)
		// gets one short try, so that the teardown does not hang with it.
		if !e.down && e.Server != nil && e.Server.Kind() != "embedded" && e.ping(context.Background(), time.Second) != nil {
			e.down = true
		}
		d := 5 * time.Second
		if e.down {
			d = time.Second
		}
		ctx, cancel := context.WithTimeout(context.Background(), d)
		if e.base != "" {
			if _, err := e.Client.Delete(ctx, e.base, clientv3.WithPrefix()); err != nil && e.Server.Kind() == "endpoints" {
				errs = append(errs, &KeysLeftError{Endpoints: e.Endpoints(), Prefix: e.base, Err: err})
			}
		}
		cancel()
		if e.unlock != nil && !e.down {
			e.unlock() // else the lock's lease ends by itself
		}
		e.Client.Close()
	}
	if e.Server != nil {
		if err := e.Server.Close(); err != nil {
			errs = append(errs, fmt.Errorf("stopping the lab's etcd server: %w", err))
		}
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// leftBehind joins what teardown could not do to the run's error, keeping
// the run's error first (an interrupt stays one).
func (e *Env) leftBehind(err, terr error) error {
	if err == nil {
		return terr
	}
	var down *ServerDownError
	if left, ok := terr.(*KeysLeftError); ok && errors.As(err, &down) {
		// The server that stopped answering has the keys: one sentence.
		down.Left = left
		return down
	}
	return &teardownError{err: err, teardown: terr}
}

// teardownError is a run's error with what its teardown could not do.
type teardownError struct{ err, teardown error }

func (t *teardownError) Error() string   { return t.err.Error() + "; " + t.teardown.Error() }
func (t *teardownError) Unwrap() []error { return []error{t.err, t.teardown} }

// KeysLeftError says which of the run's keys are still on a server
// someone else runs, and how to delete them.
type KeysLeftError struct {
	Endpoints []string
	Prefix    string
	Err       error
}

func (k *KeysLeftError) Error() string {
	return fmt.Sprintf("the lab's keys under %s are still on the etcd server at %s (deleting them: %v): delete them with `%s` once it answers", k.Prefix, strings.Join(k.Endpoints, ","), k.Err, k.command())
}

func (k *KeysLeftError) Unwrap() error { return k.Err }

// command is the etcdctl command that deletes the keys.
func (k *KeysLeftError) command() string {
	return fmt.Sprintf("etcdctl --endpoints=%s del --prefix %s", strings.Join(k.Endpoints, ","), k.Prefix)
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
