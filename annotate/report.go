package annotate

import (
	"fmt"

	"github.com/srctrace/srctrace/trace/report"
)

// ReportDoc is a study's report as a document when the study composes no
// notes of its own: the uses of its sentinel and, for each, the entries
// that reach it and whether a path can run.
func ReportDoc(r *report.Report) *report.Doc {
	d := &report.Doc{Title: r.Study.Title}
	if d.Title == "" {
		d.Title = r.Study.Name
	}
	d.Lead = report.Text{report.Plain(fmt.Sprintf("The uses of %s in %s %s, found by type identity, and the entries that reach each.", r.Study.Sentinel, "etcd", r.Etcd.Version))}
	uses := report.Section{ID: "uses", Title: "Uses and entries"}
	tb := &report.Table{Head: []report.Text{{report.Plain("use")}, {report.Plain("kind")}, {report.Plain("entry")}, {report.Plain("can a path run")}}}
	for _, p := range r.Paths {
		s := r.Sites[p.Site.Index]
		v := "not from " + p.Entry
		switch {
		case p.Why == "definition":
			v = "the declaration"
		case p.Why == "init":
			v = "package-level code, run at initialisation"
		case p.Feasible != "":
			v = p.Feasible
			if len(p.Crossing) > 0 {
				v += " (across " + p.Crossing[0].Boundary + ")"
			}
		}
		row := []report.Cell{
			{Text: report.Text{report.Cite(report.Loc{File: s.File, Line: s.Line})}},
			{Text: report.Text{report.Plain(s.Kind)}},
			{Text: report.Text{report.CodeSpan(p.Entry)}},
			{Text: report.Text{report.Plain(v)}, Class: p.Feasible},
		}
		if p.Because != nil && p.Feasible != "yes" {
			row[3].Text = append(row[3].Text, report.Plain(": "))
			row[3].Text = append(row[3].Text, report.CodeText(p.Because.Text)...)
		}
		tb.Rows = append(tb.Rows, row)
	}
	uses.Blocks = append(uses.Blocks, report.Block{Table: tb})
	d.Sections = append(d.Sections, uses)
	return d
}
