// Package labtest holds test helpers for labs: interrupting a lab at
// every phase and checking that it left nothing behind.
package labtest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/srctrace/srctrace/trace/lab"
)

// Interrupt runs lab l once per phase (lab.Lab.AllPhases), cancels the
// context as that phase begins, as Ctrl-C would, and checks that Run
// returns context.Canceled (it finishes the teardown instead) and that
// nothing is left behind: no file in TMPDIR (data dirs), no etcdctl
// process.
func Interrupt(t *testing.T, l *lab.Lab, opts lab.Options) {
	t.Helper()
	interrupt(t, l, opts, 0)
}

// InterruptWithin is Interrupt with the context canceled within each
// phase, after delay, while its requests and etcdctl runs are under way.
// Where the run ends before the cancel lands, Run may succeed; in every
// case nothing is left behind.
func InterruptWithin(t *testing.T, l *lab.Lab, opts lab.Options, delay time.Duration) {
	t.Helper()
	interrupt(t, l, opts, delay)
}

func interrupt(t *testing.T, l *lab.Lab, opts lab.Options, delay time.Duration) {
	for _, phase := range l.AllPhases() {
		t.Run(phase, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			seen := false
			o := opts
			o.Phase = func(name string) {
				if name != phase {
					return
				}
				seen = true
				if delay == 0 {
					cancel()
					return
				}
				time.AfterFunc(delay, cancel)
			}
			_, err := lab.Run(ctx, l, o)
			if !seen {
				t.Fatalf("phase %s was not announced (err %v)", phase, err)
			}
			switch {
			case phase == lab.PhaseTeardown:
			case delay > 0 && err == nil:
			case !errors.Is(err, context.Canceled):
				t.Errorf("err = %v, want context.Canceled", err)
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Errorf("left behind in TMPDIR: %v", ents)
			}
			if procs := Children("etcdctl"); len(procs) != 0 {
				t.Errorf("etcdctl still running: %v", procs)
			}
		})
	}
}

// Children lists this process's child processes whose command starts
// with name (Linux; none elsewhere).
func Children(name string) []string {
	var out []string
	me := os.Getpid()
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, d := range dirs {
		data, err := os.ReadFile(d)
		if err != nil {
			continue
		}
		s := string(data)
		open, close := strings.Index(s, "("), strings.LastIndex(s, ")")
		if open < 0 || close < 0 {
			continue
		}
		comm := s[open+1 : close]
		fields := strings.Fields(s[close+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(me) && strings.HasPrefix(comm, name) {
			out = append(out, d)
		}
	}
	return out
}
