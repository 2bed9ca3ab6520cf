package feasible

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// What a map read back from what the server holds names in another map.
// A restore makes a map, hands it to calls that fill it from stored data
// (each key's lease, say), and then ranges over it, looking each value up
// in a map of its own (the lessor's leases). Whether the stored data can
// name a key the second map lacks is a question about what the server
// wrote earlier, which the analysis does not follow: a way that needs
// the lookup to miss is not decided (Unknown), rather than an only-if
// whose condition may never hold.

// ReadBack is the Why of a path's condition of class Gave when the way
// needs a key missing from a map, where the key is a value ranged from a
// map the path made and handed to calls that fill it from what the
// server holds (Cond.Back): whether what they read back can name a key
// the first map lacks is not decided.
const ReadBack = "read back"

// ReadBackMap is the map a key the way needs missing was ranged from:
// as written where it is ranged over, where the path made it, and the
// calls it was handed to.
type ReadBackMap struct {
	Text   string
	Made   token.Pos
	Fills  []string
	FillAt []token.Pos
}

// readBackNeeded makes an OnlyIf or Yes result Unknown when the way
// needs a key missing from a map field, where the key is a value of a
// range over a map the path made and handed only to calls given nothing
// of the request, which fill it (mapOfState).
func (w *walk) readBackNeeded(res Result) Result {
	for i := len(res.Conds) - 1; i >= 0; i-- {
		c := &res.Conds[i]
		lk, _, b, fr, ok := w.missedLookup(c)
		if !ok {
			continue
		}
		src, at, _ := w.origin(fr, lk.Index)
		rg, ok := rangedFrom(src)
		if !ok || at == nil {
			continue
		}
		mk, isMake := rg.X.(*ssa.MakeMap)
		if !isMake || !mapOfState(at, mk) {
			continue
		}
		back := &ReadBackMap{Text: w.c.text.mapName(rg), Made: mk.Pos()}
		if back.Text == "" {
			continue
		}
		for _, r := range *mk.Referrers() {
			if call, isCall := r.(*ssa.Call); isCall {
				back.Fills = append(back.Fills, w.c.text.callText(call))
				back.FillAt = append(back.FillAt, call.Pos())
			}
		}
		cond := Cond{Class: Gave, Why: ReadBack, Func: c.Func, Pos: c.Pos, Text: c.Text, Back: back,
			Reads: []token.Pos{rangePos(rg), lk.Pos()}}
		return gaveOn(res, cond, []*Cond{c}, b)
	}
	return res
}

// rangedFrom is the range over a map that v, a key or a value of its
// iteration, comes from.
func rangedFrom(v ssa.Value) (*ssa.Range, bool) {
	e, ok := v.(*ssa.Extract)
	if !ok || e.Index == 0 {
		return nil, false
	}
	nx, ok := e.Tuple.(*ssa.Next)
	if !ok || nx.IsString {
		return nil, false
	}
	rg, ok := nx.Iter.(*ssa.Range)
	if !ok {
		return nil, false
	}
	if _, isMap := rg.X.Type().Underlying().(*types.Map); !isMap {
		return nil, false
	}
	return rg, true
}

// rangePos is where a range statement over a map is: the range
// instruction's, or the map's when it has none.
func rangePos(rg *ssa.Range) token.Pos {
	if rg.Pos().IsValid() {
		return rg.Pos()
	}
	return rg.X.Pos()
}
