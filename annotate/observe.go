package annotate

import (
	"fmt"
	"sort"
	"strings"
)

// ranIn lists the behaviours in which a line ran, or says it was not
// measured.
func ranIn(m map[string]bool) string {
	if m == nil {
		return "not measured"
	}
	var ks []string
	for k, v := range m {
		if v {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	if len(ks) == 0 {
		return "ran in none"
	}
	return "ran in " + strings.Join(ks, ", ")
}

func mark(m map[string]bool, behaviour string) string {
	switch {
	case m == nil:
		return "not measured"
	case m[behaviour]:
		return "✔ ran"
	default:
		return "✘ did not run"
	}
}

func (m *md) observed() {
	o := m.rep.Observe
	if o == nil {
		return
	}
	m.p("## What ran, behaviour by behaviour (coverage)\n\n")
	how := "reused from the cache"
	if o.Built {
		how = fmt.Sprintf("built in this run (%.1f s)", float64(o.BuildMs)/1000)
	}
	m.p("Each behaviour ran in a fresh etcd %s server built with coverage of the server's packages (`%s`, %s); a line counts when a statement on it ran. The client and etcdctl run in other processes and are not measured.\n\n", o.Release, o.Binary, how)
	m.p("| run | ms | blocks that ran |\n|---|---|---|\n")
	for _, r := range o.Runs {
		m.p("| %s | %d | %d of %d |\n", r.Behaviour, r.Ms, r.Ran, r.Blocks)
	}
	m.p("\n")
	var behs []string
	for _, r := range o.Runs {
		behs = append(behs, r.Behaviour)
	}
	if len(m.rep.Citation.Lines) > 0 {
		m.p("%s's lines at run time:\n\n| line | %s |\n|---|%s\n", capitalize(m.rep.Citation.Step), strings.Join(behs, " | "), strings.Repeat("---|", len(behs)))
		for _, l := range m.rep.Citation.Lines {
			var cells []string
			var obs map[string]bool
			if l.Site >= 0 {
				obs = m.rep.Sites[l.Site].Observed
			}
			for _, b := range behs {
				cells = append(cells, mark(obs, b))
			}
			m.p("| `%s` | %s |\n", loc(l.File, l.Line), strings.Join(cells, " | "))
		}
		m.p("\n")
	}
	if s := m.rep.Signal; s != nil {
		m.p("The comparisons against the compaction revision at run time:\n\n| comparison | %s |\n|---|%s\n", strings.Join(behs, " | "), strings.Repeat("---|", len(behs)))
		for _, c := range s.Comparisons {
			var cells []string
			for _, b := range behs {
				cells = append(cells, mark(c.Observed, b))
			}
			m.p("| `%s` `%s` (%s) | %s |\n", loc(c.File, c.Line), mdEscape(c.Text), c.Kind, strings.Join(cells, " | "))
		}
		m.p("\n")
	}
	for _, d := range o.Decided {
		m.p("At run time **%s** was decided by `%s` (`%s`): the line it guards, `%s`, ran there and not in the baseline.\n\n", d.Behaviour, mdEscape(d.Comparison), loc(d.File, d.Line), d.Guarded)
	}
	for _, c := range o.Chains {
		if c.Measured == 0 {
			continue
		}
		if c.Ran == c.Measured {
			m.p("All %d measured steps of the %s chain ran in %s (the client's and etcdctl's steps run in other processes).\n\n", c.Measured, c.Behaviour, c.Behaviour)
			continue
		}
		m.p("%d of the %d measured steps of the %s chain ran; these did not:\n\n", c.Ran, c.Measured, c.Behaviour)
		for _, l := range c.NotRan {
			file, what, _ := strings.Cut(l, " ")
			m.p("- `%s` %s\n", file, mdEscape(what))
		}
		m.p("\n")
	}
	for _, only := range o.Only {
		if len(only.Lines) == 0 {
			m.p("Nothing of the study's lines ran only in %s.\n\n", only.Behaviour)
			continue
		}
		m.p("Ran in **%s** and not in the baseline (the behaviour's own code):\n\n", only.Behaviour)
		for _, l := range only.Lines {
			file, what, _ := strings.Cut(l, " ")
			m.p("- `%s` %s\n", file, mdEscape(what))
		}
		m.p("\n")
	}
	if len(o.Disagreements) == 0 {
		m.p("Static paths and the runs agree: every site and decision a behaviour's entries reach ran in it, and nothing ran that no path explains.\n\n")
	} else {
		m.p("Where static paths and the runs disagree:\n\n")
		for _, d := range o.Disagreements {
			what := "statically reachable from its entries, but did not run"
			if d.Kind == "dynamic-only" {
				what = "ran, but no static path from its entries explains it"
			}
			m.p("- %s: `%s` (%s): %s\n", d.Behaviour, loc(d.File, d.Line), mdEscape(shortKey(d.What)), what)
		}
		m.p("\n")
	}
}
