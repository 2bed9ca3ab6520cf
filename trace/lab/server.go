package lab

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"go.etcd.io/etcd/api/v3/version"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Server is the etcd server a lab runs against.
type Server interface {
	Endpoints() []string
	Kind() string // "embedded" or "endpoints"
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
// depend on durability.
func StartEmbedded(ctx context.Context) (Server, error) {
	dir, err := os.MkdirTemp("", "srctrace-lab-")
	if err != nil {
		return nil, fmt.Errorf("starting embedded etcd: %w", err)
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
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting embedded etcd: %w", err)
	}
	s := &embedded{e: e, dir: dir}
	select {
	case <-e.Server.ReadyNotify():
		return s, nil
	case err := <-e.Err():
		s.Close()
		return nil, fmt.Errorf("starting embedded etcd: %w", err)
	case <-time.After(60 * time.Second):
		s.Close()
		return nil, fmt.Errorf("starting embedded etcd: not ready after 60 s")
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	}
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
	return os.RemoveAll(s.dir)
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
	cmd  *exec.Cmd
	dir  string
	eps  []string
	done chan struct{}
}

// StartProcess starts the etcd binary at bin as a one-member cluster on
// loopback ports chosen free, in a new temporary directory, and waits until
// it answers. Close stops it (SIGTERM, then SIGKILL) and removes the
// directory. Its output is discarded.
func StartProcess(ctx context.Context, bin string) (Server, error) {
	dir, err := os.MkdirTemp("", "srctrace-etcd-")
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	ports, err := freePorts(2)
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	client := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peer := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	cmd := exec.Command(bin,
		"--name=srctrace-lab", "--data-dir="+filepath.Join(dir, "data"),
		"--listen-client-urls="+client, "--advertise-client-urls="+client,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer,
		"--initial-cluster=srctrace-lab="+peer, "--unsafe-no-fsync", "--log-level=error")
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	p := &process{cmd: cmd, dir: dir, eps: []string{client}, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	cli, err := clientv3.New(clientv3.Config{Endpoints: p.eps, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
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
			return nil, fmt.Errorf("starting %s: it exited (%v)", bin, cmd.ProcessState)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (p *process) Endpoints() []string { return p.eps }
func (p *process) Kind() string        { return "endpoints" }

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
	return os.RemoveAll(p.dir)
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
