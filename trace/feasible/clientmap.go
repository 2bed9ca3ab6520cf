package feasible

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// A map that a struct holds in a field, made with the struct, whose every
// entry the code writes is the client's: the value of a request, or a
// constant written only when the request asks for it
//
//	if creq.PrevKv { sws.prevKV[id] = true }
//
// holds what the client chose, though the server keeps it: an entry read
// from it (needPrevKV := sws.prevKV[wresp.WatchID]) is the client's choice,
// not server state. Each write is evaluated in its own function with the
// struct bound to the one the path made: the map is that struct's alone
// (the field is set only when a struct is made), so a write through
// another struct writes another map.

// heldIn is the field whose value m is read from (m = *&x.f), or nil.
func heldIn(m ssa.Value) *types.Var {
	u, ok := m.(*ssa.UnOp)
	if !ok || u.Op != token.MUL {
		return nil
	}
	fa, ok := u.X.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	return fieldVar(fa.X.Type(), fa.Field)
}

// clientEntry is an entry read from a map of the client's, as the
// client's (input); nil when the map is not shown to be one.
func (f *frame) clientEntry(v *ssa.Lookup) *value {
	fv := heldIn(v.X)
	if fv == nil {
		return nil
	}
	w := f.p
	if w.clientMaps == nil {
		w.clientMaps = map[clientKey]bool{}
	}
	holder := f.eval(v.X.(*ssa.UnOp).X.(*ssa.FieldAddr).X)
	if holder.kind != kObj {
		return nil
	}
	k := clientKey{fv, holder.obj.alloc}
	ok, seen := w.clientMaps[k]
	if !seen {
		w.clientMaps[k] = false // while it is worked out
		ok = f.clientWrites(fv, holder)
		w.clientMaps[k] = ok
	}
	if !ok {
		return nil
	}
	return opaque(input)
}

type clientKey struct {
	fv    *types.Var
	alloc ssa.Value
}

// clientWrites reports whether every write of an entry of the map in
// field fv of holder stores the client's value, or a constant under a
// branch on the client's request.
func (f *frame) clientWrites(fv *types.Var, holder *value) bool {
	c := f.p.c
	if !c.constructionOnly(fv) {
		return false
	}
	ws := c.index().mapWrites[fv]
	if len(ws) == 0 || !c.ownMap(fv) {
		return false
	}
writes:
	for _, mu := range ws {
		fn := mu.Parent()
		fa := mu.Map.(*ssa.UnOp).X.(*ssa.FieldAddr)
		recv, ok := fa.X.(*ssa.Parameter)
		if !ok || fn.Signature.Recv() == nil || len(fn.Params) == 0 || fn.Params[0] != recv {
			return false
		}
		nf := f.p.newFrame(fn, nil, nil)
		nf.params[recv] = holder
		if val := nf.eval(mu.Value); val.org == input {
			continue
		} else if val.kind != kConst {
			return false
		}
		// Every branch that leads to the write is the client's, or one a
		// run takes either way (an error test, a loop's next pass), and
		// one at least is the client's.
		asked := false
		for _, e := range c.domEdges(fn, mu.Block()) {
			var cd Cond
			f.p.classify(nf, &cd, e.ifi.Cond, e.want)
			switch cd.Class {
			case Input:
				asked = true
			case Ordinary, True:
			case False:
				continue writes // a write the struct's own values never make
			default:
				return false
			}
		}
		if !asked {
			return false
		}
	}
	return true
}

// ownMap reports whether the maps in field fv are the structs' own: each
// made by the literal that makes its struct, and, wherever it is read from
// the field, only looked up, written, deleted from, ranged over or
// measured (no other code holds it, to write it where the field's writes
// do not show).
func (c *Checker) ownMap(fv *types.Var) bool {
	ix := c.index()
	for _, st := range ix.writes[fv] {
		if _, ok := st.Val.(*ssa.MakeMap); !ok {
			return false
		}
	}
	for _, ld := range ix.mapReads[fv] {
		for _, r := range *ld.Referrers() {
			switch x := r.(type) {
			case *ssa.Lookup, *ssa.Range, *ssa.DebugRef:
			case *ssa.MapUpdate:
				if x.Value == ld || x.Key == ld {
					return false
				}
			case *ssa.Call:
				b, ok := x.Call.Value.(*ssa.Builtin)
				if !ok || (b.Name() != "delete" && b.Name() != "len") || x.Call.Args[0] != ld {
					return false
				}
			default:
				return false
			}
		}
	}
	return true
}
