package annotate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace/cite"
	"github.com/srctrace/srctrace/trace/report"
)

// sampleEtcd is the release the sample notes cite.
var sampleEtcd = report.Etcd{Version: "v3.7.3", Repo: "etcd-io/etcd", Ref: "v3.7.3"}

func loadDoc(t testing.TB, path string) *report.Doc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var d report.Doc
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &d
}

// Documents in testdata/doc/*.json render to the golden .md, .html and
// .txt beside them (go test ./annotate -update rewrites them).
func TestDocGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "doc", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no stored documents: %v", err)
	}
	for _, in := range inputs {
		d := loadDoc(t, in)
		for _, f := range []struct{ format, ext string }{{"markdown", ".md"}, {"html", ".html"}, {"text", ".txt"}} {
			t.Run(filepath.Base(in)+"/"+f.format, func(t *testing.T) {
				var got bytes.Buffer
				if err := RenderDoc(&got, f.format, d, sampleEtcd); err != nil {
					t.Fatal(err)
				}
				var again bytes.Buffer
				if err := RenderDoc(&again, f.format, d, sampleEtcd); err != nil {
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

// docCitations lists every citation of d, in order: spans, code lines and
// diagram nodes with a Loc.
func docCitations(d *report.Doc) (spans, lines, nodes []report.Loc) {
	return docCitationsOf(d, func(*report.Code) bool { return true })
}

// docCitationsOf is docCitations with the code lines of the blocks that
// keep says.
func docCitationsOf(d *report.Doc, keep func(*report.Code) bool) (spans, lines, nodes []report.Loc) {
	text := func(ts ...report.Text) {
		for _, t := range ts {
			for _, s := range t {
				if s.Loc != nil {
					spans = append(spans, *s.Loc)
				}
			}
		}
	}
	var walk func([]report.Section)
	walk = func(ss []report.Section) {
		for _, s := range ss {
			for _, b := range s.Blocks {
				text(b.Para)
				if b.List != nil {
					text(b.List.Items...)
				}
				if b.Table != nil {
					text(b.Table.Head...)
					for _, r := range b.Table.Rows {
						for _, c := range r {
							text(c.Text)
						}
					}
				}
				for _, tm := range b.Terms {
					text(tm.Text)
				}
				if b.Code != nil && keep(b.Code) {
					for _, l := range b.Code.Lines {
						if l.Loc != nil {
							lines = append(lines, *l.Loc)
						}
					}
				}
				if b.Diagram != nil {
					for _, n := range b.Diagram.Nodes {
						if n.Loc != nil {
							nodes = append(nodes, *n.Loc)
						}
					}
				}
			}
			walk(s.Sections)
		}
	}
	text(d.Lead)
	walk(d.Sections)
	return spans, lines, nodes
}

// Every citation of the Markdown is one that srctrace check reads back as
// path:line, at the line the Doc gives: spans and grep lines, and the
// nodes of the mermaid diagrams.
func TestDocMarkdownCitationsCheck(t *testing.T) {
	d := loadDoc(t, filepath.Join("testdata", "doc", "notes.json"))
	var md bytes.Buffer
	if err := RenderDoc(&md, "markdown", d, sampleEtcd); err != nil {
		t.Fatal(err)
	}
	// Code lines are citations in Markdown where they are grep output
	// (path:line:text); a Go excerpt stays plain Go.
	spans, grep, nodes := docCitationsOf(d, func(c *report.Code) bool { return c.Lang != "go" })
	want := map[string]int{}
	texts := map[string]string{}
	for _, l := range append(append(spans, grep...), nodes...) {
		want[locText(&l)]++
		if l.Text != "" {
			texts[locText(&l)] = l.Text
		}
	}
	cs, ps := cite.Parse(md.Bytes())
	if len(ps) > 0 {
		t.Fatalf("problems: %v", ps)
	}
	got := map[string]int{}
	for _, c := range cs {
		if c.Form == cite.Symbol {
			continue // a name in code (`pkg.Func`), checked to exist, not a line
		}
		if c.Form == cite.Bare {
			t.Errorf("line %d: bare citation %s", c.NotesLine, c.Raw)
		}
		got[fmt.Sprintf("%s:%d", c.File, c.Line)]++
		// A citation beside inline code claims that code is on the line;
		// where the sample says what the line holds, it must be that.
		if want, ok := texts[fmt.Sprintf("%s:%d", c.File, c.Line)]; ok && c.Text != "" && c.Form != cite.Grep && !strings.Contains(want, c.Text) {
			t.Errorf("line %d: %s is followed by code %q, which check would look for on the line", c.NotesLine, c.Raw, c.Text)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("citations (-doc +markdown):\n%s", diff)
	}
}

// The HTML links every citation to its permalink; without a ref it links
// none and still shows each path:line.
func TestDocHTMLLinks(t *testing.T) {
	d := loadDoc(t, filepath.Join("testdata", "doc", "notes.json"))
	spans, lines, nodes := docCitations(d)
	var page bytes.Buffer
	if err := RenderDoc(&page, "html", d, sampleEtcd); err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`href="https://github.com/etcd-io/etcd/blob/v3\.7\.3/[^"#]+#L\d+"`).FindAllString(page.String(), -1)
	if want := len(spans) + len(lines) + len(nodes); len(links) != want {
		t.Errorf("%d permalinks, want %d (%d citations, %d code lines, %d nodes)", len(links), want, len(spans), len(lines), len(nodes))
	}
	for _, bad := range []string{"<script", "@import", "url(http", `src="http`, "@font-face"} {
		if strings.Contains(page.String(), bad) {
			t.Errorf("the page holds %q", bad)
		}
	}

	page.Reset()
	if err := RenderDoc(&page, "html", d, report.Etcd{Repo: "etcd-io/etcd"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), "https://github.com/") {
		t.Error("a page without a ref links to GitHub")
	}
	for _, l := range spans {
		if !strings.Contains(page.String(), locText(&l)) {
			t.Errorf("without a ref, %s is not shown", locText(&l))
		}
	}
}

func TestDocHTMLEscapes(t *testing.T) {
	d := &report.Doc{Title: `<b>&"`, Sections: []report.Section{{ID: "s", Title: "<i>", Blocks: []report.Block{
		{Para: report.Text{report.Plain("<script>alert(1)</script>"), report.CodeSpan("a < b && c")}},
		{Code: &report.Code{Lang: "go", Lines: []report.CodeLine{{Text: `s := "</pre><script>"`}}}},
		{Diagram: &report.Diagram{Nodes: []report.Node{{ID: "a", Label: "<svg onload=x>"}, {ID: "b", Label: `"q" & 'a'`}}, Edges: []report.Edge{{From: "a", To: "b", Label: "</text>"}}}},
	}}}}
	var page bytes.Buffer
	if err := RenderDoc(&page, "html", d, sampleEtcd); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<b>&", "<script>", "<i>", "<svg onload", "</text></text>", `"</pre>`} {
		if strings.Contains(page.String(), bad) {
			t.Errorf("unescaped %q in the page", bad)
		}
	}
}

func TestDocMarkdownEscapes(t *testing.T) {
	loc := &report.Loc{File: "server/storage/mvcc/watcher_group.go", Line: 255}
	for _, tc := range []struct {
		name string
		text report.Text
		cell bool
		want string
	}{
		{"citation", report.Text{{Loc: loc}}, false, "`server/storage/mvcc/watcher_group.go:255`"},
		{"citation with text", report.Text{{Loc: loc, Text: "w.minRev < compactRev", Code: true}}, false, "`w.minRev < compactRev` (`server/storage/mvcc/watcher_group.go:255`)"},
		{"ref", report.Text{report.RefSpan("the way", "way")}, false, "[the way](#way)"},
		{"markup in plain text", report.Text{report.Plain(`a*b [x] <y> \ _z_ snake_case`)}, false, `a\*b \[x\] &lt;y> \\ \_z\_ snake_case`},
		{"backticks in code", report.Text{report.CodeSpan("a`b")}, false, "``a`b``"},
		{"leading backtick", report.Text{report.CodeSpan("`x")}, false, "`` `x ``"},
		{"pipe in a cell", report.Text{report.CodeSpan("a || b"), report.Plain(" | c")}, true, "`a \\|\\| b` \\| c"},
		{"strong", report.Text{report.StrongSpan("no")}, false, "**no**"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mdInline(tc.text, tc.cell); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestDocMarkdownBlocks(t *testing.T) {
	d := &report.Doc{Title: "T", Sections: []report.Section{{ID: "s", Title: "S", Blocks: []report.Block{
		{Table: &report.Table{Head: []report.Text{{report.Plain("a")}, {report.Plain("b")}}, Rows: [][]report.Cell{{{Text: report.Text{report.Plain("x\ny")}}}}}},
		{Code: &report.Code{Lang: "text", Lines: []report.CodeLine{{Text: "```"}}}},
		{Diagram: &report.Diagram{Nodes: []report.Node{{ID: "a b", Label: `say "hi" <now>`, Class: "not-ran"}, {ID: "c", Label: "c"}}, Edges: []report.Edge{{From: "a b", To: "c", Style: "handoff", Label: "x|y"}}}},
		{Para: report.Text{report.Plain("# not a heading")}},
		{Para: report.Text{report.Plain("1. not a list")}},
	}}}}
	var md bytes.Buffer
	if err := RenderDoc(&md, "md", d, report.Etcd{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## <a id=\"s\"></a>S\n",
		"| a | b |\n|---|---|\n| x y |  |\n",
		"````text\n```\n````\n",
		"  n0[\"say #quot;hi#quot; #lt;now#gt;\"]\n",
		"  n0 -.->|\"x#124;y\"| n1\n",
		"  class n0 not_ran\n",
		"\n\\# not a heading\n",
		"\n1\\. not a list\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("missing %q in\n%s", want, md.String())
		}
	}
}

func TestDocErrors(t *testing.T) {
	sec := func(id string, b ...report.Block) report.Section { return report.Section{ID: id, Title: id, Blocks: b} }
	for _, tc := range []struct {
		name string
		doc  report.Doc
		want string
	}{
		{"duplicate id", report.Doc{Sections: []report.Section{sec("a"), sec("a")}}, `two sections have the id "a"`},
		{"no id", report.Doc{Sections: []report.Section{sec("")}}, "has no id"},
		{"bad id", report.Doc{Sections: []report.Section{sec("a b")}}, "letters, digits"},
		{"dangling ref", report.Doc{Sections: []report.Section{sec("a", report.Block{Para: report.Text{report.RefSpan("x", "nowhere")}})}}, `section "nowhere"`},
		{"edge to no node", report.Doc{Sections: []report.Section{sec("a", report.Block{Diagram: &report.Diagram{Nodes: []report.Node{{ID: "n"}}, Edges: []report.Edge{{From: "n", To: "m"}}}})}}, "to a node it does not have"},
		{"bad style", report.Doc{Sections: []report.Section{sec("a", report.Block{Diagram: &report.Diagram{Nodes: []report.Node{{ID: "n"}}, Edges: []report.Edge{{From: "n", To: "n", Style: "dotted"}}}})}}, `style "dotted"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := RenderDoc(new(bytes.Buffer), "markdown", &tc.doc, report.Etcd{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
	if err := RenderDoc(new(bytes.Buffer), "pdf", &report.Doc{}, report.Etcd{}); err == nil || !strings.Contains(err.Error(), "markdown, html, text") {
		t.Errorf("unknown format: err = %v", err)
	}
}

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  []string
	}{
		{"", 10, []string{""}},
		{"a b c", 10, []string{"a b c"}},
		{"alpha beta gamma", 10, []string{"alpha beta", "gamma"}},
		{"v3rpc.(*serverWatchStream).recvLoop", 20, []string{"v3rpc.", "(*serverWatchStream)", ".recvLoop"}},
		{"server/storage/mvcc/watcher_group.go:255", 24, []string{"server/storage/mvcc/", "watcher_group.go:255"}},
		{"one\ntwo", 10, []string{"one", "two"}},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"日本語", 3, []string{"日", "本", "語"}},
	} {
		got := wrap(tc.in, tc.width)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("wrap(%q, %d) (-want +got):\n%s", tc.in, tc.width, diff)
		}
		for _, l := range got {
			if cells(l) > tc.width {
				t.Errorf("wrap(%q, %d): %q is wider", tc.in, tc.width, l)
			}
		}
	}
}

func TestLayoutSample(t *testing.T) {
	d := loadDoc(t, filepath.Join("testdata", "doc", "notes.json"))
	g := d.Sections[1].Blocks[1].Diagram
	v := diagramView(g, 1, sampleEtcd)
	if len(v.Nodes) != len(g.Nodes) || len(v.Edges) != len(g.Edges) {
		t.Fatalf("%d nodes, %d edges", len(v.Nodes), len(v.Edges))
	}
	// The second root sits right above its join, not in the first layer.
	ids := map[string]int{}
	sizes := make([]laySize, len(g.Nodes))
	for i, n := range g.Nodes {
		ids[n.ID] = i
		sizes[i] = laySize{W: 100, H: 30}
	}
	var edges []layEdge
	for _, e := range g.Edges {
		edges = append(edges, layEdge{From: ids[e.From], To: ids[e.To]})
	}
	r := layered(sizes, edges)
	checkLayout(t, "sample", sizes, edges, r)
	root, join := r.Nodes[ids["sync-loop"]], r.Nodes[ids["choose"]]
	if gap := join.Y - root.Y; gap > 3*(30+layLayerGap) {
		t.Errorf("the second root is %v above its join", gap)
	}
}

func BenchmarkRenderDoc(b *testing.B) {
	d := loadDoc(b, filepath.Join("testdata", "doc", "notes.json"))
	for _, format := range DocFormats {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				if err := RenderDoc(io.Discard, format, d, sampleEtcd); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
