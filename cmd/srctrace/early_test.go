package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSignalBeforeHandler: a Ctrl-C that main caught before run installed
// its own handler (while it prepared the heap) interrupts the run as one
// that comes after does: exit 130, "srctrace: interrupted", the -o file
// as it was, nothing on stdout; and a run with no such signal is not
// interrupted by the one before it.
func TestSignalBeforeHandler(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.md")
	if err := os.WriteFile(out, []byte("the notes before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	early <- os.Interrupt
	var stdout, stderr bytes.Buffer
	code := run([]string{"-q", "errcompacted", "--etcd-version", "v3.7.3", "-o", out}, strings.NewReader(""), &stdout, &stderr)
	if code != exitInterrupted || !strings.Contains(stderr.String(), "srctrace: interrupted") {
		t.Fatalf("exit %d, stderr %q; want %d and srctrace: interrupted", code, stderr.String(), exitInterrupted)
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != "the notes before\n" {
		t.Errorf("the -o file is %q (%v), want it as it was", b, err)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
	select {
	case <-early:
		t.Fatal("the early signal was not taken")
	default:
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"--help"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Errorf("a run after it: exit %d, stderr %q; want %d", code, stderr.String(), exitOK)
	}
}
