package feasible

import (
	"go/constant"
	"go/token"
	"go/types"
	"strconv"

	"golang.org/x/tools/go/ssa"
)

// origin says where a value comes from, from the most to the least known.
type origin int

const (
	fixed   origin = iota // a constant or an object of the path
	input                 // the root's input
	state                 // server state
	unknown               // the analysis gave up
)

func (o origin) String() string {
	return [...]string{"fixed", "input", "state", "unknown"}[o]
}

// kind is what a value is known to be.
type kind int

const (
	kConst  kind = iota // c (a nil constant when c is nil and isNil)
	kObj                // an object made on the path (a pointer to it, or its value)
	kAddr               // the address of a field of base
	kNonNil             // some value that is not nil (a closure, a made map, an interface holding a value)
	kTerm               // a term of the input or of the state
	kOpaque             // some value of the given origin
	kAlt                // one of several values (a phi, a call's returns): alts
	kNone               // no value: a way that cannot be (a receiver of another type)
)

// value is what the path knows of an SSA value.
type value struct {
	kind  kind
	org   origin
	c     constant.Value
	isNil bool
	obj   *object
	// kAddr: the field's base and index.
	base  *value
	field int
	fvar  *types.Var
	// kNonNil: the dynamic type an interface value holds, and the value.
	dyn   types.Type
	inner *value
	// term is the canonical name of a kTerm ("in1.Revision", "st:recv.compactMainRev"),
	// and the identity of any other value that is not a constant (the SSA
	// value in its frame), so that relations between values can be said.
	// off: an integer value is term + off.
	term string
	off  int64
	// at is where the value was fixed on the path: a constant argument's
	// call, a literal's field; desc says what it is ("0", "nil").
	at   token.Pos
	desc string
	// why says where the analysis gave up (kOpaque, unknown).
	why string
	// lit is the literal that leaves this field unset (a zero value);
	// unset the field the path's requests leave at zero (Path.Zero).
	lit   *object
	unset *types.Var
	// fn and bindings are a function value's function and what a closure
	// captures (a bound method: its receiver).
	fn       *ssa.Function
	bindings []*value
	// kAlt: the alternatives, and the key under which a world records the
	// one it takes.
	alts []*alt
	key  altKey
	// zs marks the zero value of a struct: each field is its zero.
	zs bool
	// empty marks a slice known to have no elements (a field of a
	// parameter's copy that only ever holds such slices): its length is 0.
	empty bool
	// handed, on a root's pointer parameter that its caller never passes
	// nil (Path.ArgsNonNil), is the root.
	handed *ssa.Function
	// sent, on a term of state frozen into a message (freeze), is the
	// field read it is, or whose slice it is an element of, on the
	// sender's path.
	sent *readSrc
}

// readSrc is a read of a field on a sender's path: of the field itself,
// or (elem) of an element of the slice the field holds.
type readSrc struct {
	field *types.Var
	elem  bool
	pos   token.Pos
	fn    *ssa.Function
	// carry, when set, is what the value carries: a difference the
	// sender computed (Carry.Minus) rather than a read of field.
	carry *Carry
}

func constVal(c constant.Value) *value {
	return &value{kind: kConst, org: fixed, c: c, desc: c.ExactString()}
}

// constAt is constVal(c).fixedAt(at), made at once.
func constAt(c constant.Value, at token.Pos) *value {
	return &value{kind: kConst, org: fixed, c: c, desc: c.ExactString(), at: at}
}

func nilVal() *value { return &value{kind: kConst, org: fixed, isNil: true, desc: "nil"} }

func nonNil(dyn types.Type, inner *value) *value {
	return &value{kind: kNonNil, org: fixed, dyn: dyn, inner: inner}
}

func termVal(name string, org origin) *value { return &value{kind: kTerm, org: org, term: name} }

func opaque(org origin) *value { return &value{kind: kOpaque, org: org} }

func gaveUp(why string) *value { return &value{kind: kOpaque, org: unknown, why: why} }

// derived is a value computed from xs by code the analysis does not
// evaluate: unknown if any is, else input if the input has a part in it
// (the input can move it), else state.
func derived(xs ...*value) *value {
	org := state
	for _, x := range xs {
		switch x.org {
		case unknown:
			return &value{kind: kOpaque, org: unknown, why: x.why}
		case input:
			org = input
		}
	}
	return &value{kind: kOpaque, org: org}
}

// at returns a copy of v fixed at pos, unless it already says where.
func (v *value) fixedAt(pos token.Pos) *value {
	if v.org != fixed || v.at.IsValid() || !pos.IsValid() {
		return v
	}
	c := *v
	c.at = pos
	return &c
}

// object is a composite literal (or a local variable) made on the path.
type object struct {
	alloc ssa.Value // the *ssa.Alloc, identity of the object
	// path, for a struct held by value in a field of the allocation
	// (an embedded struct), are the field indices that lead to it.
	path []int
	subs map[int]*object
	fr   *frame // the frame that made it
	typ  types.Type
	// fields are the known field values, by index, computed lazily.
	fields map[int]*value
	// set lists the fields the literal sets, in order.
	set []string
	// frozen, when set, are all the fields, fixed at the end of the path
	// that made the object (see freeze).
	frozen map[int]*value
	busy   bool
	// exits are fields as the maker leaves them when it returns (exitField).
	exits map[int]*value
}

// zero is the zero value of t, as a value: what a literal leaves unset.
func zero(t types.Type) *value {
	switch u := t.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsBoolean != 0:
			return constVal(constant.MakeBool(false))
		case u.Info()&types.IsString != 0:
			return constVal(constant.MakeString(""))
		case u.Info()&types.IsNumeric != 0:
			return constVal(constant.MakeInt64(0))
		}
	case *types.Pointer, *types.Interface, *types.Map, *types.Slice, *types.Chan, *types.Signature:
		return nilVal()
	case *types.Struct:
		return &value{kind: kOpaque, org: state, zs: true}
	}
	return opaque(state)
}

// show is a short text of a fixed value, for reasons.
func (v *value) show() string {
	switch v.kind {
	case kConst:
		if v.isNil {
			return "nil"
		}
		if v.c.Kind() == constant.String {
			return strconv.Quote(constant.StringVal(v.c))
		}
		return v.c.ExactString()
	case kObj:
		return "a literal"
	case kNonNil:
		return "not nil"
	}
	return v.desc
}
