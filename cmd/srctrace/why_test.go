package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study"
)

func TestWhyFlags(t *testing.T) {
	const sym = "go.etcd.io/etcd/server/v3/storage/mvcc.ErrFutureRev"
	for _, tc := range []struct {
		args    []string
		want    whyOptions
		wantErr string
	}{
		{args: []string{sym}, want: whyOptions{symbol: sym, format: "markdown", paths: 3, nearest: 5}},
		{args: []string{sym, "--format", "html", "-o", "w.html", "--roots", "2"}, want: whyOptions{symbol: sym, format: "html", output: "w.html", paths: 3, nearest: 2}},
		{args: []string{sym, "--etcd-version", "v3.6.0", "--paths", "1"}, want: whyOptions{symbol: sym, format: "markdown", version: "v3.6.0", paths: 1, nearest: 5}},
		{args: nil, wantErr: "why wants one symbol"},
		{args: []string{sym, "other"}, wantErr: "why wants one symbol"},
		{args: []string{sym, "--format", "yaml"}, wantErr: `--format "yaml"`},
		{args: []string{sym, "--roots", "0"}, wantErr: "want 1 or more"},
		{args: []string{sym, "--etcd-version", "v3.6.0", "--etcd-dir", "x"}, wantErr: "exclude each other"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var opts *whyOptions
			cmd := newWhyCmd(func(_ context.Context, o *whyOptions) error { opts = o; return nil })
			cmd.SetArgs(tc.args)
			cmd.SetOut(new(bytes.Buffer))
			cmd.SetErr(new(bytes.Buffer))
			err := cmd.Execute()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			opts.stdout = nil
			if diff := cmp.Diff(tc.want, *opts, cmp.AllowUnexported(whyOptions{})); diff != "" {
				t.Errorf("opts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRunWhyFixture: JSON and Markdown of why on a fixture, and an object
// that does not exist.
func TestRunWhyFixture(t *testing.T) {
	dir, ar := fixtures.Unpack(t, "feasible")
	st, err := study.Parse(fixtures.File(ar, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	opts := &whyOptions{symbol: st.Sentinel, format: "json", dir: dir, paths: 3, nearest: 5, env: fixtures.Env, target: st.Tgt(), stdout: &js}
	if err := runWhy(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var w report.Why
	if err := json.Unmarshal(js.Bytes(), &w); err != nil {
		t.Fatal(err)
	}
	if w.Symbol != st.Sentinel || len(w.Sites) != 4 || w.Notes == nil {
		t.Errorf("why = %+v", w)
	}
	var md bytes.Buffer
	opts.format, opts.stdout = "markdown", &md
	if err := runWhy(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Why: " + st.Sentinel, "`server/storage/mvcc/store.go:15`", "server.(*hashServer).Hash"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	opts.symbol = strings.Replace(st.Sentinel, "ErrCompacted", "ErrCompacte", 1)
	err = runWhy(context.Background(), opts)
	if !errors.Is(err, trace.ErrNoObject) || !strings.Contains(err.Error(), "closest names are ErrCompacted") {
		t.Errorf("missing object: err = %v", err)
	}
}

// TestWhyExitCodes: a missing symbol argument is usage (2).
func TestWhyExitCodes(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"why"}, nil, &out, &errb); code != exitUsage {
		t.Errorf("srctrace why: exit %d, want %d (%s)", code, exitUsage, errb.String())
	}
}

// TestWhyShortNameExits: an ambiguous short name is usage (2) and names
// the packages; a typo is an error (1) with the closest names.
func TestWhyShortNameExits(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a real etcd release")
	}
	for _, tc := range []struct {
		symbol string
		code   int
		says   string
	}{
		{"version.Nope", exitUsage, "go.etcd.io/etcd/api/v3/version, go.etcd.io/etcd/server/v3/etcdserver/version"},
		{"mvc.ErrCompacted", exitError, "the closest names are mvcc"},
	} {
		var out, errb bytes.Buffer
		if code := run([]string{"why", "-q", tc.symbol}, nil, &out, &errb); code != tc.code || !strings.Contains(errb.String(), tc.says) {
			t.Errorf("srctrace why %s: exit %d, want %d saying %q:\n%s", tc.symbol, code, tc.code, tc.says, errb.String())
		}
	}
}
