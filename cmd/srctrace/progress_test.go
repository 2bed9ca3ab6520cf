package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/srctrace/srctrace/trace/progress"
)

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

// TestPrinterEveryPhase: with SRCTRACE_PROGRESS_AFTER=0, off a terminal,
// every phase is printed as it begins, once, short ones too; other values
// set the delay, and one that is no duration keeps the default.
func TestPrinterEveryPhase(t *testing.T) {
	for v, want := range map[string]time.Duration{"0": 0, "0s": 0, "250ms": 250 * time.Millisecond, "soon": progressAfter, "-1s": progressAfter} {
		t.Setenv(progressAfterEnv, v)
		if got := newPrinter(new(bytes.Buffer)).after; got != want {
			t.Errorf("%s=%s: after %v, want %v", progressAfterEnv, v, got, want)
		}
	}
	p, out, c := testPrinter(false)
	p.after = 0
	ctx := progress.With(context.Background(), p)
	lab := progress.Start(ctx, "the lab", 2)
	lab.Next("server")
	lab.Next("evict")
	c.add(2 * time.Second)
	p.show()
	lab.Done()
	p.Close()
	want := "srctrace: the lab [1/2] …\n" +
		"srctrace: the lab [1/2] › server …\n" +
		"srctrace: the lab [2/2] › evict …\n"
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

// TestProfiles: --cpuprofile and --memprofile write profiles that pprof
// reads (their gzip header), and a profile that cannot be made is a usage
// error before any work.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(notes, []byte("# notes\n\nnothing cited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	var out, errs bytes.Buffer
	if code := run([]string{"--cpuprofile", cpu, "--memprofile", mem, "check", notes}, strings.NewReader(""), &out, &errs); code != exitOK {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	for _, f := range []string{cpu, mem} {
		b, err := os.ReadFile(f)
		if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s: not a gzipped profile (%v, %d bytes)", f, err, len(b))
		}
	}
	errs.Reset()
	if code := run([]string{"--cpuprofile", filepath.Join(dir, "missing", "cpu.prof"), "check", notes}, strings.NewReader(""), &out, &errs); code != exitUsage || !strings.Contains(errs.String(), "--cpuprofile") {
		t.Errorf("exit %d, stderr %q: want a usage error naming --cpuprofile", code, errs.String())
	}
}
