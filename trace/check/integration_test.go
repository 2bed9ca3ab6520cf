package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/target"
)

// TestEtcdNotesAcrossReleases: testdata/notes-etcd-v3.6.0.md, written for
// etcd v3.6.0 with every form of citation, checked at v3.6.0 on their own
// evidence and at v3.7.3 from v3.6.0. The positions were read in the two
// releases' source (git show v3.6.0:server/... and v3.7.3, grep -n), not
// taken from the checker.
func TestEtcdNotesAcrossReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("reads real etcd releases")
	}
	ctx := context.Background()
	notes := notesFile(t, "notes-etcd-v3.6.0.md")
	for _, tc := range []struct {
		name string
		opts Options
		want []string
	}{
		{"at v3.6.0", Options{Version: "v3.6.0"}, []string{
			"3 server/storage/mvcc/kvstore_txn.go:80 ok",
			"3 …/kvstore_txn.go:77 ok", // in rangeKeys (72-…)
			"7 server/storage/mvcc/kvstore.go:37 ok",
			"8 server/storage/mvcc/kvstore.go:177 ok",
			"9 server/storage/mvcc/kvstore.go:203 ok",
			"14 server/storage/mvcc/kvstore_txn.go:81 ok",
			"16 server/storage/mvcc/watcher_group.go:251 ok",
			"17 server/storage/mvcc/watchable_store.go:135 ok",
			"19 kvstore.go:203 ok",
			"20 server/storage/mvcc/watchable_store.go:222 ok",
			"21 server/etcdserver/txn/txn.go:176 ok",
			"22 server/etcdserver/apply/apply_auth.go:59 ok",
			"23 server/etcdserver/server.go:1975 ok",
			"24 kvstore.go:177 unanchored",
			"28 server/storage/mvcc/watcher_group.go:251 ok",
			"29 watcher_group.go:237 ok",
			"31 `mvcc.(*watcherGroup).chooseAll` ok server/storage/mvcc/watcher_group.go:237",
			"31 `mvcc.ErrCompacted` ok server/storage/mvcc/kvstore.go:37",
			"31 `rpctypes.ErrGRPCCompacted` ok api/v3rpc/rpctypes/error.go:32",
			"31 `mvcc.store.compactMainRev` ok server/storage/mvcc/kvstore.go:73",
			"31 `mvcc.(*store).hashByRev` ok server/storage/mvcc/kvstore.go:166",
			"33 https://github.com/etcd-io/etcd/blob/v3.6.0/server/storage/mvcc/kvstore.go#L177 ok",
			"35 server/storage/mvcc/kvstore.go:177 drifted 203",
		}},
		{"at v3.7.3 from v3.6.0", Options{Version: "v3.7.3", From: "v3.6.0"}, []string{
			"3 server/storage/mvcc/kvstore_txn.go:80 drifted 81",
			"3 …/kvstore_txn.go:77 drifted 78",
			"7 server/storage/mvcc/kvstore.go:37 drifted 38",
			"8 server/storage/mvcc/kvstore.go:177 drifted 188",
			"9 server/storage/mvcc/kvstore.go:203 drifted 214",
			"14 server/storage/mvcc/kvstore_txn.go:81 drifted 82",
			"16 server/storage/mvcc/watcher_group.go:251 drifted 255",
			"17 server/storage/mvcc/watchable_store.go:135 drifted 141",
			"19 kvstore.go:203 drifted 214",
			"20 server/storage/mvcc/watchable_store.go:222 mismatch at 227",                              // now NewTicker(watchResyncPeriod), not the quoted NewTicker(waitDuration)
			"21 server/etcdserver/txn/txn.go:176 moved server/etcdserver/txn/range.go:71",                // Range has its own file
			"22 server/etcdserver/apply/apply_auth.go:59 mismatch at server/etcdserver/apply/auth.go:59", // Apply(r, shouldApplyV3, applyFunc) now
			"23 server/etcdserver/server.go:1975 mismatch",                                               // applyEntryNormal calls apply.Apply now
			"24 kvstore.go:177 drifted 188",
			"28 server/storage/mvcc/watcher_group.go:251 drifted 255",
			"29 watcher_group.go:237 drifted 241",
			"31 `mvcc.(*watcherGroup).chooseAll` ok server/storage/mvcc/watcher_group.go:241",
			"31 `mvcc.ErrCompacted` ok server/storage/mvcc/kvstore.go:38",
			"31 `rpctypes.ErrGRPCCompacted` ok api/v3rpc/rpctypes/error.go:32",
			"31 `mvcc.store.compactMainRev` ok server/storage/mvcc/kvstore.go:74",
			"31 `mvcc.(*store).hashByRev` ok server/storage/mvcc/kvstore.go:177",
			"33 https://github.com/etcd-io/etcd/blob/v3.6.0/server/storage/mvcc/kvstore.go#L177 ok", // at its tag
			"35 server/storage/mvcc/kvstore.go:177 drifted 214",                                     // it meant 203
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.opts
			o.Files = []string{notes}
			rep, err := Run(ctx, o)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, summaries(rep)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	// With --to v3.7.3 the permalink is carried too.
	rep, err := Run(ctx, Options{To: "v3.7.3", From: "v3.6.0", Files: []string{notes}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Citations {
		if c.Form == "github" && summary(c) != "33 https://github.com/etcd-io/etcd/blob/v3.6.0/server/storage/mvcc/kvstore.go#L177 drifted 188" {
			t.Errorf("--to v3.7.3: %s", summary(c))
		}
	}
}

// TestEtcdIssueCases: what real reviewers write, checked at etcd v3.7.3
// (and carried from v3.6.0). Expectations read in the releases' source:
// at v3.7.3 watcher_group.go:255 is `if w.minRev < compactRev {` (250 is
// the `}` of `if !w.restore {`), v3rpc/watch.go:361 is `Canceled: err !=
// nil,` (five files are named watch.go), and kvstore.go's hash() runs
// 156-164 at v3.6.0 (its TODO comment at 156, `hashSec.Observe(...)` at
// 162) and 156-175 at v3.7.3 (157 and 173: the backend is taken under
// s.mu now, six lines more between them).
func TestEtcdIssueCases(t *testing.T) {
	if testing.Short() {
		t.Skip("reads real etcd releases")
	}
	ctx := context.Background()
	dir := t.TempDir()
	notes := filepath.Join(dir, "issue.md")
	blob := "https://github.com/etcd-io/etcd/blob/"
	data := strings.Join([]string{
		"# Notes",
		"",
		"<!-- srctrace: etcd v3.7.3 source=module -->",
		"",
		"The eviction is decided at `server/storage/mvcc/watcher_group.go:250` when `if w.minRev < compactRev {` holds.", // 5
		"",
		"The watch is accepted at [watch.go:361](" + blob + "v3.7.3/server/etcdserver/api/v3rpc/watch.go#L361).", // 7
		"",
		"The WAL lives in `wal.go`; a watcher is [here](server/storage/mvcc/watcher.go#L30-L40).", // 9
		"",
		"At a commit: " + blob + "a0a6f3b1c8e2d4f5a6b7c8d9e0f1a2b3c4d5e6f7/server/storage/mvcc/kvstore.go#L1.", // 11
		"",
	}, "\n")
	if err := os.WriteFile(notes, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(ctx, Options{Version: "v3.7.3", Files: []string{notes}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"5 server/storage/mvcc/watcher_group.go:250 drifted 255",
		"7 watch.go:361 ok", // the link's path, not five watch.go
		"7 " + blob + "v3.7.3/server/etcdserver/api/v3rpc/watch.go#L361 ok",
		"9 server/storage/mvcc/watcher.go#L30-L40 ok", // read, by the marker
		"11 " + blob + "a0a6f3b1c8e2d4f5a6b7c8d9e0f1a2b3c4d5e6f7/server/storage/mvcc/kvstore.go#L1 unresolved",
	}
	if diff := cmp.Diff(want, summaries(rep)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if m := rep.Citations[4].Message; !strings.Contains(m, "the module proxy serves releases, not commits") {
		t.Errorf("a commit: %s", m)
	}

	// A range carried with --to: end by end.
	rangeNotes := filepath.Join(dir, "range.md")
	if err := os.WriteFile(rangeNotes, []byte("hash(): "+blob+"v3.6.0/server/storage/mvcc/kvstore.go#L156-L162\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Run(ctx, Options{To: "v3.7.3", Files: []string{rangeNotes}})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Citations[0]; c.Status != "drifted" || c.Now != 157 || c.NowEnd != 173 {
		t.Errorf("range carried to v3.7.3: %s %d-%d, want drifted 157-173", c.Status, c.Now, c.NowEnd)
	}
}

// TestEtcdShiftedCitations: forty citations of v3.7.3 lines, each with
// the line's code quoted in its sentence but not beside it, under a
// marker that says v3.7.3: as written all are ok; shifted by three lines
// none is. The lines and their code are read from the release's files
// here, not from the checker.
func TestEtcdShiftedCitations(t *testing.T) {
	if testing.Short() {
		t.Skip("reads real etcd releases")
	}
	ctx := context.Background()
	tree, err := Open(ctx, source.Spec{Target: target.Etcd, Version: "v3.7.3", Modules: target.Etcd.Modules()})
	if err != nil {
		t.Fatal(err)
	}
	var right, shifted []string
	for _, rp := range []string{"server/storage/mvcc/watcher_group.go", "server/storage/mvcc/watchable_store.go", "server/storage/mvcc/kvstore.go",
		"server/storage/mvcc/kvstore_txn.go", "server/etcdserver/api/v3rpc/watch.go"} {
		data, err := os.ReadFile(tree.files[rp])
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for i, l := range lines {
			s := strings.TrimSpace(l)
			if len(right) == 40 || i+3 >= len(lines) {
				break
			}
			// A statement of a function with a name in it, whose code is
			// not also on the line three below.
			if !strings.HasPrefix(l, "\t") || strings.HasPrefix(s, "//") || strings.Contains(s, "`") || len(s) < 20 ||
				!(strings.Contains(s, ":=") || strings.HasPrefix(s, "if ")) || strings.Contains(lines[i+3], s) {
				continue
			}
			right = append(right, fmt.Sprintf("- At `%s:%d` the code `%s` runs.", rp, i+1, s))
			shifted = append(shifted, fmt.Sprintf("- At `%s:%d` the code `%s` runs.", rp, i+4, s))
		}
	}
	if len(right) != 40 {
		t.Fatalf("%d lines chosen", len(right))
	}
	head := "# Notes\n\n<!-- srctrace: etcd v3.7.3 source=module -->\n\n"
	for _, tc := range []struct {
		name  string
		lines []string
		ok    int
	}{{"as written", right, 40}, {"shifted by 3", shifted, 0}} {
		file := filepath.Join(t.TempDir(), "notes.md")
		if err := os.WriteFile(file, []byte(head+strings.Join(tc.lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Run(ctx, Options{Version: "v3.7.3", Files: []string{file}})
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Notes[0].Counts["ok"]; got != tc.ok || len(rep.Citations) != 40 {
			t.Errorf("%s: %d of %d ok, want %d", tc.name, got, len(rep.Citations), tc.ok)
			for _, c := range rep.Citations {
				if (c.Status == "ok") != (tc.ok == 40) {
					t.Logf("%s %s", summary(c), c.Message)
				}
			}
		}
	}
}

// TestCorpus: testdata/corpus/corpus.md holds citations of etcd code
// found in third-party text, and judgements.tsv what each line really
// holds, read by hand in etcd's history. Checked at etcd v3.7.1 from the
// module proxy (links at other refs are unresolved here: the release
// notes run them with a clone's history): no citation judged wrong is
// ok, and every citation judged right is ok or undecided, but for the one
// whose sentence quotes code two lines below it (c37).
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("reads real etcd releases")
	}
	ctx := context.Background()
	open := func(ctx context.Context, spec source.Spec) (*Tree, error) {
		if spec.Dir == "" && spec.Version != "v3.7.1" && spec.Version != "v3.7.0" {
			return nil, fmt.Errorf("etcd %s is not opened in this test", spec.Version)
		}
		return Open(ctx, spec)
	}
	file := filepath.Join("testdata", "corpus", "corpus.md")
	rep, err := Run(ctx, Options{Version: "v3.7.1", Files: []string{file}, open: open})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", "judgements.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	notes, _ := os.ReadFile(file)
	lines := strings.Split(string(notes), "\n")
	idRE := regexp.MustCompile(`\bc\d\d\b`)
	checked := 0
	for _, row := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(row, "#") || strings.HasPrefix(row, "id\t") {
			continue
		}
		f := strings.Split(row, "\t")
		id, cited, hand := f[0][:3], f[1], f[5]
		cited = strings.TrimPrefix(strings.TrimPrefix(cited, "sourcegraph "), "kubernetes/kubernetes ")
		var got []string
		for _, c := range rep.Citations {
			if idRE.FindString(lines[c.NotesLine-1]) == id && (strings.Contains(c.Citation, cited) || strings.HasSuffix(cited, c.Citation)) {
				got = append(got, c.Status)
			}
		}
		for _, st := range got {
			switch {
			case st == "unresolved" || st == "unanchored":
			case hand == "wrong" && st == "ok":
				t.Errorf("%s %s: ok, but judged wrong by hand (%s)", id, cited, f[4])
			case hand == "right" && st != "ok" && id != "c37":
				t.Errorf("%s %s: %s, but judged right by hand (%s)", id, cited, st, f[4])
			default:
				checked++
			}
		}
	}
	if checked < 14 {
		t.Errorf("only %d citations of the corpus were checked at v3.7.1", checked)
	}
}
