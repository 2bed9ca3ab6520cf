package lab

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"go.etcd.io/etcd/api/v3/version"
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
