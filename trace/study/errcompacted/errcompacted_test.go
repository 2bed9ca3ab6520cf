package errcompacted

import (
	"slices"
	"testing"

	"github.com/srctrace/srctrace/trace/study"
)

func TestStudy(t *testing.T) {
	if err := Study.Check(); err != nil {
		t.Fatalf("the errcompacted study: %v", err)
	}
	if s, ok := study.Lookup(Study.Name); !ok || s != Study {
		t.Fatalf("study.Lookup(%q) = %v, %v: the study is not registered", Study.Name, s, ok)
	}
	// Each probe is a phase of the lab, a coverage script and a behaviour
	// marked as the lab's demonstration.
	probes := 0
	for _, b := range Study.Behaviours {
		if !b.Probe {
			continue
		}
		probes++
		if !slices.Contains(Lab.Phases, b.Observed) {
			t.Errorf("probe %s: no phase %q", b.ID, b.Observed)
		}
		if _, ok := Lab.Script(b.Observed); !ok {
			t.Errorf("probe %s: no script %q", b.ID, b.Observed)
		}
	}
	if probes != 2 {
		t.Errorf("%d probes, want 2", probes)
	}
}
