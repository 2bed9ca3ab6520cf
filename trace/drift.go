package trace

import (
	"github.com/srctrace/srctrace/trace/drift"
	"github.com/srctrace/srctrace/trace/report"
)

// Drift lines up every position that several reports of one study cite
// (one report per release, in any order) by what it is, not where: see
// package drift.
func Drift(reps []*report.Report) *report.Drift { return drift.Compute(reps) }
