package annotate

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// textWidth is where the text renderer fills paragraphs and list items.
const textWidth = 80

// docText writes d as plain text for a terminal: underlined headings,
// paragraphs filled to 80 columns (never inside a word, so a path:line
// stays whole), code indented by four spaces with "> " on marked lines,
// tables aligned (one record per row when wider than 80 columns), and each
// diagram as its nodes with the arrows leaving them ("->" a call, "~>" a
// hand-off).
func docText(w io.Writer, d *report.Doc) error {
	t := &textDoc{w: bufio.NewWriter(w)}
	t.heading(d.Title, '=')
	if len(d.Lead) > 0 {
		t.blank()
		t.fill(plainText(d.Lead), "", "")
	}
	for _, s := range d.Sections {
		t.section(s, 1)
	}
	return t.w.Flush()
}

type textDoc struct {
	w *bufio.Writer
}

func (t *textDoc) line(s string) {
	t.w.WriteString(strings.TrimRight(s, " "))
	t.w.WriteByte('\n')
}

func (t *textDoc) blank() { t.w.WriteByte('\n') }

func (t *textDoc) heading(s string, under rune) {
	t.line(s)
	t.line(strings.Repeat(string(under), max(cells(s), 1)))
}

func (t *textDoc) section(s report.Section, depth int) {
	t.blank()
	under := '-'
	if depth > 1 {
		under = '~'
	}
	t.heading(s.Title, under)
	for _, b := range s.Blocks {
		t.blank()
		t.block(b)
	}
	for _, sub := range s.Sections {
		t.section(sub, depth+1)
	}
}

// fill writes s in lines of at most textWidth cells, breaking at spaces;
// the first line starts with first, the others with rest.
func (t *textDoc) fill(s, first, rest string) {
	for i, para := range strings.Split(s, "\n") {
		prefix := first
		if i > 0 {
			prefix = rest
		}
		line := prefix
		empty := true
		for _, word := range strings.Fields(para) {
			if !empty && cells(line)+1+cells(word) > textWidth {
				t.line(line)
				line, empty = rest, true
			}
			if empty {
				line += word
			} else {
				line += " " + word
			}
			empty = false
		}
		t.line(line)
	}
}

func (t *textDoc) block(b report.Block) {
	switch {
	case b.List != nil:
		for i, it := range b.List.Items {
			mark := "- "
			if b.List.Ordered {
				mark = fmt.Sprintf("%d. ", i+1)
			}
			t.fill(plainText(it), "  "+mark, strings.Repeat(" ", 2+len(mark)))
		}
	case b.Table != nil:
		t.table(b.Table)
	case b.Code != nil:
		for _, l := range b.Code.Lines {
			prefix := "    "
			if l.Mark {
				prefix = "  > "
			}
			t.line(prefix + l.Text)
		}
	case b.Diagram != nil:
		t.diagram(b.Diagram)
	case len(b.Terms) > 0:
		for _, term := range b.Terms {
			t.fill(term.Term+": "+plainText(term.Text), "  ", "      ")
		}
	default:
		t.fill(plainText(b.Para), "", "")
	}
}

func (t *textDoc) table(tb *report.Table) {
	var rows [][]string
	head := make([]string, len(tb.Head))
	for i, h := range tb.Head {
		head[i] = oneLine(plainText(h))
	}
	rows = append(rows, head)
	for _, r := range tb.Rows {
		row := make([]string, len(r))
		for i, c := range r {
			row[i] = oneLine(plainText(c.Text))
		}
		rows = append(rows, row)
	}
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i == len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], cells(c))
		}
	}
	if len(width) == 0 {
		return
	}
	total := 2 * len(width)
	for _, w := range width {
		total += w
	}
	if total > textWidth {
		// Too wide for a terminal: each row as a record.
		for _, r := range rows[1:] {
			for i, c := range r {
				switch {
				case i == 0:
					t.fill(c, "  - ", "    ")
				case i < len(head) && head[i] != "":
					t.fill(head[i]+": "+c, "      ", "        ")
				default:
					t.fill(c, "      ", "        ")
				}
			}
		}
		return
	}
	write := func(r []string) {
		var b strings.Builder
		b.WriteString("  ")
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-cells(c)))
			}
		}
		t.line(b.String())
	}
	write(rows[0])
	var rule []string
	for _, w := range width {
		rule = append(rule, strings.Repeat("-", w))
	}
	write(rule)
	for _, r := range rows[1:] {
		write(r)
	}
}

func (t *textDoc) diagram(g *report.Diagram) {
	if g.Title != "" {
		t.line("  " + g.Title + ":")
	}
	label := map[string]string{}
	for _, n := range g.Nodes {
		label[n.ID] = oneLine(n.Label)
	}
	for _, n := range g.Nodes {
		s := "  " + label[n.ID]
		if n.Loc != nil {
			s += " (" + locText(n.Loc) + ")"
		}
		if n.Class != "" {
			s += " [" + n.Class + "]"
		}
		t.line(s)
		for _, e := range g.Edges {
			if e.From != n.ID {
				continue
			}
			arrow := "->"
			if e.Style == "handoff" {
				arrow = "~>"
			}
			s := "      " + arrow + " " + label[e.To]
			if e.Label != "" {
				s += ": " + oneLine(e.Label)
			}
			t.line(s)
		}
	}
}
