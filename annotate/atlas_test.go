package annotate

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace/report"
)

// loadAtlas reads the stored atlas of fixtures/errors.txtar (the trace
// package's TestAtlasStoredIsCurrent keeps it current).
func loadAtlas(t *testing.T) *report.Atlas {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "atlas", "fixture.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var a report.Atlas
	if err := dec.Decode(&a); err != nil {
		t.Fatal(err)
	}
	return &a
}

// The atlas renders to the golden Markdown and HTML beside its JSON (go
// test ./annotate -update rewrites them): an index row and a section with
// its anchor per error.
func TestAtlasGolden(t *testing.T) {
	a := loadAtlas(t)
	d := AtlasDoc(a)
	if len(d.Sections) != len(a.Errors)+1 {
		t.Fatalf("%d sections for %d errors", len(d.Sections), len(a.Errors))
	}
	for i, e := range a.Errors {
		if s := d.Sections[i+1]; s.ID != e.Anchor {
			t.Errorf("section %d is %q, want the anchor %q", i+1, s.ID, e.Anchor)
		}
	}
	for _, f := range []struct{ format, ext string }{{"markdown", ".md"}, {"html", ".html"}} {
		var got bytes.Buffer
		if err := RenderDoc(&got, f.format, d, a.Etcd); err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "atlas", "fixture"+f.ext)
		if *update {
			if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), got.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", f.format, diff)
		}
	}
	// Markdown and text have no search box, and nothing runs.
	var md bytes.Buffer
	if err := RenderDoc(&md, "markdown", d, a.Etcd); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "<script") || strings.Contains(md.String(), `type="search"`) {
		t.Error("the Markdown has the HTML's search box")
	}
}

// searchState is what the page shows after a search.
type searchState struct {
	Shown   []string `json:"shown"`   // ids of the sections shown
	Rows    int      `json:"rows"`    // index rows shown
	AllRows int      `json:"allRows"` // index rows in all
	Count   string   `json:"count"`
	Anchor  bool     `json:"anchor"` // the anchor asked for is shown
}

const searchStateJS = `(() => {
  const tops = [...document.querySelectorAll('main > section')].slice(1);
  const rows = [...document.querySelectorAll('main > section:first-of-type tbody tr')];
  const want = decodeURIComponent(location.hash.slice(1));
  const el = want ? document.getElementById(want) : null;
  return {
    shown: tops.filter(s => !s.hidden).map(s => s.id),
    rows: rows.filter(r => !r.hidden).length,
    allRows: rows.length,
    count: document.getElementById('search-count').textContent,
    anchor: !!el && !el.closest('[hidden]') && el.getBoundingClientRect().height > 0,
  };
})()`

// The atlas page in headless Chromium: nothing is loaded but the file;
// typing in the search box keeps the errors (and index rows) whose text
// has every word; every error has its anchor, and following a link to one
// the search hides clears the search.
func TestAtlasHTMLBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("opens a browser")
	}
	chrome, ok := findChromium()
	if !ok {
		t.Fatal("no Chromium: this test opens the atlas in a real browser. Install one with `bash .ci/run` (it installs Debian's chromium when missing) or `apt-get install chromium`, or set CHROME=/path/to/chrome")
	}
	a := loadAtlas(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "atlas.html")
	var buf bytes.Buffer
	if err := RenderDoc(&buf, "html", AtlasDoc(a), a.Etcd); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	bctx, enableNetwork, mu, requests := openBrowser(t, chrome, dir)
	pageURL := (&url.URL{Scheme: "file", Path: page}).String()
	if err := chromedp.Do(bctx, enableNetwork, chromedp.Navigate(pageURL)); err != nil {
		t.Fatal(err)
	}
	state := func() searchState {
		t.Helper()
		s, err := chromedp.Run(bctx, chromedp.Evaluate[searchState](searchStateJS))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	all := state()
	if len(all.Shown) != len(a.Errors) || all.Rows != len(a.Errors) || all.AllRows != len(a.Errors) {
		t.Fatalf("before a search: %d sections and %d of %d rows shown, want %d", len(all.Shown), all.Rows, all.AllRows, len(a.Errors))
	}
	// Words of a text, in another case: the errors whose sections say
	// them (the status, the client's value, and the errors that mention
	// it), fewer than all.
	if err := chromedp.Do(bctx, chromedp.SendKeys("#search", "No LEADER")); err != nil {
		t.Fatal(err)
	}
	got := state()
	var want []string
	for _, e := range a.Errors {
		if strings.Contains(strings.ToLower(e.Text), "no leader") {
			want = append(want, e.Anchor)
		}
	}
	if len(want) == 0 {
		t.Fatal("the stored atlas has no error whose text says no leader")
	}
	have := map[string]bool{}
	for _, id := range got.Shown {
		have[id] = true
	}
	for _, id := range want {
		if !have[id] {
			t.Errorf("searching no leader hides %s", id)
		}
	}
	if len(got.Shown) >= len(a.Errors) || got.Rows >= len(a.Errors) || got.Rows == 0 {
		t.Errorf("searching no leader shows %d of %d sections and %d rows", len(got.Shown), len(a.Errors), got.Rows)
	}
	if !strings.Contains(got.Count, " of ") {
		t.Errorf("the count says %q", got.Count)
	}
	// A word no error has: nothing shown.
	if err := chromedp.Do(bctx, chromedp.SendKeys("#search", " zzznothing")); err != nil {
		t.Fatal(err)
	}
	if s := state(); len(s.Shown) != 0 || s.Rows != 0 {
		t.Errorf("a word no error has shows %v and %d rows", s.Shown, s.Rows)
	}
	// Every error has its anchor; following one the search hides shows it.
	for _, e := range a.Errors {
		if !strings.Contains(buf.String(), `id="`+e.Anchor+`"`) {
			t.Errorf("the page has no anchor %s", e.Anchor)
		}
	}
	target := a.Errors[0].Anchor
	if err := chromedp.Do(bctx, chromedp.Navigate(pageURL+"#"+target)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.SendKeys("#search", "zzznothing")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(bctx, chromedp.Evaluate[chromedp.Void](`location.hash = '#index'; location.hash = '#`+target+`'`)); err != nil {
		t.Fatal(err)
	}
	if s := state(); !s.Anchor || len(s.Shown) != len(a.Errors) {
		t.Errorf("following #%s while the search hides it: shown %v (%d sections)", target, s.Anchor, len(s.Shown))
	}
	mu.Lock()
	defer mu.Unlock()
	for _, u := range *requests {
		if !strings.HasPrefix(u, "file://") {
			t.Errorf("the page loads %s", u)
		}
	}
}
