// Package cite finds the citations of source code in study notes
// (Markdown, plain text, code blocks) and, for each, what the notes say
// around it that could confirm it.
//
// # Forms
//
//   - path/to/file.go:123 and file.go:123 (a bare name), ranges
//     file.go:120-130, a column file.go:123:5, and an abbreviated path
//     …/file.go:123;
//   - git grep -n output, path/file.go:123:<source text>, at the start of a
//     line at any indentation: in fenced and indented code blocks, list
//     items and blockquotes (in prose, the text must start with a tab or
//     directly after the colon, so that a path, a colon and `code` in prose
//     stays a path);
//   - GitHub links https://github.com/<owner>/<repo>/blob/<ref>/path#L123
//     and #L120-L130 (the text of a Markdown link to one, [file.go:123](...),
//     cites it at the link's ref);
//   - symbols written as inline code: a Go name with its package,
//     `mvcc.(*watcherGroup).chooseAll`, `pkg.Func`, `pkg.T.field`, or with its
//     import path, `go.etcd.io/etcd/server/v3/storage/mvcc.ErrCompacted`.
//
// # Evidence
//
// A citation's evidence comes from its unit: the sentence it is in (a
// paragraph or list item split at sentence ends), the cell of a table row
// (with the other cells of the row as confirming evidence), or the line of
// a code block. Own code (Citation.Own) is what the notes say the line
// holds: a grep line's text, or inline code directly before or after the
// citation (`code` (`file.go:12`), `code` at file.go:12, file.go:12:
// `code`, file.go:12 — `code`). Confirming code (Citation.Confirm) is the
// other inline code of the unit: it confirms the line when the line holds
// it, and means nothing when it does not (prose quotes code of other
// lines, and names things in backticks). Names (Citation.Names) are
// Go names in the unit, in backticks or written as code in prose
// (rangeKeys, mvcc.(*store).hashByRev), and in a code block's line: a
// function so named whose body holds the line confirms it. In table cells
// `\|` is read as `|`.
//
// # Markers
//
// Notes can say which release their line numbers are of with a marker, an
// HTML comment on a line of its own (invisible when the Markdown is
// rendered): <!-- srctrace: etcd v3.7.3 source=module -->. srctrace
// errcompacted writes one; see Marker.
//
// Parse never fails on bad input: what it cannot read becomes a Problem.
package cite

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Form names how a citation is written.
type Form string

// The forms.
const (
	Path   Form = "path"   // dir/file.go, a colon, a line
	Bare   Form = "bare"   // file.go, a colon, a line
	Grep   Form = "grep"   // dir/file.go, a colon, a line, a colon, the source text
	GitHub Form = "github" // a blob link with a #L anchor
	Symbol Form = "symbol" // a Go name with its package, as inline code
)

// Citation is one citation in the notes.
type Citation struct {
	Form Form
	File string // as written (…/x.go keeps its ellipsis)
	Line int
	End  int // last line of a range, or 0
	Col  int // a column after the line, or 0
	// Text is the source text the citation says is on the line, if any:
	// a grep line's text, else the first of Own.
	Text string
	// Repo and Ref are a GitHub link's "owner/name" and tag or commit (also
	// for a citation that is the text of such a link).
	Repo, Ref string
	// Name is a symbol citation's name.
	Name *Name
	// NotesLine is the 1-based line of the notes; Start and Stop the byte
	// offsets of the citation in that line.
	NotesLine   int
	Start, Stop int
	// FileAt, LineAt, EndAt, ColAt and RefAt are the byte offsets (in the
	// notes line) of the path, the line numbers, the column and a link's
	// ref, for rewriting them; [0 0] when absent.
	FileAt, LineAt, EndAt, ColAt, RefAt [2]int
	Raw                                 string

	// Own is the code the notes say is on the cited line (see the package
	// comment); Confirm is other code of the unit, which confirms the line
	// if the line holds it; Names are the Go names of the unit.
	Own     []string
	Confirm []string
	Names   []Name
}

// Problem is something in the notes that could not be read as notes.
type Problem struct {
	NotesLine int // 0 for the whole file
	Msg       string
}

// Limits of what Parse reads.
const (
	MaxFile = 64 << 20 // bytes
	MaxLine = 4 << 20  // bytes
)

var (
	githubRE = regexp.MustCompile(`https?://github\.com/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/blob/([^/\s#)]+)/([^\s#)\]>]+)#L(\d+)(?:-L(\d+))?`)
	urlRE    = regexp.MustCompile(`https?://[^\s)\]>]+`)
	// A grep line after its prefix (indentation, blockquote and list markers).
	grepRE   = regexp.MustCompile(`^((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]+\.[A-Za-z][A-Za-z0-9]*):(\d+):(.*)$`)
	prefixRE = regexp.MustCompile(`^(?:[ \t]*>)*[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?`)
	pathRE   = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./@-])((?:…/)?(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.[A-Za-z][A-Za-z0-9]*):(\d+)(?:-(\d+))?`)
	colRE    = regexp.MustCompile(`^:(\d+)`)
	// What may stand between inline code and the citation it belongs to.
	beforeGapRE = regexp.MustCompile("^[ \t]*(?:(?:at|in|on)[ \t]+)?[(\\[]?[ \t]*`?$")
	afterGapRE  = regexp.MustCompile("^`?\\)?[ \t]*(?:[:\u2014\u2013-][ \t]*)?$")
)

// Parse finds the citations in data.
func Parse(data []byte) ([]Citation, []Problem) {
	if len(data) > MaxFile {
		return nil, []Problem{{Msg: fmt.Sprintf("the file has %d bytes, more than the %d srctrace reads: split it", len(data), MaxFile)}}
	}
	if isBinary(data) {
		return nil, []Problem{{Msg: "this is a binary file, not notes"}}
	}
	p := &parser{}
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		i := bytes.IndexByte(data, '\n')
		var line []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > MaxLine {
			p.problems = append(p.problems, Problem{NotesLine: lineNo, Msg: fmt.Sprintf("the line has %d bytes, more than %d: not searched", len(line), MaxLine)})
			p.flush()
			continue
		}
		if !utf8.Valid(line) {
			p.problems = append(p.problems, Problem{NotesLine: lineNo, Msg: "the line is not valid UTF-8: searched as bytes"})
		}
		p.line(string(line), lineNo)
	}
	p.flush()
	return p.cites, p.problems
}

func isBinary(data []byte) bool {
	head := data
	if len(head) > 8000 {
		head = head[:8000]
	}
	return bytes.IndexByte(head, 0) >= 0
}

// parser reads the notes line by line, gathering prose lines into
// paragraphs whose sentences are the units of evidence.
type parser struct {
	cites    []Citation
	problems []Problem
	fence    string // the open code fence ("```", "~~~~"), or ""
	para     []srcLine
}

type srcLine struct {
	no   int
	text string
}

func (p *parser) line(l string, n int) {
	body := strings.TrimLeft(stripQuote(l), " \t")
	if f := fenceOf(body); f != "" {
		p.flush()
		switch {
		case p.fence == "":
			p.fence = f
		case f[0] == p.fence[0] && len(f) >= len(p.fence) && strings.TrimSpace(body[len(f):]) == "":
			p.fence = ""
		default:
			p.codeLine(l, n)
		}
		return
	}
	if p.fence != "" {
		p.codeLine(l, n)
		return
	}
	if c, ok := grepLine(l, n, false); ok {
		p.flush()
		p.cites = append(p.cites, c)
		return
	}
	switch {
	case strings.TrimSpace(body) == "":
		p.flush()
	case strings.HasPrefix(body, "<!--") || strings.HasPrefix(body, "#"):
		p.flush()
		if strings.HasPrefix(body, "#") {
			p.para = []srcLine{{n, l}}
			p.flush()
		}
	case strings.HasPrefix(body, "|"):
		p.flush()
		p.tableRow(l, n)
	case listItemRE.MatchString(body):
		p.flush()
		p.para = []srcLine{{n, l}}
	default:
		p.para = append(p.para, srcLine{n, l})
	}
}

var listItemRE = regexp.MustCompile(`^(?:[-*+]|\d{1,9}[.)])[ \t]`)

// stripQuote removes blockquote markers.
func stripQuote(l string) string {
	for {
		t := strings.TrimLeft(l, " \t")
		if !strings.HasPrefix(t, ">") {
			return l
		}
		l = t[1:]
	}
}

// fenceOf returns the code fence that body starts with, or "".
func fenceOf(body string) string {
	if m := listItemRE.FindString(body); m != "" {
		body = strings.TrimLeft(body[len(m):], " \t")
	}
	for _, ch := range []byte{'`', '~'} {
		n := 0
		for n < len(body) && body[n] == ch {
			n++
		}
		if n >= 3 && (ch == '~' || !strings.Contains(body[n:], "`")) {
			return body[:n]
		}
	}
	return ""
}

// grepLine reads l as a line of git grep -n output. In a code block
// (code), any text after the second colon is the source text; in prose it
// must start with a tab, two spaces or no space at all, and not be a
// column number.
func grepLine(l string, n int, code bool) (Citation, bool) {
	pre := len(prefixRE.FindString(l))
	// Indented by a tab or four spaces, and not a list item: an indented
	// code block.
	if ws := l[:len(l)-len(strings.TrimLeft(l, " \t"))]; !code && (strings.HasPrefix(ws, "\t") || strings.HasPrefix(ws, "    ")) &&
		!listItemRE.MatchString(l[len(ws):]) {
		code = true
	}
	m := grepRE.FindStringSubmatchIndex(l[pre:])
	if m == nil {
		return Citation{}, false
	}
	for i := range m {
		if m[i] >= 0 {
			m[i] += pre
		}
	}
	text := l[m[6]:m[7]]
	if colOnlyRE.MatchString(text) {
		return Citation{}, false
	}
	if !code && strings.HasPrefix(text, " ") && !strings.HasPrefix(text, "  ") {
		return Citation{}, false
	}
	if strings.HasPrefix(strings.TrimSpace(text), "`") {
		return Citation{}, false
	}
	c := Citation{Form: Grep, File: l[m[2]:m[3]], Line: atoi(l[m[4]:m[5]]), Text: text,
		NotesLine: n, Start: m[2], Stop: len(l), Raw: l[m[2]:], FileAt: [2]int{m[2], m[3]}, LineAt: [2]int{m[4], m[5]}}
	if strings.TrimSpace(text) != "" {
		c.Own = []string{text}
	}
	return c, true
}

// A column after file:line: (file.go:12:5), possibly followed by a message.
var colOnlyRE = regexp.MustCompile(`^\d+(?::|$|\s)`)

// codeLine reads a line of a code block: citations, and the names in it as
// evidence.
func (p *parser) codeLine(l string, n int) {
	if c, ok := grepLine(l, n, true); ok {
		p.cites = append(p.cites, c)
		return
	}
	cs := findCitations(l, n)
	if len(cs) == 0 {
		return
	}
	masked := []byte(l)
	for _, c := range cs {
		for i := c.Start; i < c.Stop; i++ {
			masked[i] = ' '
		}
	}
	names := namesIn(string(masked))
	for i := range cs {
		cs[i].Names = names
	}
	p.cites = append(p.cites, cs...)
}

// flush reads the gathered paragraph.
func (p *parser) flush() {
	if len(p.para) == 0 {
		return
	}
	lines := p.para
	p.para = nil
	// The paragraph as one text; starts[i] is where lines[i] begins in it.
	var b strings.Builder
	starts := make([]int, len(lines))
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		starts[i] = b.Len()
		b.WriteString(l.text)
	}
	text := b.String()
	var cs []Citation
	var at []int // paragraph offset of each citation
	for i, l := range lines {
		for _, c := range findCitations(l.text, l.no) {
			cs = append(cs, c)
			at = append(at, starts[i]+c.Start)
		}
	}
	spans := codeSpans(text)
	sents := sentences(text, spans)
	for _, s := range sents {
		var unit []int
		for i, a := range at {
			if a >= s[0] && a < s[1] {
				unit = append(unit, i)
			}
		}
		var us []span
		for _, sp := range spans {
			if sp.start >= s[0] && sp.end <= s[1] {
				us = append(us, sp)
			}
		}
		u := &unitEv{text: text[s[0]:s[1]], off: s[0], spans: us}
		for _, i := range unit {
			u.cites = append(u.cites, unitCite{c: &cs[i], at: at[i]})
		}
		u.assign(nil)
		p.symbols(u, lines, starts)
	}
	p.cites = append(p.cites, cs...)
}

// tableRow reads a table row: each cell is a unit, and the other cells of
// the row confirm.
func (p *parser) tableRow(l string, n int) {
	cells := splitCells(l)
	units := make([]*unitEv, len(cells))
	for i, cl := range cells {
		u := &unitEv{text: l[cl[0]:cl[1]], off: cl[0], table: true}
		for _, sp := range codeSpans(u.text) {
			sp.start += cl[0]
			sp.end += cl[0]
			sp.code = strings.ReplaceAll(sp.code, `\|`, "|")
			u.spans = append(u.spans, sp)
		}
		units[i] = u
	}
	cs := findCitations(l, n)
	for i := range cs {
		for _, u := range units {
			if cs[i].Start >= u.off && cs[i].Start < u.off+len(u.text) {
				u.cites = append(u.cites, unitCite{c: &cs[i], at: cs[i].Start})
			}
		}
	}
	var rowSpans []span
	for _, u := range units {
		rowSpans = append(rowSpans, u.spans...)
	}
	for _, u := range units {
		u.assign(rowSpans)
		p.symbols(u, []srcLine{{n, l}}, []int{0})
	}
	p.cites = append(p.cites, cs...)
}

// splitCells returns the byte ranges of a table row's cells, split at
// unescaped pipes.
func splitCells(l string) [][2]int {
	var cells [][2]int
	start := -1
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '\\':
			i++
		case '|':
			if start >= 0 {
				cells = append(cells, [2]int{start, i})
			}
			start = i + 1
		}
	}
	if start >= 0 && start < len(l) && strings.TrimSpace(l[start:]) != "" {
		cells = append(cells, [2]int{start, len(l)})
	}
	return cells
}

// A span is inline code: its content, and its offsets (of the backticks)
// in the text it was found in.
type span struct {
	code       string
	start, end int
	cite       bool // it holds a citation
}

// codeSpans finds inline code as CommonMark does: a run of backticks
// opens, the next run of the same length closes.
func codeSpans(text string) []span {
	var out []span
	for i := 0; i < len(text); {
		if text[i] == '\\' {
			i += 2
			continue
		}
		if text[i] != '`' {
			i++
			continue
		}
		n := 0
		for i+n < len(text) && text[i+n] == '`' {
			n++
		}
		open := i
		j := i + n
		closed := -1
		for j < len(text) {
			if text[j] != '`' {
				j++
				continue
			}
			m := 0
			for j+m < len(text) && text[j+m] == '`' {
				m++
			}
			if m == n {
				closed = j
				break
			}
			j += m
		}
		if closed < 0 {
			i = open + n
			continue
		}
		code := text[open+n : closed]
		if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.TrimSpace(code) != "" {
			code = code[1 : len(code)-1]
		}
		out = append(out, span{code: code, start: open, end: closed + n})
		i = closed + n
	}
	return out
}

// sentences splits a paragraph into sentences, at ". ", "! " and "? "
// outside inline code, when what follows does not start in lower case.
func sentences(text string, spans []span) [][2]int {
	inCode := func(i int) bool {
		for _, s := range spans {
			if i >= s.start && i < s.end {
				return true
			}
		}
		return false
	}
	var out [][2]int
	start := 0
	for i := 0; i+1 < len(text); i++ {
		c := text[i]
		if (c != '.' && c != '!' && c != '?') || (text[i+1] != ' ' && text[i+1] != '\n') || inCode(i) {
			continue
		}
		j := i + 1
		for j < len(text) && (text[j] == ' ' || text[j] == '\n') {
			j++
		}
		if j < len(text) {
			r, _ := utf8.DecodeRuneInString(text[j:])
			if r >= 'a' && r <= 'z' {
				continue // e.g. "e.g. the"
			}
		}
		out = append(out, [2]int{start, i + 1})
		start = i + 1
	}
	return append(out, [2]int{start, len(text)})
}

// unitEv is a unit of evidence: a sentence or a table cell.
type unitEv struct {
	text  string
	off   int // of text in the paragraph (or row)
	spans []span
	cites []unitCite
	table bool
}

type unitCite struct {
	c  *Citation
	at int // offset of the citation in the paragraph (or row)
}

// assign gives each citation of the unit its evidence; row are the inline
// code spans of the other cells of a table row, which confirm.
func (u *unitEv) assign(row []span) {
	for i := range u.spans {
		for _, uc := range u.cites {
			if uc.at >= u.spans[i].start && uc.at < u.spans[i].end {
				u.spans[i].cite = true
			}
		}
		if !u.spans[i].cite && len(findCitations(u.spans[i].code, 0)) > 0 {
			u.spans[i].cite = true
		}
	}
	// The unit's text without its inline code and citations, for names
	// written in prose.
	masked := []byte(u.text)
	blank := func(a, b int) {
		for i := a - u.off; i < b-u.off && i < len(masked); i++ {
			if i >= 0 {
				masked[i] = ' '
			}
		}
	}
	for _, sp := range u.spans {
		blank(sp.start, sp.end)
	}
	for _, uc := range u.cites {
		blank(uc.at, uc.at+(uc.c.Stop-uc.c.Start))
	}
	prose := namesIn(string(masked))
	for _, uc := range u.cites {
		c := uc.c
		if c.Form == Grep {
			continue
		}
		stop := uc.at + (c.Stop - c.Start)
		var own, confirm []string
		var names []Name
		for _, sp := range u.spans {
			if sp.cite {
				continue
			}
			if nm, ok := ParseName(sp.code); ok {
				names = append(names, nm)
				confirm = append(confirm, sp.code)
				continue
			}
			switch {
			case sp.end <= uc.at && beforeGapRE.MatchString(u.text[sp.end-u.off:uc.at-u.off]):
				own = append(own, sp.code)
			case sp.start >= stop && afterGapRE.MatchString(u.text[stop-u.off:sp.start-u.off]):
				own = append(own, sp.code)
			default:
				confirm = append(confirm, sp.code)
			}
		}
		for _, sp := range row {
			if sp.cite || (sp.start >= u.off && sp.end <= u.off+len(u.text)) {
				continue
			}
			confirm = append(confirm, sp.code)
			if nm, ok := ParseName(sp.code); ok {
				names = append(names, nm)
			}
		}
		names = append(names, prose...)
		c.Own, c.Confirm, c.Names = own, confirm, names
		if len(own) > 0 {
			c.Text = own[0]
		}
	}
}

// symbols adds the symbol citations of a unit: inline code that is a Go
// name with its package (or import path). Whether the qualifier is a
// package is for the checker to say.
func (p *parser) symbols(u *unitEv, lines []srcLine, starts []int) {
	for _, sp := range u.spans {
		if sp.cite {
			continue
		}
		nm, ok := ParseName(sp.code)
		if !ok || !nm.Qualified() {
			continue
		}
		// The line the span is on; a span across lines is not a citation.
		li := 0
		for i := range starts {
			if starts[i] <= sp.start {
				li = i
			}
		}
		s, e := sp.start-starts[li], sp.end-starts[li]
		l := lines[li].text
		if e > len(l) || s < 0 {
			continue
		}
		raw := l[s:e]
		n := nm
		p.cites = append(p.cites, Citation{Form: Symbol, Name: &n, NotesLine: lines[li].no, Start: s, Stop: e, Raw: raw})
	}
}

// findCitations finds the file and link citations of one line.
func findCitations(line string, n int) []Citation {
	var out []Citation
	taken := make([]bool, len(line)+1)
	for _, m := range githubRE.FindAllStringSubmatchIndex(line, -1) {
		c := Citation{Form: GitHub, Repo: line[m[2]:m[3]], Ref: line[m[4]:m[5]], File: line[m[6]:m[7]],
			NotesLine: n, Start: m[0], Stop: m[1], Raw: line[m[0]:m[1]],
			RefAt: [2]int{m[4], m[5]}, FileAt: [2]int{m[6], m[7]}, LineAt: [2]int{m[8], m[9]}}
		c.Line = atoi(line[m[8]:m[9]])
		if m[10] >= 0 {
			c.End, c.EndAt = atoi(line[m[10]:m[11]]), [2]int{m[10], m[11]}
		}
		out = append(out, c)
	}
	for _, m := range urlRE.FindAllStringIndex(line, -1) {
		for i := m[0]; i < m[1]; i++ {
			taken[i] = true
		}
	}
	for _, m := range pathRE.FindAllStringSubmatchIndex(line, -1) {
		if taken[m[2]] {
			continue
		}
		c := Citation{File: line[m[2]:m[3]], Line: atoi(line[m[4]:m[5]]), NotesLine: n,
			Start: m[2], Stop: m[1], FileAt: [2]int{m[2], m[3]}, LineAt: [2]int{m[4], m[5]}}
		if m[6] >= 0 {
			c.End, c.EndAt = atoi(line[m[6]:m[7]]), [2]int{m[6], m[7]}
		}
		c.Form = Path
		if !strings.Contains(c.File, "/") {
			c.Form = Bare
		}
		// A column after the line (file.go:12:5) belongs to the citation.
		if col := colRE.FindStringSubmatchIndex(line[c.Stop:]); col != nil && c.End == 0 {
			c.Col = atoi(line[c.Stop+col[2] : c.Stop+col[3]])
			c.ColAt = [2]int{c.Stop + col[2], c.Stop + col[3]}
			c.Stop += col[1]
		}
		c.Raw = line[c.Start:c.Stop]
		out = append(out, c)
	}
	// In the order they are written.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Start < out[j-1].Start; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	// The text of a Markdown link to a blob, [kvstore.go:177](https://...),
	// cites what the link cites: it takes the link's repository and ref.
	for _, m := range mdLinkRE.FindAllStringSubmatchIndex(line, -1) {
		var link *Citation
		for i := range out {
			if out[i].Form == GitHub && out[i].Start == m[4] {
				link = &out[i]
			}
		}
		if link == nil {
			continue
		}
		for i := range out {
			if out[i].Form != GitHub && out[i].Start >= m[2] && out[i].Stop <= m[3] {
				out[i].Repo, out[i].Ref = link.Repo, link.Ref
			}
		}
	}
	return out
}

var mdLinkRE = regexp.MustCompile(`\[([^\]]*)\]\((https?://[^)\s]+)\)`)

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// Normalize folds white space, for comparing cited text with source text.
func Normalize(s string) string {
	// Most lines need no folding but of their indentation.
	s = strings.Trim(s, " \t\r\n\v\f")
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c >= utf8.RuneSelf || c == ' ' && i+1 < len(s) && s[i+1] == ' ' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}
