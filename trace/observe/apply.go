package observe

import (
	"fmt"
	"sort"
	"strings"

	"github.com/srctrace/srctrace/trace/lab"
	"github.com/srctrace/srctrace/trace/report"
)

// Baseline is the name of the run every behaviour's run is compared with.
const Baseline = lab.Baseline

// Apply marks every site, hop, comparison and chain step of rep with the
// behaviours in which its line ran, and records what ran only in each
// behaviour and where static paths and the runs disagree. Lines of files
// that were not instrumented (the client, etcdctl) stay unmarked.
func Apply(rep *report.Report, res *Result) {
	// A behaviour's run is the script its Observed key names.
	byScript := map[string]*Profile{}
	for _, p := range res.Runs {
		byScript[p.Script] = p
	}
	type beh struct {
		id    string
		prof  *Profile
		setup []string
	}
	var behs []beh
	for _, b := range rep.Behaviours {
		if p := byScript[b.Observed]; p != nil {
			behs = append(behs, beh{b.ID, p, b.Setup})
		}
	}
	if p := byScript[Baseline]; p != nil {
		behs = append(behs, beh{Baseline, p, nil})
	}
	mark := func(file string, line int) map[string]bool {
		var m map[string]bool
		for _, b := range behs {
			if !b.prof.Covers(file, line) {
				continue
			}
			if m == nil {
				m = map[string]bool{}
			}
			m[b.id] = b.prof.Ran(file, line)
		}
		return m
	}
	ob := &report.Observe{Release: res.Version, Binary: res.Binary, Built: res.Built, BuildMs: res.BuildMs,
		Runs: []report.ObserveRun{}, Only: []report.ObserveOnly{}, Disagreements: []report.Disagreement{},
		Decided: []report.Decided{}, Chains: []report.ChainRun{}}
	for _, b := range behs {
		ran := 0
		for _, bl := range b.prof.Blocks {
			if bl.Count > 0 {
				ran++
			}
		}
		ob.Runs = append(ob.Runs, report.ObserveRun{Behaviour: b.id, Ms: b.prof.Millis, Blocks: len(b.prof.Blocks), Ran: ran})
	}
	for i := range rep.Sites {
		s := &rep.Sites[i]
		s.Observed = mark(s.File, s.Line)
	}
	for i := range rep.Paths {
		for j := range rep.Paths[i].Paths {
			for k := range rep.Paths[i].Paths[j] {
				h := &rep.Paths[i].Paths[j][k]
				h.Observed = mark(h.File, h.Line)
			}
		}
		// Hops is the first path, marked the same.
		for k := range rep.Paths[i].Hops {
			h := &rep.Paths[i].Hops[k]
			h.Observed = mark(h.File, h.Line)
		}
	}
	if s := rep.Signal; s != nil {
		for i := range s.Comparisons {
			c := &s.Comparisons[i]
			c.Observed = mark(c.File, c.Line)
		}
		for i := range s.Chains {
			for j := range s.Chains[i].Steps {
				st := &s.Chains[i].Steps[j]
				st.Observed = mark(st.File, st.Line)
			}
		}
	}
	// What ran only in a behaviour, among the sites, comparisons and steps.
	for _, b := range behs {
		if b.id == Baseline {
			continue
		}
		seen := map[string]bool{}
		var lines []string
		add := func(file string, line int, what string, m map[string]bool) {
			if m == nil || !m[b.id] || m[Baseline] {
				return
			}
			k := fmt.Sprintf("%s:%d", file, line)
			if !seen[k] {
				seen[k] = true
				lines = append(lines, k+" "+what)
			}
		}
		for _, s := range rep.Sites {
			add(s.File, s.Line, s.Kind+" of the sentinel", s.Observed)
		}
		if s := rep.Signal; s != nil {
			for _, c := range s.Comparisons {
				add(c.File, c.Line, "`"+c.Text+"`", c.Observed)
			}
			for _, ch := range s.Chains {
				if ch.Behaviour != b.id {
					continue
				}
				for _, st := range ch.Steps {
					add(st.File, st.Line, st.Label, st.Observed)
				}
			}
		}
		sort.Strings(lines)
		ob.Only = append(ob.Only, report.ObserveOnly{Behaviour: b.id, Lines: lines})
	}
	// Static and dynamic disagreements, per behaviour. What the analysis
	// expects to run in a behaviour is the uses a path reaches that can
	// run with the behaviour's requests (its Sites), not every use its
	// entries reach by calls.
	runsIn := map[string]map[int]bool{}
	for _, b := range rep.Behaviours {
		runsIn[b.ID] = map[int]bool{}
		for _, si := range b.Sites {
			runsIn[b.ID][si] = true
		}
	}
	siteAt := map[string]int{}
	for i, s := range rep.Sites {
		siteAt[fmt.Sprintf("%s:%d", s.File, s.Line)] = i
	}
	for _, b := range behs {
		if b.id == Baseline {
			continue
		}
		for i, s := range rep.Sites {
			if s.Observed == nil {
				continue
			}
			static, setup := runsIn[b.id][i], false
			for _, p := range rep.Paths {
				if p.Site.Index == i && p.Reachable && contains(b.setup, p.Entry) {
					setup = true
				}
			}
			if setup && !static && s.Observed[b.id] {
				continue // the lab's own compaction explains it
			}
			what := fmt.Sprintf("%s in %s", s.Kind, s.Function)
			switch {
			case static && !s.Observed[b.id]:
				ob.Disagreements = append(ob.Disagreements, report.Disagreement{Behaviour: b.id, Kind: "static-only", What: what, File: s.File, Line: s.Line})
			case !static && s.Observed[b.id] && s.Function != "":
				ob.Disagreements = append(ob.Disagreements, report.Disagreement{Behaviour: b.id, Kind: "dynamic-only", What: what, File: s.File, Line: s.Line})
			}
		}
		if s := rep.Signal; s != nil {
			for _, c := range s.Comparisons {
				if c.Observed == nil || c.Kind != "decision" {
					continue
				}
				static := contains(c.Behaviours, b.id)
				if c.Guarded != nil {
					// A comparison that guards a use is expected where the use is.
					if si, ok := siteAt[fmt.Sprintf("%s:%d", c.Guarded.File, c.Guarded.Line)]; ok {
						static = runsIn[b.id][si]
					}
				}
				if !static && c.Observed[b.id] && reachedFromAny(c.Entries, b.setup) {
					continue // the lab's own compaction explains it
				}
				what := "`" + c.Text + "` in " + c.Function
				switch {
				case static && !c.Observed[b.id]:
					ob.Disagreements = append(ob.Disagreements, report.Disagreement{Behaviour: b.id, Kind: "static-only", What: what, File: c.File, Line: c.Line})
				case !static && c.Observed[b.id]:
					ob.Disagreements = append(ob.Disagreements, report.Disagreement{Behaviour: b.id, Kind: "dynamic-only", What: what, File: c.File, Line: c.Line})
				}
			}
		}
	}
	// Decisions that took effect: what they guard ran only there.
	if s := rep.Signal; s != nil {
		for _, b := range behs {
			if b.id == Baseline {
				continue
			}
			for _, c := range s.Comparisons {
				if c.Kind != "decision" || c.Guarded == nil {
					continue
				}
				g := mark(c.Guarded.File, c.Guarded.Line)
				if g != nil && g[b.id] && !g[Baseline] {
					ob.Decided = append(ob.Decided, report.Decided{Behaviour: b.id, Comparison: c.Text, File: c.File, Line: c.Line,
						Guarded: fmt.Sprintf("%s:%d", c.Guarded.File, c.Guarded.Line)})
				}
			}
		}
		for _, ch := range s.Chains {
			cr := report.ChainRun{Behaviour: ch.Behaviour, NotRan: []string{}}
			for _, st := range ch.Steps {
				if st.Observed == nil {
					continue
				}
				if _, ok := st.Observed[ch.Behaviour]; !ok {
					continue
				}
				cr.Measured++
				if st.Observed[ch.Behaviour] {
					cr.Ran++
				} else {
					cr.NotRan = append(cr.NotRan, fmt.Sprintf("%s:%d %s", st.File, st.Line, st.Label))
				}
			}
			ob.Chains = append(ob.Chains, cr)
		}
	}
	rep.Observe = ob
}

func reachedFromAny(entries, names []string) bool {
	for _, n := range names {
		if contains(entries, n) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s || strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}
