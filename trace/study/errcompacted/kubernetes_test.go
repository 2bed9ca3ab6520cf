package errcompacted_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/annotate"
	"github.com/srctrace/srctrace/trace/layers"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

// storedLayers is the Kubernetes layers of etcd v3.7.3 as kept in
// testdata, with a run of their lab.
var storedLayers = filepath.Join("testdata", "kubernetes", "layers-v3.7.3.json")

func readLayers(t *testing.T) *report.Layers {
	t.Helper()
	data, err := os.ReadFile(storedLayers)
	if err != nil {
		t.Fatal(err)
	}
	var l report.Layers
	if err := json.Unmarshal(data, &l); err != nil {
		t.Fatal(err)
	}
	return &l
}

func writeLayers(t *testing.T, l *report.Layers) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(storedLayers), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(storedLayers, jsonOf(t, l), 0o644); err != nil {
		t.Fatal(err)
	}
}

func kubernetes(t *testing.T, producer, release string) *layers.Result {
	t.Helper()
	if testing.Short() {
		t.Skip("loads Kubernetes and etcd releases")
	}
	res, err := layers.Run(context.Background(), layers.Options{Spec: errcompacted.Kubernetes, Producer: producer, Release: release})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(res.Close)
	return res
}

// TestKubernetesHops: Kubernetes v0.37.2 fits etcd v3.7.3, and each hop is
// where reading k8s.io/apiserver, k8s.io/apimachinery and k8s.io/client-go
// v0.37.2 (and etcd's client v3.7.3) puts it. The release is named, so
// that a newer one on the proxy does not move the positions (TestPair
// checks the choice; the stored layers show it).
func TestKubernetesHops(t *testing.T) {
	l := kubernetes(t, "v3.7.3", "v0.37.2").Layers
	if l.Absent != "" || l.Release != "v0.37.2" {
		t.Fatalf("release %q (absent: %q), want v0.37.2", l.Release, l.Absent)
	}
	if f := l.Fit; f == nil || f.Module != "k8s.io/apiserver" || f.Requires != "go.etcd.io/etcd/client/v3" || f.At != "v3.7.0" || !f.Named {
		t.Errorf("fit = %+v, want k8s.io/apiserver requiring go.etcd.io/etcd/client/v3 v3.7.0, named", f)
	}
	for _, m := range l.Modules {
		if strings.HasPrefix(m.Path, "go.etcd.io/etcd/") && m.Version != "v3.7.3" {
			t.Errorf("%s selected at %s beside Kubernetes, want v3.7.3", m.Path, m.Version)
		}
	}
	const (
		apiserver    = "kubernetes/apiserver"
		apimachinery = "kubernetes/apimachinery"
		clientgo     = "kubernetes/client-go"
		etcd         = "etcd-io/etcd"
	)
	for _, w := range []struct {
		role, kind, repo, at string
		check                func(report.LayerHop) string
	}{
		{"carrier", "returns", etcd, "client/v3/watch.go:128", cond("wr.CompactRevision != 0")},
		{"storage", "call", apiserver, "pkg/storage/etcd3/watcher.go:483", object("k8s.io/apiserver/pkg/storage/etcd3.logWatchChannelErr")},
		{"storage", "call", apiserver, "pkg/storage/etcd3/watcher.go:489", object("k8s.io/apiserver/pkg/storage/etcd3.(*watchChan).sendError")},
		{"storage", "by-text", apiserver, "pkg/storage/etcd3/watcher.go:419", func(h report.LayerHop) string {
			return want(h.Match && h.Value == `"mvcc: required revision has been compacted"`, "the literal, in the sentinel's text")
		}},
		{"storage", "log", apiserver, "pkg/storage/etcd3/watcher.go:421", func(h report.LayerHop) string {
			return want(h.Level == "warning" && h.Under == "by-text" && h.Value == `"watch chan error: %v"`, "a warning under the text test")
		}},
		{"storage", "log", apiserver, "pkg/storage/etcd3/watcher.go:425", func(h report.LayerHop) string {
			return want(h.Level == "error" && h.Under == "not by-text", "an error where the text test fails")
		}},
		{"storage", "by-value", apiserver, "pkg/storage/etcd3/errors.go:33", object("go.etcd.io/etcd/api/v3/v3rpc/rpctypes.ErrCompacted")},
		{"storage", "becomes", apiserver, "pkg/storage/etcd3/errors.go:34", func(h report.LayerHop) string {
			return want(h.Object == "k8s.io/apimachinery/pkg/api/errors.NewResourceExpired" && h.Value == `"The resourceVersion for the provided watch is too old."`, "NewResourceExpired with its message")
		}},
		{"storage", "field", apimachinery, "pkg/api/errors/errors.go:277", func(h report.LayerHop) string {
			return want(h.Object == "Code" && h.Value == "410" && h.Constant == "net/http.StatusGone", "Code 410 (http.StatusGone)")
		}},
		{"storage", "field", apimachinery, "pkg/api/errors/errors.go:278", func(h report.LayerHop) string {
			return want(h.Object == "Reason" && h.Value == `"Expired"` && h.Constant == "k8s.io/apimachinery/pkg/apis/meta/v1.StatusReasonExpired", "Reason Expired")
		}},
		{"storage", "event", apiserver, "pkg/storage/etcd3/watcher.go:770", object("k8s.io/apimachinery/pkg/watch.Error")},
		{"storage", "send", apiserver, "pkg/storage/etcd3/watcher.go:789", func(h report.LayerHop) string { return want(h.Value == "wc.resultChan", "the result channel") }},
		{"cache-too-old", "becomes", apiserver, "pkg/storage/cacher/watch_cache_history.go:237", cond("resourceVersion < oldest-1")},
		{"cache-too-old", "call", apiserver, "pkg/storage/cacher/cacher.go:640", object("k8s.io/apiserver/pkg/storage/cacher.newErrWatcher")},
		{"cache-too-old", "event", apiserver, "pkg/storage/cacher/cacher.go:1402", object("k8s.io/apimachinery/pkg/watch.Error")},
		{"cache-loop", "calls", apiserver, "pkg/storage/cacher/cacher.go:503", object("k8s.io/apiserver/pkg/storage/cacher.(*Cacher).terminateAllWatchers")},
		{"cache-loop", "calls", apiserver, "pkg/storage/cacher/cacher.go:504", object("k8s.io/client-go/tools/cache.(*Reflector).ListAndWatch")},
		{"cache-restart", "calls", apiserver, "pkg/storage/cacher/cacher.go:478", func(h report.LayerHop) string {
			return want(len(h.Args) == 3 && h.Args[1] == "time.Second = 1s", "wait.Until(…, time.Second, …)")
		}},
		{"cache-terminate", "calls", apiserver, "pkg/storage/cacher/cacher.go:185", object("k8s.io/klog/v2.Warningf")},
		{"cache-unready", "calls", apiserver, "pkg/storage/cacher/cacher.go:500", object("k8s.io/apiserver/pkg/storage/cacher.(*ready).setError")},
		{"cache-busy", "calls", apiserver, "pkg/storage/cacher/cacher.go:533", object("k8s.io/apimachinery/pkg/api/errors.NewTooManyRequests")},
		{"cache-watch", "calls", apiserver, "pkg/storage/cacher/delegator.go:107", cond()},
		{"client", "receives", clientgo, "tools/cache/reflector.go:1010", object("k8s.io/apimachinery/pkg/watch.Error")},
		{"client", "error", clientgo, "tools/cache/reflector.go:1011", object("k8s.io/apimachinery/pkg/api/errors.FromObject")},
		{"client", "classifies", clientgo, "tools/cache/reflector.go:647", object("k8s.io/client-go/tools/cache.isExpiredError")},
		{"client", "tests", apimachinery, "pkg/api/errors/errors.go:589", func(h report.LayerHop) string {
			return want(h.Match && h.Of == "k8s.io/client-go/tools/cache.isExpiredError", "a match of the status's reason, for isExpiredError")
		}},
		{"client", "log", clientgo, "tools/cache/reflector.go:651", func(h report.LayerHop) string {
			return want(h.Level == "info" && h.Verbosity == 4 && h.Value == `"Watch closed"`, "V(4) info")
		}},
		{"client", "return", clientgo, "tools/cache/reflector.go:667", func(h report.LayerHop) string {
			return want(h.Value == "return nil" && h.Object == "k8s.io/client-go/tools/cache.(*Reflector).watch", "return nil from watch")
		}},
		{"client-loop", "calls", clientgo, "tools/cache/reflector.go:428", func(h report.LayerHop) string {
			return want(len(h.Args) == 4 && h.Args[1] == "true" && h.Args[2] == "true", "Until(ctx, true, true, …)")
		}},
		{"client-loop", "calls", clientgo, "tools/cache/reflector.go:429", object("k8s.io/client-go/tools/cache.(*Reflector).ListAndWatchWithContext")},
		{"client-backoff", "field", clientgo, "tools/cache/reflector.go:320", func(h report.LayerHop) string {
			return want(h.Object == "Duration" && h.Value == "800ms", "Duration 800ms")
		}},
		{"client-delay", "write", clientgo, "tools/cache/reflector.go:336", func(h report.LayerHop) string {
			return want(len(h.Args) == 1 && h.Args[0] == "k8s.io/client-go/tools/cache.defaultBackoffReset = 2m0s", "the reset, 2m0s")
		}},
		{"client-read", "calls", clientgo, "tools/cache/reflector.go:484", cond("r.useWatchList")},
		{"client-read", "calls", clientgo, "tools/cache/reflector.go:501", cond("fallbackToList")},
		{"client-use-watch-list", "write", clientgo, "tools/cache/reflector.go:361", func(h report.LayerHop) string {
			return want(len(h.Args) == 1 && strings.HasPrefix(h.Args[0], "k8s.io/client-go/features.WatchListClient = "), "the gate named")
		}},
		{"client-gate", "default", clientgo, "features/known_features.go:143", func(h report.LayerHop) string { return want(h.Value == "true", "true") }},
		{"client-watch-list-options", "field", clientgo, "tools/cache/reflector.go:857", func(h report.LayerHop) string {
			return want(h.Object == "SendInitialEvents", "SendInitialEvents")
		}},
		{"client-watch-list-rv", "return", clientgo, "tools/cache/reflector.go:1141", cond("r.isLastSyncResourceVersionUnavailable")},
		{"client-watch-list-rv", "return", clientgo, "tools/cache/reflector.go:1143", cond()},
		{"client-rewatch", "field", clientgo, "tools/cache/reflector.go:590", func(h report.LayerHop) string {
			return want(h.Object == "ResourceVersion" && len(h.Args) == 1 && h.Args[0] == "r.LastSyncResourceVersion()", "the last resource version")
		}},
	} {
		found := false
		for _, h := range l.Hops {
			if h.Role != w.role || h.Kind != w.kind || fmt.Sprintf("%s:%d", h.Loc.File, h.Loc.Line) != w.at {
				continue
			}
			found = true
			if h.Loc.Repo != w.repo || (w.repo != etcd && h.Loc.Ref != "v0.37.2") || (w.repo == etcd && h.Loc.Ref != "v3.7.3") {
				t.Errorf("%s %s at %s: in %s at %s, want %s", w.role, w.kind, w.at, h.Loc.Repo, h.Loc.Ref, w.repo)
			}
			if msg := w.check(h); msg != "" {
				t.Errorf("%s %s at %s: %+v: want %s", w.role, w.kind, w.at, h, msg)
			}
		}
		if !found {
			t.Errorf("no %s %s at %s", w.role, w.kind, w.at)
		}
	}
	if c := l.Claim; c == nil || c.Holds == nil || !*c.Holds {
		t.Errorf("claim = %+v, want it to hold", c)
	}
	var keys []string
	for _, f := range l.Verdict.Facts {
		keys = append(keys, f.Key)
	}
	if d := cmp.Diff([]string{"status", "stream", "relist", "no-mark", "also-warning", "one-request", "from-cache"}, keys); d != "" {
		t.Errorf("facts (-want +got):\n%s", d)
	}
	if n := len(l.Hops); n > 200 {
		t.Errorf("%d hops: the follow strays", n)
	}
}

func want(ok bool, what string) string {
	if ok {
		return ""
	}
	return what
}

func object(o string) func(report.LayerHop) string {
	return func(h report.LayerHop) string { return want(h.Object == o, o) }
}

func cond(c ...string) func(report.LayerHop) string {
	return func(h report.LayerHop) string {
		return want(cmp.Equal(c, h.Cond, cmp.Comparer(func(a, b []string) bool { return strings.Join(a, "&") == strings.Join(b, "&") })), "conditions "+strings.Join(c, " && "))
	}
}

// TestKubernetesAbsent: a release of etcd that no Kubernetes release fits
// (v3.6.0: every release in its minor line requires a later etcd client)
// and a named one that does not fit are each one sentence, and the claim
// is left undecided.
func TestKubernetesAbsent(t *testing.T) {
	for _, tc := range []struct{ producer, release, want string }{
		{"v3.6.0", "", "fits etcd v3.6.0: the oldest in its minor line, k8s.io/apiserver@"},
		{"v3.6.0", "v0.37.2", "kubernetes v0.37.2 does not fit etcd v3.6.0: k8s.io/apiserver@v0.37.2 requires go.etcd.io/etcd/client/v3 v3.7.0, and minimum version selection would raise etcd v3.6.0 to v3.7.0"},
	} {
		l := kubernetes(t, tc.producer, tc.release).Layers
		if !strings.Contains(l.Absent, tc.want) || strings.Count(l.Absent, ". ") > 0 || l.Release != "" || len(l.Hops) > 0 {
			t.Errorf("%s %s: absent %q, want one sentence with %q and no hops", tc.producer, tc.release, l.Absent, tc.want)
		}
		if l.Claim == nil || l.Claim.Holds != nil || l.Verdict != nil {
			t.Errorf("%s %s: claim %+v verdict %+v, want it undecided", tc.producer, tc.release, l.Claim, l.Verdict)
		}
	}
}

// TestKubernetesStoredIsCurrent: the stored layers are what the analysis
// finds now (their lab's record stays as stored). -update rewrites them.
func TestKubernetesStoredIsCurrent(t *testing.T) {
	fresh := kubernetes(t, "v3.7.3", "").Layers
	if *update {
		if _, err := os.Stat(storedLayers); err == nil {
			old := readLayers(t)
			fresh.Lab, fresh.LabMs, fresh.LabBuildMs = old.Lab, old.LabMs, old.LabBuildMs
		}
		writeLayers(t, fresh)
		return
	}
	old := readLayers(t)
	old.Lab, old.LabMs, old.LabBuildMs = nil, 0, 0
	if d := cmp.Diff(string(jsonOf(t, fresh)), string(jsonOf(t, old))); d != "" {
		t.Errorf("the stored layers are stale (-now +stored):\n%s", d)
	}
}

// TestKubernetesLab runs the four layers' lab (its program is built the
// first time, minutes on two cores): the readers of etcd get the storage's
// 410 and read afresh, the client through the watch cache loses its watch
// without an error, gets the cache's own 410, and reads afresh; each ends
// holding every update; the API server logs the compaction as a warning;
// nothing is left behind. -update stores the record with the layers.
func TestKubernetesLab(t *testing.T) {
	res := kubernetes(t, "v3.7.3", "")
	before, _ := filepath.Glob(filepath.Join(os.TempDir(), "srctrace-kubelab-*"))
	run, err := layers.RunLab(context.Background(), res, "")
	if err != nil {
		t.Fatal(err)
	}
	var lab errcompacted.KubeLab
	if err := json.Unmarshal(run.Record, &lab); err != nil {
		t.Fatal(err)
	}
	if after, _ := filepath.Glob(filepath.Join(os.TempDir(), "srctrace-kubelab-*")); len(after) > len(before) {
		t.Errorf("the lab left %v behind", after)
	}
	if lab.CompactRevision <= lab.ListedRevision || len(lab.Notes) > 0 {
		t.Errorf("compacted to %d after listing at %d, notes %q", lab.CompactRevision, lab.ListedRevision, lab.Notes)
	}
	readers := map[string]errcompacted.KubeReader{}
	for _, r := range lab.Readers {
		readers[r.Name] = r
	}
	expired := func(name, message string) {
		r := readers[name]
		for i, q := range r.Requests {
			if q.Error != nil && q.Error.Code == 410 && q.Error.Reason == "Expired" && strings.HasPrefix(q.Error.Message, message) {
				if !q.Returned && i+1 < len(r.Requests) && r.Requests[i+1].Kind != "watch" {
					return
				}
				t.Errorf("%s: after the 410 %+v, want a fresh read, got %+v", name, q, r.Requests[i+1:])
				return
			}
		}
		t.Errorf("%s: no 410 Expired %q in its stream: %+v", name, message, r.Requests)
	}
	expired("cache", "The resourceVersion for the provided watch is too old.")
	expired("direct", "The resourceVersion for the provided watch is too old.")
	expired("client", "too old resource version: ")
	for _, name := range []string{"client", "direct"} {
		if readers[name].SyncedMs == 0 {
			t.Errorf("%s never held every update", name)
		}
	}
	warned := false
	for _, g := range lab.Logs {
		if g.Level == "warning" && g.File == "watcher.go" && strings.Contains(g.Text, "required revision has been compacted") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("the API server logged no warning of the compaction")
	}
	if *update {
		l := readLayers(t)
		l.Lab, l.LabMs, l.LabBuildMs = run.Record, run.Ms, 0
		writeLayers(t, l)
	}
}

// TestKubernetesNotesGolden: the notes' Kubernetes part composed from the
// stored layers renders to the golden Markdown and HTML beside them.
func TestKubernetesNotesGolden(t *testing.T) {
	l := readLayers(t)
	rep := &report.Report{Etcd: report.Etcd{Version: l.Producer, Repo: "etcd-io/etcd", Ref: l.Producer}, Layers: l}
	full := errcompacted.Notes(rep)
	doc := &report.Doc{Title: full.Title}
	for _, s := range full.Sections {
		if strings.HasPrefix(s.ID, "kubernetes") {
			doc.Sections = append(doc.Sections, s)
		}
	}
	if len(doc.Sections) != 1 || len(doc.Sections[0].Sections) < 3 {
		t.Fatalf("the notes have %d Kubernetes sections, want one with its parts", len(doc.Sections))
	}
	for _, format := range []string{"markdown", "html"} {
		var out bytes.Buffer
		if err := annotate.RenderDoc(&out, format, doc, rep.Etcd); err != nil {
			t.Fatal(err)
		}
		golden := strings.TrimSuffix(storedLayers, ".json") + map[string]string{"markdown": ".md", "html": ".html"}[format]
		if *update {
			if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		w, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(string(w), out.String()); d != "" {
			t.Errorf("%s (-want +got):\n%s", golden, d)
		}
	}
}

// TestKubernetesSpec: the questions about Kubernetes are consistent.
func TestKubernetesSpec(t *testing.T) {
	if err := errcompacted.Kubernetes.Check(); err != nil {
		t.Fatal(err)
	}
	if errcompacted.Study.Consumers != errcompacted.Kubernetes || errcompacted.Kubernetes.Lab == nil || errcompacted.Kubernetes.Decide == nil {
		t.Errorf("the study does not read its Kubernetes layers, their lab and their verdict")
	}
}
