package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/txtar"

	"github.com/srctrace/srctrace/trace/cite"
	"github.com/srctrace/srctrace/trace/source"
)

// releases unpacks testdata/releases.txtar: two releases of a small tree,
// v3.9.0 and v3.9.1 (the archive's comment says what changed), and returns
// an opener of their trees for Options.open.
func releases(t *testing.T) (map[string]string, func(context.Context, source.Spec) (*Tree, error)) {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", "releases.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dirs := map[string]string{"v3.9.0": filepath.Join(root, "v3.9.0"), "v3.9.1": filepath.Join(root, "v3.9.1")}
	open := func(ctx context.Context, spec source.Spec) (*Tree, error) {
		if spec.Dir != "" {
			return Open(ctx, spec)
		}
		d, ok := dirs[spec.Version]
		if !ok {
			return nil, fmt.Errorf("etcd release %s cannot be had: not in the fixture", spec.Version)
		}
		spec.Dir, spec.Version = d, ""
		return Open(ctx, spec)
	}
	return dirs, open
}

// notesFile copies a testdata notes file into a temporary directory, with
// lines inserted after its first (a marker, say).
func notesFile(t *testing.T, name string, insert ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if len(insert) > 0 {
		first, rest, _ := strings.Cut(string(data), "\n")
		data = []byte(first + "\n" + strings.Join(insert, "\n") + "\n" + rest)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// summary is a citation as the tests compare it: notes line, citation,
// status and where it is now.
func summary(c Citation) string {
	cited := c.Citation
	if c.Form == "grep" {
		cited = fmt.Sprintf("%s:%d", c.File, c.Line)
	}
	s := fmt.Sprintf("%d %s %s", c.NotesLine, cited, c.Status)
	switch c.Status {
	case "drifted":
		s += fmt.Sprintf(" %d", c.Now)
	case "moved":
		s += fmt.Sprintf(" %s:%d", c.NowFile, c.Now)
	case "mismatch":
		// The line was found, edited: where it is now.
		if c.Now > 0 && c.NowFile != "" {
			s += fmt.Sprintf(" at %s:%d", c.NowFile, c.Now)
		} else if c.Now > 0 {
			s += fmt.Sprintf(" at %d", c.Now)
		}
	}
	if c.Form == "symbol" && c.Status == "ok" {
		s += fmt.Sprintf(" %s:%d", c.File, c.Line)
	}
	return s
}

func summaries(rep *Report) []string {
	var out []string
	for _, c := range rep.Citations {
		out = append(out, summary(c))
	}
	return out
}

// The expectations below were derived by reading the two releases of
// testdata/releases.txtar line by line, not from the checker's output.

// wantOwn: notes-v3.9.0.md checked at v3.9.0 with no release of their own:
// each citation stands on the evidence beside it.
var wantOwn = []string{
	"3 server/storage/mvcc/kv.go:17 ok",                             // `rev < tr.s.compactMainRev` before it
	"7 server/storage/mvcc/kv.go:5 ok",                              // grep in a fenced block
	"8 server/storage/mvcc/kv.go:18 ok",                             // grep
	"11 server/storage/mvcc/kv.go:28 ok",                            // grep in an indented code block
	"13 server/storage/mvcc/kv.go:35 ok",                            // grep in a list item
	"14 server/storage/mvcc/watch.go:10 ok",                         // grep in a blockquote
	"16 kv.go:18 ok",                                                // bare, code after it
	"17 …/kv.go:20 ok",                                              // line 20 is in rangeKeys, named beside it
	"18 `mvcc.(*store).hashByRev` ok server/storage/mvcc/kv.go:26",  // a symbol
	"18 server/storage/mvcc/kv.go:27 ok",                            // in hashByRev, named beside it
	"19 kv.go:37 ok",                                                // `s.compactMainRev = rev` at kv.go:37
	"20 kv.go:23 unanchored",                                        // nothing confirms it
	"20 watch.go:14 unanchored",                                     //
	"24 watch.go:10 ok",                                             // the row's code, \|\| read as ||
	"25 server/storage/mvcc/kv.go:30 unanchored",                    // "returns nil" is prose
	"27 `mvcc.ErrCompacted` ok server/storage/mvcc/kv.go:5",         //
	"27 `mvcc.(*store).hashByRev` ok server/storage/mvcc/kv.go:26",  //
	"27 `mvcc.store.compactMainRev` ok server/storage/mvcc/kv.go:8", // a field
	"27 `mvcc.(*store).Compact` missing",                            // it is compact
	"29 https://github.com/etcd-io/etcd/blob/v3.9.0/server/storage/mvcc/kv.go#L34-L36 ok", // at its own tag
	"29 https://github.com/etcd-io/etcd/blob/v3.9.0/server/storage/mvcc/watch.go#L7 ok",
	"31 server/storage/mvcc/kv.go:18 drifted 23", // `return rev, nil` is at 23
}

// wantFrom: the same notes checked at v3.9.1, from v3.9.0.
var wantFrom = []string{
	"3 server/storage/mvcc/kv.go:17 drifted 20",
	"7 server/storage/mvcc/kv.go:5 ok",
	"8 server/storage/mvcc/kv.go:18 drifted 21",
	"11 server/storage/mvcc/kv.go:28 moved server/storage/mvcc/kv_hash.go:5", // hashByRev moved
	"13 server/storage/mvcc/kv.go:35 drifted 31",                             // compact's return
	"14 server/storage/mvcc/watch.go:10 drifted 11",
	"16 kv.go:18 drifted 21",
	"17 …/kv.go:20 drifted 23",
	"18 `mvcc.(*store).hashByRev` ok server/storage/mvcc/kv_hash.go:3",
	"18 server/storage/mvcc/kv.go:27 moved server/storage/mvcc/kv_hash.go:4",
	"19 kv.go:37 mismatch", // the assignment is gone
	"20 kv.go:23 drifted 26",
	"20 watch.go:14 drifted 15",
	"24 watch.go:10 drifted 11",
	"25 server/storage/mvcc/kv.go:30 moved server/storage/mvcc/kv_hash.go:7", // hashByRev's return nil
	"27 `mvcc.ErrCompacted` ok server/storage/mvcc/kv.go:5",
	"27 `mvcc.(*store).hashByRev` ok server/storage/mvcc/kv_hash.go:3",
	"27 `mvcc.store.compactMainRev` ok server/storage/mvcc/kv.go:11",
	"27 `mvcc.(*store).Compact` missing",
	"29 https://github.com/etcd-io/etcd/blob/v3.9.0/server/storage/mvcc/kv.go#L34-L36 ok", // links stay at their tag
	"29 https://github.com/etcd-io/etcd/blob/v3.9.0/server/storage/mvcc/watch.go#L7 ok",
	"31 server/storage/mvcc/kv.go:18 drifted 26", // wrong already at v3.9.0 (23), which is 26 now
}

func TestCheckOwnEvidence(t *testing.T) {
	dirs, open := releases(t)
	notes := notesFile(t, "notes-v3.9.0.md")
	rep, err := Run(context.Background(), Options{Dir: dirs["v3.9.0"], Files: []string{notes}, open: open})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantOwn, summaries(rep)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if rep.Release != "v3.9.0" || rep.Target != "etcd" || len(rep.Notes) != 1 {
		t.Fatalf("report %+v", rep)
	}
	s := rep.Notes[0]
	wantCounts := map[string]int{"ok": 17, "drifted": 1, "missing": 1, "unanchored": 3, "moved": 0, "mismatch": 0, "ambiguous": 0, "unresolved": 0}
	if diff := cmp.Diff(wantCounts, s.Counts); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
	// Most serious first: missing, then drifted, then unanchored.
	var order []string
	for _, i := range s.Attention {
		order = append(order, rep.Citations[i].Status)
	}
	if got := strings.Join(order, " "); got != "missing drifted unanchored unanchored unanchored" {
		t.Errorf("attention order %q", got)
	}
	for _, c := range rep.Citations {
		if c.Status == "ok" && c.Anchor == "" {
			t.Errorf("ok without an anchor: %+v", c)
		}
	}
}

func TestCheckFromRelease(t *testing.T) {
	dirs, open := releases(t)
	for _, tc := range []struct {
		name   string
		insert []string
		from   string
		shift  int
	}{
		{"--from", nil, "v3.9.0", 0},
		{"marker", []string{"", cite.NewMarker("etcd", "v3.9.0", "source", "module").String()}, "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			notes := notesFile(t, "notes-v3.9.0.md", tc.insert...)
			rep, err := Run(context.Background(), Options{Dir: dirs["v3.9.1"], From: tc.from, Files: []string{notes}, open: open})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, w := range wantFrom {
				var n int
				var rest string
				fmt.Sscanf(w, "%d", &n)
				_, rest, _ = strings.Cut(w, " ")
				want = append(want, fmt.Sprintf("%d %s", n+tc.shift, rest))
			}
			if diff := cmp.Diff(want, summaries(rep)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			by := "flag"
			if tc.from == "" {
				by = "marker"
			}
			if s := rep.Notes[0]; s.From != "v3.9.0" || s.FromBy != by {
				t.Errorf("summary from %q by %q", s.From, s.FromBy)
			}
			for _, c := range rep.Citations {
				if c.Form != "symbol" && c.Form != "github" && (c.From != "v3.9.0" || c.FromBy != by) {
					t.Errorf("%s: from %q by %q", c.Citation, c.From, c.FromBy)
				}
				if c.Status == "mismatch" && !strings.Contains(c.Message, "`s.compactMainRev = rev`") {
					t.Errorf("mismatch message: %s", c.Message)
				}
				if c.NotesLine == 31+tc.shift && !strings.Contains(c.Message, "wrong already at v3.9.0") {
					t.Errorf("the citation wrong at its own release says: %s", c.Message)
				}
			}
		})
	}
}

// TestFix: --fix rewrites drifted and moved citations, every other byte
// stays, and fixed notes check clean from the release they were carried to.
func TestFix(t *testing.T) {
	dirs, open := releases(t)
	ctx := context.Background()

	// With a citation that cannot be carried, nothing carried is
	// rewritten: the notes' lines stay v3.9.0's.
	notes := notesFile(t, "notes-v3.9.0.md")
	before, _ := os.ReadFile(notes)
	rep, err := Run(ctx, Options{Dir: dirs["v3.9.1"], From: "v3.9.0", Fix: true, Files: []string{notes}, open: open})
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(notes); string(after) != string(before) || len(rep.Fixed) != 0 {
		t.Errorf("notes changed although a citation cannot be carried: fixed %v", rep.Fixed)
	}
	if fix := rep.Notes[0].Fix; !strings.Contains(fix, "not fixed: 1 citation") || !strings.Contains(fix, "notes lines 19") {
		t.Errorf("fix note %q", fix)
	}

	// Without it (line 19 dropped), every carried citation is rewritten,
	// and the marker with them; --to carries the links too.
	data := strings.Replace(string(before), "- `s.compactMainRev = rev` at kv.go:37 records it.\n", "", 1)
	data = strings.Replace(data, "\n", "\n\n"+cite.NewMarker("etcd", "v3.9.0", "source", "module").String()+"\n", 1)
	if err := os.WriteFile(notes, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Run(ctx, Options{Dir: dirs["v3.9.1"], To: "v3.9.1", Fix: true, Files: []string{notes}, open: open})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(notes)
	want := strings.NewReplacer(
		"<!-- srctrace: etcd v3.9.0", "<!-- srctrace: etcd v3.9.1",
		"`server/storage/mvcc/kv.go:17`", "`server/storage/mvcc/kv.go:20`",
		"server/storage/mvcc/kv.go:18:\t\treturn 0", "server/storage/mvcc/kv.go:21:\t\treturn 0",
		"    server/storage/mvcc/kv.go:28:", "    server/storage/mvcc/kv_hash.go:5:",
		"- server/storage/mvcc/kv.go:35:", "- server/storage/mvcc/kv.go:31:",
		"> server/storage/mvcc/watch.go:10:", "> server/storage/mvcc/watch.go:11:",
		"- kv.go:18:", "- kv.go:21:",
		"`…/kv.go:20`", "`…/kv.go:23`",
		"(`server/storage/mvcc/kv.go:27`).", "(`server/storage/mvcc/kv_hash.go:4`).",
		"kv.go:23 and watch.go:14", "kv.go:26 and watch.go:15",
		"| `watch.go:10` |", "| `watch.go:11` |",
		"| `server/storage/mvcc/kv.go:30` |", "| `server/storage/mvcc/kv_hash.go:7` |",
		"blob/v3.9.0/server/storage/mvcc/kv.go#L34-L36", "blob/v3.9.1/server/storage/mvcc/kv.go#L30-L32",
		"blob/v3.9.0/server/storage/mvcc/watch.go#L7", "blob/v3.9.1/server/storage/mvcc/watch.go#L8",
		"(`server/storage/mvcc/kv.go:18`).\n", "(`server/storage/mvcc/kv.go:26`).\n",
	).Replace(data)
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("fixed notes (-want +got):\n%s", diff)
	}
	if fix := rep.Notes[0].Fix; !strings.Contains(fix, "and the marker, which now says v3.9.1") {
		t.Errorf("fix note %q", fix)
	}
	// The fixed notes are v3.9.1's: at v3.9.1 they check as ok (but for
	// the missing symbol), and a second --fix changes nothing.
	rep, err = Run(ctx, Options{Dir: dirs["v3.9.1"], Fix: true, Files: []string{notes}, open: open})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Citations {
		if c.Status != "ok" && c.Citation != "`mvcc.(*store).Compact`" {
			t.Errorf("after --fix: %s", summary(c))
		}
	}
	if again, _ := os.ReadFile(notes); string(again) != string(got) || len(rep.Fixed) != 0 {
		t.Errorf("a second --fix changed the notes")
	}
}

// TestFixCRLF: a grep line in notes with CRLF line ends, fixed in place.
func TestFixCRLF(t *testing.T) {
	dirs, open := releases(t)
	notes := filepath.Join(t.TempDir(), "crlf.md")
	data := "x\r\nserver/storage/mvcc/kv.go:16:\t\treturn 0, ErrCompacted\r\nkeep\xff bytes\r\n"
	if err := os.WriteFile(notes, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Dir: dirs["v3.9.0"], Fix: true, Files: []string{notes}, open: open})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(notes)
	if want := strings.Replace(data, "kv.go:16:", "kv.go:18:", 1); string(got) != want {
		t.Errorf("got %q, want %q (%v)", got, want, summaries(rep))
	}
}

// TestLinksTo: with --to, links are checked at the release checked, from
// their tag; without it, at their tag.
func TestLinksTo(t *testing.T) {
	dirs, open := releases(t)
	notes := filepath.Join(t.TempDir(), "links.md")
	data := "https://github.com/etcd-io/etcd/blob/v3.9.0/server/storage/mvcc/kv.go#L27 `if rev < s.compactMainRev {`\n" +
		"https://github.com/etcd-io/etcd/blob/v3.8.0/server/storage/mvcc/kv.go#L1\n" +
		"https://github.com/etcd-io/etcd/blob/main/server/storage/mvcc/kv.go#L1\n" +
		"https://github.com/other/repo/blob/v3.9.0/x.go#L1\n" +
		"[kv.go:27](https://github.com/etcd-io/etcd/blob/v3.9.0/server/storage/mvcc/kv.go#L27)\n"
	if err := os.WriteFile(notes, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		to   string
		want []string
	}{
		{"", []string{
			"1 https://github.com/etcd-io/etcd/blob/v3.9.0/server/storage/mvcc/kv.go#L27 ok",
			"2 https://github.com/etcd-io/etcd/blob/v3.8.0/server/storage/mvcc/kv.go#L1 unresolved",
			"3 https://github.com/etcd-io/etcd/blob/main/server/storage/mvcc/kv.go#L1 unresolved",
			"4 https://github.com/other/repo/blob/v3.9.0/x.go#L1 unresolved",
			"5 kv.go:27 ok", // the link's text, at the link's tag
			"5 https://github.com/etcd-io/etcd/blob/v3.9.0/server/storage/mvcc/kv.go#L27 ok",
		}},
		{"v3.9.1", []string{
			"1 https://github.com/etcd-io/etcd/blob/v3.9.0/server/storage/mvcc/kv.go#L27 moved server/storage/mvcc/kv_hash.go:4",
			"2 https://github.com/etcd-io/etcd/blob/v3.8.0/server/storage/mvcc/kv.go#L1 unresolved",
			"3 https://github.com/etcd-io/etcd/blob/main/server/storage/mvcc/kv.go#L1 unresolved",
			"4 https://github.com/other/repo/blob/v3.9.0/x.go#L1 unresolved",
			"5 kv.go:27 moved server/storage/mvcc/kv_hash.go:4",
			"5 https://github.com/etcd-io/etcd/blob/v3.9.0/server/storage/mvcc/kv.go#L27 moved server/storage/mvcc/kv_hash.go:4",
		}},
	} {
		rep, err := Run(context.Background(), Options{Dir: dirs["v3.9.1"], To: tc.to, Files: []string{notes}, open: open})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, summaries(rep)); diff != "" {
			t.Errorf("--to %q (-want +got):\n%s", tc.to, diff)
		}
	}
	// --fix carries a link and its text together.
	if _, err := Run(context.Background(), Options{Dir: dirs["v3.9.1"], To: "v3.9.1", Fix: true, Files: []string{notes}, open: open}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(notes)
	if want := "[kv_hash.go:4](https://github.com/etcd-io/etcd/blob/v3.9.1/server/storage/mvcc/kv_hash.go#L4)\n"; !strings.HasSuffix(string(got), want) {
		t.Errorf("fixed link:\n%s", got)
	}
	// --to names the release checked.
	if _, err := Run(context.Background(), Options{Dir: dirs["v3.9.1"], To: "v3.9.0", Files: []string{notes}, open: open}); err == nil || !strings.Contains(err.Error(), "--to v3.9.0, but the source checked is etcd v3.9.1") {
		t.Errorf("--to another release: %v", err)
	}
}

// TestMarkerUnusable: a marker whose release cannot be had is a problem,
// and the citations stand on their own evidence.
func TestMarkerUnusable(t *testing.T) {
	dirs, open := releases(t)
	notes := filepath.Join(t.TempDir(), "m.md")
	data := "# x\n\n<!-- srctrace: etcd v3.8.8 source=module -->\n\nkv.go:18 `return 0, ErrCompacted` and kv.go:23.\n\n<!-- srctrace: other v1.0.0 -->\n"
	if err := os.WriteFile(notes, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Dir: dirs["v3.9.0"], Files: []string{notes}, open: open})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"5 kv.go:18 ok", "5 kv.go:23 unanchored"}, summaries(rep)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var msgs []string
	for _, p := range rep.Problems {
		msgs = append(msgs, fmt.Sprintf("%d %s", p.NotesLine, p.Message))
	}
	if len(msgs) != 2 || !strings.Contains(msgs[0], "7 a marker for other, not etcd") || !strings.Contains(msgs[1], "3 the notes' release v3.8.8 (their marker) cannot be read") {
		t.Errorf("problems %q", msgs)
	}
	if !strings.Contains(rep.Citations[1].Message, "their release v3.8.8 cannot be had") {
		t.Errorf("unanchored message: %s", rep.Citations[1].Message)
	}
}

func TestAmbiguousFile(t *testing.T) {
	tree := newTree(nil)
	tree.Version = "v"
	tree.add("a/x.go", "")
	tree.add("b/x.go", "")
	tree.sort()
	r := (&Checker{Default: tree}).check(context.Background(), &cite.Citation{Form: cite.Bare, File: "x.go", Line: 1}, own{}, nil)
	if r.status != Ambiguous || !strings.Contains(r.msg, "a/x.go, b/x.go") {
		t.Errorf("%+v", r)
	}
}

// TestUnread: a release is read module by module; a file of a module it
// lacks, or of no module, cannot be said to be missing.
func TestUnread(t *testing.T) {
	tree := newTree(nil)
	tree.Version, tree.Kind = "v3.6.9", "module"
	tree.Missing = map[string]string{"go.etcd.io/etcd/etcdctl/v3": "refused"}
	tree.add("server/x.go", "")
	tree.sort()
	k := &Checker{Default: tree}
	// The notes' release has the file: carried, it cannot be found.
	r0 := newTree(nil)
	r0.Version, r0.Kind = "v3.6.0", "module"
	dir := t.TempDir()
	for _, rp := range []string{"etcdctl/ctlv3/command/watch_command.go", "tests/e2e/x_test.go", "server/y.go"} {
		p := filepath.Join(dir, filepath.FromSlash(rp))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("package x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r0.add(rp, p)
	}
	r0.sort()
	for _, o := range []own{{}, {tree: r0, by: "flag", name: "v3.6.0"}} {
		for file, want := range map[string]string{
			"etcdctl/ctlv3/command/watch_command.go": "unresolved etcdctl/ of etcd v3.6.9 cannot be had",
			"tests/e2e/x_test.go":                    "unresolved tests/e2e/x_test.go is in none of the modules",
			"server/y.go":                            "missing no file server/y.go in etcd v3.6.9",
		} {
			r := k.check(context.Background(), &cite.Citation{Form: cite.Path, File: file, Line: 1}, o, nil)
			if got := string(r.status) + " " + r.msg; !strings.HasPrefix(got, want) {
				t.Errorf("from %q: %s: %s, want %s…", o.name, file, got, want)
			}
		}
	}
}

func TestRewritePath(t *testing.T) {
	for _, tc := range []struct{ written, now, want string }{
		{"server/storage/mvcc/kv.go", "server/storage/mvcc/kv_hash.go", "server/storage/mvcc/kv_hash.go"},
		{"kv.go", "server/storage/mvcc/kv_hash.go", "kv_hash.go"},
		{"mvcc/kv.go", "server/storage/mvcc/kv_hash.go", "mvcc/kv_hash.go"},
		{"…/kv.go", "server/storage/mvcc/kv_hash.go", "…/kv_hash.go"},
		{"./server/storage/mvcc/kv.go", "server/storage/other/kv.go", "./server/storage/other/kv.go"},
	} {
		if got := rewritePath(tc.written, tc.now, false); got != tc.want {
			t.Errorf("rewritePath(%q, %q) = %q, want %q", tc.written, tc.now, got, tc.want)
		}
	}
}

// TestEvidenceContradicts: notes-evidence.md, whose marker says v3.9.0,
// checked at v3.9.0: the marker says only whose line numbers they are;
// the code each sentence, item or row quotes is compared all the same.
// Expectations read from v3.9.0's kv.go and watch.go in releases.txtar.
func TestEvidenceContradicts(t *testing.T) {
	dirs, open := releases(t)
	notes := notesFile(t, "notes-evidence.md")
	rep, err := Run(context.Background(), Options{Dir: dirs["v3.9.0"], Files: []string{notes}, open: open})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"5 server/storage/mvcc/kv.go:15 drifted 17", // a blank line; the quoted if is at 17
		"7 kv.go:19 drifted 18",                     // rangeKeys' `}`; its return is at 18
		"8 kv.go:28 ok",                             // the quoted condition guards 28
		"9 kv.go:18 drifted 17",                     // each quoted if is a whole line, 17 and 27:
		"9 kv.go:28 drifted 27",                     // for each citation the other's is explained
		"10 kv.go:28 drifted 27",                    // a whole line quoted is that line
		"11 watch.go:9 ok",                          // `w.minRev` is a name, not code of a line
		"12 kv.go:36 ok",                            // `return nil` alone says nothing
		"13 kv.go:38 drifted 37",                    // own code, at 37
		"17 kv.go:30 ambiguous",                     // the row's code is at 27 and 28
	}
	if diff := cmp.Diff(want, summaries(rep)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, c := range rep.Citations {
		if c.Status == "ok" && c.Anchor != "release" {
			t.Errorf("%d: %s: ok by %s", c.NotesLine, c.Citation, c.Anchor)
		}
	}
	if m := rep.Citations[0].Message; !strings.Contains(m, "the notes quote `if rev < tr.s.compactMainRev {` beside it, which is at line 17, not on line 15") {
		t.Errorf("message: %s", m)
	}
}

// TestForms: the forms people write besides file:line, checked at v3.9.0
// with no release of the notes' own: expectations read from v3.9.0's
// kv.go and watch.go in releases.txtar.
func TestForms(t *testing.T) {
	dirs, open := releases(t)
	rep := checkLines(t, dirs["v3.9.0"], open, []string{
		"# Forms", // 1
		"",        // 2
		"See [rangeKeys](server/storage/mvcc/kv.go#L16-L24).", // 3: relative, in rangeKeys
		"", // 4
		"[kv.go:18](../../server/storage/mvcc/kv.go#L18) `return 0, ErrCompacted`", // 5
		"", // 6
		"It is line 18 of server/storage/mvcc/kv.go, `return 0, ErrCompacted`.", // 7
		"", // 8
		"- kv.go, line 28: `return ErrCompacted`",                                          // 9
		"- watch.go line 10 `if w.minRev < compactRev || w.minRev == 0 {`",                 // 10
		"- lines 34-35 of `kv.go` refuse a compaction with `if rev <= s.compactMainRev {`", // 11
		"- The WAL lives in `wal.go`, its messages in `raft.proto`.",                       // 12: files, not symbols
		"- [here](server/storage/mvcc/kv.go#L21) `return 0, ErrCompacted`",                 // 13: the code is at 18
		"",
	})
	want := []string{
		"3 server/storage/mvcc/kv.go#L16-L24 ok",
		"5 kv.go:18 ok",
		"5 ../../server/storage/mvcc/kv.go#L18 ok",
		"7 line 18 of server/storage/mvcc/kv.go ok",
		"9 kv.go, line 28 ok",
		"10 watch.go line 10 ok",
		"11 lines 34-35 of `kv.go` ok",
		"13 server/storage/mvcc/kv.go#L21 drifted 18",
	}
	if diff := cmp.Diff(want, summaries(rep)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var forms []string
	for _, c := range rep.Citations {
		forms = append(forms, c.Form)
	}
	if got := strings.Join(forms, " "); got != "relative bare relative prose prose prose prose relative" {
		t.Errorf("forms %s", got)
	}
	// A file of only repository-relative links is read, not "0 citations".
	rep = checkLines(t, dirs["v3.9.0"], open, []string{"[watcher](server/storage/mvcc/watch.go#L40-L80)", ""})
	if got := summaries(rep); len(got) != 1 || got[0] != "1 server/storage/mvcc/watch.go#L40-L80 missing" || rep.Bad() == 0 {
		t.Errorf("relative links only: %v", got)
	}
}

// TestFixCarriesCode: --fix carries a line and the code quoted beside it
// when the line changed between the notes' release and the one checked,
// carries a range end by end, follows a symbolic link, and leaves notes
// that the next check passes. Expectations read from releases.txtar: at
// v3.9.1 kv.go's `return 0, nil` (21) is `return 0, ErrFutureRev` (24),
// `if rev <= s.compactMainRev {` (34) is `if rev <= s.compactMainRev &&
// rev != 0 {` (30), and compact's lines 33-38 are 29-33 (its assignment
// is gone).
func TestFixCarriesCode(t *testing.T) {
	dirs, open := releases(t)
	dir := t.TempDir()
	real := filepath.Join(dir, "real", "notes.md")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	data := strings.Join([]string{
		"# Carried",
		"",
		"<!-- srctrace: etcd v3.9.0 source=module -->",
		"",
		"- The future check returns `return 0, nil` (kv.go:21).",
		"- server/storage/mvcc/kv.go:21:\t\treturn 0, nil",
		"- The compaction refuses when `rev <= s.compactMainRev {` (`server/storage/mvcc/kv.go:34`).",
		"- [compact](https://github.com/etcd-io/etcd/blob/v3.9.0/server/storage/mvcc/kv.go#L33-L38) is the whole function.",
		"",
	}, "\n")
	if err := os.WriteFile(real, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "notes.md")
	if err := os.Symlink(filepath.Join("real", "notes.md"), link); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rep, err := Run(ctx, Options{Dir: dirs["v3.9.1"], To: "v3.9.1", Fix: true, Files: []string{link}, open: open})
	if err != nil {
		t.Fatal(err)
	}
	wantFound := []string{
		"5 kv.go:21 mismatch at 24",
		"6 server/storage/mvcc/kv.go:21 mismatch at 24",
		"7 server/storage/mvcc/kv.go:34 mismatch at 30",
		"8 https://github.com/etcd-io/etcd/blob/v3.9.0/server/storage/mvcc/kv.go#L33-L38 drifted 29",
	}
	if diff := cmp.Diff(wantFound, summaries(rep)); diff != "" {
		t.Errorf("found (-want +got):\n%s", diff)
	}
	if c := rep.Citations[3]; c.NowEnd != 33 {
		t.Errorf("the range's end is %d at v3.9.1, want 33 (carried by its own line, not by its start's offset)", c.NowEnd)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symbolic link is gone: %v %v", fi, err)
	}
	got, _ := os.ReadFile(real)
	want := strings.NewReplacer(
		"etcd v3.9.0 source", "etcd v3.9.1 source",
		"`return 0, nil` (kv.go:21)", "`return 0, ErrFutureRev` (kv.go:24)",
		"kv.go:21:\t\treturn 0, nil", "kv.go:24:\t\treturn 0, ErrFutureRev",
		"`rev <= s.compactMainRev {` (`server/storage/mvcc/kv.go:34`)", "`rev <= s.compactMainRev && rev != 0 {` (`server/storage/mvcc/kv.go:30`)",
		"blob/v3.9.0/server/storage/mvcc/kv.go#L33-L38", "blob/v3.9.1/server/storage/mvcc/kv.go#L29-L33",
	).Replace(data)
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("fixed notes (-want +got):\n%s", diff)
	}
	s := rep.Notes[0]
	if s.AfterFix == nil || s.AfterFix["ok"] != 4 || rep.Bad() != 0 {
		t.Errorf("after --fix: %v, %d to attend to; fix: %s", s.AfterFix, rep.Bad(), s.Fix)
	}
	// The next check passes.
	rep, err = Run(ctx, Options{Dir: dirs["v3.9.1"], Files: []string{link}, open: open})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Bad() != 0 {
		t.Errorf("the next check: %v", summaries(rep))
	}
}

// TestNamesAndShapes: what authors write beside a citation besides the
// line's code, checked at v3.9.0 with no release of their own:
// expectations read from v3.9.0's kv.go in releases.txtar (rangeKeys is
// lines 16-24, hashByRev 26-31, compact 33-39).
func TestNamesAndShapes(t *testing.T) {
	dirs, open := releases(t)
	rep := checkLines(t, dirs["v3.9.0"], open, []string{
		"- `server/storage/mvcc/kv.go:10-14` (`store.compact()`) is the compaction.",                                 // 1: the function is 33-39
		"- `store.hashByRev` (`server/storage/mvcc/kv.go:20`) refuses.",                                              // 2: 20 is in rangeKeys
		"- `store.compact` (`server/storage/mvcc/kv.go:34`) refuses.",                                                // 3: in it
		"- `storeTxnRead.rangeKeys(rev)` (`server/storage/mvcc/kv.go:16`) is declared there.",                        // 4: a call written with its parameter's name
		"- `tr.rangeKeys(rev, 1)` (`server/storage/mvcc/kv.go:16`) is not what line 16 holds.",                       // 5: a literal argument: code, compared as text
		"- From a folder above the repository: `etcd/server/storage/mvcc/kv.go:17` `if rev < tr.s.compactMainRev {`", // 6
		"- [kv.go#L27](server/storage/mvcc/kv.go#L27) `if rev < s.compactMainRev {`",                                 // 7: the text of a relative link
		"",
	})
	want := []string{
		"1 server/storage/mvcc/kv.go:10-14 drifted 33",
		"2 server/storage/mvcc/kv.go:20 drifted 26",
		"3 server/storage/mvcc/kv.go:34 ok",
		"4 server/storage/mvcc/kv.go:16 ok",
		"5 server/storage/mvcc/kv.go:16 mismatch",
		"6 etcd/server/storage/mvcc/kv.go:17 ok",
		"7 kv.go#L27 ok",
		"7 server/storage/mvcc/kv.go#L27 ok",
	}
	if diff := cmp.Diff(want, summaries(rep)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if c := rep.Citations[0]; c.NowEnd != 39 {
		t.Errorf("the range carried to the function named: %d-%d, want 33-39", c.Now, c.NowEnd)
	}
}

// checkLines writes lines as a notes file in a temporary directory and
// checks it at dir (a release of releases.txtar).
func checkLines(t *testing.T, dir string, open func(context.Context, source.Spec) (*Tree, error), lines []string) *Report {
	t.Helper()
	notes := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(notes, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), Options{Dir: dir, Files: []string{notes}, open: open})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}
