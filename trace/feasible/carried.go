package feasible

import (
	"go/token"
	"go/types"
	"slices"
	"sort"

	"golang.org/x/tools/go/ssa"
)

// What a field's value can carry from an earlier read of a field that
// never goes down (order.go). When a write of integer field A stores a
// read of such a field F plus at most Off (followed through the fields,
// conversions, sums with constants, phis and the returns of calls the
// value comes by: `kv.ModRevision = tw.beginRev + 1`, where beginRev is
// a read of currentRev made when the transaction began), a value of A
// that write left carries a read of F made before A is read; so it is
// never above a read of F made after it, plus Off, when both read one
// struct's F.
//
// A way that needs A's read above a later read of F plus Off is not
// decided (Unknown): from such a write it cannot run, and the analysis
// does not decide which write left the value the way reads, nor that the
// read it carries is of the same struct's F. It never makes a way No.

// Carry is what the writes of integer field A (with Elem, the elements
// put into the slices A holds) carry from reads of field From, which
// never goes down (Order, found or assumed).
type Carry struct {
	A, From *types.Var
	Elem    bool
	Off     int64
	Order   *Invariant
	// Writes store a read of From plus at most Off; Others store other
	// values (Why says what).
	Writes, Others []InvariantWrite
	// Unseen says that code outside the loaded packages may write A;
	// Handed are calls of the loaded code that hand a pointer to A's
	// struct to such code (a decoder, say), the first few by position.
	Unseen bool
	Handed []InvariantWrite
	// Minus, for a value a sender handed off (A nil), is the field the
	// sender subtracted from the carried read (`x - s.g`, x at most a read
	// of From plus Off): the value is above a later read of From plus Off
	// only if Minus's read is below 0. Expr is the statement that
	// computes the value and First its first operand, as written;
	// MinusFloor is what keeps Minus at or above 0 (nil when the analysis
	// finds nothing), MinusWrites its writes when there is no floor.
	Minus *types.Var
	// Config, on a Minus whose every write stores a field of the
	// configuration the server is made with (configured), is that field
	// as read there: Minus may hold any value, and the carry is no
	// assumption but what the way needs of the configuration.
	Config      *ConfigField
	Expr, First string
	MinusFloor  *Invariant
	MinusWrites []InvariantWrite
}

// carryKey names a Carry: a field's, or (elem) that of the elements put
// into the slices the field holds.
type carryKey struct {
	a    *types.Var
	elem bool
}

// carried is what A's writes carry from reads of an ordered field: nil
// when none of them carries one.
func (c *Checker) carried(a *types.Var) *Carry { return c.carry(carryKey{a: a}) }

// carriedElems is what the elements put into the slices slice field a
// holds carry from reads of an ordered field: each write of a stores an
// append to a's own slice (its elements carried), a part of a's own
// slice, or nil.
func (c *Checker) carriedElems(a *types.Var) *Carry { return c.carry(carryKey{a: a, elem: true}) }

func (c *Checker) carry(k carryKey) *Carry {
	return c.shared.carry(k, func() *Carry {
		if !k.elem && isInteger(k.a.Type()) && c.grows(k.a) == nil {
			return c.findCarry(k.a)
		}
		if sl, ok := k.a.Type().Underlying().(*types.Slice); k.elem && ok && isInteger(sl.Elem()) {
			return c.findElemCarry(k.a)
		}
		return nil
	})
}

// carryWrite is one write of a field and the read it carries (from nil
// when it carries none), plus at most off.
type carryWrite struct {
	st   *ssa.Store
	from *types.Var
	off  int64
}

func (c *Checker) findElemCarry(a *types.Var) *Carry {
	var ws []carryWrite
	for _, st := range c.sortedWrites(a) {
		w := carryWrite{st: st}
		switch x := st.Val.(type) {
		case *ssa.Const:
			continue // nil: no element
		case *ssa.Slice:
			if loadsField(x.X, a) || isZero(x.High) {
				continue // a part of its own elements, or none (a make of length 0)
			}
		case *ssa.MakeSlice:
			if isZero(x.Len) {
				continue // no element
			}
		case *ssa.Call:
			if vs, ok := appended(x, a); ok {
				if r := c.carryAll(vs, 0, 0, map[ssa.Value]int64{}); r.ok && !r.cycle {
					w.from, w.off = r.from, r.off
				}
			}
		}
		ws = append(ws, w)
	}
	return c.carryOut(a, true, ws)
}

// isZero reports whether v is the integer constant 0.
func isZero(v ssa.Value) bool {
	k, ok := v.(*ssa.Const)
	if !ok {
		return false
	}
	n, exact := constInt(k)
	return exact && n == 0
}

// loadsField reports whether v is a load of field f.
func loadsField(v ssa.Value, f *types.Var) bool {
	u, ok := v.(*ssa.UnOp)
	if !ok || u.Op != token.MUL {
		return false
	}
	fa, ok := u.X.(*ssa.FieldAddr)
	return ok && fieldVar(fa.X.Type(), fa.Field) == f
}

// appended are the values call adds, when it is an append to field a's
// own slice (or to nil): the elements of the array its variadic
// arguments make.
func appended(call *ssa.Call, a *types.Var) ([]ssa.Value, bool) {
	b, ok := call.Call.Value.(*ssa.Builtin)
	if !ok || b.Name() != "append" || len(call.Call.Args) != 2 {
		return nil, false
	}
	base := call.Call.Args[0]
	if k, isK := base.(*ssa.Const); !(isK && k.IsNil()) && !loadsField(base, a) {
		return nil, false
	}
	sl, ok := call.Call.Args[1].(*ssa.Slice)
	if !ok {
		return nil, false
	}
	arr, ok := sl.X.(*ssa.Alloc)
	if !ok {
		return nil, false
	}
	var vs []ssa.Value
	for _, r := range *arr.Referrers() {
		ia, isIA := r.(*ssa.IndexAddr)
		if !isIA {
			continue
		}
		for _, rr := range *ia.Referrers() {
			if st, isSt := rr.(*ssa.Store); isSt && st.Addr == ia {
				vs = append(vs, st.Val)
			}
		}
	}
	return vs, len(vs) > 0
}

func (c *Checker) findCarry(a *types.Var) *Carry {
	var ws []carryWrite
	for _, st := range c.sortedWrites(a) {
		w := carryWrite{st: st}
		if r := c.carryOf(st.Val, 0, 0, map[ssa.Value]int64{}); r.ok && !r.cycle {
			w.from, w.off = r.from, r.off
		}
		ws = append(ws, w)
	}
	return c.carryOut(a, false, ws)
}

// carryOut makes the Carry of field a from its writes: of the field most
// of them carry (by name, when as many).
func (c *Checker) carryOut(a *types.Var, elem bool, ws []carryWrite) *Carry {
	count := map[*types.Var]int{}
	for _, w := range ws {
		if w.from != nil {
			count[w.from]++
		}
	}
	var from *types.Var
	for f, k := range count {
		if from == nil || k > count[from] || k == count[from] && f.Name() < from.Name() {
			from = f
		}
	}
	if from == nil {
		return nil
	}
	out := &Carry{A: a, Elem: elem, From: from, Order: c.grows(from), Unseen: !c.seesAllWrites(a) || c.index().addrTaken[a] || c.structStored(a)}
	if out.Unseen {
		out.Handed = c.handedOut(declaringStruct(a), 3)
	}
	first := true
	for _, w := range ws {
		if w.from == from {
			if first || w.off > out.Off {
				out.Off = w.off
			}
			first = false
			out.Writes = append(out.Writes, c.invariantWrite(w.st, "", false))
			continue
		}
		out.Others = append(out.Others, c.invariantWrite(w.st, "", false))
	}
	return out
}

// carry is what a value carries of an ordered field: a read of from
// plus at most off; cycle, a value met again on its own way with
// nothing added since (it adds nothing of its own); ok false when some
// way the value comes by ends in no read of one such field.
type carried1 struct {
	from  *types.Var
	off   int64
	cycle bool
	ok    bool
	// konst says that a constant is among the values: with from nil,
	// the values are all constants, the largest off.
	konst bool
}

var noCarry = carried1{}

// carryOf follows v to a read of a field that never goes down. acc is
// what the way from the write adds to v; seen what it added at each
// value it passed, so that a value met again with no more added is a
// cycle, not a way of its own.
func (c *Checker) carryOf(v ssa.Value, acc int64, depth int, seen map[ssa.Value]int64) carried1 {
	if at, ok := seen[v]; ok {
		if acc <= at {
			return carried1{cycle: true, ok: true}
		}
		return noCarry
	}
	if depth > 8 {
		return noCarry
	}
	seen[v] = acc
	defer delete(seen, v)
	switch x := v.(type) {
	case *ssa.Const:
		if k, exact := constInt(x); exact {
			return carried1{off: k, ok: true, konst: true}
		}
	case *ssa.Convert:
		if isInteger(x.X.Type()) {
			return c.carryOf(x.X, acc, depth, seen)
		}
	case *ssa.ChangeType:
		return c.carryOf(x.X, acc, depth, seen)
	case *ssa.BinOp:
		if x.Op != token.ADD && x.Op != token.SUB {
			return noCarry
		}
		y, k := x.X, x.Y
		if _, isK := k.(*ssa.Const); !isK && x.Op == token.ADD {
			y, k = x.Y, x.X
		}
		kc, isK := k.(*ssa.Const)
		if !isK {
			return noCarry
		}
		n, exact := constInt(kc)
		if !exact {
			return noCarry
		}
		if x.Op == token.SUB {
			n = -n
		}
		r := c.carryOf(y, acc+n, depth, seen)
		r.off += n
		return r
	case *ssa.UnOp:
		if fa, isFA := x.X.(*ssa.FieldAddr); isFA && x.Op == token.MUL {
			return c.carryField(fieldVar(fa.X.Type(), fa.Field), acc, depth, seen)
		}
		if a, isA := x.X.(*ssa.Alloc); isA && x.Op == token.MUL {
			if vs, ok := localStores(a); ok {
				return c.carryAll(vs, acc, depth, seen)
			}
		}
	case *ssa.Field:
		return c.carryField(fieldVar(x.X.Type(), x.Field), acc, depth, seen)
	case *ssa.Phi:
		return c.carryAll(x.Edges, acc, depth, seen)
	case *ssa.Call:
		return c.carryReturns(x, 0, acc, depth, seen)
	case *ssa.Extract:
		if call, isCall := x.Tuple.(*ssa.Call); isCall {
			return c.carryReturns(call, x.Index, acc, depth, seen)
		}
	}
	return noCarry
}

// localStores are the values stored in local a (a function's result
// that a defer statement makes it keep in memory, say), when a is only
// stored to and loaded.
func localStores(a *ssa.Alloc) ([]ssa.Value, bool) {
	if a.Heap {
		return nil, false
	}
	var vs []ssa.Value
	for _, r := range *a.Referrers() {
		switch x := r.(type) {
		case *ssa.Store:
			if x.Addr != a {
				return nil, false
			}
			vs = append(vs, x.Val)
		case *ssa.UnOp:
			if x.Op != token.MUL {
				return nil, false
			}
		case *ssa.DebugRef:
		default:
			return nil, false
		}
	}
	return vs, len(vs) > 0
}

// carryField follows a read of field f: a read of one that never goes
// down ends there; another is followed into every write of it, when the
// analysis sees them all.
func (c *Checker) carryField(f *types.Var, acc int64, depth int, seen map[ssa.Value]int64) carried1 {
	if f == nil || !isInteger(f.Type()) {
		return noCarry
	}
	if c.grows(f) != nil {
		return carried1{from: f, ok: true}
	}
	if !c.seesAllWrites(f) || c.index().addrTaken[f] || c.structStored(f) {
		return noCarry
	}
	ws := c.index().writes[f]
	vs := make([]ssa.Value, len(ws))
	for i, st := range ws {
		vs[i] = st.Val
	}
	return c.carryAll(vs, acc, depth+1, seen)
}

// carryAll is what every one of vs carries of one field: the most any
// adds; not ok when one carries none, or another field.
func (c *Checker) carryAll(vs []ssa.Value, acc int64, depth int, seen map[ssa.Value]int64) carried1 {
	out := carried1{cycle: true, ok: true}
	for _, v := range vs {
		r := c.carryOf(v, acc, depth, seen)
		switch {
		case !r.ok:
			return noCarry
		case r.cycle:
			continue
		case out.cycle:
			out = r
			continue
		case r.from != nil && out.from != nil && r.from != out.from:
			return noCarry
		}
		if out.from == nil {
			out.from = r.from
		}
		out.off = max(out.off, r.off)
		out.konst = out.konst || r.konst
	}
	if len(vs) == 0 {
		return noCarry
	}
	// A constant is at most a read of a field never below 0 plus itself.
	if out.from != nil && out.konst && c.floor(out.from) == nil {
		return noCarry
	}
	return out
}

// carryReturns is what result i of every function call may run returns.
func (c *Checker) carryReturns(call *ssa.Call, i int, acc int64, depth int, seen map[ssa.Value]int64) carried1 {
	fns := c.calleesOf(call)
	if len(fns) == 0 || len(fns) > 8 {
		return noCarry
	}
	var vs []ssa.Value
	for _, fn := range fns {
		if len(fn.Blocks) == 0 {
			return noCarry
		}
		for _, b := range fn.Blocks {
			// The block a recovered panic returns by is not a way: the
			// analysis takes it that the server does not panic.
			if len(b.Instrs) == 0 || b == fn.Recover {
				continue
			}
			if r, isRet := b.Instrs[len(b.Instrs)-1].(*ssa.Return); isRet && i < len(r.Results) {
				vs = append(vs, r.Results[i])
			}
		}
	}
	return c.carryAll(vs, acc, depth+1, seen)
}

// calleesOf are the functions call may run: its static callee, or the
// call graph's callees at it.
func (c *Checker) calleesOf(call *ssa.Call) []*ssa.Function {
	if fn := call.Call.StaticCallee(); fn != nil {
		return []*ssa.Function{fn}
	}
	var fns []*ssa.Function
	if c.edges != nil {
		for _, e := range c.edges(call) {
			if e.Callee != nil && e.Callee.Func != nil {
				fns = append(fns, e.Callee.Func)
			}
		}
	}
	return fns
}

// carriedReads are the carried reads of term t (read rd), when the
// field it reads carries reads of an ordered field: for each read of
// that field the path makes after rd, t is at most that read plus Off.
// Only a term a world constrains is tried.
func (w *walk) carriedReads(t string, rd *readInfo) []assumed {
	at := assumed{a: t, fn: instrFunc(rd.at), reads: []token.Pos{rd.at.Pos()}}
	return w.carryAssumptions(at, w.c.carried(rd.field), func(ud *readInfo) bool { return before(rd, ud) })
}

// sentReads are the carried reads of term t, a value handed to the path
// that its sender read (src): every read of the ordered field the path
// makes comes after the hand-off.
func (w *walk) sentReads(t string, src *readSrc) []assumed {
	cr := w.c.carried(src.field)
	if src.elem {
		cr = w.c.carriedElems(src.field)
	}
	if src.carry != nil {
		cr = src.carry
	}
	at := assumed{a: t, fn: src.fn, sent: true, reads: []token.Pos{src.pos}}
	return w.carryAssumptions(at, cr, func(*readInfo) bool { return true })
}

// carryAssumptions are x (its term, function and first read set) said
// of each read of cr's ordered field that after accepts, by base, when
// a world of the path constrains x's term.
func (w *walk) carryAssumptions(x assumed, cr *Carry, after func(*readInfo) bool) []assumed {
	if cr == nil || cr.Order == nil || len(cr.Writes) == 0 || !w.inSomeWorld(x.a) {
		return nil
	}
	bases := make([]string, 0, len(w.readsOf[cr.From]))
	for b := range w.readsOf[cr.From] {
		bases = append(bases, b)
	}
	sort.Strings(bases)
	var out []assumed
	for _, b := range bases {
		for _, u := range w.readsOf[cr.From][b] {
			if ud := w.terms[u].read; ud != nil && after(ud) {
				y := x
				y.b, y.k, y.inv, y.carry = u, cr.Off, cr.Order, cr
				y.reads = []token.Pos{x.reads[0], ud.at.Pos()}
				out = append(out, y)
			}
		}
	}
	return out
}

// noteSent notes the terms of message v (to depth levels of its frozen
// fields) that its sender read.
func (w *walk) noteSent(v *value, depth int) {
	eachSent(v, depth, func(x *value) {
		ti, known := w.terms[x.term]
		switch {
		case !known:
			w.terms[x.term] = termInfo{sent: x.sent}
		case ti.sub != nil && ti.sent == nil:
			// The sender's own difference (subSrc), met again as the
			// value the path is handed.
			ti.sent = x.sent
			w.terms[x.term] = ti
		}
	})
}

// eachSent calls f with each term of v (to depth levels of its frozen
// fields) that the path that made v read.
func eachSent(v *value, depth int, f func(*value)) {
	if v == nil || depth < 0 {
		return
	}
	if (v.kind == kTerm || v.kind == kOpaque && v.term != "") && v.sent != nil {
		f(v)
	}
	switch v.kind {
	case kObj:
		if v.obj != nil {
			for _, x := range v.obj.frozen {
				eachSent(x, depth-1, f)
			}
		}
	case kNonNil:
		eachSent(v.inner, depth, f)
	}
}

// gaveCarried makes res Unknown for carried read x, which no world of
// the way allows: the way needs the value read above what the writes
// that carry a read of the ordered field can leave.
func (w *walk) gaveCarried(res Result, x *assumed, needs []*Cond) Result {
	cr := x.carry
	if cr.Minus != nil {
		cond := Cond{Class: Gave, Why: Carried, Text: cr.Minus.Name(), Func: x.fn, Pos: x.reads[0], Carry: cr, Reads: x.reads, Sent: x.sent}
		return gaveOn(res, cond, needs, cr.From, cr.Minus)
	}
	cond := Cond{Class: Gave, Why: Carried, Text: cr.A.Name(), Func: x.fn, Pos: x.reads[0], Carry: cr, Reads: x.reads, Sent: x.sent}
	return gaveOn(res, cond, needs, cr.From, cr.A)
}

// fieldRead is the field v reads (a load of a field's address, or a
// field of a struct value); nil for any other value.
func fieldRead(v ssa.Value) *types.Var {
	switch x := v.(type) {
	case *ssa.UnOp:
		if fa, ok := x.X.(*ssa.FieldAddr); ok && x.Op == token.MUL {
			return fieldVar(fa.X.Type(), fa.Field)
		}
	case *ssa.Field:
		return fieldVar(x.X.Type(), x.Field)
	}
	return nil
}

// subSrc is what a sender's difference b, `x - s.g`, carries when x is
// at most a read of a field that never goes down plus a constant (as
// carryOf follows it: `rc.rg.Rev() - rc.retention`, where Rev returns the
// store's current revision): the value is at most that read plus the
// constant, less g. A receiver that needs the value above a later read of
// the field can have it only with g below 0; assumed not below 0, the
// value is a carried read like any other (Carry.Minus). nil when b is not
// such a difference.
func (c *Checker) subSrc(b *ssa.BinOp) *readSrc {
	g := fieldRead(b.Y)
	if g == nil || !isInteger(g.Type()) {
		return nil
	}
	r := c.carryOf(b.X, 0, 0, map[ssa.Value]int64{})
	if !r.ok || r.cycle || r.from == nil {
		return nil
	}
	cr := &Carry{From: r.from, Off: r.off, Order: c.grows(r.from), Minus: g, Expr: c.text.stmtText(b.Pos())}
	if ix := c.text.of(b.Pos()); ix != nil {
		cr.First = ix.operands[b.Pos()][0]
	}
	if cr.Expr == "" {
		cr.Expr = cr.First
	}
	// The value itself is the carried "write": where the sender computes it.
	cr.Writes = []InvariantWrite{{Pos: b.Pos(), Func: b.Parent(), Text: cr.Expr}}
	if cf := c.configured(g); cf != nil {
		// Any value the configuration's type holds: the difference may be
		// above the read, and the way is a condition of state like another,
		// which needs the field below 0 (Carry.Config).
		cr.Config = cf
		return &readSrc{field: r.from, pos: b.Pos(), fn: b.Parent(), carry: cr}
	}
	cr.MinusFloor = c.floor(g)
	if cr.MinusFloor == nil && c.seesAllWrites(g) {
		for _, st := range c.sortedWrites(g) {
			cr.MinusWrites = append(cr.MinusWrites, c.invariantWrite(st, c.valueText(st.Val), false))
		}
	}
	return &readSrc{field: r.from, pos: b.Pos(), fn: b.Parent(), carry: cr}
}

// configured reports whether every write of field g stores a value of
// the configuration the server is made with: a field of a parameter of
// the function the target says makes the server before its loops start
// (SetSerialAfter: NewServer, given its configuration by the program
// that makes it), followed through conversions and the parameters of the
// functions that hand it on (`newRevision(…, int64(retention), …)`).
// A program may give that function any configuration, so the field may
// hold any value its type holds (a compactor's retention below 0).
func (c *Checker) configured(g *types.Var) *ConfigField {
	if cf, ok := c.configs[g]; ok {
		return cf
	}
	cf := c.findConfigured(g)
	if c.configs == nil {
		c.configs = map[*types.Var]*ConfigField{}
	}
	c.configs[g] = cf
	return cf
}

func (c *Checker) findConfigured(g *types.Var) *ConfigField {
	makers := map[*ssa.Function]bool{}
	for _, a := range c.after {
		makers[a.fn] = true
	}
	if len(makers) == 0 || !c.seesAllWrites(g) {
		return nil
	}
	ws := c.sortedWrites(g)
	if len(ws) == 0 {
		return nil
	}
	var first *ConfigField
	for _, st := range ws {
		var cf ConfigField
		if !c.fromConfig(st.Val, makers, 0, &cf) {
			return nil
		}
		if first == nil {
			first = &cf
		}
	}
	return first
}

// ConfigField is a field of the configuration the server is made with,
// as the function that makes it reads it ("cfg.AutoCompactionRetention").
type ConfigField struct {
	Text string
	Pos  token.Pos
	Func *ssa.Function
}

// fromConfig reports whether v is, on every way to it, a field of a
// parameter of one of makers (through a local copy of it), followed up
// through conversions and through a parameter to what every caller
// passes.
func (c *Checker) fromConfig(v ssa.Value, makers map[*ssa.Function]bool, depth int, cf *ConfigField) bool {
	if depth > 6 {
		return false
	}
	switch x := v.(type) {
	case *ssa.Convert:
		return c.fromConfig(x.X, makers, depth+1, cf)
	case *ssa.ChangeType:
		return c.fromConfig(x.X, makers, depth+1, cf)
	case *ssa.Field:
		if name, ok := c.configStruct(x.X, makers, x); ok {
			*cf = ConfigField{Text: name + "." + fieldVar(x.X.Type(), x.Field).Name(), Pos: x.Pos(), Func: x.Parent()}
			return true
		}
	case *ssa.UnOp:
		if fa, ok := x.X.(*ssa.FieldAddr); ok && x.Op == token.MUL {
			if name, ok := c.configStruct(fa.X, makers, x); ok {
				*cf = ConfigField{Text: name + "." + fieldVar(fa.X.Type(), fa.Field).Name(), Pos: fa.Pos(), Func: x.Parent()}
				return true
			}
		}
	case *ssa.Parameter:
		fn := x.Parent()
		i := slices.Index(fn.Params, x)
		n := c.g.CG.Nodes[fn]
		if i < 0 || n == nil || len(n.In) == 0 || makers[fn] {
			return false
		}
		for _, e := range n.In {
			cm := e.Site.Common()
			if _, isGo := e.Site.(*ssa.Go); isGo || cm.IsInvoke() || cm.StaticCallee() != fn {
				return false
			}
			args := cm.Args
			if i >= len(args) || !c.fromConfig(args[i], makers, depth+1, cf) {
				return false
			}
		}
		return true
	}
	return false
}

// configStruct reports whether v, the struct a field is read from (or
// its address) by instruction at, is a parameter of one of makers, or a
// local copy whose only store is one and that no call is given before
// at (a method that might change it).
func (c *Checker) configStruct(v ssa.Value, makers map[*ssa.Function]bool, at ssa.Instruction) (string, bool) {
	if p, ok := v.(*ssa.Parameter); ok {
		return p.Name(), makers[p.Parent()]
	}
	a, ok := v.(*ssa.Alloc)
	if !ok || a.Heap && a.Referrers() == nil {
		return "", false
	}
	var from *ssa.Parameter
	var copied *ssa.Store
	var calls []*ssa.Call
	for _, r := range *a.Referrers() {
		switch r := r.(type) {
		case *ssa.Store:
			p, ok := r.Val.(*ssa.Parameter)
			if !ok || r.Addr != a || from != nil {
				return "", false
			}
			from, copied = p, r
		case *ssa.FieldAddr, *ssa.DebugRef:
		case *ssa.UnOp:
			if r.Op != token.MUL {
				return "", false
			}
		case *ssa.Call:
			// A method of the configuration (a timeout it computes from two
			// of its fields): it must come after the read.
			calls = append(calls, r)
		default:
			return "", false
		}
	}
	if from == nil || !makers[from.Parent()] {
		return "", false
	}
	for _, call := range calls {
		if call == at || anyBetween(copied, at, func(z ssa.Instruction) bool { return z == ssa.Instruction(call) }, nil) {
			return "", false
		}
	}
	return from.Name(), true
}

// handedOut are the calls of the loaded code (at most n, by position)
// that hand a struct of type t they made empty (`&T{}`) to a function
// whose code is not loaded, which gives its fields their values (a
// decoder): writes that no store of the loaded code shows.
func (c *Checker) handedOut(t *types.Named, n int) []InvariantWrite {
	if t == nil {
		return nil
	}
	var calls []*ssa.Call
	for fn := range c.g.CG.Nodes {
		if fn == nil || fn.Pkg == nil || !c.withSyntaxOf(fn.Pkg.Pkg) {
			continue
		}
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				call, ok := ins.(*ssa.Call)
				if !ok {
					continue
				}
				callee := call.Call.StaticCallee()
				if callee == nil || len(callee.Blocks) > 0 && callee.Pkg != nil && c.withSyntaxOf(callee.Pkg.Pkg) {
					continue
				}
				for _, arg := range call.Call.Args {
					if a, ok := pointsTo(arg, t).(*ssa.Alloc); ok && emptyAt(a, call) {
						calls = append(calls, call)
						break
					}
				}
			}
		}
	}
	sort.Slice(calls, func(i, j int) bool { return posLess(c.text.fset, calls[i].Pos(), calls[j].Pos()) })
	var out []InvariantWrite
	for _, call := range calls {
		if len(out) == n {
			break
		}
		text := c.text.stmtText(call.Pos())
		if text == "" {
			text = c.text.callText(call)
		}
		out = append(out, InvariantWrite{Pos: call.Pos(), Func: call.Parent(), Text: text})
	}
	return out
}

// pointsTo is v seen through interface conversions, when that is a
// pointer to a struct of type t; nil otherwise.
func pointsTo(v ssa.Value, t *types.Named) ssa.Value {
	for k := 0; k < 4; k++ {
		switch x := v.(type) {
		case *ssa.MakeInterface:
			v = x.X
			continue
		case *ssa.ChangeType:
			v = x.X
			continue
		}
		break
	}
	p, ok := v.Type().Underlying().(*types.Pointer)
	if !ok {
		return nil
	}
	if n, ok := types.Unalias(p.Elem()).(*types.Named); ok && n.Obj() == t.Obj() {
		return v
	}
	return nil
}

// emptyAt reports whether the struct a makes is still empty at call: no
// store to it, or to a field of it, comes before call in its block or in
// a block that dominates call's.
func emptyAt(a *ssa.Alloc, call ssa.Instruction) bool {
	before := func(st *ssa.Store) bool {
		if st.Block() == call.Block() {
			return instrIndex(st) < instrIndex(call)
		}
		return st.Block().Dominates(call.Block())
	}
	for _, r := range *a.Referrers() {
		switch x := r.(type) {
		case *ssa.Store:
			if x.Addr == a && before(x) {
				return false
			}
		case *ssa.FieldAddr:
			for _, rr := range *x.Referrers() {
				if st, ok := rr.(*ssa.Store); ok && st.Addr == x && before(st) {
					return false
				}
			}
		}
	}
	return true
}

// declaringStruct is the named struct type of fv's package that declares
// field fv (loaded from source or not); nil when none does.
func declaringStruct(fv *types.Var) *types.Named {
	var out *types.Named
	if fv.Pkg() != nil {
		eachStructField(fv.Pkg(), func(n *types.Named, f *types.Var) {
			if f == fv {
				out = n
			}
		})
	}
	return out
}
