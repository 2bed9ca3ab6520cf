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

func TestKubernetes(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want bool
	}{{"v0.37.2", true}, {"v0.38.0-beta.0", false}, {"v1.37.2", false}, {"v3.7.3", false}} {
		if got := Kubernetes.IsRelease(tc.v); got != tc.want {
			t.Errorf("IsRelease(%q) = %v, want %v", tc.v, got, tc.want)
		}
	}
	f, ok := Kubernetes.Folder("k8s.io/client-go/tools/cache")
	if !ok || f.Module != "k8s.io/client-go" || f.Repo != "kubernetes/client-go" || f.Dir != "" {
		t.Errorf("Folder(client-go/tools/cache) = %+v, %v", f, ok)
	}
	if _, ok := Kubernetes.Folder("k8s.io/klog/v2"); ok {
		t.Errorf("Folder(klog) is in the layout")
	}
	f, ok = Etcd.Folder("go.etcd.io/etcd/client/v3/concurrency")
	if !ok || f.Dir != "client/v3" || f.Repo != "etcd-io/etcd" {
		t.Errorf("Etcd.Folder(client/v3/concurrency) = %+v, %v", f, ok)
	}
	if Kubernetes.Fits == nil || !Etcd.Owns(Kubernetes.Fits.Requires) {
		t.Errorf("Kubernetes.Fits = %+v: want a requirement of an etcd module", Kubernetes.Fits)
	}
}
