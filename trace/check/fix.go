package check

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/srctrace/srctrace/trace/cite"
)

// edit replaces bytes [from, to) of a notes line.
type edit struct {
	line     int
	from, to int
	text     string
}

// fixPlan is what --fix does to one notes file.
type fixPlan struct {
	edits []edit
	note  string
	n     int // citations rewritten
	// carried says the citations carried from the notes' release were
	// rewritten: the notes' lines are the release checked's now.
	carried bool
}

// fixable reports whether --fix can rewrite r so that it holds at the
// release checked: a line that moved, or one whose code changed with it
// and can be carried.
func fixable(r result) bool {
	switch r.status {
	case OK, Drifted, Moved:
		return r.stuck == ""
	case Mismatch:
		return r.carried && r.now > 0 && len(r.requotes) > 0 && r.stuck == ""
	}
	return false
}

// planFix decides the edits for a notes file: drifted and moved citations
// get their new line numbers and paths, links carried to --to their new
// tag, the code quoted beside a carried line its new code when the line
// changed, and the markers the release checked. Citations carried from
// the notes' release are rewritten all or none: if one of them cannot be
// carried, their lines stay the notes' release's, as the marker (or
// --from) says, and the note says which to correct. Notes carried by
// --from that have no marker get one, so that the next check knows whose
// lines they are.
func planFix(results []result, markers []cite.Marker, t *Tree, to string, isRelease func(string) bool, target string, data []byte) fixPlan {
	var p fixPlan
	var blocked []string
	stuck := ""
	byNotes, byFlag := false, false
	for _, r := range results {
		if !r.carried {
			continue
		}
		if !fixable(r) {
			blocked = append(blocked, strconv.Itoa(r.c.NotesLine))
			if stuck == "" && r.stuck != "" {
				stuck = fmt.Sprintf(" (notes line %d: %s)", r.c.NotesLine, r.stuck)
			}
		}
		switch r.fromBy {
		case "marker":
			byNotes = true
		case "flag":
			byNotes, byFlag = true, true
		}
	}
	carriedOK := len(blocked) == 0
	var why string
	if !carriedOK {
		why = fmt.Sprintf("not fixed: %s carried from the notes' release cannot be carried to %s (notes lines %s)%s; correct or remove them (their lines are the notes' release's), then run --fix again",
			citations(len(blocked)), t.Version, strings.Join(dedupe(blocked), ", "), stuck)
	} else if byNotes && (t.Dirty || !isRelease(t.Version)) {
		carriedOK = false
		why = fmt.Sprintf("not fixed: the notes' marker names the release of their lines, and %s is not a release; fix against a release (--etcd-version) or a clean checkout at a tag", t.Version)
	}
	for _, r := range results {
		if r.carried && !carriedOK {
			continue
		}
		c := r.c
		rewritten := false
		if r.status == Drifted || r.status == Moved || r.status == Mismatch && fixable(r) {
			rewritten = true
			if r.now != c.Line {
				p.edits = append(p.edits, edit{c.NotesLine, c.LineAt[0], c.LineAt[1], strconv.Itoa(r.now)})
			}
			if c.End > 0 && c.EndAt[1] > c.EndAt[0] && r.nowEnd > 0 && r.nowEnd != c.End {
				p.edits = append(p.edits, edit{c.NotesLine, c.EndAt[0], c.EndAt[1], strconv.Itoa(r.nowEnd)})
			}
			if c.Col > 0 && r.nowCol > 0 && r.nowCol != c.Col {
				p.edits = append(p.edits, edit{c.NotesLine, c.ColAt[0], c.ColAt[1], strconv.Itoa(r.nowCol)})
			}
			if r.nowFile != "" && c.FileAt[1] > c.FileAt[0] {
				p.edits = append(p.edits, edit{c.NotesLine, c.FileAt[0], c.FileAt[1], rewritePath(c.File, r.nowFile, c.Form == cite.GitHub)})
			}
		}
		if fixable(r) {
			for _, rq := range r.requotes {
				code := rq.code
				if rq.q.Cell {
					code = strings.ReplaceAll(code, "|", `\|`)
				}
				p.edits = append(p.edits, edit{rq.q.NotesLine, rq.q.From, rq.q.To, code})
				rewritten = true
			}
		}
		if c.Form == cite.GitHub && to != "" && r.carried && c.Ref != to && fixable(r) {
			rewritten = true
			p.edits = append(p.edits, edit{c.NotesLine, c.RefAt[0], c.RefAt[1], to})
		}
		if rewritten {
			p.n++
		}
	}
	marker := ""
	if byNotes && carriedOK {
		p.carried = true
		for _, m := range markers {
			if m.Release != t.Version {
				p.edits = append(p.edits, edit{m.NotesLine, m.ReleaseAt[0], m.ReleaseAt[1], t.Version})
				marker = fmt.Sprintf(" and the marker, which now says %s", t.Version)
			}
		}
		if byFlag && len(markers) == 0 && p.n > 0 {
			m := cite.NewMarker(target, t.Version, "source", t.Kind).String()
			first := firstLine(string(data))
			if strings.HasPrefix(first, "# ") {
				p.edits = append(p.edits, edit{1, len(strings.TrimSuffix(first, "\r")), len(strings.TrimSuffix(first, "\r")), "\n\n" + m})
			} else {
				p.edits = append(p.edits, edit{1, 0, 0, m + "\n\n"})
			}
			marker = fmt.Sprintf(" and a marker added, which says their lines are %s's", t.Version)
		}
	}
	switch {
	case why != "" && p.n > 0:
		p.note = fmt.Sprintf("%s rewritten; %s", citations(p.n), why)
	case why != "":
		p.note = why
	case p.n > 0 || marker != "":
		p.note = fmt.Sprintf("%s rewritten%s", citations(p.n), marker)
	}
	return p
}

func citations(n int) string {
	if n == 1 {
		return "1 citation"
	}
	return fmt.Sprintf("%d citations", n)
}

func dedupe(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// rewritePath writes newRP the way written was written: in full, bare,
// …/name, or as the same number of trailing path elements.
func rewritePath(written, newRP string, full bool) string {
	if full {
		return newRP
	}
	for _, p := range []string{"…/", ".../"} {
		if strings.HasPrefix(written, p) {
			return p + tail(newRP, strings.Count(strings.TrimPrefix(written, p), "/")+1)
		}
	}
	pre := ""
	if strings.HasPrefix(written, "./") {
		pre, written = "./", strings.TrimPrefix(written, "./")
	}
	return pre + tail(newRP, strings.Count(written, "/")+1)
}

// tail returns the last n elements of a slash path.
func tail(p string, n int) string {
	parts := strings.Split(p, "/")
	if n >= len(parts) {
		return p
	}
	return strings.Join(parts[len(parts)-n:], "/")
}

// applyEdits applies edits to data and leaves every other byte as it is.
func applyEdits(data []byte, edits []edit) []byte {
	if len(edits) == 0 {
		return data
	}
	// Right to left within a line, so earlier offsets stay valid.
	sort.SliceStable(edits, func(i, j int) bool {
		if edits[i].line != edits[j].line {
			return edits[i].line < edits[j].line
		}
		return edits[i].from > edits[j].from
	})
	var out []byte
	lineNo, start := 1, 0
	ei := 0
	for i := 0; i <= len(data); i++ {
		if i < len(data) && data[i] != '\n' {
			continue
		}
		line := data[start:i]
		if ei < len(edits) && edits[ei].line == lineNo {
			l := append([]byte{}, line...)
			last := len(l) + 1
			for ei < len(edits) && edits[ei].line == lineNo {
				e := edits[ei]
				// Overlapping edits (one span rewritten twice) keep the first.
				if e.to <= len(l) && e.from <= e.to && e.to <= last {
					l = append(l[:e.from:e.from], append([]byte(e.text), l[e.to:]...)...)
					last = e.from
				}
				ei++
			}
			out = append(out, l...)
		} else {
			out = append(out, line...)
		}
		if i < len(data) {
			out = append(out, '\n')
		}
		lineNo++
		start = i + 1
	}
	return out
}
