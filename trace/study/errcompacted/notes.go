package errcompacted

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/srctrace/srctrace/trace/cite"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/sites"
)

// Notes composes the study notes from a report: the answer first, then
// how the eviction and the read come about, the comparisons that decide,
// and an appendix. Every fact is said once and referred to after; every
// file:line comes from the report.
func Notes(rep *report.Report) *report.Doc {
	n := &notes{rep: rep, sg: rep.Signal, lab: labOf(rep)}
	if n.sg == nil {
		n.sg = &report.Signal{}
	}
	d := &report.Doc{Title: rep.Study.Title, Marker: cite.NewMarker(Study.Tgt().Name, rep.Etcd.Version, "source", rep.Etcd.Source).String()}
	d.Lead = n.lead()
	d.Sections = append(d.Sections, n.answer(), n.way(), n.read(), n.decide())
	d.Sections = append(d.Sections, kubernetesSections(rep)...) // with --kubernetes
	d.Sections = append(d.Sections, n.appendix()...)
	limitCites(d, maxCites)
	return d
}

type notes struct {
	rep *report.Report
	sg  *report.Signal
	lab *LabRecord // the lab's record merged in, if any
}

// labOf reads the lab's record merged into rep, if there is one.
func labOf(rep *report.Report) *LabRecord {
	if len(rep.Lab) == 0 {
		return nil
	}
	var l LabRecord
	if err := json.Unmarshal(rep.Lab, &l); err != nil {
		return nil
	}
	return &l
}

// t builds text from parts: strings are plain text (with `code` and {N}
// citations of the locs that follow them), report.Loc a citation,
// report.Span as it is.
func t(parts ...any) report.Text {
	var out report.Text
	var locs []report.Loc
	var pending []string
	flush := func() {
		for _, s := range pending {
			out = append(out, report.Sentence(s, locs)...)
		}
		pending, locs = nil, nil
	}
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			flush()
			pending = append(pending, x)
		case report.Loc:
			if len(pending) > 0 && placeholder.MatchString(pending[len(pending)-1]) {
				locs = append(locs, x)
				continue
			}
			flush()
			out = append(out, report.Cite(x))
		case report.Span:
			flush()
			out = append(out, x)
		case report.Text:
			flush()
			out = append(out, x...)
		}
	}
	flush()
	return out
}

var placeholder = regexp.MustCompile(`\{\d+\}`)

func code(s string) report.Span { return report.CodeSpan(s) }

// verdict returns the verdict with id, if the analysis gave one.
func (n *notes) verdict(id string) (report.Verdict, bool) {
	for _, v := range n.sg.Verdicts {
		if v.ID == id {
			return v, true
		}
	}
	return report.Verdict{}, false
}

// verdictText is a verdict's sentence as text.
func (n *notes) verdictText(id string) report.Text {
	v, ok := n.verdict(id)
	if !ok {
		return nil
	}
	return report.Sentence(v.Sentence, v.Lines)
}

func (n *notes) chain(behaviour string) *report.Chain {
	for i := range n.sg.Chains {
		if n.sg.Chains[i].Behaviour == behaviour {
			return &n.sg.Chains[i]
		}
	}
	return nil
}

// behaviourWith returns the first of the exercise's behaviours whose
// chain holds a step of kind, in study order.
func (n *notes) exercise() []report.Behaviour {
	var out []report.Behaviour
	for _, b := range n.rep.Behaviours {
		if !b.Probe {
			out = append(out, b)
		}
	}
	return out
}

func (n *notes) probes() []report.Behaviour {
	var out []report.Behaviour
	for _, b := range n.rep.Behaviours {
		if b.Probe {
			out = append(out, b)
		}
	}
	return out
}

func (n *notes) lead() report.Text {
	r := n.rep
	src := "Go modules from the module proxy"
	if r.Etcd.Source == "dir" {
		src = "a local checkout"
		if r.Etcd.Dirty {
			src += " with uncommitted changes"
		}
	}
	lead := t(fmt.Sprintf("Notes written by srctrace %s from etcd %s (%s). Every file, line and code text below was read in that source", r.Study.Name, r.Etcd.Version, src))
	if n.lab != nil {
		lead = append(lead, t(fmt.Sprintf("; the lab ran on a real etcd %s with the real etcdctl", n.lab.Etcd.Version))...)
	}
	if r.Observe != nil {
		lead = append(lead, t("; coverage marks what ran in each behaviour")...)
	}
	lead = append(lead, t(". "+r.Study.Summary)...)
	return lead
}

// answer is the first screen: the exercise's prediction answered in its
// own terms (which set each watcher is in, where that is decided, what
// moves a watcher between sets, so which dies), the timing by hand, the
// claims, decided, the citation of what the behaviours involve, and one
// sentence per behaviour.
// movesKey are the facts of how a watcher moves between the sets.
var movesKey = map[string]bool{FactLeavesUnsynced: true, FactUnsyncedEnds: true, FactLeavesSynced: true}

// setMoves says how a watcher moves between the sets: a paragraph that
// leads, and the facts, one item for each set.
func (n *notes) setMoves() []report.Block {
	v, ok := n.verdict("sets")
	if !ok {
		return nil
	}
	var items []report.Text
	for _, f := range v.Facts {
		if !movesKey[f.Key] {
			continue
		}
		// How a watcher leaves the behind set for no set goes with how it
		// leaves it for another.
		if f.Key == FactUnsyncedEnds && len(items) > 0 {
			items[len(items)-1] = append(append(items[len(items)-1], report.Plain(" ")), factText(f)...)
			continue
		}
		items = append(items, factText(f))
	}
	if len(items) == 0 {
		return nil
	}
	return []report.Block{{Para: t("How a watcher moves between the sets:")}, {List: &report.List{Items: items}}}
}

func (n *notes) answer() report.Section {
	s := report.Section{ID: "answer", Title: "The answer"}
	if v, ok := n.verdict("sets"); ok && len(v.Facts) > 0 {
		// The prediction, in one sentence, before any detail; else the
		// exercise's question.
		lead := t(report.StrongSpan("Which watcher dies, in terms of its set."), " "+v.Question+" In the code of etcd "+n.rep.Etcd.Version+":")
		if f, ok := n.fact("sets", FactPrediction); ok {
			lead = t(report.StrongSpan("Which watcher dies, in terms of its set."), " ")
			lead = append(lead, factText(f)...)
			if w, ok := n.fact("sets", FactSetWords); ok {
				lead = append(lead, report.Plain(" "))
				lead = append(lead, factText(w)...)
			}
			// What a compaction typed by hand does, in a few words: the
			// timing comes last, after where the sets are decided.
			if _, ok := n.fact("replay", FactBothSurviveByHand); ok {
				lead = append(lead, t(" Typed by hand, the compaction comes after the replay and both survive, unless the replay's passes themselves take longer than typing it (the timing by hand, below).")...)
			} else if _, ok := n.fact("replay", FactBehindDiesByHand); ok {
				lead = append(lead, t(" Typed by hand, the compaction lands during the replay (the timing by hand, below).")...)
			}
			lead = append(lead, t(" Where that is decided, in the code of etcd "+n.rep.Etcd.Version+":")...)
		}
		s.Blocks = append(s.Blocks, report.Block{Para: lead})
		_, predicted := n.fact("sets", FactPrediction)
		var items []report.Text
		moved := false
		for _, f := range v.Facts {
			// The prediction and its words open the answer; the items'
			// own conclusion would say it again.
			if f.Key == FactPrediction || f.Key == FactSetWords || (predicted && f.Key == FactBehindDies) {
				continue
			}
			// How a watcher moves between the sets, the rarer ways out
			// (a full channel, a restore, a cancel) with it, is told with
			// why the behind watcher dies (setMoves).
			if movesKey[f.Key] {
				moved = true
				continue
			}
			// Where terminal 1 is put goes with where terminal 2 is; how
			// a watcher leaves every set, with how it leaves the behind one.
			if (f.Key == FactBehindInUnsynced || f.Key == FactUnsyncedEnds || f.Key == FactBehindDies) && len(items) > 0 {
				items[len(items)-1] = append(append(items[len(items)-1], report.Plain(" ")), factText(f)...)
				continue
			}
			items = append(items, factText(f))
		}
		if moved {
			items = append(items, t("How a watcher moves between the sets, with the rarer ways out of each (a full channel, a restore, a cancel), is told under ", report.RefSpan("why the behind watcher dies", "why-evict"), "."))
		}
		// And so, by hand: the timing, the prediction's last item.
		if f, ok := n.fact("replay", FactByHand); ok {
			p := t(report.StrongSpan("The timing by hand."), " ")
			p = append(p, factText(f)...)
			p = append(p, t(" See ", report.RefSpan("how long the replay lasts", "replay"), ".")...)
			items = append(items, p)
		}
		s.Blocks = append(s.Blocks, report.Block{List: &report.List{Items: items}})
	}
	if len(n.sg.Claims) > 0 {
		tb := &report.Table{Head: []report.Text{t("where"), t("the exercise says"), t("holds"), t("why, in the code of etcd " + n.rep.Etcd.Version)}}
		// Claims decided by the same fact, the same way, share a row.
		rowOf := map[string]int{}
		for _, c := range n.sg.Claims {
			outcome := c.Outcome
			if outcome == "" {
				// A report written before outcomes: from holds.
				outcome = report.OutcomeUndecided
				if c.Holds != nil {
					outcome = map[bool]string{true: report.OutcomeYes, false: report.OutcomeNo}[*c.Holds]
				}
			}
			holds := report.Cell{Text: t(outcome), Class: map[string]string{report.OutcomeYes: "yes", report.OutcomeNo: "no", report.OutcomePartly: "only-if", report.OutcomeOnlyIf: "only-if"}[outcome]}
			if holds.Class == "" {
				holds.Class = "unknown"
			}
			if outcome == report.OutcomeNo || outcome == report.OutcomePartly || outcome == report.OutcomeOnlyIf {
				holds.Text = report.Text{report.StrongSpan(outcome)}
			}
			why := report.Text{report.Plain("the analysis establishes neither way")}
			if c.Fact != nil {
				why = factText(*c.Fact)
				if c.Part != nil {
					// A claim that holds in part: which part holds and
					// which does not, each said so. The fact is the
					// claim's Holds or its Fails, the part the other side.
					if outcome == report.OutcomePartly {
						first, then := "Holds:", "Does not hold:"
						if c.Fact.Key == c.FailsIf {
							first, then = then, first
						}
						why = append(report.Text{report.StrongSpan(first), report.Plain(" ")}, why...)
						why = append(why, report.Plain(". "), report.StrongSpan(then), report.Plain(" "))
					} else {
						why = append(why, report.Plain(". "))
					}
					if sameLines(c.Part.Lines, c.Fact.Lines) {
						// Cited once, after the first.
						why = append(why, t(c.Part.Text)...)
					} else {
						why = append(why, factText(*c.Part)...)
					}
				}
			}
			key := outcome + "\x00" + textKey(why)
			if i, ok := rowOf[key]; ok && c.Fact != nil {
				row := tb.Rows[i]
				if w := plainText(row[0].Text); !strings.Contains(w, c.Where) {
					row[0].Text = t(w + ", " + c.Where)
				}
				row[1].Text = append(row[1].Text, t(" “"+c.Says+"”")...)
				continue
			}
			rowOf[key] = len(tb.Rows)
			tb.Rows = append(tb.Rows, []report.Cell{{Text: t(c.Where)}, {Text: t("“" + c.Says + "”")}, holds, {Text: why}})
		}
		s.Blocks = append(s.Blocks, report.Block{Para: t(report.StrongSpan("The exercise's claims."), " The column holds says: yes, the code does what the claim says, on every run; no, it does not; undecided, the analysis cannot tell either way. A claim marked partly holds only in part, and its row says which part holds and which does not. One marked only if holds only when a condition does, which its row names.")})
		s.Blocks = append(s.Blocks, report.Block{Table: tb})
	}
	if len(n.sg.Corrected) > 0 {
		s.Blocks = append(s.Blocks, report.Block{Para: t(report.StrongSpan("The corrected citation."), fmt.Sprintf(" In place of %s's grep, as `git grep -n` prints them: the lines that put each watch in its set, pace the sync loop, decide, signal and carry each behaviour's error to what %s prints, and declare the values returned on the way.", n.rep.Citation.Step, n.toolOr("the tool")))})
		c := &report.Code{Lang: "text"}
		for _, l := range n.sg.Corrected {
			l := l
			c.Lines = append(c.Lines, report.CodeLine{Text: fmt.Sprintf("%s:%d:%s", l.File, l.Line, l.Text), Loc: &report.Loc{File: l.File, Line: l.Line}})
		}
		s.Blocks = append(s.Blocks, report.Block{Code: c})
	}
	var items []report.Text
	ex := n.exercise()
	for i, b := range ex {
		// A behaviour that takes the first one's way differs by when the
		// compaction comes: its watch is accepted, then canceled.
		again := i > 0 && n.chain(b.ID) != nil && n.chain(ex[0].ID) != nil && sameWay(n.chain(ex[0].ID), n.chain(b.ID))
		// The read's stderr starts with the client library's own line.
		var first report.Text
		if f, ok := n.fact("retry", FactClientWarnLine); ok && n.chain(b.ID) != nil && n.chain(ex[0].ID) != nil && !sameWay(n.chain(ex[0].ID), n.chain(b.ID)) {
			first = factText(f)
		}
		if again && len(items) > 0 && n.sameOutput(ex[0].ID, b.ID) {
			items[len(items)-1] = append(items[len(items)-1], n.sameWaySentence(b)...)
			continue
		}
		items = append(items, n.behaviourSentence(b, again, first))
	}
	if len(items) > 0 {
		s.Blocks = append(s.Blocks, report.Block{List: &report.List{Items: items}})
	}
	return s
}

// fact is the fact with key of the verdict with id.
func (n *notes) fact(id, key string) (report.Fact, bool) {
	v, ok := n.verdict(id)
	if !ok {
		return report.Fact{}, false
	}
	for _, f := range v.Facts {
		if f.Key == key {
			return f, true
		}
	}
	return report.Fact{}, false
}

// factText is a fact as text: a fact that cites its lines in place ({N})
// as it says; another with every line it rests on after it, none hidden.
func factText(f report.Fact) report.Text {
	if placeholder.MatchString(f.Text) {
		return report.Sentence(f.Text, f.Lines)
	}
	return append(t(f.Text), citeList(f.Lines, len(f.Lines))...)
}

// toolOr is the tool's name, or def when the report has none.
func (n *notes) toolOr(def string) string {
	if name := n.toolName(); name != "" {
		return name
	}
	return def
}

// cites are up to max citations in parentheses.
func (n *notes) cites(ls []report.Loc, max int) report.Text { return citeList(ls, max) }

// citeList is up to max citations in parentheses, nothing for none.
func citeList(ls []report.Loc, max int) report.Text {
	if len(ls) == 0 {
		return nil
	}
	out := report.Text{report.Plain(" (")}
	for i, l := range ls {
		if i == max {
			out = append(out, report.Plain(", …"))
			break
		}
		if i > 0 {
			out = append(out, report.Plain(", "))
		}
		out = append(out, report.Cite(l))
	}
	return append(out, report.Plain(")"))
}

// sameWayAsFirst reports whether behaviour id takes the way of the
// exercise's first behaviour (the eviction's).
func (n *notes) sameWayAsFirst(id string) bool {
	ex := n.exercise()
	if len(ex) == 0 {
		return false
	}
	a, b := n.chain(ex[0].ID), n.chain(id)
	return a != nil && b != nil && sameWay(a, b)
}

// toolName is the command line tool's name ("" when there is none).
func (n *notes) toolName() string {
	if n.sg != nil && n.sg.Tool != nil {
		return n.sg.Tool.Name
	}
	return ""
}

// behaviourSentence says what decides a behaviour and what the user sees;
// accepted says that its watch is accepted before it is decided; first is
// what comes on stderr before the tool's own lines, if anything.
func (n *notes) behaviourSentence(b report.Behaviour, accepted bool, first report.Text) report.Text {
	out := report.Text{report.StrongSpan(b.Title), report.Plain(": ")}
	c := n.chain(b.ID)
	if c == nil {
		return append(out, t("no way through the code is drawn for it in this release")...)
	}
	var decision, create, exit *report.Step
	var tool []report.Step
	for i := range c.Steps {
		st := &c.Steps[i]
		switch st.Kind {
		case "decision":
			if decision == nil {
				decision = st
			}
		case "create":
			create = st
		case "tool":
			tool = append(tool, *st)
		case "exit":
			exit = st
		}
	}
	if accepted && create != nil {
		out = append(out, t("the watch is accepted (", create.Loc, "), then ")...)
	}
	if decision != nil {
		out = append(out, t("decided by ", code(decision.Text), " (", decision.Loc, ")")...)
		if _, ok := n.verdict("replay"); ok && !accepted && n.sameWayAsFirst(b.ID) {
			// Mid-stream: only while its progress is below the compaction
			// revision, which the replay's passes soon leave behind.
			out = append(out, t(", if the compaction lands while the watcher is still behind (in the set the sync loop catches up), its progress below the compaction revision (", report.RefSpan("how long the replay lasts", "replay"), ")")...)
		}
	}
	out = append(out, report.Plain("."))
	// What the tool prints, a sentence of its own that starts with a
	// capital; its exit status, another.
	if len(tool) > 0 {
		out = append(out, report.Plain(" On stderr, "))
		if len(first) > 0 {
			out = append(out, first...)
			out = append(out, report.Plain("; then"))
		}
	}
	for i, st := range tool {
		// The step's label says what the tool prints, quoted.
		switch {
		case i == 0 && len(first) > 0:
			out = append(out, t(" "+st.Label)...)
		case i == 0:
			out = append(out, t(st.Label)...)
		default:
			out = append(out, t(", then "+strings.TrimPrefix(st.Label, n.toolName()+" prints "))...)
		}
	}
	if len(tool) > 0 {
		out = append(out, report.Plain("."))
	}
	if exit != nil {
		who := "It"
		if len(tool) == 0 {
			who = n.toolOr("The tool")
		}
		out = append(out, t(" "+who+" "+strings.TrimPrefix(exit.Label, "and ")+".")...)
	}
	return out
}

// sameOutput reports whether two behaviours' ways end with the same
// printed lines and exit.
func (n *notes) sameOutput(a, b string) bool {
	ca, cb := n.chain(a), n.chain(b)
	if ca == nil || cb == nil {
		return false
	}
	tail := func(c *report.Chain) string {
		var out []string
		for _, st := range c.Steps {
			if st.Kind == "tool" || st.Kind == "exit" {
				out = append(out, st.Label)
			}
		}
		return strings.Join(out, "\x00")
	}
	return tail(ca) != "" && tail(ca) == tail(cb)
}

// sameWaySentence says that behaviour b takes the way of the one before:
// accepted first, then decided by the same comparison, with the same
// output.
func (n *notes) sameWaySentence(b report.Behaviour) report.Text {
	out := report.Text{report.Plain(" "), report.StrongSpan(b.Title), report.Plain(" takes the same way")}
	// Its watch is accepted before the decision.
	if c := n.chain(b.ID); c != nil {
		for _, st := range c.Steps {
			if st.Kind == "create" {
				out = append(out, t(": the watch is accepted (", st.Loc, "), then canceled by the same comparison")...)
				break
			}
		}
	}
	return append(out, t(", and "+n.toolOr("the tool")+" prints the same and exits the same.")...)
}

func (n *notes) probesSentence(ps []report.Behaviour) report.Text {
	out := t(fmt.Sprintf("The lab's %d probes, requests outside the exercise that it makes with --lab, reach lines of %s's grep by paths the analysis finds can run.", len(ps), n.rep.Citation.Step))
	for _, b := range ps {
		out = append(out, report.Plain(" "))
		out = append(out, code(b.ID))
		out = append(out, report.Plain(": "+strings.TrimSuffix(b.Lab, ".")))
		var at []report.Loc
		for _, si := range b.Sites {
			if s := n.rep.Sites[si]; s.Cited {
				at = append(at, report.Loc{File: s.File, Line: s.Line})
			}
		}
		out = append(out, n.cites(at, 2)...)
		// What can answer the probe's request before that line.
		if f, ok := n.fact("probes", FactReturnsFirst+":"+b.ID); ok {
			out = append(out, report.Plain(", "))
			out = append(out, factText(f)...)
		}
		out = append(out, report.Plain("."))
	}
	return out
}

// way is the eviction's chain, with the reopen's differences marked in it.
func (n *notes) way() report.Section {
	s := report.Section{ID: "way", Title: "How the eviction comes about"}
	ex := n.exercise()
	if len(ex) == 0 {
		return s
	}
	main := n.chain(ex[0].ID)
	if main == nil {
		s.Blocks = append(s.Blocks, report.Block{Para: t("No way through the code is drawn for the eviction in this release.")})
		return s
	}
	var other *report.Chain
	var otherID string
	for _, b := range ex[1:] {
		if c := n.chain(b.ID); c != nil && c.Behaviour != main.Behaviour && sameWay(main, c) {
			other, otherID = c, b.ID
		}
	}
	steps := main.Steps
	differs := map[int]bool{}
	if other != nil {
		steps, differs = merge(main.Steps, other.Steps)
	}
	steps, differs = joinSamePlace(steps, differs)
	s.Blocks = append(s.Blocks, report.Block{Para: t("Solid arrows are calls and what the code does next; dotted arrows are hand-offs a call graph cannot follow: a field one goroutine writes and another reads, a watcher group, a channel, the network. A rounded box marks where a request comes in (an entry). A goroutine the server starts itself, as the sync loop, begins at a plain box, at the statement that starts it. The decision's box has a shape of its own (a hexagon in the Markdown's diagram, square corners on the HTML page). ")})
	switch {
	case other != nil && len(differs) > 0:
		s.Blocks[len(s.Blocks)-1].Para = append(s.Blocks[len(s.Blocks)-1].Para, t(fmt.Sprintf("The way of the %s is the same, with the steps marked %s.", strings.ToLower(n.title(otherID)), "“"+otherID+" only”"))...)
	case other != nil:
		s.Blocks[len(s.Blocks)-1].Para = append(s.Blocks[len(s.Blocks)-1].Para, t(fmt.Sprintf("The %s takes the same way, step for step; what differs is when the compaction comes (", strings.ToLower(n.title(otherID))))...)
		s.Blocks[len(s.Blocks)-1].Para = append(s.Blocks[len(s.Blocks)-1].Para, report.RefSpan("below", "reopen"), report.Plain(")."))
	}
	s.Blocks = append(s.Blocks, report.Block{Diagram: n.diagram(steps, differs, ex[0].ID)})
	s.Blocks = append(s.Blocks, report.Block{List: &report.List{Ordered: true, Items: n.stepItems(steps, differs, otherID, ex[0].ID)}})
	var why []report.Block
	for _, id := range []string{"evict", "current", "cleanup", "choose"} {
		if v := n.verdictText(id); v != nil {
			why = append(why, report.Block{Para: v})
		}
	}
	why = append(why, n.setMoves()...)
	if len(why) > 0 {
		s.Sections = append(s.Sections, report.Section{ID: "why-evict", Title: "Why the behind watcher dies and the current one does not", Blocks: why})
	}
	if other != nil {
		s.Sections = append(s.Sections, n.reopen(otherID))
	}
	if cl := n.clientPart(); len(cl.Blocks) > 0 {
		s.Sections = append(s.Sections, cl)
	}
	return s
}

func (n *notes) title(id string) string {
	for _, b := range n.rep.Behaviours {
		if b.ID == id {
			return b.Title
		}
	}
	return id
}

// sameWay reports whether two chains share their decision.
func sameWay(a, b *report.Chain) bool {
	da, db := "", ""
	for _, s := range a.Steps {
		if s.Kind == "decision" {
			da = fmt.Sprintf("%s:%d", s.File, s.Line)
		}
	}
	for _, s := range b.Steps {
		if s.Kind == "decision" {
			db = fmt.Sprintf("%s:%d", s.File, s.Line)
		}
	}
	return da != "" && da == db
}

// merge lays b's steps over a's: the result is a with b's extra steps in
// place, marked.
func merge(a, b []report.Step) ([]report.Step, map[int]bool) {
	key := func(s report.Step) string { return fmt.Sprintf("%s|%s:%d", s.Kind, s.File, s.Line) }
	inA := map[string]bool{}
	for _, s := range a {
		inA[key(s)] = true
	}
	// b's steps in b's order: each of a's steps keeps its arrows; an extra
	// step of b is placed after the step b has before it.
	var out []report.Step
	differs := map[int]bool{}
	index := map[string]int{}
	for _, s := range a {
		index[key(s)] = len(out)
		s.From = append([]report.StepLink(nil), s.From...) // the report's own stay as they are
		out = append(out, s)
	}
	for i, s := range b {
		if inA[key(s)] {
			continue
		}
		at := len(out)
		if i > 0 {
			if j, ok := index[key(b[i-1])]; ok {
				at = j + 1
			}
		}
		// Insert at, renumbering the arrows.
		s.From = nil
		if i > 0 {
			if j, ok := index[key(b[i-1])]; ok {
				s.From = []report.StepLink{{Step: j}}
			}
		}
		out = append(out[:at], append([]report.Step{s}, out[at:]...)...)
		for k := range out {
			if k == at {
				continue
			}
			for m := range out[k].From {
				if out[k].From[m].Step >= at {
					out[k].From[m].Step++
				}
			}
		}
		shifted := map[int]bool{}
		for k := range differs {
			if k >= at {
				shifted[k+1] = true
			} else {
				shifted[k] = true
			}
		}
		differs = shifted
		differs[at] = true
		for k, v := range index {
			if v >= at {
				index[k] = v + 1
			}
		}
		index[key(s)] = at
	}
	return out, differs
}

// joinSamePlace makes one step of consecutive steps at one position
// (file and line), so that a way never numbers one line twice: the step
// says what each of them says, with the longer code when one code holds
// the other, and keeps the arrows into and out of both. Steps marked
// differently (one of them the other behaviour's only) stay apart.
func joinSamePlace(steps []report.Step, differs map[int]bool) ([]report.Step, map[int]bool) {
	at := make([]int, len(steps)) // a step's index in the joined steps
	n := 0
	for i := range steps {
		if i > 0 && samePlace(steps[i-1], steps[i]) && differs[i-1] == differs[i] {
			at[i] = at[i-1]
			continue
		}
		at[i] = n
		n++
	}
	out := make([]report.Step, 0, n)
	outDiffers := map[int]bool{}
	for i, st := range steps {
		if k := at[i]; k < len(out) {
			out[k] = joinSteps(out[k], st, k, at)
			continue
		}
		st.From = append([]report.StepLink(nil), st.From...)
		for m := range st.From {
			st.From[m].Step = at[st.From[m].Step]
		}
		if differs[i] {
			outDiffers[len(out)] = true
		}
		out = append(out, st)
	}
	return out, outDiffers
}

func samePlace(a, b report.Step) bool {
	return a.File == b.File && a.Line == b.Line && a.Repo == b.Repo
}

// joinSteps is step a (at index k of the steps being joined) with b, the
// step after it at the same position, folded in; at maps b's arrows.
func joinSteps(a, b report.Step, k int, at []int) report.Step {
	out := a
	if b.Kind == "decision" || b.Kind == "entry" {
		out.Kind, out.Text = b.Kind, b.Text
	}
	pa, ca := splitLabel(a)
	pb, cb := splitLabel(b)
	code := ca
	switch {
	case cb == "" || strings.Contains(ca, cb):
	case ca == "" || strings.Contains(cb, ca):
		code = cb
	default:
		// Two codes of one line that neither holds: each stays with its
		// words.
		pa, pb, code = pa+" `"+ca+"`", pb+" `"+cb+"`", ""
	}
	joined := pa
	switch {
	case strings.HasPrefix(pb, "and "):
		joined += ", " + pb
	default:
		joined += " and " + pb
	}
	out.Label = joined
	if code != "" {
		out.Label += ": " + code
	}
	if len(b.Text) > len(out.Text) && out.Kind != "decision" {
		out.Text = b.Text
	}
	for _, f := range b.From {
		to := at[f.Step]
		if to == k {
			continue // the arrow from a to b
		}
		dup := false
		for _, g := range out.From {
			dup = dup || g.Step == to
		}
		if !dup {
			out.From = append(out.From, report.StepLink{Step: to, Handoff: f.Handoff})
		}
	}
	if len(b.Observed) > 0 {
		obs := map[string]bool{}
		for k, v := range a.Observed {
			obs[k] = v
		}
		for k, v := range b.Observed {
			obs[k] = obs[k] || v
		}
		out.Observed = obs
	}
	if out.Feasible == "" || out.Feasible == "yes" {
		out.Feasible = b.Feasible
	}
	return out
}

// splitLabel is a step's label as its words and its code ("" when the
// label is words only).
func splitLabel(st report.Step) (string, string) {
	if st.Kind == "decision" {
		return "decision", st.Text
	}
	if codeLabel(st) {
		i := strings.Index(st.Label, ": ")
		return st.Label[:i], st.Label[i+2:]
	}
	return st.Label, ""
}

// codeLabel reports whether the step's label is prose, a colon, then the
// code that does it.
func codeLabel(st report.Step) bool {
	switch st.Kind {
	case "handoff", "create", "decision", "signal", "mark", "wire", "client", "close":
		return strings.Contains(st.Label, ": ") && !strings.Contains(st.Label, "\"")
	}
	return false
}

// label is a step's short label for a diagram node.
func label(st report.Step) string {
	l := st.Label
	if st.Kind == "decision" {
		return st.Text
	}
	if codeLabel(st) {
		l = l[:strings.Index(l, ": ")]
	}
	// A diagram's node names the condition; the list under it defines it.
	for _, cut := range []string{", where `", ", holding `"} {
		if i := strings.Index(l, cut); i >= 0 {
			l = l[:i]
		}
	}
	if strings.HasPrefix(l, "calls ") {
		l = funcLabel(strings.TrimPrefix(l, "calls "))
	}
	l = strings.ReplaceAll(l, "`", "")
	// A node names its step whole: the texts a tool prints and the
	// conditions its exit holds under are what the node is about. Only an
	// unusually long one is cut, at a word.
	if r := []rune(l); len(r) > 120 {
		cut := string(r[:119])
		if i := strings.LastIndex(cut, " "); i > 80 {
			cut = cut[:i]
		}
		l = cut + "…"
	}
	return l
}

// stepText is a step's label as text: its prose, and its code as code.
func stepText(st report.Step) report.Text {
	if codeLabel(st) {
		i := strings.Index(st.Label, ": ")
		return append(quoted(st.Label[:i]+": "), code(st.Label[i+2:]))
	}
	if strings.HasPrefix(st.Label, "calls ") {
		return append(t("calls "), funcText(strings.TrimPrefix(st.Label, "calls "))...)
	}
	return quoted(st.Label)
}

// funcText names a function as the source writes it: the compiler's names
// of func literals and method values become words.
func funcText(name string) report.Text {
	if base, kind := report.Literal(name); kind != "" {
		return t("a "+kind+" in ", code(base))
	}
	return report.Text{code(name)}
}

// funcLabel is funcText as plain text, for a diagram's node.
func funcLabel(name string) string {
	if base, kind := report.Literal(name); kind != "" {
		return "a " + kind + " in " + base
	}
	return name
}

// quoted is prose whose parts in backticks are code.
func quoted(s string) report.Text {
	var out report.Text
	for i, part := range strings.Split(s, "`") {
		switch {
		case part == "":
		case i%2 == 1:
			out = append(out, code(part))
		default:
			out = append(out, report.Plain(part))
		}
	}
	return out
}

func (n *notes) diagram(steps []report.Step, differs map[int]bool, behaviour string) *report.Diagram {
	g := &report.Diagram{}
	for i, st := range steps {
		st := st
		node := report.Node{ID: fmt.Sprintf("s%d", i), Label: fmt.Sprintf("%d. %s", i+1, label(st)), Kind: st.Kind, Loc: &report.Loc{File: st.File, Line: st.Line}}
		if differs[i] {
			node.Class = "differs"
		} else if ran, ok := st.Observed[behaviour]; ok {
			node.Class = map[bool]string{true: "ran", false: "not-ran"}[ran]
		}
		g.Nodes = append(g.Nodes, node)
		for _, f := range st.From {
			style := "call"
			if f.Handoff {
				style = "handoff"
			}
			g.Edges = append(g.Edges, report.Edge{From: fmt.Sprintf("s%d", f.Step), To: node.ID, Style: style})
		}
	}
	return g
}

func (n *notes) stepItems(steps []report.Step, differs map[int]bool, other, behaviour string) []report.Text {
	var items []report.Text
	for i, st := range steps {
		item := append(stepText(st), t(" — ", report.Loc{File: st.File, Line: st.Line})...)
		var marks []string
		if differs[i] {
			marks = append(marks, other+" only")
		}
		if st.Feasible != "" && st.Feasible != "yes" {
			marks = append(marks, "reached "+st.Feasible)
		}
		if ran, ok := st.Observed[behaviour]; ok && !differs[i] {
			marks = append(marks, map[bool]string{true: "ran", false: "did not run"}[ran])
		} else if ran, ok := st.Observed[other]; ok && differs[i] {
			marks = append(marks, map[bool]string{true: "ran", false: "did not run"}[ran])
		}
		if len(marks) > 0 {
			item = append(item, report.Plain(" ("+strings.Join(marks, "; ")+")"))
		}
		items = append(items, item)
	}
	return items
}

// reopen is how the reopened watch differs: accepted, held, canceled.
func (n *notes) reopen(id string) report.Section {
	s := report.Section{ID: "reopen", Title: "How the " + strings.ToLower(n.title(id)) + " differs"}
	if v := n.verdictText("reopen"); v != nil {
		s.Blocks = append(s.Blocks, report.Block{Para: v})
	}
	if c := n.sg.Created; c != nil && (c.Hold != nil || c.Gate != nil) {
		var p report.Text
		if c.Hold != nil && c.HoldAt != nil {
			p = append(p, t("The server sends the create response before anything else of the watch: the send loop holds a watch's responses while ", code(c.Hold.Text), " (", *c.Hold, "), in ", code(c.HoldAt.Text), " (", *c.HoldAt, "), until its create response has gone out. ")...)
		}
		if c.Gate != nil {
			tool := n.toolOr("the tool")
			p = append(p, t("The Go client does not hand it to "+tool+": it hands a created response to the user only when ", code(c.Gate.Text), " (", *c.Gate, ")")...)
			if c.Option != "" && len(c.Asks) == 0 {
				p = append(p, t(", and "+tool+"'s watch never asks for that (no use of ", code(report.ShortName(c.Option)), " in its command)")...)
			}
			p = append(p, report.Plain("."))
		}
		s.Blocks = append(s.Blocks, report.Block{Para: p})
	}
	if v := n.verdictText("refused"); v != nil {
		s.Blocks = append(s.Blocks, report.Block{Para: v})
	}
	if p := n.refusals(); p != nil {
		s.Blocks = append(s.Blocks, report.Block{Para: p})
	}
	return s
}

// refusals says which requests are refused at open with the study's error
// text, and how the client shows it.
func (n *notes) refusals() report.Text {
	text := ""
	if n.sg.Client != nil {
		text = n.sg.Client.Error.Text
	}
	var out report.Text
	for _, x := range n.sg.Refusals {
		if text == "" || x.Text != text {
			continue // refused for another reason (auth, say)
		}
		lab := n.lab
		if lab == nil || lab.Reopen.Negative == nil || len(lab.Reopen.Negative.Raw) == 0 {
			continue
		}
		r := lab.Reopen.Negative.Raw[0]
		out = append(out, t("The refusal (", code(x.Cond), fmt.Sprintf("), seen in the lab on a raw watch stream: one response, created=%v and canceled=%v, reason %q; the Go client's Watch delivered ", r.Created, r.Canceled, r.CancelReason))...)
		neg := lab.Reopen.Negative
		switch {
		case neg.Created:
			out = append(out, t("the created response, then the cancel")...)
		default:
			out = append(out, t("no created response, only the cancel")...)
		}
		out = append(out, t(" (", report.RefSpan("the lab's record", "lab-reopen"), ").")...)
	}
	return out
}

// clientPart is the client's and etcdctl's half of the way.
func (n *notes) clientPart() report.Section {
	s := report.Section{ID: "client", Title: "The client's and etcdctl's part"}
	if rc := n.sg.Receive; rc != nil && len(rc.Cases) > 0 {
		p := t("The client's loop that handles each response of the stream (", rc.Loop, ") tries its cases in order on a compaction cancel.")
		// A sentence for each case.
		for _, c := range rc.Cases {
			switch c.Takes {
			case "takes":
				p = append(p, t(" ", code(c.Text), " (", c.Loc, ") matches it.")...)
			case "excludes":
				p = append(p, t(" ", code(c.Text), " (", c.Loc, ") does not match it")...)
				p = append(p, fragmentText(c)...)
				p = append(p, report.Plain("."))
			default:
				p = append(p, t(" Whether ", code(c.Text), " (", c.Loc, ") matches it depends on ", code(c.Unknown), ", which this analysis does not decide (the cases after it match only when it does not).")...)
			}
		}
		p = append(p, report.Plain(" "))
		if rc.Stop != nil && n.verdictText("closing") == nil {
			p = append(p, t("The substream hands the response to the user and returns when ", code(rc.Stop.Text), " (", *rc.Stop, ")")...)
			if rc.Close != nil {
				p = append(p, t("; then the loop's ", code(rc.Close.Case), " runs ", code(rc.Close.Text), " (", rc.Close.Loc, "), which closes the user's channel")...)
				for _, c := range rc.Closes {
					if c.Function == rc.Close.Callee {
						p = append(p, t(" (", c, ")")...)
						break
					}
				}
			} else if len(rc.Closes) > 0 {
				p = append(p, t("; the user's channel is closed by ", code(rc.Closes[0].Text), " in ", code(report.ShortName(rc.Closes[0].Function)), " (", rc.Closes[0], ")")...)
			}
			p = append(p, report.Plain(". "))
		}
		if len(rc.Resumes) > 0 {
			p = append(p, t(fmt.Sprintf("The client sends a watch's create request again in %d places only: ", len(rc.Resumes)))...)
			for i, r := range rc.Resumes {
				if i > 0 {
					p = append(p, report.Plain("; "))
				}
				p = append(p, t(code(r.Text), " (", r.Loc, "), in ", code(r.Case))...)
				if r.Inner != "" {
					p = append(p, t(", under ", code(r.Inner))...)
				}
			}
			p = append(p, t(". None of them is on a compaction cancel's way: handling the cancel sends no create request again. Whether one of them can run for the canceled watch before the loop closes its substream (a stream error handled in between, say) is not followed here: what follows is the loop's way when nothing comes between.")...)
		}
		s.Blocks = append(s.Blocks, report.Block{Para: p})
	}
	for _, id := range []string{"closing", "minimum", "values"} {
		v := n.verdictText(id)
		if v == nil {
			continue
		}
		if c := n.sg.Convert; id == "values" && c != nil && c.Read != nil {
			// The read's wire error is the read's step, not the
			// eviction's at the same line.
			for i, sp := range v {
				if sp.Loc != nil && sp.Loc.File == c.Read.File && sp.Loc.Line == c.Read.Line {
					if ref, ok := n.readStep(*c.Read); ok {
						v[i] = ref
					}
				}
			}
		}
		s.Blocks = append(s.Blocks, report.Block{Para: v})
	}
	if tl := n.sg.Tool; tl != nil && tl.Watch != nil {
		p := n.toolText(tl.Name, "watch", tl.Watch)
		if v := n.verdictText("json"); v != nil {
			p = append(append(p, report.Plain(" ")), v...)
		}
		s.Blocks = append(s.Blocks, report.Block{Para: p})
	}
	// The exercise's commands as it types them, where one is not a
	// command's name.
	if v := n.verdictText("typed"); strings.TrimSpace(plainText(v)) != "" {
		s.Blocks = append(s.Blocks, report.Block{Para: v})
	}
	return s
}

// fragmentText says why a case the response alone does not decide does
// not match a compaction cancel: the loop's variable is the response then,
// and the server sets the fragment flag only on a response with events,
// which the cancel has none of.
func fragmentText(c report.Case) report.Text {
	b := c.Because
	// The alias, the flag's writes and their guards (as many), the
	// cancel's literal, the send loop's copy of its events.
	if len(b) < 5 || (len(b)-3)%2 != 0 {
		return nil
	}
	k := (len(b) - 3) / 2
	alias, guards, none, cp := b[0], b[1+k:1+2*k], b[len(b)-2], b[len(b)-1]
	out := t(": a compaction cancel is never a fragment. The loop's ", code(strings.SplitN(alias.Text, " = ", 2)[0]), " is the response itself then (", code(strings.SplitN(alias.Text, " (", 2)[0]), ", ", alias, "). The server sets the flag only when ")
	for i, g := range guards {
		if i > 0 {
			out = append(out, report.Plain(" and "))
		}
		out = append(out, t(code(g.Text), " (", g, ")")...)
	}
	holds := "when one holds"
	switch len(guards) {
	case 1:
		out = append(out, report.Plain(" is false"))
		holds = "when it holds"
	case 2:
		out = append(out, report.Plain(" are both false"))
	default:
		out = append(out, report.Plain(" are all false"))
	}
	out = append(out, t(": "+holds+", a response with too few events goes out as it is. The cancel has none: its response sets no events (", none, "), and the send loop gives the wire response as many events as the channel's response has (", cp, ")")...)
	return out
}

// toolText says what the tool prints and how it exits, with credits.
func (n *notes) toolText(name, cmd string, run *report.ToolRun) report.Text {
	p := t(fmt.Sprintf("Evaluated from its code, %s's %s prints on stderr ", name, cmd))
	for i, l := range run.Stderr {
		if i > 0 {
			p = append(p, report.Plain(", then "))
		}
		// What it prints is output, not code: quoted, with where it is printed.
		p = append(p, t(`"`+l.Text+`" (printed at `, l.At, ")")...)
		if l.Built != nil {
			p = append(p, t(", a message made at ", *l.Built)...)
		}
	}
	if run.ExitAt.File != "" {
		p = append(p, t(fmt.Sprintf(". It exits with status %d", run.Exit))...)
		if run.ExitFrom != nil {
			p = append(p, t(", chosen at ", *run.ExitFrom)...)
		}
		if run.ExitDecl != nil {
			p = append(p, t(" (", code(report.ShortName(run.ExitBy)), ", ", *run.ExitDecl, ")")...)
		}
		if run.CallsSucceed {
			p = append(p, report.Plain(", when its other calls succeed"))
		}
	}
	return append(p, report.Plain("."))
}

// readWay is the behaviour of the exercise whose way is not the
// eviction's (the read), and the steps its section draws; nil when there
// is none.
func (n *notes) readWay() (*report.Behaviour, []report.Step) {
	ex := n.exercise()
	if len(ex) == 0 {
		return nil, nil
	}
	var rb *report.Behaviour
	for _, b := range ex {
		b := b
		if c := n.chain(b.ID); c != nil && n.chain(ex[0].ID) != nil && !sameWay(n.chain(ex[0].ID), c) {
			rb = &b
		}
	}
	if rb == nil {
		return nil, nil
	}
	steps, _ := joinSamePlace(n.chain(rb.ID).Steps, nil)
	return rb, steps
}

// readStep refers to the step of the read's drawn way at l, if it has
// one: the read's own line, where the same line is also a step of the
// eviction's way.
func (n *notes) readStep(l report.Loc) (report.Span, bool) {
	_, steps := n.readWay()
	for i, st := range steps {
		if st.File == l.File && st.Line == l.Line {
			return stepRef(fmt.Sprint(i+1), "read"), true
		}
	}
	return report.Span{}, false
}

// read is exercise 6's historical read.
func (n *notes) read() report.Section {
	s := report.Section{ID: "read", Title: "Exercise 6's read"}
	rb, steps := n.readWay()
	if rb == nil {
		s.Blocks = append(s.Blocks, report.Block{Para: t("No way of the read is drawn in this release.")})
		return s
	}
	s.Blocks = append(s.Blocks, report.Block{Diagram: n.diagram(steps, nil, rb.ID)})
	s.Blocks = append(s.Blocks, report.Block{List: &report.List{Ordered: true, Items: n.stepItems(steps, nil, "", rb.ID)}})
	if v := n.verdictText("read"); v != nil {
		s.Blocks = append(s.Blocks, report.Block{Para: v})
	}
	if tl := n.sg.Tool; tl != nil && tl.Get != nil {
		p := n.toolText(tl.Name, "get", tl.Get)
		if v := n.verdictText("retry"); v != nil {
			p = append(append(p, report.Plain(" ")), v...)
		}
		s.Blocks = append(s.Blocks, report.Block{Para: p})
	}
	return s
}

// decide is the table of the comparisons that decide.
func (n *notes) decide() report.Section {
	s := report.Section{ID: "decide", Title: "The comparisons that decide"}
	tb := &report.Table{Head: []report.Text{t("comparison"), t("at"), t("what it guards"), t("at C"), t("reached from")}}
	for _, c := range n.sg.Comparisons {
		if c.Kind != "decision" {
			continue
		}
		guard := t(c.Consequence)
		if c.Guarded != nil {
			guard = append(guard, t(" (", *c.Guarded, ")")...)
		}
		atC := "passes"
		if c.LowestPassing == 1 {
			atC = "fails"
		}
		cmp := report.Text{code(c.Text)}
		if c.Guard != "" {
			cmp = report.Text{code(c.Text), report.Plain(", in "), code(c.Guard)}
		}
		tb.Rows = append(tb.Rows, []report.Cell{
			{Text: cmp},
			{Text: report.Text{report.Cite(c.Loc)}},
			{Text: guard},
			{Text: t(atC)},
			{Text: t(strings.Join(n.feasibleFrom(c.Loc), ", "))},
		})
	}
	s.Blocks = append(s.Blocks, report.Block{Para: t("The column at C says passes when revision C itself, the compaction revision, gets past the comparison, that is, does not lead to what the comparison guards (C is then the lowest revision that passes), and fails when C leads to it too. The column reached from names the entries with a path that can run to what the comparison guards; → marks one that reaches it only across a hand-off, and ? one whose way there the analysis does not decide (the JSON's paths say why). An entry that only sets a value compared (a compaction, which sets the compaction revision the sync loop's comparison reads) is not named for that: it decides how the comparison comes out, but no way of its own runs what the comparison guards.")})
	s.Blocks = append(s.Blocks, report.Block{Table: tb})
	if g := n.groupWays(); g != nil {
		s.Blocks = append(s.Blocks, report.Block{Para: g})
	}
	if v := n.verdictText("boundary"); v != nil {
		s.Blocks = append(s.Blocks, report.Block{Para: v})
	}
	return s
}

// feasibleFrom names the entries that reach what the comparison at l
// guards by a path that can run: the pairs of the use it guards, when it
// guards one (→ marks a crossing); else the entries its chain starts from.
func (n *notes) feasibleFrom(l report.Loc) []string {
	for _, c := range n.sg.Comparisons {
		if c.File != l.File || c.Line != l.Line {
			continue
		}
		if c.Guarded != nil {
			for si, s := range n.rep.Sites {
				if s.File != c.Guarded.File || s.Line != c.Guarded.Line {
					continue
				}
				var out []string
				for _, p := range n.rep.Paths {
					if p.Site.Index != si {
						continue
					}
					can := func(v string) bool { return v == "yes" || v == "only-if" }
					across := len(p.Crossing) > 0
					undecided := false
					if !can(p.Feasible) {
						// No call path can run: a way across a hand-off
						// that can (the pair's also) still reaches it.
						switch {
						case slices.ContainsFunc(p.Also, func(a report.AlsoCrossing) bool { return can(a.Feasible) }):
							across = true
						case p.Feasible == "unknown":
							undecided = true // whether its way can run is not decided
						default:
							continue
						}
					}
					name := p.Entry
					if across {
						name = "→ " + name
					}
					if undecided {
						name = "? " + name
					}
					out = append(out, name)
				}
				return out
			}
		}
		out := append([]string(nil), c.Entries...)
		across, _ := n.acrossChains(l)
		for _, e := range across {
			if !slices.Contains(out, e) && !slices.Contains(out, "→ "+e) {
				out = append(out, "→ "+e)
			}
		}
		// An entry that hands one of these a hand-off without a message
		// (the raft loop's scheduled job, which hands the apply job the
		// state it holds) reaches what it guards across that too.
		var more []string
		for _, e := range across {
			for _, h := range n.statefulHanders(e) {
				if !slices.Contains(out, h) && !slices.Contains(out, "→ "+h) && !slices.Contains(more, h) {
					more = append(more, h)
				}
			}
		}
		sort.Strings(more)
		for _, h := range more {
			out = append(out, "→ "+h)
		}
		return out
	}
	return nil
}

// statefulHanders are the entries, sorted, with a leg that can run to
// entry to across a hand-off that carries no message: its receiver is
// handed the state its sender holds, and may take any of its ways with it.
func (n *notes) statefulHanders(to string) []string {
	untyped := map[string]bool{}
	for _, b := range n.rep.Boundaries {
		if b.Message == "" {
			untyped[b.Name] = true
		}
	}
	var out []string
	add := func(legs []report.Crossing) {
		for _, l := range legs {
			if l.To == to && untyped[l.Boundary] && (l.Feasible == "yes" || l.Feasible == "only-if") && l.From != to && !slices.Contains(out, l.From) {
				out = append(out, l.From)
			}
		}
	}
	for _, p := range n.rep.Paths {
		add(p.Crossing)
		for _, a := range p.Also {
			add(a.Crossing)
		}
	}
	sort.Strings(out)
	return out
}

// groupWays says, for the comparisons whose → entries reach them across
// a group (acrossChains), which calls of each such entry put a member in
// the group that the comparison's chain takes its members from: nil when
// none does.
func (n *notes) groupWays() report.Text {
	var out report.Text
	for _, c := range n.sg.Comparisons {
		if c.Kind != "decision" || c.Guarded != nil && n.guardsSite(*c.Guarded) {
			continue
		}
		_, via := n.acrossChains(c.Loc)
		if len(via) == 0 {
			continue
		}
		names := slices.Sorted(maps.Keys(via))
		parts := []any{}
		if len(out) == 0 {
			parts = append(parts, "Across a group: ")
		} else {
			parts = append(parts, " ")
		}
		parts = append(parts, "for ", code(c.Text), ", ")
		for i, e := range names {
			switch {
			case i > 0 && i == len(names)-1:
				parts = append(parts, " and ")
			case i > 0:
				parts = append(parts, ", ")
			}
			parts = append(parts, e+" calls ")
			for j, h := range via[e] {
				if j > 0 {
					parts = append(parts, " and ")
				}
				parts = append(parts, code(strings.TrimSpace(h.Text)), " (", h.Loc, ")")
			}
		}
		g := via[names[0]][0]
		parts = append(parts, ". Each puts a member in ", code(g.Group), ", the group whose members another goroutine's loop takes and then compares there; an entry that hands one of these its job reaches it too.")
		// The same calls on the group that no entry reaches by calls
		// put members there too: named, so that the list is all of them.
		var others []report.Handoff
		for _, h := range n.sg.Handoffs {
			if h.Kind == "group" && h.Group == g.Group && h.Method == g.Method && len(h.Entries) == 0 {
				others = append(others, h)
			}
		}
		for i, h := range others {
			switch {
			case i == 0:
				parts = append(parts, " ")
			case i == len(others)-1:
				parts = append(parts, " and ")
			default:
				parts = append(parts, ", ")
			}
			parts = append(parts, code(strings.TrimSpace(h.Text)), " in ", code(report.ShortName(h.Function)), " (", h.Loc, ")")
		}
		switch {
		case len(others) == 1:
			parts = append(parts, " puts members there too, though no entry of these notes reaches it by calls: the reached-from column does not count the ways into it.")
		case len(others) > 1:
			parts = append(parts, " put members there too, though no entry of these notes reaches them by calls: the reached-from column does not count the ways into them.")
		}
		out = append(out, t(parts...)...)
	}
	return out
}

// guardsSite reports whether a comparison guards a use of the sentinel
// (whose reached-from cell comes from the use's pairs, not its chains).
func (n *notes) guardsSite(l report.Loc) bool {
	for _, s := range n.rep.Sites {
		if s.File == l.File && s.Line == l.Line {
			return true
		}
	}
	return false
}

// acrossChains are the entries that begin a behaviour's way to the step
// at l only across a hand-off, sorted: an entry step from which the links
// into l (followed back) come with a hand-off among them; and, where such
// a hand-off comes from a call on a group (a watcher put in one), the
// entries whose calls reach another call of the same method on the same
// group (other ways in that the same hand-off takes to l). A step reached
// from an entry by calls alone is already among the comparison's entries.
func (n *notes) acrossChains(l report.Loc) ([]string, map[string][]report.Handoff) {
	var out []string
	add := func(name string) {
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	// via are, per entry added for a group, its calls on the group.
	via := map[string][]report.Handoff{}
	groupAt := func(at report.Loc) *report.Handoff {
		for i, h := range n.sg.Handoffs {
			if h.Kind == "group" && h.Group != "" && h.File == at.File && h.Line == at.Line {
				return &n.sg.Handoffs[i]
			}
		}
		return nil
	}
	for _, ch := range n.sg.Chains {
		for i, st := range ch.Steps {
			if st.File != l.File || st.Line != l.Line || st.Kind != "decision" {
				continue
			}
			// crossed[j]: step j leads to step i; true once a way back
			// from i to j has crossed a hand-off.
			crossed := map[int]bool{i: false}
			queue := []int{i}
			for len(queue) > 0 {
				k := queue[0]
				queue = queue[1:]
				for _, f := range ch.Steps[k].From {
					if f.Handoff {
						if g := groupAt(ch.Steps[f.Step].Loc); g != nil {
							for _, h := range n.sg.Handoffs {
								if h.Kind == "group" && h.Group == g.Group && h.Method == g.Method {
									for _, e := range h.Entries {
										add(e)
										if !slices.ContainsFunc(via[e], func(x report.Handoff) bool { return x.Loc == h.Loc }) {
											via[e] = append(via[e], h)
										}
									}
								}
							}
						}
					}
					x := crossed[k] || f.Handoff
					if was, seen := crossed[f.Step]; seen && (was || !x) {
						continue
					}
					crossed[f.Step] = x
					queue = append(queue, f.Step)
				}
			}
			for j, x := range crossed {
				if !x || ch.Steps[j].Kind != "entry" {
					continue
				}
				for _, e := range n.rep.Entries {
					if e.Function == ch.Steps[j].Function && e.File == ch.Steps[j].File && e.Line == ch.Steps[j].Line {
						add(e.Name)
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out, via
}

func (n *notes) appendix() []report.Section {
	var out []report.Section
	out = append(out, n.step6(), n.matrix())
	if v := n.verdictText("replay"); v != nil {
		out = append(out, report.Section{ID: "replay", Title: "How long the replay lasts", Appendix: true, Blocks: []report.Block{{Para: v}}})
	}
	if lab := n.labSection(); lab != nil {
		out = append(out, *lab)
	}
	if cov := n.coverage(); cov != nil {
		out = append(out, *cov)
	}
	out = append(out, n.glossary(), n.loaded())
	return out
}

// step6 is step 6's grep on this release and what each line is.
func (n *notes) step6() report.Section {
	r := n.rep
	s := report.Section{ID: "step6", Title: r.Citation.Step + "'s lines, and what each is", Appendix: true}
	c := &report.Code{Lang: "console", Lines: []report.CodeLine{{Text: "$ " + r.Citation.Command}}}
	for _, l := range r.Citation.Lines {
		c.Lines = append(c.Lines, report.CodeLine{Text: fmt.Sprintf("%s:%d:%s", l.File, l.Line, l.Text), Loc: &report.Loc{File: l.File, Line: l.Line}})
	}
	s.Blocks = append(s.Blocks, report.Block{Code: c})
	var empty []string
	for _, f := range r.Files {
		if f.Present && f.Sites == 0 {
			empty = append(empty, "`"+f.File+"`")
		}
	}
	if len(empty) > 0 {
		s.Blocks = append(s.Blocks, report.Block{Para: t(strings.Join(empty, ", ") + ", which the grep also searches, holds no use of the sentinel.")})
	}
	ex := n.exercise()
	head := []report.Text{t("line"), t("what it is")}
	for _, b := range ex {
		head = append(head, t(b.ID))
	}
	head = append(head, t("runs in"))
	tb := &report.Table{Head: head}
	used := map[string]bool{}
	blankRuns := false
	for _, l := range r.Citation.Lines {
		what := t("names the sentinel in text only")
		if l.Site >= 0 {
			st := r.Sites[l.Site]
			what = t(st.Kind + " at package level")
			if st.Function != "" {
				what = append(t(st.Kind+" in "), funcText(report.ShortName(st.Function))...)
			}
		}
		row := []report.Cell{{Text: report.Text{report.Cite(report.Loc{File: l.File, Line: l.Line})}}, {Text: what}}
		for _, b := range ex {
			role := l.Behaviours[b.ID]
			used[role] = true
			row = append(row, report.Cell{Text: t(role), Class: map[string]string{"runs": "yes", "value": "only-if", "no": "no"}[role]})
		}
		var elsewhere []string
		for _, b := range n.probes() {
			for _, si := range b.Sites {
				if si == l.Site {
					elsewhere = append(elsewhere, b.ID)
				}
			}
		}
		if st := l.Site; st >= 0 && len(elsewhere) == 0 {
			for _, p := range r.Paths {
				if p.Site.Index == st && p.Reachable && (p.Feasible == "yes" || p.Feasible == "only-if") {
					elsewhere = append(elsewhere, p.Entry)
				}
			}
		}
		blankRuns = blankRuns || len(elsewhere) == 0
		row = append(row, report.Cell{Text: t(strings.Join(elsewhere, ", "))})
		tb.Rows = append(tb.Rows, row)
	}
	s.Blocks = append(s.Blocks, report.Block{Table: tb})
	// The legend names the behaviours the columns are, then explains the
	// marks the table holds, and no others.
	var legend []string
	for _, b := range ex {
		if b.Title != "" {
			legend = append(legend, b.ID+": "+strings.ToLower(b.Title[:1])+b.Title[1:])
		}
	}
	for _, m := range []struct{ role, says string }{
		{"runs", "runs: a path that can run with the behaviour's requests reaches the line"},
		{"value", "value: the line declares the object that a use which runs returns, compares or looks up"},
		{"no", "no: neither runs nor declares such a value"},
	} {
		if used[m.role] {
			legend = append(legend, m.says)
		}
	}
	probes := "the lab's probes"
	if len(n.probes()) > 0 {
		probes += " (requests outside the exercise, below)"
	}
	legend = append(legend, "runs in: "+probes+" whose requests reach the line or, where none does, the entries with a path that can run to it")
	if blankRuns {
		legend[len(legend)-1] += "; blank: none"
	}
	s.Blocks = append(s.Blocks, report.Block{Para: t(strings.Join(legend, "; ") + ".")})
	if ps := n.probes(); len(ps) > 0 {
		s.Blocks = append(s.Blocks, report.Block{Para: n.probesSentence(ps)})
	}
	if v := n.verdictText("citation"); v != nil {
		s.Blocks = append(s.Blocks, report.Block{Para: v})
	}
	return s
}

// matrix is every use against every entry, with the details that teach.
func (n *notes) matrix() report.Section {
	r := n.rep
	s := report.Section{ID: "uses", Title: "Every use of the sentinel, from every entry", Appendix: true}
	s.Blocks = append(s.Blocks, report.Block{Para: t(fmt.Sprintf("Uses found by object identity in the %d packages loaded from source. A cell says whether a call path from the entry (a column) can run to the use (a row): yes (the request can choose values that take it, given the state the way compares them with, such as a compaction already done); if (only if a condition on server state holds, which the request cannot choose, besides what the way needs the request to choose: a lesson below or the JSON says which); no (a path exists but cannot run); ? (the analysis cannot decide); → (only across a hand-off, then as marked); both, as in no / → ? (no call path can run, and a way across a hand-off is as marked); · (a declaration at package level, which runs from no entry); value (such a declaration, whose value the way drawn from the entry looks up at one of its steps, or the sentinel's own, which a use that can run from the entry returns, compares or translates). Only the exercise's ways are drawn: a · in another entry's column does not say that its ways never look the declaration up. Blank: no path.", len(r.Packages)))})
	// Lessons only for the entries of the exercise's own behaviours; the
	// JSON's paths hold every pair's.
	own := map[string]bool{}
	for _, b := range n.exercise() {
		for _, e := range b.Entries {
			own[e] = true
		}
	}
	head := []report.Text{t("use")}
	for _, e := range r.Entries {
		head = append(head, report.Text{code(e.Name)})
	}
	tb := &report.Table{Head: head}
	// Lessons are grouped: the entries and uses that teach the same thing
	// are named once, with it.
	type group struct {
		lesson  report.Text
		entries []string
		uses    []report.Loc
	}
	var groups []*group
	byKey := map[string]*group{}
	for si, st := range r.Sites {
		where := t(" at package level")
		if st.Function != "" && !st.Init {
			where = append(t(" "), funcText(report.ShortName(st.Function))...)
		}
		row := []report.Cell{{Text: append(t(report.Cite(report.Loc{File: st.File, Line: st.Line})), where...)}}
		for _, e := range r.Entries {
			p := n.pair(e.Name, si)
			cell := report.Cell{}
			if p != nil {
				cell = n.cell(p)
				if d := n.detail(p); d != nil && own[e.Name] {
					key := textKey(d) + "\x00" + e.Name
					g := byKey[key]
					if g == nil {
						g = &group{lesson: d, entries: []string{e.Name}}
						byKey[key] = g
						groups = append(groups, g)
					}
					g.uses = append(g.uses, report.Loc{File: st.File, Line: st.Line})
				}
			}
			if declared(st) {
				// A declaration runs from no entry; the value of one that a
				// way drawn from the entry looks up is marked as such.
				cell = report.Cell{Text: t("·")}
				if n.looksUp(e.Name, st.File, st.Line) || (st.Kind == string(sites.Definition) && n.usedFrom(e.Name)) {
					cell = report.Cell{Text: t("value"), Class: "only-if"}
				}
			}
			row = append(row, cell)
		}
		tb.Rows = append(tb.Rows, row)
	}
	s.Blocks = append(s.Blocks, report.Block{Table: tb})
	// Entries with the same lesson for the same uses share a line.
	var merged []*group
	byUses := map[string]*group{}
	for _, g := range groups {
		key := textKey(g.lesson) + "\x00" + fmt.Sprint(g.uses)
		if m := byUses[key]; m != nil {
			m.entries = append(m.entries, g.entries...)
			continue
		}
		byUses[key] = g
		merged = append(merged, g)
	}
	var details []report.Text
	for _, g := range merged {
		d := t("From ")
		for i, e := range g.entries {
			if i > 0 {
				d = append(d, report.Plain(", "))
			}
			d = append(d, code(e))
		}
		d = append(d, report.Plain(" to "))
		for i, u := range g.uses {
			if i > 0 {
				d = append(d, report.Plain(", "))
			}
			d = append(d, report.Cite(u))
		}
		details = append(details, append(d, g.lesson...))
	}
	// An entry of the exercise's own whose column is blank: what it
	// decides uses no sentinel, on any path.
	for _, e := range r.Entries {
		if !own[e.Name] {
			continue
		}
		blank := true
		for si := range r.Sites {
			if p := n.pair(e.Name, si); p != nil && (p.Reachable || len(p.Crossing) > 0) {
				blank = false
			}
		}
		if blank {
			details = append(details, t("From ", code(e.Name), ", no call path, and no hand-off, reaches any use of the sentinel: its column marks no use."))
		}
	}
	if len(details) > 0 {
		var names []string
		for _, b := range n.exercise() {
			for _, e := range b.Entries {
				if !contains(names, "`"+e+"`") {
					names = append(names, "`"+e+"`")
				}
			}
		}
		s.Blocks = append(s.Blocks, report.Block{Para: t("Where a cell of the exercise's own entries (" + strings.Join(names, ", ") + ") teaches something; the other cells' conditions are in the JSON (`paths`):")}, report.Block{List: &report.List{Items: details}})
	}
	for _, g := range []struct{ found, lead string }{
		{"code", "Roots found from the code, shown where they are a use's nearest root that can reach it:"},
		{"target", "Entries of etcd's architecture, each the function that receives a hand-off where no other entry is it (a way across the hand-off, shown in the column of the entry that reaches its sending side, goes on from there):"},
	} {
		var items []report.Text
		for _, e := range r.Entries {
			if e.Found == g.found {
				items = append(items, t(code(e.Name), " (", report.Loc{File: e.File, Line: e.Line}, "): "+e.Doc+"."))
			}
		}
		if len(items) > 0 {
			s.Blocks = append(s.Blocks, report.Block{Para: t(g.lead)}, report.Block{List: &report.List{Items: items}})
		}
	}
	return s
}

// declared reports whether a use is a declaration at package level: in
// no function, or in package-level code run at initialisation (a var's
// initial value).
func declared(st report.Site) bool {
	return st.Function == "" || st.Init
}

// usedFrom reports whether a use of the sentinel inside a function (one
// that returns, compares or translates it) has a path from the entry that
// can run, by calls or across a hand-off: the sentinel's definition is
// then the value that use works with, as step 6's table marks it.
func (n *notes) usedFrom(entry string) bool {
	for si, st := range n.rep.Sites {
		if declared(st) || st.Kind == string(sites.Other) {
			continue
		}
		if p := n.pair(entry, si); p != nil && (p.Feasible == "yes" || p.Feasible == "only-if") {
			return true
		}
	}
	return false
}

// looksUp reports whether a way drawn from the entry has a step at the
// position: the exercise's behaviours that start from it, whose chain
// holds file:line.
func (n *notes) looksUp(entry, file string, line int) bool {
	for _, b := range n.exercise() {
		if !contains(b.Entries, entry) {
			continue
		}
		if c := n.chain(b.ID); c != nil {
			for _, st := range c.Steps {
				if st.File == file && st.Line == line {
					return true
				}
			}
		}
	}
	return false
}

// sameLines reports whether a and b cite the same lines in the same order.
func sameLines(a, b []report.Loc) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].File != b[i].File || a[i].Line != b[i].Line {
			return false
		}
	}
	return true
}

// plainText is a text's words, without its markup.
func plainText(x report.Text) string {
	var b strings.Builder
	for _, s := range x {
		b.WriteString(s.Text)
	}
	return b.String()
}

// textKey is a text's content, for comparing texts (spans hold pointers).
func textKey(x report.Text) string {
	var b strings.Builder
	for _, s := range x {
		fmt.Fprintf(&b, "%q %v %v %q|", s.Text, s.Code, s.Strong, s.Ref)
		if s.Loc != nil {
			fmt.Fprintf(&b, "%s:%d|", s.Loc.File, s.Loc.Line)
		}
	}
	return b.String()
}

func (n *notes) pair(entry string, site int) *report.PairPaths {
	for i := range n.rep.Paths {
		if p := &n.rep.Paths[i]; p.Entry == entry && p.Site.Index == site {
			return p
		}
	}
	return nil
}

func (n *notes) cell(p *report.PairPaths) report.Cell {
	v := map[string]string{"yes": "yes", "only-if": "if", "no": "no", "unknown": "?"}[p.Feasible]
	if v == "" {
		return report.Cell{}
	}
	if len(p.Crossing) > 0 {
		v = "→ " + v
	}
	if len(p.Crossing) == 0 && len(p.Also) > 0 {
		// No call path can run, but a crossing may: both.
		v += " / → " + map[string]string{"yes": "yes", "only-if": "if", "unknown": "?"}[p.Also[0].Feasible]
	}
	return report.Cell{Text: t(v), Class: p.Feasible}
}

// alsoAcross says, of each of a pair's other crossings, the hand-off, the
// message and the verdict: " Also across the … at …, with a message that
// sets …: not decided." (lead: "Also across", "But across").
func alsoAcross(p *report.PairPaths, lead string) report.Text {
	var out report.Text
	for _, a := range p.Also {
		if len(a.Crossing) == 0 {
			continue
		}
		last := a.Crossing[len(a.Crossing)-1]
		out = append(out, t(" "+lead+" the "+last.Boundary+" at ", report.Loc{File: last.File, Line: last.Line})...)
		if len(last.Message) > 0 && last.MessageAt != nil {
			out = append(out, madeAt(last.Message, *last.MessageAt)...)
		}
		if ab := a.Because; ab != nil && a.Feasible == "only-if" {
			out = append(out, t(": "+ab.Text+" (", report.Loc{File: ab.File, Line: ab.Line}, ").")...)
		} else if a.Feasible == "yes" {
			out = append(out, t(": a way that can run.")...)
		} else {
			out = append(out, t(": not decided.")...)
		}
	}
	return out
}

// detail is a pair's lesson, when it has one: a path that looks as if it
// reached the use but cannot run, a crossing, an only-if.
func (n *notes) detail(p *report.PairPaths) report.Text {
	if p.Because == nil {
		return nil
	}
	var at report.Text
	b := p.Because
	where := report.Loc{File: b.File, Line: b.Line}
	switch {
	case p.Feasible == "no" && p.Reachable:
		out := append(at, t(": looks reachable, but cannot run: "+b.Text+" (", where, ").")...)
		return append(out, alsoAcross(p, "But across")...)
	case len(p.Crossing) > 0:
		// In the order the code runs: what the sender needs, the hand-off,
		// what the receiver needs.
		c := p.Crossing[0]
		out := append(at, t(fmt.Sprintf(": no call path, only a way across the %s", c.Boundary))...)
		if cb := c.Because; cb != nil && c.Feasible == "only-if" && p.Feasible != "no" {
			// Every condition of state the sender's leg needs, as a way's.
			out = append(out, t(": ")...)
			out = append(out, stateConds(report.Way{Because: cb, OnlyIf: c.OnlyIf, Asks: c.Asks})...)
			out = append(out, t(", then across it at ", report.Loc{File: c.File, Line: c.Line})...)
		} else {
			out = append(out, t(" at ", report.Loc{File: c.File, Line: c.Line})...)
		}
		if len(c.Message) > 0 && c.MessageAt != nil {
			out = append(out, madeAt(c.Message, *c.MessageAt)...)
		}
		if p.Feasible == "no" {
			return append(out, t(": cannot run: "+b.Text+" (", where, ").")...)
		}
		out = append(out, received(p)...)
		// The sender's other kinds of message that reach the use.
		return append(out, alsoAcross(p, "Also across")...)
	case p.Feasible == "only-if":
		ways := onlyIfWays(p)
		if len(ways) == 0 {
			return append(at, t(": "+b.Text+" (", where, ").")...)
		}
		if len(ways) < 2 {
			return append(append(at, t(": ")...), append(stateConds(ways[0]), report.Plain("."))...)
		}
		// Paths that need other conditions: each is a way in, and the
		// shortest is not the only one.
		out := at
		for i, w := range ways {
			lead := []string{": by its shortest path, ", "; by another, ", "; by a third, "}[i]
			out = append(out, t(lead)...)
			out = append(out, stateConds(w)...)
		}
		return append(out, report.Plain("."))
	}
	return nil
}

// stateConds are every condition of server state a way needs, in the
// order the path meets them: "only if `a` (…), only if not `b` (…) and
// only if `c` (…)".
func stateConds(w report.Way) report.Text {
	cs := w.OnlyIf
	if len(cs) == 0 && w.Because != nil {
		return t(w.Because.Text+" (", report.Loc{File: w.Because.File, Line: w.Because.Line}, ")")
	}
	var out report.Text
	for i, c := range cs {
		switch {
		case i == 0:
		case i == len(cs)-1:
			out = append(out, report.Plain(" and "))
		default:
			out = append(out, report.Plain(", "))
		}
		out = append(out, report.OnlyIf(c)...)
	}
	return append(out, report.Asks(w.Asks)...)
}

// onlyIfWays are a pair's only-if paths that need different conditions,
// the shortest first (at most three).
func onlyIfWays(p *report.PairPaths) []report.Way {
	var out []report.Way
	seen := map[string]bool{}
	for _, w := range p.Ways {
		if w.Feasible != "only-if" || w.Because == nil {
			continue
		}
		k := w.Because.Text + "|" + w.Because.File + fmt.Sprint(w.Because.Line)
		if n := w.Because.Near; n != nil {
			k += "|" + n.Text + n.File + fmt.Sprint(n.Line)
		}
		if seen[k] || len(out) == 3 {
			continue
		}
		seen[k] = true
		out = append(out, w)
	}
	return out
}

// received is what the receiving side of a crossing needs: its best
// ways' conditions of state, every one.
func received(p *report.PairPaths) report.Text {
	ways := onlyIfWays(p)
	if len(ways) == 0 {
		return t(".")
	}
	out := t("; after it, ")
	for i, w := range ways {
		if len(ways) > 1 {
			out = append(out, t([]string{"by its shortest path, ", "; by another, ", "; by a third, "}[i])...)
		}
		out = append(out, stateConds(w)...)
	}
	return append(out, report.Plain("."))
}

func (n *notes) labSection() *report.Section {
	if n.lab == nil {
		return nil
	}
	s := LabSection(n.lab)
	s.ID, s.Appendix = "lab", true
	return &s
}

func (n *notes) coverage() *report.Section {
	o := n.rep.Observe
	if o == nil {
		return nil
	}
	s := report.Section{ID: "coverage", Title: "What ran in each behaviour (coverage)", Appendix: true}
	tb := &report.Table{Head: []report.Text{t("run"), t("what it does"), t("ms"), t("blocks that ran")}}
	for _, r := range o.Runs {
		doc := ""
		if sc, ok := Lab.Script(r.Behaviour); ok {
			doc = sc.Doc
		}
		tb.Rows = append(tb.Rows, []report.Cell{{Text: t(r.Behaviour)}, {Text: t(doc)}, {Text: t(fmt.Sprint(r.Ms))}, {Text: t(fmt.Sprintf("%d of %d", r.Ran, r.Blocks))}})
	}
	s.Blocks = append(s.Blocks, report.Block{Para: t(fmt.Sprintf("Each run is a new etcd %s process built with coverage (the server only: the client's and etcdctl's lines are not measured, nor are package-level declarations, which run at start in every process). What ran in a run and not in the baseline is its own.", o.Release))}, report.Block{Table: tb})
	var items []report.Text
	for _, d := range o.Decided {
		items = append(items, t(d.Behaviour+": ", code(d.Comparison), " (", report.Loc{File: d.File, Line: d.Line}, ") took effect: what it guards ran there and not in the baseline."))
	}
	for _, d := range o.Disagreements {
		items = append(items, t(d.Behaviour+": "+d.What+" ("+d.Kind+", ", report.Loc{File: d.File, Line: d.Line}, ")."))
	}
	if len(items) > 0 {
		s.Blocks = append(s.Blocks, report.Block{List: &report.List{Items: items}})
	}
	if len(o.Disagreements) > 0 {
		s.Blocks = append(s.Blocks, report.Block{Para: t("static-only: the analysis has a path to the line that can run with the behaviour's requests, and the run did not take it: an if whose condition did not hold in this run, or a path the analysis cannot refute (see the glossary's can run).")})
	}
	return &s
}

func (n *notes) glossary() report.Section {
	return report.Section{ID: "glossary", Title: "Words these notes use", Appendix: true, Blocks: []report.Block{{Terms: []report.Term{
		{Term: "sentinel", Text: t("the error variable under study, ", code(report.ShortName(n.rep.Study.Sentinel)), "; its uses are found by object identity (the declared variable), not by text")},
		{Term: "use", Text: t("a line that names the sentinel: its definition, a return, a comparison, a translation (a map from it to another error), a text-comparison (its text, Error(), compared with a string, as an error that came over the network is recognised), or other")},
		{Term: "entry", Text: t("a function from which call paths are traced: one the study names, a root found from the code (a gRPC method, an HTTP handler, a goroutine), or the function that receives one of etcd's hand-offs where no other entry is it: a way across the hand-off, shown in the column of the entry that reaches its sending side, goes on from there")},
		{Term: "way", Text: t("one call path from an entry to a line, with the branches it takes; the numbered steps of each diagram (the eviction's, the read's) are one way, and a way may go on across a hand-off")},
		{Term: "can run (yes, if, no, ?)", Text: t("whether the branches on a call path can all be taken. no: a value the path fixes (a constant argument, a field a literal leaves unset) makes one false, or what the path needs already rules it out: an earlier branch, what an earlier call whose result the path tests returned (an error variable it returns is never nil when its declaration is errors.New or fmt.Errorf and nothing assigns it, in its package's files when its package is read from export data), what a loop of such a call checked of every element, a call through an interface whose value has the callee's method only on ways the path rules out (a transaction's End, when the path took the read-only branch that makes the read's), what a function a defer statement runs finds in a field its maker writes (what one of the maker's writes left there, under the branches that lead to it, or the literal's value), a relation the store keeps between two of its fields, or of one field, that it is never below 0 (every write of it stores a constant not below 0, adds a value not below 0 to its own, raises it to a value a branch found above it, or stores what a channel receives whose every send sends such a value, such as a revision a decoder returns only past its refusal of a negative one; found from every write; the JSON's invariants lists each with its writes) or that it never goes down (every write of it adds to its own value, raises it, or gives it its first value when its struct is made), so that a read of it is never below an earlier read of the same struct's field on the path (a revision checked against a read view, then run in a write begun after it), a lock that every write of a field holds, held between two reads of it, a loop that counts up to a bound the path fixes (a loop over the events of a response that sets none makes no pass), what an integer the code computes is never below, overflow aside (a length is at least 0, a sum at least the sum of its parts' floors; a sum a loop carries from a constant start, only added to, each part never below 0, exceeds its start by no less than any one part, so a transaction that a test of its cost holds at 0 or less cannot hand on a put), a pointer the way reads a field through (it is not nil there, as a way runs without a panic; a method call on it is not such a read), a request that a gRPC method or an HTTP handler is handed (never nil: the framework that calls it allocates each one), or, across a hand-off, what the sender tested of the request it hands off (a field it does not change after the test), or, on a way through the apply's dispatch that no entry's request is handed to (the apply loop's, the raft loop's), every request that a sender of the raft proposal makes (what the apply dispatches was proposed by one of them; a request this release's code does not make, such as one from a member or a log of another release, or one written into the log by hand, is not considered): such a way can run when one of them can take it; what the raft loop hands the apply job (its batch of committed entries and its snapshot) is server state on a way that passes no dispatch (a restore needs the batch to hold a snapshot); on a way through the dispatch the batch is taken to carry the request, and its tests (that it holds entries this member has not applied, that the entry is a normal one with data) are not listed. if: a branch compares only values the request does not choose (server state, stored data, a value the path fixes; an entry of a map the server keeps for the request's stream is the client's choice when only the client's requests fill it, each write storing a value of the request or a constant under a branch on the request), or a part of the request that, on the runs that take the branch, what the path checked earlier leaves one value (the lesson names it, what fixes it and what the branch then asks of the state: a transaction's range that passed its check can be past the view's revision only at revision 0, so the branch asks whether the view's revision is below 0, which, where the store keeps the revision at or above 0, makes the way no, or ? when a write of it is not bounded); a lesson lists every such branch of the way, and the whole condition of an early return (`a && b`, every part of state) that the way must not meet in full, as one it needs false, the branches of state that lead to a value the way reads (what a call whose result it tests returned, what a deferred function finds its maker left) where the way can run with that value only, or to every one of the values it can run with, and, for a method the way calls through an interface, the branch under which alone a value of its type is made (taken when the value was made, not on the way), and, where the value is read from a field that one function sets, each branch under which it sets the field to a value whose method cannot lead on to the way, such as an applier that, while an alarm is on, refuses every request of the kind the way makes (not taken when the field was last set; a later wrapper whose method is the wrapped value's keeps it), and each under which it sets the field to a value whose method leads on to the way only past a test of its own, such as an applier that, while an alarm is on, refuses a transaction whose cost is above 0 (listed as one or the other: the branch not taken when the field was last set, or else that test passed where the way calls the method, which the analysis does not decide; or as the branch alone when the way through that method cannot pass that test); and an error the way needs of a call of server state, followed or not (\"only if `call(…)` returns an error\", saying so where whether it can fail is not known, none of the code it may run being loaded from source; where a branch inside a followed call that leads to its error is listed, that branch instead) or that it reads from a field (\"only if not `ar.Err == nil`\"). A lesson ends with what its way needs of the request, where it needs something (\"for a request that makes `c` true\"): the branches the way takes that what the request asks decides, those that lead to a value it reads, and those into a return inside a loop it goes past, needed for every element, with the outcome the way needs, and the checks it needs passed (\"passes `check(…)`\", cited at the line that calls it: a call whose only result used is an error, or, where two ways come together, one whose other results are used only after the way has left the function, given part of the request or closing over it, or a call given only the request's context, such as a permission check of the caller's credentials, which come with the request in its context) or failed (\"fails `check(…)`\": a way that goes on only when the check returns an error, such as a permission check the caller must fail, or a call of state the analysis follows, given part of the request, whose error the way needs); not any other test of an error, one of what carries a handed request before its dispatch, or a branch an earlier one decides: what the way takes, not every test a request must pass. yes: the request can choose values that meet every branch, given the state a branch compares them with (a compaction already done, say). ?: the analysis could not decide (a value it cannot follow, its bound of work on one path reached, or a way that can run only with a field below 0 that every write of it keeps at or above 0 but one or more whose value the analysis does not bound, such as a revision a restore reads back from stored data, or, for a field that every write of it keeps from going down but one or more that may lower it (a restore's reset), only if it went down between two reads of it: the reason names those writes; or a way that needs a field read above a later read of a field that never goes down, when a write of the first stores at most an earlier read of the second plus less, such as a change's revision, its transaction's first revision plus one, or a value a sender handed off that it read so, such as the oldest revision a compactor kept: the reason names those writes, and the other writes that leave which one left the value read undecided; or such a read less another field, such as a revision a compactor read less the number it keeps: the way can then run only with that field below 0, and the reason says whether every write of it keeps it at or above 0 (where every write of it stores a field of the configuration the server is made with, which a program, or what parses a command line into it (not followed), may set to any value, the way is an if instead, whose condition says so); or a way that needs a key missing from a map, where the key is a value of a map the path made and handed to calls that fill it from what the server holds, such as a restore's keys' leases, read back from stored data (whether that data can name a key the first map lacks is not followed); or a way whose test of the request reads a field that a call a function of the path may make before it, beside the way, rewrites from what the field held (what the call leaves is not followed; the reason names the call, the branch it is made under and the field), unless the call is a filter the analysis reads, one that keeps in place the elements for which one test of each takes one outcome, writing the field of what it is handed on every run, with no other code before the test that may write the field or what the test reads, and not in a loop with the way's step after it: where the way's test of an element a loop over the slice reaches, read after the call from the same struct the call is handed, is that test (or asserts another concrete type of the same part), it needs the branch the call is called under not taken when it needs an element the filter drops (an if, naming the filter; a part of that branch that tests whether what the call is handed is nil is left out, as the way reads through it), and nothing changes when it needs one the filter keeps, and the way is no when it needs one that a filter called on every run of the way before the test drops; any other test of what the filter leaves (a check the way needs passed that loops over the slice) it asks of what the filter leaves where it runs; a test of an element not shown to be of what the call is handed (a transaction nested in another) or read from the slice before the call, of an element a filter drops where a function the way runs from the call to the test calls itself (the element may be a nested one, which the filter keeps whole) or a filter called under branches not named as one condition drops, or of a check the way needs failed on what a filter leaves, is ?; or a way that needs a key missing from a map, where the key is a value another map of the struct holds that the way needs not zero, and every put into that other map puts a value a branch before it found to be a key of the first: the reason names the writes that remove keys from the first, which the analysis does not show keep that so). A branch whose other side only panics is not counted as a condition: a way assumes the server does not panic. A test of whether a call returned an error (other than the failure of a call of server state that the way needs, above), of a loop's next iteration (the test that ends a loop whose passes set again what it tests, as a wait for a leader does, included) or of which case of a select in a loop fires is not listed as a condition of an if (the case a select outside a loop takes is, where the way needs it, its default included, and so is the case of a send that hands a message off across a hand-off, where the select may take another or its default), but a pass of a loop over a slice or a map of server state is (it is then not empty), and so is a pass over a map the path made and handed only to calls given nothing of the request, which fill it from what the server holds; where what a call returned rules a way out, the way is no. A value a loop or a function literal carries from an earlier pass or call (a revision it saved, a flag it set) is server state: a test against it is a condition of an if. Which goroutine runs what is used only in the rules that follow: a field that only the runs of a function etcd runs one at a time write (the apply job, which one worker of a FIFO scheduler runs) does not change between two reads in one run that writes it nowhere between them, nor does a field that, besides those runs, only a call of the function the target (srctrace's description of etcd's architecture) says returns before they begin writes (the server's making, before its loops start; taken only where that function cannot reach the runs itself), so a way that needs it changed there is no, or ? when the field is written elsewhere too (the reason, in the JSON's `paths`, names those writes); nor does it go below a value such a run raised it to (a write under a test that found it below the value, as a restore raises the current revision to the scheduled compaction's) at a later read in the run with no write between; nor does a field that every write keeps from going down but those that may lower it (a restore's reset) go down between two reads in one run, when only such runs or the server's making make those writes and the run makes none between the reads, whatever adds to it there; the same holds of a map's entry for one key, looked up twice in one run (a check that returns unless it finds the lease a request names, then the attach to that lease): a way that needs the second lookup to miss what the first found is no, or ? when the map is also changed elsewhere (beyond those runs and the server's making), when the two lookups reach it through different fields, or when, on some of the way's runs, the second key is state the path reads (a stored key's lease) rather than the first. Across a hand-off by a channel send, the way goes on from the case of the receiving select that takes the message: a way whose first call there is in another case of that select runs on that case's turn, not on the message's, and is no. Beyond that, which goroutine runs what is not used, nor is what a map or another structure keeps true across requests (beyond the relation of two maps above), nor what a value read back from stored data can be (beyond the ? above, where a field's other writes keep it at or above 0): so an if may still never hold, and a condition it lists may hold on every run where the analysis cannot show it (a test of what a function computes of the request, such as its cost, is listed where the way meets it; of the branches that lead to a value the way reads, one that calls a function given part of the request is not)")},
		{Term: "hand-off", Text: t("where a request goes on in another goroutine, which a call graph cannot follow: a raft proposal, a scheduled job, a field one goroutine writes and another reads, a watcher group, a channel, the network")},
		{Term: "decision", Text: t("a comparison of a revision with the compaction revision that guards the signal or a use of the sentinel")},
		{Term: "when its other calls succeed", Text: t("said of a tool's exit status: the evaluation of the tool's code took the errors of the calls it does not follow (making its client, closing it) as nil; the status holds when they succeed; what a failed one does, these notes do not say")},
		{Term: "runs, value, no", Text: t("a cited line's role in a behaviour: a path that can run reaches it; it declares the object a use that runs returns or looks up; neither")},
	}}}}
}

func (n *notes) loaded() report.Section {
	r := n.rep
	s := report.Section{ID: "loaded", Title: "What was read", Appendix: true}
	var mods []string
	for _, m := range r.Etcd.Modules {
		mods = append(mods, m.Folder)
	}
	sort.Strings(mods)
	p := t(fmt.Sprintf("etcd %s: the folders %s; %d packages loaded from source.", r.Etcd.Version, strings.Join(mods, ", "), len(r.Packages)))
	for _, m := range r.Etcd.Missing {
		p = append(p, t(fmt.Sprintf(" %s could not be had (%s): the notes say nothing of it.", m.Folder, m.Reason))...)
	}
	for _, e := range r.EntriesAbsent {
		p = append(p, t(" The entry ", code(e.Name), fmt.Sprintf(" (%s) is not in this release.", e.Doc))...)
	}
	s.Blocks = append(s.Blocks, report.Block{Para: p})
	tb := &report.Table{Head: []report.Text{t("entry"), t("function"), t("what runs it")}}
	for _, e := range r.Entries {
		if e.Found == "code" {
			continue
		}
		tb.Rows = append(tb.Rows, []report.Cell{{Text: report.Text{code(e.Name)}}, {Text: t(code(report.ShortName(e.Function)), " ", report.Loc{File: e.File, Line: e.Line})}, {Text: t(e.Doc)}})
	}
	s.Blocks = append(s.Blocks, report.Block{Table: tb})
	return s
}

// madeAt says what message a crossing hands off and where it is made:
// ", with a message that sets A, B, made by `T{A: a, B: b}` (file:line)"
// when the literal is written on one line and can be quoted, else
// ", with a message that sets A, B (made at file:line)".
func madeAt(fields []string, at report.Loc) report.Text {
	if at.Text != "" && !strings.Contains(at.Text, "`") && !placeholder.MatchString(at.Text) {
		return t(", with a message that sets "+strings.Join(fields, ", ")+", made by `"+at.Text+"` (", at, ")")
	}
	return t(", with a message that sets "+strings.Join(fields, ", ")+" (made at ", at, ")")
}
