package feasible

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// A function that a defer statement runs reads its maker's variables when
// the maker returns, not where the defer statement is:
//
//	ar := &Result{}
//	defer func() { if ar.Err != nil && errors.Is(ar.Err, ErrX) { … } }()
//	switch { case r.A != nil: ar.Err = a(); case r.B != nil: ar.Err = b() }
//
// A field of an object the maker made then holds what one of the maker's
// writes of it stored, each reached only under the branches that lead to
// it, or, when none ran, what the literal left there. That is the value
// the path sees, when the maker's writes are all the writes there are: the
// object's address goes only into the variables that hold it, its fields'
// addresses, loads and the maker's result.

// runsAtExit reports whether frame f runs when o's maker returns: f, or a
// frame of the path it was called from, was entered by a defer statement
// of the maker.
func runsAtExit(f *frame, o *object) bool {
	for g := f; g != nil && g.parent != nil; g = g.parent {
		if g.parent == o.fr {
			_, ok := g.callAt.(*ssa.Defer)
			return ok
		}
	}
	return false
}

// exitField is field i of the object as its maker leaves it when it
// returns; nil when the analysis cannot list every write of it.
func (o *object) exitField(i int, fv *types.Var) *value {
	if len(o.path) != 0 || fv == nil || o.fr == nil {
		return nil
	}
	if v, ok := o.exits[i]; ok {
		return v
	}
	v := o.exitField1(i, fv)
	if o.exits == nil {
		o.exits = map[int]*value{}
	}
	o.exits[i] = v
	return v
}

func (o *object) exitField1(i int, fv *types.Var) *value {
	fn := o.fr.fn
	a := o.root()
	if a.Parent() != fn {
		return nil
	}
	var writes []*ssa.Store
	own := false // the literal itself sets the field
	// uses scans what is done with the object's address p, in function
	// in: false when it goes anywhere that could write the field unseen.
	var uses func(p ssa.Value, in *ssa.Function) bool
	field := func(fa *ssa.FieldAddr, in *ssa.Function) bool {
		if fa.Field != i {
			return true
		}
		for _, r := range *fa.Referrers() {
			switch x := r.(type) {
			case *ssa.Store:
				if x.Addr != fa || in != fn {
					return false
				}
				writes = append(writes, x)
				if fa.X == a {
					own = true
				}
			case *ssa.UnOp, *ssa.DebugRef:
			default:
				return false
			}
		}
		return true
	}
	// name is the variable that holds the address, for reasons.
	name := "(" + a.Comment + ")"
	uses = func(p ssa.Value, in *ssa.Function) bool {
		for _, r := range *p.Referrers() {
			switch x := r.(type) {
			case *ssa.FieldAddr:
				if !field(x, in) {
					return false
				}
			case *ssa.DebugRef:
			case *ssa.UnOp:
				// A load of the struct's value: a copy, read only.
			case *ssa.Return:
				if in != fn {
					return false
				}
			case *ssa.Store:
				if x.Val != p || in != fn {
					return false
				}
				// A variable assigned the address once, read by the maker
				// and by function literals that only read it; or the
				// variable the maker keeps its result in.
				if v, ok := x.Addr.(*ssa.Alloc); ok && len(stores(v)) == 1 {
					if !variableUses(v, fn, uses) {
						return false
					}
					if v.Comment != "" {
						name = v.Comment
					}
				} else if !resultOnly(x.Addr) {
					return false
				}
			default:
				return false
			}
		}
		return true
	}
	if !uses(a, fn) {
		return nil
	}
	if len(writes) == 0 {
		return nil // what field1 says of a field nothing writes
	}
	// The reason an alternative gives: "left|ar.Err|dispatch".
	what := "left|" + name + "." + fv.Name() + "|" + fn.Name()
	out := &value{kind: kAlt, org: state, key: altKey{frame: o.fr.id, v: writes[0].Addr}}
	if !own {
		z := zero(fv.Type())
		z.at, z.lit = a.Pos(), o
		out.alts = append(out.alts, &alt{fr: o.fr, val: z, at: a.Pos(), what: what})
	}
	for _, st := range writes {
		al := &alt{fr: o.fr, v: st.Val, at: storePos(st), what: what}
		for _, e := range o.fr.p.c.domEdges(fn, st.Block()) {
			al.guards = append(al.guards, guard{fr: o.fr, ifi: e.ifi, want: e.want})
		}
		out.alts = append(out.alts, al)
	}
	if len(out.alts) > maxExitWrites {
		return nil
	}
	return out
}

// variableUses reports whether variable v, which holds an object's
// address, is only read, by fn and by function literals that capture it,
// and whether every address read from it passes uses.
func variableUses(v *ssa.Alloc, fn *ssa.Function, uses func(ssa.Value, *ssa.Function) bool) bool {
	for _, r := range *v.Referrers() {
		switch x := r.(type) {
		case *ssa.Store:
			// the one assignment
		case *ssa.DebugRef:
		case *ssa.UnOp:
			if !uses(x, fn) {
				return false
			}
		case *ssa.MakeClosure:
			lit, ok := x.Fn.(*ssa.Function)
			if !ok {
				return false
			}
			for j, b := range x.Bindings {
				if b != v {
					continue
				}
				if j >= len(lit.FreeVars) {
					return false
				}
				for _, fr := range *lit.FreeVars[j].Referrers() {
					switch y := fr.(type) {
					case *ssa.DebugRef:
					case *ssa.UnOp:
						if !uses(y, lit) {
							return false
						}
					default:
						return false
					}
				}
			}
		default:
			return false
		}
	}
	return true
}

// resultOnly reports whether addr is a local variable only read for the
// function's results (the variable a function with a deferred call keeps
// its result in).
func resultOnly(addr ssa.Value) bool {
	v, ok := addr.(*ssa.Alloc)
	if !ok || v.Heap {
		return false
	}
	for _, r := range *v.Referrers() {
		switch x := r.(type) {
		case *ssa.Store:
			if x.Addr != v {
				return false
			}
		case *ssa.DebugRef:
		case *ssa.UnOp:
			for _, u := range *x.Referrers() {
				if _, ok := u.(*ssa.Return); !ok {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// maxExitWrites bounds how many writes of a field exitField tells apart
// (a dispatch that stores each request kind's result in one field has one
// per kind); past it the field is what the analysis knew without them.
const maxExitWrites = 64

// storePos is where a store is written: its own position, or, for a store
// of a tuple assignment (which has none), the value's or the nearest
// instruction's before it in its block.
func storePos(st *ssa.Store) token.Pos {
	if p := st.Pos(); p.IsValid() {
		return p
	}
	if p := st.Val.Pos(); p.IsValid() {
		return p
	}
	b := st.Block()
	for i := len(b.Instrs) - 1; i >= 0; i-- {
		if b.Instrs[i] == st {
			for j := i - 1; j >= 0; j-- {
				if p := b.Instrs[j].Pos(); p.IsValid() {
					return p
				}
			}
			break
		}
	}
	return token.NoPos
}
