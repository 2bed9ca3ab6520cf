package trace

import (
	"context"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/roots"
	"github.com/srctrace/srctrace/trace/sites"
	"github.com/srctrace/srctrace/trace/study"
	"github.com/srctrace/srctrace/trace/target"
)

// The ways a root gets to a use.
const (
	byCalls   = "calls"
	byHandOff = "hand-off"
	byStartUp = "start-up"
)

// whyRun is one run of Why over a Result: the roots it made entries of,
// the hand-offs' receivers, and how each pair was found.
type whyRun struct {
	*Result
	nearest int
	// idle, when set, is run once by the first of onForks's workers that
	// finds no part left, beside the others still answering.
	idle func()
	// added maps a root's (or a receiver's) function to its entry.
	added map[*ssa.Function]int
	roots map[*ssa.Function]roots.Root
	// by says, per pair, how its root gets to its use.
	by []string
	// absent are the target's hand-offs not found in the loaded code.
	absent []string
	// toFrom caches, per boundary, the functions within whyDepth calls of
	// its sending function.
	toFrom map[int]map[*ssa.Function]int
	// cache holds what does not depend on the object: shared by the
	// objects answered on one call graph.
	cache *whyCache
	// programs maps a package to the programs (main packages loaded from
	// source) that contain it; nil when there is at most one.
	programs map[string][]string
	// logged, when set, records in entered every root that entry is asked
	// for, in order, repeats included: what a fork's caller replays to
	// number the entries as one run would.
	logged  bool
	entered []roots.Root
	// translate are the target's functions that turn an error into the
	// one the wire carries; dropped records the gRPC roots that reach a
	// use of an error by a way that can run but by none that returns it
	// (shared by the forks).
	translate map[*ssa.Function]bool
	dropped   *droppedLog
	// zeroForks are refutedUnset's forks, by the fields they leave at
	// zero (zeroFork).
	zeroForks map[string]*whyRun
	// unsetMemo are refutedUnset's answers, by method, uses and fields.
	unsetMemo map[string]unsetAnswer
}

// sameProgram reports whether a root and a use can run in one program:
// some program loaded from source contains both their packages. Code
// that no program loaded contains (a library) is in any. A call graph
// over several programs links them where one's interface value may hold
// another's type (the server's in-process client adapters), which no
// process of the other has: a tool's command does not reach the server's
// code except over the network.
func (w *whyRun) sameProgram(root, use *ssa.Function) bool {
	if w.programs == nil || root.Pkg == nil || use.Pkg == nil {
		return true
	}
	a, b := w.programs[root.Pkg.Pkg.Path()], w.programs[use.Pkg.Pkg.Path()]
	if len(a) == 0 || len(b) == 0 {
		return true
	}
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// whyCache is what the objects answered on one call graph share: what a
// function reaches by calls, what a main function runs in its own
// goroutine, and the callers of a function within a number of calls. It
// is safe for concurrent use (the atlas's shards share it); what it
// hands out is read, never changed.
type whyCache struct {
	mu      sync.Mutex
	mains   map[*ssa.Function]map[*ssa.Function]bool
	reach   map[*ssa.Function]map[*ssa.Function]bool
	callers map[callersKey]map[*ssa.Function]int
	// legs are the legs from a root to a hand-off (sharedLegs).
	legs map[legsKey][]study.Leg
	// backs are the flows of an error back through its callers
	// (flowBack).
	backs backs
	// sent are the requests each typed hand-off's senders make.
	sent sentShare
}

type callersKey struct {
	fn *ssa.Function
	n  int
}

// legsKey names the legs from a root to a hand-off by what they depend
// on: the root's function and how it runs, and the hand-off.
type legsKey struct {
	root        *ssa.Function
	found, kind string
	handOff     string
	from        *ssa.Function
}

func newWhyCache() *whyCache {
	return &whyCache{mains: map[*ssa.Function]map[*ssa.Function]bool{}, reach: map[*ssa.Function]map[*ssa.Function]bool{},
		callers: map[callersKey]map[*ssa.Function]int{}, legs: map[legsKey][]study.Leg{}, backs: backs{flows: map[backKey]backFlow{}}}
}

// sharedLegs are the legs (with no message handed in) from entry ei to
// boundary bi, as legs finds them, found once for all the runs on one
// call graph (the forks answer the same roots' ways across the same
// hand-offs for different uses): what one run found is renumbered to
// another's entries. A leg's verdict and message depend on its path
// only, not on which checker checked it.
func (w *whyRun) sharedLegs(ei, bi int) []study.Leg {
	if _, ok := w.legs1[[2]int{ei, bi}]; ok || w.cache == nil {
		return w.legs(ei, bi, nil)
	}
	e, b := w.Entries[ei], w.Boundaries[bi]
	k := legsKey{root: e.Func, found: e.Found, kind: string(e.Kind), handOff: b.Name, from: b.From}
	c := w.cache
	c.mu.Lock()
	ls, ok := c.legs[k]
	c.mu.Unlock()
	if !ok {
		ls = w.legs(ei, bi, nil)
		c.mu.Lock()
		if _, ok := c.legs[k]; !ok {
			c.legs[k] = ls
		}
		c.mu.Unlock()
		return ls
	}
	to := w.EntryIndex(b.To)
	out := make([]study.Leg, len(ls))
	for i, l := range ls {
		l.From, l.To = ei, to
		out[i] = l
	}
	if w.legs1 == nil {
		w.legs1 = map[[2]int][]study.Leg{}
	}
	w.legs1[[2]int{ei, bi}] = out
	return out
}

// callers is callersWithin, computed once per function and bound.
func (w *whyRun) callers(fn *ssa.Function, n int) map[*ssa.Function]int {
	if w.cache == nil {
		w.cache = newWhyCache()
	}
	k := callersKey{fn, n}
	c := w.cache
	c.mu.Lock()
	m, ok := c.callers[k]
	c.mu.Unlock()
	if ok {
		return m
	}
	// Found outside the lock: two shards may find the same answer.
	m = w.callersWithin(fn, n)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.callers[k]; ok {
		return old
	}
	c.callers[k] = m
	return m
}

// entry returns the entry of a root found from the code, adding it.
func (w *whyRun) entry(c roots.Root) int {
	if w.logged {
		w.entered = append(w.entered, c)
	}
	if ei, ok := w.added[c.Func]; ok {
		return ei
	}
	ei := len(w.Entries)
	w.added[c.Func] = ei
	w.Entries = append(w.Entries, rootEntry(w.Graph, c))
	if w.roots == nil {
		w.roots = map[*ssa.Function]roots.Root{}
	}
	w.roots[c.Func] = c
	return ei
}

// fork is a run of its own over w's uses, entries and hand-offs, with a
// feasibility checker of its own, to answer some of the uses beside other
// forks: the call graph, the roots, the source's lines and the cache of
// what does not depend on the object are shared and safe for concurrent
// use; what a run learns as it goes (its entries and their reach, its
// pairs, its checker's memos) is its own. The fork logs the roots it
// makes entries of (adopt replays them).
func (w *whyRun) fork() *whyRun {
	pass := *w.Pass
	pass.Feas = w.Feas.Fork()
	pass.Sites = append([]study.Site(nil), w.Sites...)
	for i := range pass.Sites {
		pass.Sites[i].Roots = append([]int(nil), pass.Sites[i].Roots...)
	}
	pass.Entries = append([]study.EntryPoint(nil), w.Entries...)
	for i := range pass.Entries {
		pass.Entries[i].Reach = maps.Clone(pass.Entries[i].Reach)
	}
	pass.Pairs = nil
	r := &Result{Pass: &pass, lines: w.lines, k: w.k, shared: w.shared, once: w.once}
	r.Lines = r.lines.line
	return &whyRun{Result: r, nearest: w.nearest, added: maps.Clone(w.added), roots: maps.Clone(w.roots),
		cache: w.cache, programs: w.programs, logged: true, translate: w.translate, dropped: w.dropped}
}

// release drops what a fork has learnt that its answers do not hold (its
// checker and its memos, the caches of its searches, its entries' reach):
// once its uses are answered, adopt needs only its entries' functions.
func (f *whyRun) release() {
	f.Feas, f.legs1, f.legsHanded, f.recv, f.toFrom = nil, nil, nil, nil, nil
	for i := range f.Entries {
		f.Entries[i].Reach = nil
	}
}

// forked is what a fork found for some uses: the roots it asked entry
// for while answering them, in order, and their pairs (with how each was
// found) and roots, by the fork's entries; with grpc, each use's gRPC
// roots (grpcRoots).
type forked struct {
	run     *whyRun
	lo, hi  int // the uses, [lo, hi)
	entered []roots.Root
	pairs   []study.Pair
	by      []string
	roots   [][]int // per use
	noWay   []*study.NoWay
	undec   [][]*study.NoWay
	grpc    map[int][]roots.Root
	// grpcEntered, when answer was asked to keep them apart, are the
	// roots asked entry for while finding the gRPC roots (entered then
	// holds those of the uses only).
	grpcEntered []roots.Root
}

// answer answers uses [lo, hi) on fork f as a run answers one error's
// uses: the roots of each, then, with grpc, the gRPC roots of each. With
// apart, the roots asked entry for while finding the gRPC roots are
// logged apart from those of the uses (why finds every use's roots
// before any use's gRPC roots). ctx is checked before each use.
func (f *whyRun) answer(ctx context.Context, lo, hi int, grpc, apart bool) (forked, error) {
	f.entered = nil
	np := len(f.Pairs)
	for si := lo; si < hi; si++ {
		if err := ctx.Err(); err != nil {
			return forked{}, err
		}
		f.use(si)
	}
	out := forked{run: f, lo: lo, hi: hi}
	if grpc {
		if apart {
			out.entered, f.entered = f.entered, nil
		}
		out.grpc = map[int][]roots.Root{}
		for si := lo; si < hi; si++ {
			if err := ctx.Err(); err != nil {
				return forked{}, err
			}
			out.grpc[si] = f.grpcRoots(si)
		}
	}
	if grpc && apart {
		out.grpcEntered = f.entered
	} else {
		out.entered = f.entered
	}
	f.entered = nil
	out.pairs = f.Pairs[np:len(f.Pairs):len(f.Pairs)]
	out.by = f.by[np:len(f.by):len(f.by)]
	for si := lo; si < hi; si++ {
		out.roots = append(out.roots, f.Sites[si].Roots)
		out.noWay = append(out.noWay, f.Sites[si].NoWay)
		out.undec = append(out.undec, f.Sites[si].Undecided)
	}
	return out, nil
}

// adopt takes what a fork found for some uses as if w had answered them
// itself, after the uses before them: it asks entry for the same roots in
// the same order (so the entries are numbered as one run numbers them)
// and renumbers the pairs' entries and the uses' roots.
func (w *whyRun) adopt(a forked) {
	for _, c := range a.entered {
		w.entry(c)
	}
	own := func(ei int) int {
		if ei < 0 {
			return ei // no entry (EntryIndex found none)
		}
		oi, ok := w.added[a.run.Entries[ei].Func]
		if !ok {
			panic(fmt.Sprintf("adopting a fork's answer: its entry %s was never asked for", a.run.Entries[ei].Name))
		}
		return oi
	}
	legs := func(ls []study.Leg) []study.Leg {
		if ls == nil {
			return nil
		}
		out := make([]study.Leg, len(ls))
		for i, l := range ls {
			l.From, l.To = own(l.From), own(l.To)
			out[i] = l
		}
		return out
	}
	for i, p := range a.pairs {
		p.Entry = own(p.Entry)
		p.Crossing = legs(p.Crossing)
		if p.Also != nil {
			also := make([]study.Also, len(p.Also))
			for j, x := range p.Also {
				x.Legs = legs(x.Legs)
				also[j] = x
			}
			p.Also = also
		}
		w.Pairs = append(w.Pairs, p)
		w.by = append(w.by, a.by[i])
	}
	for si := a.lo; si < a.hi; si++ {
		for _, ei := range a.roots[si-a.lo] {
			w.Sites[si].Roots = append(w.Sites[si].Roots, own(ei))
		}
		if a.noWay != nil {
			w.Sites[si].NoWay = a.noWay[si-a.lo]
		}
		if a.undec != nil {
			var us []*study.NoWay
			for _, u := range a.undec[si-a.lo] {
				c := *u
				c.Legs = legs(u.Legs)
				us = append(us, &c)
			}
			w.Sites[si].Undecided = us
		}
	}
}

// adoptGRPC asks entry, after every fork's answer is adopted, for the
// roots the forks asked for while finding the gRPC roots (answer with
// apart), in the forks' order: the entries are numbered as one run that
// finds every use's roots first numbers them.
func (w *whyRun) adoptGRPC(as []forked) {
	for _, a := range as {
		for _, c := range a.grpcEntered {
			w.entry(c)
		}
	}
}

// useWeight is what a use costs to answer, roughly: how many functions
// reach it within whyDepth calls (the roots to try and the paths to check
// grow with them), and, for each hand-off whose receiving side reaches it,
// how many reach the hand-off's sending side (the ways across it are
// checked with each message a sender makes); 0 for a use at package level.
func (w *whyRun) useWeight(si int) int {
	s := w.Sites[si]
	if s.Func == nil || s.Func.Synthetic == "package initializer" {
		return 0
	}
	n := len(w.callers(s.Func, whyDepth))
	for bi, b := range w.Boundaries {
		if w.Entries[w.EntryIndex(b.To)].Reach[s.Func] {
			n += len(w.senders(bi))
		}
	}
	return n
}

// shardsOf cuts items of the given weights, in their order, into at most
// shards contiguous parts of about the same weight (neighbours, the uses
// of one error or of one package, share much of what a checker learns):
// the parts and their weights. The cut depends on the weights only.
func shardsOf(weights []int, shards int) (parts [][]int, sizes []int) {
	n := len(weights)
	total := 0
	for _, x := range weights {
		total += x
	}
	acc, cur, size := 0, []int{}, 0
	for i := 0; i < n; i++ {
		cur = append(cur, i)
		acc += weights[i]
		size += weights[i]
		if i == n-1 || len(parts) < shards-1 && acc*shards >= total*(len(parts)+1) {
			parts, sizes = append(parts, cur), append(sizes, size)
			cur, size = []int{}, 0
		}
	}
	return parts, sizes
}

// maxForkWorkers bounds the forks answered at once.
const maxForkWorkers = 4

// onForks runs do on each part (by its index), each on a fork of w of its own (with its
// own feasibility checker), released when do returns: up to GOMAXPROCS
// parts (at most maxForkWorkers) at once, the heaviest first. do checks
// the context itself; the first error any part returns is returned once
// every worker has stopped (each stops at its first).
func onForks(w *whyRun, parts [][]int, sizes []int, do func(f *whyRun, part int) error) error {
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return sizes[order[a]] > sizes[order[b]] })
	queue := make(chan int, len(parts))
	for _, pi := range order {
		queue <- pi
	}
	close(queue)
	workers := min(runtime.GOMAXPROCS(0), maxForkWorkers, len(parts))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	var idle sync.Once
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pi := range queue {
				f := w.fork()
				if err := do(f, pi); err != nil {
					errs[k] = err
					return
				}
				f.release()
			}
			if w.idle != nil {
				idle.Do(w.idle)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// handOffs resolves the target's hand-offs that the loaded code has; the
// function that runs each one's receiving side becomes an entry.
func (w *whyRun) handOffs(t *target.Target) {
	source := map[string]bool{}
	for _, p := range w.Pkgs {
		source[p.PkgPath] = true
	}
	for _, h := range t.HandOffs {
		// A side in a package not loaded from source (one that does not
		// import the object's package) has no code to follow.
		missing := ""
		for _, name := range []string{h.From, h.To, h.Dispatch} {
			if pkg := study.PackageOf(name); name != "" && !source[pkg] && missing == "" {
				missing = h.Name + ": " + report.ShortName(name) + " is in " + pkg + ", which does not import the object's package and is not loaded from source"
			}
		}
		if missing != "" {
			w.absent = append(w.absent, missing)
			continue
		}
		to, err := w.Graph.Func(h.To)
		if err != nil {
			w.absent = append(w.absent, h.Name+": "+err.Error())
			continue
		}
		ei, ok := w.added[to]
		switch {
		case !ok:
			ei = len(w.Entries)
			e := receiverEntry(w.Graph, h, to)
			e.Kind = w.rootKind(to)
			w.Entries = append(w.Entries, e)
			w.added[to] = ei
		case w.Entries[ei].Found == "target":
			// A function that receives more than one hand-off (the apply
			// job: the raft proposal's and the raft loop's scheduled job)
			// says so of each.
			w.Entries[ei].Doc += "; and of the " + h.Name + ": " + h.Doc
		}
		if w.Entries[ei].Reach == nil || len(w.Entries[ei].Reach) < 2 {
			w.Entries[ei].Reach = w.Graph.Reachable(to)
		}
		if err := w.addBoundary(boundaryOf(h, w.Entries[ei].Name)); err != nil {
			w.absent = append(w.absent, h.Name+": "+err.Error())
		}
	}
}

// use finds the roots of one use: the nearest that reach it by calls;
// when fewer than nearest, the nearest across the target's hand-offs;
// when still none, the main functions that run it in their own goroutine.
func (w *whyRun) use(si int) {
	s := w.Sites[si]
	if s.Func == nil || s.Func.Synthetic == "package initializer" {
		return
	}
	type found struct {
		root roots.Root
		p    study.Pair
		n    int
		by   string
		rank int // among the candidates by calls
	}
	dist := w.callers(s.Func, whyDepth)
	var cands []roots.Root
	for _, x := range w.Roots {
		if _, ok := dist[x.Func]; ok && x.Kind != roots.Main && w.sameProgram(x.Func, s.Func) {
			cands = append(cands, x)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return dist[cands[i].Func] < dist[cands[j].Func] })
	cands = cands[:min(len(cands), 4*w.nearest)]
	// The nearest candidates that reach the use by a way that can run,
	// of those the outermost (keepOutermost). A candidate that a root
	// found already starts (reaches, and is not reached by) is not kept
	// whether it reaches the use or not; its search waits until its
	// answer could drop a kept root (one it starts), and is made then.
	var got []found
	// noWay is the nearest candidate that reaches the use only by ways
	// that cannot run, for the answer when none can.
	var noWay *study.NoWay
	// undecided are the candidates whose best way was not decided, by
	// rank.
	type undecidedRoot struct {
		nw   *study.NoWay
		root roots.Root
		rank int
	}
	var undecided []undecidedRoot
	searched := make([]bool, len(cands))
	search := func(i int) {
		searched[i] = true
		c := cands[i]
		if searchedHook != nil {
			searchedHook(si, c.Func)
		}
		ways, _, _ := w.bestWays(rootEntry(w.Graph, c), s.Func, s.Instr, nil)
		if p, n, ok := pairOf(si, ways); ok {
			got = append(got, found{root: c, p: p, n: n, by: byCalls, rank: i})
		} else if len(ways) > 0 {
			switch b := bestWay(ways); {
			case b.Res.Verdict == feasible.No && noWay == nil:
				noWay = &study.NoWay{Root: callpath.Name(c.Func), By: byCalls, Because: b.Res.Because}
			case b.Res.Verdict == feasible.Unknown:
				undecided = append(undecided, undecidedRoot{&study.NoWay{Root: callpath.Name(c.Func), By: byCalls, Because: b.Res.Because, Path: b.Path, Res: b.Res}, c, i})
			}
		}
	}
	for i, c := range cands {
		if !slices.ContainsFunc(got, func(f found) bool { return w.starts(f.root.Func, c.Func) }) {
			search(i)
		}
	}
	for {
		// In the candidates' order, as if each had been searched in turn.
		sort.SliceStable(got, func(i, j int) bool { return got[i].rank < got[j].rank })
		kept := keepOutermost(w.reachable, slices.Clone(got), func(f found) *ssa.Function { return f.root.Func }, func(f found) int { return f.n })
		more := false
		for i, c := range cands {
			if !searched[i] && slices.ContainsFunc(kept, func(f found) bool { return w.starts(c.Func, f.root.Func) }) {
				search(i)
				more = true
			}
		}
		if !more {
			got = kept
			break
		}
	}
	if len(got) < w.nearest && len(w.Boundaries) > 0 {
		var crossed []found
		have := map[*ssa.Function]bool{}
		for _, f := range got {
			have[f.root.Func] = true
		}
		// Every candidate is tried: which message a sender hands off
		// decides, and the nearest senders may all send other kinds. A
		// candidate whose only way across hands off a message that an
		// earlier candidate handed off too (made at the same place,
		// setting the same fields) and that reached the use by no way
		// that can run is not tried again: the receiving side is the same.
		dead := map[string]bool{}
		// Enough are found when as many as are missing are, none of
		// them started by a root found by calls.
		need := w.nearest
		for _, f := range got {
			if !w.receives(f.root.Func) {
				need--
			}
		}
		kept := 0
		for _, c := range w.crossCandidates(s.Func) {
			if kept >= need {
				break
			}
			if !w.sameProgram(c.Func, s.Func) {
				continue
			}
			if have[c.Func] {
				continue
			}
			p, ok := w.tryCross(c, si, dead, true)
			if !ok {
				if len(p.Crossing) > 0 && p.Verdict == feasible.No && noWay == nil {
					noWay = &study.NoWay{Root: callpath.Name(c.Func), By: byHandOff, HandOff: w.Boundaries[p.Crossing[0].Boundary].Name, Because: p.Because}
				}
				if len(p.Crossing) > 0 && p.Verdict == feasible.Unknown {
					nw := &study.NoWay{Root: callpath.Name(c.Func), By: byHandOff, HandOff: w.Boundaries[p.Crossing[0].Boundary].Name, Because: p.Because,
						Legs: p.Crossing, Path: bestOf(p.Ways).Path, Res: bestOf(p.Ways).Res}
					if m := p.Crossing[0].Message; m != nil {
						nw.Message = strings.Join(m.Fields(), "+")
					}
					undecided = append(undecided, undecidedRoot{nw, c, len(cands) + len(undecided)})
				}
				continue
			}
			n := len(bestOf(p.Ways).Path)
			for _, l := range p.Crossing {
				n += len(l.Path)
			}
			// One that a root found already starts (by calls, or across a
			// hand-off) is dropped below: it does not count.
			started := false
			for _, f := range append(got[:len(got):len(got)], crossed...) {
				started = started || w.reachable(f.root.Func)[c.Func]
			}
			crossed = append(crossed, found{root: c, p: p, n: n, by: byHandOff})
			if !started {
				kept++
			}
		}
		// The receiving side of a hand-off runs what its senders hand
		// off: where a sender's root is found, it is not a root of its own,
		// unless a client's request enters it too (an HTTP handler that a
		// peer's request over the network reaches, which any client of
		// that address can call).
		if len(crossed) > 0 {
			kept := got[:0:0]
			for _, f := range got {
				if !w.receives(f.root.Func) || f.root.Kind.ArgsNonNil() {
					kept = append(kept, f)
				}
			}
			got = kept
		}
		// A root that one found starts is that root's way in, where the
		// way shown of the one that starts it passes through it (a
		// goroutine the raft loop starts to revoke expired leases, whose
		// way across the raft proposal the loop's own way, across the
		// scheduled job, does not take, is a root of its own).
		all := append(append([]found{}, got...), crossed...)
		keep := outermost(w.reachable, len(all), func(i int) *ssa.Function { return all[i].root.Func })
		for i := range all {
			if keep[i] {
				continue
			}
			keep[i] = true
			for j := range all {
				if i != j && w.reachable(all[j].root.Func)[all[i].root.Func] && !w.reachable(all[i].root.Func)[all[j].root.Func] && wayPasses(all[j].p, all[i].root.Func) {
					keep[i] = false
				}
			}
		}
		got = got[:0:0]
		for i, f := range all {
			if keep[i] {
				got = append(got, f)
			}
		}
	}
	if len(got) == 0 {
		for _, m := range w.Roots {
			if m.Kind != roots.Main || !w.sameProgram(m.Func, s.Func) || !w.syncReach(m.Func)[s.Func] {
				continue
			}
			e := rootEntry(w.Graph, m)
			var ways []study.Way
			for _, path := range w.Graph.SyncPaths(m.Func, s.Func, w.k) {
				res, _ := w.check(e, path, s.Instr, nil, nil)
				ways = append(ways, study.Way{Path: path, Res: res})
			}
			w.barWays(ways, e, s.Instr, nil, func() []callpath.Path { return w.Graph.SyncPaths(m.Func, s.Func, searchBound) })
			if p, n, ok := pairOf(si, ways); ok {
				got = append(got, found{root: m, p: p, n: n, by: byStartUp})
			} else if len(ways) > 0 {
				// Not decided at start-up: listed with the others not
				// decided, after them.
				if b := bestWay(ways); b.Res.Verdict == feasible.Unknown {
					undecided = append(undecided, undecidedRoot{&study.NoWay{Root: callpath.Name(m.Func), By: byStartUp, Because: b.Res.Because, Path: b.Path, Res: b.Res}, m, len(cands) + len(w.Roots) + len(undecided)})
				}
			}
		}
	}
	if len(got) > w.nearest {
		got = got[:w.nearest]
	}
	if len(got) == 0 {
		w.Sites[si].NoWay = noWay
	}
	// The undecided roots that no kept root starts, nor another
	// undecided one (the goroutine an undecided gRPC method starts is its
	// way in), nearest first, as many as roots are kept.
	sort.SliceStable(undecided, func(i, j int) bool { return undecided[i].rank < undecided[j].rank })
	for _, u := range undecided {
		if len(w.Sites[si].Undecided) >= w.nearest {
			break
		}
		// (A main function's way at start-up, kept or not, is what it
		// runs in its own goroutine: what it reaches there is its way,
		// and the goroutines it starts are roots of their own.)
		if slices.ContainsFunc(got, func(f found) bool {
			reach := w.reachable
			if f.by == byStartUp {
				reach = w.syncReach
			}
			return f.root.Func == u.root.Func || reach(f.root.Func)[u.root.Func]
		}) {
			continue
		}
		if slices.ContainsFunc(undecided, func(o undecidedRoot) bool { return o.nw.By != byStartUp && w.starts(o.root.Func, u.root.Func) }) {
			continue
		}
		w.Sites[si].Undecided = append(w.Sites[si].Undecided, u.nw)
		w.entry(u.root) // what runs it is said with the kept roots
	}
	for _, f := range got {
		ei := w.entry(f.root)
		f.p.Entry = ei
		w.Sites[si].Roots = append(w.Sites[si].Roots, ei)
		w.Pairs = append(w.Pairs, f.p)
		w.by = append(w.by, f.by)
	}
}

// produces reports whether a use of an error can hand the error on (a
// return, or another use: an assignment, an argument): a comparison, a
// test of its text, a translation map's entry and its declaration do not.
func produces(k sites.Kind) bool {
	return k == sites.Return || k == sites.Other
}

// grpcRoots finds, for an error's user's half, every gRPC root (a
// method's handler, or an interceptor gRPC calls back) that reaches use
// si by a path that can run, by calls or across the target's hand-offs,
// and that use did not keep (it keeps only the nearest). Nil for a use at
// package level.
func (w *whyRun) grpcRoots(si int) []roots.Root {
	s := w.Sites[si]
	if s.Func == nil || s.Func.Synthetic == "package initializer" || !produces(s.Kind) {
		return nil
	}
	kept := map[*ssa.Function]bool{}
	for _, p := range w.Pairs {
		if p.Site == si {
			kept[w.Entries[p.Entry].Func] = true
		}
	}
	serves := func(x roots.Root) bool {
		if x.Kind != roots.GRPC {
			return false
		}
		_, interceptor := serverInterceptor(x)
		return x.Iface != "" || interceptor
	}
	var out []roots.Root
	dist := w.callers(s.Func, whyDepth)
	for _, x := range w.Roots {
		if !serves(x) || kept[x.Func] || !w.sameProgram(x.Func, s.Func) {
			continue
		}
		if _, ok := dist[x.Func]; !ok {
			continue
		}
		ways, _, _ := w.bestWays(rootEntry(w.Graph, x), s.Func, s.Instr, nil)
		if _, _, ok := pairOf(si, ways); ok {
			kept[x.Func] = true
			e := rootEntry(w.Graph, x)
			if w.returnsIt(si, x.Func, &e, ways) {
				out = append(out, x)
			}
		}
	}
	if len(w.Boundaries) == 0 {
		return out
	}
	dead := map[string]bool{}
	for _, c := range w.crossCandidates(s.Func) {
		if !serves(c) || kept[c.Func] || !w.sameProgram(c.Func, s.Func) {
			continue
		}
		p, ok := w.tryCross(c, si, dead, false)
		if !ok {
			continue
		}
		kept[c.Func] = true
		// The ways on from the hand-off's receiver: an error that one of
		// them returns goes back to the handler with what it waits for.
		if w.returnsIt(si, c.Func, nil, p.Ways) {
			out = append(out, c)
		}
	}
	return out
}

// tryCross tries to connect root c to use si across the target's
// hand-offs: the pair, and whether a way across can run. A candidate whose
// only way across hands off a message that an earlier candidate handed
// off too (made at the same place, setting the same fields), and that
// reached the use by no way that can run, is not tried again (dead): the
// receiving side is the same. With undecided, one whose way was not
// decided does not make its message dead: another sender of it is a root
// not decided of its own, to be listed as one.
func (w *whyRun) tryCross(c roots.Root, si int, dead map[string]bool, undecided bool) (study.Pair, bool) {
	ei := w.entry(c)
	w.fillReach(ei)
	keys := w.legKinds(ei)
	if len(keys) == 1 && dead[keys[0]] {
		return study.Pair{}, false
	}
	p := study.Pair{Entry: ei, Site: si}
	w.cross(&p)
	if len(p.Crossing) == 0 || !feasibleVerdict(p.Verdict) {
		if len(keys) == 1 && (!undecided || len(p.Crossing) == 0 || p.Verdict != feasible.Unknown) {
			dead[keys[0]] = true
		}
		return p, false
	}
	return p, true
}

// wayPasses reports whether the way shown of pair p (its legs across
// hand-offs, then its best way) runs fn.
func wayPasses(p study.Pair, fn *ssa.Function) bool {
	var paths []callpath.Path
	for _, l := range p.Crossing {
		paths = append(paths, l.Path)
	}
	if len(p.Ways) > 0 {
		paths = append(paths, bestOf(p.Ways).Path)
	}
	for _, path := range paths {
		for _, h := range path {
			if h.Caller == fn || h.Callee == fn {
				return true
			}
		}
	}
	return false
}

// pairOf is the pair of a use and the ways a root reaches it by, and the
// length of the best way, when one can run.
func pairOf(si int, ways []study.Way) (study.Pair, int, bool) {
	if len(ways) == 0 || !feasibleVerdict(bestWay(ways).Res.Verdict) {
		return study.Pair{}, 0, false
	}
	best := bestWay(ways)
	p := study.Pair{Site: si, Ways: ways, Verdict: best.Res.Verdict, Because: best.Res.Because, Searched: len(ways)}
	for _, way := range ways {
		p.Paths = append(p.Paths, way.Path)
	}
	return p, len(best.Path), true
}

// keepOutermost keeps, of the found roots, those no other of them
// reaches (a goroutine that a gRPC method starts is that method's way
// in), nearest first.
func keepOutermost[T any](reachable func(*ssa.Function) map[*ssa.Function]bool, got []T, fn func(T) *ssa.Function, n func(T) int) []T {
	sort.SliceStable(got, func(i, j int) bool { return n(got[i]) < n(got[j]) })
	keep := outermost(reachable, len(got), func(i int) *ssa.Function { return fn(got[i]) })
	var out []T
	for i, f := range got {
		if keep[i] {
			out = append(out, f)
		}
	}
	return out
}

// legKinds are the kinds of the ways a root's entry has across a
// hand-off it reaches: the hand-off, and for a typed one where its message
// is made and the fields it sets. A way that cannot run to the hand-off
// has no kind: the root is always tried.
func (w *whyRun) legKinds(ei int) []string {
	var keys []string
	for bi, b := range w.Boundaries {
		if !w.Entries[ei].Reach[b.From] || !b.Carried {
			continue
		}
		for _, l := range w.sharedLegs(ei, bi) {
			if !feasibleVerdict(l.Res.Verdict) {
				return nil
			}
			keys = appendUnique(keys, fmt.Sprint(bi, l.Message.At(), l.Message.Fields(), l.Message.SentReads()))
		}
	}
	return keys
}

// receives reports whether fn runs the receiving side of a hand-off.
func (w *whyRun) receives(fn *ssa.Function) bool {
	for _, b := range w.Boundaries {
		if w.Entries[w.EntryIndex(b.To)].Func == fn {
			return true
		}
	}
	return false
}

// crossCandidates are the roots (not main functions) that reach, by
// calls, the sending side of a hand-off whose receiver reaches fn (or
// reaches the sending side of one that does), nearest first.
func (w *whyRun) crossCandidates(fn *ssa.Function) []roots.Root {
	into := map[int]bool{} // boundaries whose receiver reaches fn
	for bi, b := range w.Boundaries {
		if w.Entries[w.EntryIndex(b.To)].Reach[fn] {
			into[bi] = true
		}
	}
	for bi, b := range w.Boundaries {
		for bj := range into {
			if w.Entries[w.EntryIndex(b.To)].Reach[w.Boundaries[bj].From] {
				into[bi] = true
			}
		}
	}
	best := map[*ssa.Function]int{}
	for bi := range into {
		for f, d := range w.senders(bi) {
			if old, ok := best[f]; !ok || d < old {
				best[f] = d
			}
		}
	}
	var out []roots.Root
	for _, x := range w.Roots {
		if _, ok := best[x.Func]; ok && x.Kind != roots.Main {
			out = append(out, x)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return best[out[i].Func] < best[out[j].Func] })
	return out
}

// senders are the functions within whyDepth calls of boundary bi's
// sending function.
func (w *whyRun) senders(bi int) map[*ssa.Function]int {
	if w.toFrom == nil {
		w.toFrom = map[int]map[*ssa.Function]int{}
	}
	if d, ok := w.toFrom[bi]; ok {
		return d
	}
	d := w.callers(w.Boundaries[bi].From, whyDepth)
	w.toFrom[bi] = d
	return d
}

// fillReach records in a root's entry which hand-offs' sending functions
// it reaches by calls: what the crossing search asks of it.
func (w *whyRun) fillReach(ei int) {
	e := &w.Entries[ei]
	if e.Reach == nil {
		e.Reach = map[*ssa.Function]bool{e.Func: true}
	}
	for bi, b := range w.Boundaries {
		if _, ok := w.senders(bi)[e.Func]; ok {
			e.Reach[b.From] = true
		}
	}
}

// reachable is what a function reaches by calls, computed once.
func (w *whyRun) reachable(fn *ssa.Function) map[*ssa.Function]bool {
	if w.cache == nil {
		w.cache = newWhyCache()
	}
	c := w.cache
	c.mu.Lock()
	m, ok := c.reach[fn]
	c.mu.Unlock()
	if ok {
		return m
	}
	m = w.Graph.Reachable(fn)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.reach[fn]; ok {
		return old
	}
	c.reach[fn] = m
	return m
}

// syncReach is what a main function runs in its own goroutine.
func (w *whyRun) syncReach(fn *ssa.Function) map[*ssa.Function]bool {
	if w.cache == nil {
		w.cache = newWhyCache()
	}
	c := w.cache
	c.mu.Lock()
	m, ok := c.mains[fn]
	c.mu.Unlock()
	if ok {
		return m
	}
	m = w.Graph.SyncReachable(fn)
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.mains[fn]; ok {
		return old
	}
	c.mains[fn] = m
	return m
}

// searchedHook, when set (by tests), hears of each candidate use searches
// by calls, with the use's index; it is called from the forks' goroutines
// (onForks), so it must be safe for concurrent use.
var searchedHook func(si int, root *ssa.Function)

// starts reports whether root a starts root b: a reaches b by calls, and
// b does not reach a (outermost keeps b only when no other root starts
// it).
func (w *whyRun) starts(a, b *ssa.Function) bool {
	return a != b && w.reachable(a)[b] && !w.reachable(b)[a]
}

// outermost says which of n roots no other of them reaches: a root that
// another starts (the goroutine its gRPC method starts, the handler a
// registered wrapper calls) is that root's way in, not a root of its own.
func outermost(reachable func(*ssa.Function) map[*ssa.Function]bool, n int, fn func(int) *ssa.Function) []bool {
	reach := make([]map[*ssa.Function]bool, n)
	for i := 0; i < n; i++ {
		reach[i] = reachable(fn(i))
	}
	keep := make([]bool, n)
	for i := 0; i < n; i++ {
		keep[i] = true
		for j := 0; j < n; j++ {
			if i != j && reach[j][fn(i)] && !reach[i][fn(j)] {
				keep[i] = false
			}
		}
	}
	return keep
}

// rootEntry makes an entry of a root found from the code.
func rootEntry(g *callpath.Graph, c roots.Root) study.EntryPoint {
	name := callpath.Name(c.Func)
	return study.EntryPoint{
		Entry: study.Entry{Name: report.ShortName(name), Function: name, Doc: rootDoc(c)},
		Func:  c.Func, Pos: g.Prog.Fset.Position(c.Func.Pos()), Found: "code", Kind: c.Kind,
	}
}

// whyUses finds the uses of obj: by identity; for a function or a
// concrete method, also the calls that reach it through an interface or
// a function value (the VTA graph's); for an interface method, also
// its implementations' uses.
func (r *Result) whyUses(obj types.Object) error {
	if err := r.useSites(obj, nil); err != nil {
		return err
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		return nil
	}
	sig := fn.Type().(*types.Signature)
	var targets []*ssa.Function
	impls := map[types.Object]bool{}
	if recv := sig.Recv(); recv != nil && types.IsInterface(recv.Type()) {
		// The interface method's own uses are calls through it.
		via := report.ShortName(qualifiedMethod(recv.Type(), fn.Name()))
		for i := range r.Sites {
			if r.Sites[i].Kind != sites.Definition {
				r.Sites[i].Dynamic, r.Sites[i].Via = true, via
			}
		}
		for _, m := range r.implementations(recv.Type(), fn.Name()) {
			impls[m.Object()] = true
			targets = append(targets, m)
		}
	} else if f := r.ssaFunc(fn); f != nil {
		targets = append(targets, f)
	}
	have := map[token.Pos]bool{}
	for _, s := range r.Sites {
		have[s.Ident.Pos()] = true
	}
	if len(impls) > 0 {
		implName := map[types.Object]string{}
		for _, m := range targets {
			implName[m.Object()] = callpath.Name(m)
		}
		for _, s := range sites.FindAny(r.Pkgs, impls) {
			if have[s.Ident.Pos()] {
				continue
			}
			have[s.Ident.Pos()] = true
			site, err := r.site(s)
			if err != nil {
				return err
			}
			site.Impl = implName[s.Object]
			r.Sites = append(r.Sites, site)
		}
	}
	files := r.fileIndex()
	for _, t := range targets {
		for _, e := range r.Graph.DynamicCallers(t) {
			f := files[r.Graph.Fset().File(e.Site.Pos())]
			if f.file == nil {
				continue
			}
			id, fun := callIdent(f.file, e.Site)
			if id == nil || have[id.Pos()] {
				continue
			}
			have[id.Pos()] = true
			site, err := r.site(sites.At(f.pkg, f.file, id))
			if err != nil {
				return err
			}
			site.Func, site.Instr = e.Caller.Func, e.Site
			site.Dynamic = true
			c := e.Site.Common()
			if c.IsInvoke() {
				site.Via = report.ShortName(qualifiedMethod(c.Value.Type(), c.Method.Name()))
			} else {
				site.Via = types.ExprString(fun)
			}
			if len(impls) > 0 {
				site.Impl = callpath.Name(t)
			}
			r.Sites = append(r.Sites, site)
		}
	}
	sort.SliceStable(r.Sites, func(i, j int) bool {
		a, b := r.Sites[i].Pos, r.Sites[j].Pos
		if r.Sites[i].Repo != r.Sites[j].Repo {
			return r.Sites[i].Repo < r.Sites[j].Repo
		}
		return a.Offset < b.Offset
	})
	return nil
}

// site makes a use of a site found in the syntax.
func (r *Result) site(s sites.Site) (study.Site, error) {
	site := study.Site{Site: s, Repo: r.Source.RepoPath(s.Pos.Filename)}
	text, err := r.lines.line(s.Pos.Filename, s.Pos.Line)
	if err != nil {
		return site, err
	}
	site.Text = text
	if s.Kind != sites.Definition {
		for _, p := range r.Graph.Pkgs {
			if p.Pkg == s.Pkg.Types {
				site.Func = ssa.EnclosingFunction(p, s.Path)
			}
		}
		if site.Func != nil {
			site.Instr = feasible.Use(site.Func, s.Ident.Pos())
		}
	}
	return site, nil
}

type fileOf struct {
	pkg  *packages.Package
	file *ast.File
}

// fileIndex maps each loaded file to its syntax and package.
func (r *Result) fileIndex() map[*token.File]fileOf {
	out := map[*token.File]fileOf{}
	for _, p := range r.Pkgs {
		for _, f := range p.Syntax {
			out[r.Graph.Fset().File(f.Pos())] = fileOf{p, f}
		}
	}
	return out
}

// callIdent is the identifier that names the callee of a call in f (the
// selector's name, the function value's variable), and the callee
// expression.
func callIdent(f *ast.File, site ssa.CallInstruction) (*ast.Ident, ast.Expr) {
	pos := site.Pos()
	var call *ast.CallExpr
	ast.Inspect(f, func(n ast.Node) bool {
		if call != nil || n == nil || pos < n.Pos() || pos > n.End() {
			return false
		}
		switch x := n.(type) {
		case *ast.CallExpr:
			if x.Lparen == pos {
				call = x
			}
		case *ast.GoStmt:
			if x.Go == pos {
				call = x.Call
			}
		case *ast.DeferStmt:
			if x.Defer == pos {
				call = x.Call
			}
		}
		return call == nil
	})
	if call == nil {
		return nil, nil
	}
	e := call.Fun
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
			continue
		case *ast.SelectorExpr:
			return x.Sel, call.Fun
		case *ast.Ident:
			return x, call.Fun
		case *ast.IndexExpr:
			e = x.X
			continue
		}
		return nil, nil
	}
}

// implementations are the methods named name of the types of the loaded
// source that implement the interface iface, each once (a promoted
// method is its declaring type's).
func (r *Result) implementations(iface types.Type, name string) []*ssa.Function {
	it, ok := iface.Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	loaded := map[*types.Package]bool{}
	for _, p := range r.Pkgs {
		loaded[p.Types] = true
	}
	seen := map[*ssa.Function]bool{}
	var out []*ssa.Function
	for _, p := range r.Graph.Pkgs {
		sc := p.Pkg.Scope()
		for _, n := range sc.Names() {
			tn, ok := sc.Lookup(n).(*types.TypeName)
			if !ok || tn.IsAlias() || types.IsInterface(tn.Type()) {
				continue
			}
			var recv types.Type = tn.Type()
			if !types.Implements(recv, it) {
				recv = types.NewPointer(recv)
				if !types.Implements(recv, it) {
					continue
				}
			}
			sel := r.Graph.Prog.MethodSets.MethodSet(recv).Lookup(p.Pkg, name)
			if sel == nil {
				// An exported method is looked up from any package.
				for i := 0; i < it.NumMethods(); i++ {
					if m := it.Method(i); m.Name() == name {
						sel = r.Graph.Prog.MethodSets.MethodSet(recv).Lookup(m.Pkg(), name)
					}
				}
			}
			if sel == nil {
				continue
			}
			m, ok := sel.Obj().(*types.Func)
			if !ok || !loaded[m.Pkg()] {
				continue
			}
			f := r.Graph.Prog.FuncValue(m)
			if f == nil || seen[f] {
				continue
			}
			seen[f] = true
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return callpath.Name(out[i]) < callpath.Name(out[j]) })
	return out
}

// ssaFunc is the SSA function of a declared function or method.
func (r *Result) ssaFunc(fn *types.Func) *ssa.Function {
	return r.Graph.Prog.FuncValue(fn)
}

// qualifiedMethod names method name of type t as the studies write it:
// "pkg/path.T.M".
func qualifiedMethod(t types.Type, name string) string {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil {
		return n.Obj().Pkg().Path() + "." + n.Obj().Name() + "." + name
	}
	return types.TypeString(t, nil) + "." + name
}

// needsNetwork reports whether a root kept is a gRPC method.
func (w *whyRun) needsNetwork() bool {
	for _, p := range w.Pairs {
		if w.Entries[p.Entry].Kind == roots.GRPC {
			return true
		}
	}
	return false
}

// network reads, once, the gRPC methods of the generated code of the
// target's packages.
func (b *whyBase) network() (*roots.Network, error) {
	b.netMu.Lock()
	defer b.netMu.Unlock()
	if b.netRead {
		return b.net, nil
	}
	var ps []roots.Package
	packages.Visit(b.meta, nil, func(p *packages.Package) {
		if _, ok := p.Imports["google.golang.org/grpc"]; ok && b.src.InLayout(p.PkgPath) && !strings.HasSuffix(p.PkgPath, ".test") {
			ps = append(ps, roots.Package{Path: p.PkgPath, Files: p.GoFiles})
		}
	})
	sort.Slice(ps, func(i, j int) bool { return ps[i].Path < ps[j].Path })
	net, err := roots.ReadNetwork(ps)
	if err != nil {
		return nil, err
	}
	b.net, b.netRead = net, true
	return net, nil
}

// reportEntries converts the entries that some pair names, saying what
// runs each root.
func (w *whyRun) reportEntries(net *roots.Network) []report.Entry {
	used := map[int]bool{}
	// hands are, per entry, the hand-offs its ways cross from it, in the
	// order the pairs first cross them.
	hands := map[int][]int{}
	for _, p := range w.Pairs {
		used[p.Entry] = true
		for _, l := range p.Crossing {
			if !slices.Contains(hands[l.From], l.Boundary) {
				hands[l.From] = append(hands[l.From], l.Boundary)
			}
			used[l.From], used[l.To] = true, true
		}
	}
	// The roots whose ways are not decided are shown too.
	undecided := map[string]bool{}
	for _, s := range w.Sites {
		for _, u := range s.Undecided {
			undecided[u.Root] = true
			for _, l := range u.Legs {
				if !slices.Contains(hands[l.From], l.Boundary) {
					hands[l.From] = append(hands[l.From], l.Boundary)
				}
				used[l.From], used[l.To] = true, true
			}
		}
	}
	var starts map[*ssa.Function]*ssa.Function
	out := []report.Entry{}
	for ei, e := range w.Entries {
		if !used[ei] && !undecided[callpath.Name(e.Func)] {
			continue
		}
		re := report.Entry{
			Name: e.Name, Function: callpath.Name(e.Func), Doc: e.Doc,
			File: w.Source.RepoPath(e.Pos.Filename), Line: e.Pos.Line,
			Found: e.Found, Kind: string(e.Kind),
		}
		if c, ok := w.roots[e.Func]; ok {
			if net != nil {
				if m, ok := net.Of(c); ok {
					re.Method, re.Stubs = m.FullName, m.Stubs
				}
			}
			if c.Starter != nil && c.At.IsValid() {
				pos := w.Graph.Fset().Position(c.At)
				re.Starter = &report.Loc{File: w.Source.RepoPath(pos.Filename), Line: pos.Line, Function: callpath.Name(c.Starter)}
			}
			if c.Helper != nil {
				re.Helper = callpath.Name(c.Helper)
			}
			if c.Kind == roots.Goroutine || c.Kind == roots.Callback {
				if starts == nil {
					starts = roots.StartUp(w.Graph, w.Roots)
				}
				if m := starts[c.Func]; m != nil {
					re.StartUp = callpath.Name(m)
					re.Later = c.Starter != nil && !w.syncReach(m)[c.Starter]
				}
			}
			re.Doc = whyRootDoc(c, re)
		}
		// What a root hands on, when its ways cross a hand-off: the raft
		// loop, whose own code only schedules the apply job.
		for _, bi := range hands[ei] {
			if e.Found == "code" {
				b := w.Boundaries[bi]
				re.HandsOff = append(re.HandsOff, "the "+b.Name+": "+b.Doc)
			}
		}
		out = append(out, re)
	}
	return out
}

// whyRootDoc says what runs a root.
func whyRootDoc(c roots.Root, e report.Entry) string {
	switch c.Kind {
	case roots.GRPC:
		if e.Method != "" {
			s := "gRPC runs it for each call of " + e.Method + " a client makes: it serves that method of " + c.Service
			if len(e.Stubs) > 0 {
				var short []string
				for _, x := range e.Stubs {
					short = append(short, report.ShortName(x))
				}
				s += " (sent by the client stub " + strings.Join(short, ", ") + ")"
			}
			return s
		}
		if c.Service != "" {
			return "gRPC runs it for each call of this method of " + c.Service + " (found from the code)"
		}
		if e.Starter != nil {
			return "gRPC calls it back for each call: a function made in " + report.ShortName(e.Starter.Function) + " and handed to the gRPC library"
		}
		return "gRPC calls it back for each call: a function handed to the gRPC library"
	case roots.HTTP:
		if e.Starter != nil {
			return "net/http runs it for each request to the pattern it is registered for in " + report.ShortName(e.Starter.Function)
		}
		return "net/http runs it for each request routed to this handler (a ServeHTTP method)"
	case roots.Callback:
		s := "the library calls it back: it is stored in " + c.Service
		if e.Starter != nil {
			s += " by " + report.ShortName(e.Starter.Function)
		}
		return s + startUpText(e)
	case roots.Main:
		return "the main function of the program " + c.Func.Pkg.Pkg.Path() + ": it runs when the program starts, and what it reaches without starting a goroutine runs in its goroutine, at start-up or when the program stops"
	}
	s := "a goroutine"
	switch {
	case e.Starter != nil && e.Helper != "":
		s = "a goroutine that " + report.ShortName(e.Helper) + " starts for the function that " + report.ShortName(e.Starter.Function) + " hands it"
	case e.Starter != nil:
		s += " started in " + report.ShortName(e.Starter.Function)
	}
	return s + startUpText(e)
}

// startUpText says which main function reaches where a root is started:
// at start-up, in its own goroutine, or later, through a goroutine it
// starts (the raft loop, on a message it receives).
func startUpText(e report.Entry) string {
	switch {
	case e.StartUp != "" && e.Later:
		return ", which " + report.ShortName(e.StartUp) + " can reach only across goroutines it starts, directly or not (later than start-up; whether it does, by the conditions on the way such as a message one receives, is not checked)"
	case e.StartUp != "":
		return ", which " + report.ShortName(e.StartUp) + " can reach at start-up (whether it does, by the conditions on the way such as a setting, is not checked)"
	}
	return ""
}

// reportWays says, per pair, how its root gets to its use.
func (w *whyRun) reportWays() []report.WhyWay {
	out := []report.WhyWay{}
	for i, p := range w.Pairs {
		way := report.WhyWay{Site: p.Site, Root: w.Entries[p.Entry].Name, By: w.by[i], Feasible: string(p.Verdict),
			Dynamic: w.Sites[p.Site].Dynamic}
		dyn := func(path callpath.Path) {
			for _, h := range path {
				way.Dynamic = way.Dynamic || hopDynamic(h)
			}
		}
		if len(p.Ways) > 0 {
			dyn(bestWay(p.Ways).Path)
		}
		for _, l := range p.Crossing {
			b := w.Boundaries[l.Boundary]
			way.HandOffs = append(way.HandOffs, b.Name)
			way.Messages = append(way.Messages, strings.Join(l.Message.Fields(), "+"))
			dyn(l.Path)
		}
		out = append(out, way)
	}
	return out
}

// hopDynamic reports whether a call goes through an interface method or
// a function value: the graph's dynamic calls, and calls of a closure
// that binds an interface method (f := x.M; f()).
func hopDynamic(h callpath.Hop) bool {
	if h.Dynamic {
		return true
	}
	if h.Site == nil {
		return false
	}
	sc := h.Site.Common().StaticCallee()
	return sc != nil && sc != h.Callee && sc.Synthetic != "" && len(sc.FreeVars) == 1 && types.IsInterface(sc.FreeVars[0].Type())
}
