package feasible

import (
	"go/constant"
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"
)

// object returns the object for an allocation made in frame f, one per
// frame of the path (its fields are that frame's values).
func (w *walk) object(f *frame, a *ssa.Alloc) *object {
	k := objKey{f.id, a}
	if o, ok := w.objects[k]; ok {
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
	w.objects[k] = o
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

// root is the allocation the object is (a part of).
func (o *object) root() *ssa.Alloc { return o.alloc.(*ssa.Alloc) }

// addrs are the SSA values that are the object's address: the
// allocation, or for a part of it, the field addresses that lead there.
func (o *object) addrs() []ssa.Value {
	cur := []ssa.Value{o.alloc}
	for _, p := range o.path {
		var next []ssa.Value
		for _, x := range cur {
			for _, r := range *x.Referrers() {
				if fa, ok := r.(*ssa.FieldAddr); ok && fa.X == x && fa.Field == p {
					next = append(next, fa)
				}
			}
		}
		cur = next
	}
	return cur
}

// sub is the struct held by value in field i: an object of its own,
// when the code builds or reads it through field addresses.
func (o *object) sub(i int) *object {
	if s, ok := o.subs[i]; ok {
		return s
	}
	st, ok := o.typ.Underlying().(*types.Struct)
	if !ok || i >= st.NumFields() {
		return nil
	}
	if _, isStruct := st.Field(i).Type().Underlying().(*types.Struct); !isStruct {
		return nil
	}
	path := append(append([]int(nil), o.path...), i)
	s := &object{alloc: o.alloc, path: path, fr: o.fr, typ: st.Field(i).Type(), fields: map[int]*value{}}
	if o.subs == nil {
		o.subs = map[int]*object{}
	}
	o.subs[i] = s
	if len(s.addrs()) == 0 {
		return nil
	}
	for _, a := range s.addrs() {
		for _, r := range *a.Referrers() {
			if fa, ok := r.(*ssa.FieldAddr); ok && fa.X == a && len(stores(fa)) > 0 {
				if fv := fieldVar(a.Type(), fa.Field); fv != nil && !contains(s.set, fv.Name()) {
					s.set = append(s.set, fv.Name())
				}
			}
		}
	}
	return s
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
	a := o.root()
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

// closureWrites reports whether a function literal that captures the
// object's variable may write it: a store through the captured variable
// (or a field or element of it), a call given its address, or another
// literal that captures it in turn. Such a variable holds what the
// literal last wrote (a revision a loop saves for its next pass, say),
// not only what the path assigned it.
func (o *object) closureWrites() bool {
	c, a := o.fr.p.c, o.root()
	if w, ok := c.closureW[a]; ok {
		return w
	}
	var captured func(v ssa.Value, depth int) bool // v is the variable's address in some function
	captured = func(v ssa.Value, depth int) bool {
		if depth > 4 {
			return true
		}
		for _, r := range *v.Referrers() {
			mc, ok := r.(*ssa.MakeClosure)
			if !ok {
				continue
			}
			fn, ok := mc.Fn.(*ssa.Function)
			if !ok {
				return true
			}
			for i, b := range mc.Bindings {
				if b == v && i < len(fn.FreeVars) && writesThrough(fn.FreeVars[i], func(w ssa.Value) bool { return captured(w, depth+1) }) {
					return true
				}
			}
		}
		return false
	}
	w := captured(a, 0)
	c.closureW[a] = w
	return w
}

// writesThrough reports whether the function that holds address a
// writes through it: a store to it or to a field or element of it, a call
// given it, or a literal that captures it and does (inner).
func writesThrough(a ssa.Value, inner func(ssa.Value) bool) bool {
	refs := a.Referrers()
	if refs == nil {
		return false
	}
	for _, r := range *refs {
		switch x := r.(type) {
		case *ssa.Store:
			return true // a store to it, or of it (kept somewhere else)
		case *ssa.FieldAddr:
			if writesThrough(x, inner) {
				return true
			}
		case *ssa.IndexAddr:
			if writesThrough(x, inner) {
				return true
			}
		case *ssa.MakeClosure:
			if inner(a) {
				return true
			}
		case ssa.CallInstruction:
			return true
		case *ssa.UnOp, *ssa.DebugRef:
		default:
			return true
		}
	}
	return false
}

// escapes1 lists the calls, other than the path's own, that take the
// object's address (directly or in an interface).
func (o *object) escapes1() []ssa.CallInstruction {
	a := o.root()
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
	a := o.root()
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
// parameter's copy, say), which is then that value. Read by load (at,
// when known), it is that value only when no call given the variable's
// address (other than the path's own) can run between the store and the
// load: such a call may write it (forget(&held)), and the value is then
// not known.
func (o *object) whole(f *frame, at ssa.Value) *value {
	if o.closureWrites() {
		return opaque(state)
	}
	var ws []*ssa.Store
	for _, a := range o.addrs() {
		ws = append(ws, stores(a)...)
	}
	if len(ws) == 1 && len(o.set) == 0 {
		if load, ok := at.(ssa.Instruction); ok && load.Block() != nil && load.Parent() == ws[0].Parent() {
			calls := map[ssa.Instruction]bool{}
			addrs := o.addrs()
			for _, c := range o.escapes1() {
				if mayWriteArg(c, addrs) {
					calls[c] = true
				}
			}
			if !noneBetween(ws[0], load, calls) {
				return opaque(state)
			}
		}
		return o.fr.eval(ws[0].Val)
	}
	if len(ws) == 1 && o.paramCopy(ws[0]) {
		if v := o.overridden(ws[0]); v != nil {
			return v
		}
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
	return &value{kind: kObj, org: fixed, obj: o, at: o.alloc.Pos()}
}

// mayWriteArg reports whether call c may write through the argument
// that is one of addrs: unless it calls a function of known code that
// writes through none of the parameters it is handed them in (no store
// to one, to a part of one, nor a call given one).
func mayWriteArg(c ssa.CallInstruction, addrs []ssa.Value) bool {
	cc := c.Common()
	fn := cc.StaticCallee()
	if cc.IsInvoke() || fn == nil || fn.Blocks == nil || len(fn.Params) != len(cc.Args) {
		return true
	}
	for i, a := range cc.Args {
		if slices.Contains(addrs, a) && writesThrough(fn.Params[i], func(ssa.Value) bool { return true }) {
			return true
		}
		if _, ok := a.(*ssa.MakeInterface); ok {
			return true
		}
	}
	return false
}

// field is field i of the object as the path sees it from frame f (a
// later frame may have written it, so it is not kept across frames).
func (o *object) field(f *frame, i int, fv *types.Var) *value {
	if fv != nil && fieldVar(o.typ, i) != fv {
		return opaque(state) // a field of another type: not this object's
	}
	if s := o.sub(i); s != nil && o.frozen == nil {
		return &value{kind: kObj, org: fixed, obj: s, at: o.alloc.Pos()}
	}
	if o.frozen != nil {
		if v, ok := o.frozen[i]; ok {
			return v
		}
		return opaque(state)
	}
	if runsAtExit(f, o) {
		if v := o.exitField(i, fv); v != nil {
			return v
		}
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
	// A literal that may write the variable changes it, except a field
	// only composite literals write: no one changes that once it is made.
	if o.closureWrites() && (fv == nil || !f.p.c.constructionOnly(fv)) {
		return opaque(state)
	}
	addrs := o.addrs()
	var whole []*ssa.Store
	for _, a := range addrs {
		whole = append(whole, stores(a)...)
	}
	// A variable assigned a whole struct once: its field is that value's.
	if ws := whole; len(ws) > 0 {
		fixedField := fv != nil && f.p.c.constructionOnly(fv)
		if len(ws) == 1 && len(o.set) == 0 && (!o.escapes() || fixedField) {
			return o.fr.fieldOf(o.fr.eval(ws[0].Val), i, fv, nil)
		}
		if len(ws) == 1 && o.paramCopyKeeps(ws[0], i, fv, nil) {
			return o.fr.fieldOf(o.fr.eval(ws[0].Val), i, fv, nil)
		}
		if len(ws) == 1 && o.paramCopy(ws[0]) {
			if v := o.storedEmpty(ws[0], i, fv); v != nil {
				return v
			}
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
	for _, a := range addrs {
		for _, r := range *a.Referrers() {
			if fa, ok := r.(*ssa.FieldAddr); ok && fa.X == a && fa.Field == i {
				sts = append(sts, stores(fa)...)
			}
		}
	}
	if f.p.mutates(o, fv) {
		return opaque(state)
	}
	// A field that only composite literals write is fixed when the
	// struct is made, wherever the struct goes after.
	fixedField := fv != nil && f.p.c.constructionOnly(fv)
	switch {
	case len(sts) == 1 && (!o.escapes() || fixedField):
		return o.fr.eval(sts[0].Val).fixedAt(sts[0].Pos())
	case len(sts) == 0 && (!o.escapes() || fixedField) && fv != nil:
		z := zero(fv.Type())
		z.at, z.lit = o.alloc.Pos(), o
		return z
	case o.decoded():
		return opaque(input)
	}
	return opaque(state)
}

// paramCopyKeeps reports whether field i (fv) of the object, a
// parameter's copy (st, the function's store of the parameter into
// it), is still the parameter's where at reads it (anywhere, when at is
// nil): the function may write other fields of the copy but only reads
// field i, and the calls its address goes to leave field i as it is (a
// method of the struct's, loaded from source, that reads it or writes
// only other fields) or run only after at.
func (o *object) paramCopyKeeps(st *ssa.Store, i int, fv *types.Var, at ssa.Instruction) bool {
	if _, ok := st.Val.(*ssa.Parameter); !ok || fv == nil || len(o.path) > 0 || o.escapesOther() {
		return false
	}
	for _, r := range *o.alloc.Referrers() {
		if fa, ok := r.(*ssa.FieldAddr); ok && fa.Field == i && !onlyLoaded(fa) {
			return false
		}
	}
	for _, call := range o.escapes1() {
		if (at == nil || mayRunBefore(call, at)) && !keepsField(call, o.alloc, i, 0) {
			return false
		}
	}
	return true
}

// paramCopy reports whether the object is a parameter's copy (st, the
// function's one store of a whole value into it, stores a parameter)
// whose address goes only to loads, stores to it, literals that only read
// it, and its fields' addresses, which go only to loads and stores to
// them: no call or closure can change it, only the function's own stores.
func (o *object) paramCopy(st *ssa.Store) bool {
	if _, ok := st.Val.(*ssa.Parameter); !ok || len(o.path) > 0 || o.frozen != nil {
		return false
	}
	a := o.root()
	for _, r := range *a.Referrers() {
		switch x := r.(type) {
		case *ssa.Store:
			if x.Addr != a {
				return false
			}
		case *ssa.UnOp, *ssa.DebugRef, *ssa.MakeClosure:
		case *ssa.FieldAddr:
			for _, u := range *x.Referrers() {
				switch u := u.(type) {
				case *ssa.Store:
					if u.Addr != x {
						return false
					}
				case *ssa.UnOp, *ssa.DebugRef:
				default:
					return false
				}
			}
		default:
			return false
		}
	}
	return !o.closureWrites()
}

// overridden is the whole of a parameter's copy (paramCopy; st stores
// the parameter) whose fields the function sets, when the parameter is a
// literal the path made: that literal, with each field the function sets
// as storedEmpty finds it (else some value of state), the others as the
// literal has them. nil when the parameter is no such literal.
func (o *object) overridden(st *ssa.Store) *value {
	pv := o.fr.eval(st.Val)
	if pv.kind != kObj || pv.obj == nil {
		return nil
	}
	s, ok := o.typ.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	stored := map[int]bool{}
	for _, r := range *o.root().Referrers() {
		if fa, ok := r.(*ssa.FieldAddr); ok && fa.X == o.alloc && len(stores(fa)) > 0 {
			stored[fa.Field] = true
		}
	}
	lit := pv.obj
	c := &object{alloc: lit.alloc, fr: lit.fr, typ: lit.typ, fields: map[int]*value{}, set: lit.set, frozen: map[int]*value{}}
	for i := 0; i < s.NumFields(); i++ {
		fv := s.Field(i)
		if !stored[i] {
			c.frozen[i] = o.fr.fieldOf(pv, i, fv, nil)
			continue
		}
		if v := o.storedEmpty(st, i, fv); v != nil {
			c.frozen[i] = v
		} else {
			c.frozen[i] = opaque(state)
		}
	}
	r := *pv
	r.obj = c
	return &r
}

// storedEmpty is field i (fv) of a parameter's copy (paramCopy) when
// every value it can hold is a slice with no elements: the parameter's
// field and each value the function stores in it. nil otherwise, or when
// the field's address goes anywhere but stores and loads.
func (o *object) storedEmpty(st *ssa.Store, i int, fv *types.Var) *value {
	if fv == nil {
		return nil
	}
	if _, ok := fv.Type().Underlying().(*types.Slice); !ok {
		return nil
	}
	if v := o.fr.fieldOf(o.fr.eval(st.Val), i, fv, nil); !v.empty && !(v.kind == kConst && v.isNil) {
		return nil
	}
	// Each store keeps it empty if it was: then it always is.
	for _, r := range *o.alloc.Referrers() {
		fa, ok := r.(*ssa.FieldAddr)
		if !ok || fa.X != o.alloc || fa.Field != i {
			continue
		}
		for _, u := range *fa.Referrers() {
			switch u := u.(type) {
			case *ssa.Store:
				if u.Addr != fa || !keepsEmpty(u.Val, o.root(), i, map[ssa.Value]bool{}) {
					return nil
				}
			case *ssa.UnOp, *ssa.DebugRef:
			default:
				return nil
			}
		}
	}
	return &value{kind: kOpaque, org: fixed, empty: true, at: o.alloc.Pos(), desc: "empty"}
}

// keepsEmpty reports whether v is a slice with no elements whenever field
// i of allocation a is one: a slice made with length 0, nil, a read of
// that field, or a phi of such values; at the head of a loop over that
// field, the values it comes in with only (the loop makes no pass over
// an empty slice, so what its body appends never gets there).
func keepsEmpty(v ssa.Value, a *ssa.Alloc, i int, seen map[ssa.Value]bool) bool {
	if seen[v] {
		return true // a phi's own cycle adds nothing
	}
	seen[v] = true
	switch v := v.(type) {
	case *ssa.Const:
		return v.IsNil()
	case *ssa.MakeSlice:
		c, ok := v.Len.(*ssa.Const)
		return ok && c.Value != nil && constant.Sign(c.Value) == 0
	case *ssa.UnOp:
		fa, ok := v.X.(*ssa.FieldAddr)
		return v.Op == token.MUL && ok && fa.X == a && fa.Field == i
	case *ssa.Phi:
		b := v.Block()
		overField := false
		if b.Comment == "rangeindex.loop" && len(b.Instrs) > 0 {
			if ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If); ok {
				if _, _, ok := rangeIndex(ifi); ok {
					n := ifi.Cond.(*ssa.BinOp).Y.(*ssa.Call)
					overField = keepsEmpty(n.Call.Args[0], a, i, map[ssa.Value]bool{})
				}
			}
		}
		for k, e := range v.Edges {
			if overField && b.Dominates(b.Preds[k]) {
				continue // from the loop's body, which makes no pass
			}
			if !keepsEmpty(e, a, i, seen) {
				return false
			}
		}
		return true
	}
	return false
}

// copiedField is field i (fv) of the object where instruction at reads
// it, when the object is a parameter's copy that keeps it there
// (paramCopyKeeps); nil otherwise.
func (o *object) copiedField(i int, fv *types.Var, at ssa.Instruction) *value {
	// A frozen object (a message a sender's walk handed over, shared by
	// walks that run at once) has its fields as they were frozen: field
	// reads them, and nothing of the walk that made it is touched.
	if o.frozen != nil || len(o.path) > 0 || o.closureWrites() {
		return nil
	}
	if at.Parent() != o.alloc.Parent() {
		at = nil // read elsewhere: every call the copy goes to counts
	}
	ws := stores(o.alloc)
	if len(ws) != 1 || !o.paramCopyKeeps(ws[0], i, fv, at) {
		return nil
	}
	return o.fr.fieldOf(o.fr.eval(ws[0].Val), i, fv, nil)
}

// onlyLoaded reports whether address a is only read from: loaded, or a
// field of it taken that is only read from in turn.
func onlyLoaded(a ssa.Value) bool { return keeps(a, -1, 0) }

// keeps reports whether address a is used only in ways that leave its
// field `field` as it is (every field of it, when field < 0): it is
// loaded; the address of another field is taken; that of the field is
// taken and only read from; or, for one field, a is handed to calls that
// keep it too (keepsField, depth calls deep).
func keeps(a ssa.Value, field, depth int) bool {
	for _, u := range *a.Referrers() {
		switch x := u.(type) {
		case *ssa.DebugRef:
		case *ssa.UnOp:
			if x.Op != token.MUL {
				return false
			}
		case *ssa.FieldAddr:
			if (field < 0 || x.Field == field) && !keeps(x, -1, depth) {
				return false
			}
		case ssa.CallInstruction:
			if field < 0 || !keepsField(x, a, field, depth+1) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// keepsField reports whether call, given a, the address of a struct,
// leaves its field i as it is: the callee is one function loaded from
// source that, through its parameter a, only reads field i (it may
// write others), or hands the address on to calls that keep it too (to
// a depth of a few calls).
func keepsField(call ssa.CallInstruction, a ssa.Value, i, depth int) bool {
	if _, ok := call.(*ssa.Call); !ok || depth > 3 {
		return false // deferred or started it runs later; or too deep to follow
	}
	fn := call.Common().StaticCallee()
	if fn == nil || len(fn.Blocks) == 0 || call.Common().Value == a {
		return false
	}
	for j, arg := range call.Common().Args {
		if arg == a && (j >= len(fn.Params) || !keeps(fn.Params[j], i, depth)) {
			return false
		}
	}
	return true
}

// freeze returns v with the fields of the objects it holds (to depth
// levels) evaluated now, as the end of the path sees them: a value kept
// beyond its path (a message handed off) no longer depends on it.
func freeze(f *frame, v *value, depth int) *value {
	if v.org == state && v.sent == nil && (v.kind == kTerm || v.kind == kOpaque && v.term != "" && f.p.terms[v.term].sub != nil) {
		if src := f.p.readSrcOf(v.term); src != nil {
			r := *v
			r.sent = src
			return &r
		}
	}
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
// the object): not of a variable of its own, which is not the object.
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
				if !ok || fieldVar(fa.X.Type(), fa.Field) != fv {
					continue
				}
				// A variable of that later call's own (a copy of a
				// parameter, say) is not the object, made before it.
				if _, local := fa.X.(*ssa.Alloc); !local {
					return true
				}
			}
		}
	}
	return false
}

// constructionOnly reports whether every write of field fv in the
// program is into a struct the writing function allocates (a composite
// literal's field): no one changes it after the struct is made.
func (c *Checker) constructionOnly(fv *types.Var) bool {
	if v, ok := c.ctorOnly[fv]; ok {
		return v
	}
	ok := c.seesAllWrites(fv)
	ws := c.index().writes[fv]
	for _, st := range ws {
		if !ok {
			break
		}
		if rootAlloc(st.Addr) == nil {
			ok = false
			break
		}
	}
	// A struct holding the field, written whole into a struct that is
	// not being made, changes it too.
	if ok && len(ws) > 0 {
		owner := ws[0].Addr.(*ssa.FieldAddr).X.Type()
		if p, isP := owner.Underlying().(*types.Pointer); isP {
			owner = p.Elem()
		}
		for _, st := range c.index().structs {
			if rootAlloc(st.Addr) == nil && containsByValue(st.Val.Type(), owner, 0) {
				ok = false
				break
			}
		}
	}
	c.ctorOnly[fv] = ok
	return ok
}

// containsByValue reports whether a value of type s holds a value of
// struct type t (s is t, or a field of s holds it by value).
func containsByValue(s, t types.Type, depth int) bool {
	if types.Identical(s, t) {
		return true
	}
	st, ok := s.Underlying().(*types.Struct)
	if !ok || depth > 6 {
		return false
	}
	for i := 0; i < st.NumFields(); i++ {
		if containsByValue(st.Field(i).Type(), t, depth+1) {
			return true
		}
	}
	return false
}

// rootAlloc is the allocation a field address is within, following
// field addresses of fields; nil when it is not in one.
func rootAlloc(v ssa.Value) *ssa.Alloc {
	for k := 0; k < 8; k++ {
		switch x := v.(type) {
		case *ssa.FieldAddr:
			v = x.X
		case *ssa.Alloc:
			return x
		default:
			return nil
		}
	}
	return nil
}

// seesAllWrites reports whether every write of field fv is in the loaded
// code: its package is read from source (the code of packages read from
// export data is not loaded), and no other package can write it: the
// field is unexported, or it belongs to an unexported struct that the
// package's exported API never hands out with its type.
func (c *Checker) seesAllWrites(fv *types.Var) bool {
	if fv == nil || fv.Pkg() == nil {
		return false
	}
	if !c.withSyntaxOf(fv.Pkg()) {
		return false
	}
	if !fv.Exported() {
		return true
	}
	owner := c.owner(fv)
	if owner == nil || owner.Obj().Exported() {
		return false
	}
	return !c.exposed(owner)
}

// withSyntaxOf reports whether package p's code is loaded.
func (c *Checker) withSyntaxOf(p *types.Package) bool {
	if c.withSyntax == nil {
		c.withSyntax = map[*types.Package]bool{}
		for _, p := range c.g.Pkgs {
			if p != nil {
				c.withSyntax[p.Pkg] = true
			}
		}
	}
	return c.withSyntax[p]
}

// owner is the named struct type that declares field fv.
func (c *Checker) owner(fv *types.Var) *types.Named {
	if c.owners == nil {
		c.owners = map[*types.Var]*types.Named{}
		for _, p := range c.g.Pkgs {
			if p != nil {
				eachStructField(p.Pkg, func(n *types.Named, f *types.Var) { c.owners[f] = n })
			}
		}
	}
	return c.owners[fv]
}

// eachStructField calls f with each field of each named struct type
// package p declares at package level, and the type.
func eachStructField(p *types.Package, f func(*types.Named, *types.Var)) {
	sc := p.Scope()
	for _, name := range sc.Names() {
		tn, ok := sc.Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		n, ok := tn.Type().(*types.Named)
		if !ok {
			continue
		}
		if st, ok := n.Underlying().(*types.Struct); ok {
			for i := 0; i < st.NumFields(); i++ {
				f(n, st.Field(i))
			}
		}
	}
}

// exposed reports whether the exported API of t's package names t: an
// exported function, method, variable or field whose type mentions it,
// through which other packages could hold a value of t and write its
// exported fields.
func (c *Checker) exposed(t *types.Named) bool {
	if v, ok := c.exposedMemo[t]; ok {
		return v
	}
	pkg := t.Obj().Pkg()
	mentions := func(x types.Type) bool { return mentionsType(x, t, map[types.Type]bool{}) }
	out := false
	sc := pkg.Scope()
	for _, name := range sc.Names() {
		obj := sc.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch o := obj.(type) {
		case *types.Func, *types.Var, *types.Const:
			out = out || mentions(o.Type())
		case *types.TypeName:
			if n, ok := o.Type().(*types.Named); ok {
				if st, ok := n.Underlying().(*types.Struct); ok {
					for i := 0; i < st.NumFields(); i++ {
						if st.Field(i).Exported() && mentions(st.Field(i).Type()) {
							out = true
						}
					}
				}
				if it, ok := n.Underlying().(*types.Interface); ok {
					for i := 0; i < it.NumMethods(); i++ {
						out = out || mentions(it.Method(i).Type())
					}
				}
				for i := 0; i < n.NumMethods(); i++ {
					if m := n.Method(i); m.Exported() {
						out = out || mentions(m.Type())
					}
				}
			}
		}
		if out {
			break
		}
	}
	if c.exposedMemo == nil {
		c.exposedMemo = map[*types.Named]bool{}
	}
	c.exposedMemo[t] = out
	return out
}

// mentionsType reports whether type x names t (in a pointer, slice,
// map, channel, signature, or a struct's fields).
func mentionsType(x types.Type, t *types.Named, seen map[types.Type]bool) bool {
	if x == nil || seen[x] {
		return false
	}
	seen[x] = true
	switch y := x.(type) {
	case *types.Named:
		if y.Obj() == t.Obj() {
			return true
		}
		return false // another named type: its own exported API is checked with it
	case *types.Pointer:
		return mentionsType(y.Elem(), t, seen)
	case *types.Slice:
		return mentionsType(y.Elem(), t, seen)
	case *types.Array:
		return mentionsType(y.Elem(), t, seen)
	case *types.Map:
		return mentionsType(y.Key(), t, seen) || mentionsType(y.Elem(), t, seen)
	case *types.Chan:
		return mentionsType(y.Elem(), t, seen)
	case *types.Signature:
		for i := 0; i < y.Params().Len(); i++ {
			if mentionsType(y.Params().At(i).Type(), t, seen) {
				return true
			}
		}
		for i := 0; i < y.Results().Len(); i++ {
			if mentionsType(y.Results().At(i).Type(), t, seen) {
				return true
			}
		}
	case *types.Struct:
		for i := 0; i < y.NumFields(); i++ {
			if mentionsType(y.Field(i).Type(), t, seen) {
				return true
			}
		}
	}
	return false
}

// objKey is an allocation made in one frame: a function the walk enters
// twice (two call sites, one after the other) makes an object at each,
// from that frame's values.
type objKey struct {
	frame int
	a     *ssa.Alloc
}
