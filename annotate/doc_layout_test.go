package annotate

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// checkLayout fails when two boxes or labels overlap, or an edge does not
// start and end on its boxes.
func checkLayout(t *testing.T, name string, sizes []laySize, edges []layEdge, r *layResult) {
	t.Helper()
	var boxes []layBox
	for i, b := range r.Nodes {
		if b.W != sizes[i].W || b.H != sizes[i].H {
			t.Errorf("%s: node %d is %vx%v, want %vx%v", name, i, b.W, b.H, sizes[i].W, sizes[i].H)
		}
		boxes = append(boxes, b)
	}
	for i, b := range r.Labels {
		if edges[i].Label.W > 0 {
			boxes = append(boxes, b)
		}
	}
	for i := range boxes {
		a := boxes[i]
		if a.X < 0 || a.Y < 0 || a.X+a.W > r.W+0.01 || a.Y+a.H > r.H+0.01 {
			t.Errorf("%s: box %d %+v outside %vx%v", name, i, a, r.W, r.H)
		}
		for j := i + 1; j < len(boxes); j++ {
			b := boxes[j]
			if a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H {
				t.Errorf("%s: boxes %d %+v and %d %+v overlap", name, i, a, j, b)
			}
		}
	}
	on := func(p layPoint, b layBox) bool {
		return p.X >= b.X-0.01 && p.X <= b.X+b.W+0.01 && (abs(p.Y-b.Y) < 0.01 || abs(p.Y-b.Y-b.H) < 0.01)
	}
	for i, e := range edges {
		pts := r.Edges[i]
		if e.From == e.To {
			continue
		}
		if len(pts) < 2 || !on(pts[0], r.Nodes[e.From]) || !on(pts[len(pts)-1], r.Nodes[e.To]) {
			t.Errorf("%s: edge %d (%d->%d) runs %v, not from box %+v to box %+v", name, i, e.From, e.To, pts, r.Nodes[e.From], r.Nodes[e.To])
		}
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// Random DAGs shaped like the notes' chains (a line, forks, joins, roots,
// a back edge, a self-loop) lay out without overlaps.
func TestLayoutRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range 200 {
		n := 2 + rng.IntN(30)
		sizes := make([]laySize, n)
		for i := range sizes {
			sizes[i] = laySize{W: float64(60 + rng.IntN(240)), H: float64(30 + rng.IntN(40))}
		}
		var edges []layEdge
		for i := 1; i < n; i++ {
			if rng.IntN(6) > 0 {
				edges = append(edges, layEdge{From: i - 1, To: i})
			}
			if rng.IntN(4) == 0 {
				e := layEdge{From: rng.IntN(i), To: i}
				if rng.IntN(2) == 0 {
					e.Label = laySize{W: float64(20 + rng.IntN(120)), H: 15}
				}
				edges = append(edges, e)
			}
		}
		if n > 3 && rng.IntN(5) == 0 {
			edges = append(edges, layEdge{From: n - 1, To: rng.IntN(n - 1)}) // a cycle
		}
		if rng.IntN(8) == 0 {
			edges = append(edges, layEdge{From: 0, To: 0})
		}
		r := layered(sizes, edges)
		checkLayout(t, fmt.Sprintf("graph %d", k), sizes, edges, r)
		if t.Failed() {
			t.Fatalf("graph %d: sizes %v edges %v", k, sizes, edges)
		}
	}
}
