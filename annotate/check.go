package annotate

import (
	"fmt"
	"strings"

	"github.com/srctrace/srctrace/trace/check"
	"github.com/srctrace/srctrace/trace/report"
)

// CheckDoc composes a check report as a document: a reviewer's summary
// of each notes file (its counts by status, then the citations that need
// attention, most serious first), then the problems, what --fix did, and
// a line of totals.
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
		head := fmt.Sprintf("%d citations checked against %s %s", n, rep.Target, release)
		if s.From != "" {
			head += fmt.Sprintf(", lines of %s (%s)", s.From, fromText(s.FromBy))
		}
		sec := report.Section{ID: fmt.Sprintf("notes-%d", i+1), Title: s.Notes,
			Blocks: []report.Block{{Para: report.Text{report.Plain(head + ": " + counts(s.Counts) + ".")}}}}
		for k, v := range s.Counts {
			total[k] += v
		}
		// One line per citation, as a compiler prints problems: for the
		// eye and for grep.
		code := &report.Code{Lang: "text"}
		for _, i := range s.Attention {
			code.Lines = append(code.Lines, report.CodeLine{Text: citationLine(rep.Citations[i], rep.Release)})
		}
		if len(code.Lines) > 0 {
			sec.Blocks = append(sec.Blocks, report.Block{Code: code})
		}
		if s.Fix != "" {
			sec.Blocks = append(sec.Blocks, report.Block{Para: report.Text{report.Plain("--fix: " + s.Fix)}})
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
	d.Lead = report.Text{report.Plain(fmt.Sprintf("%d citations checked against %s %s: %s.", len(rep.Citations), rep.Target, rep.Release, counts(total)))}
	return d
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

// counts lists the counts by status, ok first, then most serious first.
func counts(m map[string]int) string {
	parts := []string{fmt.Sprintf("%d ok", m[string(check.OK)])}
	for _, st := range check.Statuses {
		if st != check.OK {
			parts = append(parts, fmt.Sprintf("%d %s", m[string(st)], st))
		}
	}
	return strings.Join(parts, ", ")
}

func citationLine(c check.Citation, release string) string {
	cited := c.Citation
	if c.Form == "grep" {
		cited = fmt.Sprintf("%s:%d", c.File, c.Line) // not the whole grep line
	}
	line := fmt.Sprintf("%s:%d: %s: %s", c.Notes, c.NotesLine, cited, c.Status)
	switch check.Status(c.Status) {
	case check.Drifted:
		line += fmt.Sprintf(" -> %d", c.Now)
	case check.Moved:
		line += fmt.Sprintf(" -> %s:%d", c.NowFile, c.Now)
	}
	if c.Release != "" && c.Release != release {
		line += " at " + c.Release
	}
	if c.Message != "" {
		line += " (" + c.Message + ")"
	}
	return line
}
