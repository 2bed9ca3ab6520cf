package annotate

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/target"
)

// DocFormats lists the formats RenderDoc writes, the default first.
var DocFormats = []string{"markdown", "html", "text"}

// RenderDoc writes d in format: "markdown" (or "md"), GitHub-flavoured;
// "html", one self-contained page with inline CSS and SVG diagrams, every
// citation a permalink at etcd.Ref; or "text", for a terminal. The output
// depends on nothing but its arguments: two runs are byte-identical.
//
// A Doc that cannot be rendered faithfully is an error: two sections with
// one ID, a reference to no section, an edge to no node.
func RenderDoc(w io.Writer, format string, d *report.Doc, etcd report.Etcd) error {
	if err := checkDoc(d); err != nil {
		return err
	}
	if d.Marker != "" && (!strings.HasPrefix(d.Marker, "<!--") || !strings.HasSuffix(d.Marker, "-->") || strings.Contains(d.Marker[4:len(d.Marker)-3], "--") || strings.Contains(d.Marker, "\n")) {
		return fmt.Errorf("rendering notes: the marker %q is not one HTML comment on one line", d.Marker)
	}
	switch format {
	case "markdown", "md":
		return docMarkdown(w, d)
	case "html":
		return docHTML(w, d, etcd)
	case "text":
		return docText(w, d)
	default:
		return fmt.Errorf("unknown format %q: want one of %s", format, strings.Join(DocFormats, ", "))
	}
}

// checkDoc finds what would render as a broken link or a wrong diagram.
func checkDoc(d *report.Doc) error {
	ids := map[string]bool{}
	var refs []string
	texts := func(ts ...report.Text) {
		for _, t := range ts {
			for _, s := range t {
				if s.Ref != "" {
					refs = append(refs, s.Ref)
				}
			}
		}
	}
	var walk func(ss []report.Section) error
	walk = func(ss []report.Section) error {
		for _, s := range ss {
			if s.ID == "" {
				return fmt.Errorf("rendering notes: section %q has no id: every section needs one, for its anchor", s.Title)
			}
			if !validID(s.ID) {
				return fmt.Errorf("rendering notes: section id %q: use letters, digits, '-', '_' and '.' only, so that it works as an anchor", s.ID)
			}
			if ids[s.ID] {
				return fmt.Errorf("rendering notes: two sections have the id %q: ids must be unique", s.ID)
			}
			ids[s.ID] = true
			for _, b := range s.Blocks {
				texts(b.Para)
				if b.List != nil {
					texts(b.List.Items...)
				}
				if b.Table != nil {
					texts(b.Table.Head...)
					for _, r := range b.Table.Rows {
						for _, c := range r {
							texts(c.Text)
						}
					}
				}
				for _, t := range b.Terms {
					texts(t.Text)
				}
				if b.Diagram != nil {
					if err := checkDiagram(b.Diagram); err != nil {
						return fmt.Errorf("rendering notes: section %q: %w", s.ID, err)
					}
				}
			}
			if err := walk(s.Sections); err != nil {
				return err
			}
		}
		return nil
	}
	texts(d.Lead)
	if err := walk(d.Sections); err != nil {
		return err
	}
	for _, r := range refs {
		if !ids[r] {
			return fmt.Errorf("rendering notes: a link refers to section %q, which the notes do not have", r)
		}
	}
	return nil
}

// validID is an anchor that needs no escaping in a URL or an attribute.
func validID(id string) bool {
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// checkDiagram finds edges to missing nodes, two nodes with one id and
// unknown edge styles.
func checkDiagram(g *report.Diagram) error {
	ids := map[string]bool{}
	for _, n := range g.Nodes {
		if ids[n.ID] {
			return fmt.Errorf("diagram %q has two nodes with the id %q", g.Title, n.ID)
		}
		ids[n.ID] = true
	}
	for _, e := range g.Edges {
		if !ids[e.From] || !ids[e.To] {
			return fmt.Errorf("diagram %q has an edge %s -> %s to a node it does not have", g.Title, e.From, e.To)
		}
		switch e.Style {
		case "", "call", "handoff":
		default:
			return fmt.Errorf("diagram %q: edge %s -> %s has style %q: want call or handoff", g.Title, e.From, e.To, e.Style)
		}
	}
	return nil
}

// locText is a citation as `srctrace check` reads it: path:line.
func locText(l *report.Loc) string { return l.File + ":" + strconv.Itoa(l.Line) }

// permalink is the GitHub address of l at its own ref (l.Ref), else at
// etcd.Ref, or "" without a ref; in its own repository (l.Repo), else in
// etcd.Repo.
func permalink(etcd report.Etcd, l *report.Loc) string {
	if l == nil {
		return ""
	}
	ref, repo := l.Ref, l.Repo
	if ref == "" {
		ref = etcd.Ref
	}
	if repo == "" {
		repo = etcd.Repo
	}
	if ref == "" || repo == "" || l.File == "" {
		return ""
	}
	t := target.Target{Repo: repo}
	return t.Permalink(ref, l.File, l.Line, 0)
}

// plainText is t without markup, citations as path:line (or their text).
func plainText(t report.Text) string {
	var b strings.Builder
	for _, s := range t {
		switch {
		case s.Loc != nil && s.Text != "":
			b.WriteString(s.Text + " (" + locText(s.Loc) + ")")
		case s.Loc != nil:
			b.WriteString(locText(s.Loc))
		default:
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

// cells is the width of s in a monospace font: wide runes take two cells,
// combining marks none.
func cells(s string) int {
	n := 0
	for _, r := range s {
		n += runeCells(r)
	}
	return n
}

func runeCells(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == '\u200b':
		return 0
	case r >= 0x1100 && (r <= 0x115f || r == 0x2329 || r == 0x232a ||
		(r >= 0x2e80 && r <= 0xa4cf && r != 0x303f) ||
		(r >= 0xac00 && r <= 0xd7a3) || (r >= 0xf900 && r <= 0xfaff) ||
		(r >= 0xfe30 && r <= 0xfe6f) || (r >= 0xff00 && r <= 0xff60) ||
		(r >= 0xffe0 && r <= 0xffe6) || (r >= 0x1f300 && r <= 0x1faff) ||
		(r >= 0x20000 && r <= 0x3fffd)):
		return 2
	}
	return 1
}

// wrap breaks s into lines of at most width cells: at spaces; a word
// longer than a line starts a line of its own and breaks after a '.', '/',
// ',' or ')', or before a '(', else anywhere. A newline always breaks.
func wrap(s string, width int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			for word != "" {
				room := width
				if line != "" {
					room = width - cells(line) - 1
				}
				switch {
				case cells(word) <= room && line == "":
					line, word = word, ""
				case cells(word) <= room:
					line, word = line+" "+word, ""
				case line != "":
					out, line = append(out, line), ""
				default:
					cut := breakAt(word, width)
					if cut == 0 { // a rune wider than a line
						_, cut = utf8.DecodeRuneInString(word)
					}
					out, word = append(out, word[:cut]), word[cut:]
				}
			}
		}
		if line != "" || len(out) == 0 {
			out = append(out, line)
		}
	}
	return out
}

// breakAt is the byte index at which to cut word so that its head fits in
// room cells: after the last good break that fits, else as far as fits;
// 0 when nothing fits.
func breakAt(word string, room int) int {
	if room <= 0 {
		return 0
	}
	best, hard, used := 0, 0, 0
	for i, r := range word {
		c := runeCells(r)
		if used+c > room {
			break
		}
		if r == '(' && i > 0 {
			best = i
		}
		used += c
		hard = i + utf8.RuneLen(r)
		if strings.ContainsRune("./,)", r) && hard < len(word) {
			best = hard
		}
	}
	if best > 0 {
		return best
	}
	return hard
}

// cssClass makes a class name of s: letters, digits, '-' and '_'.
func cssClass(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}
