package errcompacted

import (
	"fmt"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/signal"
	"github.com/srctrace/srctrace/trace/target"
)

// The keys of the facts of the verdicts in this file: the exercise's
// prediction in its own terms (sets), and what a student of the exercise
// looks for beyond its claims.
const (
	// sets: which set each watcher is put in, which set the decision runs
	// over, what moves a watcher between the sets, and so which dies.
	FactPrediction          = "prediction"
	FactSetWords            = "set-words"
	FactCurrentInSynced     = "current-in-synced"
	FactBehindInUnsynced    = "behind-in-unsynced"
	FactDecidedOverUnsynced = "decided-over-unsynced"
	FactLeavesUnsynced      = "leaves-unsynced"
	FactLeavesSynced        = "leaves-synced"
	FactUnsyncedEnds        = "unsynced-ends"
	FactBehindDies          = "behind-dies"
	// replay: the timing by hand, in two sentences.
	FactByHand = "by-hand"
	// evict: the compaction revision is set before the removal is
	// scheduled: the comparison is by number.
	FactSetBeforeRemoval = "set-before-removal"
	// cleanup: what becomes of the canceled watcher on the server.
	FactMarkedCompacted  = "marked-compacted"
	FactForgottenOnClose = "forgotten-when-stream-cancels"
	// choose: the decision's branch for many unsynced watchers.
	FactAtMostPerPass = "at-most-per-pass"
	// closing: the client's side after the cancel, and the server's.
	FactClientCloses      = "client-closes"
	FactServerKeepsStream = "server-keeps-stream"
	FactServerEndsStream  = "server-ends-stream"
	// step 4's two halves, decided together.
	FactStep4Holds = "torn-down-and-refused"
	FactStep4Fails = "not-torn-down-or-not-refused"
	// The evicted watch's stream ends mid-flight all the same: the client
	// ends it.
	FactTornByClient = "torn-down-by-client"
	// refused: what is refused at open, and how the client shows it.
	FactRefusedOnlyOther = "refused-at-open-for-other-reasons"
	FactRefusalShown     = "refusal-shown-as-eviction"
	// Where no refusal has the compaction's text: a negative start
	// revision goes to the store.
	FactNegativeAccepted = "negative-start-accepted"
	// retry: the client library's own line, and why it does not retry.
	FactClientWarns    = "client-warns-once"
	FactClientWarnLine = "client-warn-line"
	// minimum: what the cancel's compaction revision means.
	FactCancelCarriesMin = "cancel-carries-minimum"
	// json: what etcdctl's JSON output prints for the cancel.
	FactJSONCancel = "json-prints-cancel"
	// probes: what can answer a probe's request before the line it shows
	// (the key is followed by ":" and the probe's ID).
	FactReturnsFirst = "returns-first"
)

// say adds a sentence to the verdict and records it as a fact whose text
// cites its own lines ({0}, {1}, ... for %L in text, in order).
func (s *sentence) say(key, text string, at ...signal.Pos) {
	ft := text
	for i := range at {
		ft = strings.Replace(ft, "%L", fmt.Sprintf("{%d}", i), 1)
	}
	s.facts = append(s.facts, Fact{Key: key, Text: ft, Lines: at})
	s.add(text, at...)
}

// verdicts adds the verdicts of this file.
func (r *analysis) moreVerdicts() {
	r.setsVerdict()
	r.cleanupVerdict()
	r.chooseVerdict()
	r.closingVerdict()
	r.refusedVerdict()
	r.retryVerdict()
	r.minimumVerdict()
	r.jsonVerdict()
	r.typedVerdict()
	r.probesVerdict()
}

// typedVerdict: the commands the exercise types that are no command's
// name, and what the tool runs for them, read from its command tree.
func (r *analysis) typedVerdict() {
	sg := r.Study.Signal
	q := fmt.Sprintf("Does %s have each command the exercise types?", sg.Tool.Name)
	v := &sentence{}
	var tl *target.Tool
	if e := r.Study.Tgt().Errors; e != nil {
		tl = e.Tool
	}
	if tl == nil || len(sg.Tool.Typed) == 0 {
		r.verdict("typed", "", q, v)
		return
	}
	cmds := signal.NewCommands(r.Graph, r.Pkgs, nil)
	tree := signal.CommandTree{Root: tl.Root, Command: tl.Command, Use: tl.Use, Add: tl.Add, Run: tl.Run, Aliases: tl.Aliases}
	set, prefix := signal.Pos{}, false
	if tl.PrefixMatching != "" {
		set, prefix = cmds.SetTrue(tl.PrefixMatching)
	}
	lib := tl.PrefixMatching
	if i := strings.LastIndex(lib, "."); i > 0 {
		lib = lib[:i]
	}
	lib = lib[strings.LastIndex(lib, "/")+1:]
	sep := ""
	for _, typed := range sg.Tool.Typed {
		res, found, err := cmds.Resolve(tree, typed, prefix)
		if err != nil {
			v.add(fmt.Sprintf("%sThe analysis does not read %s's commands in this release (%v).", sep, tl.Name, err))
			break
		}
		switch {
		case !found:
			v.add(sep)
			v.fact(FactTypedUnknown, fmt.Sprintf("The exercise types `%s %s`, which runs none of %s's commands in this release", tl.Name, typed, tl.Name))
			v.add(".")
			sep = " "
		case res.ByPrefix && res.UseAt.Filename != "":
			v.add(sep)
			sep = " "
			v.say(FactTypedByPrefix, fmt.Sprintf("The exercise types `%s %s`: %s has no command of that name. It runs `%s` (`%s: %q`, %%L), the only command whose name begins with `%s`, because %s turns on %s's prefix matching when it starts: %s (%%L).", tl.Name, typed, tl.Name, res.Path, tl.Use, res.Use, typed, tl.Name, lib, quote(set.Text)), res.UseAt, set)
		}
	}
	r.verdict("typed", "", q, v)
}

// probesVerdict says, for each of the lab's probes, what can answer its
// request before the cited line it is to reach: a return with no error,
// on its way there, under a test of the request's value.
func (r *analysis) probesVerdict() {
	q := "Does each of the lab's probes reach the line it shows on every run?"
	v := &sentence{}
	for _, b := range r.Study.Behaviours {
		if !b.Probe {
			continue
		}
		var e *signal.Earlier
		for _, h := range r.Grep {
			if h.Site < 0 || r.Sites[h.Site].Func == nil || !r.runs(b, h.Site) || e != nil {
				continue
			}
			for _, name := range b.Entries {
				from := r.entryFunc(name)
				if from == nil || e != nil {
					continue
				}
				for _, p := range r.Graph.Paths(from, r.Sites[h.Site].Func, 1) {
					for _, hop := range p {
						if xs := r.Signal.ReturnsBefore(hop); len(xs) > 0 && e == nil {
							e = &xs[0]
						}
					}
				}
			}
		}
		if e == nil {
			continue
		}
		text := fmt.Sprintf("unless `%s` ({0}) holds first: `%s` then returns with no error", e.Cond.Text, short(e.Cond.Func))
		at := []signal.Pos{e.Cond}
		if e.Over != "" {
			text += fmt.Sprintf(", from `%s`", e.Over)
			if len(e.Kept) > 0 {
				k := e.Kept[0]
				text += fmt.Sprintf(", which `%s` appends to ({1})", short(k.Func))
				at = append(at, k.Pos)
				if call, ok := r.firstCaller(k.Func); ok {
					text += fmt.Sprintf(", called in %s ({2})", funcWords(call.Func))
					at = append(at, call)
				}
			}
		}
		v.fact(FactReturnsFirst+":"+b.ID, text, at...)
	}
	r.verdict("probes", "", q, v)
}

// firstCaller is the first call of fn in the call graph, by position.
func (r *analysis) firstCaller(fn *ssa.Function) (signal.Pos, bool) {
	n := r.Graph.CG.Nodes[fn]
	if n == nil {
		return signal.Pos{}, false
	}
	var best *signal.Pos
	for _, e := range n.In {
		if e.Site == nil {
			continue
		}
		p := r.callPos(r.Graph.Hop(e))
		if best == nil || p.Filename < best.Filename || (p.Filename == best.Filename && p.Offset < best.Offset) {
			best = &p
		}
	}
	if best == nil {
		return signal.Pos{}, false
	}
	return *best, true
}

// funcWords names a function as the source writes it: a func literal as
// "a func literal in `f`".
func funcWords(fn *ssa.Function) string {
	name := report.ShortName(callpath.Name(fn))
	if base, kind := report.Literal(name); kind != "" {
		return "a " + kind + " in `" + base + "`"
	}
	return "`" + name + "`"
}

// quote quotes a line of code for a sentence: trimmed, in backticks.
func quote(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "{")
	// A literal folded onto one line: pb.T{ F: x, } is pb.T{F: x}.
	s = strings.ReplaceAll(s, "{ ", "{")
	s = strings.ReplaceAll(s, ", }", "}")
	s = strings.ReplaceAll(s, " }", "}")
	return "`" + strings.TrimSpace(s) + "`"
}

// setsVerdict answers the exercise's prediction in its own terms: which
// set each watcher is put in when it opens and where that is decided,
// which set the decision runs over, what moves a watcher between the sets,
// and so which one dies.
func (r *analysis) setsVerdict() {
	sg := r.Study.Signal
	s := r.Signal
	q := "Of the two watchers, which dies and why, in terms of the set each is in?"
	v := &sentence{}
	d, okD := r.signalDecision()
	rd, okR := r.behindRead(d)
	open, okO := r.behindAdd()
	if !okD || !okR || !okO {
		v.add("The analysis does not find which set of watchers the decision runs over in this release.")
		r.verdict("sets", r.behaviourWith(sg.Sync, ""), q, v)
		return
	}
	behind := fieldName(sg.Behind)
	var synced *signal.GroupAccess
	for i, a := range s.Groups {
		if a.Group != sg.Behind && a.Method == "add" && a.Func == open.Func {
			synced = &s.Groups[i]
			break
		}
	}
	if synced != nil {
		// The prediction first, in one sentence: which set each watcher
		// is put in, which set is checked, and so which dies.
		unless := ""
		if r.Signal.StartArg.Rewritten() {
			unless = ", unless the store's revision grows as it opens,"
		}
		v.say(FactPrediction, fmt.Sprintf("Terminal 1 (`--rev=A`) goes to `%s`, the only set checked against compactions, and dies if a compaction goes past its progress (`%s`) before it catches up; terminal 2 (no `--rev`) goes to `%s`%s and survives while there.", behind, d.Revision, fieldName(synced.Group), unless))
		v.add(" ")
		// The words the prediction uses, said once: what each set holds
		// and what a watcher's progress is.
		v.say(FactSetWords, fmt.Sprintf("Here `%s` holds the watchers the sync loop still has to catch up and `%s` those caught up. A watcher's progress is the next revision the store will look at for it (while it is behind, the next revision it needs): what the store has sent it, or holds for it to send, is below. At open it is the start revision asked for, or the store's revision plus 1. While it is behind, a pass of the sync loop that sends it all it read sets it past the revisions the pass read, whether or not they held events for it. A pass that sends it only the first part of a long history sets it to the first revision left out. Once it is caught up, each change sent to it sets it past that change.", behind, fieldName(synced.Group)))
		v.add(" ")
		r.currentInSynced(v, synced)
		v.add(" ")
	}
	v.say(FactBehindInUnsynced, fmt.Sprintf("A watch from a revision at or below the current one, as terminal 1's (`--rev=A`), is put in `%s`: %s (%%L).", behind, quote(open.Text)), open.Pos)
	v.add(" ")
	v.say(FactDecidedOverUnsynced, fmt.Sprintf("Only `%s` is checked against a compaction: each pass of the sync loop takes watchers from it (%s, %%L) and cancels those with `%s` (%%L), once their channel has room. These notes call that comparison the decision.", behind, quote(rd.Text), d.Text), rd.Pos, d.Pos)
	// Moves out of the behind group: to the other group when caught up,
	// to the victims when the channel is full; back from the victims.
	var caught []signal.Pos
	for _, a := range r.groupAddsIn(rd.Func) {
		if a.Group != sg.Behind {
			caught = append(caught, a.Pos)
		}
	}
	var victimIn, victimInSynced, back, restore []signal.Pos
	var markIn, markInSynced *signal.Write
	victims := ""
	clears := map[*ssa.Function]bool{}
	if x := s.Victims; x != nil {
		victims = fieldName(x.Field)
		for i, w := range x.Marks {
			if w.Func == rd.Func {
				victimIn = append(victimIn, w.Pos)
				if markIn == nil {
					markIn = &x.Marks[i]
				}
			} else {
				victimInSynced = append(victimInSynced, w.Pos)
				if markInSynced == nil {
					markInSynced = &x.Marks[i]
				}
			}
		}
		for _, w := range x.Clears {
			clears[w.Func] = true
			for _, a := range r.groupAddsIn(w.Func) {
				if a.Group == sg.Behind {
					back = append(back, a.Pos)
				}
			}
		}
	}
	for _, a := range s.Groups {
		if a.Group == sg.Behind && a.Method == "add" && a.Func != open.Func && !clears[a.Func] {
			restore = append(restore, a.Pos)
		}
	}
	if len(caught) > 0 {
		text := fmt.Sprintf("A watcher leaves `%s` for `%s` once it has caught up (%s).", behind, fieldName(caught0(s, rd.Func, sg.Behind)), strings.TrimSuffix(strings.Repeat("%L, ", len(caught)), ", "))
		at := append([]signal.Pos{}, caught...)
		if markIn != nil && victims != "" {
			text += fmt.Sprintf(" It leaves it for `%s` when its channel is full: marked, %s (%%L)", victims, quote(markIn.Text))
			at = append(at, markIn.Pos)
			if del, ok := r.groupCallAfter(rd.Func, sg.Behind, "delete", markIn.Pos); ok {
				text += fmt.Sprintf(", it is deleted, %s (%%L)", quote(del.Text))
				at = append(at, del.Pos)
			}
			if hand, ok := r.victimHandOff(rd.Func); ok {
				text += fmt.Sprintf(", and handed to %s (%%L)", quote(hand.Text))
				at = append(at, hand)
			}
			if len(back) > 0 {
				text += fmt.Sprintf("; from `%s` it goes back to `%s` while it still lags (%%L)", victims, behind)
				at = append(at, back[0])
			}
			text += "."
		}
		v.say(FactLeavesUnsynced, text, at...)
		v.add(" ")
	}
	// Out of every set: canceled by the decision, or with its watch.
	cancelFn := r.cancelFunc()
	var ends []string
	var endsAt []signal.Pos
	if cl := s.Cleanup; cl != nil && cl.OnReceiver && cl.Delete.Filename != "" {
		e := fmt.Sprintf("when the decision cancels it, %s (%%L)", quote(cl.Delete.Text))
		if c := s.Choose; c != nil && c.Max.Value != "" {
			e += fmt.Sprintf(", while fewer than %s are behind", c.Max.Value)
		}
		ends = append(ends, e)
		endsAt = append(endsAt, cl.Delete)
	}
	if del, ok := r.groupCallIn(cancelFn, sg.Behind, "delete"); ok {
		ends = append(ends, fmt.Sprintf("when its watch is canceled, %s (%%L)", quote(callText(del.Text))))
		endsAt = append(endsAt, del.Pos)
	}
	if len(ends) > 0 {
		v.say(FactUnsyncedEnds, fmt.Sprintf("It leaves `%s` for no set %s.", behind, strings.Join(ends, ", or ")), endsAt...)
		v.add(" ")
	}
	if synced != nil && (len(victimInSynced) > 0 || len(restore) > 0) {
		name := fieldName(synced.Group)
		var parts []string
		var at []signal.Pos
		if markInSynced != nil && victims != "" {
			p := fmt.Sprintf("for `%s` when its channel is full (%s, %%L", victims, quote(markInSynced.Text))
			at = append(at, markInSynced.Pos)
			if del, ok := r.groupCallAfter(markInSynced.Func, synced.Group, "delete", markInSynced.Pos); ok {
				p += fmt.Sprintf("; %s, %%L", quote(del.Text))
				at = append(at, del.Pos)
			}
			parts = append(parts, p+")")
		}
		if len(restore) > 0 {
			parts = append(parts, fmt.Sprintf("for `%s` in `%s` (%%L)", behind, short(restore0(s, restore[0]))))
			at = append(at, restore[0])
		}
		if del, ok := r.groupCallIn(cancelFn, synced.Group, "delete"); ok {
			parts = append(parts, fmt.Sprintf("for no set when its watch is canceled (%s, %%L)", quote(callText(del.Text))))
			at = append(at, del.Pos)
		}
		last := ""
		if len(parts) > 1 {
			last = ", or " + parts[len(parts)-1]
			parts = parts[:len(parts)-1]
		}
		v.say(FactLeavesSynced, fmt.Sprintf("A watcher leaves `%s` %s%s.", name, strings.Join(parts, ", "), last), at...)
		v.add(" ")
		progress := d.Revision
		v.say(FactBehindDies, fmt.Sprintf("So terminal 1 dies if the compaction passes its progress `%s` while it is in `%s`; terminal 2 is compared only if it leaves `%s`.", progress, behind, name))
	}
	r.verdict("sets", r.behaviourWith(sg.Sync, ""), q, v)
}

// currentInSynced says which set terminal 2's watch (no start revision)
// is put in: what the receive loop hands the store for it, and the
// condition the store decides by.
func (r *analysis) currentInSynced(v *sentence, synced *signal.GroupAccess) {
	name := fieldName(synced.Group)
	cond := ""
	var condAt []signal.Pos
	if synced.CondDef.Text != "" {
		cond = fmt.Sprintf(", since %s (%%L)", quote(synced.CondDef.Text))
		condAt = []signal.Pos{synced.CondDef}
	}
	st := r.Signal.StartArg
	if st.Rewritten() {
		// The store never sees 0: the loop hands it one past the revision
		// it read, which is above the current one unless the store's
		// revision grows between its read and the store's (a write or a
		// restore from a snapshot).
		text := fmt.Sprintf("Terminal 2's watch (no `--rev`) asks for start revision 0, but the store never sees 0: when `%s`, the receive loop sets %s (%%L)", st.If.Text, quote(st.Set.Text))
		at := []signal.Pos{st.Set}
		if st.Base.Filename != "" {
			text += fmt.Sprintf(", where %s (%%L)", quote(st.Base.Text))
			at = append(at, st.Base)
		}
		text += fmt.Sprintf(". The store puts it in `%s`, %s (%%L)%s, as that start revision is above the current one. If the store's revision grows between the two reads of it (as a write that lands between them makes it grow), it waits in `%s` for the sync loop's next pass instead.", name, quote(synced.Text), cond, fieldName(r.Study.Signal.Behind))
		at = append(append(at, synced.Pos), condAt...)
		if rp := r.Study.Signal.Replay; rp != nil && rp.Quiet {
			text += " The exercise writes nothing while its watches open."
		}
		v.say(FactCurrentInSynced, text, at...)
		return
	}
	text := fmt.Sprintf("A watch with start revision 0, as terminal 2's (no `--rev`), is put in `%s`: %s (%%L)%s", name, quote(synced.Text), cond)
	at := append([]signal.Pos{synced.Pos}, condAt...)
	if st != nil && st.Call.Filename != "" {
		text += fmt.Sprintf("; the receive loop hands the store the request's `%s` as it is (%%L)", st.Arg)
		at = append(at, st.Call)
	}
	v.say(FactCurrentInSynced, text+".", at...)
}

// groupCallAfter is the first call of method on group in fn after p.
func (r *analysis) groupCallAfter(fn *ssa.Function, group, method string, p signal.Pos) (signal.GroupAccess, bool) {
	for _, a := range r.Signal.Groups {
		if a.Func == fn && a.Group == group && a.Method == method && a.Filename == p.Filename && a.Offset > p.Offset {
			return a, true
		}
	}
	return signal.GroupAccess{}, false
}

// groupCallIn is the first call of method on group in fn.
func (r *analysis) groupCallIn(fn *ssa.Function, group, method string) (signal.GroupAccess, bool) {
	if fn == nil {
		return signal.GroupAccess{}, false
	}
	for _, a := range r.Signal.Groups {
		if a.Func == fn && a.Group == group && a.Method == method {
			return a, true
		}
	}
	return signal.GroupAccess{}, false
}

// victimHandOff is fn's call of a function that appends to the victims.
func (r *analysis) victimHandOff(fn *ssa.Function) (signal.Pos, bool) {
	x := r.Signal.Victims
	if x == nil || fn == nil {
		return signal.Pos{}, false
	}
	adds := map[*ssa.Function]bool{}
	for _, w := range x.Adds {
		adds[w.Func] = true
	}
	for _, e := range r.Graph.Out(fn) {
		if e.Callee != nil && adds[e.Callee.Func] {
			return r.callPos(r.Graph.Hop(e)), true
		}
	}
	return signal.Pos{}, false
}

// cancelFunc is the function that cancels a watcher: the one whose branch
// on the compacted flag ends it.
func (r *analysis) cancelFunc() *ssa.Function {
	if c := r.Signal.Cleanup; c != nil {
		for _, f := range c.Reads {
			if f.Ends {
				return f.Func
			}
		}
	}
	return nil
}

// callText is the call a line makes, without the if around it.
func callText(line string) string {
	line = strings.TrimSpace(line)
	for _, p := range []string{"} else if ", "else if ", "if "} {
		line = strings.TrimPrefix(line, p)
	}
	return strings.TrimSpace(strings.TrimSuffix(line, "{"))
}

// caught0 is the group a watcher that has caught up is added to in fn.
func caught0(s *signal.Result, fn *ssa.Function, behind string) string {
	for _, a := range s.Groups {
		if a.Func == fn && a.Method == "add" && a.Group != behind {
			return a.Group
		}
	}
	return ""
}

// restore0 is the function of the group access at p.
func restore0(s *signal.Result, p signal.Pos) *ssa.Function {
	for _, a := range s.Groups {
		if a.Filename == p.Filename && a.Line == p.Line {
			return a.Func
		}
	}
	return nil
}

// removalOrder is the compaction's order of setting the revision and
// scheduling the removal, in the function the compaction's way reaches.
func (r *analysis) removalOrder() (signal.Order, bool) {
	x := r.Signal.Removal
	if x == nil || len(x.Orders) == 0 {
		return signal.Order{}, false
	}
	// The caller nearest a dispatch of a proposed request (a compaction
	// request is applied there): a restore the dispatch may also reach
	// resumes a compaction scheduled before, by another caller.
	for _, bd := range r.Boundaries {
		if bd.Dispatch == nil {
			continue
		}
		best, hops := -1, 0
		for i, o := range x.Orders {
			ps := r.Graph.Paths(bd.Dispatch, o.First.Func, 1)
			if len(ps) > 0 && (best < 0 || len(ps[0]) < hops) {
				best, hops = i, len(ps[0])
			}
		}
		if best >= 0 {
			return x.Orders[best], true
		}
	}
	// Else the caller of the writer on the shortest way from a
	// behaviour's setup (the compaction's way in).
	for _, b := range r.Study.Behaviours {
		for _, e := range b.Setup {
			from := r.entryFunc(e)
			if from == nil {
				continue
			}
			for _, p := range r.Graph.Paths(from, x.Write.Func, 1) {
				last := p[len(p)-1]
				for _, o := range x.Orders {
					if o.First.Func == last.Caller {
						return o, true
					}
				}
			}
		}
	}
	return x.Orders[0], true
}

// removalFact says that the compaction revision is set before what it
// compacts is removed: the decision compares numbers.
func (r *analysis) removalFact(v *sentence) {
	x := r.Signal.Removal
	o, ok := r.removalOrder()
	if !ok {
		return
	}
	v.add(" ")
	v.say(FactSetBeforeRemoval, fmt.Sprintf("The compaction sets that number before it removes anything: %s (%%L) runs in `%s`, called (%%L) before `%s` (%%L), which only schedules the removal, %s (%%L). From then on a range below that number is refused, whether or not the removal has run (events a watcher was sent, or a batch read for it, before then still reach it). The watcher dies by that number, whether or not the removal has run by then.", quote(x.Write.Text), short(x.Write.Func), calleeText(o.Then.Text), quote(x.Schedule.Text)), x.Write, o.First, o.Then, x.Schedule)
}

// calleeText is the callee of a call line ("s.compact(...)" of
// "return s.compact(trace, rev)"), as the line writes it.
func calleeText(line string) string {
	line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "return "))
	if i := strings.Index(line, "("); i > 0 {
		return line[:i]
	}
	return line
}

// cleanupVerdict: what becomes of a watcher the decision cancels, on the
// server.
func (r *analysis) cleanupVerdict() {
	s := r.Signal
	q := "What does the server do with a watcher it cancels for a compaction?"
	v := &sentence{}
	c := s.Cleanup
	if c == nil || c.Delete.Filename == "" {
		v.add("The analysis does not find what the server does with a canceled watcher in this release.")
		r.verdict("cleanup", "", q, v)
		return
	}
	v.say(FactMarkedCompacted, fmt.Sprintf("The decision marks the watcher, %s (%%L), and removes it from the group it ran over, %s (%%L).", quote(c.Mark.Text), quote(c.Delete.Text)), c.Mark, c.Delete)
	var read *signal.FlagRead
	for i, f := range c.Reads {
		if f.Ends {
			read = &c.Reads[i]
			break
		}
	}
	if read == nil {
		r.verdict("cleanup", "", q, v)
		return
	}
	// Who reaches the branch: the receive loop (a cancel request) and the
	// stream's end.
	var from []signal.Pos
	if recv, err := r.Graph.Func(r.Study.Signal.Recv); err == nil && read.Func != nil {
		if ps := r.Graph.Paths(recv, read.Func, 1); len(ps) > 0 {
			from = append(from, r.callPos(ps[0][0]))
		}
	}
	if open := r.entryFunc(r.Study.Signal.Open); open != nil && read.Func != nil {
		for _, p := range r.Graph.Paths(open, read.Func, 3) {
			if len(p) > 0 && !hasPos(from, r.callPos(p[0])) && !r.calls(p[0], r.Study.Signal.Recv) {
				from = append(from, r.callPos(p[0]))
				break
			}
		}
	}
	v.add(" ")
	if len(from) == 2 {
		v.say(FactForgottenOnClose, fmt.Sprintf("Its watch stream holds it until the stream cancels it, on the client's cancel request (%s, %%L) or when the stream ends (%s, %%L); `%s` then has a branch for it, %s (%%L), taken when no group holds it.", quote(from[0].Text), quote(from[1].Text), short(read.Func), quote(read.Text)), from[0], from[1], read.Pos)
	} else {
		v.say(FactForgottenOnClose, fmt.Sprintf("When its stream cancels it, `%s` has a branch for it, %s (%%L), taken when no group holds it.", short(read.Func), quote(read.Text)), read.Pos)
	}
	r.verdict("cleanup", "", q, v)
}

// calls reports whether the hop's callee is, or is a closure that starts,
// the function named name.
func (r *analysis) calls(h callpath.Hop, name string) bool {
	if h.Callee == nil {
		return false
	}
	if callpath.Name(h.Callee) == name {
		return true
	}
	for _, e := range r.Graph.Out(h.Callee) {
		if e.Callee != nil && callpath.Name(e.Callee.Func) == name {
			return true
		}
	}
	return false
}

// chooseVerdict: the decision's branch for many unsynced watchers.
func (r *analysis) chooseVerdict() {
	s := r.Signal
	q := "What changes when many watchers are behind at once?"
	v := &sentence{}
	c := s.Choose
	if c == nil || c.Copy.Filename == "" || c.Decide.Filename == "" || c.Max.Declared == nil {
		v.add("The analysis does not find a limit to the watchers a pass takes in this release.")
		r.verdict("choose", "", q, v)
		return
	}
	behind := fieldName(r.Study.Signal.Behind)
	at := []signal.Pos{*c.Max.Declared, c.Cond}
	text := fmt.Sprintf("A pass takes at most %s watchers (%s, %%L). With %s or more in `%s`, %s fails (%%L)", c.Max.Value, quote(c.Max.Declared.Text), c.Max.Value, behind, quote(c.Cond.Text))
	if c.Range.Filename != "" {
		text += fmt.Sprintf(": the pass copies %s of them, picked by ranging over a map (%%L), into a new group, %s (%%L)", c.Max.Value, quote(c.Copy.Text))
		at = append(at, c.Range, c.Copy)
	} else {
		text += fmt.Sprintf(": the pass copies %s of them into a new group, %s (%%L)", c.Max.Value, quote(c.Copy.Text))
		at = append(at, c.Copy)
	}
	text += ". The decision then runs over those only (%L)."
	at = append(at, c.Decide)
	extra := " A behind watcher may then wait more than one pass."
	if cl := s.Cleanup; cl != nil && cl.OnReceiver {
		extra = fmt.Sprintf(" A behind watcher may then wait more than one pass, and %s deletes a canceled one from the copy, not from `%s`: a later pass can send it the cancel again.", quote(cl.Delete.Text), behind)
	}
	v.say(FactAtMostPerPass, text+extra, at...)
	r.verdict("choose", "", q, v)
}

// closingVerdict: what the client does after it has handed out the cancel.
func (r *analysis) closingVerdict() {
	s := r.Signal
	q := "What does the client do after it hands out a compaction cancel, and what does it send the server?"
	v := &sentence{}
	rc := s.Receive
	if rc == nil || rc.Closing == nil || rc.Stop.Filename == "" || rc.Close == nil {
		v.add("The analysis does not follow the client's close in this release.")
		r.verdict("closing", "", q, v)
		return
	}
	c := rc.Closing
	text := fmt.Sprintf("The client closes its side: the substream returns once it has handed out the cancel (`%s`, %%L), and the loop's %s runs %s (%%L).", rc.Stop.Text, quote(rc.Close.Case), quote(rc.Close.Text))
	at := []signal.Pos{rc.Stop, rc.Close.Pos}
	last := c.Last.Filename != "" && c.Defer.Filename != "" && c.Ends.Filename != ""
	if last {
		text += fmt.Sprintf(" When that was the stream's last watch, as %s's single watch is, the loop returns (`%s`, %%L) and its deferred %s cancels the stream's context, %s (%%L), which ends the stream.", r.Study.Signal.Tool.Name, c.Last.Text, quote(c.Defer.Text), quote(c.Ends.Text))
		at = append(at, c.Last, c.Ends)
	}
	if c.Request.Filename != "" && c.Send.Filename != "" {
		lead := " Otherwise"
		if !last {
			lead = " Then"
		}
		typ, fields, _ := strings.Cut(quote(c.Request.Text), "{")
		fields = strings.TrimSuffix(strings.TrimSuffix(fields, "`"), "}")
		text += fmt.Sprintf("%s, for a watch with an ID (%s, %%L), it sends the server a %s` (%%L) for `%s`, with %s (%%L).", lead, quote(c.If.Text), typ, fields, quote(c.Send.Text))
		at = append(at, c.If, c.Request, c.Send)
	}
	v.say(FactClientCloses, text, at...)
	r.keepsStream(v, last)
	r.halves(v)
	r.verdict("closing", "", q, v)
}

// halves decides step 4's two halves together: the evicted watch's
// stream torn down mid-flight (this verdict's facts) and the reopened
// watch refused at open (the reopen verdict's).
func (r *analysis) halves(v *sentence) {
	var torn, kept, refused, accepted *Fact
	for i, f := range v.facts {
		switch f.Key {
		case FactServerEndsStream:
			torn = &v.facts[i]
		case FactServerKeepsStream:
			kept = &v.facts[i]
		}
	}
	for _, vd := range r.Verdicts {
		if vd.ID != "reopen" {
			continue
		}
		for i, f := range vd.Facts {
			switch f.Key {
			case FactCheckedAtOpen:
				refused = &vd.Facts[i]
			case FactAcceptedThenCanceled:
				accepted = &vd.Facts[i]
			}
		}
	}
	switch {
	case torn != nil && refused != nil:
		f := joinFacts("both hold: the evicted watch's stream is torn down: ", *torn, ". The reopened watch is refused at open: ", *refused)
		v.fact(FactStep4Holds, f.Text, f.Lines...)
	case kept != nil && accepted != nil:
		// The step does not say who tears the stream down: the client
		// does, so that half holds; the reopen's does not.
		f := joinFacts("the reopened watch is not refused at open: ", *accepted, "", Fact{})
		v.fact(FactStep4Fails, f.Text, f.Lines...)
		t := joinFacts("The evicted watch's stream, when that watch was its last, is torn down mid-flight, by the client: it is ", *kept, "", Fact{})
		v.fact(FactTornByClient, t.Text, t.Lines...)
	case kept != nil:
		f := joinFacts("the first half does not hold: the evicted watch's stream is ", *kept, "", Fact{})
		v.fact(FactStep4Fails, f.Text, f.Lines...)
	case accepted != nil:
		f := joinFacts("the second half does not hold: the reopened watch is not refused at open: ", *accepted, "", Fact{})
		v.fact(FactStep4Fails, f.Text, f.Lines...)
	}
}

// joinFacts writes a's text after lead and b's after mid, with both
// facts' lines, each cited where its fact cites it ({N}), or after it.
func joinFacts(lead string, a Fact, mid string, b Fact) Fact {
	out := Fact{Text: lead}
	add := func(f Fact) {
		text := f.Text
		if !placeholder.MatchString(text) && len(f.Lines) > 0 {
			text += " (" + placeholders(len(f.Lines)) + ")"
		}
		base := len(out.Lines)
		out.Text += placeholder.ReplaceAllStringFunc(text, func(m string) string {
			var n int
			fmt.Sscanf(m, "{%d}", &n)
			return fmt.Sprintf("{%d}", n+base)
		})
		out.Lines = append(out.Lines, f.Lines...)
	}
	add(a)
	if mid != "" || b.Text != "" {
		out.Text += mid
		add(b)
	}
	return out
}

// keepsStream records that the server does not tear the stream down for
// a compaction: the decision cancels one watch, the send loop marks that
// response canceled and acts on the mark nowhere (no branch of it reads
// the mark), and the client, its last watch gone, ends the stream itself.
func (r *analysis) keepsStream(v *sentence, last bool) {
	s := r.Signal
	d, ok := r.signalDecision()
	if !ok || d.ConsequencePos.Filename == "" || !last {
		return
	}
	mark := r.sendMark()
	if mark == nil {
		return
	}
	if len(mark.Ends) > 0 {
		v.fact(FactServerEndsStream, fmt.Sprintf("the server's send loop returns, ending the stream, when `%s` ({0})", mark.Ends[0].Text), mark.Ends[0])
		return
	}
	if len(mark.Branches) > 0 {
		return // it acts on the mark, in a way this analysis does not follow
	}
	c := s.Receive.Closing
	def := strings.TrimSpace(mark.Read.Text)
	v.fact(FactServerKeepsStream, fmt.Sprintf("not torn down by the server. The server cancels only the one watch, `%s` ({0}); its send loop marks that response canceled, `%s` ({1}), and goes on, no branch of it reading the mark. The client ends the stream itself, its last watch gone: `%s` ({2}), then `%s` ({3})", strings.TrimSpace(d.ConsequencePos.Text), def, c.Last.Text, strings.TrimSpace(c.Ends.Text)), d.ConsequencePos, mark.Read, c.Last, c.Ends)
}

// sendMark is the send loop's mark of a canceled response: the write of
// the cancel flag from a test of a signal field; nil when it has none.
func (r *analysis) sendMark() *signal.Mark {
	send, err := r.Graph.Func(r.Study.Signal.Send)
	if err != nil {
		return nil
	}
	var mark *signal.Mark
	for i, m := range r.Signal.Marks {
		if m.Write.Func == send {
			mark = &r.Signal.Marks[i]
		}
	}
	return mark
}

// refusedVerdict: what the open path refuses, and how the client shows
// the refusal that has the compaction's text.
func (r *analysis) refusedVerdict() {
	s := r.Signal
	q := "Which watches are refused at open, and how does the client show the refusal with the compaction's text?"
	v := &sentence{}
	recv, err := r.Graph.Func(r.Study.Signal.Recv)
	if err != nil {
		return
	}
	openReach := r.Graph.Reachable(recv)
	compared := false
	for _, c := range s.Comparisons {
		compared = compared || openReach[c.Func]
	}
	var parts []string
	var at []signal.Pos
	var same *signal.Refusal
	for i, x := range s.Refusals {
		if x.Func != recv {
			continue
		}
		cond := x.Cond
		where := x.CondAt
		if where.Filename == "" {
			where = x.Pos
		}
		if x.Def.Filename != "" {
			parts = append(parts, fmt.Sprintf("when `%s` after %s (%%L)", cond, quote(x.Def.Text)))
			at = append(at, x.Def)
		} else {
			parts = append(parts, fmt.Sprintf("when `%s` (%%L)", cond))
			at = append(at, where)
		}
		if s.Client != nil && x.Text != "" && x.Text == s.Client.Err.Text {
			same = &s.Refusals[i]
		}
	}
	if created := r.createResponse(recv); created.Filename != "" {
		parts = append(parts, fmt.Sprintf("when the store's `Watch` fails (%s, %%L)", quote(created.Text)))
		at = append(at, created)
	}
	if len(parts) == 0 {
		r.verdict("refused", "", q, v)
		return
	}
	text := "The receive loop refuses a watch in its create response only " + strings.Join(parts, ", ") + "."
	if !compared {
		text += " None of these compares the start revision with the compaction revision."
	}
	if i := strings.LastIndex(text, ", when"); i >= 0 {
		text = text[:i] + ", or when" + text[i+len(", when"):]
	}
	v.say(FactRefusedOnlyOther, text, at...)
	if same == nil {
		v.add(" No request is refused at open with the compaction's text in this release.")
		r.negativeAccepted(v)
		r.verdict("refused", "", q, v)
		return
	}
	x := s.Refused
	t := s.Tool
	if x == nil || t == nil || t.Watch == nil || !t.Watch.Exited || len(t.Watch.Stderr) == 0 {
		r.verdict("refused", "", q, v)
		return
	}
	v.add(" ")
	v.say(FactRefusalShown, fmt.Sprintf("The refusal by `%s` has the compaction's text as its reason. The client shows it as it shows the eviction: it keeps the reason as an error, %s (%%L), hands the user a canceled response with it (%%L), and `Err()` converts it again, %s (%%L). The text stays the same, so %s prints the same %d lines and exits %d.", same.Cond, quote(x.Set.Text), quote(x.Return.Text), t.Name, len(t.Watch.Stderr), t.Watch.Exit), x.Set, x.Hand, x.Return)
	r.verdict("refused", "", q, v)
}

// negativeAccepted says, where no refusal has the compaction's text,
// what becomes of a negative start revision: the receive loop hands it to
// the store as it is (it sets the argument anew only under its test), the
// store's test decides its set, and in the behind group the decision can
// cancel it.
func (r *analysis) negativeAccepted(v *sentence) {
	st := r.Signal.StartArg
	synced := r.syncedAdd()
	d, ok := r.signalDecision()
	if st == nil || st.Init.Filename == "" || synced == nil || synced.CondDef.Filename == "" || !ok {
		return
	}
	text := fmt.Sprintf(" A negative start revision is handed to the store as it is: %s (%%L)", quote(st.Init.Text))
	at := []signal.Pos{st.Init}
	if st.Rewritten() {
		text += fmt.Sprintf(", set anew only when `%s` (%%L)", st.If.Text)
		at = append(at, st.If)
	}
	text += fmt.Sprintf(". The store's %s (%%L) decides its set as for any other; in `%s`, `%s` (%%L) cancels it on a pass where the compaction revision is above its progress, when its channel has room.", quote(synced.CondDef.Text), fieldName(r.Study.Signal.Behind), d.Text)
	at = append(at, synced.CondDef, d.Pos)
	// Its progress can be below 0, so the compaction revision above it
	// can be 0: where the send loop marks a cancel only for a revision
	// that is not 0, the client is not told of that one.
	if mark := r.sendMark(); mark != nil && mark.NonZero {
		text += fmt.Sprintf(" The client is told so only when that revision is not 0: the send loop marks the response canceled by `%s` (%%L). After a compaction to revision 0, the decision ends such a watch on the server and the client is not told it was canceled.", mark.Read.Text)
		at = append(at, mark.Read)
		if init := r.Signal.RevisionInit; init != nil && init.Value < 0 {
			// Before any compaction the field holds the value the store
			// starts it at: below 0, and not 0, so the cancel is marked.
			text += fmt.Sprintf(" Before any compaction, the compaction revision is the value the store starts it at, `%s` (%%L). A start revision below %d is then canceled on such a pass too, and the cancel carries that compaction revision. It is not 0, so the client is told of the cancel, though nothing was compacted.", init.Text, init.Value)
			at = append(at, init.Pos)
		}
	}
	v.add(" ")
	v.say(FactNegativeAccepted, strings.TrimSpace(text), at...)
}

// retryVerdict: the client library's own line on a failed unary call,
// and why it does not try again.
func (r *analysis) retryVerdict() {
	s := r.Signal
	q := "Where does the client library's own log line come from, and why does the client not try the read again?"
	v := &sentence{}
	x := s.Retry
	if x == nil || s.Read == nil {
		v.add("The analysis does not find the client's retry of a failed call in this release.")
		r.verdict("retry", "", q, v)
		return
	}
	text := fmt.Sprintf("Before %s's own line, the client library logs %q at %s level (when its logger prints that level) after each failed attempt of a unary call, as the read's is (%%L).", r.Study.Signal.Tool.Name, x.Msg, strings.ToLower(x.Level))
	at := []signal.Pos{x.Log}
	if code := s.Read.Wire.Code; code != "" && code != x.Code {
		text += fmt.Sprintf(" It does not try again: it returns the error (`%s`, %%L) unless its code is `%s` (`%s`, %%L), and the read's is %s.", x.Stop.Text, x.Code, x.Only.Text, code)
		at = append(at, x.Stop, x.Only)
	}
	v.say(FactClientWarns, text, at...)
	v.fact(FactClientWarnLine, fmt.Sprintf("the client library first logs a line at %s level with %q ({0}), when its logger prints that level", strings.ToLower(x.Level), x.Msg), x.Log)
	r.verdict("retry", "", q, v)
}

// minimumVerdict: the cancel's compaction revision is the lowest revision
// a watch may start from.
func (r *analysis) minimumVerdict() {
	s := r.Signal
	q := "What does the compaction revision the cancel carries mean to the client?"
	v := &sentence{}
	d, ok := r.signalDecision()
	if !ok || d.ConsequencePos.Filename == "" {
		r.verdict("minimum", "", q, v)
		return
	}
	var doc *signal.FieldDoc
	if f := r.Study.Signal.Fields; len(f) > 0 {
		for i, x := range s.Docs {
			if x.Field == f[len(f)-1] {
				doc = &s.Docs[i]
			}
		}
	}
	text := fmt.Sprintf("The cancel carries the compaction revision itself, %s (%%L)", quote(d.ConsequencePos.Text))
	at := []signal.Pos{d.ConsequencePos}
	if doc != nil {
		text += fmt.Sprintf(", and the client's field says what it is: %q (%%L)", doc.Doc)
		// Cited at the comment's own line, where its words are.
		if doc.At.Filename != "" {
			at = append(at, doc.At)
		} else {
			at = append(at, doc.Pos)
		}
	}
	if d.LowestPassing == 0 {
		text += fmt.Sprintf(". It is the lowest positive revision a new watch can start from without being canceled by `%s` (%%L)", d.Text)
		at = append(at, d.Pos)
	}
	v.say(FactCancelCarriesMin, text+".", at...)
	r.verdict("minimum", "", q, v)
}

// jsonVerdict: what the tool's JSON output prints for the cancel, and
// for a refusal at open.
func (r *analysis) jsonVerdict() {
	s := r.Signal
	q := "What does etcdctl's watch print for the cancel with -w json?"
	v := &sentence{}
	x := s.Display
	if x == nil || len(x.Keys) == 0 {
		v.add("The analysis does not follow the tool's JSON output in this release.")
		r.verdict("json", "", q, v)
		return
	}
	name := r.Study.Signal.Tool.Name
	stream := ""
	if x.Stream != "" {
		stream = " on " + strings.ToLower(x.Stream)
	}
	keys := make([]string, 0, len(x.Keys))
	text := fmt.Sprintf("With `-w %s`, %s's watch prints every response it receives, the cancel too: %s (%%L) runs for each", x.Format, name, quote(x.Call.Text))
	at := []signal.Pos{x.Call}
	if x.Via.Filename != "" && x.Via.Func != nil {
		text += fmt.Sprintf("; `%s` calls %s (%%L)", short(x.Via.Func), quote(callText(viaCall(x.Via.Text))))
		at = append(at, x.Via)
		if x.Bound.Filename != "" && x.Bound.Func != nil {
			// The citation right after the name its line holds.
			text += fmt.Sprintf(", and for `-w %s` `%s` makes that `%s` (%%L)", x.Format, short(x.Bound.Func), fieldName(report.ShortName(x.Func.Text)))
			at = append(at, x.Bound)
		}
		text += ", which encodes it with encoding/json"
	} else {
		text += fmt.Sprintf(", and `%s` encodes it with encoding/json", report.ShortName(x.Func.Text))
	}
	// The line that encodes it, where the analysis found it; else the
	// JSON function.
	if x.Marshal.Filename != "" {
		in := ""
		if f := x.Marshal.Func; f != nil && x.Func.Func != nil && f != x.Func.Func {
			// The line is in a function the JSON function calls.
			in = fmt.Sprintf(". It calls `%s` to do so:", short(f))
		} else {
			in = ","
		}
		text += fmt.Sprintf("%s %s (%%L).", in, quote(strings.TrimSpace(x.Marshal.Text)))
		at = append(at, x.Marshal)
	} else {
		text += " (%L)."
		at = append(at, x.Func)
	}
	for i, k := range x.Keys {
		val := "the compaction revision"
		if i > 0 {
			val = "true"
		}
		keys = append(keys, fmt.Sprintf("whose `\"%s\"` is %s (%%L)", k.Key, val))
		at = append(at, k.At)
	}
	text += fmt.Sprintf(" The cancel is a line%s %s.", stream, strings.Join(keys, " and "))
	// The stderr lines and the exit status are made outside the printer.
	if t := s.Tool; t != nil && t.Watch != nil && t.Watch.Exited && len(t.Watch.Stderr) > 0 {
		reach := r.Graph.Reachable(x.Func.Func)
		outside := !reach[t.Watch.ExitPos.Func]
		for _, l := range t.Watch.Stderr {
			outside = outside && !reach[l.Pos.Func]
		}
		if outside {
			text += fmt.Sprintf(" The %d lines on stderr and the exit status %d stay the same: `%s` makes none of them.", len(t.Watch.Stderr), t.Watch.Exit, report.ShortName(x.Func.Text))
		}
	}
	// A refusal at open with the compaction's text, as the client hands
	// it to its user.
	if rf := s.Refused; rf != nil && len(x.Refused) == len(x.Keys) && len(x.Keys) > 0 {
		var same *signal.Refusal
		for i, rr := range s.Refusals {
			if s.Client != nil && rr.Text != "" && rr.Text == s.Client.Err.Text {
				same = &s.Refusals[i]
			}
		}
		var vals []string
		for i, k := range x.Keys {
			if !k.OmitEmpty {
				vals = append(vals, fmt.Sprintf("`\"%s\":%s`", k.Key, x.Refused[i]))
			}
		}
		if same != nil && len(vals) > 0 {
			text += fmt.Sprintf(" A refusal by `%s` prints %s, as the canceled response the client hands its user for it has them (%%L).", same.Cond, strings.Join(vals, " and "))
			at = append(at, rf.Hand)
		}
	}
	v.say(FactJSONCancel, text, at...)
	r.verdict("json", "", q, v)
}

// viaCall is the call a one-line method body makes ("p.p(r)" of
// "func (p *printerRPC) Watch(r *v3.WatchResponse) { p.p(r) }").
func viaCall(line string) string {
	if i := strings.LastIndex(line, "{"); i >= 0 && strings.HasSuffix(strings.TrimSpace(line), "}") {
		return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line[i+1:]), "}"))
	}
	return line
}

// placeholders are {0}, …, {n-1}, listed: the citations of a fact's n
// lines, in its text.
func placeholders(n int) string {
	ps := make([]string, n)
	for i := range ps {
		ps[i] = fmt.Sprintf("{%d}", i)
	}
	return strings.Join(ps, ", ")
}
