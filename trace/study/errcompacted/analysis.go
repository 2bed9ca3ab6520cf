package errcompacted

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"go/ast"
	"go/token"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/signal"
	"github.com/srctrace/srctrace/trace/sites"
	"github.com/srctrace/srctrace/trace/study"
)

// analyze is the study's Analyze: its rules over what the engine found.
func analyze(p *study.Pass) (*study.Findings, error) {
	if p.Signal == nil {
		return &study.Findings{}, nil
	}
	a := &analysis{Pass: p}
	a.layers()
	return a.findings(), nil
}

// findings converts the study's conclusions to report data.
func (r *analysis) findings() *study.Findings {
	f := &study.Findings{Chains: []report.Chain{}, Verdicts: []report.Verdict{}, Claims: []report.Claim{}, ErrorUses: []report.ErrorUse{}}
	for _, c := range r.Chains {
		rc := report.Chain{Behaviour: c.Behaviour, Steps: []report.Step{}}
		for _, st := range c.Steps {
			from := []report.StepLink{}
			for _, l := range st.From {
				from = append(from, report.StepLink{Step: l.Step, Handoff: l.Handoff})
			}
			rc.Steps = append(rc.Steps, report.Step{Loc: r.Loc(st.At), Kind: st.Kind, Label: st.Label, From: from})
		}
		f.Chains = append(f.Chains, rc)
	}
	fact := func(x Fact) report.Fact { return report.Fact{Key: x.Key, Text: x.Text, Lines: r.Locs(x.Lines)} }
	for _, v := range r.Verdicts {
		rv := report.Verdict{ID: v.ID, Behaviour: v.Behaviour, Question: v.Question, Sentence: v.Sentence, Lines: r.Locs(v.Lines), Facts: []report.Fact{}}
		for _, x := range v.Facts {
			rv.Facts = append(rv.Facts, fact(x))
		}
		f.Verdicts = append(f.Verdicts, rv)
	}
	for _, c := range r.Claims {
		rc := report.Claim{Where: c.Where, Says: c.Says, Verdict: c.Verdict, HoldsIf: c.Holds, FailsIf: c.Fails, PartlyIf: c.Partly, OnlyIf: c.OnlyIf, Holds: c.Outcome, Outcome: report.OutcomeUndecided}
		if c.Fact != nil {
			x := fact(*c.Fact)
			rc.Fact = &x
		}
		switch {
		case c.Outcome == nil:
		case c.When != nil:
			x := fact(*c.When)
			rc.Outcome, rc.Part = report.OutcomeOnlyIf, &x
		case c.Part != nil:
			x := fact(*c.Part)
			rc.Outcome, rc.Part = report.OutcomePartly, &x
		case !*c.Outcome:
			rc.Outcome = report.OutcomeNo
		default:
			rc.Outcome = report.OutcomeYes
		}
		f.Claims = append(f.Claims, rc)
	}
	f.Roles = r.Roles
	f.Corrected = r.Locs(r.Corrected)
	for i := range f.Corrected {
		if t, err := r.Lines(r.Corrected[i].Filename, r.Corrected[i].Line); err == nil {
			f.Corrected[i].Text = t
		}
	}
	for _, u := range r.ErrorUses {
		s := r.Sites[u.Site]
		f.ErrorUses = append(f.ErrorUses, report.ErrorUse{Entry: u.Entry, Site: report.SiteRef{Index: u.Site, File: s.Repo, Line: s.Pos.Line},
			Call: r.Loc(u.Call), Callee: u.Callee, Uses: u.Uses, Dropped: u.Dropped})
	}
	return f
}

// analysis is the study's reading of one release: what the engine found
// (the Pass), and the chains, verdicts and claims the study's rules derive
// from it.
type analysis struct {
	*study.Pass
	Chains    []Chain
	Verdicts  []Verdict
	Claims    []Claim
	ErrorUses []ErrorUse
	// Corrected are the lines a citation of what runs would name.
	Corrected []signal.Pos
	// Roles are, per line of the citation's grep, its role per behaviour.
	Roles []map[string]string
}

// probesRunning names the lab's probes in which site si runs.
func (r *analysis) probesRunning(si int) []string {
	var out []string
	for _, b := range r.Study.Behaviours {
		if b.Probe && r.runs(b, si) {
			out = append(out, b.ID)
		}
	}
	return out
}

// Step is one station of a behaviour's way through the code.
type Step struct {
	// Kind is entry, go, call, handoff, create (the create response),
	// decision, signal, mark, wire, client, tool or exit.
	Kind  string
	Label string
	At    signal.Pos
	// From are the steps that lead here (see link).
	From []Link

	// How link connects the step: Root starts a way of its own (a loop
	// started elsewhere); Across means the previous step reaches this one
	// across a hand-off, not by a call; Join names the step (by its ID)
	// that also hands off to this one.
	// Follows, when set, names the step (by its ID) this one comes after
	// in place of the previous one: what the code does next in the
	// goroutine of that step, while the steps between run in another.
	Root    bool
	Across  bool
	ID      string
	Join    string
	Follows string
}

// Link is an arrow into a step: from the step at index Step, by a call
// or, when Handoff, across a hand-off (a group, a channel, the network).
type Link struct {
	Step    int
	Handoff bool
}

// link sets each step's From: the previous step, unless the step is a
// root, and the step it joins.
func link(steps []Step) []Step {
	ids := map[string]int{}
	for i, s := range steps {
		if s.ID != "" {
			ids[s.ID] = i
		}
	}
	for i := range steps {
		s := &steps[i]
		s.From = nil
		switch j, ok := ids[s.Follows]; {
		case s.Follows != "" && ok:
			s.From = append(s.From, Link{Step: j, Handoff: s.Across})
		case i > 0 && !s.Root:
			s.From = append(s.From, Link{Step: i - 1, Handoff: s.Across})
		}
		if j, ok := ids[s.Join]; ok && s.Join != "" && j != i-1 {
			s.From = append(s.From, Link{Step: j, Handoff: true})
		}
	}
	return steps
}

// Chain is a behaviour's way from its entry to what the user sees.
type Chain struct {
	Behaviour string
	Steps     []Step
}

// Verdict answers one question in one sentence. {N} in Sentence stands
// for Lines[N] (rendered as file:line).
type Verdict struct {
	ID        string
	Behaviour string
	Question  string
	Sentence  string
	Lines     []signal.Pos
	// Facts are what the verdict establishes, each under a key that a
	// study's claims name (see study.Claim).
	Facts []Fact
}

// The keys of the facts that verdicts establish.
const (
	// evict: what the deciding comparison compares with the compaction
	// revision, and whether a caught-up watcher meets it at all.
	FactComparesProgress   = "compares-progress"
	FactComparesStart      = "compares-start"
	FactCurrentNotCompared = "current-not-compared"
	FactCurrentCanBeMoved  = "current-can-be-moved"
	// current: what terminal 2 is told of the compaction, and what it
	// prints after it.
	FactSyncedNotTold      = "synced-not-told"
	FactSyncedPrintsWrites = "synced-prints-only-writes"
	// reopen: whether the open path checks the start revision.
	FactCheckedAtOpen        = "checked-at-open"
	FactAcceptedThenCanceled = "accepted-then-canceled"
	FactRefusedSameText      = "refused-at-open-with-the-same-text"
	// boundary: where the watch's and the read's boundary lie, and how
	// many comparisons make them.
	FactWatchBoundaryIsC    = "watch-boundary-is-C"
	FactWatchBoundaryNotC   = "watch-boundary-not-C"
	FactReadBoundaryIsC     = "read-boundary-is-C"
	FactReadBoundaryNotC    = "read-boundary-not-C"
	FactOneComparison       = "one-comparison"
	FactSeparateComparisons = "separate-comparisons"
	// One value, the compaction revision, is what the comparisons share.
	FactOneValue = "one-value-compared"
	// replay: whether a behind watcher's replay lasts until a compaction
	// typed by hand.
	FactReplayOutlastsTyping   = "replay-outlasts-typing"
	FactReplayDoneBeforeTyping = "replay-done-before-typing"
	// Whether, by hand, the behind watcher ends.
	FactBehindDiesByHand  = "behind-dies-by-hand"
	FactBothSurviveByHand = "both-survive-by-hand"
	// When, by hand, both survive: the behind watcher still dies when the
	// compaction is applied early enough.
	FactDiesIfEarly = "dies-if-early"
	// values: whether the eviction's and the read's errors are one value,
	// on the server and at the client.
	FactOneValueAtClient    = "one-value-at-client"
	FactDifferentValues     = "different-values"
	FactNotOneValueOnServer = "not-one-value-on-server"
	// typed: a command the exercise types that is not a command's name:
	// the one it runs by the library's prefix matching, or none.
	FactTypedByPrefix = "typed-by-prefix"
	FactTypedUnknown  = "typed-unknown"
	// citation: whether any line the citation finds runs in a behaviour.
	FactCitedLinesRun   = "cited-lines-run"
	FactNoCitedLineRuns = "no-cited-line-runs"
)

// verdictFacts are the facts each verdict can establish, by verdict ID.
var verdictFacts = map[string][]string{
	"evict":    {FactComparesProgress, FactComparesStart, FactSetBeforeRemoval},
	"current":  {FactCurrentNotCompared, FactCurrentCanBeMoved, FactSyncedNotTold, FactSyncedPrintsWrites},
	"replay":   {FactReplayOutlastsTyping, FactReplayDoneBeforeTyping, FactByHand, FactBehindDiesByHand, FactBothSurviveByHand, FactDiesIfEarly},
	"reopen":   {FactCheckedAtOpen, FactAcceptedThenCanceled, FactRefusedSameText},
	"boundary": {FactWatchBoundaryIsC, FactWatchBoundaryNotC, FactReadBoundaryIsC, FactReadBoundaryNotC, FactOneComparison, FactSeparateComparisons, FactOneValue},
	"read":     {},
	"citation": {FactCitedLinesRun, FactNoCitedLineRuns},
	"values":   {FactOneValueAtClient, FactDifferentValues, FactNotOneValueOnServer},
	"sets":     {FactPrediction, FactSetWords, FactCurrentInSynced, FactBehindInUnsynced, FactDecidedOverUnsynced, FactLeavesUnsynced, FactUnsyncedEnds, FactLeavesSynced, FactBehindDies},
	"cleanup":  {FactMarkedCompacted, FactForgottenOnClose},
	"choose":   {FactAtMostPerPass},
	"closing":  {FactClientCloses, FactServerKeepsStream, FactServerEndsStream, FactStep4Holds, FactStep4Fails, FactTornByClient},
	"refused":  {FactRefusedOnlyOther, FactRefusalShown, FactNegativeAccepted},
	"retry":    {FactClientWarns, FactClientWarnLine},
	"minimum":  {FactCancelCarriesMin},
	"json":     {FactJSONCancel},
	"typed":    {FactTypedByPrefix, FactTypedUnknown},
	"probes":   {},
}

// verdictIDs are the verdicts' IDs, sorted.
func verdictIDs() []string {
	var out []string
	for id := range verdictFacts {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// checkClaims reports a claim that names a verdict or a fact that no
// verdict establishes: such a claim could never be decided.
func checkClaims(st *study.Study) error {
	for _, c := range st.Claims {
		facts, ok := verdictFacts[c.Verdict]
		if !ok {
			return fmt.Errorf("study %s: claim %q names verdict %q; the verdicts are %s", st.Name, c.Says, c.Verdict, strings.Join(verdictIDs(), ", "))
		}
		for _, k := range []string{c.Holds, c.Fails, c.Partly, c.OnlyIf} {
			if k != "" && !contains(facts, k) {
				return fmt.Errorf("study %s: claim %q names fact %q, which verdict %s never establishes (it can establish %s)", st.Name, c.Says, k, c.Verdict, strings.Join(facts, ", "))
			}
		}
	}
	return nil
}

// Fact is one thing a verdict establishes, in a few words, with the lines
// that establish it.
type Fact struct {
	Key   string
	Text  string
	Lines []signal.Pos
}

// Claim is one of the study's claims checked against the verdicts.
type Claim struct {
	study.Claim
	// Outcome is true or false when the verdict establishes the claim's
	// Holds or Fails fact; nil when it establishes neither.
	Outcome *bool
	Fact    *Fact
	// Part is the claim's Partly fact, when the verdict establishes it
	// with the Holds fact: the claim holds only in part.
	Part *Fact
	// When is the claim's OnlyIf fact, when the verdict establishes it
	// with the Fails fact: the claim holds only if its condition does.
	When *Fact
}

// ErrorUse is a watch-side call that can fail with the sentinel, and what
// its caller does with the error.
type ErrorUse struct {
	Site    int // index into Sites
	Entry   string
	Call    signal.Pos
	Callee  string
	Uses    []string
	Dropped bool
	// Verdict and Because are the pair's feasibility: whether the call can
	// run on the watch's path, and the condition that decides it.
	Verdict feasible.Verdict
	Because *feasible.Cond
	// at is the call, in the send loop.
	at token.Pos
}

// sentence builds a verdict sentence: each %L in format takes the next
// position argument and becomes a {N} placeholder.
type sentence struct {
	b     strings.Builder
	lines []signal.Pos
	facts []Fact
}

// fact records what the sentence establishes.
func (s *sentence) fact(key, text string, at ...signal.Pos) {
	s.facts = append(s.facts, Fact{Key: key, Text: text, Lines: at})
}

func (s *sentence) add(text string, at ...signal.Pos) {
	for _, p := range at {
		if i := strings.Index(text, "%L"); i >= 0 {
			text = text[:i] + fmt.Sprintf("{%d}", len(s.lines)) + text[i+2:]
			s.lines = append(s.lines, p)
		}
	}
	s.b.WriteString(text)
}

func (r *analysis) verdict(id, behaviour, question string, s *sentence) {
	r.Verdicts = append(r.Verdicts, Verdict{ID: id, Behaviour: behaviour, Question: question, Sentence: s.b.String(), Lines: s.lines, Facts: s.facts})
}

// claims checks the study's claims against the verdicts' facts.
func (r *analysis) claims() {
	for _, c := range r.Study.Claims {
		cl := Claim{Claim: c}
		for _, v := range r.Verdicts {
			if v.ID != c.Verdict {
				continue
			}
			for i, f := range v.Facts {
				if f.Key == c.Holds || f.Key == c.Fails {
					holds := f.Key == c.Holds
					cl.Outcome, cl.Fact = &holds, &v.Facts[i]
					break
				}
			}
			for i, f := range v.Facts {
				if c.Partly != "" && f.Key == c.Partly && cl.Outcome != nil {
					cl.Part = &v.Facts[i]
				}
				if c.OnlyIf != "" && f.Key == c.OnlyIf && cl.Outcome != nil && !*cl.Outcome {
					cl.When = &v.Facts[i]
				}
			}
		}
		r.Claims = append(r.Claims, cl)
	}
}

// short is a function's name without its import path.
func short(fn *ssa.Function) string {
	if fn == nil {
		return "(package level)"
	}
	return report.ShortName(callpath.Name(fn))
}

func (r *analysis) entryFunc(name string) *ssa.Function {
	if i := r.EntryIndex(name); i >= 0 {
		return r.Entries[i].Func
	}
	return nil
}

func (r *analysis) reachedFrom(name string, fn *ssa.Function) bool {
	i := r.EntryIndex(name)
	return i >= 0 && fn != nil && r.Entries[i].Reach[fn]
}

func (r *analysis) entryPos(name string) signal.Pos {
	i := r.EntryIndex(name)
	if i < 0 {
		return signal.Pos{}
	}
	return signal.Pos{Position: r.Entries[i].Pos, Func: r.Entries[i].Func, Text: r.Entries[i].Function}
}

// decisions returns the decisions reachable from an entry.
func (r *analysis) decisions(entry string) []signal.Comparison {
	var out []signal.Comparison
	for _, c := range r.Signal.Comparisons {
		if c.Decision && r.reachedFrom(entry, c.Func) {
			out = append(out, c)
		}
	}
	return out
}

// signalDecision is the sync loop's decision that sends the signal.
func (r *analysis) signalDecision() (signal.Comparison, bool) {
	for _, c := range r.decisions(r.Study.Signal.Sync) {
		if c.Signals {
			return c, true
		}
	}
	return signal.Comparison{}, false
}

func (r *analysis) layers() {
	sg := r.Study.Signal
	r.errorUses()
	// Every watch that opens gets its create response, the one evicted
	// mid-stream as much as the one opened behind the compaction.
	watch := r.withCreate(r.watchChain())
	read := r.readChain()
	for _, b := range r.Study.Behaviours {
		switch {
		case contains(b.Entries, sg.Sync):
			r.Chains = append(r.Chains, Chain{Behaviour: b.ID, Steps: watch})
		case contains(b.Entries, sg.Read):
			r.Chains = append(r.Chains, Chain{Behaviour: b.ID, Steps: read})
		}
	}
	r.evictVerdict()
	r.replayVerdict()
	r.reopenVerdict()
	r.boundaryVerdict()
	r.readVerdict()
	r.valuesVerdict()
	r.citationVerdict()
	r.moreVerdicts()
	r.claims()
}

// withCreate inserts the create response after the watcher is put in the
// behind group.
func (r *analysis) withCreate(steps []Step) []Step {
	recv, err := r.Graph.Func(r.Study.Signal.Recv)
	if err != nil {
		return steps
	}
	at := r.createResponse(recv)
	if at.Filename == "" {
		return steps
	}
	out := make([]Step, 0, len(steps)+1)
	for _, s := range steps {
		out = append(out, s)
		if s.ID == behindGroup {
			out = append(out, Step{Kind: "create", Label: "the watch is accepted: " + at.Text, At: at})
		}
	}
	return link(out)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (r *analysis) goStmt(loop string) (signal.GoStmt, bool) {
	for _, g := range r.Signal.GoStmts {
		if g.Loop == loop {
			return g, true
		}
	}
	return signal.GoStmt{}, false
}

// behindAdd is where the open path adds a watcher to the behind group.
func (r *analysis) behindAdd() (signal.GroupAccess, bool) {
	for _, a := range r.Signal.Groups {
		if a.Group == r.Study.Signal.Behind && a.Method == "add" && r.reachedFrom(r.Study.Signal.Open, a.Func) {
			return a, true
		}
	}
	return signal.GroupAccess{}, false
}

// groupAddsIn lists the group additions in one function.
func (r *analysis) groupAddsIn(fn *ssa.Function) []signal.GroupAccess {
	var out []signal.GroupAccess
	for _, a := range r.Signal.Groups {
		if a.Func == fn && a.Method == "add" {
			out = append(out, a)
		}
	}
	return out
}

// revisionHandOff is where a compaction writes the compaction revision
// (the write its ceiling guards) and where the sync loop reads it on its
// way to decision d: in the function that takes the behind group's
// watchers, the last read before that call.
func (r *analysis) revisionHandOff(d signal.Comparison) (write, read *signal.RevisionAccess) {
	s := r.Signal
	if len(s.Ceilings) == 0 {
		return nil, nil
	}
	w := s.Ceilings[0].Writes
	for i, a := range s.RevisionAccesses {
		if a.Write && a.Filename == w.Filename && a.Line == w.Line {
			write = &s.RevisionAccesses[i]
		}
	}
	rd, ok := r.behindRead(d)
	if !ok || write == nil {
		return write, nil
	}
	for i, a := range s.RevisionAccesses {
		if !a.Write && a.Func == rd.Func && a.Filename == rd.Filename && a.Offset < rd.Offset {
			read = &s.RevisionAccesses[i]
		}
	}
	return write, read
}

// heldText says which lock is held, when one is.
func heldText(lock *signal.Pos) string {
	if lock == nil {
		return ""
	}
	return ", holding `" + strings.TrimSpace(lock.Text) + "`"
}

// behindRead is where the sync loop reads the behind group on its way to
// the decision.
func (r *analysis) behindRead(d signal.Comparison) (signal.GroupAccess, bool) {
	sync := r.entryFunc(r.Study.Signal.Sync)
	if sync == nil || d.Func == nil {
		return signal.GroupAccess{}, false
	}
	onPath := map[*ssa.Function]bool{sync: true}
	if ps := r.Graph.Paths(sync, d.Func, 1); len(ps) > 0 {
		for _, h := range ps[0] {
			onPath[h.Caller] = true
		}
	}
	for _, a := range r.Signal.Groups {
		if a.Group == r.Study.Signal.Behind && onPath[a.Func] && a.Method != "add" && a.Method != "delete" && a.Method != "size" {
			return a, true
		}
	}
	return signal.GroupAccess{}, false
}

// callPos is where a chain's call is, with the call's line as its code:
// what a reader compares between releases.
func (r *analysis) callPos(h callpath.Hop) signal.Pos {
	at := signal.Pos{Position: h.Pos, Func: h.Caller}
	if r.Lines != nil {
		if l, err := r.Lines(h.Pos.Filename, h.Pos.Line); err == nil {
			at.Text = strings.TrimSpace(l)
		}
	}
	return at
}

// steps collects a chain's steps; a step without a position is dropped.
type steps []Step

func (st *steps) add(kind, label string, at signal.Pos) *Step {
	if at.Filename == "" {
		return &Step{} // dropped: what the caller sets on it goes nowhere
	}
	*st = append(*st, Step{Kind: kind, Label: label, At: at})
	return &(*st)[len(*st)-1]
}

// tool adds what the command line tool prints and its exit.
func (st *steps) tool(name string, run *signal.ToolRun) {
	if run == nil {
		return
	}
	for _, l := range run.Stderr {
		st.add("tool", fmt.Sprintf("%s prints %q", name, l.Text), l.Pos)
	}
	if run.Exited {
		st.add("exit", fmt.Sprintf("and exits with status %d (%s)%s", run.Exit, report.ShortName(run.ExitBy), whenCallsSucceed(run)), run.ExitPos)
	}
}

// behindGroup is the ID of the step that puts a watcher in the behind group.
const behindGroup = "behind-group"

// closesToolLoop is the ID of the step where the client closes the
// channel the tool's loop reads, which lets the tool print its last line.
const closesToolLoop = "closes-tool-loop"

// handsOut is the ID of the step where the client's substream hands a
// response out on the channel the user reads.
const handsOut = "hands-out"

// has reports whether a step has the ID.
func (st steps) has(id string) bool {
	for _, s := range st {
		if s.ID == id {
			return true
		}
	}
	return false
}

// handOut is the send of the select case around the substream's stop: the
// response the stop tests has just been handed out there. Zero when the
// stop is not in such a case.
func (r *analysis) handOut(stop signal.Pos) signal.Pos {
	if stop.Func == nil || stop.Filename == "" {
		return signal.Pos{}
	}
	fd, ok := stop.Func.Syntax().(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return signal.Pos{}
	}
	fset := r.Graph.Fset()
	var at signal.Pos
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		cc, ok := n.(*ast.CommClause)
		if !ok {
			return true
		}
		if _, send := cc.Comm.(*ast.SendStmt); !send {
			return true
		}
		from, to := fset.Position(cc.Colon), fset.Position(cc.End())
		if from.Filename != stop.Filename || stop.Offset <= from.Offset || stop.Offset >= to.Offset {
			return true
		}
		at = signal.Pos{Position: fset.Position(cc.Pos()), Func: stop.Func}
		if r.Lines != nil {
			if l, err := r.Lines(at.Filename, at.Line); err == nil {
				at.Text = strings.TrimSpace(l)
			}
		}
		return true // an inner case holds it closer
	})
	return at
}

// compactionRev is the ID of the step where a compaction sets the
// compaction revision that the sync loop reads.
const compactionRev = "compaction-rev"

func (r *analysis) watchChain() []Step {
	sg := r.Study.Signal
	s := r.Signal
	var st steps
	add := st.add
	if r.EntryIndex(sg.Open) < 0 {
		return nil
	}
	add("entry", "a client opens a watch stream: "+sg.Open, r.entryPos(sg.Open))
	if g, ok := r.goStmt(sg.Recv); ok {
		add("go", "the stream's receive loop is started", g.Pos)
	}
	if a, ok := r.behindAdd(); ok {
		// The receive loop's own calls down to where the watcher is put in
		// the group: the first hands the store the request's start revision.
		if recv, err := r.Graph.Func(sg.Recv); err == nil {
			if ps := r.Graph.Paths(recv, a.Func, 1); len(ps) > 0 {
				for _, h := range ps[0] {
					add("call", "calls "+short(h.Callee), r.callPos(h))
				}
			}
		}
		cond := ""
		if a.Cond != "" {
			cond = " when `" + a.Cond + "`"
			if d := strings.TrimSpace(a.CondDef.Text); d != "" {
				cond += ", where `" + d + "`"
			}
		}
		add("handoff", "the watcher is put in the behind group"+cond+": "+a.Text, a.Pos).ID = behindGroup
	}
	d, ok := r.signalDecision()
	// Where a compaction sets the compaction revision, which the sync loop
	// reads: a way of its own, joined to the sync loop by the field.
	write, read := r.revisionHandOff(d)
	if write != nil {
		add("handoff", "a compaction sets the compaction revision"+heldText(write.Lock)+": "+strings.TrimSpace(write.Text), write.Pos).Root = true
		st[len(st)-1].ID = compactionRev
	}
	if g, ok := r.goStmt(callpath.Name(r.entryFunc(sg.Sync))); ok {
		add("go", "the sync loop runs in its own goroutine, started with the store", g.Pos).Root = true
	}
	if !ok {
		return link(st)
	}
	// The sync loop's own calls down to the decision; the call that takes
	// the behind group's watchers is the hand-off from the open path.
	rd, hasRead := r.behindRead(d)
	if sync := r.entryFunc(sg.Sync); sync != nil {
		if ps := r.Graph.Paths(sync, d.Func, 1); len(ps) > 0 {
			for _, h := range ps[0] {
				if hasRead && h.Pos.Filename == rd.Filename && h.Pos.Line == rd.Line {
					if read != nil && write != nil {
						add("handoff", "the sync loop reads the compaction revision"+heldText(read.Lock)+": "+strings.TrimSpace(read.Text), read.Pos).Join = compactionRev
					}
					add("handoff", "the sync loop takes the behind group's watchers: "+rd.Text, r.callPos(h)).Join = behindGroup
					hasRead = false
					continue
				}
				add("call", "calls "+short(h.Callee), r.callPos(h))
			}
		}
	}
	if hasRead {
		add("handoff", "the sync loop takes the behind group's watchers: "+rd.Text, rd.Pos).Join = behindGroup
	}
	add("decision", "decision: "+d.Text, d.Pos)
	add("signal", "the compaction is signalled: "+d.ConsequencePos.Text, d.ConsequencePos)
	for _, c := range s.Chans {
		if c.Send && c.Carries && c.Func == d.Func {
			add("handoff", "sent on the watch stream's channel: "+c.Text, c.Pos)
		}
	}
	if send, err := r.Graph.Func(sg.Send); err == nil {
		for _, c := range s.Chans {
			if !c.Send && c.Func == send {
				add("handoff", "the send loop receives it: "+c.Text, c.Pos).Across = true
				break
			}
		}
		for _, m := range s.Marks {
			if m.Write.Func == send {
				add("mark", "the send loop marks the response canceled: "+m.Read.Text, m.Read)
			}
		}
		if len(sg.Fields) > 1 {
			for _, w := range s.Writes {
				if w.Field == sg.Fields[1] && w.Func == send {
					add("wire", "and copies the compaction revision into the gRPC response: "+w.Text, w.Pos)
				}
			}
		}
	}
	if c := s.Client; c != nil {
		for i, w := range c.Copies {
			// The response reaches the client over the network.
			add("client", "the client copies it into its WatchResponse: "+w.Text, w.Pos).Across = i == 0
		}
		// The substream hands the response out on the user's channel; the
		// user reads it there, and the substream goes on by itself.
		across := false
		if rc := s.Receive; rc != nil {
			if h := r.handOut(rc.Stop); h.Filename != "" {
				add("client", "the client's substream hands it out on the watch's channel: "+h.Text, h).Across = true
				st[len(st)-1].ID = handsOut
				across = true
			}
		}
		add("client", "the client's Err() turns it into an error: "+c.Return.Text, c.Return).Across = across
		if len(c.Err.Chain) > 0 {
			last := c.Err.Chain[len(c.Err.Chain)-1]
			add("client", fmt.Sprintf("whose text is %q", c.Err.Text), last)
		}
	}
	if t := s.Tool; t != nil {
		r.toolWithClose(&st, t.Name, t.Watch)
	}
	return link(st)
}

// toolWithClose adds what the tool prints and its exit, with the client's
// close of the watch (steps of kind "close"; of them the corrected
// citation names only the close of the channel, which lets the tool print
// its last line) before the first line the tool prints outside its loop
// over the watch's responses: that loop ends only when the client closes
// the channel.
func (r *analysis) toolWithClose(st *steps, name string, run *signal.ToolRun) {
	if run == nil {
		return
	}
	rc := r.Signal.Receive
	loop := run.Display.Func
	closed := rc == nil || rc.Stop.Filename == "" || rc.Close == nil || loop == nil
	for _, l := range run.Stderr {
		across := false
		if !closed && l.Pos.Func != loop && (l.Built.Filename == "" || l.Built.Func != loop) {
			closed, across = true, true
			// The client's goroutines, then back to the tool's, across
			// the channel.
			stop := st.add("close", "the client's substream returns once it has handed out the cancel: "+rc.Stop.Text, rc.Stop)
			if st.has(handsOut) {
				// Right after the hand-out, whenever the tool prints.
				stop.Follows = handsOut
			} else {
				stop.Across = true
			}
			// The loop learns of it on a channel: the case the close is in
			// receives from one.
			st.add("close", "the client closes the watch: "+callText(rc.Close.Text), rc.Close.Pos).Across = strings.Contains(rc.Close.Case, "<-")
			for _, c := range rc.Closes {
				if c.Func != nil && callpath.Name(c.Func) == rc.Close.Callee {
					st.add("close", fmt.Sprintf("and closes the channel %s's loop reads, which ends that loop: %s", name, c.Text), c).ID = closesToolLoop
					break
				}
			}
		}
		st.add("tool", fmt.Sprintf("%s prints %q", name, l.Text), l.Pos).Across = across
	}
	if run.Exited {
		st.add("exit", fmt.Sprintf("and exits with status %d (%s)%s", run.Exit, report.ShortName(run.ExitBy), whenCallsSucceed(run)), run.ExitPos)
	}
}

// drawnPath is the call path a chain draws from the entry to fn: the
// shortest checked way of the entry's pair with a use in fn that has the
// pair's verdict (a way that can run, when one can), else the shortest
// call path. The shortest call path may be one that cannot run (a call
// through an interface whose value is of another type on it).
func (r *analysis) drawnPath(entryName string, entry, fn *ssa.Function) callpath.Path {
	ei := r.EntryIndex(entryName)
	for _, p := range r.Pairs {
		if p.Entry != ei || len(p.Crossing) > 0 || r.Sites[p.Site].Func != fn {
			continue
		}
		for _, w := range p.Ways {
			if w.Res.Verdict == p.Verdict {
				return w.Path
			}
		}
	}
	if ps := r.Graph.Paths(entry, fn, 1); len(ps) > 0 {
		return ps[0]
	}
	return nil
}

func (r *analysis) readChain() []Step {
	sg := r.Study.Signal
	s := r.Signal
	var st steps
	add := st.add
	entry := r.entryFunc(sg.Read)
	ds := r.decisions(sg.Read)
	if entry == nil || len(ds) == 0 {
		return nil
	}
	d := ds[0]
	add("entry", "a client reads at a revision: "+sg.Read, r.entryPos(sg.Read))
	for _, h := range r.drawnPath(sg.Read, entry, d.Func) {
		add("call", "calls "+short(h.Callee), r.callPos(h))
	}
	add("decision", "decision: "+d.Text, d.Pos)
	add("signal", "the store "+d.Consequence, d.ConsequencePos)
	if rp := s.Read; rp != nil {
		for _, c := range rp.Called {
			add("wire", "where every call on the way back returns it as it got it, the handler maps the error: "+report.ShortName(c.Text), c)
			for _, ix := range lookupsIn(rp, c.Text) {
				add("wire", "which looks it up by identity in the translation map: "+ix.Text, ix)
			}
		}
		add("wire", "the translation map's entry for the sentinel: "+rp.Key.Text, rp.Key)
		if len(rp.Wire.Chain) > 0 {
			last := rp.Wire.Chain[len(rp.Wire.Chain)-1]
			add("wire", fmt.Sprintf("a gRPC %s error with the text %q", rp.Wire.Code, rp.Wire.Text), last)
		}
	}
	if t := s.Tool; t != nil {
		st.tool(t.Name, t.Get)
	}
	return link(st)
}

func (r *analysis) evictVerdict() {
	sg := r.Study.Signal
	s := r.Signal
	d, ok := r.signalDecision()
	b := r.behaviourWith(sg.Sync, "")
	q := "Which condition evicts the behind watcher, and why is the current one untouched?"
	v := &sentence{}
	if !ok {
		v.add("No comparison reached from the sync loop signals the compaction in this release.")
		r.verdict("evict", b, q, v)
		return
	}
	v.add(fmt.Sprintf("The behind watcher is evicted by `%s` in `%s` (%%L). It ", d.Text, short(d.Func)), d.Pos)
	switch {
	case s.ProgressVar != nil && d.RevisionObj == s.ProgressVar:
		adv := r.progressLines()
		v.add(fmt.Sprintf("compares the watcher's progress `%s`, the next revision it needs", d.Revision))
		if len(adv) > 0 {
			v.add(" (the sync loop advances it as batches go out: "+strings.Repeat("%L, ", len(adv)-1)+"%L)", adv...)
		}
		v.add(", with the compaction revision")
		v.fact(FactComparesProgress, fmt.Sprintf("`%s` compares the watcher's progress, the next revision it needs, with the compaction revision, by number", d.Text), d.Pos)
		if s.StartVar != nil {
			var set []signal.Pos
			for _, w := range s.Start.Stores {
				set = append(set, w.Pos)
			}
			if len(set) > 0 {
				v.add(fmt.Sprintf(" — not the revision it asked for (`%s`, set when the watch is made, %%L)", s.StartVar.Name()), set[0])
			} else {
				v.add(fmt.Sprintf(" — not the revision it asked for (`%s`)", s.StartVar.Name()))
			}
		} else {
			v.add(" (this release keeps no separate field for the revision the watcher asked for)")
		}
	case s.StartVar != nil && d.RevisionObj == s.StartVar:
		v.add(fmt.Sprintf("compares the revision the watcher asked for, `%s`, with the compaction revision", d.Revision))
		v.fact(FactComparesStart, fmt.Sprintf("`%s` compares the revision the watcher asked for with the compaction revision", d.Text), d.Pos)
	default:
		v.add(fmt.Sprintf("compares `%s` with the compaction revision", d.Revision))
	}
	v.add(".")
	r.removalFact(v)
	r.verdict("evict", b, q, v)
	cur := &sentence{}
	r.currentWatcher(cur)
	r.verdict("current", b, "Why is the current watcher untouched by the compaction?", cur)
}

// currentWatcher says why the decision leaves a caught-up watcher alone,
// in terms that hold for every run: the decision runs only over the
// watchers the sync loop takes from the behind group; a watch opened at the
// current revision goes to the other group, where new events are sent to it
// as they are written. It is compared only once something moves it into the
// behind group (Restore, moveVictims), and then a compaction past its
// progress cancels it like any behind watcher; since a synced watcher's
// progress is written only where the code says (at open, when the sync loop
// moves it, where changes are sent to it), that can happen after a Restore
// even to a watcher that missed nothing.
func (r *analysis) currentWatcher(v *sentence) {
	sg := r.Study.Signal
	s := r.Signal
	d, okD := r.signalDecision()
	rd, okR := r.behindRead(d)
	open, okO := r.behindAdd()
	if !okD || !okR || !okO {
		v.add("The analysis does not find which group of watchers the decision runs over in this release: it cannot say why the current watcher survives.")
		return
	}
	var syncedAdd *signal.GroupAccess // where the open path puts a caught-up watch
	for i, a := range s.Groups {
		if a.Group != sg.Behind && a.Method == "add" && a.Func == open.Func {
			syncedAdd = &s.Groups[i]
			break
		}
	}
	if syncedAdd == nil {
		v.add(fmt.Sprintf("The decision runs only over the watchers taken from `%s` (%%L), but the analysis finds no other group the open path puts a watcher in: it cannot say why the current watcher survives.", fieldName(sg.Behind)), rd.Pos)
		return
	}
	synced := fieldName(syncedAdd.Group)
	var fed []signal.Write // progress writes in functions that use the synced group, past the open
	inSynced := map[*ssa.Function]bool{}
	for _, a := range s.Groups {
		if a.Group == syncedAdd.Group {
			inSynced[a.Func] = true
		}
	}
	var into []signal.GroupAccess // other ways into the behind group
	moves := map[*ssa.Function]bool{}
	for _, a := range s.Groups {
		if a.Group == sg.Behind && a.Method == "add" && a.Func != open.Func {
			into = append(into, a)
			moves[a.Func] = true
		}
	}
	for _, w := range s.Progress.Stores {
		if inSynced[w.Func] && w.Func != open.Func && !moves[w.Func] && !r.reachedFrom(sg.Sync, w.Func) {
			fed = append(fed, w)
		}
	}
	v.add(fmt.Sprintf("The current watcher survives because the decision never looks at it: `%s` runs only over the watchers the sync loop takes from `%s` (`%s`, %%L). A watch that asks for no history is put in `%s` instead (`%s` in `%s`, %%L", r.decisionText(), fieldName(sg.Behind), strings.TrimSpace(rd.Text), synced, strings.TrimSpace(syncedAdd.Text), short(syncedAdd.Func)), rd.Pos, syncedAdd.Pos)
	at := []signal.Pos{rd.Pos, syncedAdd.Pos}
	if syncedAdd.Cond != "" {
		v.add(fmt.Sprintf(", when `%s`", syncedAdd.Cond))
		if syncedAdd.CondDef.Text != "" {
			v.add(fmt.Sprintf(": `%s`, %%L", strings.TrimSpace(syncedAdd.CondDef.Text)), syncedAdd.CondDef)
		}
	}
	v.add(")")
	if len(fed) > 0 {
		v.add(". There new events are sent to it as they are written, with no history to read (")
		for i, w := range fed {
			if i > 0 {
				v.add(", ")
			}
			sent := r.sendIn(w.Func, w.Pos)
			v.add(fmt.Sprintf("%s in `%s`, %%L", quote(sendText(sent.Text)), short(w.Func)), sent)
		}
		v.add(")")
	}
	v.add(".")
	rewritten := ""
	if st := s.StartArg; st.Rewritten() {
		// The store never sees 0 from a client: such a watch is synced
		// only if the store's revision does not grow between the two reads
		// of it (a write or a restore from a snapshot makes it grow).
		_, val, _ := strings.Cut(st.Set.Text, " = ")
		v.add(fmt.Sprintf(" In this release the store never sees start revision 0 from a client: the receive loop hands it `%s` instead (%%L). Such a watch goes to `%s` when the store's revision grows between the loop's read of it and the store's (as a write that lands between them makes it grow); a compaction past `%s` before the next pass would then cancel it.", val, fieldName(sg.Behind), val), st.Set)
		rewritten = ". In this release it is put there only when the store's revision does not grow while it opens"
		if rp := sg.Replay; rp != nil && rp.Quiet {
			rewritten += ", as in the exercise"
		}
	}
	if len(into) > 0 {
		v.add(fmt.Sprintf(" It is compared only if it ends up in `%s`, added there by one of its other writers (", fieldName(sg.Behind)))
		for i, a := range into {
			if i > 0 {
				v.add(", ")
			}
			v.add(fmt.Sprintf("`%s`, %%L", short(a.Func)), a.Pos)
		}
		v.add("). Then a compaction past its progress cancels it like a behind watcher")
		if len(fed) > 0 {
			// Where its progress is written, by function: there changes
			// are sent to it (that is what puts the function in fed), so
			// a write there need not follow a send.
			v.add(fmt.Sprintf(", even one that missed no event. In `%s` its progress `%s` is written only in ", synced, s.ProgressVar.Name()))
			for i, w := range fed {
				if i > 0 {
					v.add(", ")
				}
				v.add(fmt.Sprintf("`%s` (`%s`, %%L)", short(w.Func), strings.TrimSpace(w.Text)), w.Pos)
			}
			v.add(", where the changes to the keys it watches are sent to it, not as the store's revision grows")
		}
		v.add(".")
	}
	// The client may open the watch again: a new watcher, which the open
	// puts where its request's start revision says.
	var resumes []signal.Resume
	if rc := s.Receive; rc != nil {
		resumes = rc.Resumes
	}
	if len(resumes) > 0 {
		v.add(" The client's stream loop also sends a watch's create request, a new one or one it sends again, after picking it from those waiting: ")
		for i, x := range resumes {
			if i > 0 {
				v.add(", and ")
			}
			v.add(fmt.Sprintf("`%s` (%%L) in `%s`", callText(x.Text), x.Case), x.Pos)
		}
		v.add(fmt.Sprintf(". The store then makes a new watcher, which the open puts in `%s` %s; there a compaction past its progress cancels it. What start revision that request asks for is not followed here.", fieldName(sg.Behind), unlessSynced(syncedAdd)))
	}
	v.fact(FactCurrentNotCompared, fmt.Sprintf("`%s` runs only over the watchers taken from `%s`; a watch that asks for no history is put in `%s`, where new events are sent to it as they are written: it needs no history while it stays there%s", r.decisionText(), fieldName(sg.Behind), synced, rewritten), at...)
	if len(into) > 0 {
		var moved []string
		var lines []signal.Pos
		for _, a := range into {
			moved = append(moved, fmt.Sprintf("`%s`", short(a.Func)))
			lines = append(lines, a.Pos)
		}
		text := fmt.Sprintf("A watcher in `%s` can end up in `%s`, added there by %s: there a compaction past its progress cancels it like a behind watcher", synced, fieldName(sg.Behind), strings.Join(moved, " or "))
		if len(resumes) > 0 {
			// What the client's watch becomes when it is opened again.
			var calls []string
			for _, x := range resumes {
				if c := "`" + callText(x.Text) + "`"; !slices.Contains(calls, c) {
					calls = append(calls, c)
				}
				lines = append(lines, x.Pos)
			}
			text += fmt.Sprintf(". Where the client's stream loop sends the watch's create request once more (after %s), the store makes a new watcher, put in `%s` %s. What start revision that request asks for is not followed here", strings.Join(calls, ", "), fieldName(sg.Behind), unlessSynced(syncedAdd))
		}
		v.fact(FactCurrentCanBeMoved, text, lines...)
	}
	r.quietFacts(v, synced, fed)
}

// unlessSynced says when the open puts a watcher in the other group than
// the behind one: "unless `synced := …`" (its condition's definition,
// where there is one), or "unless `cond`".
func unlessSynced(a *signal.GroupAccess) string {
	switch {
	case a.CondDef.Text != "":
		return fmt.Sprintf("unless `%s` holds", strings.TrimSpace(a.CondDef.Text))
	case a.Cond != "":
		return fmt.Sprintf("unless `%s`", a.Cond)
	}
	return "or not, by its request"
}

// quietFacts say what terminal 2, caught up, prints after the compaction:
// no response carries the compaction to it (the decision's is the only
// one that does, and it runs over the behind group), and events only as
// keys under its prefix are written, which the exercise does not do
// before its teardown.
func (r *analysis) quietFacts(v *sentence, synced string, fed []signal.Write) {
	sg := r.Study.Signal
	d, ok := r.signalDecision()
	if !ok || len(sg.Fields) == 0 {
		return
	}
	only := true
	for _, w := range r.Signal.Writes {
		if w.Field == sg.Fields[0] && w.Func != d.Func {
			only = false
		}
	}
	if only && d.ConsequencePos.Filename != "" {
		v.fact(FactSyncedNotTold, fmt.Sprintf("a watcher in `%s` is told nothing of the compaction: the only response that carries it is the decision's ({0}), sent to the watchers taken from `%s`", synced, fieldName(sg.Behind)), d.ConsequencePos)
	}
	if len(fed) == 0 {
		return
	}
	sent := r.sendIn(fed[0].Func, fed[0].Pos)
	text := fmt.Sprintf("While it stays in `%s`, terminal 2 is sent events only as keys under its prefix are written, in `%s` ({0})", synced, short(fed[0].Func))
	if rp := sg.Replay; rp != nil && rp.Quiet {
		text += ", and the exercise writes none after the compaction until its teardown's `del`: until then terminal 2 prints nothing"
	}
	v.fact(FactSyncedPrintsWrites, text, sent)
}

// sendText is a send's line as the notes quote it: a call's condition
// (`if w.send(x) {`) without its if.
func sendText(line string) string {
	line = strings.TrimSpace(line)
	line = strings.TrimSuffix(line, "{")
	return strings.TrimSpace(strings.TrimPrefix(line, "if "))
}

// sendIn is where fn sends a response on a watcher's channel: the send
// itself, or the call of a function that makes it (the first in source
// order); def when fn makes none.
func (r *analysis) sendIn(fn *ssa.Function, def signal.Pos) signal.Pos {
	senders := map[*ssa.Function]bool{}
	for _, c := range r.Signal.Chans {
		if c.Send && c.Func != nil {
			senders[c.Func] = true
		}
	}
	best := def
	found := false
	take := func(p signal.Pos) {
		if !found || p.Offset < best.Offset {
			best, found = p, true
		}
	}
	for _, c := range r.Signal.Chans {
		if c.Send && c.Func == fn {
			take(c.Pos)
		}
	}
	for _, b := range fn.Blocks {
		for _, ins := range b.Instrs {
			call, ok := ins.(ssa.CallInstruction)
			if !ok || !call.Pos().IsValid() {
				continue
			}
			if callee := call.Common().StaticCallee(); callee != nil && senders[callee] {
				at := signal.Pos{Position: r.Graph.Fset().Position(call.Pos()), Func: fn}
				if r.Lines != nil {
					if l, err := r.Lines(at.Filename, at.Line); err == nil {
						at.Text = strings.TrimSpace(l)
					}
				}
				take(at)
			}
		}
	}
	return best
}

func (r *analysis) decisionText() string {
	if d, ok := r.signalDecision(); ok {
		return d.Text
	}
	return "the decision"
}

// replayVerdict times the exercise's replay by the pacing the code sets: a
// batch of revisions per pass of the sync loop, a pass per period.
// pacing are the sync loop's batch and period constants, when the code
// sets them.
func (r *analysis) pacing() (batch, period *signal.Const) {
	for _, p := range r.Study.Signal.Pacing {
		for i := range r.Signal.Pacing {
			c := &r.Signal.Pacing[i]
			if c.Object != p.Object || c.Absent || !c.IsInt || c.Int <= 0 {
				continue
			}
			switch p.Role {
			case "batch":
				batch = c
			case "period":
				period = c
			}
		}
	}
	return batch, period
}

// progressLines are the writes of the watcher's progress that the sync
// loop reaches: how a pass advances it as its batches go out.
func (r *analysis) progressLines() []signal.Pos {
	s := r.Signal
	if s.ProgressVar == nil {
		return nil
	}
	var out []signal.Pos
	for _, w := range s.Progress.Stores {
		if r.reachedFrom(r.Study.Signal.Sync, w.Func) {
			out = append(out, w.Pos)
		}
	}
	return out
}

// movedOutLines are the adds to another group than the behind one in the
// function that reads the compaction revision for the decision: where a
// pass moves a watcher out of the behind group.
func (r *analysis) movedOutLines() []signal.Pos {
	var out []signal.Pos
	if d, ok := r.signalDecision(); ok {
		if rd, ok := r.behindRead(d); ok {
			for _, a := range r.groupAddsIn(rd.Func) {
				if a.Group != r.Study.Signal.Behind {
					out = append(out, a.Pos)
				}
			}
		}
	}
	return out
}

// pacingLines are the lines of the batch and of the period (its
// declaration, else its ticker).
func (r *analysis) pacingLines() []signal.Pos {
	batch, period := r.pacing()
	if batch == nil || period == nil {
		return nil
	}
	per := period.Pos
	if period.Declared != nil {
		per = *period.Declared
	}
	return []signal.Pos{batch.Pos, per}
}

func (r *analysis) replayVerdict() {
	sg := r.Study.Signal
	if sg.Replay == nil {
		return
	}
	b := r.behaviourWith(sg.Sync, "")
	q := fmt.Sprintf("How long does the behind watcher's replay last, and does a compaction typed %s after the watch opens land in it?", sg.Replay.TypedAfter)
	batch, period := r.pacing()
	v := &sentence{}
	if batch == nil || period == nil {
		v.add("This release's code sets no constant batch and period to time a replay by.")
		r.verdict("replay", b, q, v)
		return
	}
	n, typed := sg.Replay.Revisions, sg.Replay.TypedAfter
	passes := (int64(n) + batch.Int - 1) / batch.Int
	p := time.Duration(period.Int)
	done := time.Duration(passes) * p
	// The period's own line: its declaration, else the ticker's.
	per := period.Pos
	if period.Declared != nil {
		per = *period.Declared
	}
	lines := []signal.Pos{batch.Pos, per}
	v.add(fmt.Sprintf("A watcher %d revisions behind gets at most %d of them per pass of the sync loop (%%L): %d passes.", n, batch.Int, passes), batch.Pos)
	// The loop's ticker runs on its own: the first pass comes within one
	// period of the watch's opening; the loop resets the ticker after each
	// pass, to the period, or to less under a condition.
	var same, other *signal.Reset
	for i, rs := range period.Resets {
		switch {
		case rs.Same && same == nil:
			same = &period.Resets[i]
		case !rs.Same && rs.Cond.Filename != "" && other == nil:
			other = &period.Resets[i]
		}
	}
	if period.Declared != nil {
		v.add(fmt.Sprintf(" The passes are paced by `%s`, %s (%%L): the loop starts its ticker with it (%%L)", report.ShortName(period.Via), period.Value), *period.Declared, period.Pos)
	} else {
		v.add(fmt.Sprintf(" The passes are paced by a ticker of %s (%%L)", period.Value), period.Pos)
	}
	spaced := false // passes come a period apart, for one watcher behind
	if same != nil {
		v.add(" and resets it to it after each pass (%L). So the first pass comes within "+period.Value+" of the watch's opening and each later one "+period.Value+" after the one before ends.", same.Pos)
		spaced = true
		if other != nil {
			v.add(fmt.Sprintf(" The next pass can come sooner when `%s` holds after a pass (%%L): the loop then resets the ticker with %s instead (%%L).", other.Cond.Text, quote(other.Text)), other.Cond, other.Pos)
			switch {
			case other.OneBehind != nil && !*other.OneBehind:
				v.add(" With one watcher behind, as terminal 1 is in the exercise, that never holds.")
			default:
				v.add(" Whether that holds for terminal 1 this analysis does not decide.")
				spaced = false
			}
		}
	} else {
		v.add(", and the first pass comes within " + period.Value + " of the watch's opening.")
	}
	apart := period.Value + " apart"
	if !spaced {
		apart = "at most " + period.Value + " apart"
	}
	v.add(fmt.Sprintf(" The last of the %d passes comes at most about %s after the opening, plus the time the passes before it take", passes, done))
	var buf *signal.Const
	for _, pc := range sg.Pacing {
		for i := range r.Signal.Pacing {
			c := &r.Signal.Pacing[i]
			if c.Object == pc.Object && pc.Role == "" && c.IsInt && c.Int > passes {
				buf = c
			}
		}
	}
	if buf != nil {
		v.add(fmt.Sprintf(". The server does not wait for the client: a pass's response goes into the watch's channel, which holds %d (%%L)", buf.Int), buf.Pos)
		if c := r.Signal.Client; c != nil && len(c.Buffer) > 0 {
			v.add(", and the client takes responses off the stream into a buffer without bound (%L)", c.Buffer[0])
		}
		v.add(". What terminal 1 prints can lag behind what the server has sent")
		if d, ok := r.signalDecision(); ok && d.ConsequencePos.Filename != "" {
			// The cancel goes into the same channel, after what the
			// passes before it sent.
			v.add(". The cancel goes into that channel too (%L), behind what the passes before it sent: terminal 1, canceled after pass 1, prints that pass's events on stdout before the cancel's lines on stderr; canceled at pass 1, it prints no event before them", d.ConsequencePos)
		}
	}
	v.add(". ")
	// The watcher's progress starts at the anchor, n-1 revisions before
	// the head, and the compaction is to Short before the head: after
	// `closes` passes its progress is at or past the compaction revision,
	// and the decision can no longer hold for it.
	closes, window := passes, done
	if need := int64(n - 1 - sg.Replay.Short); sg.Replay.Short > 0 && need > 0 {
		closes = (need + batch.Int - 1) / batch.Int
		window = time.Duration(closes) * p
	}
	early := time.Duration(closes-1) * p // pass `closes` comes no sooner, when spaced
	when := fmt.Sprintf("at most about %s after the watch opens", window)
	if spaced {
		when = fmt.Sprintf("%s to %s after the watch opens, plus the time the passes before it take", early, window)
	}
	if sg.Replay.Short > 0 {
		v.add(fmt.Sprintf("A compaction to N−%d (%d revisions before the head N) evicts the watcher only if it lands before pass %d, which comes %s. From then on its progress is at or past the compaction revision.", sg.Replay.Short, sg.Replay.Short, closes, when))
		if spaced && early > 0 {
			v.add(fmt.Sprintf(" While it is the only watcher behind, a compaction applied within %s of the watch's registration is always in time.", early))
		}
		v.add(" ")
	}
	sure := ""
	if spaced && early > 0 {
		sure = fmt.Sprintf("; within %s it is sure to, while it is the only watcher behind", early)
	}
	if window < typed {
		moved := r.movedOutLines()
		v.add(fmt.Sprintf("A compaction typed %s after the watch opens comes after the replay: the watcher has caught up", typed))
		if len(moved) > 0 {
			v.add(", the sync loop has moved it out of `"+fieldName(sg.Behind)+"` ("+strings.Repeat("%L, ", len(moved)-1)+"%L),", moved...)
		}
		// When a compaction is sure to evict it is said once: above, when
		// the compaction's distance from the head is known.
		again := sure
		if sg.Replay.Short > 0 {
			again = ""
		}
		v.add(fmt.Sprintf(" the decision never sees it, and both watchers survive. To see the eviction, the compaction must be applied before pass %d, at most about %s after the watch is registered plus the time the passes before it take%s. That is faster than a command can be typed: a script can run it right after it starts the watch (one that lands before the watch is registered cancels it on pass 1 all the same, as a reopened watch is).", closes, window, again))
		v.fact(FactReplayDoneBeforeTyping, fmt.Sprintf("the replay of %d revisions takes %d passes, %s while it is the only watcher behind, and a compaction to N−%d evicts the watcher only if it lands before pass %d, at most about %s after its opening plus the time the passes before it take: long before one typed by hand (taken as %s)", n, passes, apart, sg.Replay.Short, closes, window, typed), append(lines, moved...)...)
		where := "the other set"
		if d, ok := r.signalDecision(); ok {
			if rd, ok := r.behindRead(d); ok {
				if g := caught0(r.Signal, rd.Func, sg.Behind); g != "" {
					where = "`" + fieldName(g) + "`"
				}
			}
		}
		v.fact(FactByHand, fmt.Sprintf("By hand, both watchers survive: terminal 1's replay of %d revisions takes %d passes of the sync loop, each sending at most %d revisions, %s while it is the only watcher behind ({0}, {1}). Once pass %d has run, at most about %s after the watch opens plus the passes' own time, its progress is at or past N−%d. A compaction typed by hand (taken as %s after the watch opens) finds it in %s. To see it die, the compaction must be applied within about %s of the watch's registration, plus pass 1's own time%s.", n, passes, batch.Int, apart, closes, window, sg.Replay.Short, typed, where, window, sure), lines...)
		v.fact(FactBothSurviveByHand, fmt.Sprintf("by hand neither ends: a compaction typed %s after the watch opens comes after the replay's %d passes, at most about %s after it plus the passes' own time; terminal 1 is in %s by then, and the decision never sees either watcher", typed, passes, done, where), lines...)
		v.fact(FactDiesIfEarly, fmt.Sprintf("Terminal 1 does end if the compaction is applied before pass %d, at most about %s after the watch is registered plus the passes' own time%s. So the claim depends on when the compaction comes", closes, window, sure), lines...)
	} else {
		v.add(fmt.Sprintf("A compaction typed %s after the watch opens lands while the watcher is still behind.", typed))
		v.fact(FactReplayOutlastsTyping, fmt.Sprintf("the replay of %d revisions takes %d passes of the sync loop, %s, and the watcher can be evicted until about %s: longer than the %s it takes to type the compaction", n, passes, apart, window, typed), lines...)
		v.fact(FactByHand, fmt.Sprintf("By hand, terminal 1 can die: its replay of %d revisions takes %d passes of the sync loop, %s ({0}, {1}), and its progress stays below N−%d until about %s after it opens, longer than the %s it takes to type the compaction.", n, passes, apart, sg.Replay.Short, window, typed), lines...)
		v.fact(FactBehindDiesByHand, fmt.Sprintf("a compaction typed %s after the watch opens lands before pass %d, while terminal 1's progress is below N−%d", typed, closes, sg.Replay.Short), lines...)
	}
	r.verdict("replay", b, q, v)
}

// behaviourWith returns the first behaviour that runs through entry (and,
// if given, has the id).
func (r *analysis) behaviourWith(entry, id string) string {
	for _, b := range r.Study.Behaviours {
		if contains(b.Entries, entry) && (id == "" || b.ID == id) {
			return b.ID
		}
	}
	return ""
}

func fieldName(q string) string {
	return q[strings.LastIndex(q, ".")+1:]
}

func (r *analysis) reopenVerdict() {
	sg := r.Study.Signal
	s := r.Signal
	q := "Is a watch opened from a compacted revision refused at open, or accepted and then canceled?"
	var b string
	for _, x := range r.Study.Behaviours {
		if contains(x.Entries, sg.Sync) && x.ID != r.behaviourWith(sg.Sync, "") {
			b = x.ID
			break
		}
	}
	recv, err := r.Graph.Func(sg.Recv)
	if err != nil {
		return
	}
	openReach := r.Graph.Reachable(recv)
	var checks []signal.Comparison
	for _, c := range s.Comparisons {
		if openReach[c.Func] {
			checks = append(checks, c)
		}
	}
	v := &sentence{}
	d, ok := r.signalDecision()
	switch {
	case len(checks) == 0 && ok:
		v.add(fmt.Sprintf("Accepted, then canceled: nothing on the open path (`%s` and what it calls) compares the start revision with the compaction revision", short(recv)))
		if created := r.createResponse(recv); created.Filename != "" {
			v.add(fmt.Sprintf(". The create response (%%L) sets `%s`", created.Text), created)
		}
		v.add(fmt.Sprintf(". The watcher waits among the behind ones until the sync loop's next pass, where `%s` (%%L) sends the cancel", d.Text), d.Pos)
		if d.NoWait {
			v.add(" (a send that does not wait: when the watcher's channel is full, its default case, %L, sends nothing on that pass)", d.NoWaitAt)
		}
		v.add(".")
		lines := []signal.Pos{}
		if created := r.createResponse(recv); created.Filename != "" {
			lines = append(lines, created)
		}
		v.fact(FactAcceptedThenCanceled, fmt.Sprintf("accepted, then canceled: nothing on the open path compares the start revision with the compaction revision; the sync loop's `%s` cancels it on its next pass", d.Text), append(lines, d.Pos)...)
	case len(checks) > 0:
		v.add("The open path compares the start revision with the compaction revision: ")
		var at []signal.Pos
		for i, c := range checks {
			if i > 0 {
				v.add(", ")
			}
			v.add(fmt.Sprintf("`%s` (%%L)", c.Text), c.Pos)
			at = append(at, c.Pos)
		}
		v.add(".")
		v.fact(FactCheckedAtOpen, "the open path compares the start revision with the compaction revision", at...)
	default:
		v.add("This release has no comparison on either path that signals the compaction.")
	}
	var same []signal.Refusal
	for _, x := range s.Refusals {
		if x.Func == recv && s.Client != nil && x.Text != "" && x.Text == s.Client.Err.Text {
			same = append(same, x)
		}
	}
	if len(same) > 0 {
		for _, x := range same {
			at := []signal.Pos{x.Pos}
			if x.CondAt.Filename != "" && x.ReasonAt.Filename != "" {
				at = []signal.Pos{x.CondAt, x.ReasonAt}
			}
			v.fact(FactRefusedSameText, fmt.Sprintf("a request with `%s` is refused at open with the same text", x.Cond), at...)
		}
	}
	r.verdict("reopen", b, q, v)
}

// createResponse is the write of the created flag in the receive loop's
// normal create response (the one whose canceled flag is not constant).
func (r *analysis) createResponse(recv *ssa.Function) signal.Pos {
	sg := r.Study.Signal
	for _, w := range r.Signal.Writes {
		if w.Field == sg.Cancel && w.Func == recv && w.Value != "true" {
			return w.Pos
		}
	}
	return signal.Pos{}
}

func (r *analysis) boundaryVerdict() {
	sg := r.Study.Signal
	q := "Which comparisons make revision C (the compaction revision) succeed and C−1 fail, for watches and for reads?"
	type group struct {
		name string
		cs   []signal.Comparison
	}
	groups := []group{{name: "watches"}, {name: "reads"}}
	for _, c := range r.Signal.Comparisons {
		if !c.Decision {
			continue
		}
		if r.reachedFrom(sg.Sync, c.Func) {
			groups[0].cs = append(groups[0].cs, c)
		}
		if r.reachedFrom(sg.Read, c.Func) {
			groups[1].cs = append(groups[1].cs, c)
		}
	}
	v := &sentence{}
	n := 0
	var all []signal.Pos
	var conseq []string
	bothC := true // every group's boundary is C
	for gi, g := range groups {
		if gi > 0 {
			v.add(" ")
		}
		if len(g.cs) == 0 {
			v.add(fmt.Sprintf("For %s no comparison decides.", g.name))
			continue
		}
		v.add(fmt.Sprintf("For %s: ", g.name))
		isC := true
		var at []signal.Pos
		var texts []string
		for i, c := range g.cs {
			n++
			if i > 0 {
				v.add("; ")
			}
			what := "C passes and C−1 fails"
			if c.LowestPassing == 1 {
				what = "C itself fails"
				isC = false
			}
			v.add(fmt.Sprintf("`%s` (%%L), so %s", c.Text, what), c.Pos)
			at = append(at, c.Pos)
			texts = append(texts, "`"+c.Text+"`")
			conseq = append(conseq, fmt.Sprintf("`%s` %s", c.Text, c.Consequence))
		}
		v.add(".")
		keys := [2][2]string{{FactWatchBoundaryIsC, FactWatchBoundaryNotC}, {FactReadBoundaryIsC, FactReadBoundaryNotC}}[gi]
		bothC = bothC && isC
		if isC {
			v.fact(keys[0], fmt.Sprintf("for %s the lowest positive revision that passes is C, the compaction revision, by %s", g.name, strings.Join(texts, " and ")), at...)
		} else {
			v.fact(keys[1], fmt.Sprintf("for %s the compaction revision C itself fails, by %s", g.name, strings.Join(texts, " and ")), at...)
		}
		all = append(all, at...)
	}
	var others []string
	for _, c := range r.Signal.Comparisons {
		if c.Decision && !r.reachedFrom(sg.Sync, c.Func) && !r.reachedFrom(sg.Read, c.Func) {
			if name := "`" + short(c.Func) + "`"; !contains(others, name) {
				others = append(others, name)
			}
		}
	}
	switch {
	case n == 1:
		v.fact(FactOneComparison, "one comparison decides for watches and reads", all...)
	case n > 1:
		// One value, compared separately: one mechanism only in part.
		v.fact(FactSeparateComparisons, fmt.Sprintf("one mechanism only in part: %d separate comparisons, with different consequences: %s", n, strings.Join(conseq, "; ")), all...)
		same := ""
		if bothC {
			same = ", so C is the boundary of both"
		}
		// The value's write the sync loop's read is handed (the one a
		// compaction makes), when the analysis finds it.
		var set []signal.Pos
		if d, ok := r.signalDecision(); ok {
			if w, _ := r.revisionHandOff(d); w != nil {
				set = append(set, w.Pos)
			}
		}
		text := fmt.Sprintf("What is one is the value they compare with, `%s`, the compaction revision%s", fieldName(sg.Revision), same)
		if len(set) > 0 {
			text = fmt.Sprintf("What is one is the value they compare with, `%s`, the compaction revision, set by %s ({0})%s", fieldName(sg.Revision), quote(set[0].Text), same)
		}
		v.fact(FactOneValue, text, set...)
	}
	if n > 1 {
		v.add(fmt.Sprintf(" One mechanism only in part: one value, the compaction revision, compared by %d separate comparisons", n))
		if len(others) > 0 {
			v.add(fmt.Sprintf(", and by more on other paths, in %s", strings.Join(others, ", ")))
		}
		v.add(".")
	}
	r.verdict("boundary", "", q, v)
}

// lookupsIn are the lookups of the read's translation map made by the
// function named fn (a qualified name, as ReadPath.Called has it).
func lookupsIn(rp *signal.ReadPath, fn string) []signal.Pos {
	var out []signal.Pos
	for _, ix := range rp.Indexed {
		if ix.Func != nil && callpath.Name(ix.Func) == fn {
			out = append(out, ix)
		}
	}
	return out
}

func (r *analysis) readVerdict() {
	sg := r.Study.Signal
	s := r.Signal
	q := "How does exercise 6's historical read fail, and what reaches the client?"
	ds := r.decisions(sg.Read)
	b := r.behaviourWith(sg.Read, "")
	v := &sentence{}
	if len(ds) == 0 {
		v.add("No comparison reached from the read entry decides in this release.")
		r.verdict("read", b, q, v)
		return
	}
	d := ds[0]
	v.add(fmt.Sprintf("The read reaches `%s`, which %s when `%s` (%%L)", short(d.Func), d.Consequence, d.Text), d.Pos)
	if rp := s.Read; rp != nil && len(rp.Called) > 0 {
		// The way back up is not followed: a function on it may return
		// an error of its own in the sentinel's place.
		v.add(". Whether every call on the way back up returns the error as it got it is not followed here: a function on the way may return an error of its own in its place, past a test of another call's result")
		if ix := lookupsIn(rp, rp.Called[0].Text); len(ix) > 0 {
			v.add(fmt.Sprintf(". Where they do, the handler maps it with `%s` (%%L), which looks the error up by identity, `%s` (%%L), in the translation map (%%L)", report.ShortName(rp.Called[0].Text), ix[0].Text), rp.Called[0], ix[0], rp.Key)
		} else {
			v.add(fmt.Sprintf(". Where they do, the handler maps it with `%s` (%%L) through the translation map (%%L)", report.ShortName(rp.Called[0].Text)), rp.Called[0], rp.Key)
		}
		if len(rp.Wire.Chain) > 0 {
			v.add(fmt.Sprintf(". The map gives a gRPC %s error with the text %q (%%L)", rp.Wire.Code, rp.Wire.Text), rp.Wire.Chain[len(rp.Wire.Chain)-1])
		}
	}
	if t := s.Tool; t != nil && t.Get != nil && t.Get.Exited && len(t.Get.Stderr) > 0 {
		v.add(fmt.Sprintf(". Then %s prints %q (%%L) and exits %d", t.Name, t.Get.Stderr[len(t.Get.Stderr)-1].Text, t.Get.Exit), t.Get.Stderr[len(t.Get.Stderr)-1].Pos)
	}
	v.add(".")
	for _, u := range r.ErrorUses {
		if u.Verdict == feasible.No {
			continue // the call cannot reach the return on the watch's path
		}
		v.add(fmt.Sprintf(" On the watch side, `%s` calls `%s` (%%L)", short(u.Call.Func), report.ShortName(u.Callee)), u.Call)
		if c := u.Because; u.Verdict == feasible.OnlyIf && c != nil && c.Text != "" {
			not := ""
			if !c.Want {
				not = "not "
			}
			if holds, ok := inBranchOf(c, u.at); ok {
				// The call is in a branch of the whole condition: say it
				// whole, with the parts the request chooses.
				not = ""
				if !holds {
					not = "not "
				}
				v.add(fmt.Sprintf(" only when %s`%s` (%%L)", not, c.Whole), r.condPos(c))
			} else if c.Whole != "" {
				v.add(fmt.Sprintf(" only when %s`%s` (part of `%s`, %%L)", not, c.Text, c.Whole), r.condPos(c))
			} else if c.Ranged != "" {
				v.add(fmt.Sprintf(" only when `%s` is not empty (%%L)", c.Text), r.condPos(c))
			} else {
				v.add(fmt.Sprintf(" only when %s`%s` (%%L)", not, c.Text), r.condPos(c))
			}
		}
		if u.Dropped {
			v.add(fmt.Sprintf(". That call can reach the same return of the sentinel (%%L) after a compaction. Its error is only %s: the event goes out without that value and the stream is not ended.", strings.Join(u.Uses, ", ")), r.sitePos(u.Site))
		} else {
			v.add(fmt.Sprintf(". That call can fail with the sentinel; its error is %s.", strings.Join(u.Uses, ", ")))
		}
	}
	r.verdict("read", b, q, v)
}

// valuesVerdict decides, layer by layer, whether the eviction and the read
// carry one error value: on the server (what each decision produces) and
// at the client (what the watch's Err() and the get's error are).
func (r *analysis) valuesVerdict() {
	s := r.Signal
	q := "Are the eviction's and the read's errors one value, on the server and at the client?"
	v := &sentence{}
	d, okD := r.signalDecision()
	reads := r.decisions(r.Study.Signal.Read)
	if okD && len(reads) > 0 {
		rd := reads[0]
		v.add(fmt.Sprintf("On the server they are not one value: the eviction's decision %s (%%L), no error value; the read's %s (%%L). ", d.Consequence, rd.Consequence), d.ConsequencePos, rd.ConsequencePos)
	}
	c := s.Convert
	if c == nil || s.Client == nil || c.Watch.Filename == "" || len(c.Path) == 0 || c.Made.Filename == "" {
		v.add("The analysis does not follow both errors to one client value in this release.")
		if okD && len(reads) > 0 {
			v.fact(FactDifferentValues, "on the server the eviction carries no error value and the read returns the sentinel; at the client the analysis finds no common value", d.ConsequencePos, reads[0].ConsequencePos)
		}
		r.verdict("values", "", q, v)
		return
	}
	v.add(fmt.Sprintf("At the client they are: the watch's `Err()` returns `%s` (%%L), which is `%s` (%%L). The get's error is the read's wire error (%%L) as the client receives it, passed through the same conversion (", report.ShortName(s.Client.Err.Object), strings.TrimSpace(strings.SplitN(c.Watch.Text, "=", 2)[len(strings.SplitN(c.Watch.Text, "=", 2))-1])), s.Client.Return, c.Watch, c.Read)
	at := []signal.Pos{s.Client.Return, c.Watch, c.Read}
	for i, p := range c.Path {
		if i > 0 {
			v.add(", then ")
		}
		v.add(fmt.Sprintf("`%s` %%L", report.ShortName(p.Text)), p)
		at = append(at, p)
	}
	v.add(fmt.Sprintf("). The conversion makes `%s` (%%L)", c.Made.Text), c.Made)
	at = append(at, c.Made)
	if c.Comparable {
		v.add(fmt.Sprintf(", a comparable value: both compare equal to `%s`.", report.ShortName(s.Client.Err.Object)))
		v.fact(FactOneValueAtClient, fmt.Sprintf("one value at the client: both errors equal `%s`", report.ShortName(s.Client.Err.Object)), at...)
		if okD && len(reads) > 0 {
			v.fact(FactNotOneValueOnServer, fmt.Sprintf("Not on the server: the eviction sends a field, `%s` ({0}), and no error value; the read returns the sentinel ({1})", strings.TrimSpace(d.ConsequencePos.Text)), d.ConsequencePos, reads[0].ConsequencePos)
		}
	} else {
		v.add(", a value of a type that does not compare: the two are not one value.")
		v.fact(FactDifferentValues, "the client makes each error anew, of a type that does not compare", at...)
	}
	r.verdict("values", "", q, v)
}

func (r *analysis) sitePos(i int) signal.Pos {
	s := r.Sites[i]
	return signal.Pos{Position: s.Pos, Func: s.Func, Text: strings.TrimSpace(s.Text)}
}

// Roles of a cited line in a behaviour.
const (
	roleRuns  = "runs"  // a path that can run with the behaviour's requests reaches it
	roleValue = "value" // a declaration whose object a use that runs returns, compares or looks up
	roleNo    = "no"
)

// exercise are the study's behaviours that are the exercise's (not the
// lab's probes).
func (r *analysis) exercise() []study.Behaviour {
	var out []study.Behaviour
	for _, b := range r.Study.Behaviours {
		if !b.Probe {
			out = append(out, b)
		}
	}
	return out
}

// runs reports whether site si runs in behaviour b.
func (r *analysis) runs(b study.Behaviour, si int) bool {
	v, _ := r.RunsIn(b, si)
	return v == feasible.Yes || v == feasible.OnlyIf
}

// citedRoles gives each line of the citation its role in each behaviour.
func (r *analysis) citedRoles() []map[string]string {
	var out []map[string]string
	for _, h := range r.Grep {
		roles := map[string]string{}
		for _, b := range r.exercise() {
			roles[b.ID] = roleNo
			if h.Site < 0 {
				continue
			}
			if r.Sites[h.Site].Func != nil {
				if r.runs(b, h.Site) {
					roles[b.ID] = roleRuns
				}
				continue
			}
			// The declaration: is its object the value of a use that runs?
			for si, s := range r.Sites {
				if s.Func != nil && s.Kind != sites.Other && r.runs(b, si) {
					roles[b.ID] = roleValue
				}
			}
		}
		out = append(out, roles)
	}
	return out
}

func (r *analysis) citationVerdict() {
	q := fmt.Sprintf("Does each line %s's citation finds run in a behaviour, and which lines should it name?", r.Study.Citation.Step)
	v := &sentence{}
	var runs, idle []signal.Pos
	r.Roles = r.citedRoles()
	about := func(id string) bool {
		if len(r.Study.Citation.About) == 0 {
			return true
		}
		for _, a := range r.Study.Citation.About {
			if a == id {
				return true
			}
		}
		return false
	}
	for i, h := range r.Grep {
		pos := signal.Pos{Position: r.lineToken(h), Text: strings.TrimSpace(h.Text)}
		if h.Site < 0 {
			v.add("%L names the sentinel only in text. ", pos)
			continue
		}
		s := r.Sites[h.Site]
		var in, as []string
		involved := false
		for _, b := range r.exercise() {
			switch r.Roles[i][b.ID] {
			case roleRuns:
				in = append(in, b.ID)
				involved = involved || about(b.ID)
			case roleValue:
				as = append(as, b.ID)
				involved = involved || about(b.ID)
			}
		}
		switch {
		case s.Func == nil && len(as) > 0:
			v.add(fmt.Sprintf("%%L is the declaration: it does not run, but it is the value that the uses which run in %s return, compare or look up. ", strings.Join(as, ", ")), pos)
			if involved {
				runs = append(runs, pos)
			} else {
				idle = append(idle, pos)
			}
		case s.Func == nil:
			v.add("%L is the declaration, and no use that runs in a behaviour involves its value. ", pos)
			idle = append(idle, pos)
		case len(in) == 0:
			v.add(fmt.Sprintf("%%L (`%s`) runs in none of the behaviours", short(s.Func)), pos)
			idle = append(idle, pos)
			if probes := r.probesRunning(h.Site); len(probes) > 0 {
				v.add(" (by analysis, the lab's probe " + strings.Join(probes, ", ") + " reaches it)")
			}
			v.add(". ")
		default:
			v.add(fmt.Sprintf("%%L (`%s`) runs in %s. ", short(s.Func), strings.Join(in, ", ")), pos)
			if involved {
				runs = append(runs, pos)
			} else {
				idle = append(idle, pos)
			}
		}
	}
	of := "a behaviour"
	if len(r.Study.Citation.About) > 0 {
		of = strings.Join(r.Study.Citation.About, " or ")
	}
	v.add("A citation of what the behaviours involve names the lines that put each watch in its set, pace the sync loop, decide, signal and carry each behaviour's error to what the tool prints, with the declarations of the values returned on the way.")
	lines := r.corrected()
	switch {
	case len(runs) > 0:
		v.fact(FactCitedLinesRun, fmt.Sprintf("%d of the %d lines it finds run in %s, or are the value of a use that does", len(runs), len(r.Grep), of), runs...)
	case len(r.Grep) > 0:
		lines, runsIn := fmt.Sprintf("none of the %d lines it finds", len(r.Grep)), fmt.Sprintf(" runs in %s, or is the value of a use that does", of)
		text := lines + runsIn
		// Why a grep for the sentinel cannot find the eviction: the
		// decision signals with a field, which only the client makes
		// into an error. Its lines are cited in the text, so the grep's
		// are too.
		if d, ok := r.signalDecision(); ok && d.ConsequencePos.Filename != "" && r.Signal.Client != nil && r.Signal.Client.Return.Filename != "" && r.Signal.Client.Err.Object != "" {
			text = fmt.Sprintf("%s (%s)%s. The eviction signals with a field, `%s` ({%d}), and no error; the client's `Err()` turns that field, when it is not 0, into `%s` ({%d})",
				lines, placeholders(len(idle)), runsIn, strings.TrimSpace(d.ConsequencePos.Text), len(idle), report.ShortName(r.Signal.Client.Err.Object), len(idle)+1)
			idle = append(idle, d.ConsequencePos, r.Signal.Client.Return)
		}
		v.fact(FactNoCitedLineRuns, text, idle...)
	}
	r.verdict("citation", "", q, v)
	r.Corrected = lines
}

// corrected are the lines a citation of what the behaviours involve names,
// in the order of their ways: where the compaction sets the compaction
// revision and the sync loop reads it and takes the behind watchers, each
// way's decision, signal, marks, wire and client steps, the tool's printed
// lines with where it makes the message it prints and chooses its exit
// status, and after a step that returns a value, the value's declaration
// (the sentinel's definition after the read's return of it, the client's
// error after Err()'s).
func (r *analysis) corrected() []signal.Pos {
	var lines []signal.Pos
	add := func(p signal.Pos) {
		if p.Filename != "" && !hasPos(lines, p) {
			lines = append(lines, p)
		}
	}
	var def signal.Pos
	for i, st := range r.Sites {
		if st.Kind == sites.Definition {
			def = r.sitePos(i)
			break
		}
	}
	s := r.Signal
	// What the tool prints, per chain: the printed lines' own lines, then
	// where the message is made and the exit status chosen.
	var tool *signal.ToolRun
	toolDone := func() {
		if tool == nil {
			return
		}
		if s.Tool != nil && tool == s.Tool.Get {
			// The read's error on its way to what the tool prints: the
			// client library's log of the failed call, then its
			// conversion of the wire error to the client's value.
			if rt := s.Retry; rt != nil {
				add(rt.Log)
			}
			if cv := s.Convert; cv != nil && len(cv.Path) > 0 {
				add(cv.Path[len(cv.Path)-1])
			}
		}
		for _, l := range tool.Stderr {
			add(l.Built)
		}
		add(tool.ExitFrom)
		tool = nil
	}
	for _, c := range r.Chains {
		toolDone()
		if t := s.Tool; t != nil {
			for _, run := range []*signal.ToolRun{t.Watch, t.Get} {
				if run == nil {
					continue
				}
				for _, st := range c.Steps {
					for _, l := range run.Stderr {
						if st.Kind == "tool" && st.At.Filename == l.Pos.Filename && st.At.Line == l.Pos.Line && st.Label == fmt.Sprintf("%s prints %q", t.Name, l.Text) {
							tool = run
						}
					}
				}
			}
		}
		for _, st := range c.Steps {
			switch {
			case st.ID == behindGroup:
				// The placement at open: the start revision the store is
				// handed, the test that decides the set, and both adds.
				for _, p := range r.placementLines(st.At) {
					add(p)
				}
				continue
			case st.Kind == "decision" && r.decisionOf(st.At):
				// The pace of the passes the decision runs in, what a pass
				// does to a behind watcher's progress, and its moves out
				// of the behind group: what decides the outcome by hand.
				for _, p := range r.pacingLines() {
					add(p)
				}
				for _, p := range r.progressLines() {
					add(p)
				}
				for _, p := range r.movedOutLines() {
					add(p)
				}
				add(st.At)
			case st.ID == compactionRev || st.Join != "":
				// The compaction's write of the revision, the sync loop's
				// read of it and its take of the behind watchers.
				add(st.At)
				continue
			case st.Kind == "decision", st.Kind == "signal", st.Kind == "mark", st.Kind == "wire", st.Kind == "client", st.Kind == "tool":
				add(st.At)
			case st.ID == closesToolLoop:
				// The close that ends the tool's loop, so that it prints
				// its last line.
				add(st.At)
				continue
			default:
				continue
			}
			if st.Kind == "signal" && strings.HasPrefix(st.Label, "the store returns") {
				add(def)
			}
			if cl := s.Client; st.Kind == "client" && cl != nil && st.At.Filename == cl.Return.Filename && st.At.Line == cl.Return.Line {
				if cv := s.Convert; cv != nil {
					add(cv.Watch)
				}
			}
		}
	}
	toolDone()
	return lines
}

// placementLines are the lines that put a watch in a set when it opens:
// how the receive loop hands the store the start revision (its rewrite of
// 0, where it has one), the store's test, the add to the caught-up group,
// and the add to the behind group (behind).
func (r *analysis) placementLines(behind signal.Pos) []signal.Pos {
	var out []signal.Pos
	if st := r.Signal.StartArg; st.Rewritten() {
		out = append(out, st.Base, st.If, st.Set)
	} else if st != nil {
		out = append(out, st.Call)
	}
	if synced := r.syncedAdd(); synced != nil {
		out = append(out, synced.CondDef, synced.Pos)
	}
	return append(out, behind)
}

// syncedAdd is where the open path puts a caught-up watch: its add to the
// group other than the behind one.
func (r *analysis) syncedAdd() *signal.GroupAccess {
	open, ok := r.behindAdd()
	if !ok {
		return nil
	}
	for i, a := range r.Signal.Groups {
		if a.Group != r.Study.Signal.Behind && a.Method == "add" && a.Func == open.Func {
			return &r.Signal.Groups[i]
		}
	}
	return nil
}

// decisionOf reports whether p is the signal's decision (the sync loop's
// comparison).
func (r *analysis) decisionOf(p signal.Pos) bool {
	d, ok := r.signalDecision()
	return ok && d.Filename == p.Filename && d.Line == p.Line
}

func hasPos(list []signal.Pos, p signal.Pos) bool {
	for _, x := range list {
		if x.Filename == p.Filename && x.Line == p.Line {
			return true
		}
	}
	return false
}

// lineToken is the position of a grep hit.
func (r *analysis) lineToken(h study.GrepHit) (p token.Position) {
	abs, _ := r.Source.File(h.Repo)
	p.Filename, p.Line, p.Column = abs, h.Line, 1
	return p
}

// errorUses finds, on the paths from the watch-open entry to uses of the
// sentinel, the send loop's calls that lead there, and what it does with
// their error.
func (r *analysis) errorUses() {
	sg := r.Study.Signal
	send, err := r.Graph.Func(sg.Send)
	if err != nil {
		return
	}
	ei := r.EntryIndex(sg.Open)
	if ei < 0 {
		return
	}
	for _, p := range r.Pairs {
		if p.Entry != ei || len(p.Paths) == 0 {
			continue
		}
		for _, h := range p.Paths[0] {
			if h.Caller != send || h.Site == nil {
				continue
			}
			uses, dropped := r.Signal.ErrorUses(h.Site)
			r.ErrorUses = append(r.ErrorUses, ErrorUse{Site: p.Site, Entry: sg.Open,
				Call: signal.Pos{Position: h.Pos, Func: send}, Callee: callpath.Name(h.Callee), Uses: uses, Dropped: dropped,
				Verdict: p.Verdict, Because: p.Because, at: h.Site.Pos()})
			break
		}
	}
}

// condPos is where condition c is written, with its text.
func (r *analysis) condPos(c *feasible.Cond) signal.Pos {
	if c == nil || !c.Pos.IsValid() {
		return signal.Pos{}
	}
	return signal.Pos{Position: r.Graph.Fset().Position(c.Pos), Func: c.Func, Text: c.Text}
}

// whenCallsSucceed qualifies a tool's exit that holds only when the calls
// its evaluation did not follow succeed (closing its client among them).
func whenCallsSucceed(run *signal.ToolRun) string {
	if run.CallsSucceed {
		return ", when its other calls succeed"
	}
	return ""
}

// inBranchOf reports whether call at is in the body (holds) or the else
// branch of the if statement whose whole condition c is a part of; ok is
// false when it is in neither, or c is no part of one.
func inBranchOf(c *feasible.Cond, at token.Pos) (holds, ok bool) {
	if c.Whole == "" || c.Func == nil || !at.IsValid() {
		return false, false
	}
	syn := c.Func.Syntax()
	if syn == nil {
		return false, false
	}
	ast.Inspect(syn, func(n ast.Node) bool {
		ifs, isIf := n.(*ast.IfStmt)
		if ok || !isIf || c.Pos < ifs.Cond.Pos() || c.Pos >= ifs.Cond.End() {
			return !ok
		}
		switch {
		case ifs.Body.Pos() <= at && at < ifs.Body.End():
			holds, ok = true, true
		case ifs.Else != nil && ifs.Else.Pos() <= at && at < ifs.Else.End():
			holds, ok = false, true
		}
		return false
	})
	return holds, ok
}
