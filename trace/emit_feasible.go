package trace

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study"
)

// position is a token position in the program as file and line.
func (r *Result) position(p token.Pos) (string, int) {
	if !p.IsValid() {
		return "", 0
	}
	pos := r.Graph.Fset().Position(p)
	return r.Source.RepoPath(pos.Filename), pos.Line
}

func (r *Result) cond(c *feasible.Cond) report.Cond {
	file, line := r.position(c.Pos)
	rc := report.Cond{Text: c.Text, File: file, Line: line, Want: c.Want, Class: string(c.Class), Whole: c.Whole}
	if c.Func != nil {
		rc.Function = callpath.Name(c.Func)
	}
	return rc
}

// because says what decides a verdict, in the engine's words: the
// condition, and for a condition that cannot hold, the value the path
// fixes and where.
func (r *Result) because(c *feasible.Cond) *report.Because {
	if c == nil {
		return nil
	}
	rc := r.cond(c)
	b := &report.Because{Cond: rc, File: rc.File, Line: rc.Line}
	if c.Near != nil {
		near := r.cond(c.Near)
		b.Near = &near
	}
	text := "`" + c.Text + "`"
	if c.Text == "" {
		text = "a condition"
	}
	switch c.Class {
	case feasible.False:
		b.Text = fmt.Sprintf("%s is %v on this path", text, !c.Want)
		if f, ok := deciding(c); ok {
			switch {
			case f.Set != nil && len(f.Set) > 0:
				b.Text += fmt.Sprintf(": `%s` is %s, unset by the literal made here, which sets only %s", f.Name, f.Value, strings.Join(f.Set, ", "))
			case f.Set != nil:
				b.Text += fmt.Sprintf(": `%s` is %s, unset by the literal made here, which sets none of its fields", f.Name, f.Value)
			default:
				b.Text += fmt.Sprintf(": `%s` is %s, fixed here", f.Name, f.Value)
			}
			b.File, b.Line = r.position(f.At)
		}
	case feasible.Excluded:
		b.Text = fmt.Sprintf("%s cannot be %v after `%s`, which the path needs earlier", text, c.Want, c.Why)
	case feasible.Gave:
		b.Text = fmt.Sprintf("the analysis could not decide %s: %s", text, c.Why)
	case feasible.State:
		if c.Want {
			b.Text = "only if " + text
		} else {
			b.Text = "only if not " + text
		}
		if c.Whole != "" {
			b.Text += " (part of `" + c.Whole + "`)"
		}
	default:
		b.Text = text
	}
	return b
}

// deciding is the fixed value that decides a false condition: an operand
// the path fixes somewhere (a constant argument, a literal), not a
// constant written in the condition itself.
func deciding(c *feasible.Cond) (feasible.Fixed, bool) {
	for _, f := range c.Fixed {
		if f.At.IsValid() && f.Name != "" && !isLiteral(f.Name) {
			return f, true
		}
	}
	for _, f := range c.Fixed {
		if f.At.IsValid() {
			return f, true
		}
	}
	return feasible.Fixed{}, false
}

func isLiteral(s string) bool {
	if s == "nil" || s == "true" || s == "false" {
		return true
	}
	return s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] == '"' || s[0] == '-')
}

func (r *Result) ways(ws []study.Way) []report.Way {
	var out []report.Way
	for _, w := range ws {
		rw := report.Way{Hops: r.hops(w.Path), Feasible: string(w.Res.Verdict), Because: r.because(w.Res.Because)}
		for _, c := range w.Res.OnlyIfs() {
			rw.OnlyIf = append(rw.OnlyIf, r.cond(&c))
		}
		out = append(out, rw)
	}
	return out
}
