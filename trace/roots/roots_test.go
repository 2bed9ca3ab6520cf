package roots_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/roots"
)

// TestNetwork: the gRPC methods of the why fixture's generated code (one
// named by a constant, one by a literal, a stream), and the roots that
// serve a client's call of each; the main function is a root.
func TestNetwork(t *testing.T) {
	pkgs := fixtures.Load(t, "why")
	var files []roots.Package
	for _, p := range pkgs {
		files = append(files, roots.Package{Path: p.PkgPath, Files: p.GoFiles})
	}
	net, err := roots.ReadNetwork(files)
	if err != nil {
		t.Fatal(err)
	}
	const pb = "example.com/etcd/server/v3/api/kvpb"
	var got []roots.Method
	for _, m := range net.Methods {
		m.File = filepath.Base(m.File)
		got = append(got, m)
	}
	want := []roots.Method{
		{FullName: "/kvpb.KV/Compact", Service: "kvpb.KV", Name: "Compact", Server: pb + ".KVServer", Handler: pb + "._KV_Compact_Handler",
			Stubs: []string{pb + ".(*kVClient).Compact"}, File: "kv_grpc.pb.go", Line: 89},
		{FullName: "/kvpb.KV/Range", Service: "kvpb.KV", Name: "Range", Server: pb + ".KVServer", Handler: pb + "._KV_Range_Handler",
			Stubs: []string{pb + ".(*kVClient).Range"}, File: "kv_grpc.pb.go", Line: 93},
		{FullName: "/kvpb.KV/Watch", Service: "kvpb.KV", Name: "Watch", Stream: true, Server: pb + ".KVServer", Handler: pb + "._KV_Watch_Handler",
			Stubs: []string{pb + ".(*kVClient).Watch"}, File: "kv_grpc.pb.go", Line: 99},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("methods (-want +got):\n%s", diff)
	}
	if ms := net.Sent(pb + ".(*kVClient).Range"); len(ms) != 1 || ms[0].FullName != "/kvpb.KV/Range" {
		t.Errorf("Sent(kVClient.Range) = %+v", ms)
	}
	g, err := callpath.Build(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	rs := roots.Find(g)
	serving := func(full string) []string {
		var out []string
		for _, r := range net.Serving(rs, full) {
			out = append(out, callpath.Name(r.Func))
		}
		return out
	}
	if diff := cmp.Diff([]string{"example.com/etcd/server/v3/server.(*kvServer).Range"}, serving("/kvpb.KV/Range")); diff != "" {
		t.Errorf("Serving(/kvpb.KV/Range) (-want +got):\n%s", diff)
	}
	if s := serving("/kvpb.KV/Nope"); s != nil {
		t.Errorf("Serving of a method no code declares = %v", s)
	}
	var mains []string
	for _, r := range rs {
		if r.Kind == roots.Main {
			mains = append(mains, callpath.Name(r.Func))
		}
	}
	if diff := cmp.Diff([]string{"example.com/etcd/server/v3.main", "example.com/etcd/server/v3/cmd/ctl.main"}, mains); diff != "" {
		t.Errorf("main roots (-want +got):\n%s", diff)
	}
	started := roots.StartUp(g, rs)
	for _, r := range rs {
		if callpath.Name(r.Func) == "example.com/etcd/server/v3/server.(*Server).applyLoop" {
			if r.Kind != roots.Goroutine || callpath.Name(r.Starter) != "example.com/etcd/server/v3/server.(*Server).Start" || started[r.Func] == nil {
				t.Errorf("applyLoop: kind %s, starter %v, started at start-up by %v", r.Kind, r.Starter, started[r.Func])
			}
		}
	}
}

// TestHelperStarted: a function handed to a helper that starts its
// parameter in a goroutine (GoAttach(f)) is a goroutine root whose
// starter is the function that hands it over and whose helper is the
// one that starts it; one started by a go statement has no helper.
func TestHelperStarted(t *testing.T) {
	pkgs := fixtures.Load(t, "watchshape")
	g, err := callpath.Build(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	const rpc = "example.com/etcd/server/v3/rpc"
	got := map[string][2]string{}
	for _, r := range roots.Find(g) {
		if r.Kind != roots.Goroutine {
			continue
		}
		var s [2]string
		if r.Starter != nil {
			s[0] = callpath.Name(r.Starter)
		}
		if r.Helper != nil {
			s[1] = callpath.Name(r.Helper)
		}
		got[callpath.Name(r.Func)] = s
	}
	want := map[string][2]string{
		rpc + ".(*Server).compactLoop": {rpc + ".(*Server).Start", rpc + ".(*Server).GoAttach"},
		rpc + ".(*Server).Start$1":     {rpc + ".(*Server).Start", rpc + ".(*Server).GoAttach"},
		rpc + ".(*Server).idle":        {rpc + ".(*Server).Idler", rpc + ".(*Server).GoAttach"},
	}
	for fn, w := range want {
		if got[fn] != w {
			t.Errorf("%s: starter and helper %q, want %q", fn, got[fn], w)
		}
	}
	// GoAttach's own go statement starts its closure: no helper.
	if s, ok := got[rpc+".(*Server).GoAttach$2"]; ok && s[1] != "" {
		t.Errorf("GoAttach$2: helper %q, want none", s[1])
	}
}
