package annotate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace/report"
)

func loadDrift(t *testing.T, path string) (*report.Drift, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d report.Drift
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &d, data
}

// Drifts stored in testdata/drift/*.json render to the golden .md, .html
// and .txt beside them (go test ./annotate -update rewrites them); their
// JSON is the stored file, byte for byte. errcompacted-*.json is the
// output of `srctrace errcompacted --etcd-version v3.6.0,v3.7.1,v3.7.3
// --drift --format json`; statuses.json is written by hand to show every
// change, a release without a module and a release without a ref.
func TestDriftGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "drift", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no stored drifts: %v", err)
	}
	for _, in := range inputs {
		d, data := loadDrift(t, in)
		t.Run(filepath.Base(in)+"/json", func(t *testing.T) {
			var got bytes.Buffer
			if err := Render(&got, "json", Output{Data: d}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(data), got.String()); diff != "" {
				t.Errorf("json read back (-stored +rendered):\n%s", diff)
			}
		})
		for _, f := range []struct{ format, ext string }{{"markdown", ".md"}, {"html", ".html"}, {"text", ".txt"}} {
			t.Run(filepath.Base(in)+"/"+f.format, func(t *testing.T) {
				var got, again bytes.Buffer
				if err := renderDrift(&got, f.format, d); err != nil {
					t.Fatal(err)
				}
				if err := renderDrift(&again, f.format, d); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got.Bytes(), again.Bytes()) {
					t.Fatal("two renderings differ")
				}
				golden := strings.TrimSuffix(in, ".json") + f.ext
				if *update {
					if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(string(want), got.String()); diff != "" {
					t.Errorf("%s (-want +got):\n%s", f.format, diff)
				}
			})
		}
	}
}

// TestDriftDoc: the grouped spans, their words and their links.
func TestDriftDoc(t *testing.T) {
	d, _ := loadDrift(t, filepath.Join("testdata", "drift", "statuses.json"))
	doc := DriftDoc(d)
	cells := map[string]string{} // first cell -> third, as plain text
	var links []string
	for _, s := range doc.Sections {
		for _, b := range s.Blocks {
			if b.Table == nil || len(b.Table.Head) != 3 {
				continue
			}
			for _, r := range b.Table.Rows {
				cells[plainText(r[0].Text)] = plainText(r[1].Text) + " | " + plainText(r[2].Text)
				for _, sp := range r[2].Text {
					if sp.Loc != nil {
						links = append(links, permalink(report.Etcd{Repo: d.Repo}, sp.Loc))
					}
				}
			}
		}
	}
	for what, want := range map[string]string{
		"mvcc.(*watchableStore).syncWatchers: write of mvcc.watcher.minRev":                                        "changed | server/storage/mvcc/watchable_store.go:370 in v3.6.0–v3.6.2: w.minRev = curRev + 1; server/storage/mvcc/watchable_store.go:374 in v3.7.0: w.minRev = max(curRev+1, w.minRev)",
		"mvcc.(*store).back: return return nil, ErrCompacted":                                                      "returned | server/storage/mvcc/kvstore.go:10 in v3.6.0; not there in v3.6.1; server/storage/mvcc/kvstore.go:10 in v3.6.2; server/storage/mvcc/kvstore.go:12 in v3.7.0",
		"mvcc.(*store).gone: return return ErrCompacted":                                                           "vanished | server/storage/mvcc/kvstore.go:20 in v3.6.0–v3.6.1; not there from v3.6.2",
		`command.printWatchCh: watch: stderr line fmt.Fprintf(os.Stderr, "watch was canceled (%v)\n", resp.Err())`: "moved | etcdctl/ctlv3/command/watch_command.go:168 in v3.6.0; not known in v3.6.1; etcdctl/ctlv3/command/watch_command.go:168 in v3.6.2; etcdctl/ctlv3/command/watch_command.go:169 in v3.7.0",
		`definition ErrCompacted = errors.New("mvcc: required revision has been compacted")`:                       "same | server/storage/mvcc/kvstore.go:38 in every release",
	} {
		if got := cells[what]; got != want {
			t.Errorf("%s:\n got %s\nwant %s", what, got, want)
		}
	}
	// Each place links the tag of its span's first release; v3.6.2 has
	// none, so its places are not links.
	for _, want := range []string{
		"https://github.com/etcd-io/etcd/blob/v3.6.0/server/storage/mvcc/watchable_store.go#L370",
		"https://github.com/etcd-io/etcd/blob/v3.7.0/server/storage/mvcc/watchable_store.go#L374",
		"",
	} {
		found := false
		for _, l := range links {
			found = found || l == want
		}
		if !found {
			t.Errorf("no link %q among %v", want, links)
		}
	}
}

// renderDrift renders a drift as srctrace errcompacted --drift does.
func renderDrift(w *bytes.Buffer, format string, d *report.Drift) error {
	return Render(w, format, Output{Data: d, Doc: DriftDoc(d), Etcd: report.Etcd{Repo: d.Repo}})
}
