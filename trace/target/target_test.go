package target

import "testing"

func TestEtcd(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{{"v3.7.3", true}, {"v3.6.0-rc.1", true}, {"3.7.3", false}, {"v3.7", false}, {"main", false}} {
		if got := Etcd.IsRelease(tc.v); got != tc.want {
			t.Errorf("IsRelease(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
	if got, want := Etcd.Permalink("v3.7.3", "server/storage/mvcc/kvstore.go", 38, 0), "https://github.com/etcd-io/etcd/blob/v3.7.3/server/storage/mvcc/kvstore.go#L38"; got != want {
		t.Errorf("Permalink = %s, want %s", got, want)
	}
	if got, want := Etcd.Permalink("abc", "a.go", 3, 5), "https://github.com/etcd-io/etcd/blob/abc/a.go#L3-L5"; got != want {
		t.Errorf("Permalink range = %s, want %s", got, want)
	}
	if m := Etcd.Modules(); m[0] != Etcd.Main || len(m) != len(Etcd.Layout) {
		t.Errorf("Modules = %v", m)
	}
	if !Etcd.Owns("go.etcd.io/etcd/server/v3/storage/mvcc") || Etcd.Owns("go.etcd.io/raft/v3") {
		t.Errorf("Owns is wrong")
	}
}
