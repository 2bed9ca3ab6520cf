package layers

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/target"
)

// The fixture's repositories: a producer shaped like etcd (its client and
// sentinel under etcd/) and the consumer around it.
var (
	fxProducer = &target.Target{Name: "etcd", Repo: "x/etcd", Main: "example.com/k/etcd",
		Layout: []target.Folder{{Module: "example.com/k/etcd"}}} // one module with the consumer here: files are named from its root
	fxConsumer = &target.Target{Name: "k", Repo: "x/k", Main: "example.com/k",
		Layout: []target.Folder{{Module: "example.com/k"}}, Fits: &target.Fit{Module: "example.com/k", Requires: "example.com/k/etcd"}}
)

var fxSpec = &Spec{
	Consumer: fxConsumer, Producer: fxProducer,
	Layers: []Layer{
		{Name: "storage", Packages: []string{"example.com/k/storage"}},
		{Name: "client", Packages: []string{"example.com/k/reflector"}},
		{Name: "producer", Packages: []string{"example.com/k/etcd/client"}, Syntax: true},
	},
	Bodies:   []string{"example.com/k/apierrors"},
	Load:     []string{"example.com/k/etcd/rpctypes"},
	Sentinel: "example.com/k/etcd/rpctypes.ErrCompacted",
	Status:   "example.com/k/meta.Status", Event: "example.com/k/watch.Event", EventKind: "Type",
	Logs: []Log{
		{Func: "example.com/k/klog.Warningf", Level: "warning"},
		{Func: "example.com/k/klog.Errorf", Level: "error"},
		{Func: "example.com/k/klog.Verbose.Infof", Level: "info"},
	},
	Verbosity: []string{"example.com/k/klog.V"},
	Text:      []string{"strings.Contains"},
	Questions: []Question{
		{Role: "carrier", Layer: "producer", Ask: Returns, Func: "example.com/k/etcd/client.(*WatchResponse).Err", Object: "example.com/k/etcd/rpctypes.ErrCompacted"},
		{Role: "storage", Layer: "storage", Ask: Follow, From: "example.com/k/etcd/client.(*WatchResponse).Err"},
		{Role: "client", Layer: "client", Ask: Follow, FromRole: "storage"},
		{Role: "loop", Layer: "client", Ask: Calls, Func: "example.com/k/reflector.(*Reflector).Run", Calls: []string{"example.com/k/reflector.(*Reflector).watch"}},
		{Role: "rv", Layer: "client", Ask: Values, Func: "example.com/k/reflector.(*Reflector).rv"},
		{Role: "backoff", Layer: "client", Ask: Composite, Func: "example.com/k/reflector.New", Object: "example.com/k/reflector.Backoff"},
		{Role: "write", Layer: "client", Ask: Writes, Object: "example.com/k/reflector.Reflector.backoff"},
		{Role: "gate", Layer: "client", Ask: Table, Object: "example.com/k/reflector.defaults", Key: "example.com/k/reflector.WatchList", Field: "Default"},
	},
}

// TestFixture: every hop the questions find is on a line whose want
// comment names its kind, and every want is found.
func TestFixture(t *testing.T) {
	dir, _ := fixtures.Unpack(t, "layers/consumer")
	pkgs, err := packages.Load(&packages.Config{Mode: fullMode, Dir: dir, Env: append(os.Environ(), fixtures.Env...)}, fxSpec.Packages()...)
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("the fixture does not load")
	}
	if err := fxSpec.Check(); err != nil {
		t.Fatal(err)
	}
	p, err := newProg(pkgs, fxSpec.built(), fxConsumer, fxProducer)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newAnalysis(fxSpec, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.run(); err != nil {
		t.Fatal(err)
	}
	if a.text != "etcdserver: mvcc: required revision has been compacted" {
		t.Errorf("the sentinel's text is %q, want its initializer's string", a.text)
	}
	hops := a.result()
	got := map[string][]string{}
	for _, h := range hops {
		k := fmt.Sprintf("%s:%d", h.Loc.File, h.Loc.Line)
		got[k] = append(got[k], h.Kind)
	}
	want := wants(t, dir)
	for k := range got {
		sort.Strings(got[k])
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("hops by line (-want +got):\n%s", d)
	}

	by := func(kind string) report.LayerHop {
		for _, h := range hops {
			if h.Kind == kind {
				return h
			}
		}
		t.Fatalf("no %s hop", kind)
		return report.LayerHop{}
	}
	if h := by("by-text"); !h.Match || h.Value != `"mvcc: required revision has been compacted"` {
		t.Errorf("by-text %+v: want the literal, matching the sentinel's text", h)
	}
	if h := by("becomes"); h.Object != "example.com/k/apierrors.NewResourceExpired" || h.Value != `"too old"` {
		t.Errorf("becomes %+v", h)
	}
	if h := by("event"); h.Object != "example.com/k/watch.Error" || h.Value != `"ERROR"` {
		t.Errorf("event %+v: want the kind constant by name", h)
	}
	if h := by("receives"); h.Role != "client" || h.Object != "example.com/k/watch.Error" {
		t.Errorf("receives %+v", h)
	}
	if h := by("default"); h.Value != "true" || len(h.Args) != 2 {
		t.Errorf("default %+v: want the last element's true, of two", h)
	}
	if h := by("returns"); h.Role != "carrier" || !cmp.Equal(h.Cond, []string{"wr.CompactRevision != 0"}) || h.Loc.Repo != "x/etcd" || !strings.HasPrefix(h.Loc.File, "etcd/") {
		t.Errorf("returns %+v: want the case's condition, and the file in the producer's repository", h)
	}
	var levels, under []string
	for _, h := range hops {
		switch h.Kind {
		case "log":
			levels = append(levels, fmt.Sprintf("%s/V%d", h.Level, h.Verbosity))
			under = append(under, h.Under)
		case "tests":
			if h.Match != strings.HasSuffix(h.Object, "StatusReasonExpired") || h.Of != "example.com/k/reflector.isExpired" {
				t.Errorf("tests %+v: want a match for the status's reason only, of the predicate called on the value", h)
			}
		case "field":
			if h.Role == "storage" && h.Object == "Code" && (h.Value != "410" || h.Constant != "net/http.StatusGone") {
				t.Errorf("status code %+v", h)
			}
			if h.Role == "backoff" && h.Object == "Duration" && (h.Value != "800" || h.Constant != "example.com/k/reflector.initial") {
				t.Errorf("backoff field %+v: want the variable's constant initializer", h)
			}
		case "return":
			if h.Role == "rv" && h.Value == `""` && !cmp.Equal(h.Cond, []string{"r.backoff == 0"}) {
				t.Errorf("rv return %+v: want its condition", h)
			}
		}
	}
	if d := cmp.Diff([]string{"warning/V0", "error/V0", "info/V4"}, levels); d != "" {
		t.Errorf("log levels (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"by-text", "not by-text", ""}, under); d != "" {
		t.Errorf("logs under a recognition (-want +got):\n%s", d)
	}
}

var wantRE = regexp.MustCompile(`// want: (.*)$`)

// wants reads the fixture's want comments: file:line -> kinds.
func wants(t *testing.T, dir string) map[string][]string {
	out := map[string][]string{}
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		for i, line := range strings.Split(string(data), "\n") {
			if m := wantRE.FindStringSubmatch(line); m != nil {
				kinds := strings.Fields(m[1])
				sort.Strings(kinds)
				out[fmt.Sprintf("%s:%d", filepath.ToSlash(rel), i+1)] = kinds
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFits(t *testing.T) {
	for _, tc := range []struct {
		at, p string
		want  bool
	}{
		{"v3.7.0", "v3.7.3", true}, {"v3.7.3", "v3.7.3", true}, {"v3.7.4", "v3.7.3", false},
		{"v3.6.8", "v3.7.3", false}, {"v3.6.8", "v3.6.0", false}, {"v3.6.5", "v3.6.16", true}, {"", "v3.7.3", false},
	} {
		if got := fits(tc.at, tc.p); got != tc.want {
			t.Errorf("fits(%s, %s) = %v, want %v", tc.at, tc.p, got, tc.want)
		}
	}
}

// proxy writes a GOPROXY=file:// tree that serves each module version
// (path@version) with its go.mod, and returns its URL.
func proxy(t *testing.T, mods map[string]string) string {
	t.Helper()
	root := t.TempDir()
	lists := map[string][]string{}
	for pv, gomod := range mods {
		path, v, _ := strings.Cut(pv, "@")
		dir := filepath.Join(root, filepath.FromSlash(path), "@v")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string]string{v + ".mod": gomod, v + ".info": fmt.Sprintf(`{"Version":%q,"Time":"2026-01-01T00:00:00Z"}`, v)} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		lists[dir] = append(lists[dir], v)
	}
	for dir, vs := range lists {
		if err := os.WriteFile(filepath.Join(dir, "list"), []byte(strings.Join(vs, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return "file://" + filepath.ToSlash(root)
}

// TestPair: the release chosen for a producer release is the newest whose
// go.mod requires the producer in its minor line and not later; one that
// would make minimum version selection raise the producer is passed over,
// or, when named, refused in one sentence.
func TestPair(t *testing.T) {
	apiserver := func(etcd string) string {
		return "module example.com/apiserver\n\ngo 1.22\n\nrequire go.etcd.io/fake/client/v3 " + etcd + "\n"
	}
	url := proxy(t, map[string]string{
		"example.com/apiserver@v0.38.0-beta.0": apiserver("v3.8.0"),
		"example.com/apiserver@v0.37.2":        apiserver("v3.7.0"),
		"example.com/apiserver@v0.37.1":        apiserver("v3.7.0"),
		"example.com/apiserver@v0.36.6":        apiserver("v3.6.8"),
		"example.com/apiserver@v0.36.0":        apiserver("v3.6.4"),
		"example.com/apiserver@v0.35.0":        apiserver("v3.6.1"),
		"example.com/apiserver@v0.34.0":        apiserver("v3.5.21"),
	})
	c := &target.Target{Name: "kube", Release: `^v0\.\d+\.\d+$`, Fits: &target.Fit{Module: "example.com/apiserver", Requires: "go.etcd.io/fake/client/v3"}}
	g := goEnv{dir: t.TempDir(), env: []string{"GOPROXY=" + url, "GOMODCACHE=" + filepath.Join(t.TempDir(), "mod"), "GOSUMDB=off", "GONOSUMDB=*"}}
	ctx := t.Context()
	for _, tc := range []struct {
		producer, named string
		release, at     string
		passed          int
		absent          string
	}{
		{producer: "v3.7.3", release: "v0.37.2", at: "v3.7.0"},
		{producer: "v3.6.5", release: "v0.36.0", at: "v3.6.4", passed: 3},
		{producer: "v3.6.16", release: "v0.36.6", at: "v3.6.8", passed: 2},
		{producer: "v3.6.0", passed: 6, absent: "no kube release listed by the proxy fits etcd v3.6.0: the oldest in its minor line, example.com/apiserver@v0.35.0 requires go.etcd.io/fake/client/v3 v3.6.1, and minimum version selection would raise etcd v3.6.0 to v3.6.1; these notes stop at etcd's client"},
		{producer: "v3.6.0", named: "v0.37.2", at: "v3.7.0", absent: "kube v0.37.2 does not fit etcd v3.6.0: example.com/apiserver@v0.37.2 requires go.etcd.io/fake/client/v3 v3.7.0, and minimum version selection would raise etcd v3.6.0 to v3.7.0; these notes stop at etcd's client"},
		{producer: "v3.7.3", named: "v0.37.1", release: "v0.37.1", at: "v3.7.0"},
		{producer: "v3.7.3", named: "v0.99.0", absent: "kube v0.99.0 cannot be had"},
	} {
		t.Run(tc.producer+" "+tc.named, func(t *testing.T) {
			pr, err := pair(ctx, g, c, tc.producer, tc.named)
			if err != nil {
				t.Fatal(err)
			}
			if pr.Release != tc.release || pr.At != tc.at || len(pr.Passed) != tc.passed || !strings.HasPrefix(pr.Absent, tc.absent) || (tc.absent == "") != (pr.Absent == "") {
				t.Errorf("pair = %+v, want release %q at %q, %d passed over, absent %q", pr, tc.release, tc.at, tc.passed, tc.absent)
			}
			if tc.named == "" && pr.Among != "proxy" {
				t.Errorf("among %q, want the proxy's list", pr.Among)
			}
		})
	}
}
