package annotate

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/srctrace/srctrace/trace/check"
	"github.com/srctrace/srctrace/trace/target"
)

// sarifRules describes each status that needs attention, and problems,
// as a SARIF rule: what it means and how serious it is.
var sarifRules = []struct {
	id, level, short, full string
}{
	{string(check.Missing), "error", "The cited file, line or symbol does not exist", "No such file, line or symbol at the release checked."},
	{string(check.Mismatch), "error", "The notes' code is not on the cited line", "What the notes say is on the line (the code they quote, or the line of their own release) is nowhere to be found, or the line was edited and no longer holds the code they quote."},
	{string(check.Moved), "warning", "The cited line is in another file now", "The line the notes mean is in another file at the release checked; --fix rewrites the path and the line."},
	{string(check.Drifted), "warning", "The cited line is another line now", "The line the notes mean (by the code they quote, or carried from their own release) is another line of the file; --fix rewrites the line."},
	{string(check.Ambiguous), "warning", "Several files or lines fit the citation", "Several files of the name, or several lines holding the quoted code, fit the citation: cite one."},
	{string(check.Unanchored), "note", "Nothing in the notes confirms the cited line", "The line exists, but the notes give no code, function or release of their own to confirm it is the line they mean."},
	{string(check.Unresolved), "note", "The citation could not be checked", "A release that cannot be had, a link to another repository, or a link at a commit or branch without a checkout's history."},
	{"problem", "warning", "A notes line could not be read", "Something in the notes that needs attention and is not a citation: an unreadable line, a marker that cannot be used."},
}

// checkSARIF writes a check report as SARIF 2.1.0: one result per
// citation that needs attention and per problem, located at its notes
// line and columns, with the cited line (at the release or ref checked)
// and where it is now as related locations.
func checkSARIF(w io.Writer, rep *check.Report) error {
	run := sarif.NewRunWithInformationURI("srctrace", "https://github.com/srctrace/srctrace")
	run.WithColumnKind("unicodeCodePoints")
	for _, r := range sarifRules {
		run.AddRule(r.id).WithName(r.id).
			WithShortDescription(sarif.NewMultiformatMessageString().WithText(r.short)).
			WithFullDescription(sarif.NewMultiformatMessageString().WithText(r.full)).
			WithDefaultConfiguration(sarif.NewReportingConfiguration().WithLevel(r.level))
	}
	level := map[string]string{}
	for _, r := range sarifRules {
		level[r.id] = r.level
	}
	tgt := target.Target{Repo: rep.Repo}
	for _, s := range rep.Notes {
		for _, i := range s.Attention {
			c := rep.Citations[i]
			msg := fmt.Sprintf("%s: %s", c.Citation, c.Status)
			if c.Message != "" {
				msg += " (" + c.Message + ")"
			}
			region := sarif.NewRegion().WithStartLine(c.NotesLine)
			if c.Column > 0 {
				region.WithStartColumn(c.Column).WithEndColumn(c.EndColumn)
			}
			res := run.CreateResultForRule(c.Status).WithLevel(level[c.Status]).
				WithMessage(sarif.NewTextMessage(msg)).
				AddLocation(sarif.NewLocationWithPhysicalLocation(sarif.NewPhysicalLocation().
					WithArtifactLocation(sarif.NewSimpleArtifactLocation(filepath.ToSlash(c.Notes))).
					WithRegion(region)))
			id := 1
			for _, rl := range []struct {
				what string
				loc  func(check.Citation) *reportLoc
			}{{"the cited line", citedLocOf}, {"where it is now", nowLocOf}} {
				l := rl.loc(c)
				if l == nil || rep.Repo == "" {
					continue
				}
				res.AddRelatedLocation(sarif.NewLocation().WithID(id).
					WithMessage(sarif.NewTextMessage(fmt.Sprintf("%s: %s:%d at %s", rl.what, l.file, l.line, l.ref))).
					WithPhysicalLocation(sarif.NewPhysicalLocation().
						WithArtifactLocation(sarif.NewSimpleArtifactLocation(tgt.Permalink(l.ref, l.file, 0, 0))).
						WithRegion(sarif.NewRegion().WithStartLine(l.line))))
				id++
			}
			props := sarif.NewPropertyBag().Add("status", c.Status).Add("form", c.Form).Add("release", c.Release)
			if c.Now > 0 {
				props.Add("now", c.Now)
			}
			if c.NowFile != "" {
				props.Add("now_file", c.NowFile)
			}
			res.WithProperties(props)
		}
	}
	for _, p := range rep.Problems {
		loc := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(filepath.ToSlash(p.Notes)))
		if p.NotesLine > 0 {
			loc.WithRegion(sarif.NewRegion().WithStartLine(p.NotesLine))
		}
		run.CreateResultForRule("problem").WithLevel("warning").
			WithMessage(sarif.NewTextMessage(p.Message)).
			AddLocation(sarif.NewLocationWithPhysicalLocation(loc))
	}
	log := sarif.NewReport()
	log.AddRun(run)
	data, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return fmt.Errorf("rendering sarif: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// reportLoc is a line at a ref, for SARIF's related locations.
type reportLoc struct {
	file string
	line int
	ref  string
}

func citedLocOf(c check.Citation) *reportLoc {
	if l := citedLoc(c); l != nil {
		return &reportLoc{l.File, l.Line, l.Ref}
	}
	return nil
}

func nowLocOf(c check.Citation) *reportLoc {
	if l := nowLoc(c); l != nil && l.Ref != "" {
		return &reportLoc{l.File, l.Line, l.Ref}
	}
	return nil
}
