package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"go.etcd.io/etcd/api/v3/version"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/srctrace/srctrace/trace/tmpdir"
)

// Server is the etcd server a lab runs against.
type Server interface {
	Endpoints() []string
	// Kind is "embedded" (in this process), "process" (a server of another
	// release this program built and started) or "endpoints" (someone
	// else's).
	Kind() string
	Close() error
}

// embedded is an etcd server running in this process, on loopback with
// ephemeral ports and a fresh data dir that Close removes.
type embedded struct {
	e   *embed.Etcd
	dir string
}

// StartEmbedded starts an etcd server of the release this program is built
// with (go.etcd.io/etcd/server/v3/embed) in a new temporary directory.
// fsync is off: the server is thrown away, and watch semantics do not
// depend on durability. A data dir that cannot be made or written is an
// error that says so, and the directory is gone.
func StartEmbedded(ctx context.Context) (Server, error) {
	dir, err := makeDataDir("srctrace-lab-")
	if err != nil {
		return nil, fmt.Errorf("starting the embedded etcd: %w", err)
	}
	cfg := embed.NewConfig()
	cfg.Name = "srctrace-lab"
	cfg.Dir = filepath.Join(dir, "data")
	loop := func() []url.URL { return []url.URL{{Scheme: "http", Host: "127.0.0.1:0"}} }
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = loop(), loop()
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = loop(), loop()
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.UnsafeNoFsync = true
	e, err := startEtcd(cfg)
	if err != nil {
		tmpdir.Remove(dir)
		return nil, fmt.Errorf("starting the embedded etcd in %s: %w%s: where its data dir cannot be written, set TMPDIR to a writable directory with room", dir, err, roomHint(filepath.Dir(dir)))
	}
	s := &embedded{e: e, dir: dir}
	select {
	case <-e.Server.ReadyNotify():
		return s, nil
	case err := <-e.Err():
		s.Close()
		return nil, fmt.Errorf("starting the embedded etcd: %w", err)
	case <-time.After(60 * time.Second):
		s.Close()
		return nil, fmt.Errorf("starting the embedded etcd: not ready after 60 s")
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	}
}

// startEtcd is embed.StartEtcd with etcd's panics (a data dir it cannot
// write: etcd panics while it makes its write-ahead log) turned into
// errors. What etcd had started before it panicked (its listeners) stays
// in this process until it exits.
func startEtcd(cfg *embed.Config) (e *embed.Etcd, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, err = nil, fmt.Errorf("etcd stopped: %v", r)
		}
	}()
	return embed.StartEtcd(cfg)
}

// makeDataDir makes a new temporary directory for a server's data, and
// checks that a file can be written in it.
func makeDataDir(pattern string) (string, error) {
	dir, err := tmpdir.Make(pattern)
	if err != nil {
		return "", fmt.Errorf("no data dir can be made in %s (%v): set TMPDIR to a writable directory with room", os.TempDir(), unwrapPath(err))
	}
	probe := filepath.Join(dir, "probe")
	if err := os.WriteFile(probe, make([]byte, 4096), 0o600); err != nil {
		tmpdir.Remove(dir)
		return "", fmt.Errorf("the data dir %s cannot be written (%v): set TMPDIR to a writable directory with room", dir, unwrapPath(err))
	}
	os.Remove(probe)
	return dir, nil
}

// unwrapPath drops the file name from a file error.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (s *embedded) Endpoints() []string {
	var eps []string
	for _, l := range s.e.Clients {
		eps = append(eps, l.Addr().String())
	}
	return eps
}

func (s *embedded) Kind() string { return "embedded" }

func (s *embedded) Close() error {
	s.e.Close()
	return tmpdir.Remove(s.dir)
}

// EmbeddedVersion is the release of the embedded server.
func EmbeddedVersion() string { return "v" + version.Version }

// external is a server someone else runs.
type external struct{ eps []string }

func (s external) Endpoints() []string { return s.eps }
func (s external) Kind() string        { return "endpoints" }
func (s external) Close() error        { return nil }

// process is an etcd binary this program started, on loopback with a fresh
// data dir that Close removes.
type process struct {
	cmd    *exec.Cmd
	dir    string
	eps    []string
	done   chan struct{}
	stderr *tail
}

// exitStatus says how the process ended, with the last thing it logged.
func (p *process) exitStatus() string {
	s := p.cmd.ProcessState.String()
	if last := p.stderr.last(); last != "" {
		s += ": " + last
	}
	return s
}

// StartProcess starts the etcd binary at bin as a one-member cluster on
// loopback ports chosen free, in a new temporary directory, and waits until
// it answers. Close stops it (SIGTERM, then SIGKILL) and removes the
// directory. The end of what it logs is kept for an error that says why
// it exited.
func StartProcess(ctx context.Context, bin string) (Server, error) {
	dir, err := makeDataDir("srctrace-etcd-")
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	ports, err := freePorts(2)
	if err != nil {
		tmpdir.Remove(dir)
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	client := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peer := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	cmd := exec.Command(bin,
		"--name=srctrace-lab", "--data-dir="+filepath.Join(dir, "data"),
		"--listen-client-urls="+client, "--advertise-client-urls="+client,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer,
		"--initial-cluster=srctrace-lab="+peer, "--unsafe-no-fsync", "--log-level=error")
	p := &process{cmd: cmd, dir: dir, eps: []string{client}, done: make(chan struct{}), stderr: &tail{}}
	cmd.Stdout, cmd.Stderr = io.Discard, p.stderr
	DieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		tmpdir.Remove(dir)
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	go func() { cmd.Wait(); close(p.done) }()
	cli, err := newClient(p.eps)
	if err != nil {
		p.Close()
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	defer cli.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		sctx, cancel := context.WithTimeout(ctx, time.Second)
		_, err := cli.Status(sctx, client)
		cancel()
		switch {
		case err == nil:
			return p, nil
		case ctx.Err() != nil:
			p.Close()
			return nil, ctx.Err()
		case time.Now().After(deadline):
			p.Close()
			return nil, fmt.Errorf("starting %s: not ready after 60 s: %w", bin, err)
		}
		select {
		case <-p.done:
			p.Close()
			return nil, fmt.Errorf("starting %s in %s: it exited (%s)%s", bin, dir, p.exitStatus(), roomHint(filepath.Dir(dir)))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (p *process) Endpoints() []string { return p.eps }
func (p *process) Kind() string        { return "process" }

func (p *process) Close() error {
	select {
	case <-p.done:
	default:
		p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			p.cmd.Process.Kill()
			<-p.done
		}
	}
	return tmpdir.Remove(p.dir)
}

// freePorts returns n loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ports []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// tail keeps, of what a process writes, what says why it ended: its last
// zap JSON entry (etcd logs errors so, before a panic's stack trace), else
// its last line.
type tail struct {
	mu      sync.Mutex
	partial []byte
	entry   string // the last zap entry: its message and error
	line    string // the last line
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.partial = append(t.partial, b...)
	for {
		i := bytes.IndexByte(t.partial, '\n')
		if i < 0 {
			break
		}
		t.take(string(t.partial[:i]))
		t.partial = t.partial[i+1:]
	}
	if len(t.partial) > 1<<16 {
		t.partial = t.partial[:0] // a line that long says nothing useful
	}
	return len(b), nil
}

func (t *tail) take(line string) {
	line = strings.TrimSpace(line)
	if line == "" {
		return
	}
	t.line = line
	var entry struct {
		Msg   string `json:"msg"`
		Error string `json:"error"`
	}
	if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg != "" {
		t.entry = entry.Msg
		if entry.Error != "" {
			t.entry += ": " + entry.Error
		}
	}
}

// last says why the process ended, as well as what it wrote can tell.
func (t *tail) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.entry != "" {
		return t.entry
	}
	if len(t.partial) > 0 {
		return strings.TrimSpace(string(t.partial))
	}
	return t.line
}
