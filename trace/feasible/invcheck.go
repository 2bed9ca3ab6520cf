package feasible

import (
	"go/token"
	"go/types"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"
)

// What the store keeps true: an invariant A - B <= C between two fields
// of one struct, for every reader that holds lock L on it, is found from
// every write of A and B in the loaded program (as a monitor invariant is
// proved: it holds whenever the lock is free). Each function that writes
// either field, directly or by a call, is read by abstract
// interpretation over the zone domain (zone.go), from a state where the
// invariant holds, and the invariant is checked wherever the struct may
// be seen by another goroutine: after a write made without L held in
// write mode, where L is released, at a return that is not inside a
// caller's critical section, and at a call of another such function. A
// function inside its callers' critical section (every caller holds L)
// may break the invariant in between; its callers, which hold L across
// the call, are then read too, and must restore it before they release
// L. A composite literal's fields are the struct's first values.

// maxInvFuncs bounds the functions read for one invariant; maxInvBlocks
// how big each may be.
const (
	maxInvFuncs  = 24
	maxInvBlocks = 160
)

type invChecker struct {
	c     *Checker
	A, B  *types.Var
	C     int64
	L     *types.Var
	res   map[*ssa.Function]*fnInv
	order []*ssa.Function
	// writers are the functions that may write A or B, by a call.
	writers map[*ssa.Function]bool
	writes  []InvariantWrite
	failed  bool
}

// fnInv is what one function does to the invariant.
type fnInv struct {
	busy      bool
	ok        bool // no place where the struct may be seen breaks it
	preserves bool // it holds at every return
	inside    bool // every caller holds L on the struct
}

// invariant returns A - B <= C for readers holding L, when every write of
// A and B keeps it; nil otherwise.
func (c *Checker) invariant(A, B *types.Var, C int64, L *types.Var) *Invariant {
	return c.shared.once(invKey{A, B, C, L}, func() *Invariant { return c.findInvariant(A, B, C, L) })
}

// findInvariant reads every write of A and B for the invariant A - B <=
// C (under lock L): nil when it does not hold. What it finds depends on
// the program only, not on what the checker was asked before.
func (c *Checker) findInvariant(A, B *types.Var, C int64, L *types.Var) *Invariant {
	if !c.seesAllWrites(A) || !c.seesAllWrites(B) {
		return nil
	}
	ic := &invChecker{c: c, A: A, B: B, C: C, L: L, res: map[*ssa.Function]*fnInv{}}
	if !ic.run() {
		return nil
	}
	return &Invariant{A: A, B: B, C: C, Lock: L, Writes: ic.writes}
}

// invStore holds the invariants a checker and its forks have read (nil
// for one that does not hold): they are the program's, so every checker
// of the family reads each once.
type invStore struct {
	mu sync.Mutex
	m  map[invKey]*Invariant
	// carries are the carries found (carried.go), shared the same way:
	// what they say depends on the program only.
	carries map[carryKey]*Carry
	// refs are the map references found (refs.go).
	refs map[refKey]*MapRef
}

// ref is the MapRef under k, found by find the first time it is asked
// for (by this checker or a fork).
func (s *invStore) ref(k refKey, find func() *MapRef) *MapRef {
	return onceIn(&s.mu, &s.refs, k, find)
}

// carry is the Carry under k, found by find the first time it is asked
// for (by this checker or a fork).
func (s *invStore) carry(k carryKey, find func() *Carry) *Carry {
	return onceIn(&s.mu, &s.carries, k, find)
}

// onceIn is (*m)[k], found by find the first time it is asked for; mu
// guards m, not find (two may find it at once: the first stored wins).
func onceIn[K comparable, V any](mu *sync.Mutex, m *map[K]V, k K, find func() V) V {
	mu.Lock()
	x, ok := (*m)[k]
	mu.Unlock()
	if ok {
		return x
	}
	x = find()
	mu.Lock()
	defer mu.Unlock()
	if y, ok := (*m)[k]; ok {
		return y
	}
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[k] = x
	return x
}

func (s *invStore) get(k invKey) (*Invariant, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	inv, ok := s.m[k]
	return inv, ok
}

// once is the invariant under k, found by find the first time it is
// asked for (by this checker or a fork).
func (s *invStore) once(k invKey, find func() *Invariant) *Invariant {
	if inv, ok := s.get(k); ok {
		return inv
	}
	inv := find()
	s.put(k, inv)
	return inv
}

func (s *invStore) put(k invKey, inv *Invariant) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[k]; !ok {
		s.m[k] = inv
	}
}

// Invariants are the invariants found so far (those the paths checked
// asked for and that hold), in the order of their fields' positions.
func (c *Checker) Invariants() []*Invariant {
	var out []*Invariant
	c.shared.mu.Lock()
	for _, inv := range c.shared.m {
		if inv != nil && len(inv.Unbounded) == 0 {
			out = append(out, inv)
		}
	}
	c.shared.mu.Unlock()
	fset := c.text.fset
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.A.Pos() != b.A.Pos() {
			return posLess(fset, a.A.Pos(), b.A.Pos())
		}
		if a.B == nil || b.B == nil {
			// A floor, then an order, then the relations.
			rank := func(x *Invariant) int {
				switch {
				case x.Floor():
					return 0
				case x.Grows:
					return 1
				}
				return 2
			}
			return rank(a) < rank(b)
		}
		if a.B.Pos() != b.B.Pos() {
			return posLess(fset, a.B.Pos(), b.B.Pos())
		}
		if a.C != b.C {
			return a.C < b.C
		}
		return posLess(fset, a.Lock.Pos(), b.Lock.Pos())
	})
	return out
}

func (ic *invChecker) run() bool {
	ix := ic.c.index()
	direct := map[*ssa.Function]bool{}
	var work []*ssa.Function
	for _, f := range []*types.Var{ic.A, ic.B} {
		for _, st := range ix.writes[f] {
			fn := st.Parent()
			if !direct[fn] {
				direct[fn] = true
				work = append(work, fn)
			}
		}
	}
	if len(work) == 0 {
		return false
	}
	// The functions that may write A or B by a call: the direct writers
	// and their callers, transitively.
	ic.writers = map[*ssa.Function]bool{}
	queue := append([]*ssa.Function(nil), work...)
	for _, f := range queue {
		ic.writers[f] = true
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if n := ic.c.g.CG.Nodes[f]; n != nil {
			for _, e := range n.In {
				if g := e.Caller.Func; g != nil && !ic.writers[g] {
					ic.writers[g] = true
					queue = append(queue, g)
				}
			}
		}
	}
	seen := map[*ssa.Function]bool{}
	for len(work) > 0 {
		fn := work[0]
		work = work[1:]
		if seen[fn] {
			continue
		}
		seen[fn] = true
		if len(seen) > maxInvFuncs {
			return false
		}
		r := ic.analyze(fn)
		if !r.ok || ic.failed {
			return false
		}
		// A caller that holds L across its call may see the struct in
		// the middle of a change: it is read too.
		if n := ic.c.g.CG.Nodes[fn]; n != nil {
			for _, e := range n.In {
				if e.Site == nil || e.Caller.Func == nil {
					continue
				}
				for _, arg := range ic.baseArgs(fn, e.Site) {
					if ic.c.heldWrite(e.Caller.Func, e.Site, arg, ic.L, 0) {
						work = append(work, e.Caller.Func)
						break
					}
				}
			}
		}
	}
	return true
}

// baseArgs are the arguments of call site that fn reads the fields'
// struct from (its parameters at the root of a base key).
func (ic *invChecker) baseArgs(fn *ssa.Function, site ssa.CallInstruction) []ssa.Value {
	var out []ssa.Value
	cc := site.Common()
	for k := range fn.Params {
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
		if arg != nil && isPointerToStruct(arg.Type()) {
			out = append(out, arg)
		}
	}
	return out
}

func isPointerToStruct(t types.Type) bool {
	p, ok := t.Underlying().(*types.Pointer)
	if !ok {
		return false
	}
	_, ok = p.Elem().Underlying().(*types.Struct)
	return ok
}

// baseKey names the struct v points to within its function: a parameter
// ("p0"), a fresh allocation ("a:t3"), or a field loaded from one of
// those ("p0.s"); "" when it is none of them.
func baseKey(v ssa.Value) string {
	for k := 0; k < 6; k++ {
		v = canon(v)
		switch x := v.(type) {
		case *ssa.Parameter:
			return "p" + itoa(paramIndex(x))
		case *ssa.Alloc:
			return "a:" + x.Name()
		case *ssa.UnOp:
			if x.Op == token.MUL {
				if fa, ok := x.X.(*ssa.FieldAddr); ok {
					inner := baseKey(fa.X)
					if inner == "" {
						return ""
					}
					name := "?"
					if fv := fieldVar(fa.X.Type(), fa.Field); fv != nil {
						name = fv.Name()
					}
					return inner + "." + name
				}
			}
			return ""
		case *ssa.FieldAddr:
			// A struct held by value in a field (an embedded one).
			inner := baseKey(x.X)
			if inner == "" {
				return ""
			}
			name := "?"
			if fv := fieldVar(x.X.Type(), x.Field); fv != nil {
				name = fv.Name()
			}
			return inner + ".&" + name
		case *ssa.ChangeType:
			v = x.X
		default:
			return ""
		}
	}
	return ""
}

// invState is the abstract state of one function's reading.
type invState struct {
	z     *zone
	cells map[string][2]int // base key → nodes of A and B now
}

func (s *invState) clone() *invState {
	c := &invState{z: s.z.clone(), cells: make(map[string][2]int, len(s.cells))}
	for k, v := range s.cells {
		c.cells[k] = v
	}
	return c
}

// analyze reads fn.
func (ic *invChecker) analyze(fn *ssa.Function) *fnInv {
	if r, ok := ic.res[fn]; ok {
		if r.busy {
			return &fnInv{} // a recursion: nothing is known
		}
		return r
	}
	r := &fnInv{busy: true}
	ic.res[fn] = r
	defer func() { r.busy = false }()
	if fn.Blocks == nil || len(fn.Blocks) > maxInvBlocks {
		return r
	}
	fa := &fnAnalysis{ic: ic, fn: fn, nodes: map[ssa.Value]int{}, n: 1}
	r.ok, r.preserves = fa.run()
	return r
}

// fnAnalysis is the reading of one function.
type fnAnalysis struct {
	ic    *invChecker
	fn    *ssa.Function
	nodes map[ssa.Value]int // integer values → nodes
	n     int
	keys  []string // base keys of the fields' struct in fn
	// cellNodes are fresh nodes for the cells, by key and place.
	cellNodes map[cellPlace][2]int
	// readers counts the blocks yet to read each block's state (entry).
	readers map[*ssa.BasicBlock]int
	inside  map[string]bool // keys whose struct every caller holds L on
	lockedL bool            // fn locks L itself
	ok      bool
	retOK   bool
}

type cellPlace struct {
	key string
	at  any // a block (its entry) or an instruction (a write, a call)
}

func (fa *fnAnalysis) node(v ssa.Value) int {
	if n, ok := fa.nodes[v]; ok {
		return n
	}
	n := fa.n
	fa.n++
	fa.nodes[v] = n
	return n
}

func (fa *fnAnalysis) cell(key string, at any) [2]int {
	p := cellPlace{key, at}
	if c, ok := fa.cellNodes[p]; ok {
		return c
	}
	c := [2]int{fa.n, fa.n + 1}
	fa.n += 2
	fa.cellNodes[p] = c
	return c
}

// field returns 0 for A, 1 for B, -1 for neither.
func (fa *fnAnalysis) field(v *types.Var) int {
	switch v {
	case fa.ic.A:
		return 0
	case fa.ic.B:
		return 1
	}
	return -1
}

func (fa *fnAnalysis) run() (ok, preserves bool) {
	fn := fa.fn
	fa.cellNodes = map[cellPlace][2]int{}
	fa.inside = map[string]bool{}
	fa.ok, fa.retOK = true, true
	keySet := map[string]bool{}
	for _, p := range fn.Params {
		if isInteger(p.Type()) {
			fa.node(p)
		}
	}
	for _, fv := range fn.FreeVars {
		if isInteger(fv.Type()) {
			fa.node(fv)
		}
	}
	// The integer values and the structs whose fields are read or written.
	for _, b := range fn.Blocks {
		for _, ins := range b.Instrs {
			if v, isV := ins.(ssa.Value); isV && isInteger(v.Type()) {
				fa.node(v)
			}
			var faddr *ssa.FieldAddr
			switch x := ins.(type) {
			case *ssa.Store:
				faddr, _ = x.Addr.(*ssa.FieldAddr)
			case *ssa.UnOp:
				if x.Op == token.MUL {
					faddr, _ = x.X.(*ssa.FieldAddr)
				}
			}
			if faddr != nil {
				if fv := fieldVar(faddr.X.Type(), faddr.Field); fv != nil && fa.field(fv) >= 0 {
					k := baseKey(faddr.X)
					if k == "" {
						return false, false // a struct this reading cannot name
					}
					keySet[k] = true
				}
			}
			if ev, isEv := lockEvent(ins); isEv && ev.field == fa.ic.L && ev.op == opLock {
				fa.lockedL = true
			}
		}
	}
	for k := range keySet {
		fa.keys = append(fa.keys, k)
		if strings.HasPrefix(k, "p") && !strings.Contains(k, ".") {
			p := fn.Params[atoi(k[1:])]
			fa.inside[k] = !fa.lockedL && fa.ic.c.heldWrite(fn, fn.Blocks[0].Instrs[0], p, fa.ic.L, 0)
		}
	}
	sortStrings(fa.keys)
	// Every place a cell may take a new value: block entries, writes,
	// calls, allocations.
	for _, b := range fn.Blocks {
		for _, k := range fa.keys {
			fa.cell(k, b)
			for _, ins := range b.Instrs {
				switch ins.(type) {
				case *ssa.Store, *ssa.Alloc, ssa.CallInstruction:
					fa.cell(k, ins)
				}
			}
		}
	}
	rpo := reversePostorder(fn)
	out := map[*ssa.BasicBlock]*invState{}
	// How many blocks will read each block's state at their entry (the
	// successors it does not loop back to): the last one takes it as it is.
	fa.readers = map[*ssa.BasicBlock]int{}
	for _, b := range rpo {
		for _, p := range b.Preds {
			if !b.Dominates(p) {
				fa.readers[p]++
			}
		}
	}
	for _, b := range rpo {
		in := fa.entry(b, out)
		st := in
		for _, ins := range b.Instrs {
			fa.step(st, ins)
		}
		out[b] = st
	}
	return fa.ok, fa.retOK
}

// entry is the state at block b's entry: the function's entry (the
// invariant holds), or what every edge into it brings.
func (fa *fnAnalysis) entry(b *ssa.BasicBlock, out map[*ssa.BasicBlock]*invState) *invState {
	if b.Index == 0 {
		st := &invState{z: newZone(fa.size()), cells: map[string][2]int{}}
		for _, k := range fa.keys {
			c := fa.cell(k, b)
			st.cells[k] = c
			if !strings.HasPrefix(k, "a:") {
				st.z.constrain(c[1], c[0], fa.ic.C) // A - B <= C
			}
		}
		return st
	}
	var acc *zone
	header := false
	for _, p := range b.Preds {
		if b.Dominates(p) {
			header = true
			continue
		}
		ps, done := out[p]
		if !done {
			continue
		}
		// The edge's own copy of p's state, made as big as the nodes now
		// are, unless b is the last block to read p's state: then it is
		// used in place. The cells are only read.
		fa.readers[p]--
		z := ps.z
		if z.n < fa.n {
			z = fa.grow(z)
		} else if fa.readers[p] > 0 {
			z = z.clone()
		}
		e := &invState{z: z, cells: ps.cells}
		fa.edge(e, p, b)
		// The cells at b's entry and the phis, as this edge brings them.
		for _, k := range fa.keys {
			c := fa.cell(k, b)
			if pc, ok := e.cells[k]; ok {
				e.z.eq(c[0], pc[0], 0)
				e.z.eq(c[1], pc[1], 0)
			}
		}
		for _, ins := range b.Instrs {
			phi, ok := ins.(*ssa.Phi)
			if !ok {
				break
			}
			if !isInteger(phi.Type()) {
				continue
			}
			i := predIndex(b, p)
			if n, off, ok := fa.lin(phi.Edges[i]); ok {
				e.z.eq(fa.node(phi), n, off)
			}
		}
		if acc == nil {
			acc = e.z
		} else {
			acc = join(acc, e.z)
		}
	}
	if acc == nil {
		acc = bottomZone(fa.size())
	}
	st := &invState{z: acc, cells: map[string][2]int{}}
	for _, k := range fa.keys {
		st.cells[k] = fa.cell(k, b)
	}
	if header {
		// A loop: what its iterations change is not known here.
		written := fa.loopWrites(b)
		for _, k := range fa.keys {
			if written {
				c := st.cells[k]
				st.z.forget(c[0])
				st.z.forget(c[1])
			}
		}
		for v, n := range fa.nodes {
			if ins, ok := v.(ssa.Instruction); ok && ins.Block() != nil && b.Dominates(ins.Block()) {
				st.z.forget(n)
			}
		}
	}
	return st
}

// size is the number of nodes.
func (fa *fnAnalysis) size() int { return fa.n }

// grow makes z as big as the nodes now are.
func (fa *fnAnalysis) grow(z *zone) *zone {
	if z.n >= fa.n {
		return z
	}
	nz := newZone(fa.size())
	nz.bottom = z.bottom
	for i := 0; i < z.n; i++ {
		for j := 0; j < z.n; j++ {
			nz.m[i*nz.n+j] = z.m[i*z.n+j]
		}
	}
	return nz
}

func predIndex(b, p *ssa.BasicBlock) int {
	for i, x := range b.Preds {
		if x == p {
			return i
		}
	}
	return -1
}

// loopWrites reports whether the loop at header writes A or B.
func (fa *fnAnalysis) loopWrites(header *ssa.BasicBlock) bool {
	back := reachesTo(header)
	for _, b := range fa.fn.Blocks {
		if !header.Dominates(b) || !back[b] {
			continue // not in the loop
		}
		for _, ins := range b.Instrs {
			switch x := ins.(type) {
			case *ssa.Store:
				if faddr, ok := x.Addr.(*ssa.FieldAddr); ok {
					if fv := fieldVar(faddr.X.Type(), faddr.Field); fv != nil && fa.field(fv) >= 0 {
						return true
					}
				}
			case ssa.CallInstruction:
				if len(fa.callees(x)) > 0 {
					for _, k := range fa.keys {
						if fa.passes(x.Common(), k) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// lin is v as node + off.
func (fa *fnAnalysis) lin(v ssa.Value) (int, int64, bool) {
	if k, ok := v.(*ssa.Const); ok && k.Value != nil && isInteger(k.Type()) {
		if n, ok := intConst(constVal(k.Value)); ok {
			return 0, n, true
		}
		return 0, 0, false
	}
	if k, ok := v.(*ssa.Const); ok && k.Value == nil && isInteger(k.Type()) {
		return 0, 0, true
	}
	if n, ok := fa.nodes[v]; ok {
		return n, 0, true
	}
	return 0, 0, false
}

// edge adds what the branch from p to b says.
func (fa *fnAnalysis) edge(st *invState, p, b *ssa.BasicBlock) {
	if len(p.Instrs) == 0 || len(p.Succs) != 2 || p.Succs[0] == p.Succs[1] {
		return
	}
	ifi, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If)
	if !ok {
		return
	}
	fa.assume(st, ifi.Cond, p.Succs[0] == b)
}

// assume adds cond == want.
func (fa *fnAnalysis) assume(st *invState, cond ssa.Value, want bool) {
	switch x := cond.(type) {
	case *ssa.UnOp:
		if x.Op == token.NOT {
			fa.assume(st, x.X, !want)
		}
	case *ssa.BinOp:
		if !isInteger(x.X.Type()) {
			return
		}
		nx, ox, ok1 := fa.lin(x.X)
		ny, oy, ok2 := fa.lin(x.Y)
		if !ok1 || !ok2 {
			return
		}
		op := x.Op
		if !want {
			op = negate(op)
		}
		// x = nx + ox, y = ny + oy; constrain(i, j, c) is x_j - x_i <= c.
		d := oy - ox
		switch op {
		case token.LSS: // nx - ny <= d - 1
			st.z.constrain(ny, nx, d-1)
		case token.LEQ:
			st.z.constrain(ny, nx, d)
		case token.GTR:
			st.z.constrain(nx, ny, -d-1)
		case token.GEQ:
			st.z.constrain(nx, ny, -d)
		case token.EQL:
			st.z.constrain(ny, nx, d)
			st.z.constrain(nx, ny, -d)
		}
	}
}

// holds reports whether the invariant holds for key k in st.
func (fa *fnAnalysis) holds(st *invState, k string) bool {
	c, ok := st.cells[k]
	if !ok {
		return true
	}
	return st.z.implies(c[1], c[0], fa.ic.C)
}

// callees are the functions call ins may run that write A or B.
func (fa *fnAnalysis) callees(ins ssa.CallInstruction) []*ssa.Function {
	if _, ok := ins.(*ssa.Go); ok {
		return nil // another goroutine: its writes are its own
	}
	var out []*ssa.Function
	if fn := ins.Common().StaticCallee(); fn != nil {
		if fa.ic.writers[fn] {
			out = append(out, fn)
		}
		return out
	}
	for _, e := range fa.ic.c.g.EdgesAt(ins) {
		if fa.ic.writers[e.Callee.Func] {
			out = append(out, e.Callee.Func)
		}
	}
	return out
}

// step reads one instruction.
func (fa *fnAnalysis) step(st *invState, ins ssa.Instruction) {
	st.z = fa.grow(st.z)
	if st.z.bottom {
		return
	}
	switch x := ins.(type) {
	case *ssa.UnOp:
		if x.Op == token.MUL {
			if faddr, ok := x.X.(*ssa.FieldAddr); ok {
				if fv := fieldVar(faddr.X.Type(), faddr.Field); fv != nil {
					if i := fa.field(fv); i >= 0 {
						if c, ok := st.cells[baseKey(faddr.X)]; ok {
							st.z.eq(fa.node(x), c[i], 0)
						}
					}
				}
			}
		}
	case *ssa.BinOp:
		if isInteger(x.Type()) && (x.Op == token.ADD || x.Op == token.SUB) {
			if n, off, ok := fa.lin(x.X); ok {
				if k, isK := x.Y.(*ssa.Const); isK && k.Value != nil {
					if c, ok := intConst(constVal(k.Value)); ok {
						if x.Op == token.SUB {
							c = -c
						}
						st.z.eq(fa.node(x), n, off+c)
					}
				}
			}
		}
	case *ssa.Convert:
		if isInteger(x.Type()) && isInteger(x.X.Type()) {
			if n, off, ok := fa.lin(x.X); ok {
				st.z.eq(fa.node(x), n, off)
			}
		}
	case *ssa.Alloc:
		k := "a:" + x.Name()
		if _, ok := st.cells[k]; ok {
			c := fa.cell(k, ins)
			st.z = fa.grow(st.z)
			st.z.forget(c[0])
			st.z.forget(c[1])
			st.z.eq(c[0], 0, 0)
			st.z.eq(c[1], 0, 0)
			st.cells[k] = c
		}
	case *ssa.Store:
		faddr, ok := x.Addr.(*ssa.FieldAddr)
		if !ok {
			return
		}
		fv := fieldVar(faddr.X.Type(), faddr.Field)
		i := -1
		if fv != nil {
			i = fa.field(fv)
		}
		if i < 0 {
			return
		}
		k := baseKey(faddr.X)
		old := st.cells[k]
		c := fa.cell(k, ins)
		st.z = fa.grow(st.z)
		nc := old
		nc[i] = c[i]
		st.z.forget(c[i])
		if n, off, ok := fa.lin(x.Val); ok {
			st.z.eq(c[i], n, off)
		}
		st.cells[k] = nc
		fresh := strings.HasPrefix(k, "a:")
		switch {
		case fresh:
			fa.ic.writes = append(fa.ic.writes, InvariantWrite{Pos: x.Pos(), Func: fa.fn, Why: WriteInitial})
		case fa.ic.c.heldWrite(fa.fn, x, faddr.X, fa.ic.L, 0):
			fa.ic.writes = append(fa.ic.writes, InvariantWrite{Pos: x.Pos(), Func: fa.fn, Why: WriteInside})
		default:
			// Seen by others at once: it must hold right after.
			if !fa.holds(st, k) {
				fa.fail("exposed store", x)
			}
			fa.ic.writes = append(fa.ic.writes, InvariantWrite{Pos: x.Pos(), Func: fa.fn, Why: WriteKeeps})
		}
	case *ssa.Return:
		for _, k := range fa.keys {
			if strings.HasPrefix(k, "a:") {
				continue
			}
			if !fa.holds(st, k) {
				if fa.inside[k] {
					fa.retOK = false // its callers must restore it
				} else {
					fa.fail("return", x)
				}
			}
		}
	case ssa.CallInstruction:
		if ev, isEv := lockEvent(ins); isEv {
			if ev.field == fa.ic.L && (ev.op == opUnlock || ev.op == opRUnlock) && !ev.deferred {
				if !fa.holds(st, baseKey(ev.base)) {
					fa.fail("unlock", x)
				}
			}
			return
		}
		gs := fa.callees(x)
		if len(gs) == 0 {
			return
		}
		cc := x.Common()
		for _, g := range gs {
			r := fa.ic.analyze(g)
			if !r.ok {
				fa.ic.failed = true
				fa.fail("callee "+g.String(), x)
				return
			}
			// The callee changes the structs it is given (or reaches from
			// them); it starts from the invariant, which must hold here.
			for _, k := range fa.keys {
				if !fa.passes(cc, k) {
					continue
				}
				if !fa.holds(st, k) {
					fa.fail("before call", x)
				}
				c := fa.cell(k, ins)
				st.z.forget(c[0])
				st.z.forget(c[1])
				if r.preserves {
					st.z.constrain(c[1], c[0], fa.ic.C)
				}
				st.cells[k] = c
			}
		}
	}
}

func (fa *fnAnalysis) fail(why string, ins ssa.Instruction) {
	fa.ok = false
}

// passes reports whether call cc passes the struct of key k (or a struct
// it reaches) as an argument.
func (fa *fnAnalysis) passes(cc *ssa.CallCommon, k string) bool {
	for _, a := range handedArgs(cc) {
		ak := baseKey(a)
		if ak != "" && (ak == k || strings.HasPrefix(k, ak+".")) {
			return true
		}
	}
	return false
}

// The ways a write keeps an invariant.
const (
	WriteInitial = "initial" // a composite literal's field: the struct's first value
	WriteInside  = "inside"  // made holding the lock; the invariant holds again before it is released
	WriteKeeps   = "keeps"   // made without the lock held: it keeps the invariant itself
)

func reversePostorder(fn *ssa.Function) []*ssa.BasicBlock {
	seen := map[*ssa.BasicBlock]bool{}
	var post []*ssa.BasicBlock
	var visit func(b *ssa.BasicBlock)
	visit = func(b *ssa.BasicBlock) {
		seen[b] = true
		for _, s := range b.Succs {
			if !seen[s] {
				visit(s)
			}
		}
		post = append(post, b)
	}
	if len(fn.Blocks) > 0 {
		visit(fn.Blocks[0])
	}
	for i, j := 0, len(post)-1; i < j; i, j = i+1, j-1 {
		post[i], post[j] = post[j], post[i]
	}
	return post
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
