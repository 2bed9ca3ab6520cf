package feasible

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// What a map's values name in another map of the same struct. When every
// put into map field A (`s.A[k] = v`) is made under a branch that found v
// a key of map field B of the same struct (`l := s.B[v]; if l == nil {
// return }`), and A is otherwise given only new, empty maps, every value
// A holds was a key of B when it was put. It stays one unless a key is
// removed from B (a delete, a new map stored in B) while A still names
// it.
//
// A way that needs a key missing from B (the lookup nil, or not ok),
// where the key is a value of A the way needs not zero (so an entry A
// holds, not what a lookup of a missing key gives), is not decided
// (Unknown): the analysis does not show that the writes that remove keys
// from B keep A's values among them, nor that the two maps are of one
// struct. It never makes a way No.

// MapRef is what the values of map field A name in map field B.
type MapRef struct {
	A, B *types.Var
	// Puts are the puts into A, each made under a branch that found its
	// value a key of B; Guards are those branches' conditions.
	Puts   []InvariantWrite
	Guards []token.Pos
	// Fresh says that A is also given new, empty maps (the only other
	// writes of it).
	Fresh bool
	// NonNil says that every put into B stores a value that is not nil,
	// so that a key of B is never looked up as nil; BPuts are those puts.
	NonNil bool
	BPuts  []InvariantWrite
	// Emptied are the new maps stored in B together with new maps stored
	// in A (the same function, the same struct): removals that leave no
	// value of A behind.
	Emptied []InvariantWrite
	// Removes are the writes that may remove keys from B: deletes, maps
	// stored in B, and uses of its map the analysis does not follow.
	Removes []InvariantWrite
}

type refKey struct{ a, b *types.Var }

// mapRef is what A's values name in B; nil when a put into A is not made
// under a branch that found its value a key of B.
func (c *Checker) mapRef(a, b *types.Var) *MapRef {
	return c.shared.ref(refKey{a, b}, func() *MapRef { return c.findMapRef(a, b) })
}

func (c *Checker) findMapRef(a, b *types.Var) *MapRef {
	am, ok1 := a.Type().Underlying().(*types.Map)
	bm, ok2 := b.Type().Underlying().(*types.Map)
	if !ok1 || !ok2 || !types.Identical(am.Elem(), bm.Key()) {
		return nil
	}
	ix := c.index()
	puts := ix.mapWrites[a]
	if len(puts) == 0 {
		return nil
	}
	r := &MapRef{A: a, B: b, NonNil: true}
	for _, u := range sortedUpdates(c, puts) {
		base := mapBase(u.Map)
		if base == nil {
			return nil
		}
		guard := token.NoPos
		for _, e := range c.domEdges(u.Parent(), u.Block()) {
			if present(e.ifi.Cond, e.want, b, base, u.Value) {
				guard = e.ifi.Cond.Pos()
				if bo, ok := e.ifi.Cond.(*ssa.BinOp); ok {
					guard = bo.Pos()
				}
			}
		}
		if !guard.IsValid() {
			return nil
		}
		r.Puts = append(r.Puts, InvariantWrite{Pos: u.Pos(), Func: u.Parent(), Text: c.text.stmtText(u.Pos())})
		r.Guards = append(r.Guards, guard)
	}
	for _, st := range c.sortedWrites(a) {
		if _, made := st.Val.(*ssa.MakeMap); !made {
			return nil
		}
		r.Fresh = true
	}
	for _, u := range sortedUpdates(c, ix.mapWrites[b]) {
		if !neverNil(u.Value, 0) {
			r.NonNil = false
		}
		r.BPuts = append(r.BPuts, InvariantWrite{Pos: u.Pos(), Func: u.Parent(), Text: c.text.stmtText(u.Pos())})
	}
	for _, st := range c.sortedWrites(b) {
		if emptiedWith(st, c.sortedWrites(a)) {
			if !madeWrite(st) {
				r.Emptied = append(r.Emptied, InvariantWrite{Pos: st.Pos(), Func: st.Parent(), Text: c.text.stmtText(st.Pos())})
			}
			continue
		}
		r.Removes = append(r.Removes, InvariantWrite{Pos: st.Pos(), Func: st.Parent(), Text: c.text.stmtText(st.Pos())})
	}
	for _, ld := range ix.mapReads[b] {
		for _, ref := range *ld.Referrers() {
			switch x := ref.(type) {
			case *ssa.Lookup, *ssa.Range, *ssa.DebugRef, *ssa.MapUpdate:
				continue
			case *ssa.Call:
				if bi, ok := x.Call.Value.(*ssa.Builtin); ok && bi.Name() == "len" {
					continue
				}
				r.Removes = append(r.Removes, InvariantWrite{Pos: x.Pos(), Func: x.Parent(), Text: c.text.callText(x)})
			default:
				if ins, ok := ref.(ssa.Instruction); ok {
					r.Removes = append(r.Removes, InvariantWrite{Pos: ld.Pos(), Func: ins.Parent(), Text: c.text.stmtText(ld.Pos())})
				}
			}
		}
	}
	sortWrites(c, r.Removes)
	return r
}

// emptiedWith reports whether st stores a new map in a field of a struct
// whose field a, in the same function, is also given a new map by one of
// as: both are emptied together, so no value of a names a key removed.
func emptiedWith(st *ssa.Store, as []*ssa.Store) bool {
	if _, made := st.Val.(*ssa.MakeMap); !made {
		return false
	}
	fa, ok := st.Addr.(*ssa.FieldAddr)
	if !ok {
		return false
	}
	for _, x := range as {
		xa, ok := x.Addr.(*ssa.FieldAddr)
		if _, made := x.Val.(*ssa.MakeMap); made && ok && x.Parent() == st.Parent() && xa.X == fa.X {
			return true
		}
	}
	return false
}

// sortedUpdates are us in the order of their positions.
func sortedUpdates(c *Checker, us []*ssa.MapUpdate) []*ssa.MapUpdate {
	out := append([]*ssa.MapUpdate(nil), us...)
	fset := c.text.fset
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && posLess(fset, out[j].Pos(), out[j-1].Pos()); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func sortWrites(c *Checker, ws []InvariantWrite) {
	fset := c.text.fset
	for i := 1; i < len(ws); i++ {
		for j := i; j > 0 && posLess(fset, ws[j].Pos, ws[j-1].Pos); j-- {
			ws[j], ws[j-1] = ws[j-1], ws[j]
		}
	}
}

// mapBase is the struct whose field the map m is loaded from.
func mapBase(m ssa.Value) ssa.Value {
	if heldIn(m) == nil {
		return nil
	}
	return m.(*ssa.UnOp).X.(*ssa.FieldAddr).X
}

// present reports whether the outcome want of cond says that key is a key
// of map field b of base: `s.b[key] != nil` (or not `== nil`), or the ok
// of `_, ok := s.b[key]`.
func present(cond ssa.Value, want bool, b *types.Var, base, key ssa.Value) bool {
	lk, _, found, ok := lookupTest(cond, want)
	return ok && found && heldIn(lk.X) == b && mapBase(lk.X) == base && lk.Index == key
}

// lookupTest reads cond, taken with outcome want, as a test of a map
// lookup: found says whether the outcome means the key was found (a
// lookup not nil, or ok); commaOk that it tests the ok of `v, ok :=
// m[k]`.
func lookupTest(cond ssa.Value, want bool) (lk *ssa.Lookup, commaOk, found, ok bool) {
	switch x := cond.(type) {
	case *ssa.UnOp:
		if x.Op == token.NOT {
			return lookupTest(x.X, !want)
		}
	case *ssa.Extract:
		if l, isL := x.Tuple.(*ssa.Lookup); isL && l.CommaOk && x.Index == 1 {
			return l, true, want, true
		}
	case *ssa.BinOp:
		if x.Op != token.EQL && x.Op != token.NEQ {
			return nil, false, false, false
		}
		other := x.X
		if k, isK := x.X.(*ssa.Const); isK && k.IsNil() {
			other = x.Y
		} else if k, isK := x.Y.(*ssa.Const); !isK || !k.IsNil() {
			return nil, false, false, false
		}
		l, isL := other.(*ssa.Lookup)
		if !isL || l.CommaOk {
			return nil, false, false, false
		}
		// found: the value is not nil.
		return l, false, (x.Op == token.NEQ) == want, true
	}
	return nil, false, false, false
}

// neverNil reports whether v is never nil: an allocation, a new map,
// slice or closure, or what a function returns when every return of it
// is such a value.
func neverNil(v ssa.Value, depth int) bool {
	switch x := v.(type) {
	case *ssa.Alloc, *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeClosure:
		return true
	case *ssa.MakeInterface:
		return true
	case *ssa.Phi:
		if depth > 4 {
			return false
		}
		for _, e := range x.Edges {
			if e == x {
				continue
			}
			if !neverNil(e, depth+1) {
				return false
			}
		}
		return len(x.Edges) > 0
	case *ssa.Call:
		fn := x.Call.StaticCallee()
		if fn == nil || len(fn.Blocks) == 0 || depth > 4 {
			return false
		}
		n := 0
		for _, b := range fn.Blocks {
			if len(b.Instrs) == 0 || b == fn.Recover {
				continue
			}
			if r, isRet := b.Instrs[len(b.Instrs)-1].(*ssa.Return); isRet {
				if len(r.Results) != 1 || !neverNil(r.Results[0], depth+1) {
					return false
				}
				n++
			}
		}
		return n > 0
	}
	return false
}

// Referenced is the Why of a path's condition of class Gave when the way
// needs a key missing from a map that a value of another map names
// (Cond.Ref): whether the writes that remove keys from the first keep
// the second's values among its keys is not decided.
const Referenced = "referenced"

// refNeeded makes an OnlyIf or Yes result Unknown when the way needs a
// key missing from map B, where the key is a value of map A that the way
// needs not zero, and A's values name keys of B (mapRef).
func (w *walk) refNeeded(res Result) Result {
	for i := len(res.Conds) - 1; i >= 0; i-- {
		c := &res.Conds[i]
		lk, commaOk, b, fr, ok := w.missedLookup(c)
		if !ok {
			continue
		}
		src, at, chain := w.origin(fr, lk.Index)
		call, isCall := src.(*ssa.Call)
		if !isCall {
			continue
		}
		a, from := w.c.lookupReturns(call)
		if a == nil {
			continue
		}
		nz := notZeroCond(res.Conds, at.fn, chain)
		if nz == nil {
			continue
		}
		mr := w.c.mapRef(a, b)
		if mr == nil || !commaOk && !mr.NonNil {
			continue
		}
		cond := Cond{Class: Gave, Why: Referenced, Func: c.Func, Pos: c.Pos, Text: c.Text, Ref: mr,
			Reads: []token.Pos{from, lk.Pos()}, NotZero: nz, RefNil: !commaOk}
		return gaveOn(res, cond, []*Cond{c}, b)
	}
	return res
}

// missedLookup reads c, a condition of state, as a lookup in a map
// field (b) that the way needs to miss: the lookup, whether it is `v, ok
// :=`, and the frame of the path that makes it.
func (w *walk) missedLookup(c *Cond) (lk *ssa.Lookup, commaOk bool, b *types.Var, fr *frame, ok bool) {
	if c.Class != State || c.If == nil {
		return nil, false, nil, nil, false
	}
	lk, commaOk, found, ok := lookupTest(c.If.Cond, c.Want)
	if !ok || found {
		return nil, false, nil, nil, false
	}
	b, fr = heldIn(lk.X), w.frameOf(c.Func)
	return lk, commaOk, b, fr, b != nil && fr != nil
}

// frameOf is the last frame of the path's stack whose function is fn.
func (w *walk) frameOf(fn *ssa.Function) *frame {
	for i := len(w.frames) - 1; i >= 0; i-- {
		if w.frames[i].fn == fn {
			return w.frames[i]
		}
	}
	return nil
}

// origin follows v up the path, through conversions and from a
// parameter to the argument its caller on the path passed, to where it
// is made; at is the frame that makes it, and chain the values followed
// in that frame.
func (w *walk) origin(fr *frame, v ssa.Value) (src ssa.Value, at *frame, chain []ssa.Value) {
	for k := 0; k < 64; k++ {
		chain = append(chain, v)
		switch x := v.(type) {
		case *ssa.ChangeType:
			v = x.X
			continue
		case *ssa.Convert:
			v = x.X
			continue
		case *ssa.Phi:
			// A value that is one of several, all zero but one: the way
			// needs it not zero (notZeroCond), so it is that one.
			var one ssa.Value
			for _, e := range x.Edges {
				if k, isK := e.(*ssa.Const); isK && isZeroConst(k) {
					continue
				}
				if one != nil && one != e {
					return v, fr, chain
				}
				one = e
			}
			if one == nil {
				return v, fr, chain
			}
			v = one
			continue
		case *ssa.Parameter:
			arg := argOf(fr, x)
			if arg == nil {
				return v, fr, chain
			}
			fr, v, chain = fr.parent, arg, nil
			continue
		}
		return v, fr, chain
	}
	return v, fr, chain
}

// argOf is the argument fr's caller on the path passed for parameter p;
// nil when fr has no caller on the path.
func argOf(fr *frame, p *ssa.Parameter) ssa.Value {
	if fr.parent == nil || fr.callAt == nil || fr.inline {
		return nil
	}
	i := -1
	for j, q := range fr.fn.Params {
		if q == p {
			i = j
		}
	}
	cc := fr.callAt.Common()
	if cc.IsInvoke() {
		if fr.fn.Signature.Recv() == nil {
			return nil
		}
		if i == 0 {
			return cc.Value
		}
		i--
	} else if fr.fn.Signature.Recv() != nil && len(cc.Args) == len(fr.fn.Params)-1 {
		// A method value called (`a.dispatch` handed on as a function):
		// its receiver is bound, not among the arguments.
		i--
	}
	if i < 0 || i >= len(cc.Args) {
		return nil
	}
	return cc.Args[i]
}

// lookupReturns is the map field every function call may run returns a
// lookup of (or the zero value, from a function that has no map), and
// where the first such lookup is; nil when some return is anything else.
func (c *Checker) lookupReturns(call *ssa.Call) (*types.Var, token.Pos) {
	fns := c.calleesOf(call)
	if len(fns) == 0 || len(fns) > 8 {
		return nil, token.NoPos
	}
	var a *types.Var
	at := token.NoPos
	for _, fn := range fns {
		if len(fn.Blocks) == 0 {
			return nil, token.NoPos
		}
		for _, b := range fn.Blocks {
			if len(b.Instrs) == 0 || b == fn.Recover {
				continue
			}
			r, isRet := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
			if !isRet {
				continue
			}
			if len(r.Results) != 1 {
				return nil, token.NoPos
			}
			switch x := c.stored(r.Results[0]).(type) {
			case *ssa.Const:
				if !isZeroConst(x) {
					return nil, token.NoPos
				}
			case *ssa.Lookup:
				f := heldIn(x.X)
				if f == nil || x.CommaOk || a != nil && a != f {
					return nil, token.NoPos
				}
				if a == nil || posLess(c.text.fset, x.Pos(), at) {
					at = x.Pos()
				}
				a = f
			default:
				return nil, token.NoPos
			}
		}
	}
	return a, at
}

// isZeroConst reports whether k is its type's zero value.
func isZeroConst(k *ssa.Const) bool {
	if k.Value == nil {
		return true
	}
	return k.IsNil() || isZero(k) || k.Value.ExactString() == `""` || k.Value.ExactString() == "false"
}

// notZeroCond is the condition of the way, in fn, that needs one of vs
// not its type's zero value (`x != NoLease`, with NoLease 0).
func notZeroCond(conds []Cond, fn *ssa.Function, vs []ssa.Value) *Cond {
	for i := range conds {
		c := &conds[i]
		if c.Func != fn || c.If == nil {
			continue
		}
		bo, ok := c.If.Cond.(*ssa.BinOp)
		if !ok || (bo.Op == token.NEQ) != c.Want || bo.Op != token.NEQ && bo.Op != token.EQL {
			continue
		}
		for _, v := range vs {
			if k, isK := bo.Y.(*ssa.Const); isK && bo.X == v && isZeroConst(k) {
				return c
			}
			if k, isK := bo.X.(*ssa.Const); isK && bo.Y == v && isZeroConst(k) {
				return c
			}
		}
	}
	return nil
}
