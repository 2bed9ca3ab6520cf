package cite

import (
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
		{"(`kvstore.go:214`), which `is not text`", []string{"bare kvstore.go 214 0 "}},
		{"at `a/b.go:12:5` (go)", []string{"path a/b.go 12 0 "}},
		{"https://github.com/etcd-io/etcd/blob/v3.7.3/server/storage/mvcc/kvstore.go#L214", []string{"github server/storage/mvcc/kvstore.go 214 0 "}},
		{"[x](https://github.com/etcd-io/etcd/blob/v3.6.0/a/b.go#L10-L20)", []string{"github a/b.go 10 20 "}},
		{"two: a.go:1, b/c.go:2", []string{"bare a.go 1 0 ", "path b/c.go 2 0 "}},
		{"no citation: v3.7.3 and etcd.io/x and 12:30 and a.go: and go.etcd.io/etcd/server/v3/storage/mvcc.ErrCompacted", nil},
		{"http://example.com/a.go:12 is a url", nil},
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
			if d := tc.line[c.LineAt[0]:c.LineAt[1]]; d != itoa(c.Line) {
				t.Errorf("%q: line digits at %v are %q", tc.line, c.LineAt, d)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.line, diff)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

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
			if c.LineAt[0] < c.Start || c.LineAt[1] > len(l) {
				t.Fatalf("line digits %v outside %q", c.LineAt, l)
			}
			_ = utf8.ValidString(c.Text)
		}
	})
}
