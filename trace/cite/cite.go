// Package cite finds file:line citations in study notes: Markdown, plain
// text and code blocks. It recognises
//
//   - path/to/file.go:123 and file.go:123 (a bare name), ranges file.go:120-130;
//   - git grep -n output, path/file.go:123:<source text>, at the start of a line;
//   - GitHub links https://github.com/<owner>/<repo>/blob/<ref>/path#L123 and #L120-L130;
//   - a citation followed on the same line by inline code, `...`: that code is
//     the text the cited line must hold.
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
)

// Citation is one citation in the notes.
type Citation struct {
	Form Form
	File string // as written
	Line int
	End  int // last line of a range, or 0
	// Text is the source text the citation says is on the line, if any.
	Text string
	// Repo and Ref are a GitHub link's "owner/name" and tag or commit.
	Repo, Ref string
	// NotesLine is the 1-based line of the notes; Start and Stop the byte
	// offsets of the citation in that line.
	NotesLine   int
	Start, Stop int
	// LineAt and EndAt are the byte offsets (in the notes line) of the line
	// numbers, for rewriting them.
	LineAt, EndAt [2]int
	Raw           string
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
	grepRE   = regexp.MustCompile(`^((?:[A-Za-z0-9_.-]+/)+[A-Za-z0-9_.-]+\.[A-Za-z][A-Za-z0-9]*):(\d+):(.*)$`)
	pathRE   = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./@-])((?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*\.[A-Za-z][A-Za-z0-9]*):(\d+)(?:-(\d+))?`)
	colRE    = regexp.MustCompile(`^:\d+`)
	codeRE   = regexp.MustCompile("^[ \t]*(?:[:\u2014\u2013-][ \t]*)?`([^`]+)`")
)

// Parse finds the citations in data.
func Parse(data []byte) ([]Citation, []Problem) {
	if len(data) > MaxFile {
		return nil, []Problem{{Msg: fmt.Sprintf("the file has %d bytes, more than the %d srctrace reads: split it", len(data), MaxFile)}}
	}
	if isBinary(data) {
		return nil, []Problem{{Msg: "this is a binary file, not notes"}}
	}
	var cs []Citation
	var ps []Problem
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
			ps = append(ps, Problem{NotesLine: lineNo, Msg: fmt.Sprintf("the line has %d bytes, more than %d: not searched", len(line), MaxLine)})
			continue
		}
		if !utf8.Valid(line) {
			ps = append(ps, Problem{NotesLine: lineNo, Msg: "the line is not valid UTF-8: searched as bytes"})
		}
		cs = append(cs, parseLine(string(line), lineNo)...)
	}
	return cs, ps
}

func isBinary(data []byte) bool {
	head := data
	if len(head) > 8000 {
		head = head[:8000]
	}
	return bytes.IndexByte(head, 0) >= 0
}

// parseLine finds the citations of one line.
func parseLine(line string, n int) []Citation {
	var out []Citation
	taken := make([]bool, len(line)+1)
	mark := func(a, b int) {
		for i := a; i < b && i < len(taken); i++ {
			taken[i] = true
		}
	}
	for _, m := range githubRE.FindAllStringSubmatchIndex(line, -1) {
		c := Citation{Form: GitHub, Repo: line[m[2]:m[3]], Ref: line[m[4]:m[5]], File: line[m[6]:m[7]],
			NotesLine: n, Start: m[0], Stop: m[1], Raw: line[m[0]:m[1]], LineAt: [2]int{m[8], m[9]}}
		c.Line = atoi(line[m[8]:m[9]])
		if m[10] >= 0 {
			c.End, c.EndAt = atoi(line[m[10]:m[11]]), [2]int{m[10], m[11]}
		}
		c.Text = followingCode(line, m[1])
		out = append(out, c)
	}
	for _, m := range urlRE.FindAllStringIndex(line, -1) {
		mark(m[0], m[1])
	}
	if m := grepRE.FindStringSubmatchIndex(line); m != nil && !taken[0] {
		c := Citation{Form: Grep, File: line[m[2]:m[3]], Line: atoi(line[m[4]:m[5]]), Text: line[m[6]:m[7]],
			NotesLine: n, Start: 0, Stop: len(line), Raw: line, LineAt: [2]int{m[4], m[5]}}
		out = append(out, c)
		return out
	}
	for _, m := range pathRE.FindAllStringSubmatchIndex(line, -1) {
		if taken[m[2]] {
			continue
		}
		c := Citation{File: line[m[2]:m[3]], Line: atoi(line[m[4]:m[5]]), NotesLine: n,
			Start: m[2], Stop: m[1], Raw: line[m[2]:m[1]], LineAt: [2]int{m[4], m[5]}}
		if m[6] >= 0 {
			c.End, c.EndAt = atoi(line[m[6]:m[7]]), [2]int{m[6], m[7]}
		}
		c.Form = Path
		if !strings.Contains(c.File, "/") {
			c.Form = Bare
		}
		stop := m[1]
		// A column after the line (file.go:12:5) belongs to the citation.
		if col := colRE.FindString(line[stop:]); col != "" && c.End == 0 {
			stop += len(col)
		}
		c.Text = followingCode(line, stop)
		out = append(out, c)
	}
	return out
}

// followingCode returns the inline code that directly follows position i
// (after the citation's own closing backtick, a separator such as ":" or
// "—", and spaces), or "".
func followingCode(line string, i int) string {
	if i < len(line) && line[i] == '`' {
		i++ // the citation's own closing backtick
	}
	if i >= len(line) {
		return ""
	}
	if m := codeRE.FindStringSubmatch(line[i:]); m != nil {
		return m[1]
	}
	return ""
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// Normalize folds white space, for comparing cited text with source text.
func Normalize(s string) string { return strings.Join(strings.Fields(s), " ") }
