package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/srctrace/srctrace/trace/progress"
)

// TestMain lets a test run this program as a child process, to send it
// signals: with SRCTRACE_RUN_MAIN set, the test binary is srctrace.
func TestMain(m *testing.M) {
	if os.Getenv("SRCTRACE_RUN_MAIN") != "" {
		main()
	}
	os.Exit(m.Run())
}

// clock is a time the test moves by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func testPrinter(tty bool) (*printer, *bytes.Buffer, *clock) {
	var b bytes.Buffer
	c := &clock{t: time.Unix(0, 0)}
	return &printer{w: &b, tty: tty, width: 60, after: time.Second, now: c.now}, &b, c
}

// TestPrinterLines: off a terminal, a phase is printed once, when it has
// run a second, with the phases it is in and how far they are; phases that
// end sooner print nothing.
func TestPrinterLines(t *testing.T) {
	p, out, c := testPrinter(false)
	ctx := progress.With(context.Background(), p)
	drift := progress.Start(ctx, "drift over 3 releases", 3)
	drift.Next("etcd v3.6.0")
	c.add(500 * time.Millisecond)
	p.show()
	if out.Len() != 0 {
		t.Fatalf("a phase younger than a second printed %q", out)
	}
	c.add(600 * time.Millisecond)
	p.show()
	p.show()
	drift.Next("etcd v3.7.1") // short: ends before a second
	c.add(200 * time.Millisecond)
	p.show()
	drift.Next("etcd v3.7.3")
	load := progress.Start(ctx, "loading", 0)
	c.add(1500 * time.Millisecond)
	p.show()
	load.Done()
	drift.Done()
	p.show()
	p.Close()
	want := "srctrace: drift over 3 releases [1/3] › etcd v3.6.0 …\n" +
		"srctrace: drift over 3 releases [3/3] › etcd v3.7.3 › loading …\n"
	if out.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", out, want)
	}
}

// TestPrinterTerminal: on a terminal one line is redrawn in place, cut to
// the terminal's width, and cleared when the work ends.
func TestPrinterTerminal(t *testing.T) {
	p, out, c := testPrinter(true)
	ctx := progress.With(context.Background(), p)
	ph := progress.Start(ctx, "the lab", 4)
	ph.Next("server")
	c.add(1200 * time.Millisecond)
	p.show()
	ph.Next("a round with a name long enough to be cut at the terminal's width")
	c.add(100 * time.Millisecond)
	p.show()
	ph.Done()
	got := out.String()
	for _, want := range []string{
		"\r\x1b[Ksrctrace: the lab [1/4] › server 1.2s",
		"\r\x1b[Ksrctrace: the lab [2/4] › a round with a name long enough …",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in %q", want, got)
		}
	}
	if !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("the line is not cleared at the end: %q", got)
	}
	for _, l := range strings.Split(got, "\r\x1b[K") {
		if n := len([]rune(l)); n > p.width-1 {
			t.Errorf("a line of %d runes on a terminal of %d: %q", n, p.width, l)
		}
	}
}

// TestPrinterQuiet: -q prints nothing.
func TestPrinterQuiet(t *testing.T) {
	p, out, c := testPrinter(false)
	p.setQuiet(true)
	ctx := progress.With(context.Background(), p)
	ph := progress.Start(ctx, "loading", 0)
	c.add(5 * time.Second)
	p.show()
	ph.Done()
	if out.Len() != 0 {
		t.Errorf("quiet printed %q", out)
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-q", "errcompacted", "--help"}, nil, &stdout, &stderr); code != exitOK {
		t.Errorf("-q errcompacted --help: exit %d: %s", code, stderr.String())
	}
}

// TestInterrupted: Ctrl-C during the lab prints "interrupted", exits 130,
// and leaves nothing behind (the embedded server's data dir, etcdctl).
func TestInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the lab on a real etcd")
	}
	tmp := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "lab", "--format", "json")
	cmd.Env = append(os.Environ(), "SRCTRACE_RUN_MAIN=1", "TMPDIR="+tmp)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The lab's progress says a round is under way: interrupt it then.
	var lines []string
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if strings.HasPrefix(sc.Text(), "srctrace: the lab") {
			if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
		t.Fatalf("exit: %v, want %d; stderr:\n%s", err, exitInterrupted, strings.Join(lines, "\n"))
	}
	if last := lines[len(lines)-1]; last != "srctrace: interrupted" {
		t.Errorf("last line %q, want \"srctrace: interrupted\"; stderr:\n%s", last, strings.Join(lines, "\n"))
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range left {
		t.Errorf("left behind in TMPDIR: %s", e.Name())
	}
}
