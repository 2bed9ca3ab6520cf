package trace

import (
	"testing"

	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/study"
)

// TestBestWayPrefersFewerConditions: of ways that can run only if, the
// pair's is the first that needs the fewest conditions of state; a way
// that can run outright beats both, and among ways that cannot run the
// first is kept.
func TestBestWayPrefersFewerConditions(t *testing.T) {
	state := func(n int) feasible.Result {
		r := feasible.Result{Verdict: feasible.OnlyIf}
		for i := 0; i < n; i++ {
			r.Conds = append(r.Conds, feasible.Cond{Class: feasible.State, Want: true})
		}
		r.Because = &r.Conds[0]
		return r
	}
	two, one, alsoOne := study.Way{Res: state(2)}, study.Way{Res: state(1)}, study.Way{Res: state(1)}
	if got := bestWayIndex([]study.Way{two, one, alsoOne}); got != 1 {
		t.Errorf("best of (2, 1, 1 conditions) = way %d, want 1", got)
	}
	yes := study.Way{Res: feasible.Result{Verdict: feasible.Yes}}
	if got := bestWayIndex([]study.Way{one, yes}); got != 1 {
		t.Errorf("best of (only-if, yes) = way %d, want 1", got)
	}
	no := study.Way{Res: feasible.Result{Verdict: feasible.No}}
	if got := bestWayIndex([]study.Way{no, no, two}); got != 2 {
		t.Errorf("best of (no, no, only-if) = way %d, want 2", got)
	}
}
