package errcompacted

import (
	"strings"
	"testing"

	"github.com/srctrace/srctrace/trace/study"
)

// TestCheckClaims: every claim of the errcompacted study names a fact its
// verdict can establish, and a misspelt one is refused before any loading.
func TestCheckClaims(t *testing.T) {
	if err := checkClaims(Study); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		claim study.Claim
		want  string
	}{
		{study.Claim{Says: "x", Verdict: "reopen", Holds: "refused-at-open"}, `names fact "refused-at-open"`},
		{study.Claim{Says: "x", Verdict: "reopen", Holds: FactCheckedAtOpen, Fails: FactCitedLinesRun}, "never establishes"},
		{study.Claim{Says: "x", Verdict: "eviction", Holds: FactComparesProgress}, `names verdict "eviction"`},
	} {
		st := &study.Study{Name: "s", Claims: []study.Claim{tc.claim}}
		if err := checkClaims(st); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: err = %v, want %q", tc.claim, err, tc.want)
		}
	}
}
