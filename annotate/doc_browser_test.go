package annotate

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/srctrace/srctrace/trace/report"
)

// findChromium is $CHROME, /usr/bin/chromium, or a Chromium or Chrome on
// PATH.
func findChromium() (string, bool) {
	if p := os.Getenv("CHROME"); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p, true
		}
		if p, err := exec.LookPath(p); err == nil {
			return p, true
		}
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium", true
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// geometry is what the page reports of its diagrams and links.
type geometry struct {
	Diagrams []struct {
		Nodes []struct {
			Box   rect   `json:"box"`
			Texts []rect `json:"texts"`
			Href  string `json:"href"`
		} `json:"nodes"`
		EdgeLabels []rect `json:"edgeLabels"`
		Edges      int    `json:"edges"`
	} `json:"diagrams"`
	Links      int  `json:"links"`
	Details    int  `json:"details"`
	DetailOpen bool `json:"detailOpen"`
	Appendix   rect `json:"appendix"` // the first block inside the appendix
	// Wide are the elements that reach past the page's right edge (the
	// page would scroll sideways, or be cut in print).
	Wide []string `json:"wide"`
}

type rect struct{ X, Y, W, H float64 }

func (a rect) overlaps(b rect) bool {
	const e = 0.5 // antialiasing and rounding
	return a.X+e < b.X+b.W && b.X+e < a.X+a.W && a.Y+e < b.Y+b.H && b.Y+e < a.Y+a.H
}

func (a rect) inside(b rect) bool {
	const e = 0.5
	return a.X >= b.X-e && a.Y >= b.Y-e && a.X+a.W <= b.X+b.W+e && a.Y+a.H <= b.Y+b.H+e
}

const geometryJS = `(() => {
  const r = (el) => { const b = el.getBoundingClientRect(); return {X: b.x, Y: b.y + window.scrollY, W: b.width, H: b.height}; };
  const appendixBlock = document.querySelector('details.appendix > :not(summary)');
  return {
    diagrams: [...document.querySelectorAll('svg.diagram')].map(svg => ({
      nodes: [...svg.querySelectorAll('g.node')].map(g => ({
        box: r(g.querySelector('rect')),
        texts: [...g.querySelectorAll('text')].map(r),
        href: (g.closest('a') || {getAttribute: () => ''}).getAttribute('href') || '',
      })),
      edgeLabels: [...svg.querySelectorAll('.edge-label')].map(r),
      edges: svg.querySelectorAll('path.edge').length,
    })),
    links: document.querySelectorAll('a[href^="https://github.com/"]').length,
    details: document.querySelectorAll('details.appendix').length,
    detailOpen: [...document.querySelectorAll('details.appendix')].some(d => d.open),
    appendix: appendixBlock ? r(appendixBlock) : {X: 0, Y: 0, W: 0, H: 0},
    wide: [...document.querySelectorAll('main *')].filter(el => {
      const b = el.getBoundingClientRect();
      if (b.width === 0 || b.right <= document.documentElement.clientWidth + 1) return false;
      // Inside a box that scrolls on its own, being wide is fine.
      for (let p = el.parentElement; p && p.tagName !== 'MAIN'; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o === 'auto' || o === 'scroll' || o === 'hidden') return false;
      }
      return true;
    }).slice(0, 5).map(el => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ': ' + (el.textContent || '').slice(0, 60)),
  };
})()`

// The sample notes, opened in headless Chromium: the diagrams are laid out
// (boxes with size, no two overlapping, labels inside their boxes), every
// citation is a link, nothing is loaded but the file itself, the appendix
// is collapsible and opens in print. A full-page screenshot is kept in the
// test's temp dir and, with SRCTRACE_SCREENSHOT=path.png, at that path
// (beside it path-print.png, the page as printed).
func TestDocHTMLBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("opens a browser")
	}
	chrome, ok := findChromium()
	if !ok {
		t.Fatal("no Chromium: this test opens the HTML notes in a real browser. Install one with `bash .ci/run` (it installs Debian's chromium when missing) or `apt-get install chromium`, or set CHROME=/path/to/chrome")
	}
	dir := t.TempDir()
	bctx, enableNetwork, mu, requests := openBrowser(t, chrome, dir)
	// The sample notes, and the notes srctrace wrote for the real v3.7.3
	// (kept with the study, made again by its golden test).
	var rep report.Report
	data, err := os.ReadFile(filepath.Join("..", "trace", "study", "errcompacted", "testdata", "errcompacted-v3.7.3.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil || rep.Notes == nil {
		t.Fatalf("the stored v3.7.3 notes: %v", err)
	}
	for _, pg := range []struct {
		name string
		doc  *report.Doc
		etcd report.Etcd
	}{
		{"sample", loadDoc(t, filepath.Join("testdata", "doc", "notes.json")), sampleEtcd},
		{"errcompacted-v3.7.3", rep.Notes, rep.Etcd},
	} {
		t.Run(pg.name, func(t *testing.T) {
			mu.Lock()
			*requests = nil
			mu.Unlock()
			checkPage(t, bctx, dir, pg.name, pg.doc, pg.etcd, func(u string) error {
				return chromedp.Do(bctx, enableNetwork, chromedp.Navigate(u))
			}, func() []string {
				mu.Lock()
				defer mu.Unlock()
				return append([]string(nil), *requests...)
			})
		})
	}
}

// openBrowser starts headless Chromium for the browser tests, with its
// profile in dir, and records every request a page makes (under mu);
// enableNetwork, run before a navigation, turns the recording on. The
// browser ends with the test.
func openBrowser(t *testing.T, chrome, dir string) (bctx context.Context, enableNetwork chromedp.Action[chromedp.Void], mu *sync.Mutex, requests *[]string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	// The flags of this machine's browser tests: without the
	// background-networking ones Chromium tries to reach Google's hosts.
	actx, acancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chrome),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(filepath.Join(dir, "profile")),
		chromedp.WindowSize(1280, 900),
		// Chromium keeps its singleton socket in a directory of its own
		// under TMPDIR, which it does not remove: in the test's.
		chromedp.Env("TMPDIR="+dir),
	)
	t.Cleanup(acancel)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(bcancel)
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("starting %s: %v", chrome, err)
	}
	mu, requests = new(sync.Mutex), new([]string)
	if err := chromedp.Listen(bctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			*requests = append(*requests, e.Request.URL)
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	enableNetwork = chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{})
		return err
	})
	return bctx, enableNetwork, mu, requests
}

// checkPage renders d into dir/name.html, opens it in the browser of bctx
// and checks what TestDocHTMLBrowser says.
func checkPage(t *testing.T, bctx context.Context, dir, name string, d *report.Doc, etcd report.Etcd, navigate func(url string) error, requested func() []string) {
	start := time.Now()
	page := filepath.Join(dir, name+".html")
	f, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := RenderDoc(f, "html", d, etcd); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	pageURL := (&url.URL{Scheme: "file", Path: page}).String()
	// The tab is shared between pages: the last one left it in print.
	screen := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, emulation.ClearDeviceMetricsOverride, cdp.Empty{}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "screen"})
		return err
	})
	if err := chromedp.Do(bctx, screen); err != nil {
		t.Fatal(err)
	}
	if err := navigate(pageURL); err != nil {
		t.Fatal(err)
	}
	g, err := chromedp.Run(bctx, chromedp.Evaluate[geometry](geometryJS))
	if err != nil {
		t.Fatal(err)
	}

	// Diagrams: one per Doc diagram, each node a box with size, no two
	// boxes or texts overlapping, texts inside their box.
	var want []*report.Diagram
	var walk func([]report.Section)
	walk = func(ss []report.Section) {
		for _, s := range ss {
			for _, b := range s.Blocks {
				if b.Diagram != nil {
					want = append(want, b.Diagram)
				}
			}
			walk(s.Sections)
		}
	}
	walk(d.Sections)
	if len(g.Diagrams) != len(want) {
		t.Fatalf("%d diagrams in the page, %d in the notes", len(g.Diagrams), len(want))
	}
	for i, dg := range g.Diagrams {
		if len(dg.Nodes) != len(want[i].Nodes) || dg.Edges != len(want[i].Edges) {
			t.Errorf("diagram %d: %d nodes and %d edges, want %d and %d", i, len(dg.Nodes), dg.Edges, len(want[i].Nodes), len(want[i].Edges))
		}
		var texts []rect
		for j, n := range dg.Nodes {
			if n.Box.W <= 0 || n.Box.H <= 0 {
				t.Errorf("diagram %d node %d has no size: %+v", i, j, n.Box)
			}
			for _, tx := range n.Texts {
				if tx.W <= 0 || tx.H <= 0 {
					t.Errorf("diagram %d node %d: a label has no size", i, j)
				}
				if !tx.inside(n.Box) {
					t.Errorf("diagram %d node %d (%s): label %+v outside its box %+v", i, j, want[i].Nodes[j].Label, tx, n.Box)
				}
				texts = append(texts, tx)
			}
			for k := range j {
				if n.Box.overlaps(dg.Nodes[k].Box) {
					t.Errorf("diagram %d: boxes of nodes %d and %d overlap: %+v %+v", i, k, j, dg.Nodes[k].Box, n.Box)
				}
			}
			if l := want[i].Nodes[j].Loc; l != nil && n.Href != permalink(etcd, l) {
				t.Errorf("diagram %d node %d links to %q, want %q", i, j, n.Href, permalink(etcd, l))
			}
		}
		for j, a := range texts {
			for k := range j {
				if a.overlaps(texts[k]) {
					t.Errorf("diagram %d: labels %+v and %+v overlap", i, texts[k], a)
				}
			}
		}
		for _, l := range dg.EdgeLabels {
			for j, n := range dg.Nodes {
				if l.overlaps(n.Box) {
					t.Errorf("diagram %d: an edge label %+v overlaps node %d %+v", i, l, j, n.Box)
				}
			}
		}
	}

	// Links: every citation, linked code line and node with a Loc.
	spans, lines, nodes := docCitations(d)
	if want := len(spans) + len(lines) + len(nodes); g.Links != want {
		t.Errorf("%d links to GitHub, want %d (%d citations, %d code lines, %d diagram nodes)", g.Links, want, len(spans), len(lines), len(nodes))
	}

	// The appendix: collapsible, closed on screen.
	if g.Details == 0 {
		t.Error("no <details> appendix")
	}
	if g.DetailOpen {
		t.Error("the appendix is open on screen")
	}

	shot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	keep := func(name string, png []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keep(name+".png", shot)
	out := os.Getenv("SRCTRACE_SCREENSHOT")
	if out != "" {
		out = strings.TrimSuffix(out, ".png") + "-" + name + ".png"
	}
	if out != "" {
		if err := os.WriteFile(out, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// In print, on an A4 page's width (794 CSS pixels less the margins),
	// the appendix is open and nothing is cut at the right.
	print := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 700, Height: 1000, DeviceScaleFactor: 1}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: "print"})
		return err
	})
	if err := chromedp.Do(bctx, print); err != nil {
		t.Fatal(err)
	}
	pg, err := chromedp.Run(bctx, chromedp.Evaluate[geometry](geometryJS))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range g.Wide {
		t.Errorf("on screen, wider than the page: %s", w)
	}
	for _, w := range pg.Wide {
		t.Errorf("in print, wider than the page: %s", w)
	}
	if pg.Appendix.H <= 0 {
		t.Errorf("in print the appendix is still closed: its first block is %+v", pg.Appendix)
	}
	if out != "" {
		printShot, err := chromedp.Run(bctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(strings.TrimSuffix(out, ".png")+"-print.png", printShot, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// Nothing but the file itself (and data: URLs) was requested.
	requests := requested()
	seen := false
	for _, u := range requests {
		switch {
		case u == pageURL:
			seen = true
		case strings.HasPrefix(u, "data:"):
		default:
			t.Errorf("the page requested %s", u)
		}
	}
	if !seen {
		t.Errorf("the network events did not show the page itself (%d requests: %q): the check saw nothing", len(requests), requests)
	}
	t.Logf("browser test: %v, %d requests, screenshot %s", time.Since(start).Round(time.Millisecond), len(requests), filepath.Join(dir, name+".png"))
}
