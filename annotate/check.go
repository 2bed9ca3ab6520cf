package annotate

import (
	"fmt"
	"strings"

	"github.com/srctrace/srctrace/trace/check"
	"github.com/srctrace/srctrace/trace/report"
)

// CheckOutput is what srctrace check renders: the report (JSON, SARIF,
// GitHub annotations) and the document composed from it (Markdown, HTML,
// text), whose citations link to the repository at the ref each was
// checked at.
func CheckOutput(rep *check.Report) Output {
	return Output{Data: rep, Doc: CheckDoc(rep), Etcd: report.Etcd{Repo: rep.Repo}}
}

// CheckDoc composes a check report as a document: a reviewer's summary
// of each notes file (its counts by status, what was checked at which
// release or ref, then a table of the citations that need attention, most
// serious first, each linked where it was checked), then the problems,
// what --fix did, and a line of totals.
func CheckDoc(rep *check.Report) *report.Doc {
	release := rep.Release
	if rep.Dirty {
		release += " (a checkout with uncommitted changes)"
	}
	d := &report.Doc{Title: "srctrace check: " + rep.Target + " " + release}
	total := map[string]int{}
	for i, s := range rep.Notes {
		n := 0
		for _, c := range s.Counts {
			n += c
		}
		head := fmt.Sprintf("%s: %s.", plural(n, "citation"), counts(s.Counts))
		if s.From != "" {
			head += fmt.Sprintf(" Their line numbers are %s's (%s).", s.From, fromText(s.FromBy))
		}
		sec := report.Section{ID: fmt.Sprintf("notes-%d", i+1), Title: s.Notes,
			Blocks: []report.Block{{Para: report.Text{report.Plain(head)}}}}
		if w := checkedText(rep, s); w != "" {
			sec.Blocks = append(sec.Blocks, report.Block{Para: report.Text{report.Plain(w)}})
		}
		for k, v := range s.Counts {
			total[k] += v
		}
		if len(s.Attention) > 0 {
			sec.Blocks = append(sec.Blocks, report.Block{Table: attentionTable(rep, s.Attention)})
		}
		if s.Fix != "" {
			sec.Blocks = append(sec.Blocks, report.Block{Para: report.Text{report.Plain("--fix: " + s.Fix + ".")}})
		}
		if s.AfterFix != nil {
			sec.Blocks = append(sec.Blocks, report.Block{Para: report.Text{report.Plain("As --fix left them, the notes check as: " + counts(s.AfterFix) + ".")}})
		}
		d.Sections = append(d.Sections, sec)
	}
	var items []report.Text
	for _, pr := range rep.Problems {
		if pr.NotesLine > 0 {
			items = append(items, report.Text{report.Plain(fmt.Sprintf("%s:%d: %s", pr.Notes, pr.NotesLine, pr.Message))})
		} else {
			items = append(items, report.Text{report.Plain(fmt.Sprintf("%s: %s", pr.Notes, pr.Message))})
		}
	}
	for _, f := range rep.Fixed {
		items = append(items, report.Text{report.Plain(f + ": rewritten")})
	}
	if len(items) > 0 {
		d.Sections = append(d.Sections, report.Section{ID: "problems", Title: "Problems and fixes", Blocks: []report.Block{{List: &report.List{Items: items}}}})
	}
	lead := fmt.Sprintf("%s in %s: %s.", plural(len(rep.Citations), "citation"), plural(len(rep.Notes), "notes file"), counts(total))
	if len(rep.Notes) > 0 && rep.Notes[0].AfterFix != nil || len(rep.Fixed) > 0 {
		lead += fmt.Sprintf(" --fix rewrote %s.", plural(len(rep.Fixed), "file"))
	}
	d.Lead = report.Text{report.Plain(lead)}
	return d
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	if strings.HasSuffix(what, "file") || strings.HasSuffix(what, "citation") {
		return fmt.Sprintf("%d %ss", n, what)
	}
	return fmt.Sprintf("%d %s", n, what)
}

func fromText(by string) string {
	switch by {
	case "flag":
		return "--from"
	case "marker":
		return "the notes' marker"
	}
	return by
}

// counts lists the counts by status, ok first, then most serious first;
// a status none has is left out.
func counts(m map[string]int) string {
	parts := []string{fmt.Sprintf("%d ok", m[string(check.OK)])}
	for _, st := range check.Statuses {
		if st != check.OK && m[string(st)] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", m[string(st)], st))
		}
	}
	return strings.Join(parts, ", ")
}

// checkedText says at which release or ref the citations of a notes file
// were checked, and how many could not be.
func checkedText(rep *check.Report, s check.Summary) string {
	var parts []string
	for _, g := range s.Checked {
		at := rep.Target + " " + g.At
		if g.Commit != "" && !strings.HasPrefix(g.Commit, g.At) {
			at += " (" + short(g.Commit) + ")"
		}
		switch g.By {
		case check.ByLink:
			at += ", a link's own tag"
		case check.ByHistory:
			at += ", from the checkout's history"
		}
		parts = append(parts, fmt.Sprintf("%d at %s", g.Citations, at))
	}
	if n := s.Counts[string(check.Unresolved)]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d not checked (unresolved)", n))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Checked: " + strings.Join(parts, "; ") + "."
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// statusClass colours a status cell with the document's classes.
var statusClass = map[string]string{
	string(check.OK):         "yes",
	string(check.Missing):    "no",
	string(check.Mismatch):   "no",
	string(check.Moved):      "only-if",
	string(check.Drifted):    "only-if",
	string(check.Ambiguous):  "differs",
	string(check.Unanchored): "unknown",
	string(check.Unresolved): "unknown",
}

// attentionTable is one row per citation that needs attention: where it
// is in the notes, the citation (linked to the line it cites, at the
// release or ref its line numbers are of), its status and where the line
// is now, and why.
func attentionTable(rep *check.Report, idx []int) *report.Table {
	tb := &report.Table{Head: []report.Text{{report.Plain("notes")}, {report.Plain("citation")}, {report.Plain("status")}, {report.Plain("why")}}}
	for _, i := range idx {
		c := rep.Citations[i]
		cited := c.Citation
		if c.Form == "grep" {
			cited = fmt.Sprintf("%s:%d", c.File, c.Line) // not the whole grep line
		}
		citation := report.Text{report.CodeSpan(cited)}
		if l := citedLoc(c); l != nil && cited == fmt.Sprintf("%s:%d", l.File, l.Line) {
			citation = report.Text{report.Cite(*l)}
		} else if l != nil {
			citation = report.Text{{Text: cited, Loc: l}}
		}
		status := report.Text{report.Plain(c.Status)}
		if l := nowLoc(c); l != nil {
			status = append(status, report.Plain(" → "), report.Cite(*l))
		}
		tb.Rows = append(tb.Rows, []report.Cell{
			{Text: report.Text{report.Plain(fmt.Sprintf("%s:%d", c.Notes, c.NotesLine))}},
			{Text: citation},
			{Text: status, Class: statusClass[c.Status]},
			{Text: report.CodeText(c.Message)},
		})
	}
	return tb
}

// refOf is the ref a citation's lines are at: its commit when read from a
// history, else the release it was checked at (none for a dirty checkout).
func refOf(c check.Citation, rel string) string {
	switch {
	case c.Commit != "":
		return c.Commit
	case strings.HasSuffix(rel, "-dirty"):
		return ""
	}
	return rel
}

// citedLoc is the line a citation cites, at the release its line numbers
// are of (the notes' own, when the citation was carried from it).
func citedLoc(c check.Citation) *report.Loc {
	file := c.Resolved
	if c.Form == "symbol" {
		file = c.File
	}
	if file == "" || c.Line < 1 || c.Status == string(check.Unresolved) || c.Status == string(check.Missing) {
		return nil
	}
	ref := refOf(c, c.Release)
	if c.From != "" && c.From != c.Release && c.FromBy != "link" {
		ref = c.From
	}
	if ref == "" {
		return nil
	}
	return &report.Loc{File: file, Line: c.Line, Ref: ref}
}

// nowLoc is where a drifted, moved or edited line is now.
func nowLoc(c check.Citation) *report.Loc {
	if c.Now < 1 {
		return nil
	}
	file := c.NowFile
	if file == "" {
		file = c.Resolved
	}
	if file == "" {
		return nil
	}
	return &report.Loc{File: file, Line: c.Now, Ref: refOf(c, c.Release)}
}
