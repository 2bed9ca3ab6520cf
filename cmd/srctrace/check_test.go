package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace/check"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
	"github.com/srctrace/srctrace/trace/target"
)

func TestCheckFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    checkOptions
		wantErr string
	}{
		{args: []string{"n.md"}, want: checkOptions{format: "text", files: []string{"n.md"}}},
		{args: []string{"--from", "v3.6.0", "--etcd-version", "v3.7.3", "--fix", "a.md", "b.md"},
			want: checkOptions{format: "text", from: "v3.6.0", version: "v3.7.3", fix: true, files: []string{"a.md", "b.md"}}},
		{args: []string{"--to", "v3.7.3", "--format", "json", "n.md"}, want: checkOptions{format: "json", to: "v3.7.3", files: []string{"n.md"}}},
		{args: []string{"--to", "v3.7.3", "--etcd-version", "v3.7.3", "n.md"}, want: checkOptions{format: "text", to: "v3.7.3", version: "v3.7.3", files: []string{"n.md"}}},
		{args: nil, wantErr: "wants the notes"},
		{args: []string{"--format", "yaml", "n.md"}, wantErr: `--format "yaml": want text or json or markdown or html`},
		{args: []string{"--from", "3.6.0", "n.md"}, wantErr: `--from "3.6.0": want an etcd release such as v3.7.3`},
		{args: []string{"--to", "main", "n.md"}, wantErr: `--to "main"`},
		{args: []string{"--to", "v3.7.3", "--etcd-version", "v3.7.1", "n.md"}, wantErr: "--to v3.7.3 and --etcd-version v3.7.1 differ"},
		{args: []string{"--etcd-dir", "d", "--etcd-version", "v3.7.1", "n.md"}, wantErr: "exclude each other"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var opts *checkOptions
			cmd := newCheckCmd(func(_ context.Context, o *checkOptions) error { opts = o; return nil })
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
			if diff := cmp.Diff(tc.want, *opts, cmp.AllowUnexported(checkOptions{})); diff != "" {
				t.Errorf("opts (-want +got):\n%s", diff)
			}
		})
	}
}

// The fixture's server/storage/mvcc/store.go has `return nil, ErrCompacted`
// at line 11, in (*store).rangeKeys (lines 9-14), and `return ErrCompacted`
// at line 20 (see its // want: lines).
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
	good := write("good.md", "see `server/storage/mvcc/store.go:11` in `(*store).rangeKeys` and store.go:20 `return ErrCompacted`\n")
	drift := write("drift.md", "store.go:12 `return ErrCompacted`\n")
	bare := write("bare.md", "store.go:12\n")
	binary := write("bin.md", "\x00\x01\x02")
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"check"}, exitUsage, "", "wants the notes"},
		{[]string{"check", "--format", "yaml", good}, exitUsage, "", `--format "yaml"`},
		{[]string{"check", "--etcd-dir", dir, good}, exitOK, "2 citations in 1 notes file: 2 ok.", ""},
		{[]string{"check", "--etcd-dir", dir, drift}, exitProblems, "status: drifted → server/storage/mvcc/store.go:20", ""},
		{[]string{"check", "--etcd-dir", dir, bare}, exitProblems, "why: the line exists, but nothing in the notes confirms it", ""},
		{[]string{"check", "--etcd-dir", dir, binary}, exitProblems, "binary file", ""},
		{[]string{"check", "--etcd-dir", dir, filepath.Join(notes, "nope.md")}, exitError, "", "reading notes"},
		{[]string{"check", "--etcd-dir", filepath.Join(notes, "nope"), good}, exitUsage, "", "is not a directory"},
	} {
		t.Run(strings.Join(tc.args[1:], " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runWithEnv(t, tc.args, &stdout, &stderr)
			if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("exit %d (want %d)\nstdout: %s\nstderr: %s", code, tc.code, stdout.String(), stderr.String())
			}
		})
	}
	// -o writes the output to a file, atomically; SARIF and GitHub
	// annotations keep the exit status.
	sarifFile := filepath.Join(notes, "out", "check.sarif")
	if err := os.MkdirAll(filepath.Dir(sarifFile), 0o755); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := runWithEnv(t, []string{"check", "--etcd-dir", dir, "--format", "sarif", "-o", sarifFile, drift}, &stdout, &stderr); code != exitProblems || stdout.Len() != 0 {
		t.Errorf("sarif -o: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if b, err := os.ReadFile(sarifFile); err != nil || !strings.Contains(string(b), `"version": "2.1.0"`) || !strings.Contains(string(b), `"ruleId": "drifted"`) {
		t.Errorf("sarif file: %v\n%s", err, b)
	}
	stdout.Reset()
	if code := runWithEnv(t, []string{"check", "--etcd-dir", dir, "--format", "github", drift}, &stdout, &stderr); code != exitProblems ||
		!strings.HasPrefix(stdout.String(), "::warning file="+filepath.ToSlash(drift)+",line=1,col=1,endColumn=12,title=srctrace check%3A drifted::store.go:12: drifted -> server/storage/mvcc/store.go:20") {
		t.Errorf("github: exit %d\n%s", code, stdout.String())
	}
	// --fix rewrites the drifted line and nothing else; then the notes check clean.
	var out bytes.Buffer
	if code := runWithEnv(t, []string{"check", "--etcd-dir", dir, "--fix", drift}, &out, &out); code != exitOK {
		t.Errorf("--fix that leaves nothing to attend to: exit %d\n%s", code, out.String())
	}
	if b, _ := os.ReadFile(drift); string(b) != "store.go:20 `return ErrCompacted`\n" {
		t.Errorf("fixed: %q", b)
	}
	if code := runWithEnv(t, []string{"check", "--etcd-dir", dir, drift}, &out, &out); code != exitOK {
		t.Errorf("after --fix: exit %d", code)
	}
	// JSON: each citation with file, line, status, release, notes line, and
	// what confirmed it; a summary per notes file.
	var js bytes.Buffer
	runWithEnv(t, []string{"check", "--etcd-dir", dir, "--format", "json", good}, &js, &js)
	var rep check.Report
	if err := json.Unmarshal(js.Bytes(), &rep); err != nil || len(rep.Citations) != 2 {
		t.Fatalf("json %s: %v", js.String(), err)
	}
	c := rep.Citations[0]
	if c.Status != "ok" || c.NotesLine != 1 || c.Release != "v3.9.0-fixture" || c.Anchor != "function" || c.Evidence != "(*store).rangeKeys" {
		t.Errorf("first citation %+v", c)
	}
	if len(rep.Notes) != 1 || rep.Notes[0].Counts["ok"] != 2 || len(rep.Notes[0].Attention) != 0 {
		t.Errorf("summary %+v", rep.Notes)
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

// notesOf writes the notes srctrace errcompacted writes for a release.
func notesOf(t *testing.T, v string) string {
	t.Helper()
	var notes bytes.Buffer
	if err := runErrcompacted(context.Background(), &errcompactedOptions{study: errcompacted.Study, format: "markdown", version: v, paths: 3, stdout: &notes}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "notes-"+v+".md")
	if err := os.WriteFile(file, notes.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// checkJSON runs srctrace check with o and returns its report.
func checkJSON(t *testing.T, o *checkOptions) *check.Report {
	t.Helper()
	var out bytes.Buffer
	o.format, o.stdout = "json", &out
	err := runCheck(context.Background(), o)
	if _, bad := err.(problemsError); err != nil && !bad {
		t.Fatal(err)
	}
	var rep check.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// TestGeneratedNotesCheckClean: the notes srctrace errcompacted writes pass
// srctrace check at the same release, by the marker they carry.
func TestGeneratedNotesCheckClean(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	for _, v := range []string{"v3.7.3", "v3.7.1", "v3.6.0"} {
		t.Run(v, func(t *testing.T) {
			file := notesOf(t, v)
			rep := checkJSON(t, &checkOptions{version: v, files: []string{file}})
			for _, c := range rep.Citations {
				if c.Status != "ok" {
					t.Errorf("%d: %s: %s (%s)", c.NotesLine, c.Citation, c.Status, c.Message)
				}
			}
			if len(rep.Citations) < 100 || len(rep.Problems) > 0 || rep.Notes[0].From != v || rep.Notes[0].FromBy != "marker" {
				t.Errorf("%d citations, problems %v, summary %+v", len(rep.Citations), rep.Problems, rep.Notes[0])
			}
		})
	}
}

// TestOwnNotesAcrossReleases: the v3.6.0 notes, checked at v3.7.3 with no
// flag (their marker says v3.6.0). The positions were read in the two
// releases (git show v3.6.0:server/storage/mvcc/kvstore.go, and so on),
// not taken from the checker.
func TestOwnNotesAcrossReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	file := notesOf(t, "v3.6.0")
	rep := checkJSON(t, &checkOptions{version: "v3.7.3", files: []string{file}})
	want := map[string]string{
		"server/storage/mvcc/kvstore.go:177":         "drifted server/storage/mvcc/kvstore.go:188", // hashByRev's return
		"server/storage/mvcc/kvstore.go:203":         "drifted server/storage/mvcc/kvstore.go:214", // updateCompactRev's return
		"server/storage/mvcc/kvstore.go:37":          "drifted server/storage/mvcc/kvstore.go:38",  // the declaration
		"server/storage/mvcc/watcher_group.go:251":   "drifted server/storage/mvcc/watcher_group.go:255",
		"server/storage/mvcc/kvstore_txn.go:80":      "drifted server/storage/mvcc/kvstore_txn.go:81",
		"server/storage/mvcc/kvstore_txn.go:81":      "drifted server/storage/mvcc/kvstore_txn.go:82",
		"server/storage/mvcc/kvstore.go:210":         "drifted server/storage/mvcc/kvstore.go:221",         // s.compactMainRev = rev
		"server/storage/mvcc/watchable_store.go:357": "drifted server/storage/mvcc/watchable_store.go:361", // compactionRev := s.store.compactMainRev
		"server/etcdserver/txn/txn.go:176":           "moved server/etcdserver/txn/range.go:71",
		"`mvcc.(*watcherGroup).chooseAll`":           "ok server/storage/mvcc/watcher_group.go:241",
	}
	seen := map[string]bool{}
	counts := map[string]int{}
	for _, c := range rep.Citations {
		counts[c.Status]++
		if c.Status == "ok" && c.Anchor == "" {
			t.Errorf("%d: %s: ok without evidence", c.NotesLine, c.Citation)
		}
		w, pinned := want[c.Citation]
		if !pinned {
			continue
		}
		seen[c.Citation] = true
		got := c.Status
		switch c.Status {
		case "drifted":
			got += fmt.Sprintf(" %s:%d", c.Resolved, c.Now)
		case "moved":
			got += fmt.Sprintf(" %s:%d", c.NowFile, c.Now)
		case "ok":
			got += fmt.Sprintf(" %s:%d", c.File, c.Line)
		}
		if got != w {
			t.Errorf("%d: %s: %s, want %s", c.NotesLine, c.Citation, got, w)
		}
	}
	for k := range want {
		if !seen[k] {
			t.Errorf("no citation %s in the notes", k)
		}
	}
	if s := rep.Notes[0]; s.From != "v3.6.0" || s.FromBy != "marker" {
		t.Errorf("summary from %q by %q", s.From, s.FromBy)
	}
	var keys []string
	for k, v := range counts {
		keys = append(keys, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(keys)
	t.Logf("the v3.6.0 notes at v3.7.3: %d citations: %s", len(rep.Citations), strings.Join(keys, ", "))
}

// assembleCheckout makes a tree shaped like a git checkout of etcd v3.6.0
// from the module cache: each module of the release in its folder, no
// go.work (3.6 tags have none), committed and tagged.
func assembleCheckout(t *testing.T, v string) string {
	t.Helper()
	root := t.TempDir()
	var args []string
	for _, f := range target.Etcd.Layout {
		args = append(args, f.Module+"@"+v)
	}
	cmd := exec.Command("go", append([]string{"mod", "download", "-json"}, args...)...)
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download: %v", err)
	}
	dirs := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m struct{ Path, Dir, Error string }
		if dec.Decode(&m) != nil {
			break
		}
		if m.Error != "" {
			t.Fatalf("%s@%s: %s", m.Path, v, m.Error)
		}
		dirs[m.Path] = m.Dir
	}
	for _, f := range target.Etcd.Layout {
		dst := filepath.Join(root, filepath.FromSlash(f.Dir))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("cp", "-r", dirs[f.Module], dst).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	if out, err := exec.Command("chmod", "-R", "u+w", root).CombinedOutput(); err != nil {
		t.Fatalf("chmod: %v %s", err, out)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "etcd " + v}, {"tag", v}} {
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

// treeState lists every file of root (also .git) with its size and
// modification time.
func treeState(t *testing.T, root string) map[string]string {
	t.Helper()
	st := map[string]string{}
	err := filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		st[p] = fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestCheckoutWithoutGoWork: errcompacted and check on a git checkout of
// v3.6.0 without a go.work: the same analysis as from the module proxy,
// notes that check clean against the checkout, nothing written into it,
// and a tree with uncommitted changes said to be dirty.
func TestCheckoutWithoutGoWork(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	root := assembleCheckout(t, "v3.6.0")
	before := treeState(t, root)
	ctx := context.Background()
	run := func(dir, v string) *report.Report {
		var out bytes.Buffer
		if err := runErrcompacted(ctx, &errcompactedOptions{study: errcompacted.Study, format: "json", dir: dir, version: v, paths: 3, stdout: &out}); err != nil {
			t.Fatal(err)
		}
		var rep report.Report
		if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		return &rep
	}
	dirRep, modRep := run(root, ""), run("", "v3.6.0")
	if e := dirRep.Etcd; e.Version != "v3.6.0" || e.Source != "dir" || e.Dirty || len(e.Missing) != 0 || len(e.Modules) != len(target.Etcd.Layout) {
		t.Errorf("etcd %+v", e)
	}
	dirRep.Etcd, modRep.Etcd = report.Etcd{}, report.Etcd{}
	// The notes say where their source came from; the rest is the same.
	if dirRep.Notes == nil || !strings.Contains(dirRep.Notes.Marker, "source=dir") {
		t.Errorf("the checkout's notes are not marked as from a checkout: %+v", dirRep.Notes)
	}
	dirRep.Notes, modRep.Notes = nil, nil
	if diff := cmp.Diff(modRep, dirRep); diff != "" {
		t.Errorf("the checkout's analysis differs from the release's (-module +dir):\n%s", diff)
	}
	// The notes of the checkout check clean against it.
	var md bytes.Buffer
	if err := runErrcompacted(ctx, &errcompactedOptions{study: errcompacted.Study, format: "markdown", dir: root, paths: 3, stdout: &md}); err != nil {
		t.Fatal(err)
	}
	notes := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(notes, md.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	rep := checkJSON(t, &checkOptions{dir: root, files: []string{notes}})
	if rep.Bad() > 0 || rep.Release != "v3.6.0" || rep.Dirty {
		t.Errorf("check of the checkout's notes: release %s dirty %v, %d to attend to", rep.Release, rep.Dirty, rep.Bad())
	}
	if diff := cmp.Diff(before, treeState(t, root)); diff != "" {
		t.Errorf("the checkout changed (-before +after):\n%s", diff)
	}
	// Uncommitted changes: the version says so, and so does the report.
	kv := filepath.Join(root, "server", "storage", "mvcc", "kvstore.go")
	data, _ := os.ReadFile(kv)
	if err := os.WriteFile(kv, append(data, []byte("\n// a local change\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	rep = checkJSON(t, &checkOptions{dir: root, files: []string{notes}})
	if rep.Release != "v3.6.0-dirty" || !rep.Dirty {
		t.Errorf("dirty checkout: release %q dirty %v", rep.Release, rep.Dirty)
	}
	if e := run(root, "").Etcd; e.Version != "v3.6.0-dirty" || !e.Dirty {
		t.Errorf("dirty checkout: etcd %+v", e)
	}
}

// TestReleaseWithoutEtcdctl: the proxy refuses etcdctl of v3.6.9; the
// server's analysis still runs, and the missing layer is named.
func TestReleaseWithoutEtcdctl(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	var out bytes.Buffer
	if err := runErrcompacted(context.Background(), &errcompactedOptions{study: errcompacted.Study, format: "json", version: "v3.6.9", paths: 3, stdout: &out}); err != nil {
		t.Fatal(err)
	}
	var rep report.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Etcd.Missing) != 1 || rep.Etcd.Missing[0].Path != "go.etcd.io/etcd/etcdctl/v3" ||
		!strings.Contains(rep.Etcd.Missing[0].Reason, "so these notes leave out the layer in etcdctl/") {
		t.Errorf("missing %+v", rep.Etcd.Missing)
	}
	if len(rep.Sites) == 0 || len(rep.Behaviours) == 0 {
		t.Errorf("no server analysis: %d sites, %d behaviours", len(rep.Sites), len(rep.Behaviours))
	}
	for _, p := range rep.Packages {
		if strings.HasPrefix(p, "go.etcd.io/etcd/etcdctl/") {
			t.Errorf("loaded %s", p)
		}
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
// release (git grep -n ErrCompacted), moves 177 -> 178 -> 188; a release
// that cannot be had is left out and named.
func TestDriftReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	var out, errs bytes.Buffer
	err := runErrcompacted(context.Background(), &errcompactedOptions{study: errcompacted.Study, format: "json",
		version: "v3.6.0,v3.6.99,v3.7.1,v3.7.3", drift: true, paths: 3, stdout: &out, stderr: &errs})
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
	if !found || strings.Join(d.Releases, " ") != "v3.6.0 v3.7.1 v3.7.3" {
		t.Errorf("releases %v, hashByRev row found %v", d.Releases, found)
	}
	if !strings.Contains(errs.String(), "--drift leaves out etcd v3.6.99: etcd release v3.6.99 cannot be had") {
		t.Errorf("stderr: %q", errs.String())
	}
}

// TestFixOwnNotesToRelease: the v3.6.0 notes carried to v3.7.3 with
// --fix. Their citations of `if ci > ai+maxGapBetweenApplyAndCommitIndex {`
// (v3_server.go:742 at v3.6.0) cannot be carried: v3.7.3 has no such
// comparison (read in both releases' v3_server.go). So nothing is
// rewritten, exit 3, and the note names the lines; without them, --fix
// rewrites the rest and exits 0, and the next check passes.
func TestFixOwnNotesToRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	file := notesOf(t, "v3.6.0")
	// The notes need not cite the comparison: a reader's line about it
	// (v3.6.0's v3_server.go:742, read there) is added when they do not.
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "maxGapBetweenApplyAndCommitIndex") {
		b = append(b, "\n- The server refuses new requests while its apply lags: `if ci > ai+maxGapBetweenApplyAndCommitIndex {` (`server/etcdserver/v3_server.go:742`).\n"...)
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before, _ := os.ReadFile(file)
	var out bytes.Buffer
	o := &checkOptions{version: "v3.7.3", fix: true, files: []string{file}, format: "json", stdout: &out}
	if err := runCheck(context.Background(), o); err == nil {
		t.Fatal("--fix with citations that cannot be carried: exit 0")
	}
	var rep check.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) || len(rep.Fixed) != 0 {
		t.Fatal("the notes were rewritten although citations cannot be carried")
	}
	// Every citation that blocks the fix quotes code that v3.7.3 no longer
	// has on its line (the comparison above, and any other code the notes
	// quote that changed between the releases).
	var blocked []int
	maxGap := false
	for _, c := range rep.Citations {
		if c.Status == "mismatch" || c.Status == "missing" || c.Status == "ambiguous" {
			blocked = append(blocked, c.NotesLine)
			switch {
			case strings.Contains(c.Message, "ci > ai+maxGapBetweenApplyAndCommitIndex"):
				maxGap = true
			case c.Status == "mismatch" && (strings.Contains(c.Message, "no longer holds") || strings.Contains(c.Message, "is nowhere in")):
			default:
				t.Errorf("%d: %s: %s", c.NotesLine, c.Status, c.Message)
			}
		}
	}
	if !maxGap {
		t.Errorf("the comparison v3.7.3 lacks did not block the fix")
	}
	if len(blocked) == 0 || !strings.Contains(rep.Notes[0].Fix, "not fixed") {
		t.Fatalf("blocked %v, fix %q", blocked, rep.Notes[0].Fix)
	}
	lines := strings.Split(string(before), "\n")
	var kept []string
	for i, l := range lines {
		if !slices.Contains(blocked, i+1) {
			kept = append(kept, l)
		}
	}
	if err := os.WriteFile(file, []byte(strings.Join(kept, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := runCheck(context.Background(), o); err != nil {
		t.Fatalf("--fix: %v\n%s", err, out.String())
	}
	rep = check.Report{}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Fixed) != 1 || rep.Notes[0].AfterFix["ok"] != len(rep.Citations) {
		t.Errorf("fixed %v, after %v of %d", rep.Fixed, rep.Notes[0].AfterFix, len(rep.Citations))
	}
	fixed, _ := os.ReadFile(file)
	if !strings.Contains(string(fixed), "<!-- srctrace: etcd v3.7.3 source=module -->") {
		t.Error("the marker was not carried")
	}
	again := checkJSON(t, &checkOptions{files: []string{file}})
	if again.Bad() != 0 || again.Release != "v3.7.3" {
		t.Errorf("the next check: %d to attend to at %s", again.Bad(), again.Release)
	}
}
