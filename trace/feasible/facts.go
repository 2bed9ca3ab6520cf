package feasible

import (
	"go/constant"
	"go/token"
	"math"
)

// fact is what the path has learned of one input term: the range of an
// integer, whether it is nil, a boolean value, a dynamic type.
type fact struct {
	lo, hi   int64 // inclusive; only when hasRange
	hasRange bool
	nilness  int // 0 unknown, 1 nil, 2 not nil
	boolean  int // 0 unknown, 1 false, 2 true
	isType   string
	typeWant bool
	// by is the condition that taught it.
	by *Cond
}

// atomFact is what `term op c` teaches.
func atomFact(op token.Token, c *value) fact {
	if c.isNil {
		switch op {
		case token.EQL:
			return fact{nilness: 1}
		case token.NEQ:
			return fact{nilness: 2}
		}
		return fact{}
	}
	switch c.c.Kind() {
	case constant.Bool:
		b := constant.BoolVal(c.c)
		switch op {
		case token.EQL:
			return fact{boolean: boolOf(b)}
		case token.NEQ:
			return fact{boolean: boolOf(!b)}
		}
	case constant.Int:
		n, ok := constant.Int64Val(c.c)
		if !ok {
			return fact{}
		}
		f := fact{hasRange: true, lo: math.MinInt64, hi: math.MaxInt64}
		switch op {
		case token.EQL:
			f.lo, f.hi = n, n
		case token.LSS:
			f.hi = n - 1
		case token.LEQ:
			f.hi = n
		case token.GTR:
			f.lo = n + 1
		case token.GEQ:
			f.lo = n
		default:
			return fact{}
		}
		return f
	}
	return fact{}
}

func boolOf(b bool) int {
	if b {
		return 2
	}
	return 1
}

// assume records that the path needs term to satisfy f; a contradiction
// with what an earlier condition taught excludes the path.
func (w *walk) assume(c *Cond, term string, f fact) {
	c.Class = Input
	old, ok := w.facts[term]
	if !ok {
		nf := f
		nf.by = c
		w.facts[term] = &nf
		return
	}
	merged := *old
	clash := false
	if f.hasRange {
		if !merged.hasRange {
			merged.lo, merged.hi, merged.hasRange = f.lo, f.hi, true
		} else {
			merged.lo, merged.hi = max(merged.lo, f.lo), min(merged.hi, f.hi)
		}
		clash = merged.lo > merged.hi
	}
	if f.nilness != 0 {
		clash = clash || (merged.nilness != 0 && merged.nilness != f.nilness)
		merged.nilness = f.nilness
	}
	if f.boolean != 0 {
		clash = clash || (merged.boolean != 0 && merged.boolean != f.boolean)
		merged.boolean = f.boolean
	}
	if f.isType != "" {
		if merged.isType != "" && merged.typeWant && f.typeWant && merged.isType != f.isType {
			clash = true
		}
		if merged.isType == f.isType && merged.typeWant != f.typeWant {
			clash = true
		}
		if f.typeWant || merged.isType == "" {
			merged.isType, merged.typeWant = f.isType, f.typeWant
		}
	}
	if clash {
		c.Class = Excluded
		c.Prior = old.by
		if old.by != nil {
			c.Why = old.by.Text
		}
		return
	}
	merged.by = c
	w.facts[term] = &merged
}

func (w *walk) saveFacts() map[string]*fact {
	out := make(map[string]*fact, len(w.facts))
	for k, v := range w.facts {
		out[k] = v
	}
	return out
}
