package annotate

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// DriftDoc composes d as a document: a summary (positions per change and
// per kind), then a table per kind of position, each row with its
// releases grouped where the position is the same. Every place is a
// citation at the first release of its group, so HTML links that
// release's file.
func DriftDoc(d *report.Drift) *report.Doc {
	doc := &report.Doc{Title: fmt.Sprintf("Drift of the %s study across etcd %s", d.Study, releaseRange(d.Releases))}
	doc.Lead = report.Text{report.Plain(fmt.Sprintf(
		"%d releases (%s). Every position the study's notes cite, lined up by what it is — its function, what it is there and its code — not by its line; each row groups the releases where the position is the same.",
		len(d.Releases), strings.Join(d.Releases, ", ")))}

	sum := report.Section{ID: "summary", Title: "Summary"}
	total := 0
	for _, n := range d.Counts {
		total += n
	}
	counts := report.Text{report.Plain(fmt.Sprintf("%d positions:", total))}
	first := true
	for _, c := range report.DriftChanges {
		if n := d.Counts[c.Change]; n > 0 {
			sep := ", "
			if first {
				sep, first = " ", false
			}
			counts = append(counts, report.Plain(fmt.Sprintf("%s%d %s", sep, n, c.Change)))
		}
	}
	counts = append(counts, report.Plain("."))
	sum.Blocks = append(sum.Blocks, report.Block{Para: counts})

	var codeChanged report.Text
	for _, k := range d.Kinds {
		if n := k.Counts[report.DriftChanged]; n > 0 {
			if len(codeChanged) > 0 {
				codeChanged = append(codeChanged, report.Plain(", "))
			}
			codeChanged = append(codeChanged, report.RefSpan(k.Title, kindID(k.Kind)), report.Plain(fmt.Sprintf(" (%d)", n)))
		}
	}
	if len(codeChanged) > 0 {
		sum.Blocks = append(sum.Blocks, report.Block{Para: append(report.Text{report.Plain("Kinds of position whose code changed: ")}, append(codeChanged, report.Plain("."))...)})
	} else {
		sum.Blocks = append(sum.Blocks, report.Block{Para: report.Text{report.Plain("No position's code changed.")}})
	}

	legend := &report.Table{Head: []report.Text{{report.Plain("change")}, {report.Plain("positions")}, {report.Plain("meaning")}}}
	for _, c := range report.DriftChanges {
		legend.Rows = append(legend.Rows, []report.Cell{
			{Text: report.Text{report.StrongSpan(c.Change)}, Class: changeClass(c.Change)},
			{Text: report.Text{report.Plain(strconv.Itoa(d.Counts[c.Change]))}},
			{Text: report.Text{report.Plain(c.Meaning)}},
		})
	}
	sum.Blocks = append(sum.Blocks, report.Block{Table: legend})

	kinds := &report.Table{Head: []report.Text{{report.Plain("kind of position")}, {report.Plain("positions")}}}
	for _, c := range report.DriftChanges {
		kinds.Head = append(kinds.Head, report.Text{report.Plain(c.Change)})
	}
	for _, k := range d.Kinds {
		n := 0
		for _, v := range k.Counts {
			n += v
		}
		row := []report.Cell{{Text: report.Text{report.RefSpan(k.Title, kindID(k.Kind))}}, {Text: report.Text{report.Plain(strconv.Itoa(n))}}}
		for _, c := range report.DriftChanges {
			cell := report.Cell{Text: report.Text{report.Plain("—")}}
			if v := k.Counts[c.Change]; v > 0 {
				cell = report.Cell{Text: report.Text{report.Plain(strconv.Itoa(v))}, Class: changeClass(c.Change)}
			}
			row = append(row, cell)
		}
		kinds.Rows = append(kinds.Rows, row)
	}
	sum.Blocks = append(sum.Blocks, report.Block{Table: kinds})

	var notes []report.Text
	for _, m := range d.Missing {
		t := fmt.Sprintf("etcd %s could not provide %s (%s/): its positions there are not known in that release, and their rows are judged on the others", m.Release, m.Module, m.Folder)
		if m.Reason != "" {
			t += " (" + m.Reason + ")"
		}
		notes = append(notes, report.Text{report.Plain(t + ".")})
	}
	for _, n := range d.Notes {
		notes = append(notes, report.Text{report.Plain(n)})
	}
	if len(notes) > 0 {
		sum.Blocks = append(sum.Blocks, report.Block{List: &report.List{Items: notes}})
	}
	doc.Sections = append(doc.Sections, sum)

	refs := map[string]string{}
	for i, r := range d.Releases {
		if i < len(d.Refs) {
			refs[r] = d.Refs[i]
		}
	}
	for _, k := range d.Kinds {
		s := report.Section{ID: kindID(k.Kind), Title: fmt.Sprintf("%s (%s)", capital(k.Title), k.Kind)}
		t := &report.Table{Head: []report.Text{{report.Plain("what")}, {report.Plain("change")}, {report.Plain("where")}}}
		for _, r := range d.Rows {
			if r.Kind == k.Kind {
				t.Rows = append(t.Rows, driftRow(r, d.Releases, refs))
			}
		}
		s.Blocks = append(s.Blocks, report.Block{Table: t})
		doc.Sections = append(doc.Sections, s)
	}
	return doc
}

// driftRow is a table row: what the thing is, its change, and where it is
// in each group of releases (with its code, where the code differs).
func driftRow(r report.DriftRow, releases []string, refs map[string]string) []report.Cell {
	texts := map[string]bool{}
	for _, s := range r.Spans {
		if s.At != "" {
			texts[s.Text] = true
		}
	}
	var what report.Text
	if r.Function != "" {
		what = append(what, report.Plain(report.ShortName(r.Function)+": "))
	}
	what = append(what, report.Plain(shortKey(r.What)))
	if len(texts) == 1 {
		for t := range texts {
			if t != "" {
				what = append(what, report.Plain(" "), report.CodeSpan(t))
			}
		}
	}
	change := report.Text{report.Plain(r.Change)}
	if r.Change != report.DriftSame {
		change = report.Text{report.StrongSpan(r.Change)}
	}
	var where report.Text
	for i, s := range r.Spans {
		if i > 0 {
			where = append(where, report.Plain("; "))
		}
		when := spanWords(s, releases)
		switch {
		case s.Unknown:
			where = append(where, report.Plain("not known "+when))
		case s.At == "":
			where = append(where, report.Plain("not there "+when))
		default:
			where = append(where, report.Cite(spanLoc(s, refs)), report.Plain(" "+when))
			if len(texts) > 1 {
				where = append(where, report.Plain(": "), report.CodeSpan(s.Text))
			}
		}
	}
	return []report.Cell{{Text: what}, {Text: change, Class: changeClass(r.Change)}, {Text: where}}
}

// spanLoc is the place of a span, at the ref of its first release.
func spanLoc(s report.DriftSpan, refs map[string]string) report.Loc {
	file, line := s.At, 0
	if i := strings.LastIndexByte(s.At, ':'); i >= 0 {
		file = s.At[:i]
		line, _ = strconv.Atoi(s.At[i+1:])
	}
	return report.Loc{File: file, Line: line, Ref: refs[s.From]}
}

// spanWords says which releases a span covers: "in every release", "in
// v3.6.0", "in v3.6.0–v3.6.16", "from v3.7.0" (to the last).
func spanWords(s report.DriftSpan, releases []string) string {
	if len(releases) == 0 {
		return ""
	}
	first, last := releases[0], releases[len(releases)-1]
	switch {
	case s.From == first && s.To == last && first != last:
		return "in every release"
	case s.From == s.To:
		return "in " + s.From
	case s.To == last:
		return "from " + s.From
	}
	return "in " + s.From + "–" + s.To
}

// releaseRange is "v3.6.0" or "v3.6.0 to v3.7.3".
func releaseRange(rs []string) string {
	switch len(rs) {
	case 0:
		return "no release"
	case 1:
		return rs[0]
	}
	return rs[0] + " to " + rs[len(rs)-1]
}

// changeClass colours a change in HTML.
func changeClass(c string) string {
	switch c {
	case report.DriftChanged:
		return "differs"
	case report.DriftAppeared:
		return "yes"
	case report.DriftVanished:
		return "no"
	case report.DriftReturned, report.DriftTransient:
		return "only-if"
	}
	return ""
}

func kindID(kind string) string { return "kind-" + cssClass(kind) }

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
