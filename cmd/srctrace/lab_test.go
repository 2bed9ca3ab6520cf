package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

func TestLabFlags(t *testing.T) {
	def := labOptions{format: "markdown", writes: 2000, byHand: 1500 * time.Millisecond}
	for _, tc := range []struct {
		args    []string
		want    func(o *labOptions)
		wantErr string
	}{
		{args: nil, want: func(o *labOptions) {}},
		{args: []string{"--format", "json", "--no-etcdctl", "--writes", "3000", "--by-hand-delay", "0"},
			want: func(o *labOptions) { o.format, o.noEtcdctl, o.writes, o.byHand = "json", true, 3000, 0 }},
		{args: []string{"--endpoints", "127.0.0.1:2379", "--allow-compact", "--etcdctl", "/bin/etcdctl"},
			want: func(o *labOptions) {
				o.endpoints, o.allowCompact, o.etcdctl = []string{"127.0.0.1:2379"}, true, "/bin/etcdctl"
			}},
		{args: []string{"--etcd-version", "v3.6.0"}, want: func(o *labOptions) { o.version = "v3.6.0" }},
		{args: []string{"--etcd-version", "3.6"}, wantErr: `--etcd-version "3.6": want an etcd release`},
		{args: []string{"--etcd-version", "v3.6.0", "--endpoints", "127.0.0.1:2379", "--allow-compact"}, wantErr: "exclude each other"},
		{args: []string{"--endpoints", "127.0.0.1:2379"}, wantErr: "pass --allow-compact"},
		{args: []string{"-o", "/nonexistent-dir/lab.md"}, wantErr: "there is no directory /nonexistent-dir"},
		{args: []string{"--writes", "5"}, wantErr: "--writes 5"},
		{args: []string{"--by-hand-delay", "-1s"}, wantErr: "--by-hand-delay"},
		{args: []string{"--etcdctl", "x", "--no-etcdctl"}, wantErr: "exclude each other"},
		{args: []string{"--format", "yaml"}, wantErr: `--format "yaml"`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var got *labOptions
			cmd := newLabCmd(func(_ context.Context, o *labOptions) error { got = o; return nil })
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
			want := def
			tc.want(&want)
			if got.study != errcompacted.Study {
				t.Errorf("study = %v, want the errcompacted study", got.study)
			}
			got.stdout, got.study = nil, nil
			if diff := cmp.Diff(want, *got, cmp.AllowUnexported(labOptions{})); diff != "" {
				t.Errorf("opts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLabExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"lab", "--endpoints", "10.0.0.1:2379", "--allow-compact"}, exitUsage, "not a loopback address"},
		{[]string{"lab", "--endpoints", "127.0.0.1:2379"}, exitUsage, "--allow-compact"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, strings.NewReader(""), &stdout, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("%v: exit %d, stderr %q", tc.args, code, stderr.String())
		}
	}
}
