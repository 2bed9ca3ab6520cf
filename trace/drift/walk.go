package drift

import (
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// A Position is one position that a report cites.
type Position struct {
	// Kind is the sort of position, after the part of the report that
	// cites it (one of Kinds).
	Kind string
	// Function is the qualified function the position is in, "" outside
	// one (or when the report does not say).
	Function string
	// What is what the position is in its function, without its code and
	// its line: "decision", "call of pkg.F", "step 3 (decision) of chain x".
	What string
	File string
	Line int
	// Text is the code there, its whitespace collapsed; "" when the report
	// cites the position without its code.
	Text string
}

// Ident names the thing at p without its text and its line: two
// positions with one Ident in two releases are the same thing, changed
// when their texts differ.
func (p Position) Ident() string {
	scope := p.Function
	if scope == "" {
		scope = p.File
	}
	return p.Kind + "\x00" + scope + "\x00" + p.What
}

// key is Ident with the text: the same thing with the same code.
func (p Position) key() string { return p.Ident() + "\x00" + p.Text }

// Kinds are the kinds of position, in the order of the report, each with
// what it is.
var Kinds = []struct{ Kind, Title string }{
	{"entry", "entry points"},
	{"site", "uses of the sentinel"},
	{"grep", "lines of the citation's grep"},
	{"boundary", "asynchronous boundaries"},
	{"hop", "calls on call paths"},
	{"crossing", "hand-offs of paths across a boundary"},
	{"condition", "conditions that decide whether a path can run"},
	{"comparison", "comparisons with the signal's revision"},
	{"guarded", "what a comparison guards"},
	{"write", "writes of the signal's fields"},
	{"mark", "reads that mark a response canceled, and the writes of the mark"},
	{"refusal", "requests refused in their create response"},
	{"handoff", "hand-offs between goroutines"},
	{"client", "the client layer"},
	{"tool", "the command line tool's printed lines and exit"},
	{"read", "the read's translation of the error"},
	{"error-use", "calls whose error can be the sentinel"},
	{"pacing", "values that pace a replay"},
	{"progress", "writes of the watcher's progress field"},
	{"start", "writes of the watcher's start field"},
	{"step", "steps of the behaviours' chains"},
	{"verdict", "lines of the verdicts"},
	{"fact", "lines of the verdicts' facts"},
	{"claim", "lines of the checked claims"},
	{"corrected", "lines of the corrected citation"},
	{"ceiling", "what keeps the compaction revision from passing the current one"},
	{"revision", "reads and writes of the compaction revision, and the locks held there"},
	{"receive", "the client's handling of each response"},
	{"created", "how a create response reaches the user, or not"},
	{"convert", "how the client converts the read's error"},
}

// Positions lists every position rep cites, in the report's order; a
// position cited twice as the same thing is listed once.
func Positions(rep *report.Report) []Position {
	w := &walker{seen: map[Position]bool{}, entry: map[string]string{}}
	for _, e := range rep.Entries {
		w.entry[e.Name] = e.Function
		w.pos("entry", "entry "+e.Name, e.Function, e.File, e.Line, "")
		if e.Starter != nil {
			w.loc("entry", "start of "+e.Name, *e.Starter)
		}
	}
	for _, s := range rep.Sites {
		w.pos("site", s.Kind, s.Function, s.File, s.Line, s.Text)
		nws := s.Undecided
		if s.NoWay != nil {
			nws = append([]report.NoWay{*s.NoWay}, nws...)
		}
		for _, u := range nws {
			w.because(u.Because)
			w.crossings(u.Crossing)
			caller := u.Root
			if n := len(u.Crossing); n > 0 {
				caller = u.Crossing[n-1].To
			}
			w.hops(caller, u.Hops)
			for _, x := range u.OnlyIf {
				w.cond(x)
			}
			for _, x := range u.Asks {
				w.cond(x)
			}
		}
	}
	for _, g := range rep.Citation.Lines {
		fn := ""
		if g.Site >= 0 && g.Site < len(rep.Sites) {
			fn = rep.Sites[g.Site].Function
		}
		w.pos("grep", "grep line", fn, g.File, g.Line, g.Text)
	}
	for _, b := range rep.Boundaries {
		w.pos("boundary", "boundary "+b.Name+" to "+b.To, b.From, b.File, b.Line, b.Via)
	}
	for _, p := range rep.Paths {
		w.pair(p)
	}
	for _, inv := range rep.Invariants {
		w.invariant(inv)
	}
	if s := rep.Signal; s != nil {
		w.signal(s)
	}
	return w.out
}

type walker struct {
	out   []Position
	seen  map[Position]bool
	entry map[string]string // entry name -> function
}

// pos adds a position; one without a file or line is not one.
func (w *walker) pos(kind, what, fn, file string, line int, text string) {
	if file == "" || line <= 0 {
		return
	}
	p := Position{Kind: kind, Function: fn, What: what, File: file, Line: line, Text: strings.Join(strings.Fields(text), " ")}
	if w.seen[p] {
		return
	}
	w.seen[p] = true
	w.out = append(w.out, p)
}

// loc adds l, with alt as its text when l has none.
func (w *walker) loc(kind, what string, l report.Loc, alt ...string) {
	text := l.Text
	for _, a := range alt {
		if text == "" {
			text = a
		}
	}
	w.pos(kind, what, l.Function, l.File, l.Line, text)
}

func (w *walker) locs(kind, what string, ls []report.Loc) {
	for _, l := range ls {
		w.loc(kind, what, l)
	}
}

// hops adds the calls of a path that starts in caller ("" when the report
// does not say where it starts).
func (w *walker) hops(caller string, hs []report.Hop) {
	for _, h := range hs {
		w.pos("hop", "call of "+h.Function, caller, h.File, h.Line, "")
		caller = h.Function
	}
}

func (w *walker) because(b *report.Because) {
	if b == nil {
		return
	}
	w.pos("condition", "what decides a path", b.Cond.Function, b.File, b.Line, b.Text)
	w.cond(b.Cond)
	if b.Near != nil {
		w.cond(*b.Near)
	}
	for _, r := range b.Refuted {
		if r.Cond != nil {
			w.cond(*r.Cond)
		}
		if r.File != "" {
			w.pos("condition", "what rules a condition out ("+r.Kind+")", "", r.File, r.Line, "")
		}
	}
	for _, p := range b.Pinned {
		if p.File != "" {
			w.pos("condition", "where a path fixes a value its condition compares", "", p.File, p.Line, "")
		}
		for _, r := range p.Because {
			if r.Cond != nil {
				w.cond(*r.Cond)
			}
			if r.File != "" {
				w.pos("condition", "what leaves a part of the request one value ("+r.Kind+")", "", r.File, r.Line, "")
			}
		}
	}
}

func (w *walker) cond(c report.Cond) {
	what := "condition a path needs false"
	if c.Want {
		what = "condition a path needs true"
	}
	w.pos("condition", what, c.Function, c.File, c.Line, c.Text)
	if c.PassesMade != nil {
		w.loc("condition", "function value a check calls", *c.PassesMade)
	}
}

func (w *walker) pair(p report.PairPaths) {
	start := w.entry[p.Entry]
	for _, path := range p.Paths {
		w.hops(start, path)
	}
	w.hops(start, p.Hops)
	w.because(p.Because)
	// The ways of a pair connected across a boundary start at the entry on
	// the other side.
	wayStart := start
	for i, c := range p.Crossing {
		switch {
		case i == 0:
			wayStart = w.entry[c.To]
		case w.entry[c.To] != wayStart:
			wayStart = ""
		}
	}
	for _, way := range p.Ways {
		w.hops(wayStart, way.Hops)
		w.because(way.Because)
		for _, c := range way.OnlyIf {
			w.cond(c)
		}
		for _, c := range way.Asks {
			w.cond(c)
		}
	}
	w.crossings(p.Crossing)
	for _, a := range p.Also {
		w.crossings(a.Crossing)
		w.because(a.Because)
	}
}

func (w *walker) crossings(cs []report.Crossing) {
	for _, c := range cs {
		w.pos("crossing", "hand-off by "+c.Boundary+" to "+c.To, c.Function, c.File, c.Line, "")
		w.hops(w.entry[c.From], c.Hops)
		w.because(c.Because)
		for _, x := range c.OnlyIf {
			w.cond(x)
		}
		for _, x := range c.Asks {
			w.cond(x)
		}
		if c.MessageAt != nil {
			w.loc("crossing", "message handed off by "+c.Boundary, *c.MessageAt)
		}
	}
}

// invariant follows the writes that justify an invariant of the store.
func (w *walker) invariant(inv report.Invariant) {
	for _, x := range inv.Writes {
		w.pos("write", "write keeping "+inv.Relation, x.Function, x.File, x.Line, "")
	}
}

func (w *walker) signal(s *report.Signal) {
	for _, c := range s.Comparisons {
		w.loc("comparison", c.Kind, c.Loc)
		if c.Guarded != nil {
			w.loc("guarded", "guarded by a "+c.Kind, *c.Guarded)
		}
	}
	for _, x := range s.Writes {
		w.loc("write", "write of "+x.Field, x.Loc)
	}
	for _, m := range s.Marks {
		w.loc("mark", "read that marks", m.Read)
		w.loc("mark", "write of the mark", m.Write)
	}
	for _, r := range s.Refusals {
		text := r.Loc.Text
		if text == "" {
			text = r.Cond
		}
		if r.Reason != "" {
			text += " → " + r.Reason
		}
		w.pos("refusal", "refusal", r.Function, r.File, r.Line, text)
		if r.CondAt != nil {
			w.loc("refusal", "condition of a refusal", *r.CondAt)
		}
		if r.ReasonAt != nil {
			w.loc("refusal", "reason of a refusal", *r.ReasonAt)
		}
		w.opt("refusal", "definition a refusal's condition tests", r.Def)
	}
	for _, h := range s.Handoffs {
		w.loc("handoff", h.Kind, h.Loc)
	}
	if c := s.Client; c != nil {
		w.loc("client", "error method", c.Method)
		w.loc("client", "case", c.Case)
		w.loc("client", "return", c.Return)
		w.locs("client", "copy", c.Copies)
		w.locs("client", "buffer", c.Buffer)
		w.locs("client", "definition of "+c.Error.Object, c.Error.Chain)
	}
	if t := s.Tool; t != nil {
		w.toolRun("watch", t.Watch)
		w.toolRun("get", t.Get)
	}
	if r := s.Read; r != nil {
		w.loc("read", "map", r.Map)
		w.loc("read", "map entry", r.Key)
		w.locs("read", "lookup", r.Indexed)
		w.locs("read", "call", r.Called)
		w.locs("read", "definition of "+r.Wire.Object, r.Wire.Chain)
	}
	for _, u := range s.ErrorUses {
		w.loc("error-use", "call of "+u.Callee+" from "+u.Entry, u.Call)
	}
	for _, p := range s.Pacing {
		w.loc("pacing", "pace "+p.Object, p.Loc)
		if p.Declared != nil {
			w.loc("pacing", "declaration of "+p.Via, *p.Declared)
		}
	}
	for _, x := range s.Progress.Writes {
		w.loc("progress", "write of "+x.Field, x.Loc)
	}
	for _, x := range s.Start.Writes {
		w.loc("start", "write of "+x.Field, x.Loc)
	}
	for _, c := range s.Chains {
		for _, st := range c.Steps {
			// A step is named by its chain, kind and function, not its
			// index: a step inserted before it leaves it alone.
			w.loc("step", c.Behaviour+": "+st.Kind, st.Loc, st.Label)
		}
	}
	for _, v := range s.Verdicts {
		w.locs("verdict", "line of verdict "+v.ID, v.Lines)
		for _, f := range v.Facts {
			w.locs("fact", "line of fact "+v.ID+"/"+f.Key, f.Lines)
		}
	}
	for _, c := range s.Claims {
		if c.Fact != nil {
			w.locs("claim", "line of the claim of "+c.Where+" ("+c.Fact.Key+")", c.Fact.Lines)
		}
		if c.Part != nil {
			w.locs("claim", "line of the part of the claim of "+c.Where+" ("+c.Part.Key+")", c.Part.Lines)
		}
	}
	w.locs("corrected", "line of the corrected citation", s.Corrected)
	for _, c := range s.Ceilings {
		w.loc("ceiling", "comparison with the current revision", c.Loc)
		w.loc("ceiling", "write of the compaction revision", c.Writes)
	}
	for _, a := range s.RevisionAccesses {
		what := "read of the compaction revision"
		if a.Write {
			what = "write of the compaction revision"
		}
		w.loc("revision", what, a.Loc)
		w.opt("revision", "lock held at an access of the compaction revision", a.Lock)
	}
	if rc := s.Receive; rc != nil {
		w.loc("receive", "receive loop", rc.Loop)
		for _, c := range rc.Cases {
			w.loc("receive", "case", c.Loc)
			w.locs("receive", "line that decides a case", c.Because)
		}
		w.opt("receive", "stop", rc.Stop)
		w.locs("receive", "close of the user's channel", rc.Closes)
		if rc.Close != nil {
			w.loc("receive", "call that closes", rc.Close.Loc)
		}
		for _, x := range rc.Resumes {
			w.loc("receive", "watch again in "+strings.TrimSuffix(x.Case+", "+x.Inner, ", "), x.Loc)
		}
	}
	if c := s.Created; c != nil {
		w.opt("created", "hold", c.Hold)
		w.opt("created", "where held", c.HoldAt)
		w.opt("created", "gate", c.Gate)
		w.locs("created", "use of "+c.Option, c.Asks)
	}
	if c := s.Convert; c != nil {
		w.loc("convert", "conversion", c.Func)
		w.locs("convert", "call towards the conversion", c.Path)
		w.opt("convert", "the watch's error", c.Watch)
		w.opt("convert", "the read's wire error", c.Read)
		w.opt("convert", "what it makes", c.Made)
	}
}

// opt follows a position that may be absent.
func (w *walker) opt(kind, what string, l *report.Loc) {
	if l != nil {
		w.loc(kind, what, *l)
	}
}

func (w *walker) toolRun(name string, r *report.ToolRun) {
	if r == nil {
		return
	}
	w.loc("tool", name+": command", r.At)
	for _, l := range r.Stdout {
		w.loc("tool", name+": stdout line", l.At, l.Text)
		w.opt("tool", name+": where the printed error is made", l.Built)
	}
	for _, l := range r.Stderr {
		w.loc("tool", name+": stderr line", l.At, l.Text)
		w.opt("tool", name+": where the printed error is made", l.Built)
	}
	w.loc("tool", name+": exit", r.ExitAt)
	w.opt("tool", name+": where the exit status is chosen", r.ExitFrom)
	w.opt("tool", name+": the exit status's constant", r.ExitDecl)
}
