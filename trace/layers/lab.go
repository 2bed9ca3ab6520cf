package layers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/srctrace/srctrace/trace/progress"
	"github.com/srctrace/srctrace/trace/source"
)

// Lab is a consumer's lab: one program, built on demand in the consumer's
// work module (it is not linked into srctrace), run once; it prints its
// record as JSON on stdout and leaves nothing behind. It must stop, and
// clean up, on SIGTERM.
type Lab struct {
	// Name names the program's package in the work module and its binary.
	Name string
	// Source is the program's main package, one file.
	Source []byte
	Args   []string
	// Timeout bounds a run (the program's own bound should be shorter).
	Timeout time.Duration
}

// LabRun is a run of a consumer's lab.
type LabRun struct {
	Record  json.RawMessage
	Binary  string
	BuildMs int64 // 0 when the binary was already built
	Ms      int64
}

// RunLab builds the spec's lab in res's work module, once per release pair
// and source, and runs it.
func RunLab(ctx context.Context, res *Result, cacheDirectory string) (*LabRun, error) {
	if res == nil || res.Source == nil || res.Layers == nil || res.Layers.Release == "" {
		return nil, fmt.Errorf("running the consumer's lab: no consumer release was read")
	}
	l := res.spec.Lab
	if l == nil {
		return nil, fmt.Errorf("%w: the study has no lab for %s", source.ErrUsage, res.spec.Consumer.Name)
	}
	cache, err := cacheDir(cacheDirectory)
	if err != nil {
		return nil, err
	}
	run := &LabRun{}
	start := time.Now()
	if run.Binary, err = buildLab(ctx, res, l, cache); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(run.Binary); err == nil && fi.ModTime().After(start) {
		run.BuildMs = time.Since(start).Milliseconds()
	}
	ph := progress.Start(ctx, "the "+res.spec.Consumer.Name+" lab", 0)
	defer ph.Done()
	timeout := l.Timeout
	if timeout == 0 {
		timeout = 3 * time.Minute
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	begin := time.Now()
	cmd := exec.CommandContext(rctx, run.Binary, l.Args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	run.Ms = time.Since(begin).Milliseconds()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("running the %s lab: %v: %s", res.spec.Consumer.Name, err, strings.TrimSpace(stderr.String()))
	}
	if !json.Valid(stdout.Bytes()) {
		return nil, fmt.Errorf("running the %s lab: it printed no record", res.spec.Consumer.Name)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, stdout.Bytes()); err != nil {
		return nil, err
	}
	run.Record = compact.Bytes()
	return run, nil
}

// buildLab returns the lab's binary for the release pair, building it
// when the cache lacks it. The program's package is written into the work
// module only for the build.
func buildLab(ctx context.Context, res *Result, l *Lab, cache string) (string, error) {
	src := res.Source
	h := sha256.Sum256(l.Source)
	bin := filepath.Join(cache, "bin", l.Name+"-"+filepath.Base(src.Dir)+"-"+hex.EncodeToString(h[:6]))
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	tmp := bin + ".tmp" + strconv.Itoa(os.Getpid())
	defer os.Remove(tmp)
	ph := progress.Start(ctx, "building the "+res.spec.Consumer.Name+" lab (the first build compiles "+res.spec.Consumer.Name+" and etcd: minutes)", 0)
	defer ph.Done()
	pkg := filepath.Join(src.Dir, l.Name)
	err := src.Locked(ctx, func() error {
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			return err
		}
		defer os.RemoveAll(pkg)
		if err := source.WriteFileAtomic(filepath.Join(pkg, "main.go"), l.Source); err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, "go", "build", "-o", tmp, "./"+l.Name)
		cmd.Dir = src.Dir
		cmd.Env = src.WithOnline().Env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("building the %s lab: %v: %s", res.spec.Consumer.Name, err, bytes.TrimSpace(out))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	return bin, nil
}
