package check

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// copyTree copies the files under src into dst (both absolute).
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// historyRepo makes a git checkout with two commits in a temporary
// directory: the v3.9.0 tree of releases.txtar (tagged v3.9.0), then the
// v3.9.1 tree (tagged v3.9.1, on main), each with a second kv.go elsewhere
// so that a bare kv.go is ambiguous. It returns the checkout and the
// first commit.
func historyRepo(t *testing.T) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed to make a checkout with history: %v", err)
	}
	dirs, _ := releases(t)
	root := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@example.com",
			"-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	var first string
	for _, v := range []string{"v3.9.0", "v3.9.1"} {
		// The work tree becomes v's tree: everything but .git goes first.
		entries, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Name() != ".git" {
				if err := os.RemoveAll(filepath.Join(root, e.Name())); err != nil {
					t.Fatal(err)
				}
			}
		}
		copyTree(t, dirs[v], root)
		proxy := filepath.Join(root, "server", "proxy", "kv.go")
		if err := os.MkdirAll(filepath.Dir(proxy), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(proxy, []byte("package proxy\n\nfunc get() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git("add", "-A")
		git("commit", "-q", "-m", "etcd "+v)
		git("tag", v)
		if first == "" {
			first = git("rev-parse", "HEAD")
		}
	}
	return root, first
}

// TestLinksThroughHistory: with a checkout that has its history, links at
// a commit, a branch and a tag are read with git at their ref; a fork's
// link only at a commit the history has. Expectations read from the two
// trees of releases.txtar (the first commit is v3.9.0's, main v3.9.1's).
func TestLinksThroughHistory(t *testing.T) {
	root, first := historyRepo(t)
	blob := "https://github.com/etcd-io/etcd/blob/"
	notes := filepath.Join(t.TempDir(), "links.md")
	data := strings.Join([]string{
		blob + first + "/server/storage/mvcc/kv.go#L18", // 1
		"", //
		blob + first[:7] + "/server/storage/mvcc/kv.go#L17 `if rev < tr.s.compactMainRev {`", // 3
		"", //
		blob + "main/server/storage/mvcc/kv.go#L21 `return 0, ErrCompacted`", // 5
		"", //
		blob + "main/server/storage/mvcc/kv.go#L18 `return 0, ErrCompacted`", // 7
		"", //
		blob + "v3.9.0/server/storage/mvcc/kv.go#L27", // 9
		"", //
		"https://github.com/someone/etcd/blob/" + first + "/server/storage/mvcc/kv.go#L18", // 11
		"", //
		"https://github.com/someone/etcd/blob/feature-x/server/storage/mvcc/kv.go#L18", // 13
		"", //
		blob + "0123456789abcdef0123456789abcdef01234567/server/storage/mvcc/kv.go#L1", // 15
		"", //
		"[kv.go:21](" + blob + "main/server/storage/mvcc/kv.go#L21) `return 0, ErrCompacted`", // 17
		"", //
		blob + "main/server/storage/mvcc/kv.go#L5", // 19
		"",
	}, "\n")
	if err := os.WriteFile(notes, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Dir: root, Files: []string{notes}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range rep.Citations {
		got = append(got, summary(c)+" @"+c.Release+" "+c.CheckedBy)
	}
	want := []string{
		"1 " + blob + first + "/server/storage/mvcc/kv.go#L18 ok @" + first + " history",
		"3 " + blob + first[:7] + "/server/storage/mvcc/kv.go#L17 ok @" + first[:7] + " history",
		"5 " + blob + "main/server/storage/mvcc/kv.go#L21 ok @main history",
		"7 " + blob + "main/server/storage/mvcc/kv.go#L18 drifted 21 @main history", // main is v3.9.1
		"9 " + blob + "v3.9.0/server/storage/mvcc/kv.go#L27 ok @v3.9.0 history",
		"11 https://github.com/someone/etcd/blob/" + first + "/server/storage/mvcc/kv.go#L18 ok @" + first + " history",
		"13 https://github.com/someone/etcd/blob/feature-x/server/storage/mvcc/kv.go#L18 unresolved @feature-x link",
		"15 " + blob + "0123456789abcdef0123456789abcdef01234567/server/storage/mvcc/kv.go#L1 unresolved @0123456789abcdef0123456789abcdef01234567 link",
		"17 kv.go:21 ok @main history", // the link's path, not the two kv.go
		"17 " + blob + "main/server/storage/mvcc/kv.go#L21 ok @main history",
		"19 " + blob + "main/server/storage/mvcc/kv.go#L5 unanchored @main history", // a branch moves: no evidence of its own
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, c := range rep.Citations {
		if c.Status == "ok" && c.Commit == "" {
			t.Errorf("%d: checked in the history, but no commit is named", c.NotesLine)
		}
	}
	if m := rep.Citations[10].Message; !strings.Contains(m, "the link is at the branch main, which moves") {
		t.Errorf("a branch's link without evidence: %s", m)
	}
	if m := rep.Citations[7].Message; !strings.Contains(m, "is not in the history of") {
		t.Errorf("a commit the history lacks: %s", m)
	}
	if m := rep.Citations[6].Message; !strings.Contains(m, "(a fork of etcd-io/etcd?)") {
		t.Errorf("a fork's branch: %s", m)
	}
	// The summary says what was checked where.
	var groups []string
	for _, g := range rep.Notes[0].Checked {
		groups = append(groups, g.At+" "+g.By+" "+strconv.Itoa(g.Citations))
	}
	wantGroups := []string{first[:7] + " history 1", first + " history 2", "main history 5", "v3.9.0 history 1"}
	if diff := cmp.Diff(wantGroups, groups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}

	// Without the history, a commit and a branch cannot be read: the
	// module proxy serves releases.
	plainDir := t.TempDir()
	copyTree(t, root, plainDir)
	_, open := releases(t)
	rep, err = Run(context.Background(), Options{Dir: plainDir, Files: []string{notes}, open: open})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Citations[:4] {
		if c.Status != "unresolved" {
			t.Errorf("%d: %s without history", c.NotesLine, c.Status)
		}
	}
	if m := rep.Citations[0].Message; !strings.Contains(m, "the module proxy serves releases, not commits") {
		t.Errorf("a commit without history: %s", m)
	}
	if m := rep.Citations[2].Message; !strings.Contains(m, `the link is at "main", which is not a release tag`) {
		t.Errorf("a branch without history: %s", m)
	}
	if c := rep.Citations[4]; c.Status != "ok" || c.CheckedBy != "link" {
		t.Errorf("a tag without history: %s by %s", c.Status, c.CheckedBy)
	}
}
