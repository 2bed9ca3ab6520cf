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
	}
	rf := w.newFrame(fn, nil, nil)
	rf.root, rf.rootState = true, true
	var out []Cond
	for _, e := range es {
		text, pos, flip := w.c.text.condText(e.ifi)
		cd := Cond{Func: fn, If: e.ifi, Text: text, Pos: pos, Want: e.want != flip, Made: &Made{Type: tn, Maker: maker}}
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
