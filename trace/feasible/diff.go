package feasible

import "math"

// diff is a conjunction of difference constraints x - y <= c over integer
// terms, decided exactly: the conjunction is satisfiable over the
// integers iff the constraint graph (an edge y → x of weight c for each
// x - y <= c) has no negative cycle. This is the classic decision
// procedure of difference logic (Bellman–Ford over the constraint graph),
// the theory SMT solvers use for the same comparisons.
//
// Node 0 is the constant zero, so x <= c is x - 0 <= c. Each edge keeps
// the reason that added it, so a contradiction names the constraints
// that make it.
type diff struct {
	// names are the terms, by node; edges the constraints, one per
	// (from, to): only the tightest is kept. Both are shared with the
	// graphs cloned from this one: they are only appended to, and an edge
	// is tightened on a copy. (A path's graph has tens of terms: a scan
	// costs less than the maps it would take to clone.)
	names []string
	edges []dedge
}

type dedge struct {
	from, to int
	w        int64
	why      *reason
}

func newDiff() *diff {
	return &diff{names: []string{""}}
}

func (d *diff) clone() *diff {
	return &diff{names: d.names[:len(d.names):len(d.names)], edges: d.edges[:len(d.edges):len(d.edges)]}
}

// index returns the node of term t.
func (d *diff) index(t string) (int, bool) {
	for i, n := range d.names {
		if n == t {
			return i, true
		}
	}
	return 0, false
}

// edge returns the edge from → to.
func (d *diff) edge(from, to int) (int, bool) {
	for i, e := range d.edges {
		if e.from == from && e.to == to {
			return i, true
		}
	}
	return 0, false
}

// node returns the node of term t ("" is zero), adding it.
func (d *diff) node(t string) int {
	if n, ok := d.index(t); ok {
		return n
	}
	n := len(d.names)
	d.names = append(d.names, t)
	return n
}

// has reports whether term t is in the graph.
func (d *diff) has(t string) bool {
	_, ok := d.index(t)
	return ok
}

// add adds x - y <= c. It returns the reasons of a negative cycle the
// new edge closes, nil when the conjunction stays satisfiable (the edge is
// then kept; on a contradiction it is not).
func (d *diff) add(x, y string, c int64, why *reason) []*reason {
	to, from := d.node(x), d.node(y)
	if from == to {
		if c < 0 {
			return []*reason{why}
		}
		return nil
	}
	at, known := d.edge(from, to)
	if known && d.edges[at].w <= c {
		return nil // as tight a bound is known
	}
	// A negative cycle through the new edge y → x is a path x ⇝ y of
	// length < -c.
	var buf searchBuf
	dist, pred := d.shortest(to, &buf)
	if dist[from] != math.MaxInt64 && dist[from]+c < 0 {
		out := []*reason{why}
		for n := from; n != to; {
			e := d.edges[pred[n]]
			out = append(out, e.why)
			n = e.from
		}
		return out
	}
	if known {
		edges := append([]dedge(nil), d.edges...) // shared with clones
		edges[at] = dedge{from: from, to: to, w: c, why: why}
		d.edges = edges
		return nil
	}
	d.edges = append(d.edges, dedge{from: from, to: to, w: c, why: why})
	return nil
}

// implies reports whether the constraints imply x - y <= c, and the
// reasons of the path that shows it.
func (d *diff) implies(x, y string, c int64) (bool, []*reason) {
	from, ok1 := d.index(y)
	to, ok2 := d.index(x)
	if !ok1 || !ok2 {
		return false, nil
	}
	if from == to {
		return c >= 0, nil
	}
	var buf searchBuf
	dist, pred := d.shortest(from, &buf)
	if dist[to] == math.MaxInt64 || dist[to] > c {
		return false, nil
	}
	var out []*reason
	for n := to; n != from; {
		e := d.edges[pred[n]]
		out = append(out, e.why)
		n = e.from
	}
	return true, out
}

// searchBuf holds a search's results in the caller's frame for graphs
// of up to smallGraph terms (most paths' graphs are smaller).
type searchBuf struct {
	dist [smallGraph]int64
	pred [smallGraph]int
}

const smallGraph = 32

// shortest runs Bellman–Ford from src over a graph that has no negative
// cycle (every edge was added by add), returning distances and, per node,
// the edge that reaches it: in buf when the graph fits.
func (d *diff) shortest(src int, buf *searchBuf) ([]int64, []int) {
	n := len(d.names)
	dist, pred := buf.dist[:min(n, smallGraph)], buf.pred[:min(n, smallGraph)]
	if n > smallGraph {
		dist, pred = make([]int64, n), make([]int, n)
	}
	for i := range dist {
		dist[i] = math.MaxInt64
		pred[i] = -1
	}
	dist[src] = 0
	for round := 0; round < n; round++ {
		changed := false
		for i, e := range d.edges {
			if dist[e.from] == math.MaxInt64 {
				continue
			}
			if nd := dist[e.from] + e.w; nd < dist[e.to] {
				dist[e.to], pred[e.to] = nd, i
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	return dist, pred
}

// value returns the value of term t when the constraints fix it
// (t - 0 <= c and 0 - t <= -c).
func (d *diff) value(t string) (int64, bool) {
	n, ok := d.index(t)
	if !ok {
		return 0, false
	}
	var ub, db searchBuf
	up, _ := d.shortest(0, &ub)
	down, _ := d.shortest(n, &db)
	if up[n] == math.MaxInt64 || down[0] == math.MaxInt64 || up[n] != -down[0] {
		return 0, false
	}
	return up[n], true
}

// bound is the least c such that the constraints imply x - y <= c.
func (d *diff) bound(x, y string) (int64, bool) {
	from, ok1 := d.index(y)
	to, ok2 := d.index(x)
	if !ok1 || !ok2 {
		return 0, false
	}
	if from == to {
		return 0, true
	}
	var buf searchBuf
	dist, _ := d.shortest(from, &buf)
	if dist[to] == math.MaxInt64 {
		return 0, false
	}
	return dist[to], true
}
