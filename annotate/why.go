package annotate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// WhyDoc composes the answer of `srctrace why` as a document: the object,
// its uses, and for each use the nearest roots that reach it by a path
// that can run, with the shortest such path.
func WhyDoc(w *report.Why) *report.Doc {
	o := w.Object
	d := &report.Doc{Title: "Why: " + o.Name}
	d.Lead = report.Text{
		report.Plain(fmt.Sprintf("The %s is declared at ", o.Kind)), report.Cite(report.Loc{File: o.File, Line: o.Line}),
		report.Plain(" ("), report.CodeSpan(o.Text), report.Plain(fmt.Sprintf("). Found in etcd %s by type identity, in the %d packages that import its package, loaded from source; ", w.Etcd.Version, len(w.Packages))),
		report.Plain(fmt.Sprintf("roots are where the server's code is entered or started (%s), and for each use the %d nearest that reach it by a path that can run are kept. ", rootKinds(w.Roots), w.Nearest)),
		report.Plain("A path can run when no branch on it is refuted by a value the path fixes; the analysis does not use what an earlier call on the path returned (a check that a transaction is read-only, say) nor what the store keeps true across calls, so a root listed may be one whose path such a check rules out, and an only-if may name a condition that never holds."),
	}
	entry := map[string]report.Entry{}
	for _, e := range w.Entries {
		entry[e.Name] = e
	}
	pairs := map[int][]report.PairPaths{}
	for _, p := range w.Paths {
		pairs[p.Site.Index] = append(pairs[p.Site.Index], p)
	}
	uses := report.Section{ID: "uses", Title: "Its uses"}
	t := &report.Table{Head: []report.Text{{report.Plain("use")}, {report.Plain("kind")}, {report.Plain("in")}, {report.Plain("nearest roots that reach it")}}}
	for i, s := range w.Sites {
		fn := "(package level)"
		if s.Function != "" {
			fn = report.ShortName(s.Function)
		}
		var rs report.Text
		for j, p := range pairs[i] {
			if j > 0 {
				rs = append(rs, report.Plain(", "))
			}
			rs = append(rs, report.CodeSpan(p.Entry))
			if p.Feasible == "only-if" {
				rs = append(rs, report.Plain(" (only if)"))
			}
		}
		cell := report.Cell{Text: rs}
		switch {
		case s.Kind == "definition":
			cell = report.Cell{Text: report.Text{report.Plain("the declaration")}}
		case s.Init:
			cell = report.Cell{Text: report.Text{report.Plain("package-level code: it runs once, at package initialisation")}}
		case len(rs) == 0:
			cell = report.Cell{Text: report.Text{report.Plain("no root reaches it by calls (it may run across a hand-off, such as raft or a scheduler, that calls do not show)")}, Class: "unknown"}
		}
		t.Rows = append(t.Rows, []report.Cell{
			{Text: report.Text{report.Cite(report.Loc{File: s.File, Line: s.Line})}},
			{Text: report.Text{report.Plain(s.Kind)}},
			{Text: report.Text{report.CodeSpan(fn)}},
			cell,
		})
	}
	uses.Blocks = append(uses.Blocks, report.Block{Table: t})
	d.Sections = append(d.Sections, uses)

	ways := report.Section{ID: "ways", Title: "The way in to each use"}
	for i, s := range w.Sites {
		ps := pairs[i]
		if len(ps) == 0 {
			continue
		}
		sec := report.Section{ID: fmt.Sprintf("use-%d", i+1), Title: fmt.Sprintf("%s:%d", s.File, s.Line)}
		for _, p := range ps {
			e := entry[p.Entry]
			head := report.Text{report.StrongSpan(p.Entry), report.Plain(" (" + e.Kind + ", "), report.Cite(report.Loc{File: e.File, Line: e.Line}), report.Plain("): ")}
			head = append(head, verdictSpans(p.Feasible, p.Because)...)
			sec.Blocks = append(sec.Blocks, report.Block{Para: head})
			if len(p.Ways) > 0 {
				best := p.Ways[0]
				for _, x := range p.Ways {
					if rank(x.Feasible) > rank(best.Feasible) {
						best = x
					}
				}
				var items []report.Text
				for _, h := range best.Hops {
					items = append(items, report.Text{report.CodeSpan(report.ShortName(h.Function)), report.Plain(", called at "), report.Cite(report.Loc{File: h.File, Line: h.Line})})
				}
				if len(items) > 0 {
					sec.Blocks = append(sec.Blocks, report.Block{List: &report.List{Ordered: true, Items: items}})
				}
			}
		}
		ways.Sections = append(ways.Sections, sec)
	}
	if len(ways.Sections) > 0 {
		d.Sections = append(d.Sections, ways)
	}
	return d
}

// verdictSpans says whether a path can run, and why not or on what.
func verdictSpans(v string, b *report.Because) report.Text {
	var t report.Text
	switch v {
	case "yes":
		t = report.Text{report.Plain("a path that can run")}
	case "only-if":
		t = report.Text{report.Plain("a path that can run ")}
	case "no":
		t = report.Text{report.StrongSpan("no path can run"), report.Plain(": ")}
	case "unknown":
		t = report.Text{report.Plain("undecided: ")}
	default:
		return report.Text{report.Plain("nothing connects it")}
	}
	if b != nil && v != "yes" {
		t = append(t, codeText(b.Text)...)
		if b.File != "" {
			t = append(t, report.Plain(" ("), report.Cite(report.Loc{File: b.File, Line: b.Line}), report.Plain(")"))
		}
		if c := b.Near; c != nil && v == "only-if" && c.Text != "" && c.File != "" {
			t = append(t, report.Plain(", and, nearest the use, "))
			t = append(t, report.OnlyIf(*c)...)
		}
	}
	return t
}

func rank(v string) int {
	return map[string]int{"yes": 3, "only-if": 2, "unknown": 1}[v]
}

func rootKinds(n map[string]int) string {
	var ks []string
	for k := range n {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var out []string
	for _, k := range ks {
		out = append(out, fmt.Sprintf("%d %s", n[k], map[string]string{"grpc": "gRPC methods", "http": "HTTP handlers", "goroutine": "goroutines"}[k]))
	}
	return strings.Join(out, ", ")
}

// codeText turns text that quotes code in backticks into spans.
func codeText(s string) report.Text {
	var t report.Text
	parts := strings.Split(s, "`")
	for i, p := range parts {
		if p == "" {
			continue
		}
		if i%2 == 1 && i < len(parts)-1 {
			t = append(t, report.CodeSpan(p))
		} else {
			t = append(t, report.Plain(p))
		}
	}
	return t
}
