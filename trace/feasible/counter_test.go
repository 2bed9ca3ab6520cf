package feasible

import (
	"go/ast"
	"go/token"
	"go/types"
	"testing"

	"golang.org/x/tools/go/ssa"
)

// TestCountsUp: a range loop's index and a counted loop's counter start at
// a constant and only grow; a value a loop halves, or one that starts
// from a parameter, is no counter. The test of a range loop over a slice
// reads as `key < len(x)`.
func TestCountsUp(t *testing.T) {
	const src = `package p

type R struct{ Events []int }

func ranges(r R) (n int) {
	for i := range r.Events {
		n += i
	}
	return
}

func counts() (n int) {
	for k := 3; k < 10; k += 2 {
		n++
	}
	return
}

func halves(x int) int {
	for x > 1 {
		x /= 2
	}
	return x
}

func fromParam(x int) int {
	for ; x < 10; x++ {
	}
	return x
}
`
	pkg, _ := buildSource(t, src, ssa.SanityCheckFunctions|ssa.GlobalDebug)
	phis := func(fn string) (out []*ssa.Phi) {
		for _, b := range pkg.Func(fn).Blocks {
			for _, ins := range b.Instrs {
				if p, ok := ins.(*ssa.Phi); ok && isInteger(p.Type()) {
					out = append(out, p)
				}
			}
		}
		return out
	}
	for _, c := range []struct {
		fn      string
		counter bool
		least   int64
	}{
		{"ranges", true, -1}, // go/ssa starts a range index at -1 and adds 1 before the test
		{"counts", true, 3},
		{"halves", false, 0},
		{"fromParam", false, 0},
	} {
		found, least := false, int64(0)
		for _, p := range phis(c.fn) {
			if l, ok := countsUp(p); ok {
				found, least = true, l
			}
		}
		if found != c.counter || found && least != c.least {
			t.Errorf("%s: counter %v from %d, want %v from %d", c.fn, found, least, c.counter, c.least)
		}
	}
	// The range loop's test names its key and what it ranges over.
	var got string
	for _, b := range pkg.Func("ranges").Blocks {
		if ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If); ok {
			if key, over, ok := rangeIndex(ifi); ok {
				got = key + " over " + types.ExprString(over.Expr)
			}
		}
	}
	if got != "i over r.Events" {
		t.Errorf("range loop's test: %q, want i over r.Events", got)
	}
}

// TestLookupOf: the test of a map lookup's comma-ok, or of its negation,
// names the lookup as written; a test of another boolean names none.
func TestLookupOf(t *testing.T) {
	const src = `package p

func f(wb map[int]string, w int, b bool) int {
	eb, ok := wb[w]
	if !ok {
		return 0
	}
	if b {
		return 1
	}
	return len(eb)
}
`
	pkg, f := buildSource(t, src, ssa.SanityCheckFunctions)
	tx := &texts{file: func(token.Pos) *ast.File { return f }, files: &files{data: map[string][]byte{}, index: map[*ast.File]*fileIndex{}}}
	var got []string
	for _, b := range pkg.Func("f").Blocks {
		if ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If); ok {
			got = append(got, tx.lookupOf(ifi.Cond))
		}
	}
	if len(got) != 2 || got[0] != "wb[w]" || got[1] != "" {
		t.Errorf("lookups = %q, want [wb[w] \"\"]", got)
	}
}
