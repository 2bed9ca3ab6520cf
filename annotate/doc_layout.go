package annotate

// The diagrams of a Doc are laid out here, at render time, by a small
// layered (Sugiyama-style) layout written for the shapes the notes draw:
// directed graphs of 5–25 nodes, mostly one line with a few forks and joins
// and a second root that joins it late.
//
// # Why a layout of our own
//
// Three ways were compared on a 20-node chain (17 calls in a line, three
// dashed hand-offs, a second root of two nodes joining at node 10, a fork
// from node 12 that joins again at node 15), measured on this project's
// 2-core machine with Go 1.26. Binary sizes are of `go build
// ./cmd/srctrace` (40,357,874 bytes before any of them), dependency weight
// is the line count of `go mod graph` (726 before).
//
//   - github.com/goccy/go-graphviz v0.2.10 (Graphviz 12 compiled to wasm,
//     run by wazero): served by the proxy; deterministic (byte-identical
//     SVG over runs); dot's layout is the best of the three; +6.2 MB
//     (46,597,697 bytes), +21 lines of `go mod graph`, 7 new modules
//     (wazero, fogleman/gg, freetype, x/image, ...). Its package init
//     compiles and instantiates the wasm module in every process that links
//     it, whatever command runs: 40 ms with a warm compilation cache, and it
//     writes that cache (5.9 MB) to $TMPDIR/go-graphviz, so a cold start of
//     `srctrace --help` went from 0.01 s to 0.6 s. The SVG names Times and
//     needs rewriting to carry our classes, links and fonts.
//   - oss.terrastruct.com/d2 v0.7.2 (the module says it is deprecated in
//     favour of github.com/d2lang/d2, which the proxy here does not list):
//     served; deterministic; good layout (dagre, run in the goja JavaScript
//     interpreter): 140–150 ms for the one diagram; +17.2 MB (57,554,141
//     bytes), +148 lines of `go mod graph`, 18 new modules in go.mod (goja,
//     goquery, goldmark, an older chroma, x/exp, ...); 9 ms more of package
//     init; the SVG embeds its own fonts as base64 and its own CSS.
//   - this file: no dependency, nothing at init, under a millisecond for the
//     same chain, byte-identical output, and the SVG is ours: classes,
//     links, tooltips and a font whose width the layout assumes. On the
//     20-node chain it draws what dot draws (the second root beside the
//     chain right above its join, the fork's long edge straight beside the
//     branch), with less refined edge curves.
//
// Chosen: this layout. Graphviz draws better curves but taxes every srctrace
// command at init and writes to $TMPDIR; d2 is the heaviest and deprecated.
//
// # The steps
//
// Cycles are broken by reversing the back edges of a depth-first search in
// node order. Layers: the longest path from the roots, then every set of
// nodes closed under ancestors (a second root and its chain) moves down as
// far as the edges that leave it allow, so it sits right above its join.
// Edges that span layers get a dummy node per layer. The order in a layer
// starts as a depth-first order and improves by barycenter sweeps, keeping
// the order with the fewest crossings. X coordinates: alternating sweeps
// that move each node toward the mean of its neighbours in the layer above
// or below, solved per layer exactly (weighted isotonic regression, pool
// adjacent violators) under the constraint that boxes keep their order and
// a gap; dummies weigh more, so long edges run straight. Edge labels sit in
// the gap under the edge's source, where no node is.

import (
	"math"
	"slices"
	"sort"
)

// Layout constants, in CSS pixels.
const (
	layNodeGap  = 28.0 // between two boxes of a layer
	layDummyGap = 14.0 // between a box and an edge passing beside it
	layLayerGap = 44.0 // between two layers
	layPad      = 8.0  // around the drawing
	layPortStep = 18.0 // between two edges leaving or entering one side of a box
)

// laySize is the size of a box or of an edge label.
type laySize struct{ W, H float64 }

// layEdge is an edge of the graph to lay out; Label is the size of its
// label, zero when it has none.
type layEdge struct {
	From, To int
	Label    laySize
}

// layPoint is a point of the drawing.
type layPoint struct{ X, Y float64 }

// layBox is a laid-out box: its top left corner and size.
type layBox struct{ X, Y, W, H float64 }

// layResult is a laid-out graph. Nodes are in input order; Edges too, each
// a path from its source's box to its target's box: the first point is on
// the source, the last on the target; the segment from a point with an even
// index to the next crosses a gap between layers (draw it as a curve), the
// one from an odd index runs straight through a layer, beside its boxes.
// Self-loops have no points.
type layResult struct {
	W, H   float64
	Nodes  []layBox
	Edges  [][]layPoint
	Labels []layBox // per edge; zero size when the edge has no label
}

// vertex is a node of the layered graph: a box, or a dummy on a long edge.
type vertex struct {
	layer  int
	pos    int // index in the layer
	w, h   float64
	x      float64 // centre
	dummy  bool
	up     []int // vertices in the layer above joined to this one
	down   []int // vertices in the layer below
	weight float64
}

// layered lays out the graph: nodes sizes and edges between their indices.
func layered(nodes []laySize, edges []layEdge) *layResult {
	n := len(nodes)
	res := &layResult{
		Nodes:  make([]layBox, n),
		Edges:  make([][]layPoint, len(edges)),
		Labels: make([]layBox, len(edges)),
	}
	if n == 0 {
		return res
	}

	// Orient: reverse the back edges of a DFS in node order; drop self-loops.
	out := make([][]int, n) // edge indices
	for i, e := range edges {
		if e.From != e.To {
			out[e.From] = append(out[e.From], i)
		}
	}
	reversed := make([]bool, len(edges))
	state := make([]int8, n) // 0 new, 1 on stack, 2 done
	var dfs func(v int)
	dfs = func(v int) {
		state[v] = 1
		for _, ei := range out[v] {
			w := edges[ei].To
			switch state[w] {
			case 0:
				dfs(w)
			case 1:
				reversed[ei] = true
			}
		}
		state[v] = 2
	}
	for v := range n {
		if state[v] == 0 && !hasIn(v, edges) {
			dfs(v)
		}
	}
	for v := range n {
		if state[v] == 0 {
			dfs(v)
		}
	}
	type arc struct{ u, v, edge int }
	var arcs []arc
	for i, e := range edges {
		switch {
		case e.From == e.To:
		case reversed[i]:
			arcs = append(arcs, arc{e.To, e.From, i})
		default:
			arcs = append(arcs, arc{e.From, e.To, i})
		}
	}
	succ := make([][]int, n)
	pred := make([][]int, n)
	for _, a := range arcs {
		succ[a.u] = append(succ[a.u], a.v)
		pred[a.v] = append(pred[a.v], a.u)
	}

	// Layers: longest path from the roots, in a topological order that
	// follows node order where it is free.
	topo := topoOrder(n, succ, pred)
	layer := make([]int, n)
	for _, v := range topo {
		for _, u := range pred[v] {
			layer[v] = max(layer[v], layer[u]+1)
		}
	}
	// Move ancestor-closed sets down as far as their outgoing edges allow:
	// a second root then sits above its join, not beside the first root.
	for changed, round := true, 0; changed && round < n; round++ {
		changed = false
		for i := len(topo) - 1; i >= 0; i-- {
			set := ancestors(topo[i], pred)
			slack := math.MaxInt
			for u := range set {
				for _, w := range succ[u] {
					if !set[w] {
						slack = min(slack, layer[w]-layer[u]-1)
					}
				}
			}
			if slack > 0 && slack < math.MaxInt {
				for u := range set {
					layer[u] += slack
				}
				changed = true
			}
		}
	}
	// No empty layers.
	used := map[int]int{}
	for _, l := range layer {
		used[l] = 0
	}
	levels := make([]int, 0, len(used))
	for l := range used {
		levels = append(levels, l)
	}
	sort.Ints(levels)
	for i, l := range levels {
		used[l] = i
	}
	for v := range layer {
		layer[v] = used[layer[v]]
	}
	nl := len(levels)

	// The layered graph, with a dummy per layer crossed.
	vs := make([]*vertex, n)
	for v := range n {
		vs[v] = &vertex{layer: layer[v], w: nodes[v].W, h: nodes[v].H, weight: 1}
	}
	chains := make([][]int, len(edges)) // per edge: vertices from source to target, in layout direction
	for _, a := range arcs {
		chain := []int{a.u}
		for l := layer[a.u] + 1; l < layer[a.v]; l++ {
			vs = append(vs, &vertex{layer: l, dummy: true, weight: 8})
			chain = append(chain, len(vs)-1)
		}
		chain = append(chain, a.v)
		for i := 1; i < len(chain); i++ {
			vs[chain[i-1]].down = append(vs[chain[i-1]].down, chain[i])
			vs[chain[i]].up = append(vs[chain[i]].up, chain[i-1])
		}
		chains[a.edge] = chain
	}

	// Order within layers: DFS order first, then barycenter sweeps.
	layers := make([][]int, nl)
	seen := make([]bool, len(vs))
	var place func(v int)
	place = func(v int) {
		if seen[v] {
			return
		}
		seen[v] = true
		layers[vs[v].layer] = append(layers[vs[v].layer], v)
		for _, w := range vs[v].down {
			place(w)
		}
	}
	for _, v := range topo {
		if len(vs[v].up) == 0 {
			place(v)
		}
	}
	for v := range vs {
		place(v)
	}
	setPos := func() {
		for _, l := range layers {
			for i, v := range l {
				vs[v].pos = i
			}
		}
	}
	setPos()
	best := cloneLayers(layers)
	bestX := crossings(layers, vs)
	for iter := 0; iter < 12 && bestX > 0; iter++ {
		if iter%2 == 0 {
			for l := 1; l < nl; l++ {
				sortByBarycenter(layers[l], vs, func(v *vertex) []int { return v.up })
				setPos()
			}
		} else {
			for l := nl - 2; l >= 0; l-- {
				sortByBarycenter(layers[l], vs, func(v *vertex) []int { return v.down })
				setPos()
			}
		}
		if x := crossings(layers, vs); x < bestX {
			best, bestX = cloneLayers(layers), x
		}
	}
	layers = best
	setPos()

	// X: pack, then sweep toward neighbours.
	for _, l := range layers {
		x := 0.0
		for i, v := range l {
			if i > 0 {
				x += minDist(vs[l[i-1]], vs[v])
			}
			vs[v].x = x
		}
	}
	for iter := range 10 {
		if iter%2 == 0 {
			for l := 1; l < nl; l++ {
				alignLayer(layers[l], vs, true, false)
			}
		} else {
			for l := nl - 2; l >= 0; l-- {
				alignLayer(layers[l], vs, false, true)
			}
		}
	}
	// Last, each layer toward the layer above: a chain of single calls
	// runs straight down.
	for l := 1; l < nl; l++ {
		alignLayer(layers[l], vs, true, false)
	}

	// Y: layer bands, and gaps tall enough for the labels in them.
	bandH := make([]float64, nl)
	for _, v := range vs {
		bandH[v.layer] = max(bandH[v.layer], v.h)
	}
	gapH := make([]float64, nl)
	for i := range gapH {
		gapH[i] = layLayerGap
	}
	for i, e := range edges {
		if c := chains[i]; c != nil && e.Label.H > 0 {
			g := vs[c[0]].layer
			gapH[g] = max(gapH[g], e.Label.H+28)
		}
	}
	bandTop := make([]float64, nl)
	y := layPad
	for l := range nl {
		bandTop[l] = y
		y += bandH[l] + gapH[l]
	}
	top := func(v *vertex) float64 { return bandTop[v.layer] + (bandH[v.layer]-v.h)/2 }
	bottom := func(v *vertex) float64 { return top(v) + v.h }

	// Ports: edges leave a box's bottom and enter its top spread out, in the
	// order of the vertex at their other end.
	outPort := map[[2]int]float64{} // (vertex, next vertex) -> x
	inPort := map[[2]int]float64{}
	for vi, v := range vs {
		if v.dummy {
			continue
		}
		spread(vi, v, v.down, vs, outPort)
		spread(vi, v, v.up, vs, inPort)
	}

	// Normalise x so the drawing starts at the pad.
	minX := math.Inf(1)
	for _, v := range vs {
		minX = min(minX, v.x-v.w/2)
	}
	shift := layPad - minX
	for _, v := range vs {
		v.x += shift
	}
	for k := range outPort {
		outPort[k] += shift
	}
	for k := range inPort {
		inPort[k] += shift
	}

	maxX, maxY := 0.0, 0.0
	for v := range n {
		b := layBox{X: vs[v].x - vs[v].w/2, Y: top(vs[v]), W: vs[v].w, H: vs[v].h}
		res.Nodes[v] = b
		maxX, maxY = max(maxX, b.X+b.W), max(maxY, b.Y+b.H)
	}

	// Paths, and the labels to place.
	type placed struct {
		edge int
		gap  int
	}
	var labels []placed
	for i := range edges {
		c := chains[i]
		if c == nil {
			continue
		}
		pts := []layPoint{{outPort[[2]int{c[0], c[1]}], bottom(vs[c[0]])}}
		for _, d := range c[1 : len(c)-1] {
			pts = append(pts, layPoint{vs[d].x, bandTop[vs[d].layer]}, layPoint{vs[d].x, bandTop[vs[d].layer] + bandH[vs[d].layer]})
		}
		pts = append(pts, layPoint{inPort[[2]int{c[len(c)-1], c[len(c)-2]}], top(vs[c[len(c)-1]])})
		if reversed[i] {
			slices.Reverse(pts)
		}
		res.Edges[i] = pts
		if edges[i].Label.W > 0 {
			labels = append(labels, placed{i, vs[c[0]].layer})
		}
	}
	// A label sits in the middle of the first gap its edge crosses, beside
	// the curve: on the side toward the edge's target first (a fork's
	// labels go outward), else on the other side, whichever meets fewer
	// other edges; never over another label.
	var curves [][2]layPoint // every edge's segments across gaps
	for i := range edges {
		pts := res.Edges[i]
		for j := 0; j+1 < len(pts); j += 2 {
			curves = append(curves, [2]layPoint{pts[j], pts[j+1]})
		}
	}
	var done []layBox
	for _, p := range labels {
		sz := edges[p.edge].Label
		from, to := edgeEnds(res.Edges[p.edge], reversed[p.edge])
		gapMid := bandTop[p.gap] + bandH[p.gap] + gapH[p.gap]/2
		y0, y1 := gapMid-sz.H/2, gapMid+sz.H/2
		lo, hi := math.Inf(1), math.Inf(-1)
		for k := 0; k <= 32; k++ {
			q := curvePoint(from, to, float64(k)/32)
			if q.Y >= y0 && q.Y <= y1 {
				lo, hi = min(lo, q.X), max(hi, q.X)
			}
		}
		if lo > hi {
			lo, hi = (from.X+to.X)/2, (from.X+to.X)/2
		}
		left := layBox{X: lo - 5 - sz.W, Y: y0, W: sz.W, H: sz.H}
		right := layBox{X: hi + 5, Y: y0, W: sz.W, H: sz.H}
		cands := []layBox{right, left}
		if to.X < from.X-2 {
			cands = []layBox{left, right}
		}
		best, bestHits := layBox{}, math.MaxInt
		for _, c := range cands {
			if c.X < layPad {
				continue
			}
			hits := 0
			for _, b := range done {
				if boxesMeet(c, b) {
					hits += 1000
				}
			}
			for _, cv := range curves {
				for k := 0; k <= 32; k++ {
					q := curvePoint(cv[0], cv[1], float64(k)/32)
					if q.X >= c.X-2 && q.X <= c.X+c.W+2 && q.Y >= c.Y-2 && q.Y <= c.Y+c.H+2 {
						hits++
					}
				}
			}
			if hits < bestHits {
				best, bestHits = c, hits
			}
		}
		if bestHits >= 1000 {
			// After every label in the way.
			best = right
			for moved := true; moved; {
				moved = false
				for _, b := range done {
					if boxesMeet(best, b) {
						best.X, moved = b.X+b.W+8, true
					}
				}
			}
		}
		res.Labels[p.edge] = best
		done = append(done, best)
		maxX = max(maxX, best.X+best.W)
	}
	for _, v := range vs {
		maxX = max(maxX, v.x)
	}
	res.W = math.Ceil(maxX + layPad)
	res.H = math.Ceil(maxY + layPad)
	return res
}

// curvePoint is the point at t of the curve drawn across a gap from a to
// b: a cubic Bézier whose control points sit at mid height above a and b.
func curvePoint(a, b layPoint, t float64) layPoint {
	u := 1 - t
	mid := (a.Y + b.Y) / 2
	return layPoint{
		X: u*u*u*a.X + 3*u*u*t*a.X + 3*u*t*t*b.X + t*t*t*b.X,
		Y: u*u*u*a.Y + 3*u*u*t*mid + 3*u*t*t*mid + t*t*t*b.Y,
	}
}

func boxesMeet(a, b layBox) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

// edgeEnds is the first gap's segment of an edge, in layout direction.
func edgeEnds(pts []layPoint, reversed bool) (layPoint, layPoint) {
	if reversed {
		return pts[len(pts)-1], pts[len(pts)-2]
	}
	return pts[0], pts[1]
}

func hasIn(v int, edges []layEdge) bool {
	for _, e := range edges {
		if e.To == v && e.From != v {
			return true
		}
	}
	return false
}

// topoOrder is Kahn's algorithm, taking the lowest ready node first.
func topoOrder(n int, succ, pred [][]int) []int {
	indeg := make([]int, n)
	for v := range n {
		indeg[v] = len(pred[v])
	}
	var ready []int
	for v := range n {
		if indeg[v] == 0 {
			ready = append(ready, v)
		}
	}
	var order []int
	for len(ready) > 0 {
		sort.Ints(ready)
		v := ready[0]
		ready = ready[1:]
		order = append(order, v)
		for _, w := range succ[v] {
			indeg[w]--
			if indeg[w] == 0 {
				ready = append(ready, w)
			}
		}
	}
	return order
}

// ancestors is v with everything that reaches it.
func ancestors(v int, pred [][]int) map[int]bool {
	set := map[int]bool{v: true}
	stack := []int{v}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range pred[u] {
			if !set[p] {
				set[p] = true
				stack = append(stack, p)
			}
		}
	}
	return set
}

func cloneLayers(ls [][]int) [][]int {
	out := make([][]int, len(ls))
	for i, l := range ls {
		out[i] = slices.Clone(l)
	}
	return out
}

// crossings counts the edge crossings between adjacent layers.
func crossings(layers [][]int, vs []*vertex) int {
	total := 0
	for _, l := range layers {
		var segs [][2]int
		for _, v := range l {
			for _, w := range vs[v].down {
				segs = append(segs, [2]int{vs[v].pos, vs[w].pos})
			}
		}
		for i := range segs {
			for j := i + 1; j < len(segs); j++ {
				a, b := segs[i], segs[j]
				if (a[0] < b[0] && a[1] > b[1]) || (a[0] > b[0] && a[1] < b[1]) {
					total++
				}
			}
		}
	}
	return total
}

// sortByBarycenter orders a layer by the mean position of each vertex's
// neighbours in the reference layer; a vertex without any keeps its place.
func sortByBarycenter(l []int, vs []*vertex, ref func(*vertex) []int) {
	bary := make(map[int]float64, len(l))
	for _, v := range l {
		nb := ref(vs[v])
		if len(nb) == 0 {
			bary[v] = float64(vs[v].pos)
			continue
		}
		s := 0.0
		for _, w := range nb {
			s += float64(vs[w].pos)
		}
		bary[v] = s / float64(len(nb))
	}
	sort.SliceStable(l, func(i, j int) bool { return bary[l[i]] < bary[l[j]] })
}

// minDist is the least distance between the centres of two neighbours in
// a layer, a left of b.
func minDist(a, b *vertex) float64 {
	gap := layNodeGap
	if a.dummy || b.dummy {
		gap = layDummyGap
	}
	return (a.w+b.w)/2 + gap
}

// alignLayer moves the vertices of a layer toward the mean x of their
// neighbours above and/or below, as close as their order and gaps allow:
// the weighted least-squares solution, by pool adjacent violators.
func alignLayer(l []int, vs []*vertex, up, down bool) {
	if len(l) == 0 {
		return
	}
	off := make([]float64, len(l))
	for i := 1; i < len(l); i++ {
		off[i] = off[i-1] + minDist(vs[l[i-1]], vs[l[i]])
	}
	type block struct {
		sum, weight float64 // of weight*target
		n           int
	}
	var blocks []block
	for i, vi := range l {
		v := vs[vi]
		var nb []int
		if up {
			nb = append(nb, v.up...)
		}
		if down {
			nb = append(nb, v.down...)
		}
		want, w := v.x, 0.01
		if len(nb) > 0 {
			s := 0.0
			for _, u := range nb {
				s += vs[u].x
			}
			want, w = s/float64(len(nb)), v.weight
		}
		blocks = append(blocks, block{sum: w * (want - off[i]), weight: w, n: 1})
		for len(blocks) > 1 {
			a, b := blocks[len(blocks)-2], blocks[len(blocks)-1]
			if a.sum/a.weight <= b.sum/b.weight {
				break
			}
			blocks = blocks[:len(blocks)-2]
			blocks = append(blocks, block{a.sum + b.sum, a.weight + b.weight, a.n + b.n})
		}
	}
	i := 0
	for _, b := range blocks {
		y := b.sum / b.weight
		for range b.n {
			vs[l[i]].x = y + off[i]
			i++
		}
	}
}

// spread gives each edge on one side of a box its x, spread around the
// box's centre in the order of the vertices at their other ends.
func spread(vi int, v *vertex, others []int, vs []*vertex, ports map[[2]int]float64) {
	k := len(others)
	if k == 0 {
		return
	}
	order := slices.Clone(others)
	sort.SliceStable(order, func(a, b int) bool { return vs[order[a]].x < vs[order[b]].x })
	width := min(layPortStep*float64(k-1), v.w*0.6)
	for i, o := range order {
		x := v.x
		if k > 1 {
			x = v.x - width/2 + width*float64(i)/float64(k-1)
		}
		ports[[2]int{vi, o}] = x
	}
}
