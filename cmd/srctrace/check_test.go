package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

func TestCheckExitCodes(t *testing.T) {
	dir, _ := fixtures.Unpack(t, "watchshape")
	notes := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(notes, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.md", "see `server/storage/mvcc/store.go:11` and store.go:20 `return ErrCompacted`\n")
	drift := write("drift.md", "store.go:12 `return ErrCompacted`\n")
	binary := write("bin.md", "\x00\x01\x02")
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"check"}, exitUsage, "", "wants the notes"},
		{[]string{"check", "--format", "yaml", good}, exitUsage, "", `--format "yaml"`},
		{[]string{"check", "--etcd-dir", dir, good}, exitOK, "2 citations checked against etcd v3.9.0-fixture: 2 ok", ""},
		{[]string{"check", "--etcd-dir", dir, drift}, exitProblems, "drifted -> 20", ""},
		{[]string{"check", "--etcd-dir", dir, binary}, exitProblems, "binary file", ""},
		{[]string{"check", "--etcd-dir", dir, filepath.Join(notes, "nope.md")}, exitError, "", "reading notes"},
	} {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runWithEnv(t, tc.args, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tc.code, stdout.String(), stderr.String())
			}
		})
	}
	// --fix rewrites the drifted line and nothing else; then the notes check clean.
	var out bytes.Buffer
	runWithEnv(t, []string{"check", "--etcd-dir", dir, "--fix", drift}, &out, &out)
	if b, _ := os.ReadFile(drift); string(b) != "store.go:20 `return ErrCompacted`\n" {
		t.Errorf("fixed: %q", b)
	}
	if code := runWithEnv(t, []string{"check", "--etcd-dir", dir, drift}, &out, &out); code != exitOK {
		t.Errorf("after --fix: exit %d", code)
	}
	// JSON: each citation with file, line, status, release, notes line.
	var js bytes.Buffer
	runWithEnv(t, []string{"check", "--etcd-dir", dir, "--format", "json", good}, &js, &js)
	var rep checkReport
	if err := json.Unmarshal(js.Bytes(), &rep); err != nil || len(rep.Citations) != 2 || rep.Citations[0].Status != "ok" || rep.Citations[0].NotesLine != 1 || rep.Citations[0].Release != "v3.9.0-fixture" {
		t.Errorf("json %s: %+v %v", js.String(), rep, err)
	}
}

// runWithEnv runs the CLI with the fixtures' go environment; t.Setenv
// restores the test process's own values afterwards.
func runWithEnv(t *testing.T, args []string, stdout, stderr *bytes.Buffer) int {
	for _, e := range fixtures.Env {
		k, v, _ := strings.Cut(e, "=")
		t.Setenv(k, v)
	}
	return run(args, strings.NewReader(""), stdout, stderr)
}

// TestGeneratedNotesCheckClean: the notes srctrace errcompacted writes pass
// srctrace check at the same release.
func TestGeneratedNotesCheckClean(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	for _, v := range []string{"v3.7.3", "v3.7.1", "v3.6.0"} {
		t.Run(v, func(t *testing.T) {
			var notes bytes.Buffer
			if err := runErrcompacted(context.Background(), &errcompactedOptions{study: errcompacted.Study, format: "markdown", version: v, paths: 3, stdout: &notes}); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(t.TempDir(), "notes.md")
			if err := os.WriteFile(file, notes.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			err := runCheck(context.Background(), &checkOptions{format: "text", version: v, files: []string{file}, stdout: &out})
			if err != nil {
				var bad []string
				for _, l := range strings.Split(out.String(), "\n") {
					if l != "" && !strings.HasSuffix(l, ": ok") {
						bad = append(bad, l)
					}
				}
				t.Fatalf("check: %v\n%s", err, strings.Join(bad, "\n"))
			}
			if !strings.Contains(out.String(), " 0 drifted, 0 missing, 0 mismatch, 0 ambiguous, 0 unresolved") {
				t.Errorf("summary: %s", out.String()[strings.LastIndex(strings.TrimSpace(out.String()), "\n")+1:])
			}
		})
	}
}

func TestDriftFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--drift"}, "--drift wants several releases"},
		{[]string{"--etcd-version", "v3.6.0,v3.7.3"}, "are for --drift"},
		{[]string{"--etcd-version", "v3.6.0,v3.7.3", "--drift", "--lab"}, "exclude each other"},
	} {
		cmd := newErrcompactedCmd(func(context.Context, *errcompactedOptions) error { return nil })
		cmd.SetArgs(tc.args)
		cmd.SetOut(new(bytes.Buffer))
		cmd.SetErr(new(bytes.Buffer))
		if err := cmd.Execute(); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%v: err = %v", tc.args, err)
		}
	}
}

// TestDriftReleases: kvstore.go's hashByRev return, read by hand at each
// release (git grep -n ErrCompacted), moves 177 -> 178 -> 188.
func TestDriftReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	var out bytes.Buffer
	err := runErrcompacted(context.Background(), &errcompactedOptions{study: errcompacted.Study, format: "json",
		version: "v3.6.0,v3.7.1,v3.7.3", drift: true, paths: 3, stdout: &out})
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Releases []string
		Rows     []struct {
			Kind, Key, Change string
			At                []string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range d.Rows {
		if r.Kind == "site" && strings.Contains(r.Key, "hashByRev") {
			found = true
			want := []string{"server/storage/mvcc/kvstore.go:177", "server/storage/mvcc/kvstore.go:178", "server/storage/mvcc/kvstore.go:188"}
			if strings.Join(r.At, " ") != strings.Join(want, " ") || r.Change != "moved" {
				t.Errorf("hashByRev row: %+v", r)
			}
		}
	}
	if !found || len(d.Releases) != 3 {
		t.Errorf("releases %v, hashByRev row found %v", d.Releases, found)
	}
}
