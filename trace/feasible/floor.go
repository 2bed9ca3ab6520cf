package feasible

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
)

// What the store keeps true of one integer field: that it is never below
// 0. A field is never below 0 when every write of it in the loaded
// program stores a value that is not (by induction over the writes: a
// read of the field gives what an earlier write stored, or the zero
// value): a constant that is not negative, the field's own value plus
// one that is not negative (a counter), a value that a branch the write
// is under has just found at or above the field's value or at or above
// a constant that is not negative (a raise: `if x < y { x = y }`), the
// length of something, or a choice (a phi) of such values. A field whose
// address is used otherwise than to load or store it (handed to a call
// such as atomic.AddInt64) may be written where no store to it shows:
// it has no floor. A write of a negative constant refutes the floor; a write of any other value (one
// received from a channel, decoded from stored data, returned by a call)
// the analysis does not bound: the floor is then assumed, not found, and
// a way that could run only with the field below 0 is not decided
// (Unknown), not listed with a condition that may never hold.

// floorKey names a field's floor among the invariants the checkers share.
func floorKey(f *types.Var) invKey { return invKey{a: f} }

// floor is the floor of integer field f (A >= 0, B nil): nil when a write
// refutes it or the analysis cannot see every write; one with Unbounded
// writes when the analysis cannot bound some of them.
func (c *Checker) floor(f *types.Var) *Invariant {
	return c.shared.once(floorKey(f), func() *Invariant { return c.findFloor(f) })
}

func (c *Checker) findFloor(f *types.Var) *Invariant {
	if !isInteger(f.Type()) || isUnsigned(f.Type()) || !c.seesAllWrites(f) || c.index().addrTaken[f] {
		return nil
	}
	ws := c.sortedWrites(f)
	if len(ws) == 0 {
		return nil
	}
	inv := &Invariant{A: f}
	for _, st := range ws {
		why, ok, bounded := c.floorWrite(f, st)
		if !ok {
			return nil
		}
		if bounded {
			inv.Writes = append(inv.Writes, c.invariantWrite(st, why, false))
		} else {
			inv.Unbounded = append(inv.Unbounded, c.invariantWrite(st, why, true))
		}
	}
	return inv
}

// sortedWrites are the writes of field f in the order of their positions
// (the index lists them in the order of a map).
func (c *Checker) sortedWrites(f *types.Var) []*ssa.Store {
	ws := append([]*ssa.Store(nil), c.index().writes[f]...)
	fset := c.text.fset
	sort.Slice(ws, func(i, j int) bool { return posLess(fset, ws[i].Pos(), ws[j].Pos()) })
	return ws
}

// invariantWrite is write st of an invariant with why it is listed;
// with sends, a write of a value received from a channel names the sends
// on that channel when the analysis finds them all.
func (c *Checker) invariantWrite(st *ssa.Store, why string, sends bool) InvariantWrite {
	w := InvariantWrite{Pos: st.Pos(), Func: st.Parent(), Why: why, Text: c.text.stmtText(st.Pos())}
	if u, isRecv := st.Val.(*ssa.UnOp); sends && isRecv && u.Op == token.ARROW {
		for _, s := range sendsOn(u.X) {
			w.Sends = append(w.Sends, InvariantSend{Pos: s.Pos(), Text: c.text.stmtText(s.Pos())})
		}
	}
	return w
}

// floorWrite says how write st of f keeps f at or above 0: ok false when
// it stores a negative constant; bounded false when the analysis cannot
// bound what it stores (why then says what the value is).
func (c *Checker) floorWrite(f *types.Var, st *ssa.Store) (why string, ok, bounded bool) {
	if w, yes := nonNeg(f, st.Val, st.Block(), map[*ssa.Phi]bool{}, 0); yes {
		return w, true, true
	}
	if _, isConst := st.Val.(*ssa.Const); isConst {
		return "a negative constant", false, false
	}
	return c.valueText(st.Val), true, false
}

// valueText says what a value a write stores is, when the analysis does
// not bound it: one received from a channel, what a call returns, a
// parameter.
func (c *Checker) valueText(v ssa.Value) string {
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op == token.ARROW {
			return "a value received from a channel"
		}
	case *ssa.Call:
		if t := c.text.callText(x); t != "" {
			return "what `" + t + "` returns"
		}
		return "what a call returns"
	case *ssa.Parameter:
		return "its function's parameter `" + x.Name() + "`"
	}
	return "a value the analysis does not bound"
}

// maxNonNegDepth bounds how deep nonNeg follows a value: through sums,
// choices, sends, variables, fields and calls' returns.
const maxNonNegDepth = 24

// nonNeg reports whether v, at the end of block at, is never below 0
// when no read of f is, and says why.
func nonNeg(f *types.Var, v ssa.Value, at *ssa.BasicBlock, phis map[*ssa.Phi]bool, depth int) (string, bool) {
	if depth > maxNonNegDepth {
		return "", false
	}
	switch x := v.(type) {
	case *ssa.Const:
		if c, exact := constInt(x); exact && c >= 0 {
			return "a constant not below 0", true
		}
		if x.Value == nil && isInteger(x.Type()) {
			return "a constant not below 0", true // the zero value
		}
		return "", false
	case *ssa.UnOp:
		if readsField(x, f) {
			return "the field's own value", true
		}
		switch x.Op {
		case token.ARROW:
			// A receive on a channel whose every send the analysis finds,
			// each of a value not below 0.
			sends := sendsOn(x.X)
			if len(sends) == 0 {
				break
			}
			for _, sd := range sends {
				if _, ok := nonNeg(f, sd.X, sd.Block(), phis, depth+1); !ok {
					return "", false
				}
			}
			return "a value received from a channel, every send on which sends a value not below 0", true
		case token.MUL:
			// A local variable's, or a field of a local struct's: what
			// each of its stores leaves (through a closure that captures
			// it too).
			if why, ok := nonNegLoad(f, x.X, nil, phis, depth+1); ok {
				return why, true
			}
		}
	case *ssa.Field:
		if why, ok := nonNegPart(f, x.X, []int{x.Field}, at, phis, depth+1); ok {
			return why, true
		}
	case *ssa.BinOp:
		if x.Op == token.ADD {
			_, a := nonNeg(f, x.X, at, phis, depth+1)
			_, b := nonNeg(f, x.Y, at, phis, depth+1)
			if a && b {
				if readsField(x.X, f) || readsField(x.Y, f) {
					return "its own value plus a value not below 0", true
				}
				return "a sum of values not below 0", true
			}
		}
	case *ssa.Call:
		if b, isB := x.Call.Value.(*ssa.Builtin); isB && (b.Name() == "len" || b.Name() == "cap") {
			return "a length", true
		}
	case *ssa.Phi:
		if phis[x] {
			return "a value not below 0", true // a loop: by induction
		}
		phis[x] = true
		for i, e := range x.Edges {
			if _, ok := nonNeg(f, e, x.Block().Preds[i], phis, depth+1); !ok {
				return "", false
			}
		}
		return "one of several values not below 0", true
	}
	if at != nil {
		if why := raised(f, v, at); why != "" {
			return why, true
		}
	}
	return "", false
}

// nonNegLoad reports whether a load through addr, a local variable or a
// field of one (path, the field indexes below addr), gives a value not
// below 0: every store to it (or to the whole of the variable, of a value
// whose part at path is not below 0) stores one, and nothing else can
// write it (its address goes to no call).
func nonNegLoad(f *types.Var, addr ssa.Value, path []int, phis map[*ssa.Phi]bool, depth int) (string, bool) {
	if depth > maxNonNegDepth {
		return "", false
	}
	switch a := addr.(type) {
	case *ssa.FieldAddr:
		return nonNegLoad(f, a.X, append([]int{a.Field}, path...), phis, depth+1)
	case *ssa.FreeVar:
		if v := boundTo(a); v != nil {
			return nonNegLoad(f, v, path, phis, depth+1)
		}
		return "", false
	case *ssa.Alloc:
		stores, ok := allStores(a)
		if !ok {
			return "", false
		}
		for _, st := range stores {
			if len(st.path) > len(path) {
				if slices.Equal(st.path[:len(path)], path) {
					return "", false // a store inside the part read: not followed
				}
				continue
			}
			if !slices.Equal(st.path, path[:len(st.path)]) {
				continue // a store of another field
			}
			if _, ok := nonNegPart(f, st.val, path[len(st.path):], st.at, phis, depth+1); !ok {
				return "", false
			}
		}
		return "a local variable whose every store is not below 0", true
	}
	return "", false
}

// nonNegPart reports whether the part of v at path (field indexes) is
// never below 0, at the end of block at: v's own when path is empty, a
// field of a struct v extracts, of what a call returns (at each of its
// returns) or of a local struct v loads.
func nonNegPart(f *types.Var, v ssa.Value, path []int, at *ssa.BasicBlock, phis map[*ssa.Phi]bool, depth int) (string, bool) {
	if depth > maxNonNegDepth {
		return "", false
	}
	if len(path) == 0 {
		return nonNeg(f, v, at, phis, depth+1)
	}
	switch x := v.(type) {
	case *ssa.Field:
		return nonNegPart(f, x.X, append([]int{x.Field}, path...), at, phis, depth+1)
	case *ssa.Call:
		fn := x.Call.StaticCallee()
		if fn == nil || fn.Blocks == nil || fn.Recover != nil {
			return "", false
		}
		n := 0
		for _, b := range fn.Blocks {
			ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
			if !ok || len(ret.Results) == 0 {
				continue
			}
			if _, ok := nonNegPart(f, ret.Results[0], path, b, phis, depth+1); !ok {
				return "", false
			}
			n++
		}
		if n == 0 {
			return "", false
		}
		return "a part of what a call returns, not below 0 at each of its returns", true
	case *ssa.UnOp:
		if x.Op == token.MUL {
			return nonNegLoad(f, x.X, path, phis, depth+1)
		}
	}
	return "", false
}

// localStore is a store into a local variable: of val, into the field at
// path below the variable (none: the whole), in block at.
type localStore struct {
	val  ssa.Value
	path []int
	at   *ssa.BasicBlock
}

// allStores are the stores into local variable a and into the fields of
// its fields, in its function and in the closures that capture it; false
// when its address, or a field's, is used otherwise than to load, store
// or take a field's address (handed to a call, say).
func allStores(a *ssa.Alloc) ([]localStore, bool) {
	seen := map[ssa.Value]bool{}
	var out []localStore
	var visit func(v ssa.Value, path []int) bool
	visit = func(v ssa.Value, path []int) bool {
		if seen[v] {
			return true
		}
		if len(path) > 6 {
			return false
		}
		seen[v] = true
		refs := v.Referrers()
		if refs == nil {
			return true
		}
		for _, r := range *refs {
			switch x := r.(type) {
			case *ssa.DebugRef:
			case *ssa.UnOp:
				if x.Op != token.MUL {
					return false
				}
			case *ssa.Store:
				if x.Addr != v {
					return false // the address itself is stored
				}
				out = append(out, localStore{val: x.Val, path: path, at: x.Block()})
			case *ssa.FieldAddr:
				if !visit(x, append(slices.Clip(path), x.Field)) {
					return false
				}
			case *ssa.MakeClosure:
				fn := x.Fn.(*ssa.Function)
				for i, b := range x.Bindings {
					if b == v && !visit(fn.FreeVars[i], path) {
						return false
					}
				}
			default:
				return false
			}
		}
		return true
	}
	if !visit(a, nil) {
		return nil, false
	}
	return out, true
}

// boundTo is the value a closure's free variable is bound to where the
// function that makes the closure makes it, when it makes it once.
func boundTo(fv *ssa.FreeVar) ssa.Value {
	if bs := callpath.FreeVarBindings(fv); len(bs) == 1 {
		return bs[0]
	}
	return nil
}

// readsField reports whether v is a load of field f (of any struct).
func readsField(v ssa.Value, f *types.Var) bool {
	u, ok := v.(*ssa.UnOp)
	if !ok || u.Op != token.MUL {
		return false
	}
	fa, ok := u.X.(*ssa.FieldAddr)
	return ok && fieldVar(fa.X.Type(), fa.Field) == f
}

// sameRead reports whether a and b are one value: the same SSA value, or
// loads of the same field of the same struct pointer.
func sameRead(a, b ssa.Value) bool {
	if a == b {
		return true
	}
	ua, ok1 := a.(*ssa.UnOp)
	ub, ok2 := b.(*ssa.UnOp)
	if !ok1 || !ok2 || ua.Op != token.MUL || ub.Op != token.MUL {
		return false
	}
	fa, ok1 := ua.X.(*ssa.FieldAddr)
	fb, ok2 := ub.X.(*ssa.FieldAddr)
	return ok1 && ok2 && fa.X == fb.X && fa.Field == fb.Field
}

// raised says how, at the end of block at, a branch of a block that
// dominates it has found v above (or at or above) a read of f, or at or
// above a constant that is not negative; "" when none has.
func raised(f *types.Var, v ssa.Value, at *ssa.BasicBlock) string {
	return dominatingTest(at, func(cmp *ssa.BinOp, op token.Token) string {
		// v >= y or v > y, with y a read of f or a constant not below 0
		// (or -1, for >).
		y, ok := orient(op, cmp.X, cmp.Y, v)
		if !ok {
			return ""
		}
		strict := op == token.GTR || op == token.LSS
		if readsField(y, f) {
			if strict {
				return "a value a branch it is under found above the field's value"
			}
			return "a value a branch it is under found at or above the field's value"
		}
		if c, isC := y.(*ssa.Const); isC {
			if n, exact := constInt(c); exact && (n >= 0 || strict && n >= -1) {
				return "a value a branch it is under found not below 0"
			}
		}
		return ""
	})
}

// dominatingTest calls visit with each comparison an if of a block that
// dominates block at tests, nearest first, and the comparison as the way
// to at takes it (negated on the false edge), until visit says something;
// only the edges a run to at must take (into a block with one
// predecessor) count.
func dominatingTest(at *ssa.BasicBlock, visit func(cmp *ssa.BinOp, op token.Token) string) string {
	for b, k := at, 0; b != nil && k < 32; b, k = b.Idom(), k+1 {
		d := b.Idom()
		if d == nil {
			return ""
		}
		ifi, ok := d.Instrs[len(d.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		cmp, ok := ifi.Cond.(*ssa.BinOp)
		if !ok {
			continue
		}
		var want bool
		switch {
		case d.Succs[0] == b && len(b.Preds) == 1:
			want = true
		case d.Succs[1] == b && len(b.Preds) == 1:
			want = false
		default:
			continue
		}
		op := cmp.Op
		if !want {
			op = negate(op)
		}
		if why := visit(cmp, op); why != "" {
			return why
		}
	}
	return ""
}

// orient returns the other operand when op, over operands a and b, says
// v >= it or v > it; ok false otherwise.
func orient(op token.Token, a, b, v ssa.Value) (ssa.Value, bool) {
	switch {
	case sameRead(a, v) && (op == token.GEQ || op == token.GTR):
		return b, true
	case sameRead(b, v) && (op == token.LEQ || op == token.LSS):
		return a, true
	}
	return nil, false
}

// stmtText is the source text of the innermost assignment, increment or
// keyed element of a composite literal at pos.
func (t *texts) stmtText(pos token.Pos) string {
	f := t.file(pos)
	if f == nil || t.fset == nil {
		return ""
	}
	var best ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil || pos < n.Pos() || pos >= n.End() {
			return false
		}
		switch n.(type) {
		case *ast.AssignStmt, *ast.IncDecStmt, *ast.KeyValueExpr, *ast.SendStmt:
			best = n // the innermost, as the walk goes down
		}
		return true
	})
	if best == nil {
		return ""
	}
	return t.src(best)
}

// sendsOn are the sends on channel ch, when it is one a function makes
// (here, or in a function that returns it) and every use of it is seen:
// a send, a receive, a conversion, a variable that holds it (a closure's
// captured variable too, whose uses are followed), a return of it as a
// receive-only channel; nil otherwise.
func sendsOn(ch ssa.Value) []*ssa.Send {
	mc := chanMade(ch, 0)
	if mc == nil {
		return nil
	}
	var out []*ssa.Send
	seen := map[ssa.Value]bool{}
	// visit follows channel value v, or, with cell, a variable that holds
	// the channel (an Alloc, or a closure's free variable bound to one).
	var visit func(v ssa.Value, cell bool, depth int) bool
	visit = func(v ssa.Value, cell bool, depth int) bool {
		if seen[v] {
			return true
		}
		if depth > 12 {
			return false
		}
		seen[v] = true
		refs := v.Referrers()
		if refs == nil {
			return true
		}
		for _, r := range *refs {
			switch x := r.(type) {
			case *ssa.DebugRef:
			case *ssa.MakeClosure:
				fn := x.Fn.(*ssa.Function)
				for i, b := range x.Bindings {
					if b == v && !visit(fn.FreeVars[i], cell, depth+1) {
						return false
					}
				}
			case *ssa.UnOp:
				switch {
				case cell && x.Op == token.MUL:
					if !visit(x, false, depth+1) {
						return false
					}
				case !cell && x.Op == token.ARROW:
				default:
					return false
				}
			case *ssa.Store:
				switch {
				case cell && x.Addr == v:
					if x.Val != mc && !seen[x.Val] {
						return false // another channel in the variable
					}
				case !cell && x.Val == v:
					a, isAlloc := x.Addr.(*ssa.Alloc)
					if !isAlloc || !visit(a, true, depth+1) {
						return false
					}
				default:
					return false
				}
			case *ssa.Send:
				if cell || x.Chan != v {
					return false // the channel itself is sent
				}
				out = append(out, x)
			case *ssa.Select:
				if cell {
					return false
				}
				for _, st := range x.States {
					if st.Chan == v && st.Dir == types.SendOnly {
						return false // a send the analysis does not list
					}
				}
			case *ssa.ChangeType:
				if cell || !visit(x, false, depth+1) {
					return false
				}
			case *ssa.Return:
				// Returned receive-only: no caller can send on it.
				if t, ok := v.Type().Underlying().(*types.Chan); cell || !ok || t.Dir() != types.RecvOnly {
					return false
				}
			case *ssa.Call:
				if b, ok := x.Call.Value.(*ssa.Builtin); !cell && ok && (b.Name() == "close" || b.Name() == "len" || b.Name() == "cap") {
					continue
				}
				return false
			default:
				return false
			}
		}
		return true
	}
	if !visit(mc, false, 0) || len(out) == 0 {
		return nil
	}
	return out
}

// chanMade is the MakeChan that channel value v is, through conversions,
// a variable that holds it and the returns of a function it is a result
// of; nil when it is none or several.
func chanMade(v ssa.Value, depth int) *ssa.MakeChan {
	if depth > 6 {
		return nil
	}
	switch x := v.(type) {
	case *ssa.MakeChan:
		return x
	case *ssa.ChangeType:
		return chanMade(x.X, depth+1)
	case *ssa.UnOp:
		// A load of a variable stored once.
		a, ok := x.X.(*ssa.Alloc)
		if x.Op != token.MUL || !ok {
			return nil
		}
		var made *ssa.MakeChan
		for _, r := range *a.Referrers() {
			if st, isSt := r.(*ssa.Store); isSt && st.Addr == a {
				if made != nil {
					return nil
				}
				if made = chanMade(st.Val, depth+1); made == nil {
					return nil
				}
			}
		}
		return made
	case *ssa.Extract:
		if call, ok := x.Tuple.(*ssa.Call); ok {
			return returnedChan(call, x.Index, depth)
		}
	case *ssa.Call:
		return returnedChan(x, 0, depth)
	}
	return nil
}

// returnedChan is the channel a static call returns as result i, made in
// the callee.
func returnedChan(call *ssa.Call, i int, depth int) *ssa.MakeChan {
	fn := call.Call.StaticCallee()
	if fn == nil || fn.Blocks == nil {
		return nil
	}
	var made *ssa.MakeChan
	for _, b := range fn.Blocks {
		if len(b.Instrs) == 0 {
			continue
		}
		if ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok {
			if i >= len(ret.Results) {
				return nil
			}
			m := chanMade(ret.Results[i], depth+1)
			if m == nil || made != nil && m != made {
				return nil
			}
			made = m
		}
	}
	return made
}
