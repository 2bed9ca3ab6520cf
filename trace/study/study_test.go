package study

import (
	"strings"
	"testing"

	"github.com/srctrace/srctrace/trace/lab"
	"github.com/srctrace/srctrace/trace/signal"
	"github.com/srctrace/srctrace/trace/target"
)

func TestCheck(t *testing.T) {
	base := func() *Study {
		return &Study{Name: "s", Module: "m", Sentinel: "m/p.Err", Target: &target.Target{Name: "t", Main: "m", Layout: []target.Folder{{Module: "m", Dir: "m"}}}, Signal: &signal.Spec{Revision: "m/p.T.f"}}
	}
	for _, tc := range []struct {
		name   string
		change func(*Study)
		want   string
	}{
		{"no sentinel", func(s *Study) { s.Sentinel = "" }, "required"},
		{"unqualified sentinel", func(s *Study) { s.Sentinel = "Err" }, "not a qualified name"},
		{"no folder", func(s *Study) { s.Module = "other" }, "no folder"},
		{"twin entries", func(s *Study) { s.Entries = []Entry{{Name: "e", Function: "m/p.F"}, {Name: "e", Function: "m/p.G"}} }, "unique"},
		{"claim without its fact", func(s *Study) { s.Claims = []Claim{{Says: "x", Verdict: "reopen"}} }, "a claim needs"},
		{"behaviour without its script", func(s *Study) {
			s.Lab = &lab.Lab{Scripts: []lab.Script{{Name: lab.Baseline}}}
			s.Behaviours = []Behaviour{{ID: "b", Observed: "nope"}}
		}, `script "nope", which the lab does not have`},
		{"scripts without a baseline", func(s *Study) {
			s.Lab = &lab.Lab{Scripts: []lab.Script{{Name: "b"}}}
			s.Behaviours = []Behaviour{{ID: "b", Observed: "b"}}
		}, "need a \"baseline\" script"},
		{"claim without a signal", func(s *Study) {
			s.Signal = nil
			s.Claims = []Claim{{Says: "x", Verdict: "reopen", Holds: "checked-at-open"}}
		}, "no signal"},
	} {
		s := base()
		tc.change(s)
		if err := s.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	if err := base().Check(); err != nil {
		t.Errorf("the base study: %v", err)
	}
}
