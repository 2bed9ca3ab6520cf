package annotate

import (
	"sort"
	"strconv"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// A diagram's text is set in a monospace font at fixed sizes, named in the
// SVG itself, so that the width the layout gives a label (cells × advance)
// holds in the browser: the fonts named all advance 0.6 em (DejaVu Sans
// Mono 0.602 em, Liberation Mono, Menlo and Consolas at most that); the
// advances below add a margin.
const (
	svgFont = `"DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace`

	svgLabelSize    = 12.0
	svgLabelAdvance = 7.3
	svgLabelLine    = 15.0
	svgLabelCells   = 40

	svgLocSize    = 10.5
	svgLocAdvance = 6.4
	svgLocLine    = 13.0
	svgLocCells   = 44

	svgEdgeSize    = 10.5
	svgEdgeAdvance = 6.4
	svgEdgeLine    = 13.0
	svgEdgeCells   = 24

	svgPadX     = 10.0
	svgPadY     = 7.0
	svgMinWidth = 96.0
	svgLoopW    = 34.0 // room right of a box for a self-loop
)

// svgView is a laid-out diagram, ready for the page's template.
type svgView struct {
	ID     string // unique in the page, for the arrowhead's marker
	Title  string
	W, H   string
	Font   string
	Edges  []svgEdge
	Nodes  []svgNode
	Labels []svgText
	Legend []svgKey
}

type svgEdge struct {
	D, Class string
}

type svgNode struct {
	URL, Tip, Class string
	X, Y, W, H, RX  string
	Label, Loc      []svgLine
}

type svgLine struct{ X, Y, Text string }

type svgText struct {
	X, Y, W, H string
	Lines      []svgLine
}

// svgKey is one entry of a diagram's legend: an edge style or a node
// class that the diagram uses.
type svgKey struct {
	Edge  bool
	Class string
	Text  string
}

// num formats a coordinate: one decimal, none when it is whole.
func num(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0")
}

// diagramView lays g out. index numbers the diagrams of a page.
func diagramView(g *report.Diagram, index int, etcd report.Etcd) *svgView {
	v := &svgView{ID: "d" + strconv.Itoa(index), Title: g.Title, Font: svgFont}
	ids := map[string]int{}
	sizes := make([]laySize, len(g.Nodes))
	labels := make([][]string, len(g.Nodes))
	locs := make([][]string, len(g.Nodes))
	for i, n := range g.Nodes {
		ids[n.ID] = i
		labels[i] = wrap(n.Label, svgLabelCells)
		if n.Loc != nil {
			locs[i] = wrap(locText(n.Loc), svgLocCells)
		}
		w := svgMinWidth
		for _, l := range labels[i] {
			w = max(w, float64(cells(l))*svgLabelAdvance+2*svgPadX)
		}
		for _, l := range locs[i] {
			w = max(w, float64(cells(l))*svgLocAdvance+2*svgPadX)
		}
		h := 2*svgPadY + float64(len(labels[i]))*svgLabelLine + float64(len(locs[i]))*svgLocLine
		sizes[i] = laySize{W: float64(int(w + 0.999)), H: h}
	}
	edges := make([]layEdge, len(g.Edges))
	edgeLabels := make([][]string, len(g.Edges))
	for i, e := range g.Edges {
		edges[i] = layEdge{From: ids[e.From], To: ids[e.To]}
		if e.Label != "" && e.From != e.To {
			edgeLabels[i] = wrap(e.Label, svgEdgeCells)
			w := 0.0
			for _, l := range edgeLabels[i] {
				w = max(w, float64(cells(l))*svgEdgeAdvance)
			}
			edges[i].Label = laySize{W: w + 4, H: float64(len(edgeLabels[i]))*svgEdgeLine + 2}
		}
	}
	res := layered(sizes, edges)
	width := res.W

	for i, e := range g.Edges {
		class := "edge call"
		if e.Style == "handoff" {
			class = "edge handoff"
		}
		pts := res.Edges[i]
		var d strings.Builder
		if e.From == e.To {
			b := res.Nodes[ids[e.From]]
			x, y0, y1 := b.X+b.W, b.Y+b.H*0.3, b.Y+b.H*0.7
			d.WriteString("M" + num(x) + " " + num(y0) + " C" + num(x+svgLoopW-4) + " " + num(y0-6) + " " + num(x+svgLoopW-4) + " " + num(y1+6) + " " + num(x) + " " + num(y1))
			width = max(width, x+svgLoopW+layPad)
		} else {
			d.WriteString("M" + num(pts[0].X) + " " + num(pts[0].Y))
			for j := 0; j+1 < len(pts); j++ {
				a, b := pts[j], pts[j+1]
				if j%2 == 0 {
					mid := (a.Y + b.Y) / 2
					d.WriteString(" C" + num(a.X) + " " + num(mid) + " " + num(b.X) + " " + num(mid) + " " + num(b.X) + " " + num(b.Y))
				} else {
					d.WriteString(" L" + num(b.X) + " " + num(b.Y))
				}
			}
		}
		v.Edges = append(v.Edges, svgEdge{D: d.String(), Class: class})
		if lines := edgeLabels[i]; lines != nil {
			b := res.Labels[i]
			t := svgText{X: num(b.X), Y: num(b.Y), W: num(b.W), H: num(b.H)}
			for k, l := range lines {
				t.Lines = append(t.Lines, svgLine{X: num(b.X + 2), Y: num(b.Y + 1 + svgEdgeSize + float64(k)*svgEdgeLine), Text: l})
			}
			v.Labels = append(v.Labels, t)
		}
	}

	for i, n := range g.Nodes {
		b := res.Nodes[i]
		cx := b.X + b.W/2
		class := "node"
		if n.Kind != "" {
			class += " kind-" + cssClass(n.Kind)
		}
		if n.Class != "" {
			class += " " + cssClass(n.Class)
		}
		rx := 5.0
		switch n.Kind {
		case "entry":
			rx = min(14, b.H/2)
		case "decision":
			rx = 1
		}
		tip := n.Label
		if n.Loc != nil {
			tip += "\n" + locText(n.Loc)
			if n.Loc.Function != "" {
				tip += " in " + n.Loc.Function
			}
		}
		if n.Class != "" {
			tip += "\n(" + n.Class + ")"
		}
		sn := svgNode{URL: permalink(etcd, n.Loc), Tip: tip, Class: class,
			X: num(b.X), Y: num(b.Y), W: num(b.W), H: num(b.H), RX: num(rx)}
		y := b.Y + svgPadY
		for _, l := range labels[i] {
			sn.Label = append(sn.Label, svgLine{X: num(cx), Y: num(y + svgLabelSize*0.95), Text: l})
			y += svgLabelLine
		}
		for _, l := range locs[i] {
			sn.Loc = append(sn.Loc, svgLine{X: num(cx), Y: num(y + svgLocSize*0.95), Text: l})
			y += svgLocLine
		}
		v.Nodes = append(v.Nodes, sn)
	}
	v.W, v.H = num(width), num(res.H)

	styles := map[bool]bool{} // hand-off or not
	for _, e := range g.Edges {
		styles[e.Style == "handoff"] = true
	}
	if styles[false] {
		v.Legend = append(v.Legend, svgKey{Edge: true, Class: "call", Text: "call"})
	}
	if styles[true] {
		v.Legend = append(v.Legend, svgKey{Edge: true, Class: "handoff", Text: "hand-off"})
	}
	// The shapes of their own: where a request comes in, the decision.
	kinds := map[string]bool{}
	for _, n := range g.Nodes {
		kinds[n.Kind] = true
	}
	for _, k := range []string{"entry", "decision"} {
		if kinds[k] {
			v.Legend = append(v.Legend, svgKey{Class: "kind-" + k, Text: k})
		}
	}
	classes := map[string]bool{}
	for _, n := range g.Nodes {
		if n.Class != "" {
			classes[n.Class] = true
		}
	}
	var names []string
	for c := range classes {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		v.Legend = append(v.Legend, svgKey{Class: cssClass(c), Text: c})
	}
	return v
}
