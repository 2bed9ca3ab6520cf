package feasible

import (
	"go/types"
	"testing"

	"golang.org/x/tools/go/ssa"
)

// TestOrderWrites: which writes of a field keep it from going down. A
// first value is one stored into a struct before anything could see it;
// a store after the struct is sent, or in a loop after that, may lower
// the field. An add to the field's own value, or a raise, must read the
// field with nothing between the read and the store that lets another
// write in (a lock released and taken again is a call).
func TestOrderWrites(t *testing.T) {
	const src = `package p

import "sync"

type S struct {
	mu sync.Mutex
	n  int64
}

func made() *S { return &S{n: 1} }

func madeThenSet() *S {
	s := &S{}
	s.n = 2
	return s
}

func published(ch chan *S) {
	s := &S{n: 1}
	ch <- s
	s.n = 0
}

func looped(ch chan *S) {
	s := &S{}
	ch <- s
	for i := 0; i < 3; i++ {
		s.n = 1
	}
}

func (s *S) inc() { s.n++ }

func (s *S) stale() {
	s.mu.Lock()
	old := s.n
	s.mu.Unlock()
	s.mu.Lock()
	s.n = old + 1
	s.mu.Unlock()
}

func (s *S) raise(v int64) {
	if v > s.n {
		s.n = v
	}
}

func (s *S) raiseStale(v int64) {
	x := s.n
	s.mu.Lock()
	if v > x {
		s.n = v
	}
	s.mu.Unlock()
}
`
	pkg, _ := buildSource(t, src, ssa.SanityCheckFunctions)
	field := pkg.Pkg.Scope().Lookup("S").Type().Underlying().(*types.Struct).Field(1)
	// The stores of n in each function, in order.
	storesOf := func(fn *ssa.Function) []*ssa.Store {
		var out []*ssa.Store
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				if st, ok := ins.(*ssa.Store); ok {
					if fa, ok := st.Addr.(*ssa.FieldAddr); ok && fieldVar(fa.X.Type(), fa.Field) == field {
						out = append(out, st)
					}
				}
			}
		}
		return out
	}
	fn := func(name string) *ssa.Function {
		if f := pkg.Func(name); f != nil {
			return f
		}
		return pkg.Prog.LookupMethod(types.NewPointer(pkg.Pkg.Scope().Lookup("S").Type()), pkg.Pkg, name)
	}
	for _, c := range []struct {
		fn   string
		made []bool // madeWrite of each store
	}{
		{"made", []bool{true}},
		{"madeThenSet", []bool{true}},
		{"published", []bool{true, false}},
		{"looped", []bool{false}},
	} {
		sts := storesOf(fn(c.fn))
		if len(sts) != len(c.made) {
			t.Fatalf("%s: %d stores of n, want %d", c.fn, len(sts), len(c.made))
		}
		for i, st := range sts {
			if got := madeWrite(st); got != c.made[i] {
				t.Errorf("%s: store %d: madeWrite = %v, want %v", c.fn, i, got, c.made[i])
			}
		}
	}
	// The add's and the raise's reads.
	for _, c := range []struct {
		fn   string
		adds bool // an add to the field's own value, with nothing between
		rise bool // a raise over the field, with nothing between
	}{
		{"inc", true, false},
		{"stale", false, false},
		{"raise", false, true},
		{"raiseStale", false, false},
	} {
		sts := storesOf(fn(c.fn))
		if len(sts) != 1 {
			t.Fatalf("%s: %d stores of n, want 1", c.fn, len(sts))
		}
		st := sts[0]
		fa := st.Addr.(*ssa.FieldAddr)
		adds := false
		if x, ok := st.Val.(*ssa.BinOp); ok {
			for _, p := range [][2]ssa.Value{{x.X, x.Y}, {x.Y, x.X}} {
				adds = adds || readsFieldOf(p[0], field, fa.X) && nothingBetween(p[0], st)
			}
		}
		if adds != c.adds {
			t.Errorf("%s: an add with nothing between = %v, want %v", c.fn, adds, c.adds)
		}
		if rise := raisedOver(field, fa.X, st, st.Block()) != ""; rise != c.rise {
			t.Errorf("%s: a raise = %v, want %v", c.fn, rise, c.rise)
		}
	}
}

// TestEmbedPaths: a struct that embeds another's by two ways holds two of
// them; one that embeds it through one wrapper holds one.
func TestEmbedPaths(t *testing.T) {
	const src = `package p

type S struct{ n int64 }
type A struct{ *S }
type B struct{ *S }
type D struct {
	*A
	*B
}
type E struct{ A }
type F struct{ n int64 }
`
	pkg, _ := buildSource(t, src, 0)
	named := func(n string) *types.Named { return pkg.Pkg.Scope().Lookup(n).Type().(*types.Named) }
	for _, c := range []struct {
		outer string
		want  int
	}{{"A", 1}, {"D", 2}, {"E", 1}, {"F", 0}} {
		if got := embedPaths(named(c.outer), named("S"), 0); got != c.want {
			t.Errorf("embedPaths(%s, S) = %d, want %d", c.outer, got, c.want)
		}
	}
}
