// Package drift lines up the positions that reports of one study cite
// across releases: every entry, site, call hop and condition, and every
// position of the signal's layers, chains and verdicts (see Positions),
// by what each is rather than where it is.
//
// # Matching
//
// A position is named by its Ident (kind, function, what it is there) and
// its code text. Between two consecutive releases, positions with the same
// name and text are the same thing; where several share one, the one
// nearest to where the unique ones around it moved is taken. What is left
// is paired by Ident alone, nearest first: the same thing with other code,
// which makes the row "changed". A thing that is missing from some
// releases and back later with the same code is one row.
//
// A release that could not provide a module (report.Etcd.Missing) does not
// know the positions in that module's folder: they are unknown there, not
// absent, and the row's change is judged on the other releases.
package drift

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/mod/semver"

	"github.com/srctrace/srctrace/trace/report"
)

// Compute lines up the positions of reps, one report per release of one
// study. The releases are put in semver order, whatever the order of reps.
func Compute(reps []*report.Report) *report.Drift {
	reps = append([]*report.Report(nil), reps...)
	sort.SliceStable(reps, func(i, j int) bool {
		return semver.Compare(reps[i].Etcd.Version, reps[j].Etcd.Version) < 0
	})
	d := &report.Drift{Releases: []string{}, Refs: []string{}, Counts: map[string]int{}, Kinds: []report.DriftKind{}, Rows: []report.DriftRow{}}
	rels := make([][]Position, len(reps))
	missing := make([][]string, len(reps))
	for i, r := range reps {
		if d.Study == "" {
			d.Study = r.Study.Name
		}
		if d.Repo == "" {
			d.Repo = r.Etcd.Repo
		}
		d.Releases = append(d.Releases, r.Etcd.Version)
		d.Refs = append(d.Refs, r.Etcd.Ref)
		for _, m := range r.Etcd.Missing {
			d.Missing = append(d.Missing, report.DriftMissing{Release: r.Etcd.Version, Module: m.Path, Folder: m.Folder, Reason: m.Reason})
			if m.Folder != "" {
				missing[i] = append(missing[i], m.Folder)
			}
		}
		rels[i] = Positions(r)
	}
	unknown := func(i int, file string) bool {
		for _, f := range missing[i] {
			if file == f || strings.HasPrefix(file, f+"/") {
				return true
			}
		}
		return false
	}

	// Link each release's positions to the next release's.
	next := make([][]int, len(rels))
	hasPrev := make([][]bool, len(rels))
	for i := range rels {
		hasPrev[i] = make([]bool, len(rels[i]))
	}
	for i := 0; i+1 < len(rels); i++ {
		next[i] = link(rels[i], rels[i+1])
		for _, k := range next[i] {
			if k >= 0 {
				hasPrev[i+1][k] = true
			}
		}
	}
	var chains []chain
	for i := range rels {
		for k := range rels[i] {
			if hasPrev[i][k] {
				continue
			}
			c := chain{}
			for ri, ki := i, k; ki >= 0; ri++ {
				c = append(c, cell{ri, ki})
				if ri+1 >= len(rels) {
					break
				}
				ki = next[ri][ki]
			}
			chains = append(chains, c)
		}
	}
	chains = joinGaps(chains, rels, unknown)

	for _, c := range chains {
		d.Rows = append(d.Rows, row(c, rels, d.Releases, unknown))
	}
	sortRows(d.Rows)
	uniqueKeys(d.Rows)
	for _, r := range d.Rows {
		d.Counts[r.Change]++
		if n := len(d.Kinds); n == 0 || d.Kinds[n-1].Kind != r.Kind {
			d.Kinds = append(d.Kinds, report.DriftKind{Kind: r.Kind, Title: title(r.Kind), Counts: map[string]int{}})
		}
		d.Kinds[len(d.Kinds)-1].Counts[r.Change]++
	}
	return d
}

// cell is position k of release r.
type cell struct{ r, k int }

// chain is one thing's positions, in release order.
type chain []cell

func (c chain) first() cell { return c[0] }
func (c chain) last() cell  { return c[len(c)-1] }

// link pairs the positions of a (one release) with those of b (the
// next): out[i] is the index in b of a[i]'s thing, or -1.
func link(a, b []Position) []int {
	out := make([]int, len(a))
	for i := range out {
		out[i] = -1
	}
	used := make([]bool, len(b))
	byKeyA, byKeyB := map[string][]int{}, map[string][]int{}
	for i, p := range a {
		byKeyA[p.key()] = append(byKeyA[p.key()], i)
	}
	for j, p := range b {
		byKeyB[p.key()] = append(byKeyB[p.key()], j)
	}
	// Unique on both sides: the same thing, and an anchor that says how
	// the lines of its file moved.
	anchors := map[string][][2]int{}
	for i, p := range a {
		ia, ib := byKeyA[p.key()], byKeyB[p.key()]
		if len(ia) == 1 && len(ib) == 1 {
			out[i], used[ib[0]] = ib[0], true
			if q := b[ib[0]]; q.File == p.File {
				anchors[p.File] = append(anchors[p.File], [2]int{p.Line, q.Line})
			}
		}
	}
	for _, as := range anchors {
		sort.Slice(as, func(i, j int) bool { return as[i][0] < as[j][0] || as[i][0] == as[j][0] && as[i][1] < as[j][1] })
	}
	predict := func(p Position) int {
		as := anchors[p.File]
		if len(as) == 0 {
			return p.Line
		}
		n := sort.Search(len(as), func(i int) bool { return as[i][0] > p.Line })
		if n > 0 {
			n--
		}
		return p.Line + as[n][1] - as[n][0]
	}
	cost := func(p, q Position) int {
		if p.File != q.File {
			return 1<<20 + abs(p.Line-q.Line)
		}
		return abs(predict(p) - q.Line)
	}
	// Then the same name and text where it repeats, then the same name
	// with other text: nearest first.
	for _, group := range []func(Position) string{Position.key, Position.Ident} {
		type cand struct{ i, j, cost int }
		var cands []cand
		left := map[string][]int{}
		for j, q := range b {
			if !used[j] {
				left[group(q)] = append(left[group(q)], j)
			}
		}
		for i, p := range a {
			if out[i] >= 0 {
				continue
			}
			for _, j := range left[group(p)] {
				cands = append(cands, cand{i, j, cost(p, b[j])})
			}
		}
		sort.Slice(cands, func(x, y int) bool {
			cx, cy := cands[x], cands[y]
			if cx.cost != cy.cost {
				return cx.cost < cy.cost
			}
			if cx.i != cy.i {
				return cx.i < cy.i
			}
			return cx.j < cy.j
		})
		for _, c := range cands {
			if out[c.i] < 0 && !used[c.j] {
				out[c.i], used[c.j] = c.j, true
			}
		}
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// joinGaps joins a chain that ends before the last release to a later one
// that starts after a gap: with the same name and text, or, where every
// release of the gap does not know the file, with the same name.
func joinGaps(chains []chain, rels [][]Position, unknown func(int, string) bool) []chain {
	sort.SliceStable(chains, func(i, j int) bool { return chains[i].first().r < chains[j].first().r })
	taken := make([]bool, len(chains))
	var out []chain
	for i := range chains {
		if taken[i] {
			continue
		}
		c := chains[i]
		for {
			end := c.last()
			p := rels[end.r][end.k]
			best, bestCost := -1, 0
			for j := range chains {
				s := chains[j].first()
				if taken[j] || j == i || s.r <= end.r+1 {
					continue
				}
				q := rels[s.r][s.k]
				cost := 0
				switch {
				case q.key() == p.key():
				case q.Ident() == p.Ident() && gapUnknown(end.r, s.r, p.File, unknown):
					cost = 1
				default:
					continue
				}
				cost = cost<<30 + s.r<<20 + min(abs(q.Line-p.Line), 1<<20-1)
				if best < 0 || cost < bestCost {
					best, bestCost = j, cost
				}
			}
			if best < 0 {
				break
			}
			taken[best] = true
			c = append(c, chains[best]...)
		}
		out = append(out, c)
	}
	return out
}

func gapUnknown(from, to int, file string, unknown func(int, string) bool) bool {
	for r := from + 1; r < to; r++ {
		if !unknown(r, file) {
			return false
		}
	}
	return true
}

// row is the drift row of one chain.
func row(c chain, rels [][]Position, releases []string, unknown func(int, string) bool) report.DriftRow {
	first := rels[c.first().r][c.first().k]
	r := report.DriftRow{Kind: first.Kind, Function: first.Function, What: first.What, At: make([]string, len(releases))}
	r.Key = key(first)
	texts := make([]string, len(releases))
	have := make([]bool, len(releases))
	for _, x := range c {
		p := rels[x.r][x.k]
		r.At[x.r] = fmt.Sprintf("%s:%d", p.File, p.Line)
		texts[x.r], have[x.r] = p.Text, true
	}
	// there is, per release, 1 where the thing is, 0 where it is not, -1
	// where the release does not know.
	type state struct {
		at, text string
		unknown  bool
	}
	states := make([]state, len(releases))
	there := make([]int, len(releases))
	for i := range releases {
		switch {
		case have[i]:
			states[i], there[i] = state{at: r.At[i], text: texts[i]}, 1
		case unknown(i, first.File):
			states[i], there[i] = state{unknown: true}, -1
		}
	}
	for i := 0; i < len(releases); {
		j := i
		for j+1 < len(releases) && states[j+1] == states[i] {
			j++
		}
		s := states[i]
		r.Spans = append(r.Spans, report.DriftSpan{From: releases[i], To: releases[j], At: s.at, Text: s.text, Unknown: s.unknown})
		i = j + 1
	}
	r.Change = change(there, texts, r.At)
	return r
}

// change judges a row on the releases that know it.
func change(there []int, texts, at []string) string {
	var known []int
	for i, t := range there {
		if t >= 0 {
			known = append(known, i)
		}
	}
	all := true
	for _, i := range known {
		if there[i] == 0 {
			all = false
		}
	}
	first, last := known[0], known[len(known)-1]
	switch {
	case all:
		moved, changed := false, false
		for _, i := range known[1:] {
			moved = moved || at[i] != at[first]
			changed = changed || texts[i] != texts[first]
		}
		switch {
		case changed:
			return report.DriftChanged
		case moved:
			return report.DriftMoved
		}
		return report.DriftSame
	case there[first] == 1 && there[last] == 1:
		return report.DriftReturned
	case there[first] == 1:
		return report.DriftVanished
	case there[last] == 1:
		return report.DriftAppeared
	}
	return report.DriftTransient
}

// key names p without its line.
func key(p Position) string {
	scope := p.Function
	if scope == "" {
		scope = p.File
	}
	k := scope + " " + p.What
	if p.Text != "" {
		k += " `" + p.Text + "`"
	}
	return k
}

func kindOrder(kind string) int {
	for i, k := range Kinds {
		if k.Kind == kind {
			return i
		}
	}
	return len(Kinds)
}

func changeOrder(c string) int {
	for i, x := range report.DriftChanges {
		if x.Change == c {
			return i
		}
	}
	return len(report.DriftChanges)
}

func title(kind string) string {
	for _, k := range Kinds {
		if k.Kind == kind {
			return k.Title
		}
	}
	return kind
}

// sortRows orders rows by kind, change (the most telling first), key and
// places.
func sortRows(rows []report.DriftRow) {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if ka, kb := kindOrder(a.Kind), kindOrder(b.Kind); ka != kb || a.Kind != b.Kind {
			if ka != kb {
				return ka < kb
			}
			return a.Kind < b.Kind
		}
		if ca, cb := changeOrder(a.Change), changeOrder(b.Change); ca != cb {
			return ca < cb
		}
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		return strings.Join(a.At, " ") < strings.Join(b.At, " ")
	})
}

// uniqueKeys numbers the rows of one kind that share a key, "#2", "#3",
// in the order of where they first are.
func uniqueKeys(rows []report.DriftRow) {
	groups := map[[2]string][]int{}
	var order [][2]string
	for i, r := range rows {
		k := [2]string{r.Kind, r.Key}
		if len(groups[k]) == 0 {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		sort.SliceStable(g, func(a, b int) bool { return firstAt(rows[g[a]]).before(firstAt(rows[g[b]])) })
		for n, i := range g[1:] {
			rows[i].Key += fmt.Sprintf(" #%d", n+2)
		}
	}
}

// where is a row's first place: the release and file:line.
type where struct {
	release int
	file    string
	line    int
}

func (a where) before(b where) bool {
	if a.release != b.release {
		return a.release < b.release
	}
	if a.file != b.file {
		return a.file < b.file
	}
	return a.line < b.line
}

func firstAt(r report.DriftRow) where {
	for i, at := range r.At {
		if at == "" {
			continue
		}
		n := strings.LastIndexByte(at, ':')
		line, _ := strconv.Atoi(at[n+1:])
		return where{i, at[:n], line}
	}
	return where{release: len(r.At)}
}
