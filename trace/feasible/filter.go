package feasible

import (
	"fmt"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// What a filter keeps. A call beside the way that rewrites a slice field
// from what it held (rewrites) is often a filter: it keeps the elements
// that pass a test and drops the others, in place (`j := 0; for i := …
// { if drop(s[i]) { continue }; s[j] = s[i]; j++ }; return s[:j]`).
// Every element it leaves passed its test, and is one the slice held.
// So a later test of an element of the slice, the same test of the same
// element's parts, is decided by it where the way's element is one of
// that slice's: where the way needs the outcome the filter keeps, the
// element is one the request held with that outcome, and the call
// changes nothing the test asks of the request; where it needs the other
// outcome, no element the call leaves has it, and the way runs only if
// it does not make the call: it needs the branch the call is made under
// not taken.

// keep is what every element a filter leaves passed: its test of the
// element (shape, relative to the element), the outcome (want), and where
// the test is.
type keep struct {
	shape  string
	typ    types.Type // the type its test asserts, if it asserts one
	want   bool
	at     token.Pos
	fields []*types.Var // set by keptOutcome: the slices of the way's element
	// through, with outcome recursed, is the way's function that calls
	// itself.
	through *ssa.Function
}

// filterKeeps is what a run of fn leaves in field f, when every write of
// f that fn makes, or a function it calls by name a few calls deep, is
// of a filter's result (filterFunc) handed what f held, each the same
// filter; false otherwise, or when it makes none.
func (c *Checker) filterKeeps(fn *ssa.Function, f *types.Var, handed *ssa.Parameter) (keep, bool) {
	var stores []*ssa.Store
	// made: a run of fn that returns makes one of the stores into the
	// struct it is handed (handed, its parameter): each on every way from
	// its function's entry to a return, with no recover that could return
	// past it, by calls each so, none deferred or started in a goroutine.
	made := false
	var visit func(fn *ssa.Function, depth int, always bool, p *ssa.Parameter) bool
	seen := map[*ssa.Function]bool{}
	visit = func(fn *ssa.Function, depth int, always bool, p *ssa.Parameter) bool {
		if fn == nil || seen[fn] {
			return true
		}
		seen[fn] = true
		if fn.Blocks == nil || depth > maxRewrite {
			return !c.mayWrite(fn, f) // what it may write is not seen
		}
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				switch x := ins.(type) {
				case *ssa.Store:
					if fa, ok := x.Addr.(*ssa.FieldAddr); ok && fieldVar(fa.X.Type(), fa.Field) == f && !madeWrite(x) {
						stores = append(stores, x)
						made = made || p != nil && fa.X == ssa.Value(p) && always && fn.Recover == nil && everyReturnPasses(fn, b)
					}
				case ssa.CallInstruction:
					if g := x.Common().StaticCallee(); g != nil {
						// What g is handed of the struct: the parameter
						// its argument is, when it is p itself.
						var gp *ssa.Parameter
						for i, a := range x.Common().Args {
							if p != nil && a == ssa.Value(p) && i < len(g.Params) {
								gp = g.Params[i]
							}
						}
						_, sync := x.(*ssa.Call)
						if !visit(g, depth+1, always && sync && fn.Recover == nil && everyReturnPasses(fn, b), gp) {
							return false
						}
					} else if c.anyCallee(x, func(g *ssa.Function) bool { return c.mayWrite(g, f) }) {
						return false
					}
				}
			}
		}
		return true
	}
	if !visit(fn, 0, true, handed) || len(stores) == 0 || !made {
		return keep{}, false
	}
	var out keep
	for i, st := range stores {
		call, ok := st.Val.(*ssa.Call)
		if !ok || len(call.Call.Args) != 1 || !loadsField(call.Call.Args[0], f) {
			return keep{}, false
		}
		k, ok := c.filterFunc(call.Call.StaticCallee())
		if !ok || i > 0 && !k.sameAs(out) {
			return keep{}, false
		}
		out = k
	}
	return out, true
}

// everyReturnPasses reports whether every way from fn's entry to one of
// its returns passes block b: a run that returns from fn ran b.
func everyReturnPasses(fn *ssa.Function, b *ssa.BasicBlock) bool {
	if len(fn.Blocks) == 0 {
		return false
	}
	seen := map[*ssa.BasicBlock]bool{b: true}
	stack := []*ssa.BasicBlock{fn.Blocks[0]}
	if fn.Blocks[0] == b {
		return true
	}
	seen[fn.Blocks[0]] = true
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n := len(x.Instrs); n > 0 {
			if _, ret := x.Instrs[n-1].(*ssa.Return); ret {
				return false
			}
		}
		for _, s := range x.Succs {
			if !seen[s] {
				seen[s] = true
				stack = append(stack, s)
			}
		}
	}
	return true
}

// sameAs reports whether k and o are one filter's test.
func (k keep) sameAs(o keep) bool {
	return k.shape == o.shape && k.want == o.want && k.at == o.at && (k.typ == nil) == (o.typ == nil) && (k.typ == nil || types.Identical(k.typ, o.typ))
}

// filterFunc is what g keeps when g filters the slice it is given in
// place: it returns s[:j] of its one parameter s; it uses s only to index
// it, take its length and slice it so; every store into s's elements
// stores at j an element it loaded from s, under one test of that same
// element; and j is 0 at first and grows only by 1 just after such a
// store at j. So each element of s[:j] is one s held, stored there under
// the test. False when g is not so.
func (c *Checker) filterFunc(g *ssa.Function) (keep, bool) {
	if g == nil {
		return keep{}, false
	}
	if k, ok := c.filterMemo[g]; ok {
		return k.k, k.ok
	}
	k, ok := filterFunc1(c, g)
	if c.filterMemo == nil {
		c.filterMemo = map[*ssa.Function]keepMemo{}
	}
	c.filterMemo[g] = keepMemo{k, ok}
	return k, ok
}

type keepMemo struct {
	k  keep
	ok bool
}

func filterFunc1(c *Checker, g *ssa.Function) (keep, bool) {
	if g.Blocks == nil || len(g.Params) != 1 || g.Recover != nil {
		return keep{}, false
	}
	s := g.Params[0]
	if _, isSlice := s.Type().Underlying().(*types.Slice); !isSlice {
		return keep{}, false
	}
	// The one return: s[:j].
	var j ssa.Value
	for _, b := range g.Blocks {
		if len(b.Instrs) == 0 {
			continue
		}
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		if j != nil || len(ret.Results) != 1 {
			return keep{}, false
		}
		sl, ok := ret.Results[0].(*ssa.Slice)
		if !ok || sl.X != s || sl.Low != nil || sl.Max != nil || sl.High == nil {
			return keep{}, false
		}
		j = sl.High
	}
	if j == nil {
		return keep{}, false
	}
	// s is only indexed, measured and sliced so; its stores are of its
	// own elements.
	var stores []*ssa.Store
	for _, r := range *s.Referrers() {
		switch x := r.(type) {
		case *ssa.DebugRef:
		case *ssa.IndexAddr:
			for _, rr := range *x.Referrers() {
				switch y := rr.(type) {
				case *ssa.DebugRef:
				case *ssa.UnOp:
					if y.Op != token.MUL {
						return keep{}, false
					}
				case *ssa.Store:
					if y.Addr != x {
						return keep{}, false // the address stored elsewhere
					}
					stores = append(stores, y)
				default:
					return keep{}, false
				}
			}
		case *ssa.Slice:
			if x.X != s || x.Low != nil || x.Max != nil || x.High != j {
				return keep{}, false
			}
		case *ssa.Call:
			if b, ok := x.Call.Value.(*ssa.Builtin); !ok || b.Name() != "len" {
				return keep{}, false
			}
		default:
			return keep{}, false
		}
	}
	if len(stores) == 0 {
		return keep{}, false
	}
	// j's values: 0, or one of them plus 1 just after a store at it.
	counter := map[ssa.Value]bool{}
	var grow func(v ssa.Value) bool
	grow = func(v ssa.Value) bool {
		if counter[v] {
			return true
		}
		counter[v] = true
		switch x := v.(type) {
		case *ssa.Const:
			return x.Value != nil && x.Int64() == 0
		case *ssa.Phi:
			for _, e := range x.Edges {
				if !grow(e) {
					return false
				}
			}
			return true
		case *ssa.BinOp:
			one, ok := x.Y.(*ssa.Const)
			if x.Op != token.ADD || !ok || one.Value == nil || one.Int64() != 1 || !storedAtBefore(stores, x.X, x) {
				return false
			}
			return grow(x.X)
		}
		return false
	}
	if !grow(j) {
		return keep{}, false
	}
	var out keep
	for i, st := range stores {
		ia := st.Addr.(*ssa.IndexAddr)
		if !counter[ia.Index] {
			return keep{}, false
		}
		u, ok := st.Val.(*ssa.UnOp)
		if !ok || u.Op != token.MUL {
			return keep{}, false
		}
		from, ok := u.X.(*ssa.IndexAddr)
		if !ok || from.X != s {
			return keep{}, false
		}
		k, ok := c.guardOf(g, st, s, from.Index)
		if !ok || i > 0 && !k.sameAs(out) {
			return keep{}, false
		}
		out = k
	}
	return out, true
}

// storedAtBefore reports whether one of stores stores at index i in the
// block of instruction x, before it.
func storedAtBefore(stores []*ssa.Store, i ssa.Value, x ssa.Instruction) bool {
	for _, st := range stores {
		if st.Addr.(*ssa.IndexAddr).Index == i && st.Block() == x.Block() && instrIndex(st) < instrIndex(x) {
			return true
		}
	}
	return false
}

// guardOf is the one test of element s[i] that the store st is under (a
// branch of g that dominates it, whose condition is a test of a load of
// s[i]), with the outcome it takes there.
func (c *Checker) guardOf(g *ssa.Function, st *ssa.Store, s ssa.Value, i ssa.Value) (keep, bool) {
	var out keep
	found := false
	for _, e := range c.domEdges(g, st.Block()) {
		root, shape, typ, flip, ok := shapeTyped(e.ifi.Cond)
		if !ok {
			continue
		}
		ia, ok := root.X.(*ssa.IndexAddr)
		if !ok || ia.X != s || ia.Index != i {
			continue
		}
		if found {
			return keep{}, false // two tests: not one this words
		}
		_, pos, _ := c.text.condText(e.ifi)
		out, found = keep{shape: shape, typ: typ, want: e.want != flip, at: pos}, true
	}
	return out, found
}

// shapeOf is, for a condition that tests parts of one element of a slice
// (a load of an element's address, root), the test relative to the
// element: the field loads, type assertions and extractions from it to
// the condition; flip says the condition is the test's negation.
func shapeOf(v ssa.Value) (root *ssa.UnOp, shape string, flip, ok bool) {
	root, shape, _, flip, ok = shapeTyped(v)
	return root, shape, flip, ok
}

// shapeTyped is shapeOf with the type the test's type assertion asserts
// given apart (nil when it has none), and not in shape: two tests whose
// shapes are the same and assert different concrete types of one value
// cannot both hold.
func shapeTyped(v ssa.Value) (root *ssa.UnOp, shape string, asserted types.Type, flip, ok bool) {
	var b strings.Builder
	for k := 0; k < 16; k++ {
		switch x := v.(type) {
		case *ssa.UnOp:
			switch x.Op {
			case token.NOT:
				flip = !flip
				v = x.X
				continue
			case token.MUL:
				switch a := x.X.(type) {
				case *ssa.IndexAddr:
					return x, b.String(), asserted, flip, true
				case *ssa.FieldAddr:
					fmt.Fprintf(&b, "field %p/", fieldVar(a.X.Type(), a.Field))
					v = a.X
					continue
				}
			}
		case *ssa.Field:
			fmt.Fprintf(&b, "field %p/", fieldVar(x.X.Type(), x.Field))
			v = x.X
			continue
		case *ssa.Extract:
			fmt.Fprintf(&b, "extract %d/", x.Index)
			v = x.Tuple
			continue
		case *ssa.TypeAssert:
			if !x.CommaOk || asserted != nil {
				return nil, "", nil, false, false
			}
			asserted = x.AssertedType
			b.WriteString("assert/")
			v = x.X
			continue
		}
		return nil, "", nil, false, false
	}
	return nil, "", nil, false, false
}

// What a filter beside the way says of a test of the way (keptOutcome).
type filterOutcome int

const (
	notFilter  filterOutcome = iota // the call is not a filter this reads
	otherTest                       // a filter, and c does not decide whether it keeps the element c tests
	keptOut                         // c needs an element the filter keeps
	droppedOut                      // c needs an element the filter drops
	unlinked                        // c decides it, of an element not shown to be of what it filters
	recursed                        // c needs an element the filter drops, read in a function that calls itself
	early                           // c reads an element of the slice as it was loaded before the call
	again                           // code the way may run between the call and c may write what c reads
)

// keptOutcome decides test c, of an element of the slice in field f that
// the call beside the way (call, in frame fr) rewrites, when the call's
// callee is a filter (filterKeeps), c is its test of an element, and the
// element's slice is read from the same struct the call is handed
// (through the path's calls), from fields it filters alike: keptOut
// says the way needs the outcome the filter keeps, so the call changes
// nothing the test asks of the request (the element is one the request
// held); droppedOut that it needs the other, so the way runs only if it
// does not make the call. A filter only drops elements: a test of what
// it leaves that is not its own (otherTest) is of elements the request
// held.
func (w *walk) keptOutcome(c *Cond, fr *frame, call ssa.CallInstruction, f *types.Var) (filterOutcome, keep) {
	callee := call.Common().StaticCallee()
	if callee == nil {
		return notFilter, keep{}
	}
	// The parameter the call hands the struct to, whose field the filter
	// must write.
	handed, hok := handedBase(call, f)
	var param *ssa.Parameter
	for i, a := range call.Common().Args {
		if hok && a == handed && i < len(callee.Params) {
			param = callee.Params[i]
		}
	}
	k, ok := w.c.filterKeeps(callee, f, param)
	if !ok {
		return notFilter, keep{}
	}
	if w.writtenBetween(c, fr, call, append(append([]*types.Var{f}, c.Fields...), k.fields...)) {
		return again, k
	}
	if c.taken == nil || c.If == nil {
		return otherTest, k
	}
	root, shape, typ, flip, ok := shapeTyped(c.If.Cond)
	if !ok || k.shape != shape || (k.typ == nil) != (typ == nil) {
		return otherTest, k
	}
	// The same test, or one that asserts another concrete type of the
	// same part of the element (`is *Put` where the filter tests `is
	// *Range`): an element of that type is not of the filter's.
	same := typ == nil || types.Identical(typ, k.typ)
	if !same && (types.IsInterface(typ) || types.IsInterface(k.typ)) {
		return otherTest, k
	}
	// An element at a fixed place (the first, the last) may, after the
	// filter, be one that came later: what it keeps says nothing of it,
	// but no element the filter leaves has what it drops.
	fixedPlace := !loopIndex(root.X.(*ssa.IndexAddr).Index)
	cfr := w.condFrame(c)
	if !hok || cfr == nil {
		return unlinked, k
	}
	hroot, hfr, hpath := w.accessPath(fr, handed)
	// The element's slice: one field's load, or one of several (a phi).
	sl := root.X.(*ssa.IndexAddr).X
	var loads []ssa.Value
	if phi, isPhi := sl.(*ssa.Phi); isPhi {
		loads = phi.Edges
	} else {
		loads = []ssa.Value{sl}
	}
	for _, l := range loads {
		u, isLoad := l.(*ssa.UnOp)
		if !isLoad || u.Op != token.MUL {
			return unlinked, k
		}
		fa, isField := u.X.(*ssa.FieldAddr)
		if !isField {
			return unlinked, k
		}
		if cfr == fr && !runsAfter(call, u) {
			return early, k // the slice as it was before the call (a copy of it)
		}
		g := fieldVar(fa.X.Type(), fa.Field)
		if gk, gok := w.c.filterKeeps(callee, g, param); !gok || !gk.sameAs(k) {
			return unlinked, k
		}
		r, rfr, path := w.accessPath(cfr, fa.X)
		if r != hroot || rfr != hfr || !slices.Equal(path, hpath) {
			return unlinked, k
		}
	}
	for _, l := range loads {
		fa := l.(*ssa.UnOp).X.(*ssa.FieldAddr)
		if g := fieldVar(fa.X.Type(), fa.Field); !slices.Contains(k.fields, g) {
			k.fields = append(k.fields, g)
		}
	}
	needs := c.If.Block().Succs[0] == c.taken != flip // the outcome the way needs of its test
	if fixedPlace && !(same && needs != k.want || !same && needs && k.want) {
		return otherTest, k
	}
	dropped := func() (filterOutcome, keep) {
		// A function of the way past the call that calls itself may be
		// handed, on a way the path does not take, a struct held in an
		// element the filter keeps (a transaction nested in another),
		// which the filter does not reach.
		for i := fr.idx; i <= cfr.idx && i < len(w.frames); i++ {
			if w.c.recursive(w.frames[i].fn) {
				k.through = w.frames[i].fn
				return recursed, k
			}
		}
		return droppedOut, k
	}
	switch {
	case same && needs == k.want:
		return keptOut, k
	case same:
		return dropped()
	case needs && !k.want:
		return keptOut, k // of another type: the filter's test is false of it, and it keeps those
	case needs:
		return dropped() // it keeps only elements of its own type
	}
	return otherTest, k // not of that type: it may be of the filter's or not
}

// writtenBetween reports whether code the way may run after call (made
// in frame fr) and before test c may write one of fields: a store to
// one, or a call of code that may (insWrites), in the path's functions
// from fr's to c's, up to each one's next step (or c); a step itself
// where it may run again after its test (in a loop).
func (w *walk) writtenBetween(c *Cond, fr *frame, call ssa.CallInstruction, fields []*types.Var) bool {
	for k := fr.idx; k <= c.hop && k < len(w.frames); k++ {
		f := w.frames[k]
		until := w.stepBefore(c, k)
		if until == nil {
			continue
		}
		for _, b := range f.fn.Blocks {
			for _, ins := range b.Instrs {
				if ins == call {
					continue
				}
				if ci, ok := ins.(ssa.CallInstruction); ok && k < c.hop && ci == f.site {
					if !inCycle(b) {
						continue // the way's step: what it writes after the test comes after
					}
				} else if ins == until || !mayRunBefore(ins, until) {
					continue
				}
				if k == fr.idx && !mayRunBefore(call, ins) {
					continue // before the call
				}
				for _, v := range fields {
					if v != nil && w.c.insWrites(ins, v) {
						return true
					}
				}
			}
		}
	}
	return false
}

// runsAfter reports whether every run that comes to instruction later,
// in call's function, made call first.
func runsAfter(call ssa.CallInstruction, later ssa.Instruction) bool {
	cb, lb := call.Block(), later.Block()
	if cb == lb {
		return instrIndex(call) < instrIndex(later)
	}
	return cb.Dominates(lb)
}

// recursive reports whether fn can call itself, by calls of the graph.
func (c *Checker) recursive(fn *ssa.Function) bool {
	if r, ok := c.recursiveMemo[fn]; ok {
		return r
	}
	r := false
	if n := c.g.CG.Nodes[fn]; n != nil {
		for _, e := range n.Out {
			if g := e.Callee.Func; g == fn || g != nil && c.g.Reachable(g)[fn] {
				r = true
				break
			}
		}
	}
	if c.recursiveMemo == nil {
		c.recursiveMemo = map[*ssa.Function]bool{}
	}
	c.recursiveMemo[fn] = r
	return r
}

// loopIndex reports whether index v is a loop's counter: a phi, or one
// plus a phi that v flows back into (`for i := range s`), not a place
// fixed apart from the loop.
func loopIndex(v ssa.Value) bool {
	switch x := v.(type) {
	case *ssa.Phi:
		return true
	case *ssa.BinOp:
		phi, ok := x.X.(*ssa.Phi)
		return ok && x.Op == token.ADD && slices.Contains(phi.Edges, v)
	}
	return false
}

// accessPath is v as a chain of field loads from a value that is not
// one (a local the path allocates, a root's parameter), followed back
// through the path's calls: the root value, its frame, and the fields
// from it, outermost first.
func (w *walk) accessPath(fr *frame, v ssa.Value) (ssa.Value, *frame, []*types.Var) {
	var rev []*types.Var
	for k := 0; k < 32; k++ {
		switch x := v.(type) {
		case *ssa.UnOp:
			if fa, ok := x.X.(*ssa.FieldAddr); ok && x.Op == token.MUL {
				rev = append(rev, fieldVar(fa.X.Type(), fa.Field))
				v = fa.X
				continue
			}
			if a, ok := x.X.(*ssa.Alloc); ok && x.Op == token.MUL {
				// A local the function keeps the value in (a parameter
				// a closure or a deferred call captures): what the one
				// store that reaches the load stored.
				if st := w.c.reachingStore(x, a); st != nil {
					v = st.Val
					continue
				}
				if st := onlyStore(a); st != nil {
					v = st.Val
					continue
				}
			}
		case *ssa.FieldAddr:
			// &s.f handed on: the same struct's field.
			rev = append(rev, fieldVar(x.X.Type(), x.Field))
			v = x.X
			continue
		case *ssa.ChangeType:
			v = x.X
			continue
		case *ssa.Parameter:
			if arg := argOf(fr, x); arg != nil {
				fr, v = fr.parent, arg
				continue
			}
		}
		break
	}
	slices.Reverse(rev)
	return v, fr, rev
}

// condFrame is the path's frame that holds test c: the one the way meets
// it in, when c is in its function.
func (w *walk) condFrame(c *Cond) *frame {
	if c.hop < 0 || c.hop >= len(w.frames) {
		return nil
	}
	if fr := w.frames[c.hop]; fr.fn == c.If.Parent() {
		return fr
	}
	return nil
}

// onlyStore is the one store of local a, when every other use of it is
// a load, or the binding of a closure that only loads it: a variable
// assigned once, which closures read.
func onlyStore(a *ssa.Alloc) *ssa.Store {
	var one *ssa.Store
	for _, r := range *a.Referrers() {
		switch x := r.(type) {
		case *ssa.DebugRef:
		case *ssa.Store:
			if x.Addr != a || one != nil {
				return nil
			}
			one = x
		case *ssa.UnOp:
			if x.Op != token.MUL {
				return nil
			}
		case *ssa.MakeClosure:
			fn := x.Fn.(*ssa.Function)
			for i, b := range x.Bindings {
				if b != ssa.Value(a) {
					continue
				}
				if i >= len(fn.FreeVars) {
					return nil
				}
				for _, fr := range *fn.FreeVars[i].Referrers() {
					if _, isDebug := fr.(*ssa.DebugRef); isDebug {
						continue
					}
					if u, isLoad := fr.(*ssa.UnOp); !isLoad || u.Op != token.MUL {
						return nil // the closure writes it, or hands its address on
					}
				}
			}
		default:
			return nil
		}
	}
	return one
}
