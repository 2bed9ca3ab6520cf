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
	citedIn := map[string]report.Section{} // the first section where a citation stays
	fix := func(l report.Loc, s report.Section) {
		k := citeKey(l)
		fixed[k]++
		if _, ok := citedIn[k]; !ok {
			citedIn[k] = s
		}
	}
	// A citation that is the subject of its sentence stays, as the
	// position's own line does.
	subjects := func(x report.Text, s report.Section) {
		for i, r := range citeRoles(x) {
			if r == citeSubject {
				fix(*x[i].Loc, s)
			}
		}
	}
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
							fix(*l.Loc, s)
						}
					}
				}
				if b.Diagram != nil {
					for _, nd := range b.Diagram.Nodes {
						if nd.Loc == nil {
							continue
						}
						k := citeKey(*nd.Loc)
						fix(*nd.Loc, s)
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
								fix(*sp.Loc, s)
							}
						}
					}
				}
				if b.List != nil && !b.List.Ordered {
					for _, it := range b.List.Items {
						subjects(it, s)
					}
				}
				if b.Para != nil {
					subjects(b.Para, s)
				}
				for _, tm := range b.Terms {
					subjects(tm.Text, s)
				}
				if b.Table != nil {
					for _, row := range b.Table.Rows {
						for c := range row {
							if c > 0 {
								subjects(row[c].Text, s)
								continue
							}
							for _, sp := range row[0].Text {
								if sp.Loc != nil {
									fix(*sp.Loc, s)
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
	limit := func(x report.Text, s report.Section, top string) report.Text {
		roles := citeRoles(x)
		for i, sp := range x {
			if sp.Loc == nil {
				continue
			}
			k := citeKey(*sp.Loc)
			if roles[i] == citeSubject {
				continue // counted with the position's own
			}
			_, elsewhere := citedIn[k]
			if fixed[k]+used[k] < max || (!elsewhere && s.ID != "") {
				// Within the count, or the first citation of a position
				// cited nowhere else: it stays.
				used[k]++
				if !elsewhere {
					citedIn[k] = s
				}
				continue
			}
			if n, ok := own[top][k]; ok {
				x[i] = stepRef(n, top)
				continue
			}
			if st, ok := steps[k]; ok {
				x[i] = stepRef(st.n, st.section)
				continue
			}
			f := citedIn[k]
			if roles[i] != citeAside {
				// In the sentence's own words a position reads only as a
				// step: "cited in …" is an aside.
				used[k]++
				continue
			}
			if f.ID == "" || f.Title == "" || f.ID == s.ID || f.ID == top {
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

// Roles of a citation in its text.
const (
	citeNone    = iota
	citeSubject // it begins its sentence
	citeAside   // in parentheses
	citeProse   // elsewhere in the sentence's words
)

// citeRoles gives each span of x its role as a citation: the subject of
// its sentence (nothing but spaces before it since the last full stop),
// an aside (within parentheses), or a part of the prose.
func citeRoles(x report.Text) []int {
	roles := make([]int, len(x))
	depth := 0
	var before strings.Builder // the sentence so far
	for i, sp := range x {
		if sp.Loc != nil {
			switch {
			case depth > 0:
				roles[i] = citeAside
			case strings.TrimSpace(before.String()) == "":
				roles[i] = citeSubject
			default:
				roles[i] = citeProse
			}
			before.WriteString("x")
			continue
		}
		text := sp.Text
		if !sp.Code {
			for _, r := range text {
				switch r {
				case '(':
					depth++
				case ')':
					if depth > 0 {
						depth--
					}
				}
			}
		}
		before.WriteString(text)
		// A sentence ends at a full stop outside code and parentheses.
		if !sp.Code && depth == 0 && strings.HasSuffix(strings.TrimRight(text, " "), ".") {
			before.Reset()
		}
	}
	return roles
}

// stepRef refers to step n of the way a section draws, named by whose
// way it is ("eviction step 13", "read step 11"), so that it is not read
// as one of the exercise's own steps.
func stepRef(n, section string) report.Span {
	label := "step " + n
	if w, ok := stepWays[section]; ok {
		label = w + " " + label
	}
	return report.RefSpan(label, section)
}

// stepWays names the ways the notes' sections draw.
var stepWays = map[string]string{"way": "eviction", "read": "read"}
