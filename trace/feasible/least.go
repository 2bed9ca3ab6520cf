package feasible

import (
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// What an integer is never below, from how the code computes it: a
// length is at least 0, a constant is itself, a sum is at least the sum
// of its parts' floors, a call at least the least of what its returns
// give, and a sum a loop carries (`n += f(x)` from a start) at least its
// start when every part it adds is at least 0. This is the interval
// domain's lower half, as abstract interpreters compute it, kept to the
// operations that cannot lower a value: it lets a test of a cost the
// request decides (`cost > 0`) be refuted by what the cost is made of.
//
// A floor holds of every value the code can compute there, whatever the
// path (overflow aside, as everywhere in this package): it is said of the
// value's term wherever a constraint touches it (prepare).

// leastInfo is what leastOf found of a value.
type leastInfo struct {
	least int64
	ok    bool
	// carried marks a sum a loop carries: each pass adds a part that is
	// never below 0.
	carried bool
}

// maxLeastDepth bounds how deep leastOf follows calls and operands.
const maxLeastDepth = 12

// leastOf is what value v is never below.
func (c *Checker) leastOf(v ssa.Value) leastInfo {
	if c.leasts == nil {
		c.leasts = map[ssa.Value]leastInfo{}
		c.leastFns = map[*ssa.Function]leastState{}
	}
	if f, ok := c.leasts[v]; ok {
		return f
	}
	f := c.least1(v, 0, map[ssa.Value]bool{})
	c.leasts[v] = f
	return f
}

// leastState is a function's floor as leastOf works it out: while it is
// being found, a recursive call assumes it is at least 0, which the
// function's returns must then confirm.
type leastState struct {
	busy    bool
	assumed bool // a recursive call took the assumption
	f       leastInfo
}

func (c *Checker) least1(v ssa.Value, depth int, visiting map[ssa.Value]bool) leastInfo {
	if depth > maxLeastDepth || !isInteger(v.Type()) {
		return leastInfo{}
	}
	switch x := v.(type) {
	case *ssa.Const:
		if k, ok := constInt(x); ok {
			return leastInfo{least: k, ok: true}
		}
	case *ssa.Convert:
		if isInteger(x.X.Type()) {
			return c.least1(x.X, depth+1, visiting)
		}
	case *ssa.ChangeType:
		return c.least1(x.X, depth+1, visiting)
	case *ssa.BinOp:
		if x.Op != token.ADD {
			return leastInfo{}
		}
		a := c.least1(x.X, depth+1, visiting)
		if !a.ok {
			return leastInfo{}
		}
		b := c.least1(x.Y, depth+1, visiting)
		if !b.ok {
			return leastInfo{}
		}
		return leastInfo{least: a.least + b.least, ok: true}
	case *ssa.Call:
		if b, ok := x.Call.Value.(*ssa.Builtin); ok {
			if b.Name() == "len" || b.Name() == "cap" {
				return leastInfo{least: 0, ok: true}
			}
			return leastInfo{}
		}
		fn := x.Call.StaticCallee()
		if fn == nil {
			return leastInfo{}
		}
		return c.fnLeast(fn, depth+1)
	case *ssa.Phi:
		return c.phiLeast(x, depth, visiting)
	}
	return leastInfo{}
}

// fnLeast is the least of what fn's returns give (its first result).
func (c *Checker) fnLeast(fn *ssa.Function, depth int) leastInfo {
	if st, ok := c.leastFns[fn]; ok {
		if st.busy {
			st.assumed = true
			c.leastFns[fn] = st
			return leastInfo{least: 0, ok: true}
		}
		return st.f
	}
	if fn.Blocks == nil || fn.Recover != nil {
		return leastInfo{}
	}
	c.leastFns[fn] = leastState{busy: true}
	c.leastBusy++
	out := leastInfo{}
	first := true
	for _, b := range fn.Blocks {
		if len(b.Instrs) == 0 {
			continue
		}
		ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || len(ret.Results) == 0 {
			continue
		}
		f := c.least1(ret.Results[0], depth, map[ssa.Value]bool{})
		if !f.ok {
			out, first = leastInfo{}, false
			break
		}
		if first || f.least < out.least {
			out = leastInfo{least: f.least, ok: true}
		}
		first = false
	}
	if first {
		out = leastInfo{} // no return gives a value
	}
	st := c.leastFns[fn]
	if st.assumed && (!out.ok || out.least < 0) {
		// A recursive call assumed 0 or more, which the returns do not
		// confirm.
		out = leastInfo{}
	}
	c.leastBusy--
	if c.leastBusy == 0 {
		c.leastFns[fn] = leastState{f: out}
	} else {
		// Found within another function's search, perhaps under its
		// assumption: kept only once the outermost search ends.
		delete(c.leastFns, fn)
	}
	return out
}

// phiLeast is the least of a phi's edges; an edge that adds to the phi
// itself a part never below 0 (a sum a loop carries) does not lower it.
func (c *Checker) phiLeast(phi *ssa.Phi, depth int, visiting map[ssa.Value]bool) leastInfo {
	if visiting[phi] {
		return leastInfo{}
	}
	visiting[phi] = true
	defer delete(visiting, phi)
	out := leastInfo{}
	first, carried := true, false
	for _, e := range phi.Edges {
		if part, ok := addsTo(e, phi); ok {
			if p := c.least1(part, depth+1, visiting); !p.ok || p.least < 0 {
				return leastInfo{}
			}
			carried = true
			continue
		}
		f := c.least1(e, depth+1, visiting)
		if !f.ok {
			return leastInfo{}
		}
		if first || f.least < out.least {
			out = f
		}
		first = false
	}
	if first {
		return leastInfo{}
	}
	out.carried = carried
	return out
}

// addsTo reports whether e is phi plus another value (`n += part`), and
// the part.
func addsTo(e ssa.Value, phi *ssa.Phi) (ssa.Value, bool) {
	b, ok := e.(*ssa.BinOp)
	if !ok || b.Op != token.ADD {
		return nil, false
	}
	switch {
	case b.X == phi:
		return b.Y, true
	case b.Y == phi:
		return b.X, true
	}
	return nil, false
}

// leastHow names, for a reason, how a value gets its floor: "carried"
// for a sum a loop carries, "parts" for one made of parts that are never
// below theirs.
func leastHow(f leastInfo) string {
	if f.carried {
		return "carried"
	}
	return "parts"
}
