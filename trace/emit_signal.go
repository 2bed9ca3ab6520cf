package trace

import (
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/signal"
)

func (r *Result) loc(p signal.Pos) report.Loc {
	l := report.Loc{Line: p.Line, Column: p.Column, Text: p.Text}
	if p.Filename != "" {
		l.File = r.Source.RepoPath(p.Filename)
	}
	if p.Func != nil {
		l.Function = callpath.Name(p.Func)
	}
	return l
}

func (r *Result) locs(ps []signal.Pos) []report.Loc {
	out := []report.Loc{}
	for _, p := range ps {
		out = append(out, r.loc(p))
	}
	return out
}

// locsOrNil is locs, nil for none (an absent field in JSON).
func (r *Result) locsOrNil(ps []signal.Pos) []report.Loc {
	if len(ps) == 0 {
		return nil
	}
	return r.locs(ps)
}

func (r *Result) reportError(e signal.ErrorText) report.Error {
	return report.Error{Object: e.Object, Text: e.Text, Code: e.Code, Chain: r.locs(e.Chain)}
}

func (r *Result) entriesReaching(p signal.Pos) []string {
	out := []string{}
	for _, e := range r.Entries {
		if p.Func != nil && e.Reach[p.Func] {
			out = append(out, e.Name)
		}
	}
	return out
}

// reportSignal converts the signal analysis.
func (r *Result) reportSignal() *report.Signal {
	s := r.Signal
	if s == nil {
		return nil
	}
	rs := &report.Signal{Source: r.Study.Signal.Revision, Comparisons: []report.Comparison{}, Writes: []report.Write{}, Marks: []report.Mark{},
		Refusals: []report.Refusal{}, Handoffs: []report.Handoff{}, ErrorUses: []report.ErrorUse{},
		Pacing: []report.Pace{}, Chains: []report.Chain{}, Verdicts: []report.Verdict{}, Claims: []report.Claim{}}
	for _, c := range s.Comparisons {
		rc := report.Comparison{Loc: r.loc(c.Pos), Op: c.Op, Revision: c.Revision, Guard: c.Guard, LowestPassing: c.LowestPassing, Kind: "boundary",
			Consequence: c.Consequence, Entries: r.entriesReaching(c.Pos), Behaviours: r.behavioursOf(c.Func)}
		if rc.Behaviours == nil {
			rc.Behaviours = []string{}
		}
		if c.Decision {
			rc.Kind = "decision"
		}
		if c.ConsequencePos.Filename != "" {
			g := r.loc(c.ConsequencePos)
			rc.Guarded = &g
		}
		rc.Passing = "revision C passes, C-1 fails"
		if c.LowestPassing == 1 {
			rc.Passing = "revision C fails, C+1 passes"
		}
		rs.Comparisons = append(rs.Comparisons, rc)
	}
	for _, w := range s.Writes {
		rs.Writes = append(rs.Writes, report.Write{Loc: r.loc(w.Pos), Field: w.Field, Value: w.Value})
	}
	for _, m := range s.Marks {
		rs.Marks = append(rs.Marks, report.Mark{Read: r.loc(m.Read), Write: r.loc(m.Write), NonZero: m.NonZero})
	}
	for _, x := range s.Refusals {
		rf := report.Refusal{Loc: r.loc(x.Pos), Cond: x.Cond, Reason: x.Reason, Text: x.Text}
		if x.CondAt.Filename != "" {
			l := r.loc(x.CondAt)
			rf.CondAt = &l
		}
		if x.ReasonAt.Filename != "" {
			l := r.loc(x.ReasonAt)
			rf.ReasonAt = &l
		}
		if x.Def.Filename != "" {
			l := r.loc(x.Def)
			rf.Def = &l
		}
		rs.Refusals = append(rs.Refusals, rf)
	}
	for _, g := range s.GoStmts {
		rs.Handoffs = append(rs.Handoffs, report.Handoff{Loc: r.loc(g.Pos), Kind: "go", Detail: "starts " + report.ShortName(g.Loop), Entries: r.entriesReaching(g.Pos)})
	}
	for _, a := range s.Groups {
		d := fieldName(a.Group)
		if a.Method != "" {
			d += "." + a.Method
		}
		if a.Cond != "" {
			d += " when " + a.Cond
		}
		rs.Handoffs = append(rs.Handoffs, report.Handoff{Loc: r.loc(a.Pos), Kind: "group", Detail: d, Entries: r.entriesReaching(a.Pos),
			Group: fieldName(a.Group), Method: a.Method})
	}
	for _, c := range s.Chans {
		kind, d := "receive", "receives from a channel of "+report.ShortName(r.Study.Signal.Channel)
		if c.Send {
			kind, d = "send", "sends on a channel of "+report.ShortName(r.Study.Signal.Channel)
			if c.Carries {
				d += ", a response that carries the signal"
			}
		}
		rs.Handoffs = append(rs.Handoffs, report.Handoff{Loc: r.loc(c.Pos), Kind: kind, Detail: d, Entries: r.entriesReaching(c.Pos)})
	}
	if c := s.Client; c != nil {
		rc := &report.Client{Method: r.loc(c.Method), Before: c.Before, Case: r.loc(c.Case), Return: r.loc(c.Return),
			Error: r.reportError(c.Err), Copies: []report.Loc{}, Buffer: r.locs(c.Buffer)}
		if rc.Before == nil {
			rc.Before = []string{}
		}
		for _, w := range c.Copies {
			rc.Copies = append(rc.Copies, r.loc(w.Pos))
		}
		rs.Client = rc
	}
	if t := s.Tool; t != nil {
		rt := &report.Tool{Name: t.Name, Watch: r.toolRun(t.Watch), Get: r.toolRun(t.Get)}
		rs.Tool = rt
	}
	if rp := s.Read; rp != nil {
		rs.Read = &report.ReadMap{Map: r.loc(rp.Map), Key: r.loc(rp.Key), Indexed: r.locs(rp.Indexed), Called: r.locs(rp.Called), Wire: r.reportError(rp.Wire)}
	}
	for _, p := range s.Pacing {
		rp := report.Pace{Loc: r.loc(p.Pos), Name: p.Name, Object: p.Object, Value: p.Value, Absent: p.Absent, Via: p.Via}
		if p.Declared != nil {
			d := r.loc(*p.Declared)
			rp.Declared = &d
		}
		rs.Pacing = append(rs.Pacing, rp)
	}
	if rc := s.Receive; rc != nil {
		out := &report.Receive{Loop: r.loc(rc.Loop), Cases: []report.Case{}, Closes: r.locs(rc.Closes), Resumes: []report.Resume{}}
		for _, c := range rc.Cases {
			out.Cases = append(out.Cases, report.Case{Loc: r.loc(c.Pos), Takes: c.Takes, Unknown: c.Unknown, Because: r.locsOrNil(c.Because)})
		}
		if rc.Stop.Filename != "" {
			l := r.loc(rc.Stop)
			out.Stop = &l
		}
		for _, x := range rc.Resumes {
			out.Resumes = append(out.Resumes, report.Resume{Loc: r.loc(x.Pos), Case: x.Case, Inner: x.Inner})
		}
		if x := rc.Close; x != nil {
			out.Close = &report.Resume{Loc: r.loc(x.Pos), Case: x.Case, Inner: x.Inner, Callee: x.Callee}
		}
		rs.Receive = out
	}
	if c := s.Created; c != nil {
		out := &report.Created{Option: c.Option, Asks: r.locs(c.Asks)}
		opt := func(p signal.Pos) *report.Loc {
			if p.Filename == "" {
				return nil
			}
			l := r.loc(p)
			return &l
		}
		out.Hold, out.HoldAt, out.Gate = opt(c.Hold), opt(c.HoldAt), opt(c.Gate)
		rs.Created = out
	}
	if c := s.Convert; c != nil {
		opt := func(p signal.Pos) *report.Loc {
			if p.Filename == "" {
				return nil
			}
			l := r.loc(p)
			return &l
		}
		rs.Convert = &report.Convert{Func: r.loc(c.Func), Path: r.locs(c.Path), Watch: opt(c.Watch), Read: opt(c.Read), Made: opt(c.Made), Comparable: c.Comparable}
	}
	for _, a := range s.RevisionAccesses {
		ra := report.RevisionAccess{Loc: r.loc(a.Pos), Write: a.Write}
		if a.Lock != nil {
			l := r.loc(*a.Lock)
			ra.Lock = &l
		}
		rs.RevisionAccesses = append(rs.RevisionAccesses, ra)
	}
	for _, c := range s.Ceilings {
		rs.Ceilings = append(rs.Ceilings, report.Ceiling{Loc: r.loc(c.Pos), Returns: c.Returns, Writes: r.loc(c.Writes)})
	}
	rs.Progress = r.field(s.Progress)
	rs.Start = r.field(s.Start)
	if f := r.Findings; f != nil {
		rs.Chains, rs.Verdicts, rs.Claims, rs.Corrected, rs.ErrorUses = f.Chains, f.Verdicts, f.Claims, f.Corrected, f.ErrorUses
	}
	if rs.Corrected == nil {
		rs.Corrected = []report.Loc{}
	}
	return rs
}

func (r *Result) toolRun(t *signal.ToolRun) *report.ToolRun {
	if t == nil {
		return nil
	}
	out := &report.ToolRun{Function: strings.TrimSpace(t.Func.Text), At: r.loc(t.Func), Stdout: []report.ToolLine{}, Stderr: []report.ToolLine{},
		Exit: t.Exit, ExitBy: t.ExitBy, ExitAt: r.loc(t.ExitPos), Assumed: t.Assumed, CallsSucceed: t.CallsSucceed, Unknown: t.Unknown}
	if out.Assumed == nil {
		out.Assumed = []string{}
	}
	if t.Func.Func != nil {
		out.Function = callpath.Name(t.Func.Func)
	}
	for _, l := range t.Stdout {
		out.Stdout = append(out.Stdout, report.ToolLine{Text: l.Text, Format: l.Format, At: r.loc(l.Pos)})
	}
	for _, l := range t.Stderr {
		tl := report.ToolLine{Text: l.Text, Format: l.Format, At: r.loc(l.Pos)}
		if l.Built.Filename != "" {
			b := r.loc(l.Built)
			tl.Built = &b
		}
		out.Stderr = append(out.Stderr, tl)
	}
	if t.ExitFrom.Filename != "" {
		a, b := r.loc(t.ExitFrom), r.loc(t.ExitDecl)
		out.ExitFrom, out.ExitDecl = &a, &b
	}
	return out
}

func (r *Result) field(f signal.FieldStores) report.Field {
	out := report.Field{Field: f.Field, Absent: f.Absent, Writes: []report.Write{}}
	for _, w := range f.Stores {
		out.Writes = append(out.Writes, report.Write{Loc: r.loc(w.Pos), Field: w.Field, Value: w.Value, Past: w.Past})
	}
	return out
}

// behavioursOf names the behaviours whose entries reach fn.
func (r *Result) behavioursOf(fn *ssa.Function) []string {
	var out []string
	for _, b := range r.Study.Behaviours {
		for _, e := range b.Entries {
			if i := r.EntryIndex(e); i >= 0 && fn != nil && r.Entries[i].Reach[fn] {
				out = append(out, b.ID)
				break
			}
		}
	}
	return out
}

// fieldName is the last part of a qualified field name.
func fieldName(q string) string { return q[strings.LastIndex(q, ".")+1:] }
