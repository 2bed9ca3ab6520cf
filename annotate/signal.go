package annotate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

var placeholder = regexp.MustCompile(`\{(\d+)\}`)

// verdictText replaces {N} by `file:line` of Lines[N].
func verdictText(v report.Verdict) string {
	return placeholder.ReplaceAllStringFunc(v.Sentence, func(m string) string {
		i, _ := strconv.Atoi(m[1 : len(m)-1])
		if i < len(v.Lines) {
			return "`" + loc(v.Lines[i].File, v.Lines[i].Line) + "`"
		}
		return m
	})
}

func (m *md) verdicts() {
	s := m.rep.Signal
	if s == nil || len(s.Verdicts) == 0 {
		return
	}
	m.p("## Verdicts, from the code of etcd %s\n\n", m.rep.Etcd.Version)
	for _, v := range s.Verdicts {
		m.p("**%s**\n\n%s\n\n", v.Question, verdictText(v))
	}
}

// claims checks the exercise's claims in a table: what it says, what the
// code establishes instead or as well, and whether the claim holds.
func (m *md) claims() {
	s := m.rep.Signal
	if s == nil || len(s.Claims) == 0 {
		return
	}
	m.p("## The exercise's claims, checked against the code\n\n")
	m.p("| where | the exercise says | the code of etcd %s | holds |\n|---|---|---|---|\n", m.rep.Etcd.Version)
	for _, c := range s.Claims {
		found, holds := "—", "not decided by this release's code"
		if c.Fact != nil {
			var at []string
			for _, l := range c.Fact.Lines {
				at = append(at, "`"+loc(l.File, l.Line)+"`")
			}
			found = mdEscape(c.Fact.Text)
			if len(at) > 0 {
				found += " (" + strings.Join(at, ", ") + ")"
			}
		}
		if c.Holds != nil {
			holds = "**no**"
			if *c.Holds {
				holds = "yes"
			}
		}
		m.p("| %s | %s | %s | %s |\n", c.Where, mdEscape("“"+c.Says+"”"), found, holds)
	}
	m.p("\n")
}

func (m *md) behaviourTitle(id string) string {
	for _, b := range m.rep.Behaviours {
		if b.ID == id {
			return b.Title
		}
	}
	return id
}

// chains renders each behaviour's way as a mermaid diagram and a list.
func (m *md) chains() {
	s := m.rep.Signal
	if s == nil || len(s.Chains) == 0 {
		return
	}
	m.p("## How the signal travels, layer by layer\n\n")
	m.p("Solid arrows are calls and what the code does next, dotted arrows hand-offs between goroutines (a watcher group, a channel, the network) that a call graph cannot follow. A node with no arrow into it starts a way of its own (a loop started elsewhere).\n\n")
	for _, c := range s.Chains {
		m.p("### %s\n\n", m.behaviourTitle(c.Behaviour))
		m.mermaid(c)
		for i, st := range c.Steps {
			obs := ""
			if m.rep.Observe != nil {
				obs = " — " + mark(st.Observed, c.Behaviour)
			}
			m.p("%d. %s — `%s`%s\n", i+1, mdEscape(st.Label), loc(st.File, st.Line), obs)
		}
		m.p("\n")
	}
}

func (m *md) mermaid(c report.Chain) {
	m.p("```mermaid\nflowchart TD\n")
	for i, st := range c.Steps {
		var fn string
		switch {
		case st.Kind == "call":
			fn = st.Label
		case st.Function != "":
			fn = short(st.Function)
		default:
			fn = strings.TrimSpace(st.Text)
			if len(fn) > 48 {
				fn = fn[:45] + "..."
			}
		}
		m.p("  s%d[\"%s<br/>%s<br/><i>%s</i>\"]\n", i, mermaidEscape(fn), mermaidEscape(loc(st.File, st.Line)), mermaidEscape(st.Kind))
	}
	for i, st := range c.Steps {
		for _, l := range st.From {
			arrow := "-->"
			if l.Handoff {
				arrow = "-.->"
			}
			m.p("  s%d %s s%d\n", l.Step, arrow, i)
		}
	}
	m.p("```\n\n")
}

func mermaidEscape(s string) string {
	r := strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "`", "")
	return r.Replace(s)
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func (m *md) comparisons() {
	s := m.rep.Signal
	if s == nil {
		return
	}
	m.p("## Where a revision meets the compaction revision\n\n")
	m.p("Found by following the value of `%s` through copies into fields, locals, parameters and results (not by name). A *decision* guards the signal or the sentinel; a *boundary* decides something else at the same revision.\n\n", short(s.Source))
	m.p("| at | comparison | kind | what it guards | at C and C−1 | reached from |\n|---|---|---|---|---|---|\n")
	for _, c := range s.Comparisons {
		g := mdEscape(c.Consequence)
		if c.Guarded != nil && c.Kind == "decision" {
			g += " (`" + loc(c.Guarded.File, c.Guarded.Line) + "`)"
		}
		reached := strings.Join(c.Entries, ", ")
		if reached == "" {
			reached = "—"
		}
		m.p("| `%s` | `%s` | %s | %s | %s | %s |\n", loc(c.File, c.Line), mdEscape(c.Text), c.Kind, g, c.Passing, reached)
	}
	m.p("\n")
	if len(s.Refusals) > 0 {
		m.p("Create responses that are created and canceled at once (a request refused at open):\n\n")
		for _, x := range s.Refusals {
			text := ""
			if x.Text != "" {
				text = fmt.Sprintf(", text %q", x.Text)
			}
			m.p("- `%s` in `%s`: when `%s`, reason `%s`%s\n", loc(x.File, x.Line), short(x.Function), mdEscape(x.Cond), x.Reason, text)
		}
		m.p("\n")
	}
}

func (m *md) handoffs() {
	s := m.rep.Signal
	if s == nil || len(s.Handoffs) == 0 {
		return
	}
	m.p("## Hand-offs the call graph cannot see\n\n")
	m.p("| at | kind | what | in | reached from |\n|---|---|---|---|---|\n")
	for _, h := range s.Handoffs {
		reached := strings.Join(h.Entries, ", ")
		if reached == "" {
			reached = "—"
		}
		m.p("| `%s` | %s | %s | `%s` | %s |\n", loc(h.File, h.Line), h.Kind, mdEscape(h.Detail), short(h.Function), reached)
	}
	m.p("\n")
}

func (m *md) clientTool() {
	s := m.rep.Signal
	if s == nil {
		return
	}
	if c := s.Client; c != nil {
		m.p("## The client: which error, which text\n\n")
		m.p("`%s` (`%s`) returns, once ", short(c.Method.Function), loc(c.Method.File, c.Method.Line))
		if len(c.Before) > 0 {
			m.p("`%s` is false, ", strings.Join(c.Before, "`, `"))
		}
		m.p("for `%s` (`%s`): `%s` (`%s`). That value is `%s` — not the server's `%s`. Its text, followed through its declarations:\n\n",
			strings.TrimSpace(c.Case.Text), loc(c.Case.File, c.Case.Line), c.Return.Text, loc(c.Return.File, c.Return.Line), short(c.Error.Object), short(m.rep.Study.Sentinel))
		for _, l := range c.Error.Chain {
			m.p("- `%s`: `%s`\n", loc(l.File, l.Line), l.Text)
		}
		m.p("\nText: `%s`", c.Error.Text)
		if c.Error.Code != "" {
			m.p(" (gRPC code %s)", c.Error.Code)
		}
		m.p(".")
		if len(c.Buffer) > 0 {
			m.p(" The client keeps responses it has not delivered in an unbounded buffer (`%s`): a slow reader slows no one on the server.", loc(c.Buffer[0].File, c.Buffer[0].Line))
		}
		m.p("\n\n")
	}
	if t := s.Tool; t != nil {
		for _, run := range []struct {
			title string
			r     *report.ToolRun
			lab   func(*report.Lab) *report.Capture
		}{
			{"a watch the server cancels", t.Watch, func(l *report.Lab) *report.Capture {
				if l.Etcdctl == nil {
					return nil
				}
				return l.Etcdctl.Evict
			}},
			{"a get --rev that fails", t.Get, func(l *report.Lab) *report.Capture {
				if l.Etcdctl == nil {
					return nil
				}
				return l.Etcdctl.Read
			}},
		} {
			if run.r == nil {
				continue
			}
			m.p("## %s for %s, from its code\n\n", t.Name, run.title)
			m.p("Evaluated from `%s` (`%s`) and the functions it calls, with the format strings and constants in the code:\n\n", short(run.r.Function), loc(run.r.At.File, run.r.At.Line))
			m.p("```text\n")
			for _, l := range run.r.Stderr {
				m.p("%s\n", l.Text)
			}
			m.p("```\n\n")
			for _, l := range run.r.Stderr {
				m.p("- `%s` prints %q\n", loc(l.At.File, l.At.Line), l.Text)
			}
			m.p("- exit status **%d**: `%s` (`%s`)\n\n", run.r.Exit, short(run.r.ExitBy), loc(run.r.ExitAt.File, run.r.ExitAt.Line))
			if lab := m.rep.Lab; lab != nil {
				if cp := run.lab(lab); cp != nil {
					var want []string
					for _, l := range run.r.Stderr {
						want = append(want, l.Text)
					}
					got := strings.TrimSuffix(cp.Stderr, "\n")
					lastGot := got[strings.LastIndex(got, "\n")+1:]
					same := got == strings.Join(want, "\n") || (len(want) > 0 && lastGot == want[len(want)-1])
					verdict := "matches"
					if !same || cp.ExitCode != run.r.Exit {
						verdict = "**differs from**"
					}
					m.p("The lab's real etcdctl %s this: exit status %d, last stderr line %q.\n\n", verdict, cp.ExitCode, lastGot)
				}
			}
			if len(run.r.Assumed) > 0 {
				m.p("<details><summary>%d conditions the scenario does not decide were taken as false (flags, environment, other errors)</summary>\n\n", len(run.r.Assumed))
				for _, a := range run.r.Assumed {
					m.p("- `%s`\n", a)
				}
				m.p("\n</details>\n\n")
			}
		}
	}
}

func (m *md) pacing() {
	s := m.rep.Signal
	if s == nil || len(s.Pacing) == 0 {
		return
	}
	m.p("## What paces a replay\n\n")
	m.p("| | value | at |\n|---|---|---|\n")
	for _, p := range s.Pacing {
		if p.Absent {
			m.p("| %s | (absent in this release) | |\n", p.Name)
			continue
		}
		at := "`" + loc(p.File, p.Line) + "`"
		if p.Declared != nil {
			at += fmt.Sprintf(" (`%s`, `%s`)", short(p.Via), loc(p.Declared.File, p.Declared.Line))
		}
		m.p("| %s | %s | %s |\n", p.Name, p.Value, at)
	}
	m.p("\n")
}

func (m *md) corrected() {
	s := m.rep.Signal
	if s == nil || len(s.Corrected) == 0 {
		return
	}
	m.p("## A citation of what runs\n\n")
	m.p("In place of %s's grep, the lines that run in the behaviours, as `git grep -n` prints them:\n\n```text\n", m.rep.Citation.Step)
	for _, l := range s.Corrected {
		m.p("%s:%d:%s\n", l.File, l.Line, l.Text)
	}
	m.p("```\n\n")
}
