package feasible

import (
	"go/token"
	"math/bits"
	"slices"
	"sort"

	"golang.org/x/tools/go/ssa"
)

// What the way needs of the values it reads: a value that is one of
// several (a call's returns, the value a deferred function finds its
// maker left) is one of them only under the branches that lead to it.
// Where every world the way can still take chose the same alternative,
// those branches are conditions of the way too, though no step of it
// takes them: the ones of state are listed with its conditions. Where
// the worlds took different alternatives, the branches that lead to
// every one of those are (a call that fails two ways, each after the
// same test of state: a way that needs it to fail needs that test).

// noteAlts records a value of several alternatives that a world chose
// among.
func (w *walk) noteAlts(v *value) {
	if w.alts == nil {
		w.alts = map[altKey]*value{}
	}
	if _, ok := w.alts[v.key]; !ok {
		w.alts[v.key] = v
	}
}

// needed are the conditions of state, and of the request, that the
// alternatives every remaining world chose need, other than those in cs
// (each marked late: the way does not meet it where it is listed).
func (w *walk) needed(cs []Cond) []Cond {
	if len(w.worlds) == 0 || len(w.alts) == 0 {
		return nil
	}
	// The alternatives the worlds took of each value every one of them
	// took one of, as bits.
	var common map[altKey]uint64
	for i, wd := range w.worlds {
		took := map[altKey]uint64{}
		for c := wd.choice; c != nil; c = c.next {
			if _, ok := took[c.k]; !ok && c.i < 64 {
				took[c.k] = 1 << uint(c.i)
			}
		}
		for t := wd.took; t != nil; t = t.next {
			if _, ok := took[t.k]; !ok {
				took[t.k] = t.set
			}
		}
		if i == 0 {
			common = took
			continue
		}
		for k := range common {
			s, ok := took[k]
			if !ok {
				delete(common, k)
				continue
			}
			common[k] |= s
		}
	}
	type edge struct {
		ifi  *ssa.If
		want bool
	}
	have := map[edge]bool{}
	for _, c := range cs {
		if c.If != nil {
			have[edge{c.If, c.Want}] = true
		}
	}
	var out []Cond
	for _, k := range sortedKeys(common) {
		v := w.alts[k]
		if v == nil {
			continue
		}
		var idxs []int
		for i := range v.alts {
			if i < 64 && common[k]&(1<<uint(i)) != 0 {
				idxs = append(idxs, i)
			}
		}
		if len(idxs) == 0 || bits.Len64(common[k]) > len(v.alts) {
			continue
		}
		// The branches of the first that every other one taken shares.
		shared := func(g guard) bool {
			for _, i := range idxs[1:] {
				if !slices.ContainsFunc(v.alts[i].guards, func(h guard) bool { return h.ifi == g.ifi && h.want == g.want }) {
					return false
				}
			}
			return true
		}
		for _, g := range v.alts[idxs[0]].guards {
			if g.tmpl != nil || g.ifi == nil || g.fr == nil || !shared(g) {
				continue
			}
			// A branch whose other side only panics is no condition, as
			// on the way itself (decide): a way assumes no panic.
			if onlyPanics(notTaken(g.ifi, g.want), 0) {
				continue
			}
			// Nor is the test by which a loop that carries its value
			// from pass to pass ends (decide).
			if loopExit(g.ifi, g.want) {
				continue
			}
			text, pos, flip := w.c.text.condText(g.ifi)
			isCase := false
			if b, ok := g.ifi.Cond.(*ssa.BinOp); ok {
				_, _, isCase = selectCase(b)
			}
			if (text == "" || !pos.IsValid()) && !isCase {
				continue // a branch with no source (a wrapper's)
			}
			cd := Cond{Func: g.fr.fn, If: g.ifi, Text: text, Pos: pos, Want: g.want != flip}
			if have[edge{g.ifi, cd.Want}] {
				continue
			}
			w.classify(g.fr, &cd, g.ifi.Cond, g.want)
			if isCase && !cd.Case {
				continue // a case the way passes over, or a select in a loop
			}
			text, pos = cd.Text, cd.Pos
			if errTest(g.ifi.Cond) && (cd.Class == Input || cd.Class == Ordinary) {
				// A check the value needs passed or failed, as on the way
				// (decide); another test of an error is not listed.
				w.checkCall(g.fr, &cd, g.ifi.Cond, g.want, nil)
				w.erred(g.fr, &cd, g.ifi.Cond, g.want)
				if cd.check() == "" && cd.Erred == "" {
					continue
				}
			} else if cd.Class != State && cd.Class != Input || takesRequest(g.fr, g.ifi.Cond, 0) {
				continue
			}
			have[edge{g.ifi, cd.Want}] = true
			cd.Whole = w.c.text.whole(pos, text)
			cd.Fields = fieldsRead(g.ifi.Cond)
			if len(g.via) > 0 {
				cd.Inside = g.via[len(g.via)-1].text
			}
			for _, v := range g.via {
				cd.within = append(cd.within, v.call)
			}
			cd.late = true
			cd.hop, cd.at, cd.meet = w.meetAt(g.fr, pos)
			// What carries a handed request, tested before its dispatch, is
			// not the request's (as on the way, decide).
			cd.unasked = (cd.Class == Input || cd.check() != "") && w.beforeMessage(g.fr)
			out = append(out, cd)
		}
	}
	return out
}

// sortedKeys are the keys of m in a fixed order: by frame, then by the
// value's position and name, then by the pure call's name.
func sortedKeys[V any](m map[altKey]V) []altKey {
	keys := make([]altKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.frame != b.frame {
			return a.frame < b.frame
		}
		pa, pb, na, nb := token.NoPos, token.NoPos, "", ""
		if a.v != nil {
			pa, na = a.v.Pos(), a.v.Name()
		}
		if b.v != nil {
			pb, nb = b.v.Pos(), b.v.Name()
		}
		if pa != pb {
			return pa < pb
		}
		if na != nb {
			return na < nb
		}
		return a.pure < b.pure
	})
	return keys
}

// takesRequest reports whether condition v calls a function given part
// of the request (qa.q.Available(r)): what it computes of the request is
// not followed, so it may hold on every run of the way (a request that
// costs nothing), and it is not listed as a condition of state.
func takesRequest(fr *frame, v ssa.Value, depth int) bool {
	if depth > 4 {
		return false
	}
	switch x := v.(type) {
	case *ssa.UnOp:
		return takesRequest(fr, x.X, depth+1)
	case *ssa.BinOp:
		return takesRequest(fr, x.X, depth+1) || takesRequest(fr, x.Y, depth+1)
	case *ssa.Extract:
		return takesRequest(fr, x.Tuple, depth+1)
	case *ssa.Call:
		for _, a := range x.Call.Args {
			if ofInput(fr.eval(a)) {
				return true
			}
		}
	}
	return false
}

// ofInput reports whether v is the request's, or holds it (a pointer to
// a part of it).
func ofInput(v *value) bool { return v.org == input || v.inner != nil && v.inner.org == input }

// mapOfState reports whether map m, which a loop ranges over, holds
// server state: read from it, or made on the path and handed only to
// calls given no part of the request, which the way does not follow
// into (a restore's map of the stored keys' leases, which a call fills
// from the keys it is given). A map the path fills itself, or hands on
// otherwise, is not.
func mapOfState(fr *frame, m ssa.Value) bool {
	if v := fr.eval(m); v.org == state {
		return true
	}
	mk, ok := m.(*ssa.MakeMap)
	if !ok {
		return false
	}
	filled := false
	for _, r := range *mk.Referrers() {
		switch u := r.(type) {
		case *ssa.DebugRef, *ssa.Range, *ssa.Lookup:
		case *ssa.Call:
			for _, a := range u.Call.Args {
				if a == m {
					continue
				}
				if v := fr.eval(a); v.org == unknown || ofInput(v) {
					return false
				}
			}
			filled = true
		default:
			return false
		}
	}
	return filled
}
