package cite

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestParseForms(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string // form file line end text
	}{
		{"see server/storage/mvcc/kvstore.go:214 for it", []string{"path server/storage/mvcc/kvstore.go 214 0 "}},
		{"kvstore.go:188.", []string{"bare kvstore.go 188 0 "}},
		{"range watchable_store.go:120-130 here", []string{"bare watchable_store.go 120 130 "}},
		{"server/storage/mvcc/kvstore.go:214:\t\treturn ch, 0, ErrCompacted", []string{"grep server/storage/mvcc/kvstore.go 214 0 \t\treturn ch, 0, ErrCompacted"}},
		{"`kvstore.go:214` `return ch, 0, ErrCompacted`", []string{"bare kvstore.go 214 0 return ch, 0, ErrCompacted"}},
		{"kvstore.go:214: `return ch`", []string{"bare kvstore.go 214 0 return ch"}},
		{"kvstore.go:214 — `return ch`", []string{"bare kvstore.go 214 0 return ch"}},
		{"(`kvstore.go:214`), which `is not its text`", []string{"bare kvstore.go 214 0 "}},
		{"at `a/b.go:12:5` (go)", []string{"path a/b.go 12 0 "}},
		{"https://github.com/etcd-io/etcd/blob/v3.7.3/server/storage/mvcc/kvstore.go#L214", []string{"github server/storage/mvcc/kvstore.go 214 0 "}},
		{"[x](https://github.com/etcd-io/etcd/blob/v3.6.0/a/b.go#L10-L20)", []string{"github a/b.go 10 20 "}},
		{"two: a.go:1, b/c.go:2", []string{"bare a.go 1 0 ", "path b/c.go 2 0 "}},
		{"no citation: v3.7.3 and etcd.io/x and 12:30 and a.go: and go.etcd.io/etcd/server/v3/storage/mvcc.ErrCompacted", nil},
		{"http://example.com/a.go:12 is a url", nil},
		// Abbreviated paths, columns, grep lines at any indentation.
		{"rangeKeys (`…/kvstore_txn.go:72`)", []string{"path …/kvstore_txn.go 72 0 "}},
		{"at `server/etcdserver/server.go:1194:44`", []string{"path server/etcdserver/server.go 1194 0 "}},
		{"    server/storage/mvcc/kvstore.go:214:\t\treturn ch, 0, ErrCompacted", []string{"grep server/storage/mvcc/kvstore.go 214 0 \t\treturn ch, 0, ErrCompacted"}},
		{"\tserver/a.go:3: x := 1", []string{"grep server/a.go 3 0  x := 1"}},
		{"- server/a.go:3:\tx := 1", []string{"grep server/a.go 3 0 \tx := 1"}},
		{"> server/a.go:3:\tx := 1", []string{"grep server/a.go 3 0 \tx := 1"}},
		{"> - server/a.go:3:func f() {", []string{"grep server/a.go 3 0 func f() {"}},
		{"1. server/a.go:3:\tx := 1", []string{"grep server/a.go 3 0 \tx := 1"}},
		// In prose, "path:12: words" is a citation and its explanation,
		// "path:12:5" a column, not grep lines.
		{"server/a.go:3: the line", []string{"path server/a.go 3 0 "}},
		{"server/a.go:3:5: vet says", []string{"path server/a.go 3 0 "}},
		// Code before the citation, and beside it with "at".
		{"`rev < tr.s.compactMainRev` (server/storage/mvcc/kvstore_txn.go:80)", []string{"path server/storage/mvcc/kvstore_txn.go 80 0 rev < tr.s.compactMainRev"}},
		{"`x := 1` at `a/b.go:3`", []string{"path a/b.go 3 0 x := 1"}},
		// Code further away only confirms; names are not code text.
		{"the create response (`watch.go:334`) sets `Canceled: err != nil`", []string{"bare watch.go 334 0 "}},
		{"`mvcc.(*store).hashByRev` (`kvstore.go:177`)", []string{"symbol  0 0 ", "bare kvstore.go 177 0 "}},
		// A table row: each cell is a unit, \| is |.
		{"| `kvstore.go:175` | `a \\|\\| b` |", []string{"bare kvstore.go 175 0 "}},
		{"| `x \\| y` (`kvstore.go:175`) | z |", []string{"bare kvstore.go 175 0 x | y"}},
		// Symbols: qualified names in inline code.
		{"Sentinel: `go.etcd.io/etcd/server/v3/storage/mvcc.ErrCompacted`.", []string{"symbol  0 0 "}},
		{"`pkg.T.field` and `(*T).M` and `rangeKeys` and `w.minRev`", []string{"symbol  0 0 ", "symbol  0 0 "}},
		// A file name in backticks is a file, not a symbol.
		{"The WAL lives in `wal.go`, its messages in `raft.proto` and `README.md`.", nil},
		// Repository-relative links and paths with a line anchor.
		{"See [watcher](server/storage/mvcc/watcher.go#L40-L80).", []string{"relative server/storage/mvcc/watcher.go 40 80 "}},
		{"[w](../../server/storage/mvcc/watcher.go#L40)", []string{"relative ../../server/storage/mvcc/watcher.go 40 0 "}},
		{"// see server/etcdserver/server.go#L1234 for it", []string{"relative server/etcdserver/server.go 1234 0 "}},
		{"[watcher.go:40](server/storage/mvcc/watcher.go#L40)", []string{"bare watcher.go 40 0 ", "relative server/storage/mvcc/watcher.go 40 0 "}},
		// GitHub links with ?plain=1 and column anchors.
		{"https://github.com/etcd-io/etcd/blob/v3.7.3/server/x.go?plain=1#L12C3-L14C1", []string{"github server/x.go 12 14 "}},
		// Lines written out in prose.
		{"The check is on line 255 of server/storage/mvcc/watcher_group.go.", []string{"prose server/storage/mvcc/watcher_group.go 255 0 "}},
		{"lines 10-20 in `kvstore.go` hold it", []string{"prose kvstore.go 10 20 "}},
		{"see watcher_group.go, line 255, and kvstore.go line 214 (also kvstore.go (line 38))", []string{"prose watcher_group.go 255 0 ", "prose kvstore.go 214 0 ", "prose kvstore.go 38 0 "}},
		{"Line 12 of the README and etcd.io line 4 and kvstore.go lines are not citations; nor is kvstore.go.orig, line 3", nil},
	} {
		cs, ps := Parse([]byte(tc.line))
		if len(ps) > 0 {
			t.Errorf("%q: problems %v", tc.line, ps)
		}
		var got []string
		for _, c := range cs {
			got = append(got, strings.Join([]string{string(c.Form), c.File, itoa(c.Line), itoa(c.End), c.Text}, " "))
			if c.Raw != tc.line[c.Start:c.Stop] {
				t.Errorf("%q: raw %q is not line[%d:%d]", tc.line, c.Raw, c.Start, c.Stop)
			}
			if d := tc.line[c.LineAt[0]:c.LineAt[1]]; d != itoa(c.Line) && c.Form != Symbol {
				t.Errorf("%q: line digits at %v are %q", tc.line, c.LineAt, d)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.line, diff)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestEvidence: what each citation's unit gives it: own code, confirming
// code, names; sentences and code blocks are units.
func TestEvidence(t *testing.T) {
	notes := strings.Join([]string{
		"# Notes", // 1
		"",        // 2
		"The read fails at `rev < c` (`a/kv.go:17`), in rangeKeys. It is", // 3
		"not `other code` (`a/kv.go:30`): see `mvcc.(*store).hashByRev`.", // 4
		"",           // 5
		"```mermaid", // 6
		"  s7[\"mvcc.(*watcherGroup).chooseAll<br/>a/wg.go:251<br/>\"]", // 7
		"```",                                  // 8
		"| `a/kv.go:9` | `x \\|\\| y` | `f` |", // 9
		"- one `a` and `b`, then `a/kv.go:40`, then `c`.", // 10
	}, "\n")
	cs, ps := Parse([]byte(notes))
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	type ev struct {
		line           int
		file           string
		own, conf, nms string
	}
	var got []ev
	for _, c := range cs {
		if c.Form == Symbol {
			got = append(got, ev{c.NotesLine, "symbol " + c.Raw, "", "", ""})
			continue
		}
		var nms []string
		for _, n := range c.Names {
			nms = append(nms, n.Raw)
		}
		got = append(got, ev{c.NotesLine, c.File, strings.Join(c.Own(), ";"), strings.Join(c.Confirm(), ";"), strings.Join(nms, ";")})
	}
	want := []ev{
		{3, "a/kv.go", "rev < c", "", "rangeKeys"},
		{4, "a/kv.go", "other code", "mvcc.(*store).hashByRev", "mvcc.(*store).hashByRev"},
		{4, "symbol `mvcc.(*store).hashByRev`", "", "", ""},
		{7, "a/wg.go", "", "", "mvcc.(*watcherGroup).chooseAll"},
		{9, "a/kv.go", "", "x || y;f", "f"},
		{10, "a/kv.go", "", "a;b;c", "a;b;c"},
	}
	sortEv := func(e []ev) {
		sort.SliceStable(e, func(i, j int) bool {
			if e[i].line != e[j].line {
				return e[i].line < e[j].line
			}
			return e[i].file < e[j].file
		})
	}
	sortEv(got)
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(ev{})); diff != "" {
		t.Errorf("evidence (-want +got):\n%s", diff)
	}
}

func TestParseName(t *testing.T) {
	for in, want := range map[string]string{
		"mvcc.(*watcherGroup).chooseAll":        " mvcc/watcherGroup/chooseAll recv",
		"mvcc.(watcherGroup).chooseAll":         " mvcc/watcherGroup/chooseAll recv",
		"(*T).M":                                " T/M recv",
		"pkg.Func":                              " pkg/Func",
		"pkg.T.field":                           " pkg/T/field",
		"rangeKeys":                             " rangeKeys",
		"chooseAll()":                           " chooseAll",
		"v3rpc.(*serverWatchStream).sendLoop$1": " v3rpc/serverWatchStream/sendLoop recv",
		"go.etcd.io/etcd/server/v3/storage/mvcc.ErrCompacted": "go.etcd.io/etcd/server/v3/storage/mvcc ErrCompacted",
		"client/v3.(*watchGRPCStream).dispatchEvent":          "client/v3 watchGRPCStream/dispatchEvent recv",
		"return ch, 0, ErrCompacted":                          "no",
		"return":                                              "no",
		"a.(*T)":                                              "no",
		"(*T).M.N":                                            "no",
		"a..b":                                                "no",
		"x < y":                                               "no",
		"":                                                    "no",
	} {
		n, ok := ParseName(in)
		got := "no"
		if ok {
			got = n.Path + " " + strings.Join(n.Parts, "/")
			if n.Recv {
				got += " recv"
			}
		}
		if got != want {
			t.Errorf("ParseName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkers(t *testing.T) {
	m := NewMarker("etcd", "v3.7.3", "source", "module")
	if got := m.String(); got != "<!-- srctrace: etcd v3.7.3 source=module -->" {
		t.Fatalf("String = %q", got)
	}
	notes := "# T\n\n" + m.String() + "\n\ntext <!-- srctrace: etcd v1.0.0 --> inline is no marker\n  <!--srctrace: etcd v3.6.0-->\r\n"
	ms := Markers([]byte(notes))
	if len(ms) != 2 || ms[0].NotesLine != 3 || ms[0].Release != "v3.7.3" || ms[0].Attr("source") != "module" ||
		ms[1].NotesLine != 6 || ms[1].Release != "v3.6.0" || ms[1].Target != "etcd" {
		t.Fatalf("Markers = %+v", ms)
	}
	line3 := strings.Split(notes, "\n")[2]
	if got := line3[ms[0].ReleaseAt[0]:ms[0].ReleaseAt[1]]; got != "v3.7.3" {
		t.Errorf("ReleaseAt points at %q", got)
	}
	for n, want := range map[int]string{1: "v3.7.3", 3: "v3.7.3", 5: "v3.7.3", 6: "v3.6.0", 99: "v3.6.0"} {
		if m, ok := MarkerAt(ms, n); !ok || m.Release != want {
			t.Errorf("MarkerAt(%d) = %v %v, want %s", n, m.Release, ok, want)
		}
	}
	if _, ok := MarkerAt(nil, 1); ok {
		t.Error("MarkerAt of no markers")
	}
}

func TestParseBadInput(t *testing.T) {
	if _, ps := Parse([]byte("a\x00b kvstore.go:1")); len(ps) != 1 || !strings.Contains(ps[0].Msg, "binary") {
		t.Errorf("binary: %v", ps)
	}
	cs, ps := Parse([]byte("ok kvstore.go:1\n\xff\xfe bad kvstore.go:2\n"))
	if len(cs) != 2 || len(ps) != 1 || ps[0].NotesLine != 2 || !strings.Contains(ps[0].Msg, "UTF-8") {
		t.Errorf("invalid UTF-8: %v %v", cs, ps)
	}
	long := strings.Repeat("x", 1<<20) + " kvstore.go:7"
	cs, ps = Parse([]byte(long))
	if len(cs) != 1 || cs[0].Line != 7 || len(ps) != 0 {
		t.Errorf("1 MiB line: %d citations, %v", len(cs), ps)
	}
	cs, ps = Parse([]byte("a\n" + strings.Repeat("y", MaxLine+1) + "\nkvstore.go:3\n"))
	if len(cs) != 1 || len(ps) != 1 || ps[0].NotesLine != 2 {
		t.Errorf("too long a line: %v %v", cs, ps)
	}
	if _, ps := Parse(make([]byte, MaxFile+1)); len(ps) != 1 {
		t.Errorf("huge file: %v", ps)
	}
}

// FuzzParse: Parse never panics, and what it reports points into the line.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"server/storage/mvcc/kvstore.go:214 `return ch, 0, ErrCompacted`",
		"https://github.com/etcd-io/etcd/blob/v3.7.3/server/x.go#L1-L2",
		"a.go:1-2:3 `x` b/c.go:99999999999999999999",
		"\xff\xfe kvstore.go:1",
		"    server/a.go:3:\tx := 1\n> - server/a.go:3:func f() {\n1. server/a.go:3:\tx",
		"```\nserver/a.go:3: x\n```\n~~~~\n`a` (`a/b.go:1`)\n~~~",
		"| `kvstore.go:175` | `a \\|\\| b` |\n|x\\|",
		"rangeKeys (`…/kvstore_txn.go:72`) `mvcc.(*store).hashByRev` at `a/b.go:1:2`.",
		"`go.etcd.io/etcd/server/v3/storage/mvcc.ErrCompacted` `(*T).M$1()` ``a`b``",
		"<!-- srctrace: etcd v3.7.3 source=module -->\nkvstore.go:1",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cs, _ := Parse(data)
		lines := strings.Split(string(data), "\n")
		for _, c := range cs {
			if c.NotesLine < 1 || c.NotesLine > len(lines) {
				t.Fatalf("notes line %d of %d", c.NotesLine, len(lines))
			}
			l := strings.TrimSuffix(lines[c.NotesLine-1], "\r")
			if c.Start < 0 || c.Stop > len(l) || c.Start > c.Stop || l[c.Start:c.Stop] != c.Raw {
				t.Fatalf("span %d:%d of %q", c.Start, c.Stop, l)
			}
			for _, at := range [][2]int{c.LineAt, c.EndAt, c.ColAt, c.FileAt, c.RefAt} {
				if at != [2]int{} && (at[0] < c.Start || at[1] > c.Stop || at[0] > at[1]) {
					t.Fatalf("offsets %v outside %d:%d of %q", at, c.Start, c.Stop, l)
				}
			}
			for _, q := range c.Quotes {
				if q.NotesLine == 0 {
					continue
				}
				if q.NotesLine > len(lines) {
					t.Fatalf("quote on notes line %d of %d", q.NotesLine, len(lines))
				}
				ql := strings.TrimSuffix(lines[q.NotesLine-1], "\r")
				if q.From < 0 || q.To > len(ql) || q.From > q.To {
					t.Fatalf("quote %d:%d of %q", q.From, q.To, ql)
				}
				if got := ql[q.From:q.To]; got != q.Code && !(q.Cell && strings.ReplaceAll(got, `\|`, "|") == q.Code) {
					t.Fatalf("quote %q is %q in the notes", q.Code, got)
				}
			}
			if c.Form == Symbol && (c.Name == nil || len(c.Name.Parts) == 0) {
				t.Fatalf("symbol without a name: %+v", c)
			}
			_ = utf8.ValidString(c.Text)
		}
	})
}

// TestLinkText: the text of a Markdown link to a blob cites at the link's
// ref; other link text does not.
func TestLinkText(t *testing.T) {
	cs, _ := Parse([]byte("[kvstore.go:177](https://github.com/etcd-io/etcd/blob/v3.6.0/server/storage/mvcc/kvstore.go#L177) and [a.go:1](https://example.com/a) and b.go:2"))
	var got []string
	for _, c := range cs {
		got = append(got, fmt.Sprintf("%s %s:%d %s@%s", c.Form, c.File, c.Line, c.Repo, c.Ref))
	}
	want := []string{
		"bare kvstore.go:177 etcd-io/etcd@v3.6.0",
		"github server/storage/mvcc/kvstore.go:177 etcd-io/etcd@v3.6.0",
		"bare a.go:1 @",
		"bare b.go:2 @",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestQuotes: each quote knows where it is in the notes, so that --fix can
// rewrite it; the citations of a sentence or a table row share a unit.
func TestQuotes(t *testing.T) {
	notes := strings.Join([]string{
		"The read fails at `rev < c` (`a/kv.go:17`), and `x` is `y == 2` at", // 1
		"a/kv.go:30. Next `z = 1` at a/kv.go:31.",                            // 2
		"| `a/kv.go:9` | `x \\|\\| y` |",                                     // 3
		"a/kv.go:5:\treturn nil",                                             // 4
	}, "\n")
	lines := strings.Split(notes, "\n")
	cs, _ := Parse([]byte(notes))
	var got []string
	for _, c := range cs {
		var qs []string
		for _, q := range c.Quotes {
			at := "?"
			if q.NotesLine > 0 {
				at = lines[q.NotesLine-1][q.From:q.To]
			}
			qs = append(qs, fmt.Sprintf("%q=%q own=%v cell=%v grep=%v", q.Code, at, q.Own, q.Cell, q.Grep))
		}
		got = append(got, fmt.Sprintf("%d:%d u%d %s", c.NotesLine, c.Line, c.Unit, strings.Join(qs, "; ")))
	}
	want := []string{
		`1:17 u1 "rev < c"="rev < c" own=true cell=false grep=false; "x"="x" own=false cell=false grep=false; "y == 2"="y == 2" own=false cell=false grep=false`,
		`2:30 u1 "rev < c"="rev < c" own=false cell=false grep=false; "x"="x" own=false cell=false grep=false; "y == 2"="y == 2" own=true cell=false grep=false`,
		`2:31 u2 "z = 1"="z = 1" own=true cell=false grep=false`,
		`3:9 u3 "x || y"="x \\|\\| y" own=false cell=true grep=false`,
		`4:5 u4 "\treturn nil"="\treturn nil" own=true cell=false grep=true`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestLinkPath: the text of a link names the file the link's path names.
func TestLinkPath(t *testing.T) {
	cs, _ := Parse([]byte("[watch.go:361](https://github.com/etcd-io/etcd/blob/v3.7.3/server/etcdserver/api/v3rpc/watch.go#L361) and [w.go:4](../server/w.go#L4)"))
	var got []string
	for _, c := range cs {
		got = append(got, fmt.Sprintf("%s %s %s@%s", c.Form, c.File, c.LinkPath, c.Ref))
	}
	want := []string{
		"bare watch.go server/etcdserver/api/v3rpc/watch.go@v3.7.3",
		"github server/etcdserver/api/v3rpc/watch.go @v3.7.3",
		"bare w.go ../server/w.go@",
		"relative ../server/w.go @",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
