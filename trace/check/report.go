package check

import (
	"bytes"
	"sort"
	"unicode/utf8"

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
	// Commit is the commit of a checkout checked against, when it has a
	// git history.
	Commit string `json:"commit,omitempty"`
	// Repo is the GitHub "owner/name" of Target, for permalinks.
	Repo string `json:"repo,omitempty"`
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
	// Column and EndColumn are where the citation is in its notes line:
	// 1-based, in characters (Unicode code points), EndColumn just after
	// its last.
	Column    int `json:"column,omitempty"`
	EndColumn int `json:"end_column,omitempty"`
	// CheckedBy says how Release was chosen: "release" (the release
	// checked against), "link" (a link's own tag) or "history" (a link's
	// ref, read from the checkout's history); Commit is the commit read,
	// for a tree of a git history.
	CheckedBy string `json:"checked_by,omitempty"`
	Commit    string `json:"commit,omitempty"`
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
	// Checked groups the citations that were checked (not unresolved) by
	// the release or ref they were checked at.
	Checked []Group `json:"checked,omitempty"`
	// AfterFix are the counts by status of the notes as --fix left them,
	// checked again (only when --fix rewrote them): what the next check
	// finds.
	AfterFix map[string]int `json:"after_fix,omitempty"`
}

// Group is the citations of a notes file checked at one release or ref.
type Group struct {
	At        string `json:"at"`
	Commit    string `json:"commit,omitempty"`
	By        string `json:"by"`
	Citations int    `json:"citations"`
}

// Bad counts what needs attention: citations that are not ok (in notes
// --fix rewrote, those left after it), and problems.
func (r *Report) Bad() int {
	n := len(r.Problems)
	fixed := map[string]map[string]int{}
	for _, s := range r.Notes {
		if s.AfterFix != nil {
			fixed[s.Notes] = s.AfterFix
		}
	}
	for _, counts := range fixed {
		for st, c := range counts {
			if st != string(OK) {
				n += c
			}
		}
	}
	for _, c := range r.Citations {
		if _, ok := fixed[c.Notes]; !ok && c.Status != string(OK) {
			n++
		}
	}
	return n
}

// plain converts a result to report data.
func plain(n *notes, r result) Citation {
	c := r.c
	out := Citation{Notes: n.name, NotesLine: c.NotesLine, Form: string(c.Form), Citation: c.Raw,
		File: c.File, Line: c.Line, End: c.End, Text: c.Text, Status: string(r.status),
		Now: r.now, NowEnd: r.nowEnd, NowFile: r.nowFile, Release: r.release, Resolved: r.resolved,
		From: r.from, FromBy: r.fromBy, Anchor: r.anchor, Evidence: r.evidence, Message: r.msg,
		CheckedBy: r.by, Commit: r.commit}
	if c.Form == cite.Symbol {
		out.File, out.Line = r.symFile, r.symLine
	}
	if l := n.line(c.NotesLine); c.Start <= c.Stop && c.Stop <= len(l) {
		out.Column = utf8.RuneCount(l[:c.Start]) + 1
		out.EndColumn = out.Column + utf8.RuneCount(l[c.Start:c.Stop])
	}
	return out
}

// line returns notes line no (1-based), without its line end.
func (n *notes) line(no int) []byte {
	if n.starts == nil {
		n.starts = []int{0}
		for i, b := range n.data {
			if b == '\n' {
				n.starts = append(n.starts, i+1)
			}
		}
	}
	if no < 1 || no > len(n.starts) {
		return nil
	}
	end := len(n.data)
	if no < len(n.starts) {
		end = n.starts[no] - 1
	}
	return bytes.TrimSuffix(n.data[n.starts[no-1]:end], []byte("\r"))
}

// summarize adds the summary of citations [first, len) of rep.
func summarize(rep *Report, notes string, first int, from, fromBy, fix string, after map[string]int) {
	s := Summary{Notes: notes, From: from, FromBy: fromBy, Counts: map[string]int{}, Attention: []int{}, Fix: fix, AfterFix: after}
	for _, st := range Statuses {
		s.Counts[string(st)] = 0
	}
	groups := map[Group]int{}
	for i := first; i < len(rep.Citations); i++ {
		c := rep.Citations[i]
		s.Counts[c.Status]++
		if c.Status != string(OK) {
			s.Attention = append(s.Attention, i)
		}
		if c.Status != string(Unresolved) && c.Release != "" {
			groups[Group{At: c.Release, Commit: c.Commit, By: c.CheckedBy}]++
		}
	}
	sort.SliceStable(s.Attention, func(a, b int) bool {
		return rank(Status(rep.Citations[s.Attention[a]].Status)) < rank(Status(rep.Citations[s.Attention[b]].Status))
	})
	for g, n := range groups {
		g.Citations = n
		s.Checked = append(s.Checked, g)
	}
	order := map[string]int{ByRelease: 0, ByLink: 1, ByHistory: 2}
	sort.Slice(s.Checked, func(i, j int) bool {
		a, b := s.Checked[i], s.Checked[j]
		if order[a.By] != order[b.By] {
			return order[a.By] < order[b.By]
		}
		if a.At != b.At {
			return a.At < b.At
		}
		return a.Commit < b.Commit
	})
	rep.Notes = append(rep.Notes, s)
}
