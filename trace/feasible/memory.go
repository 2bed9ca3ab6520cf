package feasible

import (
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// sameLoad returns an earlier load of local variable a in its function
// that load must equal: it comes first on every way to load, and nothing
// that may write a can run in between (a store to it, or a call given it
// or a closure that captures it). Nil when there is none.
func (c *Checker) sameLoad(load *ssa.UnOp, a *ssa.Alloc) *ssa.UnOp {
	k := loadKey{load, a}
	if l, ok := c.loads[k]; ok {
		return l
	}
	l := c.sameLoad1(load, a)
	if c.loads == nil {
		c.loads = map[loadKey]*ssa.UnOp{}
	}
	c.loads[k] = l
	return l
}

type loadKey struct {
	load *ssa.UnOp
	a    *ssa.Alloc
}

func (c *Checker) sameLoad1(load *ssa.UnOp, a *ssa.Alloc) *ssa.UnOp {
	writers, ok := c.varWriters(a)
	if !ok {
		return nil
	}
	var best *ssa.UnOp
	for _, r := range *a.Referrers() {
		l, isLoad := r.(*ssa.UnOp)
		if !isLoad || l == load || l.X != a {
			continue
		}
		if !precedes(l, load) || !noneBetween(l, load, writers) {
			continue
		}
		if best == nil || precedes(best, l) {
			best = l
		}
	}
	if best != nil {
		// The earliest such load names the value.
		if earlier := c.sameLoad(best, a); earlier != nil {
			return earlier
		}
	}
	return best
}

// reachingStore is the store of local variable a that comes before load
// on every way to it with no other write of a between; nil when there is
// none, or a is used otherwise than by its loads and stores (a closure
// that captures it, a call given its address) and one of those uses can
// run before the load (callsAfter). Such a variable is a
// result of a function that defers a call: named, or the slot its value
// waits in while the deferred calls run.
func (c *Checker) reachingStore(load *ssa.UnOp, a *ssa.Alloc) *ssa.Store {
	k := loadKey{load, a}
	if st, ok := c.stores[k]; ok {
		return st
	}
	var out *ssa.Store
	if writers, ok := c.varWriters(a); ok && (onlyLoadsStores(a) || callsAfter(writers, load)) {
		for w := range writers {
			st, isStore := w.(*ssa.Store)
			if isStore && st.Addr == a && precedes(st, load) && noneBetween(st, load, writers) {
				out = st
				break
			}
		}
	}
	if c.stores == nil {
		c.stores = map[loadKey]*ssa.Store{}
	}
	c.stores[k] = out
	return out
}

// callsAfter reports whether every writer of a local variable that is
// not a store of it (a call of a closure that captures it, a call given
// its address, the deferred calls' run) can run only after load: none
// comes before it on a way to it. A variable that closures capture but
// that nothing calls before the load is written only by its stores up
// to there.
func callsAfter(writers map[ssa.Instruction]bool, load ssa.Instruction) bool {
	for w := range writers {
		switch w.(type) {
		case *ssa.Store, *ssa.Defer:
			continue // a deferred call runs where the deferred calls are run, a writer too
		}
		if mayRunBefore(w, load) {
			return false
		}
	}
	return true
}

// mayRunBefore reports whether instruction x can run before y on a way to
// y (in one function): earlier in y's block, or in a block from which
// y's can be reached.
func mayRunBefore(x, y ssa.Instruction) bool {
	bx, by := x.Block(), y.Block()
	return bx == by && instrIndex(x) < instrIndex(y) || reachedAfter(bx, by)
}

// stored is v, or, for a load of a local variable that one store reaches
// (a result kept in a variable while deferred calls run), the value that
// store stores.
func (c *Checker) stored(v ssa.Value) ssa.Value {
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.MUL {
		if a, ok := u.X.(*ssa.Alloc); ok {
			if st := c.reachingStore(u, a); st != nil {
				return st.Val
			}
		}
	}
	return v
}

// onlyLoadsStores reports whether local variable a is used only by
// loads and stores of it.
func onlyLoadsStores(a *ssa.Alloc) bool {
	for _, r := range *a.Referrers() {
		switch x := r.(type) {
		case *ssa.UnOp:
			if x.Op != token.MUL {
				return false
			}
		case *ssa.Store:
			if x.Addr != a {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// varWriters are the instructions that may write local variable a; false
// when a is used in a way the analysis does not follow.
func (c *Checker) varWriters(a *ssa.Alloc) (map[ssa.Instruction]bool, bool) {
	if w, ok := c.writersOf[a]; ok {
		return w, w != nil
	}
	out := map[ssa.Instruction]bool{}
	ok := true
	deferred := false
	for _, r := range *a.Referrers() {
		switch x := r.(type) {
		case *ssa.UnOp, *ssa.DebugRef:
		case *ssa.Store:
			if x.Addr == a {
				out[x] = true
			} else {
				ok = false // its address kept elsewhere
			}
		case *ssa.MakeClosure:
			// Whoever calls the closure may write it.
			for _, cr := range *x.Referrers() {
				switch y := cr.(type) {
				case ssa.CallInstruction:
					out[y] = true
					if _, isDefer := y.(*ssa.Defer); isDefer {
						deferred = true
					}
				case *ssa.DebugRef:
				default:
					ok = false
				}
			}
		case ssa.CallInstruction:
			out[x] = true
			if _, isDefer := x.(*ssa.Defer); isDefer {
				deferred = true
			}
		default:
			ok = false
		}
	}
	if deferred {
		// A deferred call runs where the deferred calls are run (a named
		// result's return, a panic's way out), not at its defer statement.
		for _, b := range a.Parent().Blocks {
			for _, ins := range b.Instrs {
				if _, isRun := ins.(*ssa.RunDefers); isRun {
					out[ins] = true
				}
			}
		}
	}
	if !ok {
		c.writersOf[a] = nil
		return nil, false
	}
	c.writersOf[a] = out
	return out, true
}

// precedes reports whether x comes before y on every way to y (in one
// function).
func precedes(x, y ssa.Instruction) bool {
	bx, by := x.Block(), y.Block()
	if bx == by {
		return instrIndex(x) < instrIndex(y)
	}
	return bx.Dominates(by)
}

// noneBetween reports whether no instruction of set can run after x and
// before y.
func noneBetween(x, y ssa.Instruction, set map[ssa.Instruction]bool) bool {
	if len(set) == 0 {
		return true
	}
	bx, by := x.Block(), y.Block()
	xi, yi := instrIndex(x), instrIndex(y)
	in := func(b *ssa.BasicBlock, from, to int) bool {
		for i := from; i < to && i < len(b.Instrs); i++ {
			if set[b.Instrs[i]] {
				return true
			}
		}
		return false
	}
	if bx == by {
		return !in(bx, xi+1, yi)
	}
	if in(bx, xi+1, len(bx.Instrs)) {
		return false
	}
	reach := reachesTo(by)
	seen := map[*ssa.BasicBlock]bool{}
	stack := append([]*ssa.BasicBlock(nil), bx.Succs...)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b] || !reach[b] {
			continue
		}
		seen[b] = true
		end := len(b.Instrs)
		if b == by {
			end = yi
		}
		if b == bx {
			end = xi // round a loop
		}
		if in(b, 0, end) {
			return false
		}
		if b == by {
			continue
		}
		stack = append(stack, b.Succs...)
	}
	return true
}

// MayRunBefore reports whether instruction x can run before y in their
// function (mayRunBefore): earlier in y's block, or in a block a run can
// go on from to y's.
func MayRunBefore(x, y ssa.Instruction) bool { return mayRunBefore(x, y) }
