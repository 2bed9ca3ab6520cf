package feasible

import (
	"go/constant"
	"go/token"
	"go/types"
	"testing"
)

// TestSomeAlt: a witness that a comparison of a value of several
// alternatives with a constant can hold is one alternative, in a world
// its guards leave, that the comparison does not refute; an alternative
// the world has already taken is the only one tried, and alternatives
// of alternatives are followed. What a witness kills on the way stays
// the walk's to undo (witnessAny does).
func TestSomeAlt(t *testing.T) {
	errT := types.Universe.Lookup("error").Type()
	intT := types.Typ[types.Int]
	made := func() *value { return nonNil(types.NewPointer(types.Typ[types.String]), nil) }
	alts := func(frame int, vs ...*value) *value {
		v := &value{kind: kAlt, key: altKey{frame: frame}}
		for _, x := range vs {
			v.alts = append(v.alts, &alt{val: x})
		}
		return v
	}
	newWalk := func() *walk {
		return &walk{budget: 100}
	}
	for _, c := range []struct {
		name string
		val  *value
		op   token.Token
		k    *value
		t    types.Type
		// chosen, when not negative, is the alternative the world took.
		chosen int
		want   bool
	}{
		{"an error that can be nil", alts(1, made(), nilVal(), made()), token.EQL, nilVal(), errT, -1, true},
		{"an error never nil", alts(2, made(), made()), token.EQL, nilVal(), errT, -1, false},
		{"an error never nil is not nil", alts(3, made(), made()), token.NEQ, nilVal(), errT, -1, true},
		{"the alternative taken refutes", alts(4, made(), nilVal()), token.EQL, nilVal(), errT, 0, false},
		{"the alternative taken holds", alts(5, made(), nilVal()), token.EQL, nilVal(), errT, 1, true},
		{"an alternative of an alternative", alts(6, made(), alts(7, made(), nilVal())), token.EQL, nilVal(), errT, -1, true},
		{"constants below a bound", alts(8, constVal(constant.MakeInt64(3)), constVal(constant.MakeInt64(9))), token.GTR, constVal(constant.MakeInt64(5)), intT, -1, true},
		{"constants none above a bound", alts(9, constVal(constant.MakeInt64(3)), constVal(constant.MakeInt64(4))), token.GTR, constVal(constant.MakeInt64(5)), intT, -1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWalk()
			wd := newWorld()
			if c.chosen >= 0 {
				wd.setChoice(c.val.key, c.chosen)
			}
			if got := w.someAlt([]*world{wd}, c.val, c.k, true, c.op, c.t); got != c.want {
				t.Errorf("val %s k: %v, want %v", c.op, got, c.want)
			}
			// The constant on the left: the comparison mirrored.
			mirror := map[token.Token]token.Token{token.EQL: token.EQL, token.NEQ: token.NEQ, token.GTR: token.LSS}[c.op]
			if got := w.someAlt([]*world{wd}, c.val, c.k, false, mirror, c.t); got != c.want {
				t.Errorf("k %s val: %v, want %v", mirror, got, c.want)
			}
		})
	}
}
