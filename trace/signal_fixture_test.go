package trace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/study"
)

var wantKind = regexp.MustCompile(`// want: (decision|boundary)`)

// TestSignalFixture: the comparisons found by following the compaction
// revision are exactly those marked `// want: decision|boundary`.
func TestSignalFixture(t *testing.T) {
	dir, ar := fixtures.Unpack(t, "signalshape")
	st, err := study.Parse(fixtures.File(ar, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := trace.Run(context.Background(), trace.Options{Study: st, Dir: dir, Env: fixtures.Env})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := res.Report()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "server", "storage", "mvcc", "store.go"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, l := range strings.Split(string(data), "\n") {
		if m := wantKind.FindStringSubmatch(l); m != nil {
			want = append(want, fmt.Sprintf("server/storage/mvcc/store.go:%d %s", i+1, m[1]))
		}
	}
	var got []string
	for _, c := range rep.Signal.Comparisons {
		got = append(got, fmt.Sprintf("%s:%d %s", c.File, c.Line, c.Kind))
	}
	sort.Strings(want)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("comparisons (-want +got):\n%s", diff)
	}
	var carries int
	for _, h := range rep.Signal.Handoffs {
		if h.Kind == "send" && strings.Contains(h.Detail, "carries the signal") {
			carries++
		}
	}
	if carries != 1 {
		t.Errorf("%d sends that carry the signal, want 1: %+v", carries, rep.Signal.Handoffs)
	}
}
