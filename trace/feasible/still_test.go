package feasible

import (
	"testing"

	"golang.org/x/tools/go/ssa"
)

// TestDomIn: a block that does not dominate another does once the world
// rules out the other side of the branch that bypasses it.
func TestDomIn(t *testing.T) {
	const src = `package p

func h() int { return 1 }

func g(b bool, x int) int {
	y := 0
	if b {
		y = h()
	} else {
		y = 2
	}
	return y + x
}
`
	pkg, _ := buildSource(t, src, 0)
	fn := pkg.Func("g")
	entry := fn.Blocks[0]
	ifi := entry.Instrs[len(entry.Instrs)-1].(*ssa.If)
	then, els := entry.Succs[0], entry.Succs[1]
	var join *ssa.BasicBlock
	for _, b := range fn.Blocks {
		if len(b.Preds) == 2 {
			join = b
		}
	}
	if join == nil || ifi == nil {
		t.Fatal("no join block")
	}
	if then.Dominates(join) {
		t.Fatal("the then block dominates the join: the test's premise fails")
	}
	for _, c := range []struct {
		name    string
		refuted func(*ssa.BasicBlock) bool
		want    bool
	}{
		{"no world", nil, false},
		{"both sides can run", func(*ssa.BasicBlock) bool { return false }, false},
		{"the else side cannot run", func(b *ssa.BasicBlock) bool { return b == els }, true},
		{"the then side cannot run", func(b *ssa.BasicBlock) bool { return b == then }, false},
	} {
		if got := domIn(fn, then, join, c.refuted); got != c.want {
			t.Errorf("%s: domIn(then, join) = %v, want %v", c.name, got, c.want)
		}
	}
	if !domIn(fn, entry, join, func(*ssa.BasicBlock) bool { return false }) {
		t.Error("the entry does not dominate the join")
	}
}

// TestImpliedPasses: a pass of a range loop over a slice is not listed
// where the function already tests the slice's length, and is where it
// does not.
func TestImpliedPasses(t *testing.T) {
	const src = `package p

func tested(keys []string) int {
	if len(keys) == 0 {
		return 0
	}
	n := 0
	for _, k := range keys {
		n += len(k)
	}
	return n
}

func untested(keys []string, other []string) int {
	if len(other) == 0 {
		return 0
	}
	n := 0
	for _, k := range keys {
		n += len(k)
	}
	return n
}
`
	pkg, _ := buildSource(t, src, 0)
	for _, c := range []struct {
		fn   string
		want int // conditions left of the two
	}{{"tested", 1}, {"untested", 2}} {
		fn := pkg.Func(c.fn)
		var cs []Cond
		for _, b := range fn.Blocks {
			ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
			if !ok {
				continue
			}
			switch {
			case b.Comment == "rangeindex.loop":
				// A pass: the loop's test taken true.
				cs = append(cs, Cond{Func: fn, If: ifi, Class: State, Ranged: "keys", taken: b.Succs[0]})
			default:
				// The length test, taken false (the return not taken).
				if _, isLen := lenTest(ifi.Cond, false); !isLen {
					t.Fatalf("%s: the branch %v is no length test", c.fn, ifi.Cond)
				}
				cs = append(cs, Cond{Func: fn, If: ifi, Class: State, taken: b.Succs[1]})
			}
		}
		if len(cs) != 2 {
			t.Fatalf("%s: %d conditions, want a length test and a pass", c.fn, len(cs))
		}
		got := impliedPasses(cs)
		if len(got) != c.want {
			t.Errorf("%s: %d conditions left, want %d", c.fn, len(got), c.want)
		}
		for _, x := range got {
			if c.fn == "tested" && x.Ranged != "" {
				t.Errorf("%s: the pass over keys is still listed beside len(keys) == 0", c.fn)
			}
		}
	}
}
