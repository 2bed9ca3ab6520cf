package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

func TestErrcompactedFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    errcompactedOptions
		wantErr string
	}{
		{args: nil, want: errcompactedOptions{format: "markdown", paths: 3}},
		{args: []string{"--format", "json", "-o", "r.json"}, want: errcompactedOptions{format: "json", output: "r.json", paths: 3}},
		{args: []string{"--etcd-version", "v3.6.0", "--paths", "5", "--no-cache"}, want: errcompactedOptions{format: "markdown", version: "v3.6.0", paths: 5, noCache: true}},
		{args: []string{"--etcd-dir", "/src/etcd"}, want: errcompactedOptions{format: "markdown", dir: "/src/etcd", paths: 3}},
		{args: []string{"--format", "yaml"}, wantErr: `--format "yaml": want markdown or json`},
		{args: []string{"--format", "html"}, want: errcompactedOptions{format: "html", paths: 3}},
		{args: []string{"--etcd-version", "v3.6.0,v3.7.3", "--drift", "--format", "html"}, want: errcompactedOptions{format: "html", version: "v3.6.0,v3.7.3", drift: true, paths: 3}},
		{args: []string{"--etcd-version", "v3.6.0,v3.7.3", "--drift", "--format", "yaml"}, wantErr: `want markdown or json or html or text`},
		{args: []string{"--paths", "0"}, wantErr: "--paths 0: want 1 or more"},
		{args: []string{"--kubernetes"}, want: errcompactedOptions{format: "markdown", paths: 3, kubernetes: "auto"}},
		{args: []string{"--kubernetes=v0.37.2", "--lab"}, want: errcompactedOptions{format: "markdown", paths: 3, kubernetes: "v0.37.2", lab: true}},
		{args: []string{"--etcd-version", "v3.6.0,v3.7.3", "--drift", "--kubernetes"}, wantErr: "--drift and --kubernetes exclude each other"},
		{args: []string{"--etcd-version", "v3.6.0", "--etcd-dir", "x"}, wantErr: "exclude each other"},
		{args: []string{"extra"}, wantErr: "unknown command"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var opts *errcompactedOptions
			cmd := newErrcompactedCmd(func(_ context.Context, o *errcompactedOptions) error { opts = o; return nil })
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
			if opts.study != errcompacted.Study {
				t.Errorf("study = %v, want the errcompacted study", opts.study)
			}
			opts.study, opts.stdout, opts.stderr = nil, nil, nil
			if diff := cmp.Diff(tc.want, *opts, cmp.AllowUnexported(errcompactedOptions{})); diff != "" {
				t.Errorf("opts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExitCodes(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.md")
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--help"}, exitOK, ""},
		{[]string{"nosuch"}, exitUsage, "unknown command"},
		{[]string{"errcompacted", "--bogus"}, exitUsage, "unknown flag"},
		{[]string{"errcompacted", "--format", "yaml"}, exitUsage, "Usage:"},
		{[]string{"errcompacted", "--etcd-version", "banana"}, exitUsage, "is not an etcd release"},
		{[]string{"errcompacted", "--etcd-dir", "/nonexistent/etcd", "-o", out}, exitUsage, "is not a directory"},
		{[]string{"errcompacted", "--kubernetes=v1.37", "-o", out}, exitUsage, `"v1.37" is not a kubernetes release`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr.String(), tc.stderr)
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o left %s behind after an error", out)
	}
}

// TestRunErrcompactedFixture drives runErrcompacted on a fixture checkout
// and checks both formats come from the same report.
func TestRunErrcompactedFixture(t *testing.T) {
	dir, ar := fixtures.Unpack(t, "watchshape")
	st, err := study.Parse(fixtures.File(ar, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	outJSON := filepath.Join(t.TempDir(), "r.json")
	opts := &errcompactedOptions{study: st, format: "json", output: outJSON, dir: dir, paths: 3, env: fixtures.Env, stdout: new(bytes.Buffer)}
	if err := runErrcompacted(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(outJSON)
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Study.Name != "fixture" || len(rep.Sites) == 0 {
		t.Errorf("report: %+v", rep.Study)
	}
	var md bytes.Buffer
	opts.format, opts.output, opts.stdout = "markdown", "", &md
	if err := runErrcompacted(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Fixture study", "not from sync-loop", "server/storage/mvcc/store.go:11"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
}

// TestWriteOutputDevice: -o /dev/null writes to the device; it is not
// replaced by a regular file.
func TestWriteOutputDevice(t *testing.T) {
	if err := writeOutput(context.Background(), nil, os.DevNull, []byte("x")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(os.DevNull)
	if err != nil || fi.Mode().IsRegular() {
		t.Fatalf("%s is now %v (%v)", os.DevNull, fi.Mode(), err)
	}
	file := filepath.Join(t.TempDir(), "out")
	if err := writeOutput(context.Background(), nil, file, []byte("data")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "data" {
		t.Errorf("content %q", b)
	}
}

// TestRunErrcompactedKubernetesAbsent: at etcd v3.6.0, which no Kubernetes
// release fits, --kubernetes says so in one sentence and the etcd layers
// are reported as always.
func TestRunErrcompactedKubernetesAbsent(t *testing.T) {
	if testing.Short() {
		t.Skip("loads etcd v3.6.0 and reads Kubernetes go.mod files")
	}
	var out bytes.Buffer
	opts := &errcompactedOptions{study: errcompacted.Study, format: "json", version: "v3.6.0", paths: 3, kubernetes: "auto", stdout: &out}
	if err := runErrcompacted(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Sites) == 0 || rep.Signal == nil {
		t.Errorf("the etcd layers are missing")
	}
	if rep.Layers == nil || !strings.Contains(rep.Layers.Absent, "fits etcd v3.6.0") || len(rep.Layers.Hops) > 0 {
		t.Fatalf("layers = %+v, want one sentence saying no release fits", rep.Layers)
	}
	var md bytes.Buffer
	opts.format, opts.stdout = "markdown", &md
	if err := runErrcompacted(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "fits etcd v3.6.0") || !strings.Contains(md.String(), "**not checked**") {
		t.Errorf("the notes do not say why the Kubernetes layers are absent")
	}
}

// TestErrcompactedLabRelease: errcompacted --lab runs the lab on the
// release the notes read, here v3.6.0 (its server built from its module,
// not the embedded v3.7.3), so that the lab's record and the notes are of
// one release: the record names v3.6.0, and no note says they differ.
func TestErrcompactedLabRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("loads etcd v3.6.0 and runs its server")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out := filepath.Join(t.TempDir(), "r.json")
	opts := &errcompactedOptions{study: errcompacted.Study, format: "json", output: out, version: "v3.6.0", paths: 3, lab: true, stdout: new(bytes.Buffer)}
	if err := runErrcompacted(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	var rec errcompacted.LabRecord
	if err := json.Unmarshal(rep.Lab, &rec); err != nil {
		t.Fatal(err)
	}
	if rep.Etcd.Version != "v3.6.0" || rec.Etcd.Version != "v3.6.0" || rec.Etcd.Server != "process" {
		t.Errorf("notes of %s, lab on %+v", rep.Etcd.Version, rec.Etcd)
	}
	for _, n := range rec.Notes {
		if strings.Contains(n, "the notes read") {
			t.Errorf("note %q", n)
		}
	}
	if rec.Etcdctl == nil || rec.Etcdctl.Version != "v3.6.0" {
		t.Errorf("etcdctl %+v, notes %q", rec.Etcdctl, rec.Notes)
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("left behind in TMPDIR: %v", ents)
	}
}
