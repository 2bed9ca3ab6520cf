package annotate

import (
	"fmt"
	"io"
	"strings"

	"github.com/srctrace/srctrace/trace/check"
	"github.com/srctrace/srctrace/trace/cite"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/target"
)

// CheckFormats lists the output formats of srctrace check, the default
// first.
var CheckFormats = []string{"text", "json"}

// RenderCheck writes a check report in format.
func RenderCheck(w io.Writer, format string, rep *check.Report) error {
	switch format {
	case "text":
		return CheckText(w, rep)
	case "json":
		return jsonTo(w, rep)
	default:
		return fmt.Errorf("unknown format %q: want one of %s", format, strings.Join(CheckFormats, ", "))
	}
}

// CheckText writes a reviewer's summary of each notes file (its counts by
// status, then the citations that need attention, most serious first),
// then the problems, what --fix did, and a line of totals.
func CheckText(w io.Writer, rep *check.Report) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	release := rep.Release
	if rep.Dirty {
		release += " (a checkout with uncommitted changes)"
	}
	total := map[string]int{}
	for _, s := range rep.Notes {
		n := 0
		for _, c := range s.Counts {
			n += c
		}
		p("%s: %d citations checked against %s %s", s.Notes, n, rep.Target, release)
		if s.From != "" {
			p(", lines of %s (%s)", s.From, fromText(s.FromBy))
		}
		p(": %s\n", counts(s.Counts))
		for k, v := range s.Counts {
			total[k] += v
		}
		for _, i := range s.Attention {
			p("  %s\n", citationLine(rep.Citations[i], rep.Release))
		}
		if s.Fix != "" {
			p("  --fix: %s\n", s.Fix)
		}
	}
	for _, pr := range rep.Problems {
		if pr.NotesLine > 0 {
			p("%s:%d: %s\n", pr.Notes, pr.NotesLine, pr.Message)
		} else {
			p("%s: %s\n", pr.Notes, pr.Message)
		}
	}
	for _, f := range rep.Fixed {
		p("%s: rewritten\n", f)
	}
	p("%d citations checked against %s %s: %s\n", len(rep.Citations), rep.Target, rep.Release, counts(total))
	_, err := io.WriteString(w, b.String())
	return err
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

// marker is the line that says, in the notes, which release their line
// numbers are of (see cite.Marker); srctrace check reads it.
func marker(e report.Etcd) string {
	return cite.NewMarker(target.Etcd.Name, e.Version, "source", e.Source).String()
}
