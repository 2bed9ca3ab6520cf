package feasible

import (
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// SendCase is what a way that hands a message off by a send in select
// sel needs of the select: that it takes that case, where the select,
// outside a loop, may take another instead (a receive, or its default
// when the channel has no room). ok is false where the send is the
// select's only way on, or the select is in a loop (which case comes
// first on each pass is not followed).
func (c *Checker) SendCase(sel *ssa.Select) (Cond, bool) {
	if inCycle(sel.Block()) || sel.Blocking && len(sel.States) < 2 {
		return Cond{}, false
	}
	for _, st := range sel.States {
		if st.Dir != types.SendOnly {
			continue
		}
		text, pos, ok := c.text.commText(st.Pos)
		if !ok {
			return Cond{}, false
		}
		return Cond{Func: sel.Parent(), Text: text, Pos: pos, Want: true, Class: State, Case: true, hop: -1}, true
	}
	return Cond{}, false
}

// Needing is r with c, a condition of state the way needs beyond the
// branches it takes, added last: a way that can run at once runs only if
// c holds. A verdict other than yes or only-if is left as it is.
func (r Result) Needing(c Cond) Result {
	if r.Verdict != Yes && r.Verdict != OnlyIf {
		return r
	}
	because := -1
	for i := range r.Conds {
		if r.Because == &r.Conds[i] {
			because = i
		}
	}
	r.Conds = append(append(make([]Cond, 0, len(r.Conds)+1), r.Conds...), c)
	switch {
	case r.Verdict == Yes:
		r.Verdict, r.Because = OnlyIf, &r.Conds[len(r.Conds)-1]
	case because >= 0:
		r.Because = &r.Conds[because]
	}
	return r
}
