package feasible

import (
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

// varWriters are the instructions that may write local variable a; false
// when a is used in a way the analysis does not follow.
func (c *Checker) varWriters(a *ssa.Alloc) (map[ssa.Instruction]bool, bool) {
	if w, ok := c.writersOf[a]; ok {
		return w, w != nil
	}
	out := map[ssa.Instruction]bool{}
	ok := true
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
				case *ssa.DebugRef:
				default:
					ok = false
				}
			}
		case ssa.CallInstruction:
			out[x] = true
		default:
			ok = false
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
