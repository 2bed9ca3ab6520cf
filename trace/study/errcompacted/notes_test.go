package errcompacted

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace/report"
)

// TestJoinSamePlace: consecutive steps of a way at one position become
// one step that says what each said, with the longer code, the arrows into
// both and out of both, and the marks of the other behaviour's steps;
// steps at one position that are not consecutive, or marked differently,
// stay apart.
func TestJoinSamePlace(t *testing.T) {
	at := func(line int) report.Loc { return report.Loc{File: "a.go", Line: line} }
	from := func(i int, handoff bool) []report.StepLink { return []report.StepLink{{Step: i, Handoff: handoff}} }
	steps := []report.Step{
		{Loc: at(1), Kind: "entry", Label: "a client opens it"},
		{Loc: at(2), Kind: "decision", Label: "decision: x < y", From: from(0, false)},
		{Loc: at(3), Kind: "signal", Label: "it is signalled: C: y", From: from(1, false), Observed: map[string]bool{"evict": false}},
		{Loc: at(3), Kind: "handoff", Label: "sent on the channel: case ch <- R{C: y}:", From: from(2, false), Observed: map[string]bool{"evict": true}},
		{Loc: at(9), Kind: "go", Label: "a loop of its own"},
		{Loc: at(4), Kind: "handoff", Label: "it is received: case r := <-ch:", From: []report.StepLink{{Step: 3, Handoff: true}, {Step: 4}}},
		{Loc: at(3), Kind: "wire", Label: "and copied: C: r.C", From: from(5, false)},
		{Loc: at(5), Kind: "exit", Label: "and exits", From: from(6, false)},
		{Loc: at(5), Kind: "exit", Label: "and exits again", From: from(7, false)},
	}
	differs := map[int]bool{7: true, 8: false}
	got, gotDiffers := joinSamePlace(steps, differs)
	want := []report.Step{
		steps[0],
		steps[1],
		{Loc: at(3), Kind: "signal", Label: "it is signalled and sent on the channel: case ch <- R{C: y}:", From: from(1, false), Observed: map[string]bool{"evict": true}},
		steps[4],
		{Loc: at(4), Kind: "handoff", Label: "it is received: case r := <-ch:", From: []report.StepLink{{Step: 2, Handoff: true}, {Step: 3}}},
		{Loc: at(3), Kind: "wire", Label: "and copied: C: r.C", From: from(4, false)},
		{Loc: at(5), Kind: "exit", Label: "and exits", From: from(5, false)},
		{Loc: at(5), Kind: "exit", Label: "and exits again", From: from(6, false)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("joined steps (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[int]bool{6: true}, gotDiffers); diff != "" {
		t.Errorf("marked steps (-want +got):\n%s", diff)
	}
	// The input is left as it was.
	if steps[5].From[0].Step != 3 {
		t.Errorf("the input's arrows changed: %+v", steps[5].From)
	}

	// Two codes neither holds stay, each with its words; the arrows into
	// the second from elsewhere join the first's.
	two := []report.Step{
		{Loc: at(1), Kind: "entry", Label: "start"},
		{Loc: at(8), Kind: "go", Label: "elsewhere"},
		{Loc: at(2), Kind: "wire", Label: "it maps: f(x)", From: from(0, false)},
		{Loc: at(2), Kind: "wire", Label: "and looks up: m[x]", From: []report.StepLink{{Step: 2}, {Step: 1, Handoff: true}}},
	}
	got, _ = joinSamePlace(two, nil)
	if len(got) != 3 || got[2].Label != "it maps `f(x)`, and looks up `m[x]`" {
		t.Fatalf("joined: %+v", got)
	}
	if diff := cmp.Diff([]report.StepLink{{Step: 0}, {Step: 1, Handoff: true}}, got[2].From); diff != "" {
		t.Errorf("arrows into the joined step (-want +got):\n%s", diff)
	}
}

// groupChain is a way across a group: an entry puts a member in a group
// (line 2), a loop of its own (3) takes the group's (4) and decides (5).
func groupChain(at func(int) report.Loc) []report.Step {
	from := func(links ...report.StepLink) []report.StepLink { return links }
	return []report.Step{
		{Loc: at(1), Kind: "entry", Label: "a client opens it"},
		{Loc: at(2), Kind: "handoff", Label: "put in a group", From: from(report.StepLink{Step: 0})},
		{Loc: at(3), Kind: "go", Label: "a loop of its own"},
		{Loc: at(4), Kind: "handoff", Label: "takes the group's", From: from(report.StepLink{Step: 2}, report.StepLink{Step: 1, Handoff: true})},
		{Loc: at(5), Kind: "decision", Label: "decision: x < y", From: from(report.StepLink{Step: 3})},
	}
}

// TestReachedAcross: a decision that guards no use of the sentinel is
// reached from the entries whose call paths reach it, and, marked →, from
// an entry that begins a behaviour's way to it only across a hand-off,
// and from the entries that reach another call of the same method on the
// same group as a group hand-off on that way; an entry whose way reaches
// it by calls alone, or that begins no way to it, or that calls another
// method of the group, is not added.
func TestReachedAcross(t *testing.T) {
	at := func(line int) report.Loc {
		return report.Loc{File: "a.go", Line: line, Function: "f" + itoa(int64(line))}
	}
	from := func(links ...report.StepLink) []report.StepLink { return links }
	steps := append(groupChain(at), report.Step{Loc: at(6), Kind: "entry", Label: "another entry, after the decision", From: from(report.StepLink{Step: 4})})
	entry := func(name string, l report.Loc) report.Entry {
		return report.Entry{Name: name, Function: l.Function, File: l.File, Line: l.Line}
	}
	group := func(l report.Loc, method string, entries ...string) report.Handoff {
		return report.Handoff{Loc: l, Kind: "group", Group: "s.g", Method: method, Entries: entries}
	}
	n := &notes{
		rep: &report.Report{Entries: []report.Entry{entry("open", at(1)), entry("loop", at(3)), entry("late", at(6))}},
		sg: &report.Signal{
			Comparisons: []report.Comparison{{Loc: at(5), Kind: "decision", Entries: []string{"loop"}}},
			Chains:      []report.Chain{{Behaviour: "b", Steps: steps}},
			Handoffs:    []report.Handoff{group(at(2), "add", "open"), group(at(9), "add", "restore"), group(at(4), "take", "loop"), group(at(8), "drop", "other")},
		},
	}
	if diff := cmp.Diff([]string{"loop", "→ open", "→ restore"}, n.feasibleFrom(at(5))); diff != "" {
		t.Errorf("reached from (-want +got):\n%s", diff)
	}
	// An entry with a leg that can run to one of those across a hand-off
	// without a message is added too; one across a hand-off with a
	// message (which the receiver dispatches on), or by a leg that cannot
	// run, is not.
	leg := func(b, from, to, v string) report.Crossing {
		return report.Crossing{Boundary: b, From: from, To: to, Feasible: v}
	}
	n.rep.Boundaries = []report.Boundary{{Name: "job"}, {Name: "proposal", Message: "pkg.Request"}}
	n.rep.Paths = []report.PairPaths{
		{Entry: "ticker", Crossing: []report.Crossing{leg("job", "ticker", "restore", "only-if")}},
		{Entry: "client", Crossing: []report.Crossing{leg("proposal", "client", "restore", "yes")}},
		{Entry: "idle", Also: []report.AlsoCrossing{{Crossing: []report.Crossing{leg("job", "idle", "restore", "no")}}}},
		{Entry: "timer", Also: []report.AlsoCrossing{{Crossing: []report.Crossing{leg("job", "timer", "restore", "yes")}}}},
	}
	if diff := cmp.Diff([]string{"loop", "→ open", "→ restore", "→ ticker", "→ timer"}, n.feasibleFrom(at(5))); diff != "" {
		t.Errorf("reached from, with legs into restore (-want +got):\n%s", diff)
	}
	n.rep.Boundaries, n.rep.Paths = nil, nil
	// The same way by calls alone adds nothing.
	steps[3].From = from(report.StepLink{Step: 2}, report.StepLink{Step: 1})
	if diff := cmp.Diff([]string{"loop"}, n.feasibleFrom(at(5))); diff != "" {
		t.Errorf("reached from, by calls (-want +got):\n%s", diff)
	}
}

// TestReachedUndecided: a comparison that guards a use is reached from
// the entries of the use's pairs whose way can run, marked → across a
// hand-off, and marked ? where the analysis does not decide it; a pair
// that cannot run is left out.
func TestReachedUndecided(t *testing.T) {
	use := report.Loc{File: "a.go", Line: 9}
	n := &notes{
		rep: &report.Report{
			Sites: []report.Site{{File: use.File, Line: use.Line}},
			Paths: []report.PairPaths{
				{Entry: "read", Site: report.SiteRef{Index: 0}, Feasible: "yes"},
				{Entry: "apply", Site: report.SiteRef{Index: 0}, Feasible: "unknown"},
				{Entry: "loop", Site: report.SiteRef{Index: 0}, Feasible: "unknown", Crossing: []report.Crossing{{Boundary: "job"}}},
				{Entry: "never", Site: report.SiteRef{Index: 0}, Feasible: "no"},
			},
		},
		sg: &report.Signal{Comparisons: []report.Comparison{{Loc: report.Loc{File: "a.go", Line: 8}, Kind: "decision", Guarded: &use}}},
	}
	if diff := cmp.Diff([]string{"read", "? apply", "? → loop"}, n.feasibleFrom(report.Loc{File: "a.go", Line: 8})); diff != "" {
		t.Errorf("reached from (-want +got):\n%s", diff)
	}
}

// TestGroupWaysUnreached: the paragraph on the calls that put a member
// in a group names those of the same method that no entry reaches by
// calls too (a victims loop's move into the group), saying so.
func TestGroupWaysUnreached(t *testing.T) {
	at := func(line int) report.Loc {
		return report.Loc{File: "a.go", Line: line, Function: "pkg.f" + itoa(int64(line)), Text: "s.g.add(w)"}
	}
	steps := groupChain(at)
	group := func(l report.Loc, method string, entries ...string) report.Handoff {
		return report.Handoff{Loc: l, Kind: "group", Group: "s.g", Method: method, Entries: entries}
	}
	n := &notes{
		rep: &report.Report{Entries: []report.Entry{{Name: "open", Function: at(1).Function, File: "a.go", Line: 1}, {Name: "loop", Function: at(3).Function, File: "a.go", Line: 3}}},
		sg: &report.Signal{
			Comparisons: []report.Comparison{{Loc: report.Loc{File: "a.go", Line: 5, Text: "x < y"}, Kind: "decision", Entries: []string{"loop"}}},
			Chains:      []report.Chain{{Behaviour: "b", Steps: steps}},
			Handoffs:    []report.Handoff{group(at(2), "add", "open"), group(at(9), "add"), group(at(8), "drop")},
		},
	}
	var b strings.Builder
	for _, sp := range n.groupWays() {
		b.WriteString(sp.Text)
		if sp.Loc != nil {
			b.WriteString("<" + itoa(int64(sp.Loc.Line)) + ">")
		}
	}
	got := b.String()
	for _, want := range []string{"open calls ", "pkg.f9", "<9>", "puts members there too, though no entry of these notes reaches it by calls"} {
		if !strings.Contains(got, want) {
			t.Errorf("the group's paragraph does not say %q: %s", want, got)
		}
	}
	if strings.Contains(got, "<8>") {
		t.Errorf("the group's paragraph names a call of another method: %s", got)
	}
}

// TestMadeAt: a crossing's message is quoted beside its line when its
// literal is known and can be quoted; else only the line is cited.
func TestMadeAt(t *testing.T) {
	flat := func(x report.Text) string {
		var b strings.Builder
		for _, s := range x {
			switch {
			case s.Code:
				b.WriteString("`" + s.Text + "`")
			case s.Loc != nil:
				b.WriteString("LOC")
			default:
				b.WriteString(s.Text)
			}
		}
		return b.String()
	}
	at := report.Loc{File: "a.go", Line: 7, Text: "T{A: a}"}
	if got := flat(madeAt([]string{"A"}, at)); !strings.Contains(got, "made by `T{A: a}` (LOC)") {
		t.Errorf("madeAt = %q, want the literal quoted", got)
	}
	for _, text := range []string{"", "T{S: `x`}", "T{A: {0}}"} {
		at.Text = text
		if got := flat(madeAt([]string{"A"}, at)); !strings.Contains(got, "(made at LOC)") || strings.Contains(got, "made by") {
			t.Errorf("madeAt with %q = %q, want the line cited alone", text, got)
		}
	}
}
