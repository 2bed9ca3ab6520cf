package annotate

import (
	"testing"

	"github.com/srctrace/srctrace/trace/report"
)

// TestUndecidedBeside: a root whose way is not decided says what its way
// needs beside that, its legs' and its last part's conditions, once each,
// without the test it is not decided on, and what it asks of the request.
func TestUndecidedBeside(t *testing.T) {
	undecided := report.Cond{Text: "l == nil", File: "lessor.go", Line: 552, Want: true, Class: "state"}
	snap := report.Cond{Text: "empty(snap)", File: "server.go", Line: 1001, Want: false, Class: "state"}
	ranged := report.Cond{Text: "keys", File: "kvstore.go", Line: 392, Want: true, Class: "state", NotEmpty: true}
	u := report.NoWay{Root: "run", By: "hand-off",
		Because:  &report.Because{Text: "not decided: …", Cond: report.Cond{Text: "l == nil", File: "lessor.go", Line: 552, Class: "unknown"}, Near: &undecided},
		Crossing: []report.Crossing{{OnlyIf: []report.Cond{snap}}},
		OnlyIf:   []report.Cond{snap, ranged, undecided},
		Asks:     []report.Cond{{Text: "r.Put != nil", File: "apply.go", Line: 9, Want: true, Class: "input"}},
	}
	got := plain(undecidedBeside(u))
	want := "; beside that, it can run only if not empty(snap) (server.go:1001) and only if keys is not empty (kvstore.go:392), for a request that makes r.Put != nil true (apply.go:9)"
	if got != want {
		t.Errorf("beside = %q, want %q", got, want)
	}
	if got := plain(undecidedBeside(report.NoWay{Because: u.Because, OnlyIf: []report.Cond{undecided}})); got != "" {
		t.Errorf("beside of a way that needs nothing else = %q, want none", got)
	}
}
