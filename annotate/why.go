package annotate

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// WhyDoc composes the answer of `srctrace why` as a document: the object,
// its uses (by name, and through interfaces and function values), and for
// each use the nearest roots that reach it by a path that can run (by
// calls, across the target's hand-offs, or at start-up), what runs each
// root, and the shortest such way.
func WhyDoc(w *report.Why) *report.Doc {
	if w.Text != "" {
		return textWhyDoc(w)
	}
	o := w.Object
	d := &report.Doc{Title: "Why: " + o.Name}
	d.Lead = report.Text{
		report.Plain(fmt.Sprintf("The %s is declared at ", o.Kind)), report.Cite(report.Loc{File: o.File, Line: o.Line}),
		report.Plain(" ("), report.CodeSpan(o.Text), report.Plain(fmt.Sprintf("). Found in etcd %s by type identity, in the %d packages loaded from source: its own, those that import it directly or not, those that hand work across to them, and those of the requests and of the checks made on a request's cost; ", w.Etcd.Version, len(w.Packages))),
		report.Plain("a call that reaches it through an interface method or a function value (as the call graph resolves it) is a use too, marked dynamic. "),
		report.Plain(fmt.Sprintf("Roots are where the code is entered or started (%s); for each use the %d nearest that reach it by a path that can run are kept: by calls; when fewer, across the hand-offs of etcd's architecture that calls do not show%s, with the message each hands off; when none, from a program's main function in its own goroutine (start-up). Beside them, up to %d more, nearest first, whose best way is not decided are listed, marked \"not decided\", each with what it needs beside what is not decided; when no root is kept (by calls or across a hand-off), a main function's way at start-up that is not decided is the last of them, when fewer than %d others are. ", rootKinds(w.Roots), w.Nearest, handOffNames(w.HandOffs), w.Nearest, w.Nearest)),
		report.Plain("A path can run when no branch on it is refuted by what the path fixes or already needs; "),
		report.RefSpan("how a way is judged", "judged"), report.Plain(" lists what the analysis uses, what it counts as a condition, and what it does not see."),
	}
	entry := map[string]report.Entry{}
	for _, e := range w.Entries {
		entry[e.Name] = e
	}
	pairs := map[int][]report.PairPaths{}
	for _, p := range w.Paths {
		pairs[p.Site.Index] = append(pairs[p.Site.Index], p)
	}
	ways := map[[2]string]report.WhyWay{}
	for _, x := range w.Ways {
		ways[[2]string{fmt.Sprint(x.Site), x.Root}] = x
	}
	uses := report.Section{ID: "uses", Title: "Its uses"}
	t := &report.Table{Head: []report.Text{{report.Plain("use")}, {report.Plain("kind")}, {report.Plain("in")}, {report.Plain("nearest roots that reach it, and how")}}}
	for i, s := range w.Sites {
		fn := "(package level)"
		if s.Function != "" {
			fn = report.ShortName(s.Function)
		}
		var rs report.Text
		for j, p := range pairs[i] {
			if j > 0 {
				rs = append(rs, report.Plain("; "))
			}
			rs = append(rs, report.CodeSpan(p.Entry))
			rs = append(rs, report.Plain(" ("+wayPhrase(ways[[2]string{fmt.Sprint(i), p.Entry}], w.HandOffs)))
			if p.Feasible == "only-if" {
				rs = append(rs, report.Plain(", only if"))
			}
			rs = append(rs, report.Plain(")"))
		}
		for _, u := range s.Undecided {
			if len(rs) > 0 {
				rs = append(rs, report.Plain("; "))
			}
			how := undecidedHow(u, w.HandOffs)
			rs = append(rs, report.CodeSpan(u.Root), report.Plain(" ("+how+", not decided)"))
		}
		cell := report.Cell{Text: rs}
		switch {
		case s.Kind == "definition":
			cell = report.Cell{Text: report.Text{report.Plain("the declaration")}}
		case s.Init:
			cell = report.Cell{Text: report.Text{report.Plain("package-level code: it runs once, at package initialisation")}}
		case len(rs) == 0 && s.NoWay != nil && s.NoWay.Because != nil:
			how := "by calls"
			if s.NoWay.By == "hand-off" {
				how = "across the " + s.NoWay.HandOff
			}
			nw := report.Text{report.Plain("no root reaches it by a way that can run: the nearest that reaches it, "), report.CodeSpan(s.NoWay.Root),
				report.Plain(" (" + how + "), has no way that can: ")}
			nw = append(nw, report.CodeText(s.NoWay.Because.Text)...)
			if b := s.NoWay.Because; b.File != "" {
				nw = append(nw, report.Plain(" ("), report.Cite(report.Loc{File: b.File, Line: b.Line}), report.Plain(")"))
			}
			cell = report.Cell{Text: nw, Class: "no"}
		case len(rs) == 0:
			cell = report.Cell{Text: report.Text{report.Plain("no root found: none reaches it by a path that can run, by calls, across the target's hand-offs or from a main function at start-up (it may run through what the analysis does not follow: a library that calls back a function it is handed as an argument, a hand-off the target does not describe, a package that does not import the object's)")}, Class: "unknown"}
		}
		kind := report.Text{report.Plain(s.Kind)}
		if s.Dynamic {
			kind = append(kind, report.Plain(", dynamic: a call through "), report.CodeSpan(s.Via))
		}
		if s.Impl != "" {
			kind = append(kind, report.Plain(", of the implementation "), report.CodeSpan(report.ShortName(s.Impl)))
		}
		t.Rows = append(t.Rows, []report.Cell{
			{Text: report.Text{report.Cite(report.Loc{File: s.File, Line: s.Line})}},
			{Text: kind},
			{Text: report.Text{report.CodeSpan(fn)}},
			cell,
		})
	}
	uses.Blocks = append(uses.Blocks, report.Block{Table: t})
	if short, ok := shortSection(w.User); ok {
		d.Sections = append(d.Sections, short)
	}
	d.Sections = append(d.Sections, uses)

	if rootsSec := whyRoots(w, pairs); len(rootsSec.Blocks) > 0 {
		d.Sections = append(d.Sections, rootsSec)
	}

	waysSec := report.Section{ID: "ways", Title: "The way in to each use"}
	waysSec.Blocks = append(waysSec.Blocks, report.Block{Para: report.Text{report.Plain("Each root is listed with one way to the use and that way's conditions. They belong to the way shown only: another way from the same root (through a nested transaction, say) may need different conditions, or none.")}})
	for i, s := range w.Sites {
		ps := pairs[i]
		if len(ps) == 0 && len(s.Undecided) == 0 {
			continue
		}
		sec := report.Section{ID: fmt.Sprintf("use-%d", i+1), Title: fmt.Sprintf("%s:%d", s.File, s.Line)}
		var shown []shownWay // the ways listed so far in this section
		for _, p := range ps {
			e := entry[p.Entry]
			kind := e.Kind
			if kind == "" {
				kind = e.Found
			}
			head := report.Text{report.StrongSpan(p.Entry), report.Plain(" (" + kind + ", "), report.Cite(report.Loc{File: e.File, Line: e.Line}), report.Plain("): ")}
			head = append(head, pairVerdict(p)...)
			sec.Blocks = append(sec.Blocks, report.Block{Para: head})
			items := crossingItems(p.Crossing)
			if len(p.Ways) > 0 {
				best := p.Ways[0]
				if p.Best > 0 && p.Best < len(p.Ways) {
					best = p.Ways[p.Best]
				}
				hops := best.Hops
				// The steps an earlier way of this use began with (the
				// apply's chain after a hand-off, say) are said once.
				if k, from := sharedStart(shown, hops); k > 0 {
					items = append(items, sameSteps(k, from, hops[0], hops[k-1]))
					hops = hops[k:]
				}
				for _, h := range hops {
					items = append(items, hopItem(h))
				}
				shown = append(shown, shownWay{root: p.Entry, hops: best.Hops})
			}
			if len(items) > 0 {
				sec.Blocks = append(sec.Blocks, report.Block{List: &report.List{Ordered: true, Items: items}})
			}
		}
		for _, u := range s.Undecided {
			how := undecidedHow(u, w.HandOffs)
			head := report.Text{report.StrongSpan(u.Root), report.Plain(" (" + how + "): ")}
			if u.Because != nil {
				head = append(head, report.CodeText(u.Because.Text)...)
				if b := u.Because; b.File != "" && !citesLines(b.Text) {
					head = append(head, report.Plain(" ("), report.Cite(report.Loc{File: u.Because.File, Line: u.Because.Line}), report.Plain(")"))
				}
			} else {
				head = append(head, report.Plain("not decided"))
			}
			head = append(head, undecidedBeside(u)...)
			sec.Blocks = append(sec.Blocks, report.Block{Para: head})
			items := crossingItems(u.Crossing)
			for _, h := range u.Hops {
				items = append(items, hopItem(h))
			}
			if len(items) > 0 {
				sec.Blocks = append(sec.Blocks, report.Block{List: &report.List{Ordered: true, Items: items}})
			}
		}
		waysSec.Sections = append(waysSec.Sections, sec)
	}
	if len(waysSec.Sections) > 0 {
		d.Sections = append(d.Sections, waysSec)
	}
	if w.User != nil {
		d.Sections = append(d.Sections, userSection(w.User, "user"))
	}
	if len(w.Absent) > 0 {
		var items []report.Text
		for _, a := range w.Absent {
			items = append(items, report.Text{report.Plain(a)})
		}
		d.Sections = append(d.Sections, report.Section{ID: "absent", Title: "Hand-offs not crossed",
			Blocks: []report.Block{{Para: report.Text{report.Plain("The target describes these hand-offs, but the code loaded from source does not have them, so no way crosses them:")}},
				{List: &report.List{Items: items}}}})
	}
	d.Sections = append(d.Sections, judgedSection())
	return d
}

// judgedSection says how the analysis judges whether a way can run: what
// it uses, what a hand-off hands on, what is a condition of state, and
// what it does not see.
func judgedSection() report.Section {
	list := func(items ...string) report.Block {
		var ts []report.Text
		for _, it := range items {
			ts = append(ts, report.CodeText(it))
		}
		return report.Block{List: &report.List{Items: ts}}
	}
	para := func(s string) report.Block { return report.Block{Para: report.CodeText(s)} }
	return report.Section{ID: "judged", Title: "How a way is judged", Appendix: true, Blocks: []report.Block{
		para("A path can run when no branch on it is refuted by what the path fixes or already needs. The analysis uses:"),
		list(
			"a value the path fixes, and an earlier branch;",
			"what an earlier call whose result the path tests returned (an error variable declared with errors.New or fmt.Errorf that nothing assigns is never nil);",
			"a call through an interface whose value has the callee's method only on ways the path rules out;",
			"what a function a defer statement runs finds in a field its maker writes: what one of the maker's writes left there, under the branches that lead to it, or the literal's value;",
			"a relation the store keeps between two of its fields, or of one field: that it is never below 0 (every write of it stores a constant not below 0, adds a value not below 0 to its own, raises it to a value a branch found above it, or stores what a channel receives whose every send sends such a value: a variable that only ever holds one, or a part of what a call returns only past a test that refuses a value below 0, as a decoder that panics on a negative revision), or that it never goes down (every write of it adds to its own value, raises it, or gives it its first value when its struct is made), so that a read of it is never below an earlier read of the same struct's field on the path;",
			"a lock held between two reads;",
			"two reads of a field made within one run of a function whose runs come one at a time (the apply job, which one worker of a FIFO scheduler runs), when only such runs write the field, or, besides them, only a call of the function that the target (srctrace's description of etcd's architecture) says returns before those runs begin (the server's making, before its loops start; taken only where that function cannot reach the runs itself), and this run does not write it between the reads. When the field is written elsewhere too, a way that needs it changed is not decided, and those writes are named;",
			"across a hand-off by a channel send, the case of the receiving select that takes the message: a way whose first call is in another case of that select runs on that case's turn, not on the message's, and is no;",
			"the same way, a field that such a run raised to a value (a write under a test that found it below the value) and writes nowhere after: it is at least that value at a later read in the run;",
			"the same way, a field that never goes down but through writes that may lower it (a restore's reset of the current revision): when such runs, or the call the target names, make every one of those writes, and this run makes none between two reads, it does not go down between them, whatever adds to it there (a read view's revision and, after the view ended, a write transaction's, in one apply run);",
			"the same way, two lookups of one key in a map that only such runs change (a check that returns unless it finds the lease a request names, then the attach to that lease), with the branches of each way into a join that such a check leads to;",
			"a loop that counts up to a bound the path fixes: over a slice a message leaves empty, it makes no pass;",
			"what an integer the code computes is never below (overflow aside): a length is at least 0, a sum at least the sum of its parts' floors (a put's cost, 256 plus the lengths of its key and value, is above 0), a call at least the least of its returns; and a sum a loop carries from a constant start, only added to, each part never below 0, exceeds its start by no less than any one part, so a way that needs the sum at most its start cannot hand the loop an element whose part is above 0 (a test that refuses any transaction whose cost is above 0 lets no put by);",
			"a pointer the way reads a field through is not nil there: a way runs without a panic (a method call on it is not such a read);",
			"a root that a framework calls is handed pointers that are not nil: a gRPC method's request (its generated handler decodes each into a message it allocates), an HTTP handler's request; so is a request that a proposal of such a root carries;",
			"a way through a wrapper's method that its own test refuses (the capped applier's `Txn`): the same way through the wrapped method needs the wrapper not installed (see the last item below);",
			"across a hand-off, what the sender tested of the request it hands off (a field it does not change after the test).",
		),
		para("Across a hand-off:"),
		list(
			"What a typed hand-off's receiver dispatches is a request one of its senders made. So a way through the dispatch that is handed no request (the raft loop's scheduled apply job) is checked with each request a sender makes, and can run when one of them can take it. That is when every sender's way hands off a literal the analysis follows; where one hands on a value it changed, the way takes whatever a sender may hand it. A request this release's code does not make, such as one from a member or a log of another release, or one written into the log by hand, is not considered.",
			"What an untyped hand-off hands its receiver (the batch of committed entries and the snapshot that the raft loop's scheduled job hands the apply) is server state, as a goroutine's parameters are. A way that passes no dispatch (a restore from a snapshot) needs its branches on it (that the batch holds a snapshot). On a way through the dispatch, what is handed is taken to carry the request, and its tests (that the batch holds entries this member has not applied, that the entry is a normal one with data) are not listed.",
		),
		para("What is a condition of state, listed in an only-if:"),
		list(
			"A pass of a loop over a slice or a map of server state, or over a map the path made and handed only to calls given nothing of the request, which fill it from what the server holds (the keys a restore reads back): it is then not empty. The only-if cites the value where the way reads it and names the loop that ranges over it.",
			"The case a select takes, where the way waits outside a loop (a handler that goes on only once the apply catches up, not when its timer fires first; a renew that returns once the lease's revoke has finished, not once the lessor is demoted): \"only if the select takes its case `<-h.waitch()`\", or, where it does not block, its case `default` (a server that is not stopping); so, on a leg that hands a message off by a send that is a case of such a select, which may take another case or its default (a watcher's channel with no room), is that the select takes the send's case. A select in a loop (the raft loop's, a stream's send loop) is not listed: which case comes first on each pass is not followed. Nor is the test that ends a loop whose passes set again what it tests (`for leader == nil`, a wait that reads the leader on each pass): every run that leaves the loop finds it so.",
			"An entry of a map that a struct the path made holds is the client's choice, not server state, when only the client's requests fill it: each write stores a value of the request, or a constant under a branch on the request.",
			"A branch that compares a part of the request with server state is the client's choice, unless, on the runs that take it, what the path checked earlier leaves that part one value. Then it is a condition of state, and the only-if says the value, what fixes it and what the branch then asks of the state.",
			"When a value the way reads can come from several places (the returns of a call whose result the way tests, or the writes a deferred function may find), each is possible only under the branches that lead to it. If the way can run with only one of them, the branches of server state that lead to that one are listed among its conditions; with several, those that lead to every one of them (a call that fails two ways, each after one test of state). They are marked \"in `call(...)`, whose result the way tests\" when they lie inside that call. A branch that calls a function given part of the request is not listed: what it computes of the request is not followed.",
			"A way that calls a method through an interface, of a type the program makes in one place only and only under a branch of state, needs that branch to have been taken when the value was made: it is listed with the way's conditions, though no step of the way takes it.",
			"So, when the call reads the value from a field that one function sets, is each branch under which that function sets the field to a value whose method cannot lead on to the way (an applier that, while an alarm is on, refuses every request of the kind the way makes): it must not have been taken when the field was last set. A later wrapper whose method is the wrapped value's keeps the value, and one whose own method cannot lead on either keeps it out.",
			"So is each branch under which it sets the field to a value whose method leads on to the way only past a test of its own (an applier that, while an alarm is on, refuses a transaction whose cost is above 0), as one or the other: that branch not taken when the field was last set, or else that test passed where the way calls the method, which the analysis does not decide; or as the branch alone, when the way through that method cannot pass that test.",
			"Where two or more ways inside a function come together before the way goes on (the end of an if statement whose body can go on too), the way comes by one of them: the last branch of state on each, with what that one takes from where the ways part: its branches of state, the checks of the request it passes, and, for a join it passes there whose ways in are branches of state or waits of state, one of that join's ways in, in parentheses, \"only if either not `s.isLeader()`, or else `errorspkg.Is(err, lease.ErrNotPrimary)` holds and `s.ensureLeadership()` holds, (either not `le == nil` and `s.FeatureEnabled(…)` holds, or `s.waitAppliedIndex()` returns no error) and passes `s.checkLeaseRenew(ctx, id)`\" (a join there whose ways in are otherwise, such as a check of the request made on one side only, is left out), leaving out any that what the path has checked before the join rules out, and, at the way's end, any that the conditions it needs after the join alone contradict (a callee on the way that returns early under that way's branch); one is kept where anything else takes part in ruling it out (what every element of a slice passes, a value's other alternatives, a lock, an invariant); the one left, when one is, is listed alone. A way in past a test that a call of server state returned no error is that call's success, once per call as written, with each place it is made, any of which the way may pass (\"515 or 520\"), after the branches of state: \"only if either not `le == nil` and `s.FeatureEnabled(…)` holds, or else `s.waitAppliedIndex()` returns no error\" (a lease's renewal, in a release where it waits for the apply on some of its ways and not on others). Not where a way comes in with no branch of its own, where the branches cover every run (an if statement whose body always goes on), at the end of a loop, where the branches are parts of one condition (its whole is listed instead), or where a way in is neither a branch of state nor the request's (when each is the request's, the way asks one of them of the request, below). Where some are branches of state and the others the request's, the way needs one of them, the request's worded so, each as its whole if statement's condition when the way passes all of its parts: \"only if either not `rr == nil || len(rr.KVs) == 0`, or else the request makes `req.IgnoreValue || req.IgnoreLease` false\" (a put's check that reads the key back, and needs it found, only for a request that keeps its value or its lease).",
		),
		para("What a way needs of the request:"),
		list(
			"After the verdict of a way that can run, \"for a request that makes `c` true (file:line)\" lists the branches the way takes that depend on what the request asks (and the whole condition of an early return it must not meet, `a && b`, when a part of it is the request's), those that lead to a value it reads (the revision a read replaces by the current one when it is 0 or less), and, in a loop over a slice the way goes past, a branch into a return that it needs not taken for every element (\"for every element of `s.hashes`\": a kept hash at the request's revision), in the order the way meets them, each with the outcome the way needs: a part of the request compared with a constant or with server state (the state's side may need a history, such as a compaction already done), a kind of request, an option it asks for. For a root that starts itself (the raft loop), the request is the one it applies, as a sender made it.",
			"The request includes what comes with it: the caller's credentials, in its context (what a permission check reads). \"passes `check(…)`\" (cited at the line that calls it) is a check the way needs to return no error: a call whose only result used is an error, given part of the request (its validation), a call given only the request's context, whatever else it returns (a wait for a leader within the request's deadline), or a call of server state given part of it (a permission check of the caller, a quota's check of what it costs), or given a struct the function may have filled with part of it before the call (the credentials an applier keeps from the request's header, `&aa.authInfo`), or a function value that closes over part of it (a check of the keys a read asks for, handed down to the function that runs it). \"fails `check(…)`\" is one the way needs to return an error: a way that goes on only when it does (a listing that fails the caller's permission check), on the way itself or inside a call whose result the way tests; so is a call of state the analysis follows, given part of the request, whose error the way needs though it uses its other results (a forward of a renewal to the leader, which a lease the request names and no member holds makes fail). Where two ways come together before the way goes on and each comes by the request's choice (a serializable read, or a linearizable one past the wait for the read index), the way asks one of them: \"either makes `r.Serializable` true (…), or else passes\" the wait (…), and the items of such a list are set apart by semicolons. There a call whose other results the function uses only after the way has left it is a check too (a lease's time-to-live checks the caller may list the lease's keys only when the request asks for them, and compares the revision that check returns only after it has the answer: \"either makes `r.Keys` false (…), or else passes `s.checkLeaseTimeToLive(…)`\"). A check that the way meets before the request's dispatch, inside branches that the request's kind decides (an applier that checks the caller's permission for an administrator's request only), is the request's too. What the check tests inside is not listed: it decides by the request and by the state it reads (whether authentication is on, say), and the branches of state it needs are in the only-if.",
			"Not listed: any other test of an error (a stream's receive, a context's own error, a match of an error against a variable); on a way handed a request, a test of what carries it that the way meets before the request's dispatch (that a batch of entries is not empty); a branch an earlier one already decides (that the operations of a transaction found read-only are ranges); and a test in a loop that is not the one branch into a return. So the list says what the way takes, not every test a request must pass. A branch on what a function computed of the request is listed as the test of its result (`readOnly`), not as what the request must be; a test of a value computed of something the path makes (the size of the proposal it marshals, which holds the request and an ID the server makes) is a condition of state, in the only-if.",
		),
		para("What it does not use:"),
		list(
			"the code of a package of etcd's that it does not load from source (listed at the top: the object's, its importers' and the hand-offs' senders'): a call into it (the lessor's methods, seen from a package the lessor's does not import) goes no further, so a way through it (a lease's revoke, which deletes the lease's keys and so notifies the watchers) is not found. Why of an error's text loads the packages of every object the text names, so it may find such a way that why of one of them by name does not;",
			"a request members send each other over the network, other than the hand-offs named at the top (a follower's forwarding of a lease's renewal or time-to-live to the leader, whose handler serves either by the request's path, which the analysis does not follow across the network): its handler is a root of its own, not reached from the sender's;",
			"a second hand-off from a receiving side that reaches the use by calls, only by ways that cannot run (the apply job, whose writes notify the watchers): the study's notes follow it, why does not (its legs run through such code far more often: why of an error's text and why of the error's name would answer differently);",
			"which goroutine runs what, beyond the rules above: that what runs at start-up outside the server's making, which the target declares, is done before the apply job starts (a goroutine that making starts, say);",
			"in a gRPC root's way, the server's interceptors, which gRPC runs before the handler and which can refuse the call (on a learner member, say, or for a client that asks for a leader while there is none): a way begins at the handler. What those of the loaded code test is said once, under what runs each root, with where the server is built with them; others (a metrics library's, one the server's caller passes) are not followed;",
			"what a map or another structure keeps true across requests (that the lease a key's index names is one the lessor holds, say); of two maps it finds only the relation below, and never uses it to refute a way;",
			"what a value read back from stored data can be, beyond what the code that decodes it refuses (a revision a restore decodes from the store's keys is not below 0, as its decoder panics on one that is, and may be anything above).",
		),
		para("So a way may still be shown, or an only-if name a condition, that never holds. Where the analysis cannot decide, it says so. These ways are not decided:"),
		list(
			"a way that can run only with a field below 0 that every other write keeps at or above 0, or, for a field that every write of it keeps from going down but one or more that may lower it, only if it went down between two reads of it: it names the writes the analysis does not show to keep it so;",
			"a way that needs a field read above a later read of such a field, when a write of the first stores at most an earlier read of the second plus less (a change's revision, the revision its transaction began at plus one, carried to a watcher), or a value a sender handed off that it read so (the oldest of the revisions a compactor appended to its list). A value that write leaves cannot be; which write left the value read, or that the read it carries is of the same struct's field, is not decided;",
			"a way that needs such a value above a later read when its sender computed it as such a read less another field (a revision a compactor read, less the number it keeps): it can only with that field below 0, and the reason says whether every write of that field keeps it at or above 0. Not where every write of that field stores a field of the configuration the server is made with (what a program gives the function the target says makes the server, read before any call is given it), through the functions that hand it on: a program, or what parses a command line into the configuration (not followed), may give any value, so the way is one of state, and the condition it needs says that it holds only with that field below 0 (\"only if `rev > s.currentRev`, where the sender handed off `rev := rc.rg.Rev() - rc.retention`\" …, for the revision compactor's retention);",
			"a way that needs a key missing from a map when the key is a value, which the way needs non-zero, read from a second map, and every put into the second map stores a value that a branch just before it found to be a key of the first (a lease's ID, which the lessor records in its map of attached keys, `itemMap`, only after finding the lease in `leaseMap`): it names the writes that remove keys from the first map, which the analysis does not show leave every value of the second a key of the first;",
			"a way that needs the second of two such lookups to miss what the first found, when the map is also changed outside those runs and the server's making the target declares, when the two reach it through different fields (one struct is not shown), or when, on some of the way's runs, the second key is state the path reads (a stored key's lease) rather than the first;",
			"a way that needs a key missing from a map when the key is a value of a map the path made and handed to calls that fill it from what the server holds (a restore's keys' leases, read back from stored data): whether that data can name a key the first map lacks (a lease the lessor, restored from the same data, does not hold) is not decided: what stored data holds is not followed;",
			"a way that tests the request where a function of the path may first call, beside the way, a function handed the request or a part of it (by a pointer, or in a struct that holds one) that rewrites a field the test reads from what the field held, or a field of what a check the way needs is handed: what the call leaves there is not followed, and the reason names the call, the branch it is called under and the field, unless that call is a filter the analysis reads (below). A call that stores in such a field a value not computed from it (a reset to nil, say), one handed it only inside an interface value, one that changes a slice's elements without storing the field, a store made more than two calls below the call beside the way, a call started in a goroutine, and a decoder that fills a struct its caller has just made are not followed: the test is then taken as the request's. Of a check's arguments only those that carry the request count (not, say, a trace it logs to).",
		),
		para("A filter beside the way: a call such as the above whose every write of the field stores what a function given the field's slice alone returns, and whose run makes one such write into the struct it is handed on every way it returns by (not in a goroutine, nor past a recover), that function keeping in place the elements for which one test of each takes one outcome (it stores them at an index `j` that starts at 0 and grows by 1 after each store, then returns `s[:j]` of that slice), such as v3.6's apply dropping a transaction's ranges when no one on the member waits for their result. Every element it leaves is one the slice held. A call is not read as a filter where other code the way may run between it and the test may write the field, or what the test reads of the element (a store, or a call of code that may), or where it is made in a loop with the way's next step and not before it on every pass: the way is then not decided, as above. Where the way's test of an element that a loop over the slice reaches, read after the call from the same struct the call is handed through the path's calls, is that same test (or one that asserts another concrete type of the same part of the element), and needs an element the filter drops, the way needs the branch the call is made under not taken, naming the filter, its test and the way's (a part of that branch that tests whether what the call is handed is nil is left out: the way reads through it, so it is never nil there); on such a way the checks it needs read the request as sent. Where it needs an element the filter keeps, the call changes nothing it asks of the request. Any other test of what the filter leaves (a check the way needs passed that loops over the slice, such as a permission check of each operation, its length, an element at a fixed place) the way asks of what the filter leaves where it runs: \"passes `check(…)` (…; where `filter(…)` (…), a filter called under `…`, runs: of what it leaves in `T.F`)\". Where it needs an element the filter drops and the filter is called on every run of the way before the test (the call's block dominates the way's next step, and comes before it in the step's own block), the way cannot run: no, naming the filter and its test. The way is not decided when its test reads an element not shown to come from what the filter is handed (a transaction nested in another, which the filter does not reach), or of the slice as read before the call; when it needs an element the filter drops and a function the way runs from the call to the test calls itself (v3.6's checkTxn, for a transaction nested in another: the element may be one of a nested transaction's, which the filter keeps whole, on a way the search does not take, as it takes no call twice), or the filter is called under branches the analysis does not name as one condition; or when it needs a check failed on what the filter leaves. On a way already not decided for another reason, a check it needs passed of what a filter leaves is qualified all the same; its other tests of what such a call leaves are listed as of the request as sent."),
		para("A way that needs the error of a call of server state names it among its conditions, \"only if `call(…)` returns an error\", whether the analysis follows the call or not (one through an interface of many implementations, or too deep), unless it lists a branch inside the call that leads to that error (\", in `call(…)`, whose result the way tests\"); one that needs an error it reads otherwise (what a deferred function finds in a field) names the test, \"only if not `ar.Err == nil`\". An error that a call given part of the request returns is not named a condition of state: the request may make it fail (where the analysis follows the call, the way asks it of the request, \"fails `call(…)`\"). Where none of the code such a call may run is loaded from source, though it is etcd's own (the auth store's or the lessor's methods, seen from a package their packages do not import), the condition says that whether it can fail is not known; of two ways otherwise alike, one without such a condition is shown first."),
	}}
}

// crossingItems are the steps of a chain of hand-offs: each leg's calls,
// then the hand-off, with what it hands off and who runs it.
func crossingItems(cs []report.Crossing) []report.Text {
	var items []report.Text
	for _, c := range cs {
		for _, h := range c.Hops {
			items = append(items, hopItem(h))
		}
		hand := report.Text{report.Plain("hands off by the " + c.Boundary + " at "), report.Cite(report.Loc{File: c.File, Line: c.Line})}
		if len(c.Message) > 0 {
			hand = append(hand, report.Plain(", a message that sets "), report.CodeSpan(strings.Join(c.Message, ", ")))
			if c.MessageAt != nil && c.MessageAt.Text != "" {
				hand = append(hand, report.Plain(", made by "), report.CodeSpan(c.MessageAt.Text), report.Plain(" ("), report.Cite(*c.MessageAt), report.Plain(")"))
			} else if c.MessageAt != nil {
				hand = append(hand, report.Plain(" (made at "), report.Cite(*c.MessageAt), report.Plain(")"))
			}
		}
		if c.Feasible == "no" || c.Feasible == "unknown" {
			hand = append(hand, report.Plain(": "))
			hand = append(hand, verdictSpans(c.Feasible, c.Because)...)
		}
		hand = append(hand, report.Plain("; "), report.CodeSpan(c.To), report.Plain(" runs it"))
		items = append(items, hand)
	}
	return items
}

// shownWay is a way a use's section lists: its root and its calls.
type shownWay struct {
	root string
	hops []report.Hop
}

// minShared is how many calls two ways must begin with alike for the
// second to refer to the first.
const minShared = 4

// sharedStart is how many calls hops begins with that the first way of
// shown that begins with the most of them does too (at least minShared:
// else 0), and that way's root.
func sharedStart(shown []shownWay, hops []report.Hop) (int, string) {
	best, from := 0, ""
	for _, w := range shown {
		k := 0
		for k < len(w.hops) && k < len(hops) && sameHop(w.hops[k], hops[k]) {
			k++
		}
		if k > best {
			best, from = k, w.root
		}
	}
	if best < minShared {
		return 0, ""
	}
	return best, from
}

func sameHop(a, b report.Hop) bool {
	return a.Function == b.Function && a.File == b.File && a.Line == b.Line && a.Column == b.Column && a.Goroutine == b.Goroutine && a.Dynamic == b.Dynamic
}

// sameSteps is the item that stands for the k calls a way shares with
// the one from root listed above it.
func sameSteps(k int, root string, first, last report.Hop) report.Text {
	return report.Text{report.Plain(fmt.Sprintf("the same %d calls as the way from ", k)), report.CodeSpan(root), report.Plain(" above, "),
		report.CodeSpan(report.ShortName(first.Function)), report.Plain(" to "), report.CodeSpan(report.ShortName(last.Function)),
		report.Plain(", called at "), report.Cite(report.Loc{File: last.File, Line: last.Line})}
}

// hopItem is one call of a way.
func hopItem(h report.Hop) report.Text {
	t := report.Text{report.CodeSpan(report.ShortName(h.Function)), report.Plain(", called at "), report.Cite(report.Loc{File: h.File, Line: h.Line})}
	switch {
	case h.Goroutine:
		t = append(t, report.Plain(" (a go statement)"))
	case h.Dynamic:
		t = append(t, report.Plain(" (dynamic)"))
	}
	return t
}

// wayPhrase says how a root gets to a use, in a few words; hs are the
// hand-offs the answer follows.
func wayPhrase(x report.WhyWay, hs []report.Boundary) string {
	var s string
	switch x.By {
	case "hand-off":
		var legs []string
		for i, h := range x.HandOffs {
			l := "the " + h
			if i < len(x.Messages) && x.Messages[i] != "" {
				l += " of " + aKind(x.Messages[i]) + " " + messageNoun(hs, h)
			}
			legs = append(legs, l)
		}
		s = "across " + strings.Join(legs, ", then ")
	case "start-up":
		s = "at start-up, in its own goroutine"
	default:
		s = "by calls"
	}
	if x.Dynamic {
		s += "; dynamic"
	}
	return s
}

// whyRoots says what runs each root kept.
func whyRoots(w *report.Why, pairs map[int][]report.PairPaths) report.Section {
	sec := report.Section{ID: "roots", Title: "What runs each root"}
	used := map[string]bool{}
	for _, ps := range pairs {
		for _, p := range ps {
			used[p.Entry] = true
			for _, c := range p.Crossing {
				used[c.To] = true
			}
		}
	}
	// A root whose way is not decided is shown among the ways too.
	for _, s := range w.Sites {
		for _, u := range s.Undecided {
			used[u.Root] = true
			for _, c := range u.Crossing {
				used[c.To] = true
			}
		}
	}
	var items []report.Text
	for _, e := range w.Entries {
		if !used[e.Name] {
			continue
		}
		it := report.Text{report.CodeSpan(e.Name), report.Plain(" ("), report.Cite(report.Loc{File: e.File, Line: e.Line}), report.Plain("): " + e.Doc)}
		if e.Starter != nil {
			it = append(it, report.Plain(", at "), report.Cite(*e.Starter))
		}
		for _, h := range e.HandsOff {
			it = append(it, report.Plain("; its ways here hand off by "+h))
		}
		items = append(items, it)
	}
	if len(items) > 0 {
		sec.Blocks = append(sec.Blocks, report.Block{List: &report.List{Items: items}})
	}
	if len(w.Interceptors) > 0 {
		sec.Blocks = append(sec.Blocks, report.Block{Para: report.Text{report.Plain("Before a gRPC root's handler, gRPC runs the interceptors the server is built with. Those of the loaded code, each with the returns by which it refuses a call before it calls the handler it is handed, and the way to each (a refused call never reaches the handler):")}},
			report.Block{List: &report.List{Items: interceptorItems(w.Interceptors)}})
	}
	return sec
}

// interceptorItems says, for each interceptor, for which methods gRPC
// runs it, where the server is built with it, and where it refuses a
// call before the handler, on what.
func interceptorItems(is []report.Interceptor) []report.Text {
	var items []report.Text
	for _, ic := range is {
		kind := "unary"
		if ic.Stream {
			kind = "stream"
		}
		it := report.Text{report.CodeSpan(report.ShortName(ic.Name)), report.Plain(" ("), report.Cite(report.Loc{File: ic.File, Line: ic.Line}),
			report.Plain("), for each " + kind + " method, installed at "), report.Cite(ic.Installed),
			report.Plain(": calls the handler ("), report.Cite(ic.Handler), report.Plain(")")}
		if len(ic.Refuses) == 0 {
			it = append(it, report.Plain(" on every call"))
		} else {
			it = append(it, report.Plain(" unless it returns first, refusing the call: "))
			for i, r := range ic.Refuses {
				if i > 0 {
					it = append(it, report.Plain("; "))
				}
				it = append(it, report.Plain("at "), report.Cite(r.At), report.Plain(", by "))
				p := report.PairPaths{Feasible: r.Way.Feasible, Because: r.Way.Because, Ways: []report.Way{r.Way}, Best: 0}
				it = append(it, pairVerdict(p)...)
			}
		}
		items = append(items, it)
	}
	return items
}

// verdictSpans says whether a path can run, and why not or on what.
func verdictSpans(v string, b *report.Because) report.Text {
	var t report.Text
	switch v {
	case "yes":
		t = report.Text{report.Plain("a path that can run")}
	case "only-if":
		t = report.Text{report.Plain("a path that can run ")}
	case "no":
		t = report.Text{report.StrongSpan("no path can run"), report.Plain(": ")}
	case "unknown":
		t = report.Text{report.Plain("undecided: ")}
	default:
		return report.Text{report.Plain("nothing connects it")}
	}
	if b != nil && v != "yes" {
		t = append(t, report.CodeText(b.Text)...)
		if b.File != "" && (v != "unknown" || !citesLines(b.Text)) {
			t = append(t, report.Plain(" ("), report.Cite(report.Loc{File: b.File, Line: b.Line}), report.Plain(")"))
		}
		if c := b.Near; c != nil && v == "only-if" && c.Text != "" && c.File != "" {
			t = append(t, report.Plain(", and, nearest the use, "))
			t = append(t, report.OnlyIf(*c)...)
		}
	}
	return t
}

// pairVerdict is what a pair's head says of its verdict: for one that
// can run only if, every condition of state its way needs (each leg's
// across a hand-off, then the way's to the use), in the order the way
// meets them, each with the operands the path leaves one value; for one
// that can run, then what the way needs of the request (report.Asks).
func pairVerdict(p report.PairPaths) report.Text {
	var way report.Way
	if p.Best >= 0 && p.Best < len(p.Ways) {
		way = p.Ways[p.Best]
	}
	cs, asks := wayConds(p.Crossing, way.OnlyIf, way.Asks, nil)
	var t report.Text
	if p.Feasible != "only-if" || p.Because == nil || len(cs) == 0 {
		t = verdictSpans(p.Feasible, p.Because)
	} else {
		t = report.Text{report.Plain("a path that can run ")}
		for i, c := range cs {
			t = append(t, report.Plain(joiner(i, len(cs))))
			t = append(t, report.OnlyIf(c)...)
		}
	}
	if p.Feasible == "yes" || p.Feasible == "only-if" {
		t = append(t, report.Asks(asks)...)
	}
	return t
}

// undecidedBeside says what a way not decided needs beside what is not
// decided: the conditions of state of its legs and of its last part, and
// what it asks of the request ("; beside that, it can run only if …, for
// a request that …"), nil when it needs nothing else.
func undecidedBeside(u report.NoWay) report.Text {
	// The test the undecided condition is of is said there.
	said := func(c report.Cond) bool {
		b := u.Because
		return b != nil && (same(c, b.Cond) || b.Near != nil && same(c, *b.Near))
	}
	cs, asks := wayConds(u.Crossing, u.OnlyIf, u.Asks, said)
	if len(cs) == 0 && len(asks) == 0 {
		return nil
	}
	t := report.Text{report.Plain("; beside that, it can run")}
	if len(cs) == 0 {
		t = report.Text{report.Plain("; beside that, it can run only")}
	}
	for i, c := range cs {
		sep := " "
		if i > 0 {
			sep = joiner(i, len(cs))
		}
		t = append(t, report.Plain(sep))
		t = append(t, report.OnlyIf(c)...)
	}
	return append(t, report.Asks(asks)...)
}

// wayConds are a way's conditions of state and what it asks of the
// request, each once, in order: its legs' across hand-offs, then its own;
// none that skip (when given) says.
func wayConds(legs []report.Crossing, onlyIf, asks []report.Cond, skip func(report.Cond) bool) (cs, as []report.Cond) {
	seen := map[report.Cond]bool{}
	add := func(to *[]report.Cond, xs []report.Cond) {
		for _, c := range xs {
			if !seen[c] && (skip == nil || !skip(c)) {
				seen[c] = true
				*to = append(*to, c)
			}
		}
	}
	for _, c := range legs {
		add(&cs, c.OnlyIf)
		add(&as, c.Asks)
	}
	add(&cs, onlyIf)
	add(&as, asks)
	return cs, as
}

// same reports whether a and b are one test taken one way.
func same(a, b report.Cond) bool {
	return a.Text == b.Text && a.File == b.File && a.Line == b.Line && a.Want == b.Want
}

// joiner is what comes before the i-th of n items of a list: nothing,
// ", " or " and ".
func joiner(i, n int) string {
	switch {
	case i > 0 && i == n-1:
		return " and "
	case i > 0:
		return ", "
	}
	return ""
}

func rootKinds(n map[string]int) string {
	var ks []string
	for k := range n {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var out []string
	for _, k := range ks {
		name := map[string]string{"grpc": "gRPC methods", "http": "HTTP handlers", "goroutine": "goroutines", "main": "main functions", "callback": "library callbacks"}[k]
		if n[k] == 1 {
			name = map[string]string{"grpc": "gRPC method", "http": "HTTP handler", "goroutine": "goroutine", "main": "main function", "callback": "library callback"}[k]
		}
		out = append(out, fmt.Sprintf("%d %s", n[k], name))
	}
	return strings.Join(out, ", ")
}

// lineCite is a file:line citation in a reason's text.
var lineCite = regexp.MustCompile(`\.go:[0-9]+`)

// citesLines reports whether a reason's text cites the lines it speaks
// of itself (a reason that is not decided names each read and write):
// the condition's own line, put after it, would read as the last one's.
func citesLines(text string) bool { return lineCite.MatchString(text) }

// aKind is a message kind (a field's name) with its article: "a Put",
// "an AuthEnable".
func aKind(kind string) string {
	if kind != "" && strings.ContainsRune("AEIOU", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}

// undecidedHow says how a root whose best way is not decided gets to the
// use: "by calls", or "across the H of a K request"; hs are the hand-offs
// the answer follows.
func undecidedHow(u report.NoWay, hs []report.Boundary) string {
	switch u.By {
	case "start-up":
		return "at start-up, in its own goroutine"
	case "hand-off":
		// Across it, below.
	default:
		return "by calls"
	}
	how := "across the " + u.HandOff
	if u.Message != "" {
		how += " of " + aKind(u.Message) + " " + messageNoun(hs, u.HandOff)
	}
	return how
}

// handOffNames names the hand-offs the answer follows, as " (the A, the
// B and the C)", or "" when it follows none.
func handOffNames(hs []report.Boundary) string {
	var names []string
	for _, h := range hs {
		names = append(names, "the "+h.Name)
	}
	switch n := len(names); n {
	case 0:
		return ""
	case 1:
		return " (" + names[0] + ")"
	default:
		return " (" + strings.Join(names[:n-1], ", ") + " and " + names[n-1] + ")"
	}
}

// messageNoun is what hand-off name carries, by its message type's name:
// a request, a response, or else a message.
func messageNoun(hs []report.Boundary, name string) string {
	for _, h := range hs {
		if h.Name != name {
			continue
		}
		t := h.Message[strings.LastIndex(h.Message, ".")+1:]
		switch {
		case strings.HasSuffix(t, "Request"):
			return "request"
		case strings.HasSuffix(t, "Response"):
			return "response"
		}
	}
	return "message"
}
