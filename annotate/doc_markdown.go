package annotate

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// docMarkdown writes d as GitHub-flavoured Markdown.
//
// Sections are ## and ### headings, each with an <a id> anchor so that
// references ([text](#id)) work on GitHub and elsewhere. A citation is
// inline code holding path:line, as `srctrace check` reads it back; a
// citation with its own text is that text followed by the citation in
// parentheses. Code blocks are fenced and verbatim (git grep -n lines stay
// as they are); diagrams are mermaid flowcharts; a glossary is a list of
// bold terms.
func docMarkdown(w io.Writer, d *report.Doc) error {
	m := &mdDoc{w: bufio.NewWriter(w)}
	m.line("# " + mdInline(report.Text{report.Plain(d.Title)}, false))
	if d.Marker != "" {
		m.blank()
		m.line(d.Marker)
	}
	if len(d.Lead) > 0 {
		m.blank()
		m.line(mdParaStart(mdInline(d.Lead, false)))
	}
	for _, s := range d.Sections {
		m.section(s, 2)
	}
	return m.w.Flush()
}

type mdDoc struct {
	w *bufio.Writer
}

func (m *mdDoc) line(s string) {
	m.w.WriteString(s)
	m.w.WriteByte('\n')
}

func (m *mdDoc) blank() { m.w.WriteByte('\n') }

func (m *mdDoc) section(s report.Section, level int) {
	m.blank()
	m.line(strings.Repeat("#", min(level, 6)) + ` <a id="` + htmlAttr(s.ID) + `"></a>` + mdInline(report.Text{report.Plain(s.Title)}, false))
	for _, b := range s.Blocks {
		m.blank()
		m.block(b)
	}
	for _, sub := range s.Sections {
		m.section(sub, level+1)
	}
}

func (m *mdDoc) block(b report.Block) {
	switch {
	case b.List != nil:
		for i, it := range b.List.Items {
			mark := "-"
			if b.List.Ordered {
				mark = fmt.Sprintf("%d.", i+1)
			}
			m.line(mark + " " + oneLine(mdInline(it, false)))
		}
	case b.Table != nil:
		m.table(b.Table)
	case b.Code != nil:
		m.code(b.Code)
	case b.Diagram != nil:
		m.mermaid(b.Diagram)
	case len(b.Terms) > 0:
		for _, t := range b.Terms {
			m.line("- **" + mdEscapeText(t.Term) + "**: " + oneLine(mdInline(t.Text, false)))
		}
	default:
		m.line(mdParaStart(mdInline(b.Para, false)))
	}
}

func (m *mdDoc) table(t *report.Table) {
	n := len(t.Head)
	for _, r := range t.Rows {
		n = max(n, len(r))
	}
	if n == 0 {
		return
	}
	row := func(cells []string) {
		for len(cells) < n {
			cells = append(cells, "")
		}
		m.line("| " + strings.Join(cells, " | ") + " |")
	}
	var head []string
	for _, h := range t.Head {
		head = append(head, oneLine(mdInline(h, true)))
	}
	row(head)
	m.line("|" + strings.Repeat("---|", n))
	for _, r := range t.Rows {
		var cells []string
		for _, c := range r {
			cells = append(cells, oneLine(mdInline(c.Text, true)))
		}
		row(cells)
	}
}

func (m *mdDoc) code(c *report.Code) {
	fence := "```"
	for _, l := range c.Lines {
		for strings.Contains(l.Text, fence) {
			fence += "`"
		}
	}
	m.line(fence + c.Lang)
	for _, l := range c.Lines {
		m.line(l.Text)
	}
	m.line(fence)
}

// mermaid writes g as a flowchart: nodes n0, n1, ... in order (the model's
// ids may hold anything), labels quoted with mermaid's entities, solid
// arrows for calls and dotted ones for hand-offs, a class per node class.
func (m *mdDoc) mermaid(g *report.Diagram) {
	if g.Title != "" {
		m.line("**" + mdEscapeText(g.Title) + "**")
		m.blank()
	}
	m.line("```mermaid")
	m.line("flowchart TD")
	index := map[string]int{}
	classes := map[string][]string{}
	for i, n := range g.Nodes {
		index[n.ID] = i
		label := mermaidText(n.Label)
		if n.Loc != nil {
			label += "<br/>" + mermaidText(locText(n.Loc))
		}
		open, shut := "[", "]"
		switch n.Kind {
		case "entry":
			open, shut = "([", "])"
		case "decision":
			open, shut = "{{", "}}"
		}
		m.line(fmt.Sprintf("  n%d%s\"%s\"%s", i, open, label, shut))
		if n.Class != "" {
			c := mermaidClass(n.Class)
			classes[c] = append(classes[c], fmt.Sprintf("n%d", i))
		}
	}
	for _, e := range g.Edges {
		arrow := "-->"
		if e.Style == "handoff" {
			arrow = "-.->"
		}
		if e.Label != "" {
			arrow += `|"` + mermaidText(e.Label) + `"|`
		}
		m.line(fmt.Sprintf("  n%d %s n%d", index[e.From], arrow, index[e.To]))
	}
	names := make([]string, 0, len(classes))
	for c := range classes {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		m.line("  classDef " + c + " " + mermaidStyle(c))
		m.line("  class " + strings.Join(classes[c], ",") + " " + c)
	}
	m.line("```")
}

// mermaidStyle is the look of a node class in mermaid, the same colours as
// the HTML page.
func mermaidStyle(c string) string {
	switch c {
	case "ran":
		return "fill:#dcefe0,stroke:#1a7f37,color:#0b3d1a"
	case "not_ran":
		return "fill:#f2f2f2,stroke:#8c8c8c,color:#444,stroke-dasharray:4 3"
	case "differs":
		return "fill:#fff4d6,stroke:#9a6700,color:#5c3d00,stroke-width:2px"
	default:
		return "stroke-width:2px"
	}
}

func mermaidClass(s string) string { return strings.ReplaceAll(cssClass(s), "-", "_") }

// mermaidText makes s safe inside a quoted mermaid label.
func mermaidText(s string) string {
	r := strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "`", "#96;", "\n", "<br/>", "#", "#35;", "|", "#124;")
	return r.Replace(s)
}

// mdInline renders a text; in a table cell, pipes are escaped, also in
// code.
func mdInline(t report.Text, cell bool) string {
	var b strings.Builder
	for _, s := range t {
		var piece string
		switch {
		case s.Loc != nil && s.Text != "":
			piece = mdSpanText(s) + " (" + mdLoc(s.Loc) + ")"
		case s.Loc != nil:
			piece = mdLoc(s.Loc)
		case s.Ref != "":
			piece = "[" + mdSpanText(s) + "](#" + s.Ref + ")"
		default:
			piece = mdSpanText(s)
		}
		b.WriteString(piece)
	}
	out := b.String()
	if cell {
		out = strings.ReplaceAll(out, "|", `\|`)
	}
	return out
}

// mdLoc is a citation: file:line as code, and, for a file of another
// repository than the notes' (a consumer's module), a link to it at its
// tag, so that neither a reader nor srctrace check takes it for a file
// of the notes' release.
func mdLoc(l *report.Loc) string {
	if l.Repo == "" || l.Ref == "" {
		return mdCode(locText(l))
	}
	return "[" + mdCode(locText(l)) + "](" + permalink(report.Etcd{}, l) + ")"
}

// mdSpanText is the span's text as code, strong or plain.
func mdSpanText(s report.Span) string {
	switch {
	case s.Code:
		return mdCode(s.Text)
	case s.Strong:
		return "**" + mdEscapeText(s.Text) + "**"
	default:
		return mdEscapeText(s.Text)
	}
}

// mdCode is inline code: a fence longer than any run of backticks inside.
func mdCode(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdEscapeText escapes what GitHub would read as markup in plain text:
// backslashes, backticks, asterisks, brackets, '<' and '_' where it could
// start or end emphasis (not inside a word, so file_name.go:12 stays a
// citation that `srctrace check` reads).
func mdEscapeText(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch r {
		case '\\', '`', '*', '[', ']':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '<':
			b.WriteString("&lt;")
		case '_':
			inWord := i > 0 && i < len(rs)-1 && isWordRune(rs[i-1]) && isWordRune(rs[i+1])
			if !inWord {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f
}

// mdParaStart escapes what would make a paragraph a heading, a quote, a
// list or a rule: a leading '#', '>', '-', '+', '=' or "1." / "1)".
func mdParaStart(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '#', '>', '-', '+', '=':
		return `\` + s
	}
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 && i < len(s) && (s[i] == '.' || s[i] == ')') {
		return s[:i] + `\` + s[i:]
	}
	return s
}

// oneLine keeps a list item or a table cell on one line.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// htmlAttr escapes s for a double-quoted HTML attribute.
func htmlAttr(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;").Replace(s)
}
