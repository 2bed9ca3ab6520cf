package lab

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/srctrace/srctrace/trace/progress"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/source"
)

// etcdctlVersion runs `path version` and returns the release it prints
// ("v3.7.3").
func etcdctlVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "etcdctl version: "); ok {
			return "v" + strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("no version in %q", out)
}

// FindEtcdctl finds the etcdctl to use for a server of release want: the
// one given, else one on PATH of that release, else one built by build. It
// returns no path, and a note saying why, when none can be had.
func FindEtcdctl(ctx context.Context, given, want string, build func(context.Context, string) (string, error)) (path, version, note string) {
	if given != "" {
		v, err := etcdctlVersion(ctx, given)
		if err != nil {
			return "", "", fmt.Sprintf("--etcdctl %s does not run (%v): the results are the Go client's", given, err)
		}
		if v != want {
			note = fmt.Sprintf("--etcdctl %s is etcdctl %s, the server is %s: its output may differ from the release's", given, v, want)
		}
		return given, v, note
	}
	if p, err := exec.LookPath("etcdctl"); err == nil {
		if v, err := etcdctlVersion(ctx, p); err == nil && v == want {
			return p, v, ""
		} else if err == nil {
			note = fmt.Sprintf("the etcdctl on PATH (%s) is %s, not the server's %s, so it was not used", p, v, want)
		}
	}
	if build == nil {
		return "", "", strings.TrimPrefix(note+"; no etcdctl of release "+want+" could be had: the results are the Go client's", "; ")
	}
	p, err := build(ctx, want)
	if err != nil {
		return "", "", strings.TrimPrefix(note+"; building etcdctl "+want+" failed ("+err.Error()+"): the results are the Go client's", "; ")
	}
	v, err := etcdctlVersion(ctx, p)
	if err != nil {
		return "", "", fmt.Sprintf("the etcdctl built at %s does not run (%v): the results are the Go client's", p, err)
	}
	return p, v, note
}

// Builder returns a build function that builds etcdctl of a release once
// into cacheDir/bin (the user cache dir when empty), from a work module that
// requires the given modules (see package source).
func Builder(cacheDir string, modules []string, layout map[string]string, env []string) func(context.Context, string) (string, error) {
	return func(ctx context.Context, version string) (string, error) {
		return buildRelease(ctx, cacheDir, modules, layout, env, version, "go.etcd.io/etcd/etcdctl/v3", "etcdctl", etcdctlVersion)
	}
}

// ServerBuilder returns a build function that builds the etcd server of a
// release (the root package of server, its main) once into cacheDir/bin,
// from a work module that requires only that module, so that a release
// whose other modules the proxy refuses can still be run.
func ServerBuilder(cacheDir, server string, layout map[string]string, env []string) func(context.Context, string) (string, error) {
	return func(ctx context.Context, version string) (string, error) {
		return buildRelease(ctx, cacheDir, []string{server}, layout, env, version, server, "etcd", serverVersion)
	}
}

// buildRelease builds package pkg of a release into cacheDir/bin/NAME-VERSION
// unless a binary there already says (by versionOf) it is of that release.
func buildRelease(ctx context.Context, cacheDir string, modules []string, layout map[string]string, env []string, version, pkg, name string, versionOf func(context.Context, string) (string, error)) (string, error) {
	if cacheDir == "" {
		uc, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		cacheDir = filepath.Join(uc, "srctrace")
	}
	bin := filepath.Join(cacheDir, "bin", name+"-"+version)
	if v, err := versionOf(ctx, bin); err == nil && v == version {
		return bin, nil
	}
	src, err := source.Resolve(ctx, source.Spec{Version: version, Modules: modules, Layout: layout, CacheDir: cacheDir, Env: env})
	if err != nil {
		return "", err
	}
	defer src.Close()
	// The package's module must be the release's own: a work module that
	// lacks it would let the go command build another version.
	for _, m := range modules {
		if pkg != m && !strings.HasPrefix(pkg, m+"/") {
			continue
		}
		if _, ok := src.Modules[m]; !ok {
			why := src.Missing[m]
			if why == "" {
				why = "not in the work module"
			}
			return "", fmt.Errorf("%s %s cannot be had: %s", m, version, why)
		}
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	tmp := bin + ".tmp" + strconv.Itoa(os.Getpid())
	defer os.Remove(tmp)
	ph := progress.Start(ctx, "building "+name+" "+version, 0)
	defer ph.Done()
	cmd := src.WithOnline().Go(ctx, "build", "-o", tmp, pkg)
	err = src.Locked(ctx, func() error {
		if out, err := source.RunGo(cmd); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			return fmt.Errorf("go build %s@%s: %v: %s", pkg, version, err, bytes.TrimSpace(out))
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if v, err := versionOf(ctx, tmp); err != nil || v != version {
		return "", fmt.Errorf("go build %s@%s made a binary of %s (%v)", pkg, version, v, err)
	}
	if err := os.Rename(tmp, bin); err != nil {
		return "", err
	}
	return bin, nil
}

// serverVersion runs `path --version` and returns the release it prints.
func serverVersion(ctx context.Context, path string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "etcd Version: "); ok {
			return "v" + strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("no version in %q", out)
}

func (e *Env) etcdctlCmd(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"--endpoints=" + strings.Join(e.Endpoints(), ","), "--dial-timeout=5s"}, args...)
	cmd := exec.CommandContext(ctx, e.etcdctl, full...)
	// etcdctl reads ETCDCTL_* variables as flags; none of the user's may
	// change what the lab captures.
	for _, v := range os.Environ() {
		if !strings.HasPrefix(v, "ETCDCTL_") {
			cmd.Env = append(cmd.Env, v)
		}
	}
	cmd.WaitDelay = 2 * time.Second
	DieWithParent(cmd)
	return cmd
}

// maxStdout is how much of stdout Exec keeps.
const maxStdout = 1 << 20

// Exec runs etcdctl to its end (at most 20 s) and records its stdout
// exactly (Capture.Stdout), its stderr and its exit status. The
// --endpoints and --dial-timeout flags come first; Capture.Args are args.
func (e *Env) Exec(ctx context.Context, args ...string) (*report.Capture, error) {
	return e.capture(ctx, nil, "", true, args...)
}

// Capture runs etcdctl to its end (at most 20 s) and records its output,
// counting stdout's lines instead of keeping them (a watch prints
// thousands). onFirstLine runs when the first line appears; if stopAt is
// not empty and a line equal to it appears, etcdctl has outlived what the
// lab waited for: Capture stops it and marks the capture Stopped.
func (e *Env) Capture(ctx context.Context, onFirstLine func() error, stopAt string, args ...string) (*report.Capture, error) {
	return e.capture(ctx, onFirstLine, stopAt, false, args...)
}

func (e *Env) capture(ctx context.Context, onFirstLine func() error, stopAt string, keep bool, args ...string) (*report.Capture, error) {
	if e.etcdctl == "" {
		return nil, fmt.Errorf("etcdctl %s: no etcdctl at hand", strings.Join(args, " "))
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	stopCtx, stop := context.WithCancel(ctx)
	defer stop()
	cmd := e.etcdctlCmd(stopCtx, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("running %s: %w", e.etcdctl, err)
	}
	cp := &report.Capture{Args: args}
	var stdout strings.Builder
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var hookErr error
	for sc.Scan() {
		cp.StdoutLines++
		if keep && stdout.Len() < maxStdout {
			stdout.WriteString(sc.Text() + "\n")
		}
		if t := sc.Text(); t == "PUT" || t == "DELETE" {
			cp.Events++
		}
		if cp.StdoutLines == 1 && onFirstLine != nil {
			if hookErr = onFirstLine(); hookErr != nil {
				stop()
			}
		}
		if stopAt != "" && sc.Text() == stopAt {
			cp.Stopped = true
			stop()
		}
	}
	io.Copy(io.Discard, out)
	werr := cmd.Wait()
	if hookErr != nil {
		return nil, hookErr
	}
	if err := parent.Err(); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("etcdctl %s: did not end in 20 s", strings.Join(args, " "))
	}
	cp.Stderr = stderr.String()
	cp.ExitCode = cmd.ProcessState.ExitCode()
	if keep {
		s := stdout.String()
		cp.Stdout = &s
	}
	if cp.Stopped {
		cp.ExitCode = 0
		return cp, nil
	}
	if werr != nil && cp.ExitCode < 0 {
		return nil, fmt.Errorf("etcdctl %s: %w", strings.Join(args, " "), werr)
	}
	return cp, nil
}

// FirstLine runs etcdctl with stdout and stderr together, as a shell's
// `timeout 2 etcdctl ... 2>&1 | head -1` does, and returns the first line;
// then it stops etcdctl.
func (e *Env) FirstLine(ctx context.Context, args ...string) (string, error) {
	if e.etcdctl == "" {
		return "", fmt.Errorf("etcdctl %s: no etcdctl at hand", strings.Join(args, " "))
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	cmd := e.etcdctlCmd(ctx, args...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return "", err
	}
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		if sc.Scan() {
			lines <- sc.Text()
		} else {
			lines <- ""
		}
		io.Copy(io.Discard, pr)
	}()
	// Close the pipe once etcdctl has ended, so that a run that prints
	// nothing does not leave the reader waiting.
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		pw.Close()
		close(done)
	}()
	line := <-lines
	cancel()
	<-done
	return line, nil
}
