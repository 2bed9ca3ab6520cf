package feasible

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"

	"golang.org/x/tools/go/ssa"
)

// frame is one function of a path with what its parameters and free
// variables are bound to there.
type frame struct {
	fn     *ssa.Function
	params map[*ssa.Parameter]*value
	free   map[*ssa.FreeVar]*value
	// root is set for the path's first function: its parameters are the
	// input (or state, when rootState), its free variables state.
	root      bool
	rootState bool
	// site is the call of the next function on the path, if any.
	site ssa.CallInstruction
	// msg binds, in a receiver's dispatch function, the values of the
	// message's type to the sender's.
	msg  *Message
	memo map[ssa.Value]*value
	p    *walk
	idx  int
	// id names the frame's values (unique in the walk); parent is the
	// frame that called this one (the path's previous function, or, for
	// a call whose result the path tests, the caller), callAt the call.
	id     int
	parent *frame
	callAt ssa.CallInstruction
	// inline is set for a call the path does not go through but whose
	// result it tests; depth counts those frames up to the path's.
	inline bool
	depth  int
	// override binds values to fixed ones: an element of a slice a loop
	// visits, in the template of what holds for every element.
	override map[ssa.Value]*value
	// refused, for a frame of the path, says the call cannot run this
	// function: the value called holds no value of its receiver's type.
	refused *Cond
}

// evaluating marks, in a frame's memo, a value whose evaluation has
// begun and not ended.
var evaluating = &value{kind: kOpaque, org: state}

func (f *frame) eval(v ssa.Value) *value {
	if r, ok := f.memo[v]; ok {
		if r == evaluating {
			// A value defined in terms of itself is carried round a loop:
			// what it is depends on the iterations before, which the path
			// does not fix. It is a term of its own (the one named below).
			r = &value{kind: kOpaque, org: state, term: f.termOf(v)}
			f.memo[v] = r
		}
		return r
	}
	if r, ok := f.override[v]; ok {
		f.memo[v] = r
		return r
	}
	f.memo[v] = evaluating
	r := f.eval1(v)
	// In a receiver's dispatch function, the message is the sender's.
	if f.msg != nil && f.msg.Value != nil && f.msg.Matches(v.Type()) {
		r = f.msg.Value.v
	}
	r = f.named(r, v)
	if r.kind != kConst && r.off == 0 && r.org != unknown && isInteger(v.Type()) && r.term == f.termOf(v) {
		switch v.(type) {
		case *ssa.BinOp, *ssa.Call, *ssa.Phi:
			f.p.noteFloor(r.term, v)
		}
	}
	if b, ok := v.(*ssa.BinOp); ok && b.Op == token.SUB && r.kind == kOpaque && r.org == state && fieldRead(b.Y) != nil && isInteger(b.Type()) {
		f.p.note(r.term, termInfo{sub: b})
	}
	f.memo[v] = r
	return r
}

// termOf is the term of value v of f: v's name and the frame's.
func (f *frame) termOf(v ssa.Value) string { return v.Name() + "@" + strconv.Itoa(f.id) }

// named gives r, a value of v in f, an identity when it has none: a value
// that is not a constant is a term named after v and the frame (termOf).
func (f *frame) named(r *value, v ssa.Value) *value {
	if r.term != "" || r.kind == kConst {
		return r
	}
	c := *r
	c.term = f.termOf(v)
	return &c
}

func (f *frame) eval1(v ssa.Value) *value {
	switch v := v.(type) {
	case *ssa.Const:
		if v.Value == nil {
			if isNillable(v.Type()) {
				return nilVal()
			}
			return zero(v.Type())
		}
		return constVal(v.Value)
	case *ssa.Parameter:
		if b, ok := f.params[v]; ok {
			return b
		}
		if f.root {
			org := input
			if f.rootState || isReceiver(v) {
				org = state
			}
			t := termVal(paramTerm(paramIndex(v), v.Name()), org)
			if _, ptr := v.Type().Underlying().(*types.Pointer); ptr && f.p.p.ArgsNonNil && !isReceiver(v) {
				t.kind, t.handed, t.at = kNonNil, f.fn, v.Pos()
			}
			return t
		}
		return gaveUp("a parameter of " + v.Parent().Name() + " the path does not bind")
	case *ssa.FreeVar:
		if b, ok := f.free[v]; ok {
			return b
		}
		if f.root {
			return termVal("fv:"+v.Name(), state)
		}
		return gaveUp("a variable captured by " + v.Parent().Name())
	case *ssa.Global:
		return termVal("g:"+v.RelString(nil), state)
	case *ssa.Alloc:
		return &value{kind: kObj, org: fixed, obj: f.p.object(f, v), at: v.Pos()}
	case *ssa.FieldAddr:
		return &value{kind: kAddr, org: fixed, base: f.eval(v.X), field: v.Field, fvar: fieldVar(v.X.Type(), v.Field)}
	case *ssa.Field:
		return f.fieldOf(f.eval(v.X), v.Field, fieldVar(v.X.Type(), v.Field), v)
	case *ssa.UnOp:
		switch v.Op {
		case token.MUL:
			if g, ok := v.X.(*ssa.Global); ok && f.p.c.neverNil(g) {
				// A package-level variable set once to a made value (an
				// error made by errors.New) and never to nil.
				return &value{kind: kNonNil, org: state, term: "g:" + g.RelString(nil)}
			}
			if a, ok := v.X.(*ssa.Alloc); ok {
				if prev := f.p.c.sameLoad(v, a); prev != nil {
					// No write of the variable can come between: the same
					// value as the earlier load.
					return f.eval(prev)
				}
				if st := f.p.c.reachingStore(v, a); st != nil {
					// The one store every way to the load comes from, with
					// no other write between: its value.
					return f.eval(st.Val)
				}
			}
			return f.load(f.eval(v.X), v)
		case token.NOT:
			x := f.eval(v.X)
			if x.kind == kConst && !x.isNil && x.c.Kind() == constant.Bool {
				return constVal(constant.MakeBool(!constant.BoolVal(x.c))).fixedAt(x.at)
			}
			return derived(x)
		case token.SUB, token.XOR:
			x := f.eval(v.X)
			if x.kind == kConst && !x.isNil {
				return constVal(constant.UnaryOp(v.Op, x.c, 0)).fixedAt(x.at)
			}
			return derived(x)
		case token.ARROW:
			return opaque(state)
		}
	case *ssa.BinOp:
		x, y := f.eval(v.X), f.eval(v.Y)
		return f.binop(v.Op, x, y, v.Type())
	case *ssa.ChangeType:
		return f.eval(v.X)
	case *ssa.Convert:
		x := f.eval(v.X)
		if isInteger(v.Type()) && isInteger(v.X.Type()) {
			return x // an integer as another integer type: the same number (overflow aside)
		}
		if x.kind == kConst && !x.isNil {
			if b, ok := v.Type().Underlying().(*types.Basic); ok && b.Info()&types.IsNumeric != 0 && x.c.Kind() == constant.Int {
				return x
			}
		}
		return derived(x)
	case *ssa.MakeInterface:
		return nonNil(v.X.Type(), f.eval(v.X))
	case *ssa.ChangeInterface:
		return f.eval(v.X)
	case *ssa.MakeClosure:
		fn, _ := v.Fn.(*ssa.Function)
		r := nonNil(v.Type(), nil)
		r.fn = fn
		for _, b := range v.Bindings {
			r.bindings = append(r.bindings, f.eval(b))
		}
		return r
	case *ssa.Function:
		r := nonNil(v.Type(), nil)
		r.fn = v
		return r
	case *ssa.MakeMap, *ssa.MakeChan, *ssa.MakeSlice:
		return nonNil(v.Type(), nil)
	case *ssa.TypeAssert:
		x := f.eval(v.X)
		if v.CommaOk {
			return &value{kind: kOpaque, org: x.org, why: x.why}
		}
		return asserted(x, v.AssertedType)
	case *ssa.Extract:
		return f.extract(v)
	case *ssa.Call:
		return f.call(v, v.Common())
	case *ssa.Phi:
		if least, ok := countsUp(v); ok {
			ti := termInfo{counter: v, least: least, start: least}
			if ifi, ok := v.Block().Instrs[len(v.Block().Instrs)-1].(*ssa.If); ok {
				if _, over, ok := rangeIndex(ifi); ok {
					ti.at, ti.start = over.Expr.Pos(), least+1
				}
			}
			f.p.note(f.termOf(v), ti)
		}
		var vs []*value
		for _, e := range v.Edges {
			vs = append(vs, f.eval(e))
		}
		if same := sameConst(vs); same != nil {
			return same
		}
		if a := f.phiAlt(v, derived(vs...)); a != nil {
			return a
		}
		return derived(vs...)
	case *ssa.Lookup:
		x := f.eval(v.X)
		if x.kind == kConst && x.isNil {
			// Nothing is found in a map the path leaves empty.
			var elem types.Type
			if m, ok := v.X.Type().Underlying().(*types.Map); ok {
				elem = m.Elem()
			}
			if elem != nil {
				z := zero(elem)
				z.unset = x.unset
				return z
			}
		}
		if r := f.clientEntry(v); r != nil {
			return r
		}
		if r := f.inTable(v.X, v.Index); r != nil {
			return r
		}
		return f.element(x, v, v.Index)
	case *ssa.Index:
		return f.element(f.eval(v.X), v, v.Index)
	case *ssa.IndexAddr:
		return f.element(f.eval(v.X), v, v.Index)
	case *ssa.Slice:
		return element(f.eval(v.X))
	case *ssa.Next, *ssa.Select, *ssa.Range:
		return opaque(state)
	}
	return gaveUp(fmt.Sprintf("a %T value", v))
}

// load is the value at an address, read by instruction at.
func (f *frame) load(addr *value, at ssa.Value) *value {
	switch addr.kind {
	case kNone:
		return addr
	case kAddr:
		return f.fieldOf(addr.base, addr.field, addr.fvar, at)
	case kAlt:
		return lift(addr, func(a *value) *value { return f.load(a, at) })
	case kObj:
		return addr.obj.whole(f, at)
	case kTerm:
		return addr // *p names what p names
	case kConst:
		if addr.isNil {
			return gaveUp("a load through a nil pointer")
		}
	}
	return derived(addr)
}

// fieldOf is field i of base (a struct value or a pointer to one), read
// by instruction at (nil when the field is not read from memory there).
func (f *frame) fieldOf(base *value, i int, fv *types.Var, at ssa.Value) *value {
	if base.kind == kNone {
		return base
	}
	if base.zs && fv != nil {
		z := zero(fv.Type())
		z.at, z.lit, z.unset = base.at, base.lit, base.unset
		return z
	}
	for _, z := range f.p.p.Zero {
		if fv != nil && z == fv {
			v := zero(fv.Type())
			v.unset = fv
			return v
		}
	}
	name := fmt.Sprint(i)
	if fv != nil {
		name = fv.Name()
	}
	switch base.kind {
	case kObj:
		if ins, ok := at.(ssa.Instruction); ok {
			if v := base.obj.copiedField(i, fv, ins); v != nil {
				return v // read before any call that may change it
			}
		}
		return base.obj.field(f, i, fv)
	case kAddr:
		// A struct held by value in a field of an object (an embedded
		// struct its literal builds in place): its own fields.
		if base.base != nil && base.base.kind == kAlt {
			return lift(base.base, func(b *value) *value {
				a := *base
				a.base = b
				return f.fieldOf(&a, i, fv, at)
			})
		}
		if o := addrObject(base); o != nil {
			return o.field(f, i, fv)
		}
	case kTerm:
		return f.p.read(f, base, name, fv, at)
	case kNonNil:
		if base.inner != nil {
			return f.fieldOf(base.inner, i, fv, at)
		}
	case kAlt:
		return lift(base, func(b *value) *value { return f.fieldOf(b, i, fv, at) })
	}
	if base.term != "" && base.org != unknown {
		return f.p.read(f, base, name, fv, at)
	}
	return derived(base)
}

// addrObject is the part of an object that address v points to: a field
// of an object (or of such a part) that holds a struct by value; nil when
// v is no such address.
func addrObject(v *value) *object {
	if v.kind != kAddr || v.base == nil {
		return nil
	}
	var o *object
	switch b := v.base; b.kind {
	case kObj:
		o = b.obj
	case kAddr:
		o = addrObject(b)
	case kNonNil:
		if b.inner != nil && b.inner.kind == kObj {
			o = b.inner.obj
		}
	}
	if o == nil {
		return nil
	}
	return o.sub(v.field)
}

func (f *frame) extract(v *ssa.Extract) *value {
	switch t := v.Tuple.(type) {
	case *ssa.TypeAssert:
		x := f.eval(t.X)
		if v.Index == 0 {
			if x.kind == kNonNil && x.inner != nil && types.Identical(x.dyn, t.AssertedType) {
				return x.inner
			}
			// The asserted value, where the assertion holds: the same
			// value as the operand.
			return asserted(x, t.AssertedType)
		}
		return &value{kind: kOpaque, org: x.org, why: x.why}
	case *ssa.Call:
		return project(f.eval(t), v.Index)
	case *ssa.Lookup:
		if r := f.inTable(t.X, t.Index); r != nil {
			return r
		}
		x := f.eval(t.X)
		if x.kind == kConst && x.isNil {
			if v.Index == 1 {
				r := constVal(constant.MakeBool(false))
				r.unset = x.unset
				return r
			}
			if m, ok := t.X.Type().Underlying().(*types.Map); ok {
				z := zero(m.Elem())
				z.unset = x.unset
				return z
			}
		}
		return element(x)
	case *ssa.UnOp, *ssa.Next, *ssa.Select:
		return opaque(state)
	}
	return gaveUp(fmt.Sprintf("a result of %T", v.Tuple))
}

// element is an element of a collection: what the collection is (an
// element of the input is input, whatever its index).
func element(x *value) *value {
	if x.org == input {
		return opaque(input)
	}
	return derived(x)
}

// callResult is what a call returns: the input when it is a method of the
// input or a function called with part of the input; state otherwise.
func (f *frame) callResult(c *ssa.CallCommon) *value {
	if b, ok := c.Value.(*ssa.Builtin); ok {
		var xs []*value
		for _, a := range c.Args {
			xs = append(xs, f.eval(a))
		}
		if (b.Name() == "len" || b.Name() == "cap") && len(xs) == 1 && xs[0].org == input {
			return opaque(input)
		}
		// A nil slice, map or channel has no elements, nor has a slice
		// known to be empty.
		if (b.Name() == "len" || b.Name() == "cap") && len(xs) == 1 && xs[0].kind == kConst && xs[0].isNil {
			return constVal(constant.MakeInt64(0))
		}
		if b.Name() == "len" && len(xs) == 1 && xs[0].empty {
			return constVal(constant.MakeInt64(0))
		}
		return derived(xs...)
	}
	// A context made from the request's (a span's, a deadline's) carries
	// what the request's carries: the caller's credentials.
	if res := c.Signature().Results(); res.Len() > 0 && isContext(res.At(0).Type()) {
		for _, a := range c.Args {
			if isContext(a.Type()) && f.eval(a).org == input {
				return opaque(input)
			}
		}
	}
	if c.IsInvoke() {
		recv := f.eval(c.Value)
		if recv.org == input {
			return opaque(input)
		}
		return opaque(state)
	}
	callee := c.StaticCallee()
	if callee == nil {
		return opaque(state)
	}
	args := c.Args
	if len(args) == 0 {
		return opaque(state)
	}
	// A function of the input (what a method of the input computes, or a
	// function called with some of the input) is the input's; a method of
	// the server's state is state.
	org := state
	for i, a := range args {
		x := f.eval(a)
		in := x.org == input || (x.kind == kObj && x.obj.decoded())
		if callee.Signature.Recv() != nil && i == 0 && !in {
			return opaque(state)
		}
		switch {
		case in:
			org = input
		case x.org == unknown:
			return gaveUp("the result of " + callee.Name())
		}
	}
	return opaque(org)
}

// foldBool is fold's answer when it is a boolean (a comparison), without
// making a value: what most of fold's callers ask.
func foldBool(op token.Token, x, y *value) (result, ok bool) {
	if x.kind == kConst && y.kind == kConst {
		if x.isNil || y.isNil {
			if op == token.EQL || op == token.NEQ {
				return (x.isNil == y.isNil) == (op == token.EQL), true
			}
			return false, false
		}
		if x.c.Kind() == constant.Unknown || y.c.Kind() == constant.Unknown {
			return false, false
		}
		switch op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return constant.Compare(x.c, op, y.c), true
		}
		return false, false
	}
	// A value that is surely not nil against nil.
	if op == token.EQL || op == token.NEQ {
		nn := func(a, b *value) bool { return (a.kind == kObj || a.kind == kNonNil) && b.kind == kConst && b.isNil }
		if nn(x, y) || nn(y, x) {
			return op == token.NEQ, true
		}
	}
	return false, false
}

// fold evaluates an operation on two constants (or compares a value
// that is surely not nil with nil): the constant, fixed where the first
// operand that was fixed was (the value, against nil), or nil.
func fold(op token.Token, x, y *value) *value {
	bothConst := x.kind == kConst && y.kind == kConst
	at := x.at
	if bothConst && !at.IsValid() || !bothConst && x.kind == kConst {
		at = y.at
	}
	if b, ok := foldBool(op, x, y); ok {
		return constAt(constant.MakeBool(b), at)
	}
	if bothConst && !x.isNil && !y.isNil && x.c.Kind() != constant.Unknown && y.c.Kind() != constant.Unknown {
		switch op {
		case token.ADD, token.SUB, token.MUL, token.AND, token.OR, token.XOR:
			return constAt(constant.BinaryOp(x.c, op, y.c), at)
		}
	}
	return nil
}

func sameConst(vs []*value) *value {
	if len(vs) == 0 {
		return nil
	}
	first := vs[0]
	if first.kind != kConst {
		return nil
	}
	for _, v := range vs[1:] {
		if v.kind != kConst || v.isNil != first.isNil {
			return nil
		}
		if !first.isNil && !constant.Compare(first.c, token.EQL, v.c) {
			return nil
		}
	}
	return first
}

func isNillable(t types.Type) bool {
	switch t.Underlying().(type) {
	case *types.Pointer, *types.Interface, *types.Map, *types.Slice, *types.Chan, *types.Signature:
		return true
	}
	return false
}

func isReceiver(p *ssa.Parameter) bool {
	fn := p.Parent()
	return fn.Signature.Recv() != nil && len(fn.Params) > 0 && fn.Params[0] == p
}

func paramIndex(p *ssa.Parameter) int {
	for i, x := range p.Parent().Params {
		if x == p {
			return i
		}
	}
	return -1
}

// fieldVar is field i of the struct that t is, or points to.
func fieldVar(t types.Type, i int) *types.Var {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	if s, ok := t.Underlying().(*types.Struct); ok && i < s.NumFields() {
		return s.Field(i)
	}
	return nil
}
