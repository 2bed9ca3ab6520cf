package feasible

import (
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// altKey names a value that is one of several, so that a world takes the
// same alternative at every use of it.
type altKey struct {
	frame int
	v     ssa.Value
	// pure names a call given only parts of the request (pureKey): every
	// call of the function with those parts takes the same alternative.
	pure string
}

// alt is one alternative of a value: what it is, and what must hold for
// it to be the one.
type alt struct {
	fr *frame
	v  ssa.Value // the alternative's value in fr, or nil when val is set
	// res are a call's results at one of its returns (v is res[0]).
	res []ssa.Value
	val *value
	// fn, applied to the alternative's value, is what a value computed
	// from it is (a field of it, an element).
	fn     func(*value) *value
	guards []guard
	// ways are, when several ways of branches lead to the alternative
	// (a return that several branches reach), the branches of each: a
	// recheck (walk.thorough) takes one world for each, besides guards.
	ways [][]guard
	// at is where the alternative is fixed: the return, the assignment
	// of a phi's edge.
	at   token.Pos
	what string // "returns at", "assigned at"
	// call, for a call's return, is the call and its callee.
	call *viaCall
	// cached is the value, once computed.
	cached *value
}

// guard is something an alternative needs: a branch of its function, or
// what a loop before it checked of every element of a slice.
type guard struct {
	fr   *frame
	ifi  *ssa.If
	want bool
	tmpl *template
	via  []*viaCall
	why  *reason // the branch as a reason, made once (guardReason)
}

// value is the alternative's value.
// peek is the alternative's value when it is known without evaluating
// anything that value would make (a frame of a call, a term's number):
// the value once computed, a value given, a constant, a package-level
// error; nil otherwise. Its kind and constant are value's.
func (a *alt) peek() *value {
	switch {
	case a.cached != nil:
		return a.cached
	case a.fn != nil:
		return nil
	case a.val != nil:
		return a.val
	}
	switch x := a.v.(type) {
	case *ssa.Const:
		return a.value()
	case *ssa.UnOp:
		if g, ok := x.X.(*ssa.Global); ok && x.Op == token.MUL && a.fr != nil && a.fr.p.c.neverNil(g) {
			return a.value()
		}
	}
	return nil
}

func (a *alt) value() *value {
	if a.cached != nil {
		return a.cached
	}
	v := a.val
	if v == nil {
		v = a.fr.eval(a.v)
	}
	if a.fn != nil {
		v = a.fn(v)
	}
	if v.term == "" && v.kind != kConst && v.kind != kObj && a.fr != nil {
		// A value computed from an alternative: a term of its own.
		c := *v
		a.fr.p.nextID++
		c.term = "v#" + itoa(a.fr.p.nextID)
		v = &c
	}
	a.cached = v
	return v
}

// lift is fn applied to x: to each of x's alternatives when x is one of
// several (lazily), else to x.
func lift(x *value, fn func(*value) *value) *value {
	if x.kind != kAlt {
		return fn(x)
	}
	out := &value{kind: kAlt, org: x.org, why: x.why, key: x.key}
	for _, a := range x.alts {
		b := *a
		prev := a.fn
		b.fn = func(v *value) *value {
			if prev != nil {
				v = prev(v)
			}
			return lift(v, fn)
		}
		b.res, b.cached = nil, nil
		out.alts = append(out.alts, &b)
	}
	return out
}

// project is result i of a call's value.
func project(x *value, i int) *value {
	if x.kind != kAlt {
		r := &value{kind: kOpaque, org: x.org, why: x.why}
		if strings.HasPrefix(x.term, "call:") {
			r.term = x.term + "#" + itoa(i)
		}
		return r
	}
	out := &value{kind: kAlt, org: x.org, why: x.why, key: x.key}
	for _, a := range x.alts {
		b := *a
		b.res, b.fn, b.cached = nil, nil, nil
		switch {
		case a.res != nil && a.fn == nil:
			b.v, b.val = nil, nil
			if i < len(a.res) {
				b.v = a.res[i]
			} else {
				b.val = &value{kind: kOpaque, org: x.org}
			}
		default:
			// A choice among callees: project inside it.
			b.v, b.val = nil, project(a.value(), i)
		}
		out.alts = append(out.alts, &b)
	}
	return out
}

// asserted is x as the asserted type where the assertion holds: the same
// value, of which the type is then known.
func asserted(x *value, t types.Type) *value {
	switch x.kind {
	case kNonNil:
		if x.inner != nil && x.dyn != nil && types.Identical(x.dyn, t) {
			return x.inner
		}
	case kTerm, kOpaque:
		if x.term != "" {
			c := *x
			return &c
		}
	case kAlt:
		return lift(x, func(v *value) *value { return asserted(v, t) })
	}
	return derived(x)
}

// binop is x op y: a constant when both are; term + c for a term plus or
// minus a constant (so that relations can be said of it).
func (f *frame) binop(op token.Token, x, y *value, t types.Type) *value {
	if x.kind == kNone {
		return x
	}
	if y.kind == kNone {
		return y
	}
	if x.kind == kAlt || y.kind == kAlt {
		org := derived(x, y)
		r := lift(x, func(a *value) *value {
			return lift(y, func(b *value) *value { return f.binop(op, a, b, t) })
		})
		if r.kind == kAlt {
			r.org, r.why = org.org, org.why
		}
		return r
	}
	if r := fold(op, x, y); r != nil {
		return r
	}
	if isInteger(t) && (op == token.ADD || op == token.SUB) {
		if k, ok := intConst(y); ok && x.term != "" && x.org != unknown && x.kind != kObj {
			if op == token.SUB {
				k = -k
			}
			r := *x
			r.kind = kTerm
			if x.kind != kTerm {
				r.kind = kOpaque
			}
			r.off = x.off + k
			r.at = token.NoPos
			return &r
		}
		if k, ok := intConst(x); ok && op == token.ADD && y.term != "" && y.org != unknown && y.kind != kObj {
			r := *y
			r.off = y.off + k
			r.at = token.NoPos
			return &r
		}
	}
	return derived(x, y)
}

func intConst(v *value) (int64, bool) {
	if v.kind != kConst || v.isNil || v.c == nil || v.c.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(v.c)
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

func isUnsigned(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsUnsigned != 0
}

// phiAlt is a phi as one of its edges' values, each with the branches
// that lead to its edge; nil for a phi of a loop (an edge that comes back
// round), which the path does not unroll. old is what the phi is without
// telling its edges apart.
func (f *frame) phiAlt(phi *ssa.Phi, old *value) *value {
	b := phi.Block()
	idom := b.Idom()
	if idom == nil || len(phi.Edges) > 8 {
		return nil
	}
	for _, p := range b.Preds {
		if b.Dominates(p) {
			return nil // a back edge
		}
	}
	out := &value{kind: kAlt, org: old.org, why: old.why, key: altKey{frame: f.id, v: phi}}
	for i, e := range phi.Edges {
		pred := b.Preds[i]
		a := &alt{fr: f, v: e, at: edgePos(pred, e), what: "assigned"}
		for _, ed := range f.p.c.edgesBetween(f.fn, idom, pred, b) {
			a.guards = append(a.guards, guard{fr: f, ifi: ed.ifi, want: ed.want})
		}
		out.alts = append(out.alts, a)
	}
	return out
}

// edgePos is where the value of a phi's edge is set: the assignment in
// the edge's block that names it, or the block's last position.
func edgePos(pred *ssa.BasicBlock, v ssa.Value) token.Pos {
	for _, ins := range pred.Instrs {
		if d, ok := ins.(*ssa.DebugRef); ok && d.X == v {
			return d.Expr.Pos()
		}
	}
	if p := v.Pos(); p.IsValid() {
		return p
	}
	for i := len(pred.Instrs) - 1; i >= 0; i-- {
		if p := pred.Instrs[i].Pos(); p.IsValid() {
			return p
		}
	}
	return token.NoPos
}

// element is an element of collection x at index idx, read by v: a
// constant index names the same element everywhere; another names one
// element of the path (to which what holds for every element applies).
func (f *frame) element(x *value, v ssa.Value, idx ssa.Value) *value {
	if x.kind == kNone {
		return x
	}
	if x.kind == kAlt {
		r := lift(x, func(c *value) *value { return f.element(c, v, idx) })
		return r
	}
	if x.term == "" || x.org == unknown || x.kind == kConst {
		return element(x)
	}
	org := x.org
	if org == fixed {
		org = state
	}
	name := ""
	if idx != nil {
		if k, ok := idx.(*ssa.Const); ok && k.Value != nil {
			name = x.term + "[" + k.Value.ExactString() + "]"
		}
	}
	if name == "" {
		name = x.term + "[#" + v.Name() + "@" + itoa(f.id) + "]"
		ti := termInfo{elemOf: x.term, parent: x.term}
		if lk, ok := v.(*ssa.Lookup); ok && !lk.CommaOk {
			// An entry of a map: its key, for the lookups of the same key
			// in a map a serial run keeps still (entryPairs).
			ti.look = &lookInfo{at: lk, fr: f, key: f.eval(idx)}
		}
		f.p.note(name, ti)
	} else {
		f.p.note(name, termInfo{parent: x.term})
	}
	return termVal(name, org)
}
