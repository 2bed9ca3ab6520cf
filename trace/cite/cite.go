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
//     and #L120-L130 (also with ?plain=1 and column anchors, #L12C3); the
//     text of a Markdown link to one, [file.go:123](...), cites at the
//     link's ref, and its file is the link's path;
//   - repository-relative links and paths with a line anchor,
//     [name](server/storage/mvcc/watcher.go#L40-L80),
//     ../server/x.go#L12 (a leading ../ or ./ is dropped: the rest is
//     looked up as a path, else as the end of one);
//   - a line written out in English prose: "line 255 of
//     server/storage/mvcc/watcher_group.go", "lines 10-20 in kvstore.go",
//     "watcher_group.go, line 255", "watcher_group.go line 255",
//     "kvstore.go (line 12)", the file in backticks or not (source files
//     only: .go, .proto, .sh, .md and the like);
//   - symbols written as inline code: a Go name with its package,
//     `mvcc.(*watcherGroup).chooseAll`, `pkg.Func`, `pkg.T.field`, or with its
//     import path, `go.etcd.io/etcd/server/v3/storage/mvcc.ErrCompacted`.
//     A file name in backticks, `wal.go`, is a file, not a symbol.
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
// Citations of one unit share Citation.Unit, so that a checker can tell
// code the unit quotes for one of its citations from code it quotes for
// another. Every quote keeps where it is in the notes (Quote), so that it
// can be rewritten when its line changes.
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
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Form names how a citation is written.
type Form string

// The forms.
const (
	Path     Form = "path"     // dir/file.go, a colon, a line
	Bare     Form = "bare"     // file.go, a colon, a line
	Grep     Form = "grep"     // dir/file.go, a colon, a line, a colon, the source text
	GitHub   Form = "github"   // a blob link with a #L anchor
	Relative Form = "relative" // a repository-relative path or link with a #L anchor
	Prose    Form = "prose"    // "line N of file.go", "file.go, line N"
	Symbol   Form = "symbol"   // a Go name with its package, as inline code
)

// Citation is one citation in the notes.
type Citation struct {
	Form Form
	File string // as written (…/x.go keeps its ellipsis, ../x.go its dots)
	Line int
	End  int // last line of a range, or 0
	Col  int // a column after the line, or 0
	// Text is the source text the citation says is on the line, if any:
	// a grep line's text, else the first of Own.
	Text string
	// Repo and Ref are a GitHub link's "owner/name" and tag or commit (also
	// for a citation that is the text of such a link).
	Repo, Ref string
	// LinkPath is, for a citation that is the text of a link, the path the
	// link names (the repository path of a GitHub link, or a relative
	// link's path as written): the file the text means.
	LinkPath string
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

	// Unit numbers the unit of evidence the citation is in (a sentence,
	// a table row, a line of a code block), from 1 in the order of the
	// notes; the citations of one unit share it.
	Unit int
	// Quotes are the code of the unit: the code the notes say is on the
	// cited line (Quote.Own; see the package comment) and the other code
	// of the unit, which confirms the line if the line holds it, each with
	// where it is in the notes. Names are the Go names of the unit (shared
	// by its citations: read them, do not change them).
	Quotes []Quote
	Names  []Name
}

// Own returns the code the notes say is on the cited line.
func (c *Citation) Own() []string { return c.codes(true) }

// Confirm returns the other code of the citation's unit.
func (c *Citation) Confirm() []string { return c.codes(false) }

func (c *Citation) codes(own bool) []string {
	var out []string
	for _, q := range c.Quotes {
		if (q.Own && !q.Name) == own {
			out = append(out, q.Code)
		}
	}
	return out
}

// Quote is code the notes quote, and where: its text is bytes [From, To)
// of notes line NotesLine (0 when it spans lines and cannot be rewritten
// in place).
type Quote struct {
	Code string
	// Own says it is the citation's own code: a grep line's text, or
	// inline code directly beside the citation.
	Own bool
	// Grep says it is a grep line's text (written as the line is, tabs
	// and all); Cell that it is in a table cell, where | is written \|;
	// Name that it is a Go name (ParseName), not code of a line: beside
	// the citation (Own), it names what the line is in.
	Grep, Cell, Name bool
	NotesLine        int
	From, To         int
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

// srcExt are the extensions of the files a line written out in prose may
// name: source files, not "etcd.io" or "e.g.".
const srcExt = `(?:go|proto|s|c|h|sh|bash|py|mod|sum|yaml|yml|json|toml|md|txt|mk)`

// filePat is a path as prose names it: …/ or .../ first, if abbreviated.
const filePat = `(?:…/|\.\.\./)?(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.` + srcExt

var (
	githubRE = regexp.MustCompile(`https?://(?:www\.)?github\.com/([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)/blob/([^/\s#)?]+)/([^\s#)\]>?]+)(?:\?[^\s#)\]>]*)?#L(\d+)(?:C\d+)?(?:-L(\d+)(?:C\d+)?)?`)
	urlRE    = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s)\]>]+`)
	// A path relative to the repository with a GitHub line anchor, as a
	// link target or in text: server/x.go#L12, ../server/x.go#L12-L20.
	relRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./@:#-])((?:\.\.?/)*(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.[A-Za-z][A-Za-z0-9]*)#L(\d+)(?:C\d+)?(?:-L(\d+)(?:C\d+)?)?`)
	// A line written out in prose: "line N of path", "lines N-M in path".
	lineOfRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_])[Ll]ines?[ \t]+(\d+)(?:[ \t]*(?:-|–|—|to)[ \t]*(\d+))?[ \t]+(?:of|in)[ \t]+` + "`?(" + filePat + ")`?")
	// "path, line N", "path line N", "path (line N)", "path, at line N".
	pathLineRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./@-])` + "`?(" + filePat + ")`?" + `(?:,[ \t]*|[ \t]+|[ \t]*\([ \t]*)(?:(?:at|on)[ \t]+)?[Ll]ines?[ \t]+(\d+)(?:[ \t]*(?:-|–|—|to)[ \t]*(\d+))?`)
	// A grep line after its prefix (indentation, blockquote and list markers).
	grepRE   = regexp.MustCompile(`^((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]+\.[A-Za-z][A-Za-z0-9]*):(\d+):(.*)$`)
	prefixRE = regexp.MustCompile(`^(?:[ \t]*>)*[ \t]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?`)
	pathRE   = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./@-])((?:…/)?(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.[A-Za-z][A-Za-z0-9]*):(\d+)(?:-(\d+))?`)
	colRE    = regexp.MustCompile(`^:(\d+)`)
	// What may stand between inline code and the citation it belongs to.
	beforeGapRE = regexp.MustCompile("^[ \t\n]*(?:(?:at|in|on)[ \t\n]+)?[(\\[]?[ \t\n]*`?$")
	afterGapRE  = regexp.MustCompile("^`?\\)?[ \t\n]*(?:[:\u2014\u2013-][ \t\n]*)?\\(?$")
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
	return p.all(), p.problems
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
	// cites are the citations found, in chunks: one slice grown by
	// appending would be copied over and over in long notes.
	cites    [][]Citation
	problems []Problem
	fence    string // the open code fence ("```", "~~~~"), or ""
	para     []srcLine
	units    int // the last unit number given
}

type srcLine struct {
	no   int
	text string
}

// add keeps citations found.
func (p *parser) add(cs ...Citation) {
	if len(cs) > 0 {
		p.cites = append(p.cites, cs)
	}
}

// all returns the citations found, in one slice.
func (p *parser) all() []Citation {
	n := 0
	for _, cs := range p.cites {
		n += len(cs)
	}
	out := make([]Citation, 0, n)
	for _, cs := range p.cites {
		out = append(out, cs...)
	}
	return out
}

func (p *parser) newUnit() int {
	p.units++
	return p.units
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
		c.Unit = p.newUnit()
		p.add(c)
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
		c.Quotes = []Quote{{Code: text, Own: true, Grep: true, NotesLine: n, From: m[6], To: m[7]}}
	}
	return c, true
}

// A column after file:line: (file.go:12:5), possibly followed by a message.
var colOnlyRE = regexp.MustCompile(`^\d+(?::|$|\s)`)

// codeLine reads a line of a code block: citations, and the names in it as
// evidence.
func (p *parser) codeLine(l string, n int) {
	if c, ok := grepLine(l, n, true); ok {
		c.Unit = p.newUnit()
		p.add(c)
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
	unit := p.newUnit()
	for i := range cs {
		cs[i].Names = names
		cs[i].Unit = unit
	}
	p.add(cs...)
}

// flush reads the gathered paragraph. Its citations and its inline code
// are in the order of the text, and so are its sentences: one pass over
// each keeps a long paragraph linear.
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
	for i := range spans {
		spans[i].place(lines, starts)
	}
	ci, si := 0, 0
	for _, s := range sentences(text, spans) {
		u := &unitEv{text: text[s[0]:s[1]], off: s[0], unit: p.newUnit()}
		for ; ci < len(at) && at[ci] < s[1]; ci++ {
			if at[ci] >= s[0] {
				u.cites = append(u.cites, unitCite{c: &cs[ci], at: at[ci]})
			}
		}
		for ; si < len(spans) && spans[si].start < s[1]; si++ {
			if spans[si].start >= s[0] && spans[si].end <= s[1] {
				u.spans = append(u.spans, spans[si])
			}
		}
		u.assign(nil)
		p.symbols(u)
	}
	p.add(cs...)
}

// tableRow reads a table row: each cell is a unit of its own code, the
// other cells of the row confirm, and the row is one unit for the checker.
func (p *parser) tableRow(l string, n int) {
	cells := splitCells(l)
	units := make([]*unitEv, len(cells))
	row := p.newUnit()
	for i, cl := range cells {
		u := &unitEv{text: l[cl[0]:cl[1]], off: cl[0], table: true, unit: row}
		for _, sp := range codeSpans(u.text) {
			sp.start += cl[0]
			sp.end += cl[0]
			sp.cstart += cl[0]
			sp.cend += cl[0]
			sp.code = strings.ReplaceAll(sp.code, `\|`, "|")
			sp.place([]srcLine{{n, l}}, []int{0})
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
		p.symbols(u)
	}
	p.add(cs...)
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

// A span is inline code: its content, the offsets of its backticks and of
// its content in the text it was found in, and where it is in the notes.
type span struct {
	code           string
	start, end     int // the backticks
	cstart, cend   int // the content (code is it, \| read as | in a cell)
	cite           bool
	line           int // the notes line; 0 when the span runs over lines
	lstart, lend   int // start and end in that line
	lcstart, lcend int // the content in that line
}

// place finds the notes line of a span of a paragraph made of lines,
// which start at starts in it.
func (sp *span) place(lines []srcLine, starts []int) {
	li := sort.Search(len(starts), func(i int) bool { return starts[i] > sp.start }) - 1
	if li < 0 || sp.end > starts[li]+len(lines[li].text) {
		return
	}
	o := starts[li]
	sp.line = lines[li].no
	sp.lstart, sp.lend, sp.lcstart, sp.lcend = sp.start-o, sp.end-o, sp.cstart-o, sp.cend-o
}

func (sp span) quote(own, cell bool) Quote {
	return Quote{Code: sp.code, Own: own, Cell: cell, NotesLine: sp.line, From: sp.lcstart, To: sp.lcend}
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
		cs, ce := open+n, closed
		if ce-cs >= 2 && text[cs] == ' ' && text[ce-1] == ' ' && strings.TrimSpace(text[cs:ce]) != "" {
			cs, ce = cs+1, ce-1
		}
		out = append(out, span{code: text[cs:ce], start: open, end: closed + n, cstart: cs, cend: ce})
		i = closed + n
	}
	return out
}

// sentences splits a paragraph into sentences, at ". ", "! " and "? "
// outside inline code, when what follows does not start in lower case.
func sentences(text string, spans []span) [][2]int {
	var out [][2]int
	start, si := 0, 0
	for i := 0; i+1 < len(text); i++ {
		c := text[i]
		if (c != '.' && c != '!' && c != '?') || (text[i+1] != ' ' && text[i+1] != '\n') {
			continue
		}
		for si < len(spans) && spans[si].end <= i {
			si++
		}
		if si < len(spans) && spans[si].start <= i {
			continue // in inline code
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
	unit  int // the Unit its citations get (a table row's for a cell)
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
			// A span that holds a citation, or that a citation holds (the
			// file of "line 5 of `x.go`"), is the citation, not code.
			if uc.at < u.spans[i].end && uc.at+(uc.c.Stop-uc.c.Start) > u.spans[i].start {
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
	// The unit's names, shared by its citations: those of its inline
	// code, of the other cells of a table row, and of its prose.
	var names []Name
	isName := make([]bool, len(u.spans))
	for i, sp := range u.spans {
		if !sp.cite {
			if nm, ok := ParseName(sp.code); ok {
				names = append(names, nm)
				isName[i] = true
			}
		}
	}
	for _, sp := range row {
		if sp.cite || (sp.start >= u.off && sp.end <= u.off+len(u.text)) {
			continue
		}
		if nm, ok := ParseName(sp.code); ok {
			names = append(names, nm)
		}
	}
	names = append(names, namesIn(string(masked))...)
	for _, uc := range u.cites {
		c := uc.c
		c.Unit = u.unit
		if c.Form == Grep {
			continue
		}
		stop := uc.at + (c.Stop - c.Start)
		var quotes []Quote
		for i, sp := range u.spans {
			if sp.cite {
				continue
			}
			own := false
			switch {
			case sp.end <= uc.at && beforeGapRE.MatchString(u.text[sp.end-u.off:uc.at-u.off]):
				own = true
			case sp.start >= stop && afterGapRE.MatchString(u.text[stop-u.off:sp.start-u.off]):
				own = true
			}
			q := sp.quote(own, u.table)
			q.Name = isName[i]
			quotes = append(quotes, q)
		}
		for _, sp := range row {
			if sp.cite || (sp.start >= u.off && sp.end <= u.off+len(u.text)) {
				continue
			}
			q := sp.quote(false, true)
			_, q.Name = ParseName(sp.code)
			quotes = append(quotes, q)
		}
		c.Names, c.Quotes = names, quotes
		for _, q := range quotes {
			if q.Own && !q.Name {
				c.Text = q.Code
				break
			}
		}
	}
}

// symbols adds the symbol citations of a unit: inline code that is a Go
// name with its package (or import path). Whether the qualifier is a
// package is for the checker to say.
func (p *parser) symbols(u *unitEv) {
	for _, sp := range u.spans {
		if sp.cite || sp.line == 0 {
			continue
		}
		nm, ok := ParseName(sp.code)
		if !ok || !nm.Qualified() {
			continue
		}
		n := nm
		p.add(Citation{Form: Symbol, Name: &n, NotesLine: sp.line, Start: sp.lstart, Stop: sp.lend, Raw: sp.rawIn(u), Unit: u.unit})
	}
}

// rawIn is the span as written, backticks and all.
func (sp span) rawIn(u *unitEv) string {
	a, b := sp.start-u.off, sp.end-u.off
	if a < 0 || b > len(u.text) {
		return ""
	}
	return u.text[a:b]
}

// findCitations finds the file and link citations of one line.
func findCitations(line string, n int) []Citation {
	// Most lines cite nothing: what every form needs is looked for
	// first, and only the forms whose marks are there are matched.
	link := strings.Contains(line, "#L")
	colon := colonDigit(line)
	prose := lineWord(line)
	if !link && !colon && !prose {
		return nil
	}
	var out []Citation
	taken := make([]bool, len(line)+1)
	mark := func(a, b int) {
		for i := a; i < b; i++ {
			taken[i] = true
		}
	}
	free := func(a, b int) bool {
		for i := a; i < b; i++ {
			if taken[i] {
				return false
			}
		}
		return true
	}
	var github, urls [][]int
	if link && strings.Contains(line, "github.com/") {
		github = githubRE.FindAllStringSubmatchIndex(line, -1)
	}
	if strings.Contains(line, "://") {
		urls = urlRE.FindAllStringIndex(line, -1)
	}
	for _, m := range github {
		c := Citation{Form: GitHub, Repo: line[m[2]:m[3]], Ref: line[m[4]:m[5]], File: line[m[6]:m[7]],
			NotesLine: n, Start: m[0], Stop: m[1], Raw: line[m[0]:m[1]],
			RefAt: [2]int{m[4], m[5]}, FileAt: [2]int{m[6], m[7]}, LineAt: [2]int{m[8], m[9]}}
		c.Line = atoi(line[m[8]:m[9]])
		if m[10] >= 0 {
			c.End, c.EndAt = atoi(line[m[10]:m[11]]), [2]int{m[10], m[11]}
		}
		out = append(out, c)
	}
	for _, m := range urls {
		mark(m[0], m[1])
	}
	var rel [][]int
	if link {
		rel = relRE.FindAllStringSubmatchIndex(line, -1)
	}
	for _, m := range rel {
		if !free(m[2], m[1]) {
			continue
		}
		c := Citation{Form: Relative, File: line[m[2]:m[3]], Line: atoi(line[m[4]:m[5]]), NotesLine: n,
			Start: m[2], Stop: m[1], Raw: line[m[2]:m[1]], FileAt: [2]int{m[2], m[3]}, LineAt: [2]int{m[4], m[5]}}
		if m[6] >= 0 {
			c.End, c.EndAt = atoi(line[m[6]:m[7]]), [2]int{m[6], m[7]}
		}
		mark(m[2], m[1])
		out = append(out, c)
	}
	var paths [][]int
	if colon {
		paths = pathRE.FindAllStringSubmatchIndex(line, -1)
	}
	for _, m := range paths {
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
		mark(c.Start, c.Stop)
		out = append(out, c)
	}
	if prose {
		out = append(out, proseCitations(line, n, free, mark)...)
	}
	// In the order they are written.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	// The text of a Markdown link to a blob, [kvstore.go:177](https://...),
	// or to a repository path, [watcher.go:40](server/.../watcher.go#L40),
	// cites what the link cites: its file is the link's path, and it takes
	// a GitHub link's repository and ref.
	if len(out) == 0 {
		return nil
	}
	for _, m := range mdLinkRE.FindAllStringSubmatchIndex(line, -1) {
		li := -1
		for i := range out {
			if (out[i].Form == GitHub || out[i].Form == Relative) && out[i].Start == m[4] {
				li = i
			}
		}
		if li < 0 {
			continue
		}
		link := out[li]
		for i := range out {
			if i != li && out[i].Start >= m[2] && out[i].Stop <= m[3] {
				out[i].Repo, out[i].Ref, out[i].LinkPath = link.Repo, link.Ref, link.File
			}
		}
	}
	return out
}

// proseCitations finds lines written out in prose: "line N of path",
// "path, line N" and the like, where the text is free.
func proseCitations(line string, n int, free func(a, b int) bool, mark func(a, b int)) []Citation {
	var out []Citation
	add := func(start, stop int, file, ln, end [2]int) {
		// Not the start of something longer: a path (kvstore.go.orig,
		// x.go/y, x.go:12, x.go#L3) after the file, a number (line 3.5,
		// line 12a) after the line.
		rest := line[stop:]
		if stop == file[1] || stop == file[1]+1 && line[file[1]] == '`' {
			if rest != "" && (strings.ContainsAny(rest[:1], "/#_") || rest[0] == ':' && len(rest) > 1 && isWordByte(rest[1]) ||
				rest[0] == '.' && len(rest) > 1 && isWordByte(rest[1]) || isWordByte(rest[0])) {
				return
			}
		} else if rest != "" && (isWordByte(rest[0]) || rest[0] == '.' && len(rest) > 1 && isWordByte(rest[1])) {
			return
		}
		if !free(start, stop) {
			return
		}
		c := Citation{Form: Prose, File: line[file[0]:file[1]], Line: atoi(line[ln[0]:ln[1]]), NotesLine: n,
			Start: start, Stop: stop, Raw: line[start:stop], FileAt: file, LineAt: ln}
		if end[1] > end[0] {
			c.End, c.EndAt = atoi(line[end[0]:end[1]]), end
		}
		mark(start, stop)
		out = append(out, c)
	}
	for _, m := range lineOfRE.FindAllStringSubmatchIndex(line, -1) {
		start := m[0]
		if start < len(line) && line[start] != 'l' && line[start] != 'L' {
			_, w := utf8.DecodeRuneInString(line[start:])
			start += w
		}
		var end [2]int
		if m[4] >= 0 {
			end = [2]int{m[4], m[5]}
		}
		add(start, m[1], [2]int{m[6], m[7]}, [2]int{m[2], m[3]}, end)
	}
	for _, m := range pathLineRE.FindAllStringSubmatchIndex(line, -1) {
		start := m[2]
		if start > 0 && line[start-1] == '`' {
			start--
		}
		var end [2]int
		if m[6] >= 0 {
			end = [2]int{m[6], m[7]}
		}
		add(start, m[1], [2]int{m[2], m[3]}, [2]int{m[4], m[5]}, end)
	}
	return out
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// lineWord reports whether s has "line" or "lines" (either case first)
// followed by white space and a digit, as every line written out in prose
// has.
func lineWord(s string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], "ine")
		if j < 0 {
			return false
		}
		at := i + j
		i = at + 3
		if at == 0 || s[at-1] != 'l' && s[at-1] != 'L' {
			continue
		}
		k := at + 3
		if k < len(s) && s[k] == 's' {
			k++
		}
		sp := k
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k > sp && k < len(s) && s[k] >= '0' && s[k] <= '9' {
			return true
		}
	}
}

// colonDigit reports whether s has a colon followed by a digit, as every
// file:line has.
func colonDigit(s string) bool {
	for i := strings.IndexByte(s, ':'); i >= 0 && i+1 < len(s); {
		if s[i+1] >= '0' && s[i+1] <= '9' {
			return true
		}
		j := strings.IndexByte(s[i+1:], ':')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

var mdLinkRE = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]+)\)`)

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
