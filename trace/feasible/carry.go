package feasible

import (
	"go/types"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// carried is what every world of a sender's path knows, where it hands
// its message off, of the parts of the message that are its root's
// request (a parameter the root was given, and that request's fields):
// the receiver, given that message, starts knowing it too. The request
// is the client's and the message is a copy of it: what the sender
// checked of a field still holds at the receiver when no store to that
// field can run on the sender's path after the check. Facts of the
// server's state, of values the sender computed, and of anything read
// under a name the receiver could give its own values are left behind.
type carried struct {
	roots []string
	facts []termFact
	edges []carriedEdge
	neq   []neq
}

type carriedEdge struct {
	x, y string
	c    int64
	why  *reason
}

// rootTerm matches the term of a path root's parameter.
var rootTerm = regexp.MustCompile(`^p[0-9]+:[^.@]+$`)

// requestTerms adds to out the roots' parameters that v (to depth levels
// of frozen fields) holds, or holds a field of.
func requestTerms(v *value, depth int, out map[string]bool) {
	if v == nil || depth < 0 {
		return
	}
	if v.org == input && !strings.Contains(v.term, "@") {
		if root, _, _ := strings.Cut(v.term, "."); rootTerm.MatchString(root) {
			out[root] = true
		}
	}
	switch v.kind {
	case kObj:
		if v.obj != nil {
			for _, f := range v.obj.frozen {
				requestTerms(f, depth-1, out)
			}
		}
	case kNonNil:
		requestTerms(v.inner, depth, out)
	}
}

// carry is what every world in ws, at the end of a sender's path through
// frames (the root's first), knows of the request terms of the message
// v; nil when it knows nothing of them.
func carry(ws []*world, frames []*frame, v *value) *carried {
	if len(ws) == 0 {
		return nil
	}
	held := map[string]bool{}
	requestTerms(v, 3, held)
	if len(held) == 0 {
		return nil
	}
	c := &carried{}
	reqs := map[string]types.Type{} // each request's type, from the root's parameter
	for r := range held {
		c.roots = append(c.roots, r)
		if len(frames) > 0 {
			reqs[r] = paramType(frames[0].fn, r)
		}
	}
	sortStrings(c.roots)
	// keep says whether a constraint of term tm, added for why, still
	// holds at the hand-off.
	keep := func(tm string, why *reason) bool {
		if tm == "" {
			return true // zero
		}
		if strings.Contains(tm, "@") {
			return false
		}
		for _, r := range c.roots {
			if tm == r {
				return true
			}
			if rest, ok := strings.CutPrefix(tm, r+"."); ok {
				field, _, _ := strings.Cut(rest, ".")
				return !storedAfter(frames, reqs[r], field, why)
			}
		}
		return false
	}
	j := ws[0]
	for _, o := range ws[1:] {
		j = joinWorlds(j, o)
	}
	var facts []termFact
	j.facts.each(func(tm string, f *fact) {
		if tm != "" && keep(tm, f.by) {
			facts = append(facts, termFact{tm, f})
		}
	})
	sortTermFacts(facts)
	c.facts = facts
	for _, e := range j.d.edges {
		x, y := j.d.names[e.to], j.d.names[e.from]
		if (x != "" || y != "") && keep(x, e.why) && keep(y, e.why) {
			c.edges = append(c.edges, carriedEdge{x, y, e.w, e.why})
		}
	}
	for _, n := range j.neq {
		if (n.x != "" || n.y != "") && keep(n.x, n.why) && keep(n.y, n.why) {
			c.neq = append(c.neq, n)
		}
	}
	if len(c.facts) == 0 && len(c.edges) == 0 && len(c.neq) == 0 {
		return nil
	}
	return c
}

// storedAfter reports whether a function of the path (frames) can store
// to field of a value of type req (of any struct type, when req is nil)
// after the check why is: in the
// check's own function, a store in a block the check's branch leads to;
// in any other function of the path, any store. A check of unknown place
// counts as before every store.
func storedAfter(frames []*frame, req types.Type, field string, why *reason) bool {
	if req != nil {
		if p, ok := req.Underlying().(*types.Pointer); ok {
			req = p.Elem()
		}
	}
	var from *ssa.BasicBlock
	var fn *ssa.Function
	if why != nil && why.cond != nil && why.cond.taken != nil {
		from = why.cond.taken
		fn = from.Parent()
	}
	for _, fr := range frames {
		var reach map[*ssa.BasicBlock]bool
		if fr.fn == fn && from != nil {
			reach = reachable(from)
		}
		for _, b := range fr.fn.Blocks {
			if reach != nil && !reach[b] {
				continue
			}
			for _, ins := range b.Instrs {
				st, ok := ins.(*ssa.Store)
				if !ok {
					continue
				}
				fa, ok := st.Addr.(*ssa.FieldAddr)
				if !ok {
					continue
				}
				fv := fieldVar(fa.X.Type(), fa.Field)
				x := fa.X.Type()
				if p, ok := x.Underlying().(*types.Pointer); ok {
					x = p.Elem()
				}
				if fv != nil && fv.Name() == field && (req == nil || types.Identical(x, req)) {
					return true
				}
			}
		}
	}
	return false
}

// reachable is the blocks from b on.
func reachable(b *ssa.BasicBlock) map[*ssa.BasicBlock]bool {
	seen := map[*ssa.BasicBlock]bool{}
	stack := []*ssa.BasicBlock{b}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		stack = append(stack, x.Succs...)
	}
	return seen
}

// sent is a sender's reason as the receiver sees it.
func sent(r *reason) *reason {
	if r == nil {
		return &reason{kind: ReasonSent}
	}
	s := *r
	s.kind = ReasonSent
	return &s
}

// receive adds what the sender knew of its request to w, the first world
// of a receiver's path whose root names its parameters params. A request
// term that the receiver's root could name one of its own parameters by
// is left out.
func (c *carried) receive(w *world, params []string) {
	if c == nil {
		return
	}
	clash := func(t string) bool {
		for _, p := range params {
			if t == p || strings.HasPrefix(t, p+".") {
				return true
			}
		}
		return false
	}
	for _, f := range c.facts {
		if clash(f.t) {
			continue
		}
		nf := *f.f
		nf.by = nil
		w.addFact(f.t, nf, sent(f.f.by))
	}
	for _, e := range c.edges {
		if clash(e.x) || clash(e.y) {
			continue
		}
		w.addDiff(e.x, e.y, e.c, sent(e.why))
	}
	for _, n := range c.neq {
		if clash(n.x) || clash(n.y) {
			continue
		}
		w.addNeq(n.x, n.y, n.c, sent(n.why))
	}
}

// paramTerm is the term of a path root's parameter p: "p1:r".
func paramTerm(i int, name string) string { return "p" + strconv.Itoa(i) + ":" + name }

// paramTerms are the terms a path root names its parameters by.
func paramTerms(fn *ssa.Function) []string {
	var out []string
	for i, p := range fn.Params {
		out = append(out, paramTerm(i, p.Name()))
	}
	return out
}

func sortTermFacts(fs []termFact) {
	sort.Slice(fs, func(i, j int) bool { return fs[i].t < fs[j].t })
}

// paramType is the type of fn's parameter that term names (nil when it
// names none).
func paramType(fn *ssa.Function, term string) types.Type {
	for i, p := range fn.Params {
		if paramTerm(i, p.Name()) == term {
			return p.Type()
		}
	}
	return nil
}
