package feasible

import (
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// object returns the object for an allocation made in frame f, one per
// path.
func (w *walk) object(f *frame, a *ssa.Alloc) *object {
	if o, ok := w.objects[a]; ok {
		return o
	}
	t := a.Type()
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	o := &object{alloc: a, fr: f, typ: t, fields: map[int]*value{}}
	for _, r := range *a.Referrers() {
		fa, ok := r.(*ssa.FieldAddr)
		if !ok || fa.X != a {
			continue
		}
		if len(stores(fa)) > 0 {
			if fv := fieldVar(a.Type(), fa.Field); fv != nil && !contains(o.set, fv.Name()) {
				o.set = append(o.set, fv.Name())
			}
		}
	}
	w.objects[a] = o
	return o
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// stores lists the stores to addr.
func stores(addr ssa.Value) []*ssa.Store {
	var out []*ssa.Store
	for _, r := range *addr.Referrers() {
		if st, ok := r.(*ssa.Store); ok && st.Addr == addr {
			out = append(out, st)
		}
	}
	return out
}

// escapes reports whether the allocation's address goes anywhere the
// path cannot see: into a call other than the path's own, a store, a
// closure, an interface, another value. Then a field it does not set at
// its creation may be set elsewhere.
func (o *object) escapes() bool { return len(o.escapes1()) > 0 || o.escapesOther() }

// decoded reports whether the object is decoded from the input: its
// address goes only into static calls, one of which also takes the input
// (json.Unmarshal(body, req)). Its fields are then input too.
func (o *object) decoded() bool {
	calls := o.escapes1()
	if len(calls) == 0 || o.escapesOther() {
		return false
	}
	a := o.alloc.(*ssa.Alloc)
	in := false
	for _, call := range calls {
		c := call.Common()
		if c.IsInvoke() || c.StaticCallee() == nil {
			return false
		}
		for _, arg := range c.Args {
			if arg == a || isAddrOf(arg, a) {
				continue
			}
			if o.fr.eval(arg).org == input {
				in = true
			}
		}
	}
	return in
}

// isAddrOf reports whether v is a conversion of a's address.
func isAddrOf(v, a ssa.Value) bool {
	for {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			v = x.X
		case *ssa.ChangeType:
			v = x.X
		default:
			return v == a
		}
	}
}

// escapes1 lists the calls, other than the path's own, that take the
// object's address (directly or in an interface).
func (o *object) escapes1() []ssa.CallInstruction {
	a := o.alloc.(*ssa.Alloc)
	var out []ssa.CallInstruction
	var visit func(v ssa.Value)
	visit = func(v ssa.Value) {
		for _, r := range *v.Referrers() {
			switch x := r.(type) {
			case ssa.CallInstruction:
				if o.fr.site == nil || x != o.fr.site {
					out = append(out, x)
				}
			case *ssa.MakeInterface:
				visit(x)
			case *ssa.ChangeType:
				visit(x)
			}
		}
	}
	visit(a)
	return out
}

// escapesOther reports whether the address goes anywhere but loads, its
// fields, stores to it and calls.
func (o *object) escapesOther() bool {
	a := o.alloc.(*ssa.Alloc)
	var visit func(v ssa.Value) bool
	visit = func(v ssa.Value) bool {
		for _, r := range *v.Referrers() {
			switch x := r.(type) {
			case *ssa.FieldAddr, *ssa.DebugRef, *ssa.UnOp, ssa.CallInstruction:
				continue
			case *ssa.Store:
				if x.Addr == v {
					continue
				}
				// Kept in a field of another literal of the same function.
				if fa, ok := x.Addr.(*ssa.FieldAddr); ok {
					if _, ok := fa.X.(*ssa.Alloc); ok {
						continue
					}
				}
			case *ssa.MakeInterface:
				if visit(x) {
					return true
				}
				continue
			case *ssa.ChangeType:
				if visit(x) {
					return true
				}
				continue
			}
			return true
		}
		return false
	}
	return visit(a)
}

// whole is the object's value, as a struct value: the object itself,
// unless it is a variable assigned a whole value exactly once (a
// parameter's copy, say), which is then that value.
func (o *object) whole(f *frame) *value {
	a := o.alloc.(*ssa.Alloc)
	var ws []*ssa.Store
	for _, st := range stores(a) {
		ws = append(ws, st)
	}
	if len(ws) == 1 && len(o.set) == 0 {
		return o.fr.eval(ws[0].Val)
	}
	if len(ws) > 0 {
		return opaque(state)
	}
	if _, isStruct := o.typ.Underlying().(*types.Struct); !isStruct {
		if o.escapes() {
			return opaque(state)
		}
		return zero(o.typ)
	}
	return &value{kind: kObj, org: fixed, obj: o, at: a.Pos()}
}

// field is field i of the object as the path sees it from frame f (a
// later frame may have written it, so it is not kept across frames).
func (o *object) field(f *frame, i int, fv *types.Var) *value {
	if o.frozen != nil {
		if v, ok := o.frozen[i]; ok {
			return v
		}
		return opaque(state)
	}
	k := i*1024 + len(f.p.frames)
	if v, ok := o.fields[k]; ok {
		return v
	}
	// A field read while the object is being worked out (raftReq =
	// f(raftReq.V2)) is neutral: the field is the input's when every other
	// value the object is assigned is.
	if o.busy {
		return opaque(input)
	}
	o.busy = true
	v := o.field1(f, i, fv)
	o.busy = false
	o.fields[k] = v
	return v
}

func (o *object) field1(f *frame, i int, fv *types.Var) *value {
	a := o.alloc.(*ssa.Alloc)
	// A variable assigned a whole struct once: its field is that value's.
	if ws := stores(a); len(ws) > 0 {
		if len(ws) == 1 && len(o.set) == 0 && !o.escapes() {
			return o.fr.fieldOf(o.fr.eval(ws[0].Val), i, fv, nil)
		}
		// Assigned several times, or decoded too: input when every value
		// it is assigned is the input's.
		for _, st := range ws {
			if o.fr.eval(st.Val).org != input {
				return opaque(state)
			}
		}
		if o.escapes() && !o.decoded() {
			return opaque(state)
		}
		return opaque(input)
	}
	var sts []*ssa.Store
	for _, r := range *a.Referrers() {
		if fa, ok := r.(*ssa.FieldAddr); ok && fa.X == a && fa.Field == i {
			sts = append(sts, stores(fa)...)
		}
	}
	if f.p.mutates(o, fv) {
		return opaque(state)
	}
	switch {
	case len(sts) == 1 && !o.escapes():
		return o.fr.eval(sts[0].Val).fixedAt(sts[0].Pos())
	case len(sts) == 0 && !o.escapes():
		z := zero(fv.Type())
		z.at, z.lit = a.Pos(), o
		return z
	case o.decoded():
		return opaque(input)
	}
	return opaque(state)
}

// freeze returns v with the fields of the objects it holds (to depth
// levels) evaluated now, as the end of the path sees them: a value kept
// beyond its path (a message handed off) no longer depends on it.
func freeze(f *frame, v *value, depth int) *value {
	if v.kind != kObj || depth == 0 {
		return v
	}
	o := v.obj
	st, ok := o.typ.Underlying().(*types.Struct)
	if !ok {
		return v
	}
	c := &object{alloc: o.alloc, fr: o.fr, typ: o.typ, fields: map[int]*value{}, set: o.set, frozen: map[int]*value{}}
	for i := 0; i < st.NumFields(); i++ {
		c.frozen[i] = freeze(f, o.field(f, i, st.Field(i)), depth-1)
	}
	r := *v
	r.obj = c
	return &r
}

// mutates reports whether a function of the path after the object's maker
// stores to the field fv of a value of the object's type (which might be
// the object).
func (w *walk) mutates(o *object, fv *types.Var) bool {
	if fv == nil {
		return true
	}
	for _, fr := range w.frames {
		if fr.idx <= o.fr.idx {
			continue
		}
		for _, b := range fr.fn.Blocks {
			for _, ins := range b.Instrs {
				st, ok := ins.(*ssa.Store)
				if !ok {
					continue
				}
				fa, ok := st.Addr.(*ssa.FieldAddr)
				if ok && fieldVar(fa.X.Type(), fa.Field) == fv {
					return true
				}
			}
		}
	}
	return false
}
