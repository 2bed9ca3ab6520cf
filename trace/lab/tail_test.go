package lab

import "testing"

// TestTail: what a server that ended wrote says why: its last zap entry
// (etcd logs the error as JSON, then panics with a stack trace longer
// than any buffer), else its last line.
func TestTail(t *testing.T) {
	for _, tc := range []struct {
		writes []string
		want   string
	}{
		{[]string{`{"level":"panic","ts":"x","msg":"failed to create WAL","error":"file too large","stacktrace":"a\nb"}` + "\n",
			"panic: failed to create WAL\n\ngoroutine 1 [running]:\n", string(make([]byte, 100000)), "main.main()\n\t/x/main.go:31 +0x28\n"},
			"failed to create WAL: file too large"},
		{[]string{`{"level":"fatal","msg":"listener failed"}`, "\n"}, "listener failed"},
		{[]string{"flag provided but not defined: -x\n", "Usage of etcd:\n  --name"}, "--name"},
		{[]string{"one\n", "two\n\n"}, "two"},
		{nil, ""},
	} {
		var tl tail
		for _, w := range tc.writes {
			tl.Write([]byte(w))
		}
		if got := tl.last(); got != tc.want {
			t.Errorf("%q: last %q, want %q", tc.writes, got, tc.want)
		}
	}
}
