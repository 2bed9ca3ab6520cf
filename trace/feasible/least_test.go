package feasible

import (
	"testing"

	"golang.org/x/tools/go/ssa"
)

// TestLeastOf: what an integer is never below, from how the code computes
// it. A sum of constants and lengths is at least the constants' sum; a
// call at least the least of its returns; a sum a loop carries, adding
// parts never below 0, at least its start, also through a recursive call
// that confirms the assumption that it is at least 0. A difference, a
// part that may be negative, or a recursion that returns a negative has
// no floor.
func TestLeastOf(t *testing.T) {
	const src = `package p

type Op struct {
	Key, Value []byte
	Sub        *Txn
}

type Txn struct{ Ops []*Op }

func cost(o *Op) int {
	if o.Sub != nil {
		return costTxn(o.Sub)
	}
	return 256 + len(o.Key) + len(o.Value)
}

func costTxn(t *Txn) int {
	n := 0
	for _, o := range t.Ops {
		n += cost(o)
	}
	return n
}

func diff(o *Op) int { return len(o.Key) - len(o.Value) }

func signed(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

func down(k int) int {
	if k > 0 {
		return down(k-1) + 1
	}
	return -1
}
`
	pkg, _ := buildSource(t, src, ssa.SanityCheckFunctions|ssa.GlobalDebug)
	c := &Checker{}
	ret := func(fn string) ssa.Value {
		var last ssa.Value
		for _, b := range pkg.Func(fn).Blocks {
			if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && len(r.Results) == 1 {
				last = r.Results[0]
			}
		}
		return last
	}
	for _, tc := range []struct {
		fn    string
		least int64
		ok    bool
	}{
		{"cost", 0, true}, // its last return is the sum: 256; the first costTxn's, 0 (checked below)
		{"costTxn", 0, true},
		{"diff", 0, false},
		{"signed", 0, false},
	} {
		got := c.leastOf(ret(tc.fn))
		if got.ok != tc.ok || got.ok && got.least < tc.least {
			t.Errorf("%s: leastOf(return) = %+v, want ok %v, at least %d", tc.fn, got, tc.ok, tc.least)
		}
	}
	// A recursive call assumes 0 or more, which down's `return -1`
	// does not confirm.
	if f := c.fnLeast(pkg.Func("down"), 0); f.ok {
		t.Errorf("fnLeast(down) = %+v, want none", f)
	}
	// The function's floor is its returns' least: costTxn's 0, not 256.
	if f := c.fnLeast(pkg.Func("cost"), 0); !f.ok || f.least != 0 {
		t.Errorf("fnLeast(cost) = %+v, want 0", f)
	}
	// The put's own cost, the last return of cost: 256.
	var sum ssa.Value
	for _, b := range pkg.Func("cost").Blocks {
		if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok {
			if _, isCall := r.Results[0].(*ssa.Call); !isCall {
				sum = r.Results[0]
			}
		}
	}
	if f := c.leastOf(sum); !f.ok || f.least != 256 {
		t.Errorf("leastOf(256 + len + len) = %+v, want 256", f)
	}
}
