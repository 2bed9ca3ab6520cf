package feasible

import (
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// A call through an interface runs a method of the value's dynamic type.
// When the program makes values of that type in one place only, and only
// under a branch of state,
//
//	if noSpaceAlarms { a.applyV3 = newApplierV3Capped(a.applyV3) }
//
// a way through the method needs that branch to have been taken when the
// value was made, though the way itself takes no branch of it. madeConds
// lists such branches with the way's conditions; they are not used to
// refute it (they held at another time).

// Made is the type a condition guards the making of.
type Made struct {
	Type  *types.TypeName
	Maker *ssa.Function // the function that allocates it
	// Kept: the condition keeps the value made in the field it is stored
	// in (a run that took the other way would replace it).
	Kept bool
}

// pointee is the named struct type t points to, or nil.
func pointee(t types.Type) *types.TypeName {
	p, ok := t.Underlying().(*types.Pointer)
	if !ok {
		return nil
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	if !ok {
		return nil
	}
	if _, isStruct := n.Underlying().(*types.Struct); !isStruct {
		return nil
	}
	return n.Obj()
}

// madeConds are the conditions of state under which the receiver of the
// call at site, when it runs callee through an interface and the path
// does not know the value, was made.
func (w *walk) madeConds(fr *frame, site ssa.CallInstruction, callee *ssa.Function) []Cond {
	c := site.Common()
	if !c.IsInvoke() || callee.Synthetic != "" || callee.Signature.Recv() == nil {
		return nil
	}
	if recv := fr.eval(c.Value); recv.kind == kObj || recv.kind == kNonNil && recv.dyn != nil {
		return nil
	}
	tn := pointee(callee.Signature.Recv().Type())
	if tn == nil {
		return nil
	}
	if cs, ok := w.c.madeMemo[tn]; ok {
		return cs
	}
	cs := w.madeConds1(tn)
	if w.c.madeMemo == nil {
		w.c.madeMemo = map[*types.TypeName][]Cond{}
	}
	w.c.madeMemo[tn] = cs
	return cs
}

func (w *walk) madeConds1(tn *types.TypeName) []Cond {
	ix := w.c.index()
	allocs := ix.made[tn]
	if len(allocs) != 1 || ix.inner[tn] {
		return nil
	}
	a := allocs[0]
	maker := a.Parent()
	fn, blk := maker, a.Block()
	es := w.c.domEdges(fn, blk)
	made := len(es) // es[made:] keep the value in its field
	if len(es) == 0 {
		// Made on every call of its maker: the branches of the one call
		// of it, if there is one.
		var sites []ssa.CallInstruction
		if n := w.c.g.CG.Nodes[maker]; n != nil {
			for _, e := range n.In {
				if e.Site != nil && e.Site.Common().StaticCallee() == maker {
					sites = append(sites, e.Site)
				}
			}
		}
		if len(sites) != 1 {
			return nil
		}
		fn, blk = sites[0].Parent(), sites[0].Block()
		es = w.c.domEdges(fn, blk)
		made = len(es)
		es = append(es, w.c.notOverwritten(sites[0])...)
	}
	rf := w.newFrame(fn, nil, nil)
	rf.root, rf.rootState = true, true
	var out []Cond
	for i, e := range es {
		text, pos, flip := w.c.text.condText(e.ifi)
		cd := Cond{Func: fn, If: e.ifi, Text: text, Pos: pos, Want: e.want != flip, Made: &Made{Type: tn, Maker: maker, Kept: i >= made}}
		cd.Whole = w.c.text.whole(pos, text)
		w.classify(rf, &cd, e.ifi.Cond, e.want)
		if cd.Class != State {
			continue
		}
		cd.Fields = fieldsRead(e.ifi.Cond)
		out = append(out, cd)
	}
	return out
}

// notOverwritten are the edges a run must not take for the field that the
// call's result is stored in to keep it: a later store to the same field
// of the same value, in its function, under one branch that the store of
// the result is not under (`if corruptAlarms { a.applyV3 =
// newApplierV3Corrupt(a.applyV3) }` after the result's store). Each is
// given as the edge the run takes instead. None when the result is not
// stored in a field, or a later store is under no branch of its own or
// under several.
func (c *Checker) notOverwritten(call ssa.CallInstruction) []edgeOf {
	v, ok := call.(*ssa.Call)
	if !ok {
		return nil
	}
	var st *ssa.Store
	for _, r := range *v.Referrers() {
		if x, ok := r.(*ssa.Store); ok && x.Val == v {
			st = x
		}
	}
	if st == nil {
		return nil
	}
	fa, ok := st.Addr.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	fn := st.Parent()
	after := map[*ssa.BasicBlock]bool{}
	queue := append([]*ssa.BasicBlock(nil), st.Block().Succs...)
	for len(queue) > 0 {
		b := queue[0]
		queue = queue[1:]
		if after[b] || b == st.Block() {
			continue
		}
		after[b] = true
		queue = append(queue, b.Succs...)
	}
	own := map[edgeOf]bool{}
	for _, e := range c.domEdges(fn, st.Block()) {
		own[e] = true
	}
	var out []edgeOf
	for _, b := range fn.Blocks {
		if !after[b] {
			continue
		}
		for _, ins := range b.Instrs {
			s2, ok := ins.(*ssa.Store)
			if !ok || s2 == st {
				continue
			}
			fa2, ok := s2.Addr.(*ssa.FieldAddr)
			if !ok || fa2.Field != fa.Field || fa2.X != fa.X {
				continue
			}
			var extra []edgeOf
			for _, e := range c.domEdges(fn, b) {
				if !own[e] {
					extra = append(extra, e)
				}
			}
			if len(extra) != 1 {
				return nil
			}
			out = append(out, edgeOf{ifi: extra[0].ifi, want: !extra[0].want})
		}
	}
	return out
}
