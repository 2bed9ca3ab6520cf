package annotate

import (
	"fmt"
	"io"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// The lab sections a study's behaviour can name (report.Behaviour.Observed).
const (
	LabEvict  = "evict"
	LabReopen = "reopen"
	LabRead   = "read"
)

// RenderLab writes a lab record in format.
func RenderLab(w io.Writer, format string, lab *report.Lab) error {
	switch format {
	case "markdown", "md":
		return LabMarkdown(w, lab)
	case "json":
		return jsonTo(w, lab)
	default:
		return fmt.Errorf("unknown format %q: want one of markdown, json", format)
	}
}

// LabMarkdown writes the lab record as notes, a section per step.
func LabMarkdown(w io.Writer, lab *report.Lab) error {
	m := &md{}
	m.p("# The evict-watcher lab, run on etcd %s\n\n", lab.Etcd.Version)
	m.labRun(lab)
	m.labEvict(lab, 2)
	m.labByHand(lab, 2)
	m.labEtcdctlEvict(lab)
	m.labReopen(lab, 2)
	m.labBoundary(lab, 2)
	m.labRead(lab, 2)
	m.labProbes(lab, 2)
	m.labNotes(lab)
	_, err := io.WriteString(w, m.b.String())
	return err
}

func (m *md) labRun(lab *report.Lab) {
	srv := "an etcd server embedded in srctrace (go.etcd.io/etcd/server/v3/embed), on loopback, with a fresh data dir"
	if lab.Etcd.Server == "endpoints" {
		srv = "the etcd server at " + strings.Join(lab.Etcd.Endpoints, ", ")
	}
	m.p("- Server: %s, release %s.\n", srv, lab.Etcd.Version)
	if lab.Etcdctl != nil {
		m.p("- etcdctl: `%s` (%s).\n", lab.Etcdctl.Path, lab.Etcdctl.Version)
	} else {
		m.p("- etcdctl: none; the results are the Go client's.\n")
	}
	m.p("- Keys under `%s`; each round writes an anchor key and then %d writes to one key, as the exercise's setup does.\n", lab.Prefix, lab.Writes)
	if lab.Millis > 0 {
		m.p("- The lab took %.1f s.\n", float64(lab.Millis)/1000)
	}
	m.p("\n")
}

func heading(level int, text string) string { return strings.Repeat("#", level) + " " + text + "\n\n" }

func behind(ws []report.Watcher) (b, c report.Watcher) {
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

func (m *md) watcherTable(ws []report.Watcher) {
	m.p("| watcher | from revision | events before the compaction | revisions | responses with events (events @ ms after opening) | ended | error |\n|---|---|---|---|---|---|---|\n")
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
			got += fmt.Sprintf(", then %d after the compaction", w.EventsAfterCompaction)
		}
		revs := "—"
		if w.Events > 0 {
			revs = fmt.Sprintf("%d–%d", w.FirstRevision, w.LastRevision)
		}
		var bs []string
		for _, b := range w.Responses {
			bs = append(bs, fmt.Sprintf("%d @ %d", b.Events, b.AtMs))
		}
		ended := "no"
		if w.Ended {
			ended = fmt.Sprintf("yes, at %d ms", w.EndedMs)
		}
		errText := ""
		if w.Error != "" {
			errText = "`" + w.Error + "`"
		}
		m.p("| %s | %s | %s | %s | %s | %s | %s |\n", w.Name, from, got, revs, strings.Join(bs, ", "), ended, errText)
	}
	m.p("\n")
}

func (m *md) labEvict(lab *report.Lab, level int) {
	m.p("%s", heading(level, "Steps 1–3: two watchers, a compaction while the behind one replays"))
	b, c := behind(lab.Watchers)
	m.p("Anchor A = %d, head N = %d; both watchers opened, then the compaction to N−10 = %d was issued as soon as the behind watcher's first batch arrived (%d ms after it opened).\n\n",
		lab.AnchorRevision, lab.HeadRevision, lab.CompactRevision, b.CompactedAtMs)
	m.watcherTable(lab.Watchers)
	switch {
	case b.Ended && b.Events > 0 && b.Events < b.Total:
		m.p("The behind watcher was **evicted mid-stream**: it had %d of its %d events when the server ended it.", b.Events, b.Total)
	case b.Ended && b.Events == 0:
		m.p("The behind watcher was ended **before any event arrived**.")
	case b.Ended:
		m.p("The behind watcher was ended after all its history had arrived.")
	default:
		m.p("The behind watcher was **not evicted**: it survived the compaction.")
	}
	if b.Cancel != nil {
		m.p(" The final response: canceled=%v, compact_revision=%d, cancel_reason=%q; the client's error: `%s`.", b.Cancel.Canceled, b.Cancel.CompactRevision, b.Cancel.CancelReason, b.Error)
	}
	m.p("\n\n")
	if !c.Ended && c.EventsAfterCompaction > 0 {
		m.p("The current watcher **lives on**: a write made after the compaction reached it (%d %s after the compaction), and it never saw a cancel.\n\n", c.EventsAfterCompaction, plural(c.EventsAfterCompaction, "event", "events"))
	} else if c.Ended {
		m.p("The current watcher was ended too: `%s`.\n\n", c.Error)
	}
}

func (m *md) labByHand(lab *report.Lab, level int) {
	h := lab.ByHand
	if h == nil {
		return
	}
	m.p("%s", heading(level, fmt.Sprintf("The compaction typed by hand, %d ms after the watch opens", h.DelayMs)))
	m.p("Anchor A = %d, head N = %d, compaction to %d after %d ms, as a person typing in a third terminal would.\n\n", h.AnchorRevision, h.HeadRevision, h.CompactRevision, h.DelayMs)
	m.watcherTable(h.Watchers)
	b, _ := behind(h.Watchers)
	if h.Evicted {
		m.p("The behind watcher was evicted.\n\n")
		return
	}
	m.p("**Both watchers survived.** ")
	if n := len(b.Responses); n > 0 && b.Total > 0 {
		var caught int64 = -1
		sum := 0
		for _, r := range b.Responses {
			sum += r.Events
			if sum >= b.Total && caught < 0 {
				caught = r.AtMs
			}
		}
		var sizes []string
		for _, r := range b.Responses {
			if r.AtMs <= caught {
				sizes = append(sizes, fmt.Sprintf("%d %s at %d ms", r.Events, plural(r.Events, "event", "events"), r.AtMs))
			}
		}
		if caught >= 0 {
			m.p("The server replayed the behind watcher's %d events in %d responses (%s): it had caught up %d ms after opening, before the compaction at %d ms. A watcher that has caught up needs no history, so the compaction did not concern it. ",
				b.Total, len(sizes), strings.Join(sizes, ", "), caught, b.CompactedAtMs)
		}
	}
	m.p("To see the eviction by hand the compaction has to come between two of those responses.\n\n")
}

func (m *md) capture(title string, c *report.Capture) {
	if c.Stopped {
		m.p("`etcdctl %s` outlived the compaction: it printed a write made after it (%d lines on stdout), and the lab stopped it. Stderr:\n\n```text\n%s```\n\n", strings.Join(c.Args, " "), c.StdoutLines, c.Stderr)
		return
	}
	m.p("`etcdctl %s` — exit status **%d**, %d %s on stdout", strings.Join(c.Args, " "), c.ExitCode, c.StdoutLines, plural(c.StdoutLines, "line", "lines"))
	if c.Events > 0 {
		m.p(" (%d events)", c.Events)
	}
	if c.Stdout != nil && *c.Stdout != "" {
		m.p(" exactly:\n\n")
		m.fence(*c.Stdout)
		m.p("and stderr exactly:\n\n")
	} else {
		m.p(", stderr exactly:\n\n")
	}
	m.fence(c.Stderr)
}

// fence writes text as a code block, character for character.
func (m *md) fence(text string) {
	m.p("```text\n%s", text)
	if !strings.HasSuffix(text, "\n") {
		m.p("\n")
	}
	m.p("```\n\n")
}

func (m *md) labEtcdctlEvict(lab *report.Lab) {
	if lab.Etcdctl == nil || lab.Etcdctl.Evict == nil {
		return
	}
	m.p("%s", heading(2, "Step 3 with the real etcdctl: the text of the one that ends"))
	m.p("etcdctl %s as terminal 1, on a fresh round; the compaction was issued when its first line appeared.\n\n", lab.Etcdctl.Version)
	m.capture("evict", lab.Etcdctl.Evict)
}

func (m *md) labReopen(lab *report.Lab, level int) {
	r := lab.Reopen
	m.p("%s", heading(level, "Step 4: a watch opened from the compacted revision"))
	m.p("A watch from A = %d after the compaction: ", r.StartRevision)
	switch {
	case r.Created && r.Canceled:
		m.p("the server **accepted it** (a created response came first) and **canceled it %d ms later**", r.MsBetween)
	case r.Canceled:
		m.p("the server **refused it** in its first response")
	default:
		m.p("it was not canceled")
	}
	if r.Cancel != nil {
		m.p("; the cancel response: compact_revision=%d, cancel_reason=%q", r.Cancel.CompactRevision, r.Cancel.CancelReason)
	}
	if r.Error != "" {
		m.p("; the client's error: `%s`", r.Error)
	}
	m.p(".\n\n")
	b, _ := behind(lab.Watchers)
	if b.Error != "" && r.Error != "" {
		if b.Error == r.Error {
			m.p("The error text is identical to step 3's; step 3's stream had delivered %d events before it ended, this one %d.\n\n", b.Events, r.Events)
		} else {
			m.p("The error text differs from step 3's (`%s`).\n\n", b.Error)
		}
	}
	if n := r.Negative; n != nil && len(n.Raw) > 0 {
		m.labNegative(n)
	} else if n != nil {
		m.p("For comparison, a watch from revision %d: ", n.StartRevision)
		switch {
		case n.Canceled && !n.Created:
			m.p("no created notification reached the client; it was canceled at once")
		case n.Canceled:
			m.p("created, then canceled %d ms later", n.MsBetween)
		default:
			m.p("not canceled")
		}
		if n.Error != "" {
			m.p(", with `%s`", n.Error)
		}
		m.p(".\n\n")
	}
	if lab.Etcdctl != nil && lab.Etcdctl.Reopen != nil {
		m.capture("reopen", lab.Etcdctl.Reopen)
	}
}

// labNegative sets what the server sent for a watch from a negative
// revision beside what the Go client's Watch delivered.
func (m *md) labNegative(n *report.Reopen) {
	m.p("For comparison, a watch from revision %d. What the server sent, read on a gRPC watch stream of the lab's own (not through the Go client's `Watch`):\n\n", n.StartRevision)
	m.p("| response | ms after the request | watch_id | created | canceled | compact_revision | cancel_reason | events | header revision |\n|---|---|---|---|---|---|---|---|---|\n")
	for i, r := range n.Raw {
		m.p("| %d | %d | %d | %v | %v | %d | %q | %d | %d |\n", i+1, r.AtMs, r.WatchID, r.Created, r.Canceled, r.CompactRevision, r.CancelReason, r.Events, r.HeaderRevision)
	}
	if last := n.Raw[len(n.Raw)-1]; !last.Canceled {
		m.p("\nNo response canceled it within the time the lab waited.\n")
	}
	m.p("\nWhat the Go client's `Watch` delivered for the same request (with the created notification asked for): ")
	switch {
	case n.Created && n.Canceled:
		m.p("a created response, then %d ms later a canceled one", n.MsBetween)
	case n.Canceled:
		m.p("**no created response**; one response, canceled")
	case n.Created:
		m.p("a created response, and no cancel")
	default:
		m.p("nothing")
	}
	if c := n.Cancel; c != nil {
		m.p(" (created=%v, canceled=%v, compact_revision=%d, cancel_reason=%q, header revision %d)", c.Created, c.Canceled, c.CompactRevision, c.CancelReason, c.HeaderRevision)
	}
	if n.Error != "" {
		m.p(", with the error `%s`", n.Error)
	}
	m.p(".\n\n")
}

// labProbes renders the requests the lab adds after the main round.
func (m *md) labProbes(lab *report.Lab, level int) {
	if len(lab.Probes) == 0 {
		return
	}
	m.p("%s", heading(level, "Probes: requests the exercise does not make"))
	m.p("After the main round's compaction to %d, on the same server:\n\n", lab.CompactRevision)
	for _, p := range lab.Probes {
		m.labProbe(p, level+1)
	}
}

func (m *md) labProbe(p report.RequestProbe, level int) {
	m.p("%s", heading(level, p.Title))
	m.p("The request names revision %d; the server had been compacted to %d. ", p.Revision, p.CompactRevision)
	if p.ClientError == "" {
		m.p("The Go client's request succeeded.\n\n")
	} else {
		m.p("The Go client's error: `%s`", p.ClientError)
		if p.ClientCode != "" {
			m.p(" (gRPC code %s)", p.ClientCode)
		}
		m.p(".\n\n")
	}
	if p.Capture != nil {
		m.capture(p.Name, p.Capture)
	}
}

func (m *md) labBoundary(lab *report.Lab, level int) {
	b := lab.Boundary
	m.p("%s", heading(level, "Step 5: the boundary"))
	byEtcdctl := 0
	for _, p := range b.Probes {
		if p.By == "etcdctl" {
			byEtcdctl++
		}
	}
	switch byEtcdctl {
	case len(b.Probes):
		m.p("First line of a watch from each revision (etcdctl, as the exercise's loop prints it):\n\n```text\n")
	case 0:
		m.p("What the Go client saw of a watch from each revision (the lab ran without etcdctl):\n\n```text\n")
	default:
		m.p("First line of a watch from each revision (etcdctl, as the exercise's loop prints it; marked \"client:\" where only the Go client's view could be had):\n\n```text\n")
	}
	for _, p := range b.Probes {
		by := ""
		if byEtcdctl > 0 && p.By != "etcdctl" {
			by = "client: "
		}
		m.p("%d: %s%s\n", p.Revision, by, p.Result)
	}
	m.p("```\n\n")
	verdict := "the same as"
	if b.LowestOpenRevision != b.CompactRevision {
		verdict = "**not** the same as"
	}
	m.p("The lowest revision that still opens a watch, found by a search over [1, N] in %d probes, is **%d**: %s the compaction revision %d.\n\n", b.Searched, b.LowestOpenRevision, verdict, b.CompactRevision)
}

func (m *md) labRead(lab *report.Lab, level int) {
	r := lab.Read
	m.p("%s", heading(level, "Exercise 6: get --rev at the same revisions"))
	m.p("| revision | result |\n|---|---|\n")
	for _, p := range r.Probes {
		res := "ok"
		if !p.OK {
			res = "`" + p.Error + "`"
		}
		m.p("| %d | %s |\n", p.Revision, res)
	}
	m.p("\nThe lowest revision a get still reads is **%d** (compaction revision %d).\n\n", r.LowestReadableRevision, lab.CompactRevision)
	if lab.Etcdctl != nil && lab.Etcdctl.Read != nil {
		m.capture("read", lab.Etcdctl.Read)
	}
}

func (m *md) labNotes(lab *report.Lab) {
	if len(lab.Notes) == 0 {
		return
	}
	m.p("%s", heading(2, "Notes"))
	for _, n := range lab.Notes {
		m.p("- %s\n", n)
	}
	m.p("\n")
}

// labObserved renders the lab section a behaviour names, inside the study
// notes.
func (m *md) labObserved(lab *report.Lab, key string) {
	switch key {
	case LabEvict:
		m.labEvict(lab, 5)
		if lab.Etcdctl != nil && lab.Etcdctl.Evict != nil {
			m.capture("evict", lab.Etcdctl.Evict)
		}
		m.labByHand(lab, 5)
		m.pacingSentence()
	case LabReopen:
		m.labReopen(lab, 5)
		m.labBoundary(lab, 5)
	case LabRead:
		m.labRead(lab, 5)
	default:
		// A probe's behaviour names the probe.
		for _, p := range lab.Probes {
			if p.Name == key {
				m.labProbe(p, 5)
			}
		}
	}
}

// pacingSentence links the lab's timings to the values in the code.
func (m *md) pacingSentence() {
	if m.rep == nil || m.rep.Signal == nil || len(m.rep.Signal.Pacing) == 0 {
		return
	}
	m.p("What the code says about these timings:")
	for _, p := range m.rep.Signal.Pacing {
		if p.Absent {
			continue
		}
		m.p(" %s: %s (`%s`);", p.Name, p.Value, loc(p.File, p.Line))
	}
	m.p(" a behind watcher is therefore replayed a batch per sync pass, and a compaction evicts it only while it is still behind — between the first and the last pass.\n\n")
}
