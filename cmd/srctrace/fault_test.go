package main

// Fault tests: the built srctrace binary is run as a user runs it, and
// interrupted, starved of disk, or left without its server. Each run has
// a TMPDIR of its own, which must be empty afterwards, and no process
// that inherited that TMPDIR may outlive it.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/srctrace/srctrace/trace/lab"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

// TestMain removes the binary the fault tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// srctraceBin builds this command once per test run.
func srctraceBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "srctrace-bin-"); binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "srctrace")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// goCache is the go command's build cache, kept when a run gets a user
// cache dir of its own (XDG_CACHE_HOME would move it too).
func goCache(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// proc is one run of the binary: its stderr lines as they come.
type proc struct {
	cmd   *exec.Cmd
	tmp   string // its TMPDIR
	mu    sync.Mutex
	lines []string
	more  chan struct{} // a line came, or stderr ended
	ended bool
	done  chan struct{} // closed when it has exited
	err   error         // cmd.Wait's
}

// startProc runs the binary with args; env is added to the environment,
// tmp is its TMPDIR. Every phase is shown as it begins.
func startProc(t *testing.T, tmp string, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(srctraceBin(t), args...)
	cmd.Env = append(append(os.Environ(), "TMPDIR="+tmp, "SRCTRACE_PROGRESS_AFTER=0"), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	p := &proc{cmd: cmd, tmp: tmp, more: make(chan struct{}, 1), done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
			p.poke()
		}
		p.mu.Lock()
		p.ended = true
		p.mu.Unlock()
		p.poke()
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) poke() {
	select {
	case p.more <- struct{}{}:
	default:
	}
}

// stderr is what it printed so far.
func (p *proc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// waitLine waits for the n-th line (from 1) that is line, or for one that
// matches re when line is empty; it fails the test when the program ends
// first or after limit.
func (p *proc) waitLine(t *testing.T, line string, re *regexp.Regexp, n int, limit time.Duration) {
	t.Helper()
	timeout := time.After(limit)
	for {
		p.mu.Lock()
		seen := 0
		for _, l := range p.lines {
			if (line != "" && l == line) || (re != nil && re.MatchString(l)) {
				seen++
			}
		}
		ended := p.ended
		p.mu.Unlock()
		if seen >= n {
			return
		}
		if ended {
			t.Fatalf("srctrace ended before line %d of %q%v; stderr:\n%s", n, line, re, p.stderr())
		}
		select {
		case <-p.more:
		case <-timeout:
			t.Fatalf("no line %q%v in %v; stderr:\n%s", line, re, limit, p.stderr())
		}
	}
}

// wait waits for the program's end (at most limit) and returns its exit
// code, -1 when a signal ended it.
func (p *proc) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(limit):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("srctrace did not end in %v; stderr:\n%s", limit, p.stderr())
	}
	var ee *exec.ExitError
	switch {
	case p.err == nil:
		return 0
	case errors.As(p.err, &ee):
		return ee.ExitCode()
	}
	t.Fatalf("waiting for srctrace: %v", p.err)
	return 0
}

// checkNothingLeft fails when p's TMPDIR is not empty, or a process that
// inherited it (a go command, a compiler, an etcd server, etcdctl) still
// runs. Processes are given a few seconds to end: one that got SIGKILL
// because its parent ended goes in its own time.
func checkNothingLeft(t *testing.T, tmp string) {
	t.Helper()
	var left []string
	for range 50 {
		left = descendants(tmp)
		if len(left) == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, l := range left {
		t.Errorf("still running: %s", l)
	}
	ents, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("left behind in TMPDIR: %s", e.Name())
	}
}

// descendants lists the processes whose environment sets TMPDIR=tmp
// (Linux).
func descendants(tmp string) []string {
	want := []byte("TMPDIR=" + tmp + "\x00")
	var out []string
	envs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, f := range envs {
		data, err := os.ReadFile(f)
		if err != nil || !bytes.Contains(data, want) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(f), "cmdline"))
		out = append(out, filepath.Base(filepath.Dir(f))+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	return out
}

// phaseLine is a progress line: srctrace: PHASE › PHASE … .
var phaseLine = regexp.MustCompile(`^srctrace: .* …$`)

// occurrence is a progress line and which of its appearances it is.
type occurrence struct {
	line string
	n    int
}

// phases lists the progress lines of a run, each with its count so far.
func phases(stderr string) []occurrence {
	var out []occurrence
	seen := map[string]int{}
	for _, l := range strings.Split(stderr, "\n") {
		if phaseLine.MatchString(l) {
			seen[l]++
			out = append(out, occurrence{l, seen[l]})
		}
	}
	return out
}

// TestSignalAtEveryPhase runs `srctrace errcompacted --lab --observe` once
// to learn its phases (every progress line), then once per phase, sending
// SIGINT or SIGTERM as the phase begins: each run must exit 130 with
// `srctrace: interrupted`, leave the -o file as it was, and leave nothing
// behind. The phases that build (etcdctl, the instrumented server) run
// with a user cache dir of their own, empty, so that they build; the
// others with one the first run filled. Then the same for the last
// release of --drift, the atlas of errors and why on an error's text. How long each run took to end after its signal is
// logged, not asserted.
func TestSignalAtEveryPhase(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the study, the lab and the coverage runs many times")
	}
	gocache := goCache(t)
	warm := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		// only keeps the phases to interrupt; nil keeps all
		only func(string) bool
	}{
		{"errcompacted", []string{"errcompacted", "--lab", "--observe"}, nil},
		{"drift", []string{"errcompacted", "--etcd-version", "v3.6.0,v3.7.3", "--drift"}, func(l string) bool { return strings.Contains(l, "[2/2]") }},
		{"errors", []string{"errors"}, nil},
		{"why-text", []string{"why", "Error: etcdserver: mvcc: required revision has been compacted"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cache := filepath.Join(warm, tc.name)
			env := []string{"XDG_CACHE_HOME=" + cache, "GOCACHE=" + gocache}
			first := t.TempDir()
			out := filepath.Join(t.TempDir(), "out.md")
			p := startProc(t, first, env, append(tc.args, "-o", out)...)
			if code := p.wait(t, 20*time.Minute); code != 0 {
				t.Fatalf("the first run: exit %d; stderr:\n%s", code, p.stderr())
			}
			checkNothingLeft(t, first)
			all := phases(p.stderr())
			if len(all) < 5 {
				t.Fatalf("progress lines %v", all)
			}
			for i, ph := range all {
				if tc.only != nil && !tc.only(ph.line) {
					continue
				}
				sig, signame := syscall.SIGINT, "SIGINT"
				if i%2 == 1 {
					sig, signame = syscall.SIGTERM, "SIGTERM"
				}
				name := fmt.Sprintf("%02d %s", i, strings.TrimSuffix(strings.TrimPrefix(ph.line, "srctrace: "), " …"))
				t.Run(name, func(t *testing.T) {
					runEnv := env
					if builds.MatchString(ph.line) {
						runEnv = []string{"XDG_CACHE_HOME=" + t.TempDir(), "GOCACHE=" + gocache}
					}
					tmp := t.TempDir()
					dir := t.TempDir()
					out := filepath.Join(dir, "out.md")
					if err := os.WriteFile(out, []byte("the notes before\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					p := startProc(t, tmp, runEnv, append(tc.args, "-o", out)...)
					p.waitLine(t, ph.line, nil, ph.n, 10*time.Minute)
					at := time.Now()
					if err := p.cmd.Process.Signal(sig); err != nil {
						t.Fatal(err)
					}
					code := p.wait(t, 2*time.Minute)
					t.Logf("%s: ended %v after the signal", signame, time.Since(at).Round(time.Millisecond))
					if code != exitInterrupted {
						t.Errorf("exit %d, want %d; stderr:\n%s", code, exitInterrupted, p.stderr())
					}
					if lines := strings.Split(p.stderr(), "\n"); lines[len(lines)-1] != "srctrace: interrupted" {
						t.Errorf("stderr ends %q, want \"srctrace: interrupted\"", lines[len(lines)-1])
					}
					if b, _ := os.ReadFile(out); string(b) != "the notes before\n" {
						t.Errorf("-o was written: %q…", firstLine(string(b)))
					}
					if ents, _ := os.ReadDir(dir); len(ents) != 1 {
						t.Errorf("beside -o: %v", ents)
					}
					checkNothingLeft(t, tmp)
					if bins, _ := filepath.Glob(filepath.Join(cacheDirOf(runEnv), "srctrace", "bin", "*.tmp*")); len(bins) != 0 {
						t.Errorf("half-built binaries: %v", bins)
					}
				})
			}
		})
	}
}

// builds is a phase that builds a binary into the user cache dir.
var builds = regexp.MustCompile(`building etcd(ctl)? v`)

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// cacheDirOf is the XDG_CACHE_HOME an environment sets.
func cacheDirOf(env []string) string {
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "XDG_CACHE_HOME="); ok {
			return v
		}
	}
	return ""
}

// TestSecondSignal: a second Ctrl-C ends srctrace at once, during the
// lab's teardown or anywhere: the signal's own end, and the lab's etcdctl
// processes go with it (they die with their parent).
func TestSecondSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab on a real etcd")
	}
	tmp := t.TempDir()
	p := startProc(t, tmp, nil, "lab", "--by-hand-delay", "0", "-o", filepath.Join(t.TempDir(), "lab.md"))
	p.waitLine(t, "", regexp.MustCompile(`^srctrace: the lab \[\d+/\d+\] › etcdctl-evict …$`), 1, 5*time.Minute)
	// etcdctl's watch is running, or about to.
	time.Sleep(300 * time.Millisecond)
	p.cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(100 * time.Millisecond)
	p.cmd.Process.Signal(syscall.SIGINT)
	p.wait(t, time.Minute)
	ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		// The first signal's clean-up may have been done before the second came.
		if p.cmd.ProcessState.ExitCode() != exitInterrupted {
			t.Fatalf("ended with %v, want SIGINT (or 130); stderr:\n%s", p.cmd.ProcessState, p.stderr())
		}
	}
	var left []string
	for range 50 {
		if left = descendants(tmp); len(left) == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, l := range left {
		t.Errorf("outlived srctrace: %s", l)
	}
}

// TestOutputMissingDir: -o into a directory that does not exist is a
// usage error before any work (no phase begins), naming the directory and
// not a temporary file.
func TestOutputMissingDir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, args := range [][]string{
		{"errcompacted", "--lab", "--observe"},
		{"lab"},
		{"why", "go.etcd.io/etcd/server/v3/storage/mvcc.ErrCompacted"},
	} {
		t.Run(args[0], func(t *testing.T) {
			tmp := t.TempDir()
			p := startProc(t, tmp, nil, append(args, "-o", filepath.Join(missing, "x.md"))...)
			code := p.wait(t, time.Minute)
			stderr := p.stderr()
			if code != exitUsage || !strings.HasPrefix(stderr, "srctrace: -o "+filepath.Join(missing, "x.md")+": there is no directory "+missing+": create it") {
				t.Errorf("exit %d; stderr:\n%s", code, stderr)
			}
			if phaseLine.MatchString(firstLine(stderr)) || strings.Contains(stderr, ".tmp") {
				t.Errorf("work began, or a temporary file is named:\n%s", stderr)
			}
			checkNothingLeft(t, tmp)
		})
	}
}

// TestLabServerKilled runs `srctrace lab` against a real etcd v3.7.3 built
// from its module, and kills the server (SIGKILL) as the evict round
// begins: the lab ends with exit 1 and one sentence that names the server,
// the phase, and the prefix of its keys left on it; the -o file is
// untouched and nothing is left behind. The server, started again on its
// data dir, has the keys under that prefix, and the command the sentence
// gives deletes them. Then the same with the server stopped (SIGSTOP)
// instead: it stops answering; and stopped, with Ctrl-C to srctrace while
// it hangs: exit 130, `srctrace: interrupted`, and the keys it could not
// delete named all the same.
func TestLabServerKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs etcd v3.7.3 and the lab")
	}
	bin, err := lab.ServerBuilder("", errcompacted.Study.Module, errcompacted.Study.LayoutMap(), nil)(context.Background(), "v3.7.3")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		sig  syscall.Signal
		// interrupt: Ctrl-C (SIGINT) to srctrace while the server hangs
		interrupt bool
	}{{"killed", syscall.SIGKILL, false}, {"stopped", syscall.SIGSTOP, false}, {"stopped, then Ctrl-C", syscall.SIGSTOP, true}} {
		sig := tc.sig
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			client, peer := loopbackURLs(t)
			srv := startEtcd(t, bin, data, client, peer)
			tmp := t.TempDir()
			out := filepath.Join(t.TempDir(), "lab.json")
			if err := os.WriteFile(out, []byte("before\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			p := startProc(t, tmp, nil, "lab", "--endpoints", srv.ep, "--allow-compact", "--format", "json", "-o", out)
			p.waitLine(t, "", regexp.MustCompile(`^srctrace: the lab \[\d+/\d+\] › evict …$`), 1, 5*time.Minute)
			time.Sleep(200 * time.Millisecond) // into its writes
			at := time.Now()
			srv.cmd.Process.Signal(sig)
			if tc.interrupt {
				time.Sleep(500 * time.Millisecond)
				at = time.Now()
				p.cmd.Process.Signal(syscall.SIGINT)
			}
			code := p.wait(t, time.Minute)
			t.Logf("%v: ended %v after the signal", sig, time.Since(at).Round(time.Millisecond))
			if sig == syscall.SIGSTOP {
				srv.cmd.Process.Kill()
			}
			<-srv.done
			lines := strings.Split(p.stderr(), "\n")
			last := lines[len(lines)-1]
			keys := `(/srctrace-lab/[0-9a-f]+/)`
			del := "`" + `(etcdctl --endpoints=` + regexp.QuoteMeta(srv.ep) + ` del --prefix /srctrace-lab/[0-9a-f]+/)` + "`" + ` once it answers$`
			re := regexp.MustCompile(`^srctrace: the etcd server at ` + regexp.QuoteMeta(srv.ep) + ` stopped answering \(.+\) during the lab's evict phase.*; the lab's keys under ` + keys + ` are still on it: delete them with ` + del)
			want := exitError
			if tc.interrupt {
				// Interrupted while the server hangs: the lab says so, and
				// says what its clean-up could not do.
				re = regexp.MustCompile(`^srctrace: the lab's keys under ` + keys + ` are still on the etcd server at ` + regexp.QuoteMeta(srv.ep) + ` \(deleting them: .+\): delete them with ` + del)
				want = exitInterrupted
				if len(lines) < 2 || lines[len(lines)-2] != "srctrace: interrupted" {
					t.Errorf("stderr:\n%s", p.stderr())
				}
			}
			m := re.FindStringSubmatch(last)
			if code != want || m == nil {
				t.Fatalf("exit %d (want %d), last line:\n%s\nwant it to match %s", code, want, last, re)
			}
			if b, _ := os.ReadFile(out); string(b) != "before\n" {
				t.Errorf("-o was written")
			}
			checkNothingLeft(t, tmp)
			// The sentence is true: the keys are there, and its command
			// deletes them.
			srv = startEtcd(t, bin, data, client, peer)
			cli, err := clientv3.New(clientv3.Config{Endpoints: []string{srv.ep}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			got, err := cli.Get(ctx, m[1], clientv3.WithPrefix(), clientv3.WithCountOnly())
			if err != nil || got.Count == 0 {
				t.Fatalf("keys under %s after the restart: %v, %v", m[1], got, err)
			}
			etcdctl, err := lab.Builder("", errcompacted.Study.Modules(), errcompacted.Study.LayoutMap(), nil)(ctx, "v3.7.3")
			if err != nil {
				t.Fatal(err)
			}
			args := strings.Fields(m[2])[1:]
			if b, err := exec.CommandContext(ctx, etcdctl, args...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v: %s", m[2], err, b)
			}
			if got, err := cli.Get(ctx, m[1], clientv3.WithPrefix(), clientv3.WithCountOnly()); err != nil || got.Count != 0 {
				t.Errorf("keys under %s after the command: %v, %v", m[1], got, err)
			}
		})
	}
}

// etcdProc is an etcd server a test runs.
type etcdProc struct {
	cmd  *exec.Cmd
	ep   string
	done chan struct{}
}

// loopbackURLs returns two loopback URLs whose ports were free a moment
// ago: an etcd server's client and peer URLs.
func loopbackURLs(t *testing.T) (client, peer string) {
	t.Helper()
	var urls [2]string
	for i := range urls {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		urls[i] = "http://" + l.Addr().String()
		l.Close()
	}
	return urls[0], urls[1]
}

// startEtcd runs the etcd binary bin on loopback with its data in dir,
// and waits until it answers; the test's end stops it.
func startEtcd(t *testing.T, bin, dir, client, peer string) *etcdProc {
	t.Helper()
	cmd := exec.Command(bin, "--name=fault", "--data-dir="+filepath.Join(dir, "data"),
		"--listen-client-urls="+client, "--advertise-client-urls="+client,
		"--listen-peer-urls="+peer, "--initial-advertise-peer-urls="+peer,
		"--initial-cluster=fault="+peer, "--log-level=error")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	e := &etcdProc{cmd: cmd, ep: client, done: make(chan struct{})}
	go func() { cmd.Wait(); close(e.done) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-e.done
	})
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{client}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := cli.Status(ctx, client)
		cancel()
		if err == nil {
			return e
		}
		if i == 60 {
			t.Fatalf("etcd at %s did not answer in a minute: %v", client, err)
		}
		select {
		case <-e.done:
			t.Fatalf("etcd exited: %v", cmd.ProcessState)
		case <-time.After(time.Second):
		}
	}
}

// TestLabDataDir: a data dir that cannot be made (TMPDIR is a regular
// file) or written (files are limited to 1 MB; as root also a 1 MB tmpfs)
// ends the lab, and errcompacted --lab, with exit 1 and one sentence, and
// leaves nothing.
func TestLabDataDir(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab's server")
	}
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("a file stands there", func(t *testing.T) {
		for _, args := range [][]string{{"lab", "-q", "--no-etcdctl"}, {"errcompacted", "-q", "--lab"}} {
			p := startProc(t, file, nil, args...)
			code := p.wait(t, 5*time.Minute)
			stderr := p.stderr()
			if code != exitError || strings.Count(stderr, "\n") != 0 || !strings.Contains(stderr, file) || !strings.Contains(stderr, "TMPDIR") {
				t.Errorf("%v: exit %d; stderr:\n%s", args, code, stderr)
			}
		}
	})
	full := func(t *testing.T, tmp string, wrap []string, more ...string) {
		args := append(append(wrap, srctraceBin(t), "lab", "-q", "--no-etcdctl"), more...)
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitError {
			t.Fatalf("exit: %v, want %d; stderr:\n%s", err, exitError, stderr.String())
		}
		s := strings.TrimSuffix(stderr.String(), "\n")
		embedded := len(more) == 0
		switch {
		case strings.Contains(s, "\n"):
			t.Errorf("more than one line:\n%s", s)
		case embedded && (!strings.HasPrefix(s, "srctrace: starting the embedded etcd in "+tmp) || !strings.Contains(s, "etcd stopped: ") || !strings.Contains(s, "set TMPDIR")):
			t.Errorf("stderr:\n%s", s)
		case !embedded && !regexp.MustCompile(`^srctrace: starting \S+/etcd-v3\.6\.0 in `+regexp.QuoteMeta(tmp)+`/\S+: it exited \(exit status \d+: .+\) \(the filesystem of `).MatchString(s):
			t.Errorf("stderr:\n%s", s)
		}
		checkNothingLeft(t, tmp)
	}
	limit := []string{"sh", "-c", `ulimit -f 2048 && exec "$@"`, "sh"}
	t.Run("files limited to 1 MB", func(t *testing.T) {
		// The write-ahead log's first segment is larger: etcd cannot make it.
		full(t, t.TempDir(), limit)
	})
	t.Run("files limited to 1 MB, another release", func(t *testing.T) {
		// Its server is built first, without the limit; under the limit it
		// exits, and says why in its log.
		if _, err := lab.ServerBuilder("", errcompacted.Study.Module, errcompacted.Study.LayoutMap(), nil)(context.Background(), "v3.6.0"); err != nil {
			t.Fatal(err)
		}
		full(t, t.TempDir(), limit, "--etcd-version", "v3.6.0")
	})
	if os.Geteuid() != 0 {
		t.Log("not root: the 1 MB tmpfs is left out")
		return
	}
	t.Run("a full tmpfs", func(t *testing.T) {
		dir := t.TempDir()
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir).CombinedOutput(); err != nil {
			t.Fatalf("mount: %v: %s", err, out)
		}
		defer exec.Command("umount", dir).Run()
		full(t, dir, nil)
	})
}

// TestBrokenPipe: a reader of srctrace's stderr that goes away
// (`srctrace … 2>&1 | head -1`) stops the run as an interrupt does: exit
// 130, no -o file, nothing left in its TMPDIR or running. Uncaught,
// SIGPIPE ended it at its next progress line, and its GOTMPDIR stayed.
func TestBrokenPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a real etcd release")
	}
	tmp := t.TempDir()
	out := filepath.Join(t.TempDir(), "notes.json")
	cmd := exec.Command(srctraceBin(t), "errcompacted", "--no-cache", "--format", "json", "-o", out)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "SRCTRACE_PROGRESS_AFTER=0")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	cmd.Stderr = w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	first, err := bufio.NewReader(r).ReadString('\n')
	if err != nil {
		t.Fatalf("reading srctrace's first line: %v", err)
	}
	r.Close() // the reader goes away, as head does after its line
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
		t.Fatalf("srctrace did not end within 2 minutes of its stderr's reader going away (first line %q)", first)
	}
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Errorf("ended with %v after its stderr's reader went away, want exit %d", cmd.ProcessState, exitInterrupted)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("-o file %s: %v, want none", out, err)
	}
	checkNothingLeft(t, tmp)
}

// TestKilledRunSwept: a run killed with SIGKILL cannot clean up, and
// leaves its go commands' directory (GOTMPDIR) or its lab server's data
// dir in TMPDIR; the next run removes them (each has an owner file that
// names the process that made it, and the next run finds that process
// gone), and leaves a live run's alone.
func TestKilledRunSwept(t *testing.T) {
	if testing.Short() {
		t.Skip("loads etcd and runs the lab's server")
	}
	tmp := t.TempDir()
	left := func() []string {
		// What the killed run started (a go command in its own process
		// group) ends in its own time.
		for range 100 {
			if len(descendants(tmp)) == 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		ents, err := os.ReadDir(tmp)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		return names
	}
	match := func(names []string, re string) []string {
		var out []string
		for _, n := range names {
			if regexp.MustCompile(re).MatchString(n) {
				out = append(out, n)
			}
		}
		return out
	}
	// The lab's server is up and its data dir made by its eviction.
	inLab := regexp.MustCompile(`^srctrace: the lab \[\d+/\d+\] › evict …$`)
	labArgs := []string{"lab", "--no-etcdctl", "--by-hand-delay", "0"}

	why := startProc(t, tmp, nil, "why", "mvcc.ErrCompacted")
	why.waitLine(t, "", regexp.MustCompile(`› building the call graph of `), 1, 5*time.Minute)
	why.cmd.Process.Signal(syscall.SIGKILL)
	why.wait(t, time.Minute)
	gotmp := match(left(), `^srctrace-go-\d+$`)
	if len(gotmp) != 1 || len(match(left(), `^srctrace-go-\d+\.owner$`)) != 1 {
		t.Fatalf("the killed why left %v in TMPDIR, want its GOTMPDIR and its owner file", left())
	}

	// The next run sweeps them away; killed, it leaves its server's data.
	lab1 := startProc(t, tmp, nil, labArgs...)
	lab1.waitLine(t, "", inLab, 1, 5*time.Minute)
	lab1.cmd.Process.Signal(syscall.SIGKILL)
	lab1.wait(t, time.Minute)
	now := left()
	if slices.Contains(now, gotmp[0]) {
		t.Errorf("the next run did not sweep the killed why's GOTMPDIR %s: %v", gotmp[0], now)
	}
	killedLab := match(now, `^srctrace-lab-\d+$`)
	if len(killedLab) != 1 || len(match(now, `^srctrace-lab-\d+\.owner$`)) != 1 {
		t.Fatalf("the killed lab left %v in TMPDIR, want its data dir and its owner file", now)
	}

	// A live run's directory stays while other runs sweep: a lab that
	// waits a minute in its by-hand round.
	live := startProc(t, tmp, nil, "lab", "--no-etcdctl", "--by-hand-delay", "1m")
	live.waitLine(t, "", regexp.MustCompile(`^srctrace: the lab \[\d+/\d+\] › by-hand …$`), 1, 5*time.Minute)
	p := startProc(t, tmp, nil, "why") // a usage error: it ends at once
	if code := p.wait(t, time.Minute); code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitUsage, p.stderr())
	}
	now = left()
	if slices.Contains(now, killedLab[0]) {
		t.Errorf("the killed lab's data dir %s was not swept: %v", killedLab[0], now)
	}
	if len(match(now, `^srctrace-lab-\d+$`)) != 1 {
		t.Errorf("the live lab's data dir is not there: %v", now)
	}
	live.cmd.Process.Signal(syscall.SIGINT)
	if code := live.wait(t, time.Minute); code != exitInterrupted {
		t.Errorf("the live lab: exit %d, want %d", code, exitInterrupted)
	}
	checkNothingLeft(t, tmp)
}
