package feasible

import (
	"go/token"
	"sort"

	"golang.org/x/tools/go/ssa"
)

// ReasonKind says what a reason is.
type ReasonKind string

// The kinds of reasons.
const (
	ReasonCond      ReasonKind = "condition" // a branch the path takes
	ReasonGuard     ReasonKind = "guard"     // a branch of a call whose result the path tests
	ReasonForall    ReasonKind = "forall"    // what a loop of such a call checked of every element
	ReasonValue     ReasonKind = "value"     // the value a return or an assignment fixes
	ReasonInvariant ReasonKind = "invariant" // what the store keeps true
	ReasonLock      ReasonKind = "lock"      // a lock that keeps a field still between two reads
	ReasonSent      ReasonKind = "sent"      // what the sender's path checked of its request before the hand-off
	ReasonStill     ReasonKind = "still"     // a field that only a serial function's runs write, read twice in one run
)

// Reason is one part of why a condition cannot hold (or must): an earlier
// condition, a branch of a call whose result the path tests, a value, an
// invariant, a lock.
type Reason struct {
	Kind ReasonKind
	// Cond is the condition with the outcome that is needed (condition,
	// guard, forall).
	Cond *Cond
	// Text says what a reason without a condition is ("returns",
	// "assigned", the lock's sentence).
	Text string
	Pos  token.Pos
	// Via are the calls whose result the reason is about, outermost
	// first: "checkTxn(...) returned nil".
	Via       []Via
	Invariant *Invariant
	// Still, for a reason of kind still, is what keeps the field still
	// between its reads at token.Pos(Text) and Pos; with Raise, between
	// the statement Raise at token.Pos(Text), which raised it, and its
	// read at Pos.
	Still *Still
	Raise string
}

// Via is a call the path tests the result of.
type Via struct {
	Call   ssa.CallInstruction
	Callee *ssa.Function
	Text   string // the call as written
	// Returned is what the call returned on the path, as written, when
	// the return gives constants ("nil", "true"); "" otherwise.
	Returned string
}

// explain turns the walk's reasons into Reasons: one each, in the order
// of their positions, without self (the condition being refuted).
func explain(fset *token.FileSet, rs []*reason, self *Cond) []Reason {
	type key struct {
		kind ReasonKind
		pos  token.Pos
		want bool
		text string
	}
	seen := map[key]bool{}
	var out []Reason
	for _, r := range rs {
		if r == nil {
			continue
		}
		k := key{kind: r.kind, pos: r.pos, text: r.text}
		if r.cond != nil {
			k.pos, k.want = r.cond.Pos, r.cond.Want
			if self != nil && r.kind == ReasonCond && r.cond.Pos == self.Pos && r.cond.Text == self.Text {
				continue
			}
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		x := Reason{Kind: r.kind, Cond: r.cond, Text: r.text, Pos: k.pos, Invariant: r.inv}
		for _, v := range r.via {
			x.Via = append(x.Via, Via{Call: v.call, Callee: v.callee, Text: v.text, Returned: v.outcome})
		}
		out = append(out, x)
	}
	// By file and line: token positions depend on the order in which
	// packages were loaded, which is not the same on every run.
	sort.SliceStable(out, func(i, j int) bool { return posLess(fset, out[i].Pos, out[j].Pos) })
	return out
}

// posLess orders two positions by file name, line and column.
func posLess(fset *token.FileSet, a, b token.Pos) bool {
	pa, pb := fset.Position(a), fset.Position(b)
	if pa.Filename != pb.Filename {
		return pa.Filename < pb.Filename
	}
	if pa.Line != pb.Line {
		return pa.Line < pb.Line
	}
	return pa.Column < pb.Column
}
