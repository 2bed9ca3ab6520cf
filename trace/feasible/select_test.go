package feasible

import (
	"go/ast"
	"go/token"
	"slices"
	"testing"

	"golang.org/x/tools/go/ssa"
)

// TestSelectCases: a branch on the case a select chose names the select
// and the case's index; the case's communication reads as written (a
// receive, one assigned, a send); a select in a loop is in a cycle, one
// outside is not (only the latter's case is a condition of state).
func TestSelectCases(t *testing.T) {
	const src = `package p

func once(applied, stop chan struct{}, out chan int) int {
	select {
	case <-applied:
		return 1
	case v, ok := <-out:
		if ok {
			return v
		}
	case out <- 2:
		return 3
	case <-stop:
	}
	return 0
}

func loops(tick, done chan struct{}) int {
	for {
		select {
		case <-tick:
		case <-done:
			return 1
		}
	}
}
`
	pkg, f := buildSource(t, src, ssa.SanityCheckFunctions|ssa.GlobalDebug)
	fset := pkg.Prog.Fset
	tx := &texts{file: func(token.Pos) *ast.File { return f }, fset: fset, files: &files{data: map[string][]byte{"p.go": []byte(src)}, index: map[*ast.File]*fileIndex{}}}
	cases := func(fn string) (got []string, cycles []bool) {
		for _, b := range pkg.Func(fn).Blocks {
			ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
			if !ok {
				continue
			}
			bin, ok := ifi.Cond.(*ssa.BinOp)
			if !ok {
				continue
			}
			sel, k, ok := selectCase(bin)
			if !ok {
				continue
			}
			text, pos, ok := tx.commText(sel.States[k].Pos)
			if !ok || fset.Position(pos).Line != fset.Position(sel.States[k].Pos).Line {
				t.Errorf("%s: case %d: no communication found at its arrow", fn, k)
			}
			got = append(got, text)
			cycles = append(cycles, inCycle(sel.Block()))
		}
		return got, cycles
	}
	got, cycles := cases("once")
	if want := []string{"<-applied", "v, ok := <-out", "out <- 2", "<-stop"}; !slices.Equal(got, want) {
		t.Errorf("once: cases %q, want %q", got, want)
	}
	if slices.Contains(cycles, true) {
		t.Errorf("once: a select outside a loop is in a cycle: %v", cycles)
	}
	got, cycles = cases("loops")
	if want := []string{"<-tick", "<-done"}; !slices.Equal(got, want) {
		t.Errorf("loops: cases %q, want %q", got, want)
	}
	if slices.Contains(cycles, false) {
		t.Errorf("loops: a select in a loop is not in a cycle: %v", cycles)
	}
}
