// Package observe runs a study's lab behaviours on an etcd server built
// with Go's coverage instrumentation and reports which lines ran in each.
//
// The server is a small runner (runner.go.txt) that embeds etcd at the
// release under study. It is built once per release and package set with
// `go build -cover -covermode=atomic -coverpkg=...` into the user cache dir.
// Each behaviour runs in a fresh server process with its own GOCOVERDIR;
// the runner closes etcd and returns from main on SIGTERM, so its counters
// are written (etcd's own binary re-raises SIGTERM and never writes them).
// `go tool covdata textfmt` turns the counters into blocks.
package observe

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/srctrace/srctrace/trace/lab"
	"github.com/srctrace/srctrace/trace/progress"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/tmpdir"
)

//go:embed runner.go.txt
var runnerSource []byte

// Options configure Run.
type Options struct {
	Version  string   // the release; empty means the pinned one
	Packages []string // packages to instrument
	Modules  []string // the work module's modules (the server first)
	Layout   map[string]string
	CacheDir string
	Env      []string
	Writes   int
	// Lab is the study's lab, whose scripts drive the behaviours.
	Lab *lab.Lab
	// Scripts name the lab's scripts to run (default all of them).
	Scripts []string
}

// Block is a run of statements and how often it ran.
type Block struct {
	File       string // repo-relative
	Start, End int    // lines
	Count      int
}

// Profile is one behaviour's coverage.
type Profile struct {
	Script string
	Millis int64
	Blocks []Block
	files  map[string][]Block
}

// Result is a coverage run of all scripts.
type Result struct {
	Version string
	Binary  string
	Built   bool // the instrumented server was built in this run
	BuildMs int64
	Runs    []*Profile
}

// Covers reports whether a statement of a coverage block is on file:line
// (a package-level declaration is in none, and is not measured).
func (p *Profile) Covers(file string, line int) bool {
	for _, b := range p.files[file] {
		if b.Start <= line && line <= b.End {
			return true
		}
	}
	return false
}

// Ran reports whether a statement on file:line ran.
func (p *Profile) Ran(file string, line int) bool {
	for _, b := range p.files[file] {
		if b.Count > 0 && b.Start <= line && line <= b.End {
			return true
		}
	}
	return false
}

// Run builds (or reuses) the instrumented server and runs each script.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Lab == nil || len(o.Lab.Scripts) == 0 {
		return nil, fmt.Errorf("%w: --observe needs a study whose lab has coverage scripts", source.ErrUsage)
	}
	if len(o.Scripts) == 0 {
		o.Scripts = o.Lab.ScriptNames()
	}
	for _, s := range o.Scripts {
		if _, ok := o.Lab.Script(s); !ok {
			return nil, fmt.Errorf("%w: no script %q: want one of %s", source.ErrUsage, s, strings.Join(o.Lab.ScriptNames(), ", "))
		}
	}
	src, err := source.Resolve(ctx, source.Spec{Version: o.Version, Modules: o.Modules, Layout: o.Layout, CacheDir: o.CacheDir, Env: o.Env})
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if src.Kind != "module" {
		return nil, fmt.Errorf("%w: --observe runs releases only: name one with --etcd-version", source.ErrUsage)
	}
	res := &Result{Version: src.Version}
	start := time.Now()
	bin, built, err := build(ctx, src, o)
	if err != nil {
		return nil, err
	}
	res.Binary, res.Built = bin, built
	if built {
		res.BuildMs = time.Since(start).Milliseconds()
	}
	ph := progress.Start(ctx, "running the coverage scripts", len(o.Scripts))
	defer ph.Done()
	for _, s := range o.Scripts {
		ph.Next(s)
		p, err := runScript(ctx, src, bin, o.Lab, s, o.Writes)
		if err != nil {
			return nil, fmt.Errorf("observing %s: %w", s, err)
		}
		res.Runs = append(res.Runs, p)
	}
	return res, nil
}

func cacheDir(o Options) (string, error) {
	if o.CacheDir != "" {
		return o.CacheDir, nil
	}
	uc, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(uc, "srctrace"), nil
}

// build returns the instrumented server for the release and packages,
// building it when the cache lacks it.
func build(ctx context.Context, src *source.Source, o Options) (string, bool, error) {
	pkgs := append([]string{}, o.Packages...)
	sort.Strings(pkgs)
	h := sha256.Sum256(append([]byte(strings.Join(pkgs, ",")+"\nrunner-covered\n"), runnerSource...))
	dir, err := cacheDir(o)
	if err != nil {
		return "", false, err
	}
	bin := filepath.Join(dir, "bin", "etcd-cover-"+src.Version+"-"+hex.EncodeToString(h[:6]))
	if fi, err := os.Stat(bin); err == nil && fi.Mode().IsRegular() {
		return bin, false, nil
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", false, err
	}
	tmp := bin + ".tmp" + strconv.Itoa(os.Getpid())
	defer os.Remove(tmp)
	// The runner's own package is covered too: a program whose main package
	// is not covered writes no coverage data.
	cover := strings.Join(append(pkgs, source.WorkModule+"/runner"), ",")
	ph := progress.Start(ctx, "building etcd "+src.Version+" with coverage", 0)
	defer ph.Done()
	cmd := src.WithOnline().Go(ctx, "build", "-cover", "-covermode=atomic", "-coverpkg="+cover, "-o", tmp, "./runner")
	err = src.Locked(ctx, func() error {
		rdir := filepath.Join(src.Dir, "runner")
		if err := os.MkdirAll(rdir, 0o755); err != nil {
			return err
		}
		if err := source.WriteFileAtomic(filepath.Join(rdir, "main.go"), runnerSource); err != nil {
			return err
		}
		if out, err := source.RunGo(cmd); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			return fmt.Errorf("building the instrumented etcd %s: %v: %s", src.Version, err, bytes.TrimSpace(out))
		}
		return nil
	})
	if err != nil {
		return "", false, err
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", false, err
	}
	return bin, true, nil
}

// runScript runs one script on a fresh instrumented server and reads its
// coverage. The server and its temporary directory are gone afterwards,
// also on error.
func runScript(ctx context.Context, src *source.Source, bin string, l *lab.Lab, script string, writes int) (*Profile, error) {
	tmp, err := tmpdir.Make("srctrace-observe-")
	if err != nil {
		return nil, fmt.Errorf("making the coverage run's directory: %w (TMPDIR must name a writable directory)", err)
	}
	defer tmpdir.Remove(tmp)
	cov := filepath.Join(tmp, "cov")
	if err := os.Mkdir(cov, 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	cmd := exec.CommandContext(ctx, bin, "-data-dir", filepath.Join(tmp, "data"))
	cmd.Env = append(os.Environ(), "GOCOVERDIR="+cov)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 20 * time.Second
	lab.DieWithParent(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", bin, err)
	}
	// exited is closed when the server has exited, for whatever reason;
	// waitErr is then how.
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	stop := func() error {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-exited
		return waitErr
	}
	defer stop()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		if sc.Scan() {
			addr <- strings.TrimSpace(sc.Text())
		}
		close(addr)
		for sc.Scan() {
		}
	}()
	var ep string
	select {
	case a, ok := <-addr:
		if !ok || a == "" {
			stop()
			return nil, fmt.Errorf("the instrumented server did not start: %s", strings.TrimSpace(stderr.String()))
		}
		ep = a
	case <-time.After(90 * time.Second):
		return nil, errors.New("the instrumented server did not start in 90 s")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	// A server that exits during the script ends the script at once.
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-exited:
			cancel()
		case <-sctx.Done():
		}
	}()
	if err := lab.RunScript(sctx, []string{ep}, l, script, lab.Options{Writes: writes}); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("the instrumented etcd server exited during the %s script (%v): %s", script, waitErr, lastLine(stderr.String()))
		default:
		}
		return nil, err
	}
	if err := stop(); err != nil {
		return nil, fmt.Errorf("stopping the instrumented server: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	prof := filepath.Join(tmp, "profile.txt")
	tool := source.GoCommand(ctx, "", src.Env, "tool", "covdata", "textfmt", "-i="+cov, "-o="+prof)
	if b, err := source.RunGo(tool); err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("go tool covdata: %v: %s", err, bytes.TrimSpace(b))
	}
	p, err := readProfile(prof, src)
	if err != nil {
		return nil, err
	}
	p.Script, p.Millis = script, time.Since(start).Milliseconds()
	return p, nil
}

// readProfile parses a text coverage profile; file names are import
// paths, turned into repo paths.
func readProfile(name string, src *source.Source) (*Profile, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	p := &Profile{files: map[string][]Block{}}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "mode:") {
			continue
		}
		b, ok := parseBlock(line, src)
		if !ok {
			continue
		}
		p.Blocks = append(p.Blocks, b)
		p.files[b.File] = append(p.files[b.File], b)
	}
	return p, nil
}

// parseBlock reads a profile line: import path and file, a colon, the
// block as startLine.startCol,endLine.endCol, the statements and the count.
func parseBlock(line string, src *source.Source) (Block, bool) {
	colon := strings.LastIndex(line, ":")
	if colon < 0 {
		return Block{}, false
	}
	file, rest := line[:colon], line[colon+1:]
	f := strings.Fields(rest)
	if len(f) != 3 {
		return Block{}, false
	}
	span := strings.Split(f[0], ",")
	if len(span) != 2 {
		return Block{}, false
	}
	startLine, _ := strconv.Atoi(strings.SplitN(span[0], ".", 2)[0])
	endLine, _ := strconv.Atoi(strings.SplitN(span[1], ".", 2)[0])
	count, _ := strconv.Atoi(f[2])
	return Block{File: src.ImportFile(file), Start: startLine, End: endLine, Count: count}, true
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
