package errcompacted

import (
	"fmt"
	"strings"

	"github.com/srctrace/srctrace/trace/lab"
	"github.com/srctrace/srctrace/trace/report"
)

// LabDoc is the document of a lab run on its own (srctrace lab); rec is
// the record the study's lab returns.
func LabDoc(rec lab.Record) *report.Doc {
	l, ok := rec.(*LabRecord)
	if !ok {
		return nil
	}
	s := LabSection(l)
	return &report.Doc{Title: s.Title, Lead: s.Blocks[0].Para, Sections: s.Sections}
}

// LabSection is what the lab observed, step by step, as one section.
func LabSection(lab *LabRecord) report.Section {
	s := report.Section{ID: "lab", Title: fmt.Sprintf("The lab, run on etcd %s", lab.Etcd.Version)}
	srv := "an etcd server embedded in srctrace, on loopback, with a fresh data dir"
	switch lab.Etcd.Server {
	case "process":
		srv = "an etcd server srctrace built from the release's module and ran on loopback, with a fresh data dir"
	case "endpoints":
		srv = "the etcd server at " + strings.Join(lab.Etcd.Endpoints, ", ")
	}
	lead := t(fmt.Sprintf("Server: %s, release %s. ", srv, lab.Etcd.Version))
	if lab.Etcdctl != nil {
		lead = append(lead, t("etcdctl: ", code(lab.Etcdctl.Version), ". ")...)
	} else {
		lead = append(lead, t("No etcdctl: the results are the Go client's. ")...)
	}
	lead = append(lead, t(fmt.Sprintf("Keys under %s; each round writes an anchor key, then %d writes to one key, as the exercise's setup does.", lab.Prefix, lab.Writes))...)
	if lab.Millis > 0 {
		lead = append(lead, t(fmt.Sprintf(" The lab took %.1f s.", float64(lab.Millis)/1000))...)
	}
	s.Blocks = append(s.Blocks, report.Block{Para: lead})
	s.Sections = append(s.Sections, labEvict(lab))
	if h := lab.ByHand; h != nil {
		s.Sections = append(s.Sections, labByHand(h))
	}
	s.Sections = append(s.Sections, labReopen(lab), labBoundary(lab))
	if len(lab.Probes) > 0 {
		s.Sections = append(s.Sections, labProbes(lab))
	}
	if len(lab.Notes) > 0 {
		var items []report.Text
		for _, x := range lab.Notes {
			items = append(items, t(x))
		}
		s.Sections = append(s.Sections, report.Section{ID: "lab-notes", Title: "How the run went", Blocks: []report.Block{{List: &report.List{Items: items}}}})
	}
	return s
}

func watchers(ws []Watcher) (b, c Watcher) {
	for _, w := range ws {
		switch w.Name {
		case "behind":
			b = w
		case "current":
			c = w
		}
	}
	return b, c
}

func watcherTable(ws []Watcher) *report.Table {
	tb := &report.Table{Head: []report.Text{t("watcher"), t("from revision"), t("events before the compaction"), t("revisions"), t("ended"), t("error")}}
	for _, w := range ws {
		from := "now (no --rev)"
		if w.StartRevision != 0 {
			from = fmt.Sprint(w.StartRevision)
		}
		got := fmt.Sprint(w.Events - w.EventsAfterCompaction)
		if w.Total > 0 {
			got = fmt.Sprintf("%d of %d", w.Events-w.EventsAfterCompaction, w.Total)
		}
		if w.EventsAfterCompaction > 0 {
			got += fmt.Sprintf(", then %d after", w.EventsAfterCompaction)
		}
		revs := "—"
		if w.Events > 0 {
			revs = fmt.Sprintf("%d–%d", w.FirstRevision, w.LastRevision)
		}
		ended := "no"
		if w.Ended {
			ended = fmt.Sprintf("yes, at %d ms", w.EndedMs)
		}
		var errText report.Text
		if w.Error != "" {
			errText = report.Text{code(w.Error)}
		}
		tb.Rows = append(tb.Rows, []report.Cell{{Text: t(w.Name)}, {Text: t(from)}, {Text: t(got)}, {Text: t(revs)}, {Text: t(ended)}, {Text: errText}})
	}
	return tb
}

func labEvict(lab *LabRecord) report.Section {
	s := report.Section{ID: "lab-evict", Title: "Steps 1–3: two watchers, a compaction while the behind one replays"}
	b, c := watchers(lab.Watchers)
	s.Blocks = append(s.Blocks, report.Block{Para: t(fmt.Sprintf("Anchor A = %d, head N = %d; the compaction to N−10 = %d was issued as soon as the behind watcher's first batch arrived (%d ms after it opened).", lab.AnchorRevision, lab.HeadRevision, lab.CompactRevision, b.CompactedAtMs))})
	s.Blocks = append(s.Blocks, report.Block{Table: watcherTable(lab.Watchers)})
	var p report.Text
	switch {
	case b.Ended && b.Events > 0 && b.Events < b.Total:
		p = t(fmt.Sprintf("The behind watcher was evicted mid-stream: it had %d of its %d events when the server ended it.", b.Events, b.Total))
	case b.Ended && b.Events == 0:
		p = t("The behind watcher was ended before any event arrived.")
	case b.Ended:
		p = t("The behind watcher was ended after all its history had arrived.")
	default:
		p = t("The behind watcher was not evicted: it survived the compaction.")
	}
	if b.Cancel != nil {
		p = append(p, t(fmt.Sprintf(" Its last response: canceled=%v, compact_revision=%d, cancel_reason=%q.", b.Cancel.Canceled, b.Cancel.CompactRevision, b.Cancel.CancelReason))...)
	}
	if !c.Ended && c.EventsAfterCompaction > 0 {
		p = append(p, t(fmt.Sprintf(" The current watcher lived on: %d write(s) made after the compaction reached it.", c.EventsAfterCompaction))...)
	}
	s.Blocks = append(s.Blocks, report.Block{Para: p})
	if lab.Etcdctl != nil && lab.Etcdctl.Evict != nil {
		s.Blocks = append(s.Blocks, capture("etcdctl as terminal 1, on a fresh round (the compaction when its first line appeared)", lab.Etcdctl.Evict)...)
	}
	return s
}

func labByHand(h *ByHand) report.Section {
	s := report.Section{ID: "lab-by-hand", Title: fmt.Sprintf("The compaction typed by hand, %d ms after the watch opens", h.DelayMs)}
	s.Blocks = append(s.Blocks, report.Block{Table: watcherTable(h.Watchers)})
	if h.Evicted {
		s.Blocks = append(s.Blocks, report.Block{Para: t("The behind watcher was evicted.")})
		return s
	}
	b, _ := watchers(h.Watchers)
	p := t("Both watchers survived.")
	if b.Total > 0 {
		sum, caught := 0, int64(-1)
		for _, r := range b.Responses {
			sum += r.Events
			if sum >= b.Total && caught < 0 {
				caught = r.AtMs
			}
		}
		if caught >= 0 {
			p = append(p, t(fmt.Sprintf(" The behind watcher had all its %d events %d ms after opening, before the compaction at %d ms: it had caught up.", b.Total, caught, b.CompactedAtMs))...)
		}
	}
	s.Blocks = append(s.Blocks, report.Block{Para: p})
	return s
}

func labReopen(lab *LabRecord) report.Section {
	r := lab.Reopen
	s := report.Section{ID: "lab-reopen", Title: "Step 4: a watch opened from the compacted revision"}
	p := t(fmt.Sprintf("A watch from A = %d after the compaction: ", r.StartRevision))
	switch {
	case r.Created && r.Canceled && r.Cancel != nil && !r.Cancel.Created && r.Cancel.CompactRevision != 0:
		p = append(p, t(fmt.Sprintf("the server accepted it (a created response that did not cancel it) and %d ms later, in this run, sent a cancel with compact_revision=%d", r.MsBetween, r.Cancel.CompactRevision))...)
	case r.Created && r.Canceled:
		p = append(p, t(fmt.Sprintf("the client saw a created response and a cancel, %d ms apart", r.MsBetween))...)
	case r.Canceled:
		p = append(p, t("the server refused it in its first response")...)
	default:
		p = append(p, t("it was not canceled")...)
	}
	if r.Error != "" {
		p = append(p, t("; the client's error: ", code(r.Error))...)
	}
	p = append(p, report.Plain("."))
	s.Blocks = append(s.Blocks, report.Block{Para: p})
	if n := r.Negative; n != nil && len(n.Raw) > 0 {
		tb := &report.Table{Head: []report.Text{t("response"), t("ms"), t("watch_id"), t("created"), t("canceled"), t("compact_revision"), t("cancel_reason")}}
		for i, x := range n.Raw {
			tb.Rows = append(tb.Rows, []report.Cell{{Text: t(fmt.Sprint(i + 1))}, {Text: t(fmt.Sprint(x.AtMs))}, {Text: t(fmt.Sprint(x.WatchID))}, {Text: t(fmt.Sprint(x.Created))}, {Text: t(fmt.Sprint(x.Canceled))}, {Text: t(fmt.Sprint(x.CompactRevision))}, {Text: t(fmt.Sprintf("%q", x.CancelReason))}})
		}
		s.Blocks = append(s.Blocks, report.Block{Para: t(fmt.Sprintf("For comparison, a watch from revision %d, read on a raw gRPC watch stream:", n.StartRevision))}, report.Block{Table: tb})
		q := t("The Go client's Watch for the same request delivered ")
		switch {
		case n.Created && n.Canceled:
			q = append(q, t(fmt.Sprintf("a created response, then a canceled one %d ms later", n.MsBetween))...)
		case n.Canceled:
			q = append(q, t("no created response, one canceled response")...)
		default:
			q = append(q, t("no cancel")...)
		}
		if n.Error != "" {
			q = append(q, t(", with ", code(n.Error))...)
		}
		s.Blocks = append(s.Blocks, report.Block{Para: append(q, report.Plain("."))})
	}
	if lab.Etcdctl != nil && lab.Etcdctl.Reopen != nil {
		s.Blocks = append(s.Blocks, capture("etcdctl, the reopen", lab.Etcdctl.Reopen)...)
	}
	return s
}

func labBoundary(lab *LabRecord) report.Section {
	b := lab.Boundary
	s := report.Section{ID: "lab-boundary", Title: "Step 5: the boundary"}
	c := &report.Code{Lang: "text"}
	for _, p := range b.Probes {
		by := ""
		if p.By == "client" {
			by = "client: "
		}
		c.Lines = append(c.Lines, report.CodeLine{Text: fmt.Sprintf("%d: %s%s", p.Revision, by, p.Result)})
	}
	s.Blocks = append(s.Blocks, report.Block{Para: t("The first line of a watch from each of the exercise's revisions:")}, report.Block{Code: c})
	p := t(fmt.Sprintf("The lowest start revision whose watch is not canceled is %d (found in %d probes; a watch from below it is accepted, then canceled)", b.LowestOpenRevision, b.Searched))
	if b.LowestOpenRevision == b.CompactRevision {
		p = append(p, t(fmt.Sprintf(", the compaction revision C = %d", b.CompactRevision))...)
	} else {
		p = append(p, t(fmt.Sprintf("; the compaction revision is %d", b.CompactRevision))...)
	}
	if r := lab.Read; r.LowestReadableRevision != 0 {
		var tried []string
		for _, rp := range r.Probes {
			if rp.OK {
				tried = append(tried, fmt.Sprintf("%d reads", rp.Revision))
			} else {
				tried = append(tried, fmt.Sprintf("%d fails", rp.Revision))
			}
		}
		p = append(p, t(fmt.Sprintf(". For exercise 6's get --rev, the lowest readable revision is %d (%s)", r.LowestReadableRevision, strings.Join(tried, ", ")))...)
	}
	s.Blocks = append(s.Blocks, report.Block{Para: append(p, report.Plain("."))})
	if lab.Etcdctl != nil && lab.Etcdctl.Read != nil {
		s.Blocks = append(s.Blocks, capture("etcdctl get --rev at the anchor", lab.Etcdctl.Read)...)
	}
	return s
}

func labProbes(lab *LabRecord) report.Section {
	s := report.Section{ID: "lab-probes", Title: "Probes: requests the exercise does not make"}
	for _, p := range lab.Probes {
		q := t(fmt.Sprintf("%s: revision %d, the server compacted to %d. ", p.Title, p.Revision, p.CompactRevision))
		if p.ClientError == "" {
			q = append(q, t("The Go client's request succeeded.")...)
		} else {
			q = append(q, t("The Go client's error: ", code(p.ClientError))...)
			if p.ClientCode != "" {
				q = append(q, t(" (gRPC "+p.ClientCode+")")...)
			}
			q = append(q, report.Plain("."))
		}
		s.Blocks = append(s.Blocks, report.Block{Para: q})
		if p.Capture != nil {
			s.Blocks = append(s.Blocks, capture("etcdctl", p.Capture)...)
		}
	}
	return s
}

// capture is one etcdctl run, character for character.
func capture(what string, c *report.Capture) []report.Block {
	head := t(what+": ", code("etcdctl "+strings.Join(c.Args, " ")))
	if c.Stopped {
		head = append(head, t(fmt.Sprintf(" outlived the compaction (%d lines on stdout) and the lab stopped it. Stderr:", c.StdoutLines))...)
	} else {
		head = append(head, t(fmt.Sprintf(" exited with status %d, %d lines on stdout; stderr exactly:", c.ExitCode, c.StdoutLines))...)
	}
	code := &report.Code{Lang: "text"}
	for _, l := range strings.Split(strings.TrimSuffix(c.Stderr, "\n"), "\n") {
		code.Lines = append(code.Lines, report.CodeLine{Text: l})
	}
	return []report.Block{{Para: head}, {Code: code}}
}
