package feasible

import (
	"go/token"
	"go/types"
	"sort"
	"strconv"

	"golang.org/x/tools/go/ssa"
)

// What the store keeps true of the order of one integer field's values:
// that it never goes down. A field never goes down when every write of
// it in the loaded program stores the field's own value plus one that is
// not negative (a counter), a value that a branch the write is under has
// just found above, or at or above, the field's value of the same struct
// (a raise: `if x < y { x = y }`), or a value into a struct its function
// has just made (the field's first value). Then a read of the field is
// never below an earlier read of the same struct's field on the same run:
// a revision checked against a read view, then used in a write
// transaction begun after the view, is never past the transaction's
// revision.
//
// A write of any other value (a constant into a struct made elsewhere, a
// value received from a channel or decoded from stored data) may lower
// the field: the order is then assumed, not found, and a way that could
// run only with a later read below an earlier one is not decided
// (Unknown). The analysis does not ask whether a reader can see the
// field between such a write and the next raise (a restore that holds
// the store's lock throughout, say).
//
// Which read comes first is decided by where the path makes them: both
// in calls (or the path's own steps) of one function's frame, the first
// read in a call that returns before the second's begins, its block
// dominating the second's. Reads of one struct are reads through the
// same term of the path, where a field on the way to the struct that is
// set only when its struct is made is the same value at every read (the
// store a wrapper embeds).

// growsKey names a field's order among the invariants the checkers
// share.
func growsKey(f *types.Var) invKey { return invKey{a: f, b: f} }

// grows is the order of integer field f (it never goes down): nil when
// the analysis cannot see every write, or no write of it grows it; one
// with Unbounded writes when some writes may lower it.
func (c *Checker) grows(f *types.Var) *Invariant {
	return c.shared.once(growsKey(f), func() *Invariant { return c.findGrows(f) })
}

func (c *Checker) findGrows(f *types.Var) *Invariant {
	if !isInteger(f.Type()) || !c.seesAllWrites(f) || c.index().addrTaken[f] || c.structStored(f) {
		return nil
	}
	ws := c.sortedWrites(f)
	if len(ws) == 0 {
		return nil
	}
	inv := &Invariant{A: f, Grows: true}
	grew := false
	for _, st := range ws {
		why, keeps, grows := c.orderWrite(f, st)
		grew = grew || grows
		if keeps {
			inv.Writes = append(inv.Writes, c.invariantWrite(st, why, false))
		} else {
			inv.Unbounded = append(inv.Unbounded, c.invariantWrite(st, why, true))
		}
	}
	if !grew {
		return nil
	}
	return inv
}

// structStored reports whether a whole value of the struct that declares
// f is stored anywhere (`*s = T{}`): a write of f that no field store
// shows.
func (c *Checker) structStored(f *types.Var) bool {
	owner := c.owner(f)
	if owner == nil {
		return true
	}
	for _, st := range c.index().structs {
		if rootAlloc(st.Addr) == nil && containsByValue(st.Val.Type(), owner, 0) {
			return true
		}
	}
	return false
}

// orderWrite says how write st of f keeps it from going down: keeps is
// false when the analysis does not show that it does (why then says what
// the value is); grows is true for a write that adds to the field or
// raises it.
func (c *Checker) orderWrite(f *types.Var, st *ssa.Store) (why string, keeps, grows bool) {
	fa, _ := st.Addr.(*ssa.FieldAddr)
	if fa == nil {
		return "a value the analysis does not bound", false, false
	}
	if madeWrite(st) {
		return "its first value when its struct is made", true, false
	}
	if x, ok := st.Val.(*ssa.BinOp); ok && x.Op == token.ADD {
		for _, p := range [][2]ssa.Value{{x.X, x.Y}, {x.Y, x.X}} {
			if readsFieldOf(p[0], f, fa.X) && nothingBetween(p[0], st) {
				if _, nn := nonNeg(f, p[1], st.Block(), map[*ssa.Phi]bool{}, 0); nn {
					return "its own value plus a value not below 0", true, true
				}
			}
		}
	}
	if why := raisedOver(f, fa.X, st, st.Block()); why != "" {
		return why, true, true
	}
	if _, isConst := st.Val.(*ssa.Const); isConst {
		return "a constant, which may be below the field's value", false, false
	}
	return c.valueText(st.Val), false, false
}

// madeWrite reports whether st stores into a struct its function has
// just allocated, before anything could see it: in the allocation's
// block, after it, with no instruction between them that hands the
// struct's address on (a call, a send, a store of it, a conversion to an
// interface). A later write into it, once others may hold it, may lower
// a field.
func madeWrite(st *ssa.Store) bool {
	a := rootAlloc(st.Addr)
	if a == nil || a.Block() != st.Block() {
		return false
	}
	seen := false
	for _, ins := range st.Block().Instrs {
		if ins == ssa.Instruction(a) {
			seen = true
			continue
		}
		if ins == ssa.Instruction(st) {
			return seen
		}
		if !seen {
			continue
		}
		for _, op := range ins.Operands(nil) {
			if op == nil || *op == nil || rootAllocOf(*op) != a {
				continue
			}
			switch x := ins.(type) {
			case *ssa.FieldAddr:
			case *ssa.Store:
				if x.Addr != *op {
					return false // the address is stored somewhere
				}
			default:
				return false
			}
		}
	}
	return false
}

// rootAllocOf is the allocation v is the address of (or of a field of).
func rootAllocOf(v ssa.Value) *ssa.Alloc {
	switch x := v.(type) {
	case *ssa.Alloc:
		return x
	case *ssa.FieldAddr:
		return rootAlloc(x)
	}
	return nil
}

// nothingBetween reports whether, from the load read to the store st, a
// run passes nothing that could let another write of the field in: read
// is in st's block or in a block on a chain of single predecessors above
// it, and no call, channel operation or select lies between them (a lock
// released and taken again is a call).
func nothingBetween(read ssa.Value, st *ssa.Store) bool {
	ri, ok := read.(ssa.Instruction)
	if !ok || ri.Block() == nil {
		return false
	}
	blocks := []*ssa.BasicBlock{st.Block()}
	for b := st.Block(); b != ri.Block(); {
		if len(b.Preds) != 1 || len(blocks) > 16 {
			return false
		}
		b = b.Preds[0]
		blocks = append(blocks, b)
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		started := i != len(blocks)-1
		for _, ins := range b.Instrs {
			if ins == ri {
				started = true
				continue
			}
			if ins == ssa.Instruction(st) {
				return started
			}
			if !started {
				continue
			}
			switch x := ins.(type) {
			case ssa.CallInstruction, *ssa.Send, *ssa.Select:
				return false
			case *ssa.UnOp:
				if x.Op == token.ARROW {
					return false
				}
			}
		}
	}
	return false
}

// readsFieldOf reports whether v is a load of field f of struct pointer
// base.
func readsFieldOf(v ssa.Value, f *types.Var, base ssa.Value) bool {
	u, ok := v.(*ssa.UnOp)
	if !ok || u.Op != token.MUL {
		return false
	}
	fa, ok := u.X.(*ssa.FieldAddr)
	return ok && fieldVar(fa.X.Type(), fa.Field) == f && canon(fa.X) == canon(base)
}

// raisedOver says how a branch of a block that dominates st's has found
// the value st stores above (or at or above) field f of base, read with
// nothing between the read and st that could let another write in; ""
// when none has.
func raisedOver(f *types.Var, base ssa.Value, st *ssa.Store, at *ssa.BasicBlock) string {
	return dominatingTest(at, func(cmp *ssa.BinOp, op token.Token) string {
		y, ok := orient(op, cmp.X, cmp.Y, st.Val)
		if !ok || !readsFieldOf(y, f, base) || !nothingBetween(y, st) {
			return ""
		}
		if op == token.GTR || op == token.LSS {
			return "a value a branch it is under found above the field's value"
		}
		return "a value a branch it is under found at or above the field's value"
	})
}

// stableTerm is term t with each read of a field that is set only when
// its struct is made named without the read: the same value wherever it
// is read (the store a wrapper embeds); an embedded one is left out.
func (w *walk) stableTerm(t string, owner *types.Named) string {
	return w.stableTerm1(t, owner, 0)
}

func (w *walk) stableTerm1(t string, owner *types.Named, depth int) string {
	ti, ok := w.terms[t]
	if !ok || ti.read == nil || depth > 8 || !w.c.setWhenMade(ti.read.field) {
		return t
	}
	f := ti.read.field
	if f.Anonymous() && owner != nil {
		// A method promoted through the embedded field is called on the
		// outer struct's term (the wrapper's read is not made): the same
		// struct for the order of its reads, when the outer struct
		// embeds the reads' struct by one way only.
		if outer := w.c.owner(f); outer != nil && embedPaths(outer, owner, 0) == 1 {
			return w.stableTerm1(ti.read.base, owner, depth+1)
		}
	}
	return w.stableTerm1(ti.read.base, nil, depth+1) + "." + f.Name()
}

// embedPaths counts the ways struct type s embeds named type n, through
// its embedded fields (by value or by pointer).
func embedPaths(s, n *types.Named, depth int) int {
	st, ok := s.Underlying().(*types.Struct)
	if !ok || depth > 6 {
		return 0
	}
	count := 0
	for i := 0; i < st.NumFields(); i++ {
		fd := st.Field(i)
		if !fd.Anonymous() {
			continue
		}
		t := fd.Type()
		if p, isP := t.Underlying().(*types.Pointer); isP {
			t = p.Elem()
		}
		m, isN := types.Unalias(t).(*types.Named)
		if !isN {
			continue
		}
		if m.Obj() == n.Obj() {
			count++
			continue
		}
		count += embedPaths(m, n, depth+1)
	}
	return count
}

// setWhenMade reports whether every write of field f stores into a
// struct its function has just made, before anything could see it
// (madeWrite): the same value at every read of one struct's.
func (c *Checker) setWhenMade(f *types.Var) bool {
	if v, ok := c.whenMade[f]; ok {
		return v
	}
	ok := c.seesAllWrites(f) && !c.index().addrTaken[f] && !c.structStored(f) && len(c.index().writes[f]) > 0
	for _, st := range c.index().writes[f] {
		if !ok {
			break
		}
		ok = madeWrite(st)
	}
	if c.whenMade == nil {
		c.whenMade = map[*types.Var]bool{}
	}
	c.whenMade[f] = ok
	return ok
}

// before reports whether read a happens before read b on every run of the
// path that makes both: in the frame where their ways from the path part,
// a's is a call (of calls) that returns before b's instruction runs, in a
// block that dominates b's (or earlier in the same block).
func before(a, b *readInfo) bool {
	return ordered(a, b, false)
}

// runsBefore is before for the runs of the path that make both reads:
// where their ways part, a's block need not dominate b's, only lead to it
// without b's leading back (a check made on one way into a join).
func runsBefore(a, b *readInfo) bool {
	return ordered(a, b, true)
}

func ordered(a, b *readInfo, onWay bool) bool {
	ca, cb := stepsOf(a), stepsOf(b)
	if len(ca) == 0 || len(cb) == 0 {
		return false
	}
	at := map[*frame]int{}
	for i, s := range ca {
		at[s.fr] = i
	}
	for _, sb := range cb {
		i, ok := at[sb.fr]
		if !ok {
			continue
		}
		ia, ib := ca[i].ins, sb.ins
		// a's way down from the common frame is of calls that return.
		for _, s := range ca[1 : i+1] {
			if _, isCall := s.ins.(*ssa.Call); !isCall {
				return false
			}
		}
		if ia == ib || ia.Block() == nil || ib.Block() == nil || ia.Parent() != ib.Parent() {
			return false
		}
		if ia.Block() == ib.Block() {
			return instrIndex(ia) < instrIndex(ib)
		}
		if onWay {
			return reachesTo(ib.Block())[ia.Block()] && !reachesTo(ia.Block())[ib.Block()]
		}
		return ia.Block().Dominates(ib.Block())
	}
	return false
}

// order adds to the worlds, for read t of a field that never goes down,
// that it is at or above every read of the same struct's field before it
// and at or below every read after it, when the order is found (one only
// assumed is tried at the way's end: see assumedFloors).
func (w *walk) order(ws []*world, t string, rd *readInfo) []*world {
	inv := w.c.grows(rd.field)
	if inv == nil || len(inv.Unbounded) > 0 {
		return ws
	}
	for _, p := range w.orderedPairs(t, rd) {
		ws = w.bound(ws, p.first, p.then, 0, p.why(inv))
	}
	return ws
}

// orderPair is two reads of one field of one struct, first before then.
type orderPair struct {
	first, then string
	at          [2]token.Pos
}

func (p orderPair) why(inv *Invariant) *reason {
	return &reason{kind: ReasonInvariant, inv: inv, pos: p.at[1], text: "order|" + strconv.Itoa(int(p.at[0]))}
}

// orderedPairs are the pairs of read t with the other reads of its field
// of the same struct whose order the path fixes.
func (w *walk) orderedPairs(t string, rd *readInfo) []orderPair {
	base := w.stableTerm(rd.base, w.c.owner(rd.field))
	var out []orderPair
	for _, o := range w.readsOf[rd.field][base] {
		{
			if o == t {
				continue
			}
			od := w.terms[o].read
			switch {
			case before(od, rd):
				out = append(out, orderPair{first: o, then: t, at: [2]token.Pos{od.at.Pos(), rd.at.Pos()}})
			case before(rd, od):
				out = append(out, orderPair{first: t, then: o, at: [2]token.Pos{rd.at.Pos(), od.at.Pos()}})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].first != out[j].first {
			return out[i].first < out[j].first
		}
		return out[i].then < out[j].then
	})
	return out
}
