package feasible

import (
	"go/token"
	"go/types"
	"slices"

	"golang.org/x/tools/go/ssa"
)

// A field of shared state may change between two reads, so each read is
// a value of its own (terms.go) — unless a lock keeps it still: when every
// write of the field, in the whole program, is made holding lock L in
// write mode (Lock, not RLock) on the same struct, and the path holds L
// on that struct, by one acquisition, from before the first read to after
// the second, the two reads are one value.

// lockOp is what a call does to a mutex.
type lockOp int

const (
	opNone lockOp = iota
	opLock
	opRLock
	opUnlock
	opRUnlock
)

// mutexMethods are the methods of the standard library's mutexes.
var mutexMethods = map[string]lockOp{
	"(*sync.Mutex).Lock":      opLock,
	"(*sync.Mutex).Unlock":    opUnlock,
	"(*sync.RWMutex).Lock":    opLock,
	"(*sync.RWMutex).Unlock":  opUnlock,
	"(*sync.RWMutex).RLock":   opRLock,
	"(*sync.RWMutex).RUnlock": opRUnlock,
}

// lockEv is a call of a mutex's method on a field of a struct.
type lockEv struct {
	ins      ssa.Instruction
	op       lockOp
	field    *types.Var // the mutex field
	base     ssa.Value  // the struct whose field it is
	deferred bool
}

// lockEvent returns the lock event of instruction ins, if it is one.
func lockEvent(ins ssa.Instruction) (lockEv, bool) {
	var c *ssa.CallCommon
	deferred := false
	switch x := ins.(type) {
	case *ssa.Call:
		c = x.Common()
	case *ssa.Defer:
		c, deferred = x.Common(), true
	default:
		return lockEv{}, false
	}
	fn := c.StaticCallee()
	if fn == nil || len(c.Args) != 1 {
		return lockEv{}, false
	}
	op, ok := mutexMethods[fn.RelString(nil)]
	if !ok {
		return lockEv{}, false
	}
	fa, ok := c.Args[0].(*ssa.FieldAddr)
	if !ok {
		return lockEv{}, false
	}
	fv := fieldVar(fa.X.Type(), fa.Field)
	if fv == nil {
		return lockEv{}, false
	}
	return lockEv{ins: ins, op: op, field: fv, base: fa.X, deferred: deferred}, true
}

// index is what the checker knows of the whole program, built once when
// first needed: the writes of every field, and the functions that release
// each mutex field.
type index struct {
	writes map[*types.Var][]*ssa.Store
	// structs are the stores of whole struct values.
	structs  []*ssa.Store
	releases map[*types.Var][]*ssa.Function
	events   map[*ssa.Function][]lockEv
	// mapWrites are the entry writes (m[k] = v) of maps held in a field;
	// mapReads the reads of such a field (its map value).
	mapWrites map[*types.Var][]*ssa.MapUpdate
	mapReads  map[*types.Var][]*ssa.UnOp
	// made are the allocations of each named struct type; inner the
	// types whose address is also taken inside another value (a field or
	// an element held by value), which no allocation of their own shows.
	made  map[*types.TypeName][]*ssa.Alloc
	inner map[*types.TypeName]bool
	// addrTaken are the integer fields whose address is used otherwise
	// than to load or store the field (passed to a call, kept): a write
	// through it is no store to the field's address that writes lists.
	addrTaken map[*types.Var]bool
}

// index is the program's index, made once for a checker and all its
// forks.
func (c *Checker) index() *index {
	if c.ix == nil {
		c.prog.ixOnce.Do(func() { c.prog.ix = c.makeIndex() })
		c.ix = c.prog.ix
	}
	return c.ix
}

func (c *Checker) makeIndex() *index {
	ix := &index{writes: map[*types.Var][]*ssa.Store{}, releases: map[*types.Var][]*ssa.Function{}, events: map[*ssa.Function][]lockEv{}, mapWrites: map[*types.Var][]*ssa.MapUpdate{}, mapReads: map[*types.Var][]*ssa.UnOp{}, made: map[*types.TypeName][]*ssa.Alloc{}, inner: map[*types.TypeName]bool{}, addrTaken: map[*types.Var]bool{}}
	for fn := range c.g.CG.Nodes {
		if fn == nil {
			continue
		}
		rel := map[*types.Var]bool{}
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				switch x := ins.(type) {
				case *ssa.Store:
					if _, isStruct := x.Val.Type().Underlying().(*types.Struct); isStruct {
						ix.structs = append(ix.structs, x)
					}
					if fa, ok := x.Addr.(*ssa.FieldAddr); ok {
						if fv := fieldVar(fa.X.Type(), fa.Field); fv != nil {
							ix.writes[fv] = append(ix.writes[fv], x)
						}
					}
				case *ssa.UnOp:
					if _, isMap := x.Type().Underlying().(*types.Map); isMap {
						if fv := heldIn(x); fv != nil {
							ix.mapReads[fv] = append(ix.mapReads[fv], x)
						}
					}
				case *ssa.Alloc:
					if tn := pointee(x.Type()); tn != nil {
						ix.made[tn] = append(ix.made[tn], x)
					}
				case *ssa.FieldAddr, *ssa.IndexAddr:
					if tn := pointee(x.(ssa.Value).Type()); tn != nil {
						ix.inner[tn] = true
					}
					if fa, ok := x.(*ssa.FieldAddr); ok {
						if fv := fieldVar(fa.X.Type(), fa.Field); fv != nil && (isInteger(fv.Type()) || isMapType(fv.Type())) && !onlyLoadStore(fa) {
							ix.addrTaken[fv] = true
						}
					}
				case *ssa.MapUpdate:
					if fv := heldIn(x.Map); fv != nil {
						ix.mapWrites[fv] = append(ix.mapWrites[fv], x)
					}
				case *ssa.Call, *ssa.Defer:
					if ev, ok := lockEvent(ins); ok {
						ix.events[fn] = append(ix.events[fn], ev)
						if (ev.op == opUnlock || ev.op == opRUnlock) && !rel[ev.field] {
							rel[ev.field] = true
							ix.releases[ev.field] = append(ix.releases[ev.field], fn)
						}
					}
				}
			}
		}
	}
	return ix
}

// onlyLoadStore reports whether the address fa is only loaded from and
// stored to.
func onlyLoadStore(fa *ssa.FieldAddr) bool {
	for _, r := range *fa.Referrers() {
		switch u := r.(type) {
		case *ssa.UnOp:
			if u.Op != token.MUL || u.X != fa {
				return false
			}
		case *ssa.Store:
			if u.Addr != fa || u.Val == fa {
				return false
			}
		case *ssa.DebugRef:
		default:
			return false
		}
	}
	return true
}

// mayRelease reports whether a call of fn may release a mutex field L
// (on any struct): fn, or a function it may call, unlocks one.
func (c *Checker) mayRelease(fn *ssa.Function, L *types.Var) bool {
	set, ok := c.releasers[L]
	if !ok {
		set = c.closure(c.index().releases[L], false, true)
		c.releasers[L] = set
	}
	return set[fn]
}

// closure is seeds and every function the call graph leads to from them:
// their callees (forward) or their callers, through go statements too
// when overGo is set.
func (c *Checker) closure(seeds []*ssa.Function, forward, overGo bool) map[*ssa.Function]bool {
	set := map[*ssa.Function]bool{}
	var queue []*ssa.Function
	for _, f := range seeds {
		if !set[f] {
			set[f] = true
			queue = append(queue, f)
		}
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		n := c.g.CG.Nodes[f]
		if n == nil {
			continue
		}
		es := n.In
		if forward {
			es = n.Out
		}
		for _, e := range es {
			if _, isGo := e.Site.(*ssa.Go); isGo && !overGo {
				continue
			}
			g := e.Caller
			if forward {
				g = e.Callee
			}
			if g != nil && g.Func != nil && !set[g.Func] {
				set[g.Func] = true
				queue = append(queue, g.Func)
			}
		}
	}
	return set
}

// anyCallee reports whether may holds of a function call may run: its
// static callee, or one of the call graph's callees at it.
func (c *Checker) anyCallee(call ssa.CallInstruction, may func(*ssa.Function) bool) bool {
	if fn := call.Common().StaticCallee(); fn != nil {
		return may(fn)
	}
	if c.g == nil {
		return false
	}
	for _, e := range c.g.EdgesAt(call) {
		if e.Callee != nil && may(e.Callee.Func) {
			return true
		}
	}
	return false
}

// callMayRelease reports whether call instruction ins may release L.
func (c *Checker) callMayRelease(ins ssa.CallInstruction, L *types.Var) bool {
	if ev, ok := lockEvent(ins); ok {
		return !ev.deferred && ev.field == L && (ev.op == opUnlock || ev.op == opRUnlock)
	}
	if _, ok := ins.(*ssa.Defer); ok {
		return false // at the function's end
	}
	return c.anyCallee(ins, func(fn *ssa.Function) bool { return c.mayRelease(fn, L) })
}

// guards are the mutex fields that every write of field F holds in write
// mode on F's struct. A write into a struct the function makes (a
// composite literal) is its initialisation, not a write others can see.
func (c *Checker) guards(F *types.Var) []*types.Var {
	if g, ok := c.guardsOf[F]; ok {
		return g
	}
	var out []*types.Var
	ws := c.index().writes[F]
	if len(ws) > 0 && c.seesAllWrites(F) {
		var cands []*types.Var
		for _, L := range mutexFieldsOf(ws[0]) {
			cands = append(cands, L)
		}
		for _, L := range cands {
			all := true
			for _, st := range ws {
				fa := st.Addr.(*ssa.FieldAddr)
				if rootAlloc(fa) != nil {
					continue // a composite literal's field: not yet shared
				}
				if !c.heldWrite(st.Parent(), st, fa.X, L, 0) {
					all = false
					break
				}
			}
			if all {
				out = append(out, L)
			}
		}
	}
	c.guardsOf[F] = out
	return out
}

// mutexFieldsOf are the mutex fields of the struct a write's field is of.
func mutexFieldsOf(st *ssa.Store) []*types.Var {
	fa := st.Addr.(*ssa.FieldAddr)
	t := fa.X.Type()
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	s, ok := t.Underlying().(*types.Struct)
	if !ok {
		return nil
	}
	var out []*types.Var
	for i := 0; i < s.NumFields(); i++ {
		f := s.Field(i)
		if n, ok := f.Type().(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "sync" && (n.Obj().Name() == "Mutex" || n.Obj().Name() == "RWMutex") {
			out = append(out, f)
		}
	}
	return out
}

// heldWrite reports whether L is held in write mode on base at
// instruction at of fn: locked there and not released before, or held by
// every caller at its call when base is one of fn's parameters.
func (c *Checker) heldWrite(fn *ssa.Function, at ssa.Instruction, base ssa.Value, L *types.Var, depth int) bool {
	for _, ev := range c.index().events[fn] {
		if ev.op != opLock || ev.deferred || ev.field != L || canon(ev.base) != canon(base) {
			continue
		}
		if c.coversLocal(fn, ev, at, nil) {
			return true
		}
	}
	p, ok := canon(base).(*ssa.Parameter)
	if !ok || depth >= 5 {
		return false
	}
	k := paramIndex(p)
	key := heldKey{fn, k, L}
	if v, ok := c.heldMemo[key]; ok {
		return v
	}
	c.heldMemo[key] = false // a cycle of calls holds nothing it does not lock
	n := c.g.CG.Nodes[fn]
	if n == nil || len(n.In) == 0 {
		return false
	}
	all := true
	for _, e := range n.In {
		site := e.Site
		if site == nil || e.Caller.Func == nil {
			all = false
			break
		}
		cc := site.Common()
		var arg ssa.Value
		switch {
		case cc.IsInvoke():
			if k == 0 {
				arg = cc.Value
			} else if k-1 < len(cc.Args) {
				arg = cc.Args[k-1]
			}
		case k < len(cc.Args):
			arg = cc.Args[k]
		}
		if arg == nil || !c.heldWrite(e.Caller.Func, site, arg, L, depth+1) {
			all = false
			break
		}
	}
	c.heldMemo[key] = all
	return all
}

type heldKey struct {
	fn *ssa.Function
	k  int
	L  *types.Var
}

// coversLocal reports whether lock event ev (an acquisition in fn) still
// holds at instruction at: ev comes first on every way to at, and no way
// from ev to at releases the lock. refuted, when set, says that a block
// cannot run on the path (it is then not a way).
func (c *Checker) coversLocal(fn *ssa.Function, ev lockEv, at ssa.Instruction, refuted func(*ssa.BasicBlock) bool) bool {
	ab, tb := ev.ins.Block(), at.Block()
	if ab == nil || tb == nil || !ab.Dominates(tb) {
		return false
	}
	return c.coversFrom(fn, ev, at, refuted)
}

// coversFrom is coversLocal once ev's block is known to come first on
// every way to at (it dominates at's, or does where the world's refuted
// blocks are taken away).
func (c *Checker) coversFrom(fn *ssa.Function, ev lockEv, at ssa.Instruction, refuted func(*ssa.BasicBlock) bool) bool {
	if ev.ins.Block() == at.Block() && instrIndex(ev.ins) > instrIndex(at) {
		return false
	}
	return !anyBetween(ev.ins, at, func(ins ssa.Instruction) bool {
		ci, ok := ins.(ssa.CallInstruction)
		return ok && c.callMayRelease(ci, ev.field)
	}, refuted)
}

// anyBetween reports whether a run of one function may meet an
// instruction hit holds for after x and before y: in x's block after it,
// in the blocks a run goes through from there to y's (round a loop back
// to x's block, up to x), and in y's block before it. A block refuted
// rules out is no way (nothing after it is reached through it either).
func anyBetween(x, y ssa.Instruction, hit func(ssa.Instruction) bool, refuted func(*ssa.BasicBlock) bool) bool {
	ab, tb := x.Block(), y.Block()
	ai, ti := instrIndex(x), instrIndex(y)
	reach := reachesTo(tb)
	meets := func(b *ssa.BasicBlock, from, to int) bool {
		for i := from; i < to && i < len(b.Instrs); i++ {
			if hit(b.Instrs[i]) {
				return true
			}
		}
		return false
	}
	if ab == tb {
		// Straight from x to y in one block, unless a loop comes back.
		if meets(ab, ai+1, ti) {
			return true
		}
	}
	// The blocks a run can go through from x to y.
	seen := map[*ssa.BasicBlock]bool{}
	var stack []*ssa.BasicBlock
	if ab != tb {
		if meets(ab, ai+1, len(ab.Instrs)) {
			return true
		}
	}
	for _, s := range ab.Succs {
		if reach[s] {
			stack = append(stack, s)
		}
	}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b] {
			continue
		}
		seen[b] = true
		end := len(b.Instrs)
		if b == tb {
			end = ti
		}
		from, to := 0, end
		if b == ab {
			to = ai // round a loop back to x's block
		}
		if meets(b, from, to) {
			// One a run can reach, unless the path rules the block out
			// (then nothing after it is reached through it either).
			if refuted != nil && refuted(b) {
				continue
			}
			return true
		}
		if b == tb {
			continue
		}
		for _, s := range b.Succs {
			if reach[s] && !seen[s] {
				stack = append(stack, s)
			}
		}
	}
	return false
}

// canon is the value v names: a local variable's one value when it is
// assigned once (a variable a closure captures is loaded at each use).
func canon(v ssa.Value) ssa.Value {
	for k := 0; k < 4; k++ {
		u, ok := v.(*ssa.UnOp)
		if !ok || u.Op != token.MUL {
			return v
		}
		a, ok := u.X.(*ssa.Alloc)
		if !ok {
			return v
		}
		sts := stores(a)
		if len(sts) != 1 {
			return v
		}
		v = sts[0].Val
	}
	return v
}

func instrIndex(ins ssa.Instruction) int {
	for i, x := range ins.Block().Instrs {
		if x == ins {
			return i
		}
	}
	return -1
}

// reachesTo are the blocks from which a run can reach b (b among them).
func reachesTo(b *ssa.BasicBlock) map[*ssa.BasicBlock]bool {
	out := map[*ssa.BasicBlock]bool{b: true}
	stack := []*ssa.BasicBlock{b}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range x.Preds {
			if !out[p] {
				out[p] = true
				stack = append(stack, p)
			}
		}
	}
	return out
}

// holding is one acquisition of a lock that holds at a point of a path:
// the lock (its field and struct) and which acquisition it is.
type holding struct {
	field *types.Var
	base  string // the struct's term
	write bool   // Lock, not RLock
	id    acqID
}

type acqID struct {
	frame int
	ins   ssa.Instruction
}

// held lists the acquisitions that hold at instruction at of frame f: its
// own (a Lock in f's function not released before at, or a call that
// returns holding one) and those that hold at the call that made f.
func (w *walk) held(f *frame, at ssa.Instruction) []holding {
	if f == nil || at == nil {
		return nil
	}
	// What holds depends on the world only through the blocks it rules
	// out, which refutedIn reads in the world's present state.
	k := heldAtKey{frame: f.id, at: at}
	if w.inWorld != nil {
		k.ver = w.inWorld.ver
	}
	if h, ok := w.heldAtMemo[k]; ok {
		return h
	}
	h := slices.Clip(w.held1(f, at))
	if w.heldAtMemo == nil {
		w.heldAtMemo = map[heldAtKey][]holding{}
	}
	w.heldAtMemo[k] = h
	return h
}

// heldAtKey names a point of a frame in one state of a world (ver 0: in
// none).
type heldAtKey struct {
	ver   uint64
	frame int
	at    ssa.Instruction
}

func (w *walk) held1(f *frame, at ssa.Instruction) []holding {
	var out []holding
	ix := w.c.index()
	for _, ev := range ix.events[f.fn] {
		if ev.deferred || (ev.op != opLock && ev.op != opRLock) {
			continue
		}
		if !w.c.coversLocal(f.fn, ev, at, w.refutedIn(f)) {
			continue
		}
		base := f.eval(ev.base)
		id := acqID{f.id, ev.ins}
		if f.parent != nil && f.callAt != nil && w.c.returnsHolding(f.fn, ev) {
			// The acquisition the caller sees as its call's, and, while
			// each caller in turn returns still holding it (a wrapper
			// that returns what the function that locks returned), as
			// the outermost such call.
			id = acqID{f.parent.id, f.callAt}
			for g := f.parent; g.parent != nil && g.callAt != nil && w.c.returnsCallHolding(g.fn, id.ins, ev.field); g = g.parent {
				id = acqID{g.parent.id, g.callAt}
			}
		}
		for _, t := range termsOf(base, 0) {
			out = append(out, holding{field: ev.field, base: t, write: ev.op == opLock, id: id})
		}
	}
	// Calls earlier in f that return holding a lock (in a block every
	// run of the world reaches at through).
	refuted := w.refutedIn(f)
	var reach map[*ssa.BasicBlock]bool
	for _, b := range f.fn.Blocks {
		dom := b.Dominates(at.Block())
		if !dom && refuted == nil {
			continue
		}
		if !dom {
			if reach == nil {
				reach = reachesTo(at.Block())
			}
			if !reach[b] {
				continue
			}
		}
		for _, ins := range b.Instrs {
			if b == at.Block() && instrIndex(ins) >= instrIndex(at) {
				break
			}
			call, ok := ins.(*ssa.Call)
			if !ok {
				continue
			}
			hs := w.returnedHoldings(f, call)
			if len(hs) == 0 || !dom && !domIn(f.fn, b, at.Block(), refuted) {
				continue
			}
			for _, h := range hs {
				if w.c.coversFrom(f.fn, lockEv{ins: call, field: h.field}, at, refuted) {
					out = append(out, h)
				}
			}
		}
	}
	if f.parent != nil && f.callAt != nil {
		out = append(out, w.held(f.parent, f.callAt)...)
	}
	return out
}

// domIn reports whether block a dominates block b of fn once the blocks
// refuted rules out are taken away: every way from the entry to b that
// avoids them goes through a. False when refuted is nil.
func domIn(fn *ssa.Function, a, b *ssa.BasicBlock, refuted func(*ssa.BasicBlock) bool) bool {
	if refuted == nil || len(fn.Blocks) == 0 || a == b {
		return false
	}
	entry := fn.Blocks[0]
	if entry == a {
		return true
	}
	// The ways that avoid a, through blocks that can reach b: structural
	// first (a way around a that no block of it is refuted on), then
	// asking only of those blocks whether the world rules them out.
	reach := reachesTo(b)
	if !reach[a] {
		return false
	}
	seen := map[*ssa.BasicBlock]bool{entry: true}
	stack := []*ssa.BasicBlock{entry}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == b {
			return false
		}
		for _, s := range x.Succs {
			if s == a || seen[s] || !reach[s] || refuted(s) {
				continue
			}
			seen[s] = true
			stack = append(stack, s)
		}
	}
	return true
}

// refutedIn says which blocks of frame f cannot run in the world being
// read (w.inWorld): those whose branches the world rules out. Nil when no
// world is being read: every block is taken as one a run may go through.
func (w *walk) refutedIn(f *frame) func(*ssa.BasicBlock) bool {
	wd := w.inWorld
	if wd == nil {
		return nil
	}
	return func(b *ssa.BasicBlock) bool {
		k := refutedKey{wd.ver, f.id, b}
		if v, ok := w.refutedMemo[k]; ok {
			return v
		}
		v := w.refutedBlock(wd, f, b)
		if w.refutedMemo == nil {
			w.refutedMemo = map[refutedKey]bool{}
		}
		w.refutedMemo[k] = v
		return v
	}
}

// refutedKey names a block of a frame in one state of a world.
type refutedKey struct {
	ver   uint64
	frame int
	b     *ssa.BasicBlock
}

// refutedBlock reports whether block b of frame f cannot run in world wd.
func (w *walk) refutedBlock(wd *world, f *frame, b *ssa.BasicBlock) bool {
	saved, refining := w.deaths, w.refining
	w.refining = true
	defer func() { w.deaths, w.refining = saved, refining }()
	test := []*world{wd}
	for _, e := range w.c.domEdges(f.fn, b) {
		test = w.constrain(test, f, e.ifi.Cond, e.want, nil)
		if len(test) == 0 {
			return true
		}
	}
	return false
}

// returnsHolding reports whether acquisition ev in fn is still held at
// every return of fn (it is not released before any return, deferred
// releases included).
func (c *Checker) returnsHolding(fn *ssa.Function, ev lockEv) bool {
	key := retKey{fn, ev.ins, ev.field}
	if v, ok := c.retHold[key]; ok {
		return v
	}
	ok := false
	for _, b := range fn.Blocks {
		if len(b.Instrs) == 0 {
			continue
		}
		ret, isRet := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !isRet {
			continue
		}
		if !c.coversLocal(fn, ev, ret, nil) {
			ok = false
			break
		}
		ok = true
	}
	if ok {
		for _, e := range c.index().events[fn] {
			if e.deferred && e.field == ev.field && (e.op == opUnlock || e.op == opRUnlock) {
				ok = false
			}
		}
	}
	c.retHold[key] = ok
	return ok
}

type retKey struct {
	fn  *ssa.Function
	ins ssa.Instruction
	L   *types.Var
}

// returnedHoldings are the acquisitions a call returns holding, when it
// is one the path follows: the callee locks on a struct it is given and
// does not release it before it returns.
func (w *walk) returnedHoldings(f *frame, call *ssa.Call) []holding {
	return w.returnedHoldings1(f, call, 0)
}

// maxHoldDepth bounds how many wrappers deep returnedHoldings looks for
// the function that locks.
const maxHoldDepth = 3

func (w *walk) returnedHoldings1(f *frame, call *ssa.Call, depth int) []holding {
	c := call.Common()
	var fns []*ssa.Function
	if fn := c.StaticCallee(); fn != nil {
		fns = append(fns, fn)
	} else {
		for _, e := range w.c.g.EdgesAt(call) {
			fns = append(fns, e.Callee.Func)
		}
	}
	var out []holding
	for _, fn := range fns {
		for _, ev := range w.c.index().events[fn] {
			if ev.deferred || (ev.op != opLock && ev.op != opRLock) || !w.c.returnsHolding(fn, ev) {
				continue
			}
			// The struct locked is the callee's receiver (or a field of it).
			p, ok := ev.base.(*ssa.Parameter)
			if !ok {
				continue
			}
			k := paramIndex(p)
			var arg ssa.Value
			switch {
			case c.IsInvoke():
				if k == 0 {
					arg = c.Value
				} else if k-1 < len(c.Args) {
					arg = c.Args[k-1]
				}
			case k < len(c.Args):
				arg = c.Args[k]
			}
			if arg == nil {
				continue
			}
			base := f.eval(arg)
			// The struct as the callee's frame names it, when the path
			// followed the call: its reads name it so.
			if nf, ok := w.inlined[inlineKey{f.id, call, fn}]; ok {
				base = nf.eval(ev.base)
			}
			for _, t := range termsOf(base, 0) {
				out = append(out, holding{field: ev.field, base: t, write: ev.op == opLock, id: acqID{f.id, call}})
			}
		}
		// A wrapper: a call in fn that returns holding a lock, still held
		// at each of fn's returns, when the path followed fn.
		nf, ok := w.inlined[inlineKey{f.id, call, fn}]
		if !ok || depth >= maxHoldDepth {
			continue
		}
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				inner, ok := ins.(*ssa.Call)
				if !ok {
					continue
				}
				for _, h := range w.returnedHoldings1(nf, inner, depth+1) {
					if w.c.returnsCallHolding(fn, inner, h.field) {
						h.id = acqID{f.id, call}
						out = append(out, h)
					}
				}
			}
		}
	}
	return out
}

// returnsCallHolding reports whether lock field L, held once call (in fn)
// returns, is still held at every return of fn (returnsHolding, with the
// call as the acquisition).
func (c *Checker) returnsCallHolding(fn *ssa.Function, call ssa.Instruction, L *types.Var) bool {
	return call != nil && call.Parent() == fn && c.returnsHolding(fn, lockEv{ins: call, field: L})
}

// termsOf are the terms v can be: its own, and those of each of its
// alternatives (a struct that is one of several is locked as whichever it
// is).
func termsOf(v *value, depth int) []string {
	var out []string
	if v.term != "" {
		out = append(out, v.term)
	}
	if v.kind == kAlt && depth < 6 {
		for _, a := range v.alts {
			out = append(out, termsOf(a.value(), depth+1)...)
		}
	}
	return out
}
