package check

import (
	"sort"

	"github.com/srctrace/srctrace/trace/cite"
)

// Report is the check of one or more notes files: plain data, what
// package annotate renders and the JSON output carries.
type Report struct {
	// Release is the release (or checkout) checked against, of Target.
	Release string `json:"release"`
	Target  string `json:"target,omitempty"`
	// Dirty is set for a checkout with uncommitted changes.
	Dirty     bool       `json:"dirty,omitempty"`
	Citations []Citation `json:"citations"`
	Problems  []Problem  `json:"problems"`
	// Fixed lists the notes files --fix rewrote.
	Fixed []string `json:"fixed,omitempty"`
	// Notes summarises each notes file, in the order given.
	Notes []Summary `json:"notes"`
}

// Citation is one checked citation. File, Line and End are as the notes
// write them (for a symbol: where it is declared); Now, NowEnd and NowFile
// say where a drifted or moved line is now.
type Citation struct {
	Notes     string `json:"notes"`
	NotesLine int    `json:"notes_line"`
	Form      string `json:"form"`
	Citation  string `json:"citation"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	End       int    `json:"end,omitempty"`
	Text      string `json:"text,omitempty"`
	Status    string `json:"status"`
	Now       int    `json:"now,omitempty"`
	NowEnd    int    `json:"now_end,omitempty"`
	NowFile   string `json:"now_file,omitempty"`
	Release   string `json:"release"`
	Resolved  string `json:"resolved,omitempty"`
	// From is the notes' own release, when known, and FromBy how: "flag"
	// (--from), "marker" (the notes' marker) or "link" (a permalink's tag).
	From   string `json:"from,omitempty"`
	FromBy string `json:"from_by,omitempty"`
	// Anchor is what confirmed or located the line: "text", "function",
	// "release" or "symbol"; Evidence is that text, name or release.
	Anchor   string `json:"anchor,omitempty"`
	Evidence string `json:"evidence,omitempty"`
	Message  string `json:"message,omitempty"`
}

// Problem is something in the notes that is not a citation but needs
// attention (an unreadable line, a marker that cannot be used).
type Problem struct {
	Notes     string `json:"notes"`
	NotesLine int    `json:"notes_line,omitempty"`
	Message   string `json:"message"`
}

// Summary is a reviewer's view of one notes file.
type Summary struct {
	Notes string `json:"notes"`
	// From and FromBy are the notes' own release, when one holds for the
	// whole file.
	From   string `json:"from,omitempty"`
	FromBy string `json:"from_by,omitempty"`
	// Counts are the citations by status (every status, zeros too).
	Counts map[string]int `json:"counts"`
	// Attention indexes Report.Citations: the citations that are not ok,
	// most serious first, then in the order of the notes.
	Attention []int `json:"attention"`
	// Fix says what --fix did to the file, or why it did not.
	Fix string `json:"fix,omitempty"`
}

// Bad counts what needs attention: citations that are not ok, and
// problems.
func (r *Report) Bad() int {
	n := len(r.Problems)
	for _, c := range r.Citations {
		if c.Status != string(OK) {
			n++
		}
	}
	return n
}

// plain converts a result to report data.
func plain(notes string, r result) Citation {
	c := r.c
	out := Citation{Notes: notes, NotesLine: c.NotesLine, Form: string(c.Form), Citation: c.Raw,
		File: c.File, Line: c.Line, End: c.End, Text: c.Text, Status: string(r.status),
		Now: r.now, NowEnd: r.nowEnd, NowFile: r.nowFile, Release: r.release, Resolved: r.resolved,
		From: r.from, FromBy: r.fromBy, Anchor: r.anchor, Evidence: r.evidence, Message: r.msg}
	if c.Form == cite.Symbol {
		out.File, out.Line = r.symFile, r.symLine
	}
	return out
}

// summarize adds the summary of citations [first, len) of rep.
func summarize(rep *Report, notes string, first int, from, fromBy, fix string) {
	s := Summary{Notes: notes, From: from, FromBy: fromBy, Counts: map[string]int{}, Attention: []int{}, Fix: fix}
	for _, st := range Statuses {
		s.Counts[string(st)] = 0
	}
	for i := first; i < len(rep.Citations); i++ {
		st := rep.Citations[i].Status
		s.Counts[st]++
		if st != string(OK) {
			s.Attention = append(s.Attention, i)
		}
	}
	sort.SliceStable(s.Attention, func(a, b int) bool {
		return rank(Status(rep.Citations[s.Attention[a]].Status)) < rank(Status(rep.Citations[s.Attention[b]].Status))
	})
	rep.Notes = append(rep.Notes, s)
}
