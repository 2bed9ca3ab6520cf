package trace

import (
	"fmt"
	"go/token"
	"go/types"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/roots"
	"github.com/srctrace/srctrace/trace/study"
)

// An error that a use returns reaches the user only if every function on
// the way back up to the root returns it in turn. handsBack follows it
// up a way, one call at a time, in each caller from the call on: the
// caller's results it is returned as, taking only the branches that the
// error itself decides (`err != nil`, `err == E` and `errors.Is(err, E)`
// for the error E the use returns; every other branch both ways).

// backVerdict says whether an error comes back up a way.
type backVerdict int

const (
	backYes     backVerdict = iota // returned at every call up to the root
	backUnknown                    // kept somewhere this analysis does not follow
	backNo                         // some caller does not return it
)

// back is what handsBack found: for backNo, the caller that does not
// return the error and its call whose result it is.
type back struct {
	v    backVerdict
	fn   *ssa.Function
	call token.Pos
}

// handsBack follows the error that use si returns up path, from the
// use's function to the path's root. A use that is no return of the
// object (an assignment, an argument) is not followed (backUnknown).
func (w *whyRun) handsBack(si int, path callpath.Path) back {
	s := w.Sites[si]
	g, _ := s.Object.(*types.Var)
	if s.Func == nil || g == nil {
		return back{v: backUnknown}
	}
	idx := returnedAt(s.Func, s.Instr, g)
	if len(idx) == 0 {
		return back{v: backUnknown}
	}
	for i := len(path) - 1; i >= 0; i-- {
		h := path[i]
		sites := w.Graph.Sites(h.Caller, h.Callee)
		if len(sites) == 0 && h.Site != nil {
			sites = []ssa.CallInstruction{h.Site}
		}
		next := map[int]bool{}
		unknown := false
		for _, site := range sites {
			for _, k := range idx {
				rs, ok := w.flowBack(h.Caller, site, k, g)
				if !ok {
					unknown = true
				}
				for _, r := range rs {
					next[r] = true
				}
			}
		}
		if unknown {
			return back{v: backUnknown}
		}
		if len(next) == 0 {
			var at token.Pos
			if len(sites) > 0 {
				at = sites[0].Pos()
			}
			return back{v: backNo, fn: h.Caller, call: at}
		}
		idx = idx[:0]
		for r := range next {
			idx = append(idx, r)
		}
		sort.Ints(idx)
	}
	return back{v: backYes}
}

// returnedAt lists the results of fn at which the return that use instr
// is (or whose value it loads) returns package-level variable g.
func returnedAt(fn *ssa.Function, instr ssa.Instruction, g *types.Var) []int {
	rets := map[*ssa.Return]bool{}
	vars := map[*ssa.Alloc]bool{}
	if d, ok := instr.(*ssa.DebugRef); ok {
		instr, _ = d.X.(ssa.Instruction)
	}
	switch x := instr.(type) {
	case *ssa.Return:
		rets[x] = true
	case ssa.Value:
		seen := map[ssa.Value]bool{}
		var walk func(v ssa.Value)
		walk = func(v ssa.Value) {
			if seen[v] || v.Referrers() == nil {
				return
			}
			seen[v] = true
			for _, r := range *v.Referrers() {
				switch y := r.(type) {
				case *ssa.Return:
					rets[y] = true
				case *ssa.MakeInterface, *ssa.ChangeInterface, *ssa.ChangeType:
					walk(y.(ssa.Value))
				case *ssa.Store:
					// A result variable (in a function with a defer, the
					// return stores its results there and returns them
					// after the deferred calls).
					if a, ok := y.Addr.(*ssa.Alloc); ok && y.Val == v {
						vars[a] = true
					}
				}
			}
		}
		walk(x)
	}
	seen := map[int]bool{}
	var out []int
	for _, b := range fn.Blocks {
		r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		mine := rets[r]
		for j, v := range r.Results {
			if !callpath.IsError(fn.Signature.Results().At(j).Type()) || seen[j] {
				continue
			}
			if mine && loadsVar(v, g) || loadsAlloc(v, vars) {
				seen[j] = true
				out = append(out, j)
			}
		}
	}
	sort.Ints(out)
	return out
}

// loadsAlloc reports whether v is read from one of vars.
func loadsAlloc(v ssa.Value, vars map[*ssa.Alloc]bool) bool {
	u, ok := v.(*ssa.UnOp)
	if !ok || u.Op != token.MUL {
		return false
	}
	a, ok := u.X.(*ssa.Alloc)
	return ok && vars[a]
}

// loadsVar reports whether v is package-level variable g's value.
func loadsVar(v ssa.Value, g *types.Var) bool {
	x, ok := callpath.Unconvert(v).(*ssa.UnOp)
	if !ok {
		return false
	}
	gl, ok := x.X.(*ssa.Global)
	return ok && x.Op == token.MUL && gl.Object() == g
}

// flowBack follows the error that call site returns as its result k
// through caller: the caller's results it is returned at (as it is, or
// through a translate function), and whether that was decided (false
// when the error, or a value made from it, is kept in memory, sent,
// handed to a goroutine, or returned after a call made from it).
func (w *whyRun) flowBack(caller *ssa.Function, site ssa.CallInstruction, k int, g *types.Var) ([]int, bool) {
	key := backKey{caller, site, k, g}
	if c := w.backCache(); c != nil {
		c.mu.Lock()
		r, ok := c.flows[key]
		c.mu.Unlock()
		if ok {
			return r.results, r.decided
		}
	}
	rs, ok := flowBack(caller, site, k, g, w.translate)
	if c := w.backCache(); c != nil {
		c.mu.Lock()
		c.flows[key] = backFlow{rs, ok}
		c.mu.Unlock()
	}
	return rs, ok
}

type backKey struct {
	caller *ssa.Function
	site   ssa.CallInstruction
	k      int
	g      *types.Var
}

type backFlow struct {
	results []int
	decided bool
}

// backs are what the flows back found, shared by the runs on one call
// graph: a flow depends on the functions only.
type backs struct {
	mu    sync.Mutex
	flows map[backKey]backFlow
}

func (w *whyRun) backCache() *backs {
	if w.cache == nil {
		return nil
	}
	return &w.cache.backs
}

func flowBack(caller *ssa.Function, site ssa.CallInstruction, k int, g *types.Var, translate map[*ssa.Function]bool) ([]int, bool) {
	call, ok := site.(*ssa.Call)
	if !ok {
		// A go or defer statement: the callee's results are dropped.
		return nil, true
	}
	// exact are the values that are the error itself wherever they are
	// defined; made are values computed from it.
	exact := map[ssa.Value]bool{}
	held := map[ssa.Value]bool{}
	made := map[ssa.Value]bool{}
	if call.Call.Signature().Results().Len() == 1 {
		if k == 0 {
			exact[call] = true
		}
	} else if call.Referrers() != nil {
		for _, r := range *call.Referrers() {
			if e, ok := r.(*ssa.Extract); ok && e.Index == k {
				exact[e] = true
			}
		}
	}
	if len(exact) == 0 {
		return nil, true // the result is not read
	}
	// decide says which way an If on the error goes: 1 true, 0 false, -1
	// either.
	var decide func(v ssa.Value) int
	decide = func(v ssa.Value) int {
		switch x := v.(type) {
		case *ssa.UnOp:
			if x.Op == token.NOT {
				if d := decide(x.X); d >= 0 {
					return 1 - d
				}
			}
		case *ssa.BinOp:
			if x.Op != token.EQL && x.Op != token.NEQ {
				return -1
			}
			d := sameAs(exact, x.X, x.Y, g)
			if d < 0 {
				d = sameAs(exact, x.Y, x.X, g)
			}
			if d >= 0 && x.Op == token.NEQ {
				d = 1 - d
			}
			return d
		case *ssa.Call:
			if f := x.Call.StaticCallee(); f != nil && f.Pkg != nil && f.Pkg.Pkg.Path() == "errors" && f.Name() == "Is" && len(x.Call.Args) == 2 {
				if exactValue(exact, x.Call.Args[0]) && loadsVar(x.Call.Args[1], g) {
					return 1
				}
			}
		}
		return -1
	}
	// The blocks the error can reach from the call, by the edges the
	// error's own tests leave.
	reach := map[*ssa.BasicBlock]bool{}
	taken := map[[2]*ssa.BasicBlock]bool{}
	var visit func(b *ssa.BasicBlock)
	visit = func(b *ssa.BasicBlock) {
		if reach[b] {
			return
		}
		reach[b] = true
		succs := b.Succs
		if ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If); ok {
			switch decide(ifi.Cond) {
			case 1:
				succs = b.Succs[:1]
			case 0:
				succs = b.Succs[1:]
			}
		}
		for _, s := range succs {
			taken[[2]*ssa.BasicBlock{b, s}] = true
			visit(s)
		}
	}
	visit(call.Block())
	// What the error flows into, until nothing changes: a phi takes it
	// only along an edge the error can take.
	var out []int
	results := map[int]bool{}
	decided := true
	for changed := true; changed; {
		changed = false
		add := func(m map[ssa.Value]bool, v ssa.Value) {
			if !m[v] {
				m[v] = true
				changed = true
			}
		}
		for _, b := range caller.Blocks {
			if !reach[b] {
				continue
			}
			for _, instr := range b.Instrs {
				switch x := instr.(type) {
				case *ssa.Phi:
					for i, e := range x.Edges {
						if taken[[2]*ssa.BasicBlock{b.Preds[i], b}] {
							switch {
							case exact[e] || isExactConv(exact, e):
								add(exact, x)
							case held[e]:
								add(held, x)
							case made[e]:
								add(made, x)
							}
						}
					}
				case *ssa.MakeInterface, *ssa.ChangeInterface, *ssa.ChangeType:
					v := x.(ssa.Value)
					op := x.Operands(nil)[0]
					switch {
					case exact[*op]:
						add(exact, v)
					case held[*op]:
						add(held, v)
					case made[*op]:
						add(made, v)
					}
				case *ssa.Return:
					for j, r := range x.Results {
						if exact[r] || held[r] || made[r] && translated(r, translate) {
							results[j] = true
						} else if made[r] {
							decided = false
						}
					}
				case *ssa.Store:
					// Into a local variable (a result that a deferred call
					// may read, a variable a closure shares) the error
					// itself: what is read from it may be the error (held).
					// Into a local array (the slice of a variadic call's
					// arguments) a value made from it: what is read from it
					// is made from it. Anywhere else: not followed.
					a := callpath.BaseAlloc(x.Addr)
					switch {
					case (exact[x.Val] || held[x.Val]) && a != nil && a == x.Addr:
						add(held, a)
					case (exact[x.Val] || held[x.Val] || made[x.Val]) && a != nil:
						add(made, a)
						add(made, x.Addr)
					case exact[x.Val] || held[x.Val] || made[x.Val]:
						decided = false
					}
				case *ssa.UnOp:
					if x.Op == token.MUL {
						switch {
						case held[x.X]:
							add(held, x)
						case made[x.X]:
							add(made, x)
						}
						continue
					}
					if exact[x.X] || held[x.X] || made[x.X] {
						add(made, x)
					}
				case *ssa.Send, *ssa.MapUpdate, *ssa.Go, *ssa.Defer, *ssa.MakeClosure:
					for _, op := range x.Operands(nil) {
						if *op != nil && (exact[*op] || held[*op] || made[*op]) {
							decided = false
						}
					}
				case *ssa.Panic:
					// The error does not come back as a result.
				case *ssa.If, *ssa.BinOp:
					// A test of the error: no value of it.
				default:
					v, ok := x.(ssa.Value)
					if !ok {
						continue
					}
					if c, ok := x.(*ssa.Call); ok {
						if f := c.Call.StaticCallee(); f != nil && f.Pkg != nil && f.Pkg.Pkg.Path() == "errors" && f.Name() == "Is" {
							continue
						}
					}
					for _, op := range x.Operands(nil) {
						if *op != nil && (exact[*op] || held[*op] || made[*op]) {
							add(made, v)
						}
					}
				}
			}
		}
	}
	for j := range results {
		out = append(out, j)
	}
	sort.Ints(out)
	return out, decided
}

// sameAs decides x == y where x may be the error: 1 when x is the error
// and y is g's value, 0 when x is the error and y is nil, -1 otherwise.
func sameAs(exact map[ssa.Value]bool, x, y ssa.Value, g *types.Var) int {
	if !exactValue(exact, x) {
		return -1
	}
	if c, ok := y.(*ssa.Const); ok && c.IsNil() {
		return 0
	}
	if loadsVar(y, g) {
		return 1
	}
	return -1
}

// exactValue reports whether v is the error itself wherever it is
// defined: the call's result or a conversion of it (not a phi, which is
// the error only along some edges).
func exactValue(exact map[ssa.Value]bool, v ssa.Value) bool {
	if _, ok := v.(*ssa.Phi); ok {
		return false
	}
	return exact[v] || isExactConv(exact, v)
}

func isExactConv(exact map[ssa.Value]bool, v ssa.Value) bool {
	switch x := v.(type) {
	case *ssa.MakeInterface:
		return exact[x.X]
	case *ssa.ChangeInterface:
		return exact[x.X]
	case *ssa.ChangeType:
		return exact[x.X]
	}
	return false
}

// translated reports whether v is a call of a translate function (the
// error the wire carries).
func translated(v ssa.Value, translate map[*ssa.Function]bool) bool {
	c, ok := v.(*ssa.Call)
	if !ok {
		return false
	}
	f := c.Call.StaticCallee()
	return f != nil && translate[f]
}

// droppedLog records, per use and gRPC root, the first way (of those
// that can run) along which the error does not come back, when none
// does.
type droppedLog struct {
	mu  sync.Mutex
	not map[dropKey]back
	// quiet is the same for goroutine roots (quietPairs).
	quiet map[dropKey]back
}

type dropKey struct {
	si   int
	root *ssa.Function
}

func newDroppedLog() *droppedLog {
	return &droppedLog{not: map[dropKey]back{}, quiet: map[dropKey]back{}}
}

// returnsIt reports whether the error that use si returns can come back
// to root along one of ways that can run (or that is not decided). When
// it comes back along none of them and e (root's entry, nil for ways that
// start across a hand-off) is given, the other paths from the root to the
// use, up to searchBound, are looked at too: one that hands the error
// back and can run is enough. When none does, the first way's reason is
// logged.
func (w *whyRun) returnsIt(si int, root *ssa.Function, e *study.EntryPoint, ways []study.Way) bool {
	first, handed := w.firstDrop(si, ways)
	if handed || first == nil {
		return true // handed back, or no way that can run: not the question here
	}
	if e != nil {
		checked := map[string]bool{}
		for _, way := range ways {
			checked[pathKey(way.Path)] = true
		}
		s := w.Sites[si]
		for _, path := range w.Graph.Paths(e.Func, s.Func, searchBound) {
			if checked[pathKey(path)] || w.handsBack(si, path).v == backNo {
				continue
			}
			if res, _ := w.check(*e, path, s.Instr, nil, nil); feasibleVerdict(res.Verdict) {
				return true
			}
		}
	}
	if w.dropped != nil {
		w.dropped.mu.Lock()
		w.dropped.not[dropKey{si, root}] = *first
		w.dropped.mu.Unlock()
	}
	return false
}

// firstDrop follows the error use si returns back along each of ways
// that can run: back when one hands it back (or cannot say), and
// otherwise the first way's end (nil when no way can run).
func (w *whyRun) firstDrop(si int, ways []study.Way) (first *back, handed bool) {
	for _, way := range ways {
		if !feasibleVerdict(way.Res.Verdict) {
			continue
		}
		b := w.handsBack(si, way.Path)
		if b.v != backNo {
			return nil, true
		}
		if first == nil {
			first = &b
		}
	}
	return first, false
}

// quietPairs logs, of the pairs of goroutine roots (found from the code)
// and uses that can hand the error on, those whose error comes back to
// the root along none of their ways that can run (of those checked), with
// where the first way back ends. What a goroutine hands a waiting
// handler (a result it triggers) is not followed: the log says only that
// no way returns the error to the goroutine's function.
func (w *whyRun) quietPairs() {
	for _, p := range w.Pairs {
		e := w.Entries[p.Entry]
		if e.Func == nil || e.Found != "code" || e.Kind != roots.Goroutine || !produces(w.Sites[p.Site].Kind) {
			continue
		}
		first, returned := w.firstDrop(p.Site, p.Ways)
		if !returned && first != nil {
			w.dropped.mu.Lock()
			w.dropped.quiet[dropKey{p.Site, e.Func}] = *first
			w.dropped.mu.Unlock()
		}
	}
}

// dropPairs logs, of the pairs of gRPC roots (found from the code) and
// uses that can hand the error on, those whose error comes back along
// none of their ways that can run.
func (w *whyRun) dropPairs() {
	for _, p := range w.Pairs {
		e := w.Entries[p.Entry]
		if e.Func == nil || e.Found != "code" || e.Kind != roots.GRPC || !produces(w.Sites[p.Site].Kind) {
			continue
		}
		var ep *study.EntryPoint
		if len(p.Crossing) == 0 {
			ep = &e
		}
		w.returnsIt(p.Site, e.Func, ep, p.Ways)
	}
}

// pathKey names a call path by its calls.
func pathKey(p callpath.Path) string {
	var b strings.Builder
	for _, h := range p {
		fmt.Fprintf(&b, "%p>%p@%p;", h.Caller, h.Callee, h.Site)
	}
	return b.String()
}

// onlyTested returns where fn tests the error results of its call at
// pos, when it does nothing else with them: it compares them (with nil,
// or with an error by errors.Is) and hands them nowhere, so what the call
// returned goes no further than those tests. ok is false when fn does
// anything else with one (returns, stores, sends, wraps or passes it),
// or has no such call.
func onlyTested(fn *ssa.Function, pos token.Pos) (tests []token.Pos, ok bool) {
	var call *ssa.Call
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if c, isCall := instr.(*ssa.Call); isCall && c.Pos() == pos {
				call = c
			}
		}
	}
	if call == nil || call.Referrers() == nil {
		return nil, false
	}
	var errs []ssa.Value
	res := call.Call.Signature().Results()
	if res.Len() == 1 && callpath.IsError(res.At(0).Type()) {
		errs = append(errs, call)
	} else {
		for _, r := range *call.Referrers() {
			if e, isExt := r.(*ssa.Extract); isExt && callpath.IsError(res.At(e.Index).Type()) {
				errs = append(errs, e)
			}
		}
	}
	if len(errs) == 0 {
		return nil, false
	}
	seen := map[ssa.Value]bool{}
	var walk func(v ssa.Value) bool
	walk = func(v ssa.Value) bool {
		if seen[v] {
			return true
		}
		seen[v] = true
		if v.Referrers() == nil {
			return true
		}
		for _, r := range *v.Referrers() {
			switch x := r.(type) {
			case *ssa.DebugRef:
			case *ssa.BinOp:
				if x.Op != token.EQL && x.Op != token.NEQ {
					return false
				}
				tests = append(tests, x.Pos())
			case *ssa.Phi:
				if !walk(x) {
					return false
				}
			case *ssa.Call:
				f := x.Call.StaticCallee()
				if f == nil || f.Pkg == nil || f.Pkg.Pkg.Path() != "errors" || f.Name() != "Is" {
					return false
				}
				tests = append(tests, x.Pos())
			default:
				return false
			}
		}
		return true
	}
	for _, e := range errs {
		if !walk(e) {
			return nil, false
		}
	}
	sort.Slice(tests, func(i, j int) bool { return tests[i] < tests[j] })
	return tests, len(tests) > 0
}
