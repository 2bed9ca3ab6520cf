package errcompacted

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// maxCites is how often the notes may cite one position. Past it, a
// citation in the prose refers back instead: to the step of a drawn way
// that is at the position, else to the section that cited it first.
const maxCites = 6

// citeKey names a position.
func citeKey(l report.Loc) string { return l.File + ":" + strconv.Itoa(l.Line) }

// limitCites keeps every position's citations in d at most max: the
// citations that are the position's own line (a code line, a diagram's
// node, the numbered steps under a diagram, a table row's first cell)
// stay; of the others, the first in reading order stay while the count
// allows, and the rest become references.
func limitCites(d *report.Doc, max int) {
	fixed := map[string]int{}
	type step struct {
		n       string
		section string
	}
	steps := map[string]step{}            // the first drawn step at a position
	own := map[string]map[string]string{} // section -> position -> its own step
	var count func(ss []report.Section, top string)
	count = func(ss []report.Section, top string) {
		for _, s := range ss {
			if top == "" {
				top = s.ID
			}
			for _, b := range s.Blocks {
				if b.Code != nil {
					for _, l := range b.Code.Lines {
						if l.Loc != nil {
							fixed[citeKey(*l.Loc)]++
						}
					}
				}
				if b.Diagram != nil {
					for _, nd := range b.Diagram.Nodes {
						if nd.Loc == nil {
							continue
						}
						k := citeKey(*nd.Loc)
						fixed[k]++
						i := strings.Index(nd.Label, ". ")
						if i <= 0 {
							continue
						}
						if _, ok := steps[k]; !ok {
							steps[k] = step{n: nd.Label[:i], section: s.ID}
						}
						if own[top] == nil {
							own[top] = map[string]string{}
						}
						if _, ok := own[top][k]; !ok {
							own[top][k] = nd.Label[:i]
						}
					}
				}
				if b.List != nil && b.List.Ordered {
					for _, it := range b.List.Items {
						for _, sp := range it {
							if sp.Loc != nil {
								fixed[citeKey(*sp.Loc)]++
							}
						}
					}
				}
				if b.Table != nil {
					for _, row := range b.Table.Rows {
						if len(row) > 0 {
							for _, sp := range row[0].Text {
								if sp.Loc != nil {
									fixed[citeKey(*sp.Loc)]++
								}
							}
						}
					}
				}
			}
			count(s.Sections, top)
			if top == s.ID {
				top = ""
			}
		}
	}
	count(d.Sections, "")
	used := map[string]int{}
	first := map[string]report.Section{}
	limit := func(x report.Text, s report.Section, top string) report.Text {
		for i, sp := range x {
			if sp.Loc == nil {
				continue
			}
			k := citeKey(*sp.Loc)
			if _, ok := first[k]; !ok {
				first[k] = s
			}
			if fixed[k]+used[k] < max {
				used[k]++
				continue
			}
			if n, ok := own[top][k]; ok {
				x[i] = report.RefSpan("step "+n, top)
				continue
			}
			if st, ok := steps[k]; ok {
				x[i] = report.RefSpan("step "+st.n, st.section)
				continue
			}
			f := first[k]
			if f.ID == "" || f.Title == "" {
				x[i] = report.Plain("cited above")
				continue
			}
			x[i] = report.RefSpan(fmt.Sprintf("cited in %s", strings.ToLower(f.Title[:1])+f.Title[1:]), f.ID)
		}
		return x
	}
	var walk func(ss []report.Section, top string)
	walk = func(ss []report.Section, top string) {
		for si := range ss {
			s := &ss[si]
			t := top
			if t == "" {
				t = s.ID
			}
			for bi := range s.Blocks {
				b := &s.Blocks[bi]
				switch {
				case b.Para != nil:
					b.Para = limit(b.Para, *s, t)
				case b.List != nil && !b.List.Ordered:
					for i := range b.List.Items {
						b.List.Items[i] = limit(b.List.Items[i], *s, t)
					}
				case b.Table != nil:
					for _, row := range b.Table.Rows {
						for c := range row {
							if c > 0 {
								row[c].Text = limit(row[c].Text, *s, t)
							}
						}
					}
				case b.Terms != nil:
					for i := range b.Terms {
						b.Terms[i].Text = limit(b.Terms[i].Text, *s, t)
					}
				}
			}
			walk(s.Sections, t)
		}
	}
	d.Lead = limit(d.Lead, report.Section{}, "")
	walk(d.Sections, "")
}
