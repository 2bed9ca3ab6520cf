package trace_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

// BenchmarkErrcompacted is one cold run of the study on etcd v3.7.3: load,
// sites, call graph, paths, report, JSON (module and build caches warm).
func BenchmarkErrcompacted(b *testing.B) {
	for b.Loop() {
		res, err := trace.Run(context.Background(), trace.Options{Study: errcompacted.Study, Version: "v3.7.3"})
		if err != nil {
			b.Fatal(err)
		}
		rep, err := res.Report()
		if err != nil {
			b.Fatal(err)
		}
		if err := json.NewEncoder(io.Discard).Encode(rep); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWhy is one cold run of srctrace why on etcd v3.7.3 for an
// object whose uses are reached by calls, through an interface and across
// the raft proposal (module and build caches warm).
func BenchmarkWhy(b *testing.B) {
	for _, sym := range []string{"mvcc.ErrFutureRev", "mvcc.(*store).Compact"} {
		b.Run(sym, func(b *testing.B) {
			for b.Loop() {
				w, err := trace.Why(context.Background(), trace.WhyOptions{Symbol: sym, Version: "v3.7.3"})
				if err != nil {
					b.Fatal(err)
				}
				if err := json.NewEncoder(io.Discard).Encode(w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
