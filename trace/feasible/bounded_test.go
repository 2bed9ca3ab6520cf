package feasible

import "testing"

// TestBoundedEarly: with Path.OnlyRuns, a walk that passes the bound of
// work stops there and is Unknown (Bounded), not remembered as the
// path's verdict; a path that shares the first hops it passed the bound
// in is not walked; one that does not share them is; and with the bound
// not reached, OnlyRuns changes no verdict.
func TestBoundedEarly(t *testing.T) {
	const src = `package main

var sink int

func use() { sink++ }

func viaA() { use() }

func viaB() { use() }

func mid(n int) {
	if n > 1 {
		viaA()
	} else {
		viaB()
	}
}

func heavy(n, m int) {
	if n > 0 {
		if m > 0 {
			if n > m {
				mid(n)
			}
		}
	}
}

func light(n int) {
	if n > 0 {
		mid(n)
	}
}

func main() {
	heavy(2, 1)
	light(2)
}
`
	g, fn := loadMain(t, "example.com/bounded", src)
	use := fn("use")
	target := use.Blocks[0].Instrs[0]
	paths := func(root string) []Path {
		ps := g.Paths(fn(root), use, 8)
		if len(ps) != 2 {
			t.Fatalf("%d paths from %s to use, want 2 (through viaA and viaB)", len(ps), root)
		}
		var out []Path
		for _, p := range ps {
			out = append(out, Path{Root: fn(root), Hops: p, Target: target, OnlyRuns: true})
		}
		return out
	}
	heavy, light := paths("heavy"), paths("light")

	// Three tests before heavy's call of mid: a bound of two passes in
	// its first hop.
	c := New(g)
	c.budget = 2
	r, _ := c.Check(heavy[0])
	if r.Verdict != Unknown || r.Because == nil || r.Because.Why != Bounded {
		t.Fatalf("past the bound with OnlyRuns: %v (%+v), want unknown (bounded)", r.Verdict, r.Because)
	}
	if _, ok := c.checked[pathKey(heavy[0])]; ok {
		t.Errorf("a walk stopped at the bound is remembered as the path's verdict")
	}
	if !c.boundedEarly(heavy[1]) {
		t.Errorf("a path that shares the hop the bound was passed in is not known to pass it")
	}
	if c.boundedEarly(light[0]) || c.boundedEarly(light[1]) {
		t.Errorf("a path from another root is taken as one that passes the bound")
	}
	if r, _ := c.Check(heavy[1]); r.Verdict != Unknown || r.Because == nil || r.Because.Why != Bounded {
		t.Errorf("the second path from heavy: %v, want unknown (bounded)", r.Verdict)
	}
	// Without OnlyRuns the walk goes on, and its verdict is remembered.
	plain := heavy[0]
	plain.OnlyRuns = false
	if r, _ := c.Check(plain); r.Verdict != Unknown {
		t.Errorf("past the bound without OnlyRuns: %v, want unknown", r.Verdict)
	}
	if _, ok := c.checked[pathKey(plain)]; !ok {
		t.Errorf("a whole walk's verdict is not remembered")
	}
	// A walk that goes no further than the bound notes it too.
	c = New(g)
	c.budget = 2
	c.Check(plain)
	if !c.boundedEarly(heavy[1]) {
		t.Errorf("after a whole walk past the bound, a path that shares its first hop is not known to pass it")
	}

	// With the whole bound, OnlyRuns changes nothing.
	for _, ps := range [][]Path{heavy, light} {
		for _, p := range ps {
			got, _ := New(g).Check(p)
			q := p
			q.OnlyRuns = false
			want, _ := New(g).Check(q)
			if got.Verdict != want.Verdict || len(got.Conds) != len(want.Conds) {
				t.Errorf("%v with OnlyRuns: %v with %d conditions; without: %v with %d", p.Hops, got.Verdict, len(got.Conds), want.Verdict, len(want.Conds))
			}
			if got.Verdict == Unknown {
				t.Errorf("%v: unknown within the bound", p.Hops)
			}
		}
	}
}

// TestOnlyYes: with Path.OnlyYes, a call site the way reaches past a
// condition of state is not followed; a path whose every site is left
// out so is Unknown and not remembered; one where another site gives
// Yes gets the verdict of a walk that follows every site, remembered.
func TestOnlyYes(t *testing.T) {
	const src = `package main

var sink, state int

func use() { sink++ }

func viaA() { use() }

func gated(n int) {
	if state > 0 {
		viaA()
	}
}

func twice(n int) {
	if state > 0 {
		viaA()
	}
	if n > 0 {
		viaA()
	}
}

func main() {
	gated(1)
	twice(1)
}
`
	g, fn := loadMain(t, "example.com/onlyyes", src)
	use := fn("use")
	target := use.Blocks[0].Instrs[0]
	path := func(root string) Path {
		ps := g.Paths(fn(root), use, 8)
		if len(ps) != 1 {
			t.Fatalf("%d paths from %s to use, want 1", len(ps), root)
		}
		return Path{Root: fn(root), Hops: ps[0], Target: target}
	}
	for _, tc := range []struct {
		root      string
		plain     Verdict // the walk that follows every site
		onlyYes   Verdict
		remembers bool
	}{
		{"gated", OnlyIf, Unknown, false},
		{"twice", Yes, Yes, true},
	} {
		p := path(tc.root)
		want, _ := New(g).Check(p)
		if want.Verdict != tc.plain {
			t.Fatalf("%s: %v without OnlyYes, want %v", tc.root, want.Verdict, tc.plain)
		}
		c := New(g)
		q := p
		q.OnlyYes = true
		got, _ := c.Check(q)
		if got.Verdict != tc.onlyYes {
			t.Errorf("%s with OnlyYes: %v, want %v", tc.root, got.Verdict, tc.onlyYes)
		}
		if got.Verdict == Yes && len(got.Conds) != len(want.Conds) {
			t.Errorf("%s with OnlyYes: %d conditions, the whole walk %d", tc.root, len(got.Conds), len(want.Conds))
		}
		if _, ok := c.checked[pathKey(p)]; ok != tc.remembers {
			t.Errorf("%s with OnlyYes: remembered %v, want %v", tc.root, ok, tc.remembers)
		}
	}
}

// TestOnlyYesBudgets: at every bound of work, a walk with OnlyYes gives
// Yes exactly when the walk that follows every site does. A test of what
// is possible that gives its budget back (tryBranch) takes what it could
// not finish for the bound as possible; the walk that skips a site has
// more budget left there and may finish it: a Yes that rests on such a
// test is Unknown (Bounded) in both. (A reviewer's case: at a bound of 8
// the whole walk gave Yes and the skipping one did not.)
func TestOnlyYesBudgets(t *testing.T) {
	const src = `package main

var sink, sink2, state, state2 int

func use() { sink++ }

func via(err error) {
	if err != nil {
		return
	}
	if state2 > 0 {
		sink2++
	} else if err != nil {
		sink2--
	} else {
		return
	}
	use()
}

func f(err error) {
	if state > 0 {
		via(err)
	}
	via(err)
}

func main() { f(nil) }
`
	g, fn := loadMain(t, "example.com/budgets", src)
	use, f := fn("use"), fn("f")
	target := use.Blocks[0].Instrs[0]
	ps := g.Paths(f, use, 8)
	if len(ps) == 0 {
		t.Fatal("no path from f to use")
	}
	verdicts := map[Verdict]bool{}
	for _, hops := range ps {
		p := Path{Root: f, Hops: hops, Target: target}
		for b := 0; b <= 120; b++ {
			c := New(g)
			c.budget = b
			whole, _ := c.Check(p)
			verdicts[whole.Verdict] = true
			c = New(g)
			c.budget = b
			q := p
			q.OnlyYes = true
			got, _ := c.Check(q)
			if (whole.Verdict == Yes) != (got.Verdict == Yes) {
				t.Errorf("bound %d, %v: the whole walk %v, with OnlyYes %v", b, hops, whole.Verdict, got.Verdict)
			}
		}
	}
	// The bounds cover a walk cut short, one that only a test inside it
	// was, and one that finishes.
	if !verdicts[Unknown] || !verdicts[OnlyIf] {
		t.Errorf("verdicts over the bounds: %v, want unknown and only-if among them", verdicts)
	}
}

// TestObjectPerFrame: a function the walk enters at two call sites makes
// its object at each from that frame's values. The way through the second
// call of g tests the field it sets from state2, so it can run only if
// state2 is 1; the object the first call made (with 1) is not the
// second's. (A reviewer's case: with one object per allocation the whole
// walk said yes, and OnlyYes, which skips the first call, did not.)
func TestObjectPerFrame(t *testing.T) {
	const src = `package main

var sink, state, state2 int

type T struct{ A int }

func use() { sink++ }

func g(n int) {
	t := &T{A: n}
	if t.A == 1 {
		use()
	}
}

func f() {
	if state > 0 {
		g(1)
	}
	g(state2)
}

func main() { f() }
`
	g, fn := loadMain(t, "example.com/objs", src)
	use := fn("use")
	ps := g.Paths(fn("f"), use, 8)
	if len(ps) != 1 {
		t.Fatalf("%d paths from f to use, want 1 (f → g → use)", len(ps))
	}
	p := Path{Root: fn("f"), Hops: ps[0], Target: use.Blocks[0].Instrs[0]}
	whole, _ := New(g).Check(p)
	if whole.Verdict != OnlyIf {
		t.Errorf("f → g → use: %v, want only-if (state2 is 1 at the second call)", whole.Verdict)
	}
	q := p
	q.OnlyYes = true
	if got, _ := New(g).Check(q); (got.Verdict == Yes) != (whole.Verdict == Yes) {
		t.Errorf("with OnlyYes: %v; the whole walk: %v", got.Verdict, whole.Verdict)
	}
}
