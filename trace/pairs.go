package trace

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/roots"
	"github.com/srctrace/srctrace/trace/study"
)

// searchBound is how many call paths of one pair (or one leg) the search
// for the best verdict checks, past the k shortest.
const searchBound = 32

// legBound is how many paths to one hand-off are tried.
const legBound = 8

func (r *Result) rootKind(fn *ssa.Function) roots.Kind {
	for _, x := range r.Roots {
		if x.Func == fn {
			return x.Kind
		}
	}
	return ""
}

// typeBoundary resolves a boundary's message type and dispatch function,
// and checks that a closure hand-off carries the receiving entry.
func (r *Result) typeBoundary(b *study.HandOff) error {
	b.Carried = true
	if b.Message != "" {
		obj, _, err := r.Graph.Lookup(b.Message)
		if err != nil {
			return fmt.Errorf("boundary %s: message %s is not in etcd %s: %w", b.Name, b.Message, r.Source.Version, err)
		}
		tn, ok := obj.(*types.TypeName)
		if !ok {
			return fmt.Errorf("boundary %s: %s is not a type", b.Name, b.Message)
		}
		b.Msg = tn.Type()
		if name := b.Boundary.Dispatch; name != "" {
			fn, err := r.Graph.Func(name)
			if err != nil {
				return fmt.Errorf("boundary %s: dispatch %s is not in etcd %s: %w", b.Name, name, r.Source.Version, err)
			}
			b.Dispatch = fn
		}
		m := &feasible.Message{Type: b.Msg}
		if b.Via == study.ChannelSend {
			// What the first send sends (legs check the way to it).
			if len(b.Sent) > 0 && m.Matches(b.Sent[0].Type()) {
				b.Param = b.Sent[0]
			}
			if b.Param == nil {
				return fmt.Errorf("boundary %s: %s sends no %s on a channel in etcd %s", b.Name, callpath.Name(b.From), b.Message, r.Source.Version)
			}
		} else {
			for _, p := range b.From.Params {
				if m.Matches(p.Type()) {
					b.Param = p
					break
				}
			}
			if b.Param == nil {
				return fmt.Errorf("boundary %s: %s has no parameter of type %s in etcd %s", b.Name, callpath.Name(b.From), b.Message, r.Source.Version)
			}
		}
	}
	if b.Closure {
		to := r.Entries[r.EntryIndex(b.To)].Func
		b.Carried = false
		for _, fn := range withAnon(b.From) {
			for _, a := range fn.AnonFuncs {
				if callsDirectly(a, to) {
					b.Carried = true
				}
			}
		}
	}
	return nil
}

// callsDirectly reports whether fn calls target statically.
func callsDirectly(fn, target *ssa.Function) bool {
	for _, blk := range fn.Blocks {
		for _, ins := range blk.Instrs {
			if c, ok := ins.(ssa.CallInstruction); ok && c.Common().StaticCallee() == target {
				return true
			}
		}
	}
	return false
}

// tracePairs answers every (entry, site) pair: its call paths and their
// feasibility, or the hand-offs that connect it.
func (r *Result) tracePairs() {
	for si := range r.Sites {
		for ei := range r.Entries {
			r.Pairs = append(r.Pairs, r.pair(ei, si))
		}
	}
}

func (r *Result) pair(ei, si int) study.Pair {
	s, e := r.Sites[si], r.Entries[ei]
	p := study.Pair{Entry: ei, Site: si}
	switch {
	case s.Func == nil:
		p.Why = "definition"
	case s.Func.Synthetic == "package initializer":
		p.Why = "init"
	case e.Reach[s.Func]:
		p.Paths = r.Graph.Paths(e.Func, s.Func, r.k)
		r.search(&p, e, s, nil)
		if p.Verdict == feasible.No {
			r.alsoAcross(&p)
		}
	default:
		p.Why = "unreachable"
		r.cross(&p)
	}
	return p
}

// alsoAcross gives a pair whose call paths cannot run the crossings of
// the target's hand-offs that connect it and can run (or are not
// decided), as p.Also: the entry may still reach the use across them, as
// why finds (the Txn handler's read that a view's check rules out, which
// its proposal to raft reaches too).
func (r *Result) alsoAcross(p *study.Pair) {
	q := study.Pair{Entry: p.Entry, Site: p.Site}
	r.cross(&q)
	if len(q.Crossing) == 0 || q.Verdict == feasible.No {
		return
	}
	p.Also = append([]study.Also{{Legs: q.Crossing, Verdict: q.Verdict, Because: q.Because}}, q.Also...)
}

// check checks one path from entry e to site s, with a message handed to
// e. A path handed no message that passes a typed hand-off's dispatch
// after the hand-off's receiving entry is checked with each request the
// hand-off's senders make (what the receiver dispatches is one of them):
// its result is the best of those.
//
// A path handed the message of an untyped hand-off (handedState) whose
// way passes no typed dispatch is checked with what its entry is handed
// taken as state; through a typed dispatch, what is handed carries one of
// the senders' requests, and is checked as a path handed no message is.
func (r *Result) check(e study.EntryPoint, path callpath.Path, target ssa.Instruction, msg *feasible.Message, want ssa.Value) (feasible.Result, *feasible.Value) {
	return r.checkAs(e, path, target, msg, want, keepAll)
}

// keep is which verdicts a check's caller keeps (feasible.Path.OnlyRuns,
// OnlyYes): a way whose walk cannot give one of them is Unknown without
// the rest of its walk.
type keep int

const (
	keepAll  keep = iota
	keepRuns      // Yes and OnlyIf
	keepYes       // Yes
)

func (r *Result) checkAs(e study.EntryPoint, path callpath.Path, target ssa.Instruction, msg *feasible.Message, want ssa.Value, runs keep) (feasible.Result, *feasible.Value) {
	if msg == nil || msg == handedState {
		if bi := r.dispatchedOn(e, path); bi >= 0 {
			return r.checkSent(e, path, target, bi, want, runs)
		}
	}
	return r.check1(e, path, target, msg, want, runs)
}

// handedState is the message of an untyped hand-off (a scheduled job):
// the server hands its receiver what it holds itself, server state (the
// raft loop's batch of entries and snapshot), not a request.
var handedState = &feasible.Message{}

func (r *Result) check1(e study.EntryPoint, path callpath.Path, target ssa.Instruction, msg *feasible.Message, want ssa.Value, runs keep) (feasible.Result, *feasible.Value) {
	state := e.Found == "code" && e.Kind == roots.Goroutine
	if msg == handedState {
		msg, state = nil, true
	}
	return r.Feas.Check(feasible.Path{Root: e.Func, Hops: path, Target: target, RootState: state, ArgsNonNil: e.Kind.ArgsNonNil(), Message: msg, Want: want, Zero: r.zero, OnlyRuns: runs != keepAll && want == nil, OnlyYes: runs == keepYes && want == nil})
}

// dispatchedOn is the typed boundary whose dispatch function the path
// passes after the boundary's receiving function (or from it), -1 when
// there is none. One whose senders' requests are not all found is not
// one: a way through its dispatch, handed no message, takes whatever a
// sender may hand it (a sender that copies what it was given and changes
// it before it hands it off makes no literal the analysis can follow).
func (r *Result) dispatchedOn(e study.EntryPoint, path callpath.Path) int {
	for bi, b := range r.Boundaries {
		if b.Msg == nil || b.Dispatch == nil || !b.Carried {
			continue
		}
		to := r.EntryIndex(b.To)
		if to < 0 {
			continue
		}
		recv := r.Entries[to].Func
		in := e.Func == recv
		for _, h := range path {
			if h.Callee == recv {
				in = true
			}
			if in && h.Callee == b.Dispatch {
				if !r.allSent(bi) {
					return -1
				}
				return bi
			}
		}
	}
	return -1
}

// sender is a request that a sender of a typed boundary makes: the
// function that makes it, and the value it hands off.
type sender struct {
	fn  *ssa.Function
	val *feasible.Value
}

// senderDepth bounds how many calls above the hand-off a sender's
// function is looked for: far enough that every caller of the hand-off is
// looked at (a request made further up that a sender missed would make a
// way that can run look as if it cannot).
const senderDepth = 64

// senders are the requests that typed boundary bi's senders make: each
// function within senderDepth calls of the hand-off that makes a value
// of the message type, with the value each of its ways that can run (up
// to legBound) hands off (a literal, whose fields are known, and what the
// way tested of it). A sender that hands off a value it did not make is
// not one: the maker above it is.
//
// Every typed hand-off into the same dispatch hands it requests of the
// same type (several channels read by one receiving loop, say): the
// requests its dispatch can be handed are those of all their senders, in
// the order of the hand-offs.
func (r *Result) senders(bi int) []sender {
	var out []sender
	for _, bj := range r.intoDispatch(bi) {
		out = append(out, r.sendersOf(bj).ss...)
	}
	return out
}

// allSent reports whether every request that boundary bi's dispatch can
// be handed is among senders(bi): each way of each sender that can run
// hands off a literal.
func (r *Result) allSent(bi int) bool {
	for _, bj := range r.intoDispatch(bi) {
		if !r.sendersOf(bj).all {
			return false
		}
	}
	return true
}

// intoDispatch are bi and the other typed boundaries into its dispatch
// with a message of its type, in their order.
func (r *Result) intoDispatch(bi int) []int {
	b := r.Boundaries[bi]
	var out []int
	for bj, o := range r.Boundaries {
		if bj == bi || o.Msg != nil && o.Dispatch == b.Dispatch && o.Carried && types.Identical(o.Msg, b.Msg) {
			out = append(out, bj)
		}
	}
	return out
}

// sentSet is what a typed boundary's own senders make: their requests,
// and whether those are all (every sender's way that can run hands off a
// literal); when they are not, no request is kept.
type sentSet struct {
	ss  []sender
	all bool
}

// sendersOf are the requests that typed boundary bi's own senders make,
// found once per call graph.
func (r *Result) sendersOf(bi int) sentSet {
	b := r.Boundaries[bi]
	k := sentKey{b.Name, b.From}
	if out, ok := r.share().senders.get(k); ok {
		return out
	}
	return r.shared.senders.put(k, r.findSenders(b))
}

// share is the store the runs on r's call graph share: one of r's own
// when none is set.
func (r *Result) share() *sentShare {
	if r.shared == nil {
		r.shared = &sentShare{}
	}
	return r.shared
}

// sentShare holds the senders of each typed boundary for the runs on one
// call graph (the forks and the objects of the atlas): what a sender
// makes depends on the program only, not on the checker that found it.
type sentShare struct {
	senders firstStored[sentKey, sentSet]
	// outs are, per call out of a dispatch, the senders' requests that
	// can take it (outOfDispatch).
	outs firstStored[outKey, []int]
	// legs are legs's answers for an entry handed a typed message, by the
	// entry's function, the boundary and the message (a leg depends on
	// its path and the message only, not on the checker that found it).
	legs firstStored[msgLegsKey, []study.Leg]
}

// seeded is a new share that starts with s's senders and what each
// dispatch's calls out take (which depend on the program only), and
// legs of its own: for a run whose checks differ (Result.zero).
func (s *sentShare) seeded() *sentShare {
	n := &sentShare{}
	s.senders.mu.Lock()
	n.senders.m = maps.Clone(s.senders.m)
	s.senders.mu.Unlock()
	s.outs.mu.Lock()
	n.outs.m = maps.Clone(s.outs.m)
	s.outs.mu.Unlock()
	return n
}

type msgLegsKey struct {
	entry    *ssa.Function
	handOff  string
	t        types.Type
	dispatch *ssa.Function
	v        *feasible.Value
}

type sentKey struct {
	name string
	from *ssa.Function
}

// firstStored is a map safe for concurrent use in which the first value
// stored for a key stays: runs that find the same answer at once keep
// one.
type firstStored[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

func (s *firstStored[K, V]) get(k K) (V, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[k]
	return v, ok
}

// put stores v unless another run stored first, and returns what is
// stored.
func (s *firstStored[K, V]) put(k K, v V) V {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.m[k]; ok {
		return old
	}
	if s.m == nil {
		s.m = map[K]V{}
	}
	s.m[k] = v
	return v
}

func (r *Result) findSenders(b study.HandOff) sentSet {
	out := sentSet{all: true}
	if len(b.Instrs) > 0 {
		for _, fn := range r.makers(b) {
			// Each way that can run is a request of its own: what the
			// sender tested of it on one way, it may not have on another.
			for _, path := range r.Graph.Paths(fn, b.From, legBound) {
				res, val := r.check1(study.EntryPoint{Func: fn}, path, b.Instrs[0], nil, b.Param, keepAll)
				if res.Verdict == feasible.No {
					continue
				}
				if !val.Literal() {
					// The hand-off's own function, handing on what it was
					// given, is covered by the makers above it; any other
					// way that hands off no literal is a request missed,
					// and the requests found are then not used (allSent).
					if !(fn == b.From && len(path) == 0 && val.Input()) {
						return sentSet{all: false}
					}
					continue
				}
				out.ss = append(out.ss, sender{fn: fn, val: val})
			}
		}
	}
	return out
}

// makers are the functions within senderDepth calls above b's hand-off
// function (itself included) that allocate a value of its message type,
// in the order of their places in the source.
func (r *Result) makers(b study.HandOff) []*ssa.Function {
	m := &feasible.Message{Type: b.Msg}
	var out []*ssa.Function
	for fn := range r.callersWithin(b.From, senderDepth) {
		if fn != nil && allocates(fn, m) {
			out = append(out, fn)
		}
	}
	// By place in the source, not by token.Pos: the files of a load are
	// numbered in no fixed order.
	fset := r.Graph.Fset()
	key := func(fn *ssa.Function) string {
		p := fset.Position(fn.Pos())
		return fmt.Sprintf("%s\x00%09d\x00%09d\x00%s", p.Filename, p.Line, p.Column, fn.String())
	}
	sort.Slice(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}

// allocates reports whether fn allocates a value of m's type.
func allocates(fn *ssa.Function, m *feasible.Message) bool {
	for _, blk := range fn.Blocks {
		for _, ins := range blk.Instrs {
			if a, ok := ins.(*ssa.Alloc); ok && m.Matches(a.Type()) {
				return true
			}
		}
	}
	return false
}

// outOfDispatch are the requests of boundary bi's senders that can take
// hop, a call the dispatch makes, as a way rooted at the dispatch finds:
// a request refuted there is refuted on every longer way through it.
// When none can, the one refuted farthest along the hop's way.
func (r *Result) outOfDispatch(bi int, hop callpath.Hop) []sender {
	b := r.Boundaries[bi]
	ss := r.senders(bi)
	k := outKey{sentKey{b.Name, b.From}, hop.Callee, hop.Site}
	if idx, ok := r.shared.outs.get(k); ok {
		return pick(ss, idx)
	}
	var idx []int
	far, farAt := -1, -2
	for i, s := range ss {
		res, _ := r.check1(study.EntryPoint{Func: b.Dispatch}, callpath.Path{hop}, nil, &feasible.Message{Type: b.Msg, Dispatch: b.Dispatch, Value: s.val}, nil, keepAll)
		if res.Verdict != feasible.No {
			idx = append(idx, i)
		} else if at := refutedAt(res); at > farAt {
			far, farAt = i, at
		}
	}
	if len(idx) == 0 && far >= 0 {
		idx = []int{far}
	}
	return pick(ss, r.shared.outs.put(k, idx))
}

type outKey struct {
	b      sentKey
	callee *ssa.Function
	site   ssa.CallInstruction
}

func pick(ss []sender, idx []int) []sender {
	out := make([]sender, 0, len(idx))
	for _, i := range idx {
		out = append(out, ss[i])
	}
	return out
}

// refutedAt is how far along a way that cannot run its refutation comes:
// the place of the condition that decides it among the way's conditions,
// past them all when it is the refusal of a call.
func refutedAt(res feasible.Result) int {
	c := res.Because
	if c == nil {
		return -1
	}
	for i := range res.Conds {
		if res.Conds[i].Pos == c.Pos && res.Conds[i].Text == c.Text {
			return i
		}
	}
	return len(res.Conds)
}

// checkSent checks a path handed no message that passes boundary bi's
// dispatch, with each request the boundary's senders make; the best
// result is the path's. When none can take it, the result is the first
// sender's whose request gets farthest along it, with every sender's
// request named on its condition.
func (r *Result) checkSent(e study.EntryPoint, path callpath.Path, target ssa.Instruction, bi int, want ssa.Value, runs keep) (feasible.Result, *feasible.Value) {
	b := r.Boundaries[bi]
	var best feasible.Result
	var bestVal *feasible.Value
	have := false
	var made []token.Pos
	ss := r.senders(bi)
	for _, s := range ss {
		made = append(made, s.val.At())
	}
	// Only the requests that can take the way's call out of the dispatch
	// are checked along the whole way; when none can, the one refuted
	// farthest is, for its reason.
	try := ss
	if j := slices.IndexFunc(path, func(h callpath.Hop) bool { return h.Caller == b.Dispatch }); j >= 0 {
		try = r.outOfDispatch(bi, path[j])
	}
	for _, s := range try {
		// Past a sender whose request takes the way, only a better one
		// counts (as in bestWays' search).
		k := runs
		if have && want == nil {
			switch {
			case best.Verdict == feasible.OnlyIf && !best.NeedsUnloaded():
				k = keepYes
			case best.Verdict != feasible.No && k == keepAll:
				k = keepRuns
			}
		}
		res, val := r.check1(e, path, target, &feasible.Message{Type: b.Msg, Dispatch: b.Dispatch, Value: s.val}, want, k)
		// Among requests none of which takes the way, the one refuted
		// farthest along it explains it best.
		if !have || feasible.Better(res.Verdict, best.Verdict) ||
			res.Verdict == feasible.No && best.Verdict == feasible.No && refutedAt(res) > refutedAt(best) ||
			loadedOver(res, best) {
			best, bestVal, have = res, val, true
		}
		if best.Verdict == feasible.Yes {
			return best, bestVal
		}
	}
	if !have {
		// No sender makes a request: nothing reaches the dispatch.
		res, val := r.check1(e, path, target, nil, want, runs)
		if res.Verdict == feasible.No {
			return res, val
		}
		c := feasible.Cond{Class: feasible.False, Why: "no sender", Func: b.Dispatch, Pos: b.Dispatch.Pos(), HandOff: b.Name}
		return feasible.Result{Verdict: feasible.No, Because: &c, Conds: res.Conds, Sites: res.Sites}, val
	}
	if best.Verdict == feasible.No && best.Because != nil {
		c := *best.Because
		c.Senders, c.HandOff = made, b.Name
		best.Because = &c
	}
	return best, bestVal
}

// search checks the pair's k shortest paths and, when none is a yes, the
// next ones up to searchBound, for the shortest path of the best verdict.
func (r *Result) search(p *study.Pair, e study.EntryPoint, s study.Site, msg *feasible.Message) {
	ways, searched, cut := r.bestWays(e, s.Func, s.Instr, msg)
	p.Ways, p.Searched, p.Cut = ways, searched, cut
	if len(ways) > 0 {
		best := bestWay(ways)
		p.Verdict, p.Because = best.Res.Verdict, best.Res.Because
	}
}

// bestWays returns the k shortest paths from e to fn with their verdicts,
// and the shortest of the best verdict after them when it is better (or,
// of a verdict that can run, as good and needing no error of code the
// analysis did not load where the best so far does: bestWay).
func (r *Result) bestWays(e study.EntryPoint, fn *ssa.Function, target ssa.Instruction, msg *feasible.Message) ([]study.Way, int, bool) {
	paths := r.Graph.Paths(e.Func, fn, r.k)
	var ways []study.Way
	for _, path := range paths {
		res, _ := r.check(e, path, target, msg, nil)
		ways = append(ways, study.Way{Path: path, Res: res})
	}
	if len(ways) == 0 {
		return nil, 0, false
	}
	r.barWays(ways, e, target, msg, func() []callpath.Path { return r.Graph.Paths(e.Func, fn, searchBound) })
	best := bestWay(ways)
	searched := len(ways)
	if best.Res.Verdict == feasible.Yes || len(paths) < r.k {
		return ways, searched, false
	}
	more := r.Graph.Paths(e.Func, fn, searchBound)
	searched = len(more)
	for _, path := range more[len(paths):] {
		// Only a way better than the best is kept: past a way that is
		// not No, one that can run; past one that can run only if, and
		// needs no error of code not loaded (loadedOver), a Yes.
		k := keepRuns
		switch {
		case best.Res.Verdict == feasible.No:
			k = keepAll
		case best.Res.Verdict == feasible.OnlyIf && !best.Res.NeedsUnloaded():
			k = keepYes
		}
		res, _ := r.checkAs(e, path, target, msg, nil, k)
		if feasible.Better(res.Verdict, best.Res.Verdict) || loadedOver(res, best.Res) {
			w := study.Way{Path: path, Res: res}
			ways = append(ways, w)
			r.barWays(ways, e, target, msg, func() []callpath.Path { return more })
			w = ways[len(ways)-1]
			best = w
			if res.Verdict == feasible.Yes {
				break
			}
		}
	}
	return ways, searched, best.Res.Verdict != feasible.Yes && len(more) == searchBound
}

// bestWay is the first way of the best verdict. Among ways that cannot
// run, one that a condition of the code rules out is preferred to one the
// call graph made up (a call whose receiver cannot have the callee's
// type): its reason is the one a reader needs. Among ways that can run
// only if, one that needs fewer conditions of state is preferred: of two
// ways, the one whose conditions are a reader's better witness that the
// root reaches the use (a way whose conditions may never hold, which the
// analysis cannot refute, is less of one); before that, one that needs
// no error of code the analysis did not load (Cond.Unloaded), which may
// never fail.
func bestWay(ways []study.Way) study.Way {
	return ways[bestWayIndex(ways)]
}

// bestWayIndex is the index of bestWay's way.
func bestWayIndex(ways []study.Way) int {
	best := 0
	for i, w := range ways[1:] {
		b := ways[best]
		same := w.Res.Verdict == b.Res.Verdict
		if feasible.Better(w.Res.Verdict, b.Res.Verdict) ||
			same && refusedCall(b.Res) && !refusedCall(w.Res) ||
			loadedOver(w.Res, b.Res) ||
			same && w.Res.Verdict == feasible.OnlyIf && w.Res.NeedsUnloaded() == b.Res.NeedsUnloaded() && len(w.Res.OnlyIfs()) < len(b.Res.OnlyIfs()) {
			best = i + 1
		}
	}
	return best
}

// loadedOver reports whether way a is to be shown before way b of the
// same verdict, both able to run: b needs an error of code the analysis
// did not load (feasible.Cond.Unloaded), which may never fail, and a
// does not.
func loadedOver(a, b feasible.Result) bool {
	return a.Verdict == b.Verdict && feasibleVerdict(a.Verdict) && b.NeedsUnloaded() && !a.NeedsUnloaded()
}

// refusedCall reports whether a way's verdict comes from a call that
// cannot run the callee the call graph gave it.
func refusedCall(r feasible.Result) bool {
	return r.Because != nil && r.Because.Class == feasible.False && r.Because.Why == "dispatch"
}

type recvKey struct {
	entry, site int
	msg         *feasible.Value
	state       bool
}

// cross looks for the hand-offs that connect the pair's entry to its site
// when no call path does: chains of at most two hand-offs, each leg a path
// to a boundary's hand-off call, the last entry's paths reaching the site.
// A typed boundary connects only to the receiver's branch for the message
// the leg hands off: the receiving paths must pass its dispatch function.
// The chain of the best verdict is kept (fewer hand-offs, then shorter, on
// ties); its verdict is its worst part's.
func (r *Result) cross(p *study.Pair) {
	type chain struct {
		legs []study.Leg
		ways []study.Way
		part []feasible.Result // the legs' results, then the receiving way's
		n    int
	}
	verdict := func(c *chain) (feasible.Verdict, *feasible.Cond) {
		v, why := feasible.Yes, (*feasible.Cond)(nil)
		for _, res := range c.part {
			if feasible.Better(v, res.Verdict) {
				v, why = res.Verdict, res.Because
			}
		}
		return v, why
	}
	var best *chain
	var all []*chain
	consider := func(c *chain) {
		all = append(all, c)
		if best == nil {
			best = c
			return
		}
		cv, _ := verdict(c)
		bv, _ := verdict(best)
		if feasible.Better(cv, bv) || (cv == bv && (len(c.legs) < len(best.legs) || (len(c.legs) == len(best.legs) && c.n < best.n))) {
			best = c
		}
	}
	site := r.Sites[p.Site]
	var walk func(from int, msg *feasible.Message, legs []study.Leg, depth int)
	walk = func(from int, msg *feasible.Message, legs []study.Leg, depth int) {
		for bi, b := range r.Boundaries {
			to := r.EntryIndex(b.To)
			if to == p.Entry || to == from || !r.Entries[from].Reach[b.From] || !b.Carried {
				continue
			}
			for _, leg := range r.legs(from, bi, msg) {
				chainLegs := append(append([]study.Leg{}, legs...), leg)
				next := handedState
				if b.Msg != nil && b.Dispatch != nil {
					next = &feasible.Message{Type: b.Msg, Dispatch: b.Dispatch, Value: leg.Message}
				}
				if !r.Entries[to].Reach[site.Func] {
					if depth < 2 {
						walk(to, next, chainLegs, depth+1)
					}
					continue
				}
				ways := r.receive(to, p.Site, next)
				if len(ways) == 0 {
					continue
				}
				if b.Via == study.ChannelSend {
					ways = r.inReceivingCase(bi, ways)
				}
				c := &chain{legs: chainLegs, ways: ways}
				for _, l := range chainLegs {
					c.part = append(c.part, l.Res)
					c.n += len(l.Path)
				}
				w := bestWay(ways)
				c.part = append(c.part, w.Res)
				c.n += len(w.Path)
				consider(c)
				if bv, _ := verdict(best); w.Res.Verdict == feasible.No && bv == feasible.No && depth < 2 && !r.once {
					// The receiving side reaches the use by calls only by
					// ways that cannot run, and no chain found so far can
					// run: it may still hand off again (the apply job's
					// writes notify the watchers).
					walk(to, next, chainLegs, depth+1)
				}
			}
		}
	}
	walk(p.Entry, nil, nil, 1)
	if best == nil {
		return
	}
	p.Crossing, p.Ways = best.legs, best.ways
	p.Verdict, p.Because = verdict(best)
	// The other message kinds that reach the use, each once: the best
	// chain of each.
	seen := map[string]bool{messageKinds(best.legs): true}
	for _, c := range all {
		v, why := verdict(c)
		k := messageKinds(c.legs)
		if v == feasible.No || seen[k] {
			continue
		}
		for _, d := range all {
			if dv, _ := verdict(d); messageKinds(d.legs) == k && (feasible.Better(dv, v) || dv == v && len(d.legs) < len(c.legs)) {
				c, v = d, dv
				_, why = verdict(d)
			}
		}
		seen[k] = true
		p.Also = append(p.Also, study.Also{Legs: c.legs, Verdict: v, Because: why})
	}
}

// messageKinds names the messages a chain of legs hands off: its
// boundaries and the fields each message sets.
func messageKinds(legs []study.Leg) string {
	var b strings.Builder
	for _, l := range legs {
		fmt.Fprintf(&b, "%d:%v;", l.Boundary, l.Message.Fields())
	}
	return b.String()
}

// legs are the paths from entry to a boundary's hand-off call (the
// shortest, and, for a typed boundary, each path that hands off a
// different message), checked up to the call.
func (r *Result) legs(entry, bi int, msg *feasible.Message) []study.Leg {
	k := [2]int{entry, bi}
	if msg == handedState {
		if ws, ok := r.legsHanded[k]; ok {
			return ws
		}
	}
	if msg == nil {
		if ws, ok := r.legs1[k]; ok {
			return ws
		}
	}
	var sk msgLegsKey
	if msg != nil && msg != handedState && msg.Value != nil {
		// This run or another on the same call graph may have found them:
		// renumbered to this run's entries.
		sk = msgLegsKey{entry: r.Entries[entry].Func, handOff: r.Boundaries[bi].Name, t: msg.Type, dispatch: msg.Dispatch, v: msg.Value}
		if ls, ok := r.share().legs.get(sk); ok {
			to := r.EntryIndex(r.Boundaries[bi].To)
			out := make([]study.Leg, len(ls))
			for i, l := range ls {
				l.Boundary, l.From, l.To = bi, entry, to
				out[i] = l
			}
			return out
		}
	}
	b := r.Boundaries[bi]
	e := r.Entries[entry]
	var out []study.Leg
	if len(b.Instrs) == 0 {
		return nil
	}
	target := b.Instrs[0]
	var want ssa.Value
	if b.Param != nil {
		want = b.Param
	}
	seen := map[string]bool{}
	for _, path := range r.Graph.Paths(e.Func, b.From, legBound) {
		res, val := r.check(e, path, target, msg, want)
		if sel, ok := target.(*ssa.Select); ok {
			// A send that is a case of a select, which may take another
			// case instead (its default, when the channel has no room):
			// the way hands the message off only when it takes this one.
			if c, ok := r.Feas.SendCase(sel); ok {
				res = res.Needing(c)
			}
		}
		key := string(res.Verdict)
		if val != nil {
			key += fmt.Sprint(val.Fields())
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, study.Leg{Boundary: bi, From: entry, To: r.EntryIndex(b.To), Path: path, Res: res, Message: val})
		if b.Msg == nil {
			break // an untyped hand-off: the shortest way there is enough
		}
	}
	if msg == nil {
		if r.legs1 == nil {
			r.legs1 = map[[2]int][]study.Leg{}
		}
		r.legs1[k] = out
	}
	if msg == handedState {
		if r.legsHanded == nil {
			r.legsHanded = map[[2]int][]study.Leg{}
		}
		r.legsHanded[k] = out
	}
	if sk.v != nil {
		r.shared.legs.put(sk, out)
	}
	return out
}

// receive are the ways from entry to site with a message handed to it.
func (r *Result) receive(entry, si int, msg *feasible.Message) []study.Way {
	var mv *feasible.Value
	if msg != nil {
		mv = msg.Value
	}
	k := recvKey{entry, si, mv, msg == handedState}
	if ws, ok := r.recv[k]; ok {
		return ws
	}
	s := r.Sites[si]
	var ways []study.Way
	if msg == nil || msg == handedState || msg.Dispatch == nil {
		ways, _, _ = r.bestWays(r.Entries[entry], s.Func, s.Instr, msg)
	} else {
		ways = r.dispatchedWays(r.Entries[entry], s, msg)
	}
	if r.recv == nil {
		r.recv = map[recvKey][]study.Way{}
	}
	r.recv[k] = ways
	return ways
}

// dispatchedWays are the paths from e to the site that pass the message's
// dispatch function (up to searchBound are looked at): the k shortest of
// them with their verdicts, and the shortest of the best verdict.
func (r *Result) dispatchedWays(e study.EntryPoint, s study.Site, msg *feasible.Message) []study.Way {
	var ways []study.Way
	var best *study.Way
	for _, path := range r.Graph.Paths(e.Func, s.Func, searchBound) {
		if !passes(path, msg.Dispatch) {
			continue
		}
		res, _ := r.check(e, path, s.Instr, msg, nil)
		w := study.Way{Path: path, Res: res}
		switch {
		case len(ways) < r.k:
			ways = append(ways, w)
		case best != nil && feasible.Better(res.Verdict, best.Res.Verdict):
			ways = append(ways, w)
		default:
			continue
		}
		if best == nil || feasible.Better(res.Verdict, best.Res.Verdict) {
			best = &ways[len(ways)-1]
		}
		if len(ways) >= r.k && best.Res.Verdict == feasible.Yes {
			break
		}
	}
	r.barWays(ways, e, s.Instr, msg, func() []callpath.Path { return r.Graph.Paths(e.Func, s.Func, searchBound) })
	return ways
}

// barWays decides, among ways checked side by side, the arms of a
// condition that the way through a wrapper's method settles (feasible.Bar).
// A way whose condition is still open so (feasible.Made.Open) has the way
// through the wrapper's method checked beside it too, when that way is
// among the paths more gives and is not one of the ways (a way is kept
// only among the k shortest or when it is better, and the one through
// the wrapper may be neither): it is checked as the ways are (e, target,
// msg), and only settles the others' conditions.
func (r *Result) barWays(ways []study.Way, e study.EntryPoint, target ssa.Instruction, msg *feasible.Message, more func() []callpath.Path) {
	paths := make([]callpath.Path, len(ways))
	res := make([]*feasible.Result, len(ways))
	for i := range ways {
		paths[i], res[i] = ways[i].Path, &ways[i].Res
	}
	feasible.Bar(paths, res)
	var all []callpath.Path
	n := len(paths)
	have := map[string]bool{}
	for _, p := range paths {
		have[pathKey(p)] = true
	}
	for i := range ways {
		for _, c := range ways[i].Res.Conds {
			if !c.Made.Open() {
				continue
			}
			if all == nil {
				all = more()
			}
			for _, p := range all {
				if feasible.ThroughWrapper(ways[i].Path, p, c.Made) && !have[pathKey(p)] {
					o, _ := r.check(e, p, target, msg, nil)
					paths, res = append(paths, p), append(res, &o)
					have[pathKey(p)] = true
				}
			}
		}
	}
	if len(paths) > n {
		feasible.Bar(paths, res)
	}
}

// passes reports whether a path calls fn.
func passes(path callpath.Path, fn *ssa.Function) bool {
	for _, h := range path {
		if h.Callee == fn || h.Caller == fn {
			return true
		}
	}
	return false
}

// findRoots finds, for each use, the roots found from the code that reach
// it by the shortest feasible path. One nearer than every study entry
// that reaches the use feasibly becomes an entry of its own (found:
// code), with its pairs.
func (r *Result) findRoots() {
	studyFunc := map[*ssa.Function]bool{}
	for _, e := range r.Entries {
		studyFunc[e.Func] = true
	}
	added := map[*ssa.Function]int{}
	nStudy := len(r.Entries)
	for si := range r.Sites {
		s := &r.Sites[si]
		if s.Func == nil || s.Func.Synthetic == "package initializer" {
			continue
		}
		nearestStudy := -1
		var reaching []int // study entries that reach the use by a path that can run
		for _, p := range r.Pairs {
			if p.Site != si || p.Entry >= nStudy || len(p.Crossing) > 0 || !feasibleVerdict(p.Verdict) {
				continue
			}
			reaching = append(reaching, p.Entry)
			if n := len(bestOf(p.Ways).Path); nearestStudy < 0 || n < nearestStudy {
				nearestStudy = n
			}
		}
		dist := r.callersWithin(s.Func, 24)
		var cands []roots.Root
		for _, x := range r.Roots {
			// A main function reaches what it starts: the study's roots
			// are what runs the use, not the program around them (nor a
			// library's callbacks, which the study does not name).
			if _, ok := dist[x.Func]; !ok || studyFunc[x.Func] || x.Kind == roots.Main || x.Kind == roots.Callback {
				continue
			}
			// A root that such an entry starts itself adds nothing.
			started := false
			for _, ei := range reaching {
				started = started || r.Entries[ei].Reach[x.Func]
			}
			if !started {
				cands = append(cands, x)
			}
		}
		sort.SliceStable(cands, func(i, j int) bool { return dist[cands[i].Func] < dist[cands[j].Func] })
		// The feasible candidates, nearest first; of those, the ones no
		// other candidate starts; of those, the nearest.
		type cand struct {
			i, n int
		}
		cands = cands[:min(len(cands), 16)]
		// A way is at least as long as its root's distance: a candidate
		// no nearer than the nearest study entry is never chosen, and
		// counts only when it starts a nearer one that can run, which it
		// then hides (outermost). Its ways are checked only then.
		far := func(i int) bool { return nearestStudy >= 0 && dist[cands[i].Func] >= nearestStudy }
		wayLen := make([]int, len(cands)) // the best way's length when it can run, else -1
		checkCand := func(i int) {
			c := cands[i]
			e := study.EntryPoint{Entry: study.Entry{Name: report.ShortName(callpath.Name(c.Func)), Function: callpath.Name(c.Func)},
				Func: c.Func, Found: "code", Kind: c.Kind}
			wayLen[i] = -1
			if ways, _, _ := r.bestWays(e, s.Func, s.Instr, nil); len(ways) > 0 && feasibleVerdict(bestOf(ways).Res.Verdict) {
				wayLen[i] = len(bestOf(ways).Path)
			}
		}
		for i := range cands {
			if !far(i) {
				checkCand(i)
			}
		}
		for i, c := range cands {
			if !far(i) {
				continue
			}
			wayLen[i] = -1
			ri := r.Graph.Reachable(c.Func)
			for j, d := range cands {
				if !far(j) && wayLen[j] >= 0 && ri[d.Func] && !r.Graph.Reachable(d.Func)[c.Func] {
					checkCand(i)
					break
				}
			}
		}
		var feas []cand
		for i, n := range wayLen {
			if n >= 0 {
				feas = append(feas, cand{i, n})
			}
		}
		keep := outermost(r.Graph.Reachable, len(feas), func(k int) *ssa.Function { return cands[feas[k].i].Func })
		bestLen := -1
		var found []int
		for k, f := range feas {
			if !keep[k] {
				continue
			}
			if bestLen < 0 || f.n < bestLen {
				bestLen, found = f.n, nil
			}
			if f.n == bestLen {
				found = append(found, f.i)
			}
		}
		if bestLen < 0 || (nearestStudy >= 0 && bestLen >= nearestStudy) {
			continue
		}
		for _, i := range found {
			c := cands[i]
			ei, ok := added[c.Func]
			if !ok {
				ei = len(r.Entries)
				added[c.Func] = ei
				r.Entries = append(r.Entries, study.EntryPoint{
					Entry: study.Entry{Name: report.ShortName(callpath.Name(c.Func)), Function: callpath.Name(c.Func),
						Doc: rootDoc(c)},
					Func: c.Func, Pos: r.Graph.Prog.Fset.Position(c.Func.Pos()), Reach: r.Graph.Reachable(c.Func),
					Found: "code", Kind: c.Kind,
				})
			}
			s.Roots = append(s.Roots, ei)
		}
	}
	// The new entries' pairs, for every site.
	for ei := nStudy; ei < len(r.Entries); ei++ {
		for si := range r.Sites {
			r.Pairs = append(r.Pairs, r.pair(ei, si))
		}
	}
}

func rootDoc(c roots.Root) string {
	switch c.Kind {
	case roots.GRPC:
		return "a method of the gRPC service " + c.Service + ", run for each request a client sends it (found from the code)"
	case roots.HTTP:
		return "an HTTP handler (found from the code)"
	}
	return "a function the server starts with a go statement (found from the code)"
}

func feasibleVerdict(v feasible.Verdict) bool { return v == feasible.Yes || v == feasible.OnlyIf }

func bestOf(ws []study.Way) study.Way {
	if len(ws) == 0 {
		return study.Way{}
	}
	return bestWay(ws)
}

// callersWithin returns the functions that reach fn in at most n calls,
// with the number of calls.
func (r *Result) callersWithin(fn *ssa.Function, n int) map[*ssa.Function]int {
	dist := map[*ssa.Function]int{fn: 0}
	queue := []*ssa.Function{fn}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if dist[cur] >= n {
			continue
		}
		node := r.Graph.CG.Nodes[cur]
		if node == nil {
			continue
		}
		ins := append([]*callgraph.Edge{}, node.In...)
		sort.Slice(ins, func(i, j int) bool { return callpath.Name(ins[i].Caller.Func) < callpath.Name(ins[j].Caller.Func) })
		for _, e := range ins {
			c := e.Caller.Func
			if _, ok := dist[c]; !ok {
				dist[c] = dist[cur] + 1
				queue = append(queue, c)
			}
		}
	}
	return dist
}

// OtherCase is the Why of a condition of class False that refutes a way
// across a hand-off by a channel send: the way's first call in the
// receiving function is in a case of the select that receives the
// message (Text, at Pos) other than that case: it runs on another
// case's turn, not on the message's.
const OtherCase = "other case"

// inReceivingCase refutes, among ways from the receiving side of
// channel-send boundary bi, each whose first call in the receiving
// function lies in a case of a select other than the case that receives
// from a channel of the kind the boundary's sends send on (the case that
// takes the message): the message is handed to that case alone. A way
// whose first call is outside such a select is kept as it is.
func (r *Result) inReceivingCase(bi int, ways []study.Way) []study.Way {
	b := r.Boundaries[bi]
	var sent []types.Type
	for _, ins := range b.Instrs {
		switch x := ins.(type) {
		case *ssa.Send:
			sent = append(sent, x.Chan.Type())
		case *ssa.Select:
			for _, st := range x.States {
				if st.Dir == types.SendOnly {
					sent = append(sent, st.Chan.Type())
				}
			}
		}
	}
	var out []study.Way
	for i, w := range ways {
		if len(w.Path) == 0 || w.Res.Verdict == feasible.No {
			continue
		}
		h := w.Path[0]
		c := receivingCase(h.Caller, h.Site, sent)
		if c == nil {
			continue
		}
		c.HandOff = b.Name
		if out == nil {
			// ways are receive's, kept for other pairs: changed in a copy.
			out = append([]study.Way(nil), ways...)
		}
		out[i].Res = feasible.Result{Verdict: feasible.No, Because: c, Conds: append(append([]feasible.Cond(nil), w.Res.Conds...), *c), Sites: w.Res.Sites}
	}
	if out == nil {
		return ways
	}
	return out
}

// receivingCase is the condition that refutes a way whose call site
// lies in a case of one of fn's selects other than the case receiving
// from a channel of one of the types sent (nil when the site is in no
// such select, or in that case).
func receivingCase(fn *ssa.Function, site ssa.CallInstruction, sent []types.Type) *feasible.Cond {
	if fn == nil || site == nil || fn.Syntax() == nil {
		return nil
	}
	at := site.Pos()
	matches := func(t types.Type) bool {
		for _, s := range sent {
			if types.Identical(types.Unalias(t).Underlying(), types.Unalias(s).Underlying()) {
				return true
			}
		}
		return false
	}
	for _, blk := range fn.Blocks {
		for _, ins := range blk.Instrs {
			sel, ok := ins.(*ssa.Select)
			if !ok {
				continue
			}
			var recv []token.Pos
			for _, st := range sel.States {
				if st.Dir == types.RecvOnly && matches(st.Chan.Type()) {
					recv = append(recv, st.Pos)
				}
			}
			if len(recv) == 0 {
				continue
			}
			stmt := selectAt(fn.Syntax(), sel.Pos())
			if stmt == nil || at < stmt.Pos() || at >= stmt.End() {
				continue
			}
			var taking *ast.CommClause
			var in *ast.CommClause
			for _, x := range stmt.Body.List {
				cc := x.(*ast.CommClause)
				if cc.Comm != nil && taking == nil {
					for _, p := range recv {
						if p >= cc.Comm.Pos() && p < cc.Comm.End() {
							taking = cc
						}
					}
				}
				if at >= cc.Pos() && at < cc.End() {
					in = cc
				}
			}
			if in == nil || taking == nil || in == taking {
				return nil
			}
			return &feasible.Cond{Class: feasible.False, Why: OtherCase, Func: fn, Pos: taking.Comm.Pos(), Callee: site.Common().StaticCallee(), CallAt: at}
		}
	}
	return nil
}

// selectAt is the select statement of syntax n whose keyword is at pos.
func selectAt(n ast.Node, pos token.Pos) *ast.SelectStmt {
	var found *ast.SelectStmt
	ast.Inspect(n, func(x ast.Node) bool {
		if found != nil {
			return false
		}
		if s, ok := x.(*ast.SelectStmt); ok && s.Select == pos {
			found = s
			return false
		}
		return true
	})
	return found
}
