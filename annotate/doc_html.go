package annotate

import (
	_ "embed"
	"html/template"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/srctrace/srctrace/trace/report"
)

// The HTML page is one file: its CSS inline (doc_html.css and the
// highlighting's stylesheet), its diagrams inline SVG, no fonts, nothing
// that loads from the network, and no script but the search box's, inline
// (doc_search.js, with its style doc_search.css), when the document has
// one (Doc.Search). Every citation, every code
// line with a Loc and every diagram node with a Loc links to its GitHub
// permalink at the release's ref; without a ref they are plain text.
// Appendix sections are <details>, closed on screen and open in print.

//go:embed doc_html.tmpl
var htmlTemplateText string

//go:embed doc_html.css
var htmlCSS string

//go:embed doc_search.js
var searchJS string

//go:embed doc_search.css
var searchCSS string

// htmlTemplate is parsed on first use, not at init.
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Funcs(template.FuncMap{
		"loc": locText,
	}).Parse(htmlTemplateText))
})

type htmlPage struct {
	Title    string
	Marker   template.HTML
	Lead     []htmlSpan
	CSS      template.CSS
	TOC      []htmlTOC
	Sections []htmlSection
	// Search is the search box's label, Script its script (see
	// report.Doc.Search).
	Search string
	Script template.JS
}

type htmlTOC struct {
	ID, Title string
	Appendix  bool
	Sub       []htmlTOC
}

type htmlSection struct {
	ID, Title string
	Level     int
	Appendix  bool
	Blocks    []htmlBlock
	Sections  []htmlSection
}

type htmlBlock struct {
	Para    []htmlSpan
	List    *htmlList
	Table   *htmlTable
	Code    *htmlCode
	Diagram *svgView
	Terms   []htmlTerm
}

type htmlList struct {
	Ordered bool
	Items   [][]htmlSpan
}

type htmlTable struct {
	Head [][]htmlSpan
	Rows [][]htmlCell
}

type htmlCell struct {
	Class string
	Text  []htmlSpan
}

type htmlTerm struct {
	Term string
	Text []htmlSpan
}

// htmlSpan is a span with its link resolved: URL is a permalink for a
// citation, "#id" for a reference.
type htmlSpan struct {
	Text         string
	Code, Strong bool
	Cite         string // path:line of a citation
	URL          string
}

type htmlCode struct {
	Lang   string
	Gutter bool // lines show their line numbers
	Lines  []htmlLine
}

type htmlLine struct {
	Mark bool
	// Num is the line number in the gutter, URL its link.
	Num, URL string
	// Prefix is the line's own path:line (git grep -n output), linked to
	// URL; Text the rest; HTML the highlighted line instead of Text.
	Prefix, Text string
	HTML         template.HTML
}

// docHTML writes d as one self-contained HTML page.
func docHTML(w io.Writer, d *report.Doc, etcd report.Etcd) error {
	h := &htmlDoc{etcd: etcd}
	p := htmlPage{
		Title:  d.Title,
		Marker: template.HTML(d.Marker), // checked to be one HTML comment
		Lead:   h.spans(d.Lead),
		CSS:    template.CSS(htmlCSS + "\n/* Go code: chroma */\n" + highlightCSS()),
		Search: d.Search,
	}
	if d.Search != "" {
		p.Script = template.JS(searchJS)
		p.CSS += template.CSS("\n" + searchCSS)
	}
	for _, s := range d.Sections {
		p.Sections = append(p.Sections, h.section(s, 2))
		t := htmlTOC{ID: s.ID, Title: s.Title, Appendix: s.Appendix}
		for _, sub := range s.Sections {
			t.Sub = append(t.Sub, htmlTOC{ID: sub.ID, Title: sub.Title, Appendix: sub.Appendix})
		}
		p.TOC = append(p.TOC, t)
	}
	return htmlTemplate().Execute(w, p)
}

type htmlDoc struct {
	etcd     report.Etcd
	diagrams int
}

func (h *htmlDoc) section(s report.Section, level int) htmlSection {
	out := htmlSection{ID: s.ID, Title: s.Title, Level: min(level, 6), Appendix: s.Appendix}
	for _, b := range s.Blocks {
		out.Blocks = append(out.Blocks, h.block(b))
	}
	for _, sub := range s.Sections {
		out.Sections = append(out.Sections, h.section(sub, level+1))
	}
	return out
}

func (h *htmlDoc) block(b report.Block) htmlBlock {
	switch {
	case b.List != nil:
		l := &htmlList{Ordered: b.List.Ordered}
		for _, it := range b.List.Items {
			l.Items = append(l.Items, h.spans(it))
		}
		return htmlBlock{List: l}
	case b.Table != nil:
		t := &htmlTable{}
		for _, c := range b.Table.Head {
			t.Head = append(t.Head, h.spans(c))
		}
		for _, r := range b.Table.Rows {
			var row []htmlCell
			for _, c := range r {
				row = append(row, htmlCell{Class: cssClass(c.Class), Text: h.spans(c.Text)})
			}
			t.Rows = append(t.Rows, row)
		}
		return htmlBlock{Table: t}
	case b.Code != nil:
		return htmlBlock{Code: h.code(b.Code)}
	case b.Diagram != nil:
		h.diagrams++
		return htmlBlock{Diagram: diagramView(b.Diagram, h.diagrams, h.etcd)}
	case len(b.Terms) > 0:
		var ts []htmlTerm
		for _, t := range b.Terms {
			ts = append(ts, htmlTerm{Term: t.Term, Text: h.spans(t.Text)})
		}
		return htmlBlock{Terms: ts}
	default:
		return htmlBlock{Para: h.spans(b.Para)}
	}
}

func (h *htmlDoc) spans(t report.Text) []htmlSpan {
	var out []htmlSpan
	for _, s := range t {
		hs := htmlSpan{Text: s.Text, Code: s.Code, Strong: s.Strong}
		switch {
		case s.Loc != nil:
			hs.Cite = locText(s.Loc)
			hs.URL = permalink(h.etcd, s.Loc)
		case s.Ref != "":
			hs.URL = "#" + s.Ref
		}
		out = append(out, hs)
	}
	return out
}

// code resolves a code block's links: a line that starts with its own
// path:line (git grep -n) links that; other lines with a Loc show their
// line number in a gutter, linked.
func (h *htmlDoc) code(c *report.Code) *htmlCode {
	out := &htmlCode{Lang: cssClass(c.Lang)}
	for _, l := range c.Lines {
		if l.Loc != nil && !strings.HasPrefix(l.Text, locText(l.Loc)) {
			out.Gutter = true
		}
	}
	var colour []template.HTML
	if c.Lang == "go" {
		texts := make([]string, len(c.Lines))
		for i, l := range c.Lines {
			texts[i] = l.Text
		}
		colour = highlightGo(texts)
	}
	for i, l := range c.Lines {
		line := htmlLine{Mark: l.Mark, Text: l.Text}
		if l.Loc != nil {
			url := permalink(h.etcd, l.Loc)
			if p := locText(l.Loc); strings.HasPrefix(l.Text, p) {
				line.Prefix, line.Text, line.URL = p, l.Text[len(p):], url
			} else {
				line.Num, line.URL = strconv.Itoa(l.Loc.Line), url
			}
		}
		if out.Gutter && line.Num == "" {
			line.Num = " "
		}
		if colour != nil && line.Prefix == "" {
			line.HTML = colour[i]
		}
		out.Lines = append(out.Lines, line)
	}
	return out
}
