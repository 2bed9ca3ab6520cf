package feasible

import (
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// What one goroutine keeps still. A function the target says runs one
// call at a time (Checker.SetSerial: the apply job, which a FIFO
// scheduler's one worker runs) is serial: while one of its runs goes on,
// no other runs. A field that only code within such a run writes (reached
// from the serial function by calls, never through a go statement) does
// not change between two reads of a path inside one run, unless the path
// itself writes it between them.
//
// A way that needs such a field to change between two reads, where the
// path writes it nowhere between them, is No when every write of the
// field is made within the serial function's runs, or else only within
// calls of the function the target says returns before those runs begin
// (SetSerialAfter: a server's making, before its loops start), and not
// decided (Unknown) when some are made elsewhere too: the reason names
// those writes and where they are reached from.

// SetSerial says that fn runs one call at a time: by (a hand-off's
// name) starts its runs, each ending before the next begins.
func (c *Checker) SetSerial(fn *ssa.Function, by string) {
	if fn != nil && !c.isSerial(fn) {
		c.serial = append(c.serial, fn)
		c.serialBy = append(c.serialBy, by)
	}
}

// SetSerialAfter says that serial function fn's runs begin only after
// the calls of after have returned (the target's start-up order: the
// server is made before its loops start). It holds only where after
// cannot start them itself: when fn is reachable from after, by calls
// or through go statements, it is not set.
func (c *Checker) SetSerialAfter(fn, after *ssa.Function, why string) {
	if fn == nil || after == nil || !c.isSerial(fn) || c.closure([]*ssa.Function{after}, true, true)[fn] {
		return
	}
	m := map[*ssa.Function]serialAfter{}
	for k, v := range c.after {
		m[k] = v
	}
	m[fn] = serialAfter{fn: after, why: why}
	c.after = m
}

// serialAfter is the function whose calls return before a serial
// function's runs begin, and why (the target's words).
type serialAfter struct {
	fn  *ssa.Function
	why string
}

// beforeRuns reports whether every way into fn that does not come from
// s's runs passes through a call of the function whose calls return
// before s's runs begin (SetSerialAfter): followed from fn up through
// its callers, each way meets that function or s, and none starts in a
// function no one calls or through a go statement (a goroutine that
// could outlive the call).
func (c *Checker) beforeRuns(fn, s *ssa.Function) bool {
	after := c.after[s].fn
	if after == nil {
		return false
	}
	k := stillKey{s: s, fn: fn}
	if x, ok := c.befores[k]; ok {
		return x
	}
	ok := true
	seen := map[*ssa.Function]bool{fn: true}
	queue := []*ssa.Function{fn}
	for len(queue) > 0 && ok {
		f := queue[0]
		queue = queue[1:]
		if f == s || f == after {
			continue
		}
		n := c.g.CG.Nodes[f]
		if n == nil || len(n.In) == 0 {
			ok = false
			break
		}
		for _, e := range n.In {
			if _, isGo := e.Site.(*ssa.Go); isGo || e.Caller == nil || e.Caller.Func == nil {
				ok = false
				break
			}
			if g := e.Caller.Func; !seen[g] {
				seen[g] = true
				queue = append(queue, g)
			}
		}
	}
	if c.befores == nil {
		c.befores = map[stillKey]bool{}
	}
	c.befores[k] = ok
	return ok
}

func (c *Checker) isSerial(fn *ssa.Function) bool {
	for _, s := range c.serial {
		if s == fn {
			return true
		}
	}
	return false
}

// serialName is what starts serial function fn's runs.
func (c *Checker) serialName(fn *ssa.Function) string {
	for i, s := range c.serial {
		if s == fn {
			return c.serialBy[i]
		}
	}
	return ""
}

// Still is what keeps a field still between two reads of a path that
// runs within serial function S: In are the writes of A made only within
// S's runs, Out the others, each with where its ways in leave S's runs
// (From: callers S's runs never call, or what starts it in a goroutine).
type Still struct {
	A *types.Var
	S *ssa.Function
	// By is what starts S's runs one at a time (a hand-off's name).
	By   string
	In   []InvariantWrite
	Out  []InvariantWrite
	From [][]*ssa.Function
	// Before are the writes made outside S's runs only within calls of
	// After, the function whose calls return before S's runs begin
	// (SetSerialAfter).
	Before   []InvariantWrite
	After    *ssa.Function
	AfterWhy string // why After's calls return before S's runs begin
	// Entry says that A holds a map and the writes are of its entries
	// (puts, deletes, new maps): the two reads are lookups of one key.
	Entry bool
	// Grows, when set, is the order A keeps but through writes that may
	// lower it (Grows.Unbounded): In, Out and Before are those writes
	// only, and the others, which only raise it (Grows.Writes), may come
	// anywhere. What it keeps between two reads is their order, not
	// their value.
	Grows *Invariant
}

type stillKey struct {
	a     *types.Var
	s     *ssa.Function
	fn    *ssa.Function // beforeRuns's
	lower bool          // lowersOf's
}

// stillOf classifies the writes of field a by whether they run only
// within serial function s; nil when the analysis does not see every
// write of a (or a has none but the ones that make a struct).
func (c *Checker) stillOf(a *types.Var, s *ssa.Function) *Still {
	k := stillKey{a: a, s: s}
	if x, ok := c.stills[k]; ok {
		return x
	}
	var out *Still
	if c.seesAllWrites(a) && !c.index().addrTaken[a] && !c.structStored(a) {
		out = &Still{A: a, S: s, By: c.serialName(s), Entry: isMapType(a.Type())}
		var sites []ssa.Instruction
		if out.Entry {
			e := c.entryWrites(a)
			if !e.ok {
				c.setStill(k, nil)
				return nil
			}
			sites = e.ws
		} else {
			for _, st := range c.sortedWrites(a) {
				if !madeWrite(st) { // a struct's making: nothing else sees it yet
					sites = append(sites, st)
				}
			}
		}
		c.classifyWrites(out, sites)
		if len(out.In)+len(out.Out)+len(out.Before) == 0 {
			out = nil
		}
	}
	c.setStill(k, out)
	return out
}

// lowersOf classifies, for field a that keeps order inv but through
// writes that may lower it (inv.Unbounded), those writes by whether they
// run only within serial function s; nil when a has none.
func (c *Checker) lowersOf(a *types.Var, s *ssa.Function, inv *Invariant) *Still {
	k := stillKey{a: a, s: s, lower: true}
	if x, ok := c.stills[k]; ok {
		return x
	}
	var out *Still
	if stores := c.lowering(a, inv); len(stores) > 0 {
		out = &Still{A: a, S: s, By: c.serialName(s), Grows: inv}
		var sites []ssa.Instruction
		for _, st := range stores {
			sites = append(sites, st)
		}
		c.classifyWrites(out, sites)
	}
	c.setStill(k, out)
	return out
}

// lowering are the stores of a that its order inv does not bound
// (inv.Unbounded): the writes that may lower it.
func (c *Checker) lowering(a *types.Var, inv *Invariant) []*ssa.Store {
	var out []*ssa.Store
	for _, st := range c.sortedWrites(a) {
		for _, u := range inv.Unbounded {
			if u.Pos == st.Pos() && u.Func == st.Parent() {
				out = append(out, st)
				break
			}
		}
	}
	return out
}

// insLowers reports whether instruction ins may make a write of a that
// its order inv does not bound: such a store, or a call (deferred, or
// started in a goroutine) of code that may.
func (c *Checker) insLowers(ins ssa.Instruction, a *types.Var, inv *Invariant) bool {
	switch x := ins.(type) {
	case *ssa.Store:
		return slices.Contains(c.lowering(a, inv), x)
	case ssa.CallInstruction:
		set, ok := c.lowerers[a]
		if !ok {
			var seeds []*ssa.Function
			for _, st := range c.lowering(a, inv) {
				seeds = append(seeds, st.Parent())
			}
			set = c.closure(seeds, false, true)
			if c.lowerers == nil {
				c.lowerers = map[*types.Var]map[*ssa.Function]bool{}
			}
			c.lowerers[a] = set
		}
		return c.anyCallee(x, func(fn *ssa.Function) bool { return set[fn] })
	}
	return false
}

// classifyWrites sorts the writes sites of out's field into out.In (made
// only within its serial function's runs), out.Before (only before they
// begin) and out.Out (elsewhere too, with where their ways in leave the
// runs).
func (c *Checker) classifyWrites(out *Still, sites []ssa.Instruction) {
	s := out.S
	for _, st := range sites {
		w := InvariantWrite{Pos: st.Pos(), Func: st.Parent(), Text: shortStmt(c.text.stmtText(st.Pos()))}
		if tops, ok := c.within(st.Parent(), s); ok {
			out.In = append(out.In, w)
		} else if c.beforeRuns(st.Parent(), s) {
			out.Before = append(out.Before, w)
			out.After, out.AfterWhy = c.after[s].fn, c.after[s].why
		} else {
			out.Out = append(out.Out, w)
			out.From = append(out.From, tops)
		}
	}
}

// shortStmt is an assignment as written, its value cut when long (a
// literal over many lines): "m[k] = &T{…}".
func shortStmt(s string) string {
	if len(s) <= 72 {
		return s
	}
	if lhs, rhs, ok := strings.Cut(s, " = "); ok {
		if i := strings.IndexAny(rhs, "{("); i >= 0 && i < 40 {
			return lhs + " = " + rhs[:i+1] + "…" + string(closing(rhs[i]))
		}
		return lhs + " = …"
	}
	return s
}

// shortCall is a call as written, its arguments cut when long:
// "le.cp(…)".
func shortCall(s string) string {
	if len(s) <= 72 {
		return s
	}
	if i := strings.Index(s, "("); i > 0 && strings.HasSuffix(s, ")") {
		return s[:i] + "(…)"
	}
	return s
}

func closing(b byte) byte {
	if b == '{' {
		return '}'
	}
	return ')'
}

func (c *Checker) setStill(k stillKey, st *Still) {
	if c.stills == nil {
		c.stills = map[stillKey]*Still{}
	}
	c.stills[k] = st
}

// within reports whether fn runs only within runs of s: every way that
// calls it comes from s by calls (not through a go statement). When not,
// outside are where its ways in leave s's runs, nearest the write first
// (the first few by name): the callers on them that s's runs never call,
// or the functions a go statement starts it from.
func (c *Checker) within(fn *ssa.Function, s *ssa.Function) (outside []*ssa.Function, ok bool) {
	inS := c.runsOf(s)
	seen := map[*ssa.Function]bool{fn: true}
	queue := []*ssa.Function{fn}
	ok = true
	add := func(f *ssa.Function) {
		ok = false
		for _, t := range outside {
			if t == f {
				return
			}
		}
		outside = append(outside, f)
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if f == s {
			continue
		}
		n := c.g.CG.Nodes[f]
		if n == nil || len(n.In) == 0 {
			add(f)
			continue
		}
		for _, e := range n.In {
			g := e.Caller.Func
			if e.Caller == nil || g == nil {
				add(f)
				continue
			}
			if _, isGo := e.Site.(*ssa.Go); isGo {
				add(g)
				continue
			}
			if !inS[g] {
				// A caller s's runs never call: the way in leaves them here.
				add(g)
				continue
			}
			if !seen[g] {
				seen[g] = true
				queue = append(queue, g)
			}
		}
	}
	sort.Slice(outside, func(i, j int) bool { return outside[i].String() < outside[j].String() })
	if len(outside) > 3 {
		outside = outside[:3]
	}
	return outside, ok
}

// runsOf are the functions s's runs may call, s among them (by calls, not
// through a go statement).
func (c *Checker) runsOf(s *ssa.Function) map[*ssa.Function]bool {
	if r, ok := c.runs[s]; ok {
		return r
	}
	r := c.closure([]*ssa.Function{s}, true, false)
	if c.runs == nil {
		c.runs = map[*ssa.Function]map[*ssa.Function]bool{}
	}
	c.runs[s] = r
	return r
}

// mayWrite reports whether a call of fn may write field a: fn, or a
// function it may call or start, writes it.
func (c *Checker) mayWrite(fn *ssa.Function, a *types.Var) bool {
	set, ok := c.writers[a]
	if !ok {
		var seeds []*ssa.Function
		for _, st := range c.index().writes[a] {
			if !madeWrite(st) {
				seeds = append(seeds, st.Parent())
			}
		}
		if isMapType(a.Type()) {
			for _, x := range c.entryWrites(a).ws {
				seeds = append(seeds, x.Parent())
			}
		}
		set = c.closure(seeds, false, true)
		if c.writers == nil {
			c.writers = map[*types.Var]map[*ssa.Function]bool{}
		}
		c.writers[a] = set
	}
	return set[fn]
}

// insWrites reports whether instruction ins may write field a: a store
// to it, or a call (deferred, or started in a goroutine) of code that may.
func (c *Checker) insWrites(ins ssa.Instruction, a *types.Var) bool {
	if isMapType(a.Type()) && c.entryWrites(a).set[ins] {
		return true
	}
	switch x := ins.(type) {
	case *ssa.Store:
		if fa, ok := x.Addr.(*ssa.FieldAddr); ok && fieldVar(fa.X.Type(), fa.Field) == a && !madeWrite(x) {
			return true
		}
	case ssa.CallInstruction:
		return c.anyCallee(x, func(fn *ssa.Function) bool { return c.mayWrite(fn, a) })
	}
	return false
}

// step is where a read's way up the path is in one frame: the read, or
// the call that leads to it.
type step struct {
	fr  *frame
	ins ssa.Instruction
}

// serialOf is the serial function whose run holds frame f: f's or a
// caller's, reached from it by calls (a go statement on the way starts
// another goroutine); nil when there is none.
func (c *Checker) serialOf(f *frame) *ssa.Function {
	for ; f != nil; f = f.parent {
		if c.isSerial(f.fn) {
			return f.fn
		}
		if _, isGo := f.callAt.(*ssa.Go); isGo {
			return nil
		}
	}
	return nil
}

// intReads are the terms of the path's reads of integer fields, sorted.
func (w *walk) intReads() []string {
	var terms []string
	for t, ti := range w.terms {
		if ti.read != nil && isInteger(ti.read.field.Type()) {
			terms = append(terms, t)
		}
	}
	sort.Strings(terms)
	return terms
}

// stepsOf is read r's way up the path, from its own frame.
func stepsOf(r *readInfo) []step {
	ins, ok := r.at.(ssa.Instruction)
	if !ok {
		return nil
	}
	var out []step
	for f, k := r.fr, 0; f != nil && k < 64; f, k = f.parent, k+1 {
		out = append(out, step{f, ins})
		if f.callAt == nil {
			break
		}
		ins = f.callAt
	}
	return out
}

// stillBetween is what keeps field a still between reads first and then
// of the path (first before then), when the path runs within a serial
// function there and writes a nowhere between them; nil otherwise.
func (w *walk) stillBetween(first, then *readInfo) *Still {
	a := first.field
	return w.keptBetween(first, then, func(s *ssa.Function) *Still { return w.c.stillOf(a, s) },
		func(ins ssa.Instruction) bool { return w.c.insWrites(ins, a) })
}

// loweredBetween is what keeps field a from going down between reads
// first and then of the path (first before then), where a keeps order
// inv but through writes that may lower it: the path runs within a
// serial function there and makes none of those writes between the
// reads (writes that only raise a may come between); nil otherwise. It
// keeps it when every write that may lower a is made within the serial
// function's runs, or before they begin (no Out: gaveStill decides).
func (w *walk) loweredBetween(first, then *readInfo, inv *Invariant) *Still {
	a := first.field
	return w.keptBetween(first, then, func(s *ssa.Function) *Still { return w.c.lowersOf(a, s, inv) },
		func(ins ssa.Instruction) bool { return w.c.insLowers(ins, a, inv) })
}

// keptBetween is what of (its answer for the serial function that holds
// both reads) says keeps their field between reads first and then of the
// path, when the path, within one run of that function, makes no write
// that writes reports between them; nil otherwise.
func (w *walk) keptBetween(first, then *readInfo, of func(*ssa.Function) *Still, writes func(ssa.Instruction) bool) *Still {
	if len(w.c.serial) == 0 {
		return nil
	}
	ca, cb := stepsOf(first), stepsOf(then)
	at := map[*frame]int{}
	for i, s := range ca {
		at[s.fr] = i
	}
	ia, ib := -1, -1
	for j, s := range cb {
		if i, ok := at[s.fr]; ok {
			ia, ib = i, j
			break
		}
	}
	if ia < 0 {
		return nil
	}
	// The serial function whose run holds both: a frame at or above the
	// one where their ways part, reached from it by calls (a go statement
	// on the way starts another goroutine).
	s := w.c.serialOf(ca[ia].fr)
	if s == nil {
		return nil
	}
	for _, x := range append(ca[:ia:ia], cb[:ib]...) {
		if _, isGo := x.fr.callAt.(*ssa.Go); isGo {
			return nil
		}
	}
	st := of(s)
	if st == nil {
		return nil
	}
	// Below the common frame, on first's side: the rest of each function
	// after its step (and what it defers, run when it returns).
	for _, x := range ca[:ia] {
		if writesAfter(x.ins, writes) {
			return nil
		}
	}
	// On then's side: each function from its entry to its step.
	for _, x := range cb[:ib] {
		if writesBefore(x.ins, writes) {
			return nil
		}
	}
	// In the common frame, between the two steps.
	if writesBetweenIns(ca[ia].ins, cb[ib].ins, writes) {
		return nil
	}
	return st
}

// writesAfter reports whether a run of ins's function may write a after
// ins: in the rest of its block, in a block reachable from it, or in a
// deferred call.
func (c *Checker) writesAfter(ins ssa.Instruction, a *types.Var) bool {
	return writesAfter(ins, func(x ssa.Instruction) bool { return c.insWrites(x, a) })
}

// writesAfter reports whether a run of ins's function may make a write
// that writes reports after ins.
func writesAfter(ins ssa.Instruction, writes func(ssa.Instruction) bool) bool {
	b := ins.Block()
	i := instrIndex(ins)
	for _, x := range b.Instrs[i+1:] {
		if writes(x) {
			return true
		}
	}
	seen := map[*ssa.BasicBlock]bool{}
	for _, s := range b.Succs {
		for x := range reachable(s) {
			if seen[x] {
				continue
			}
			seen[x] = true
			for _, y := range x.Instrs {
				if writes(y) {
					return true
				}
			}
		}
	}
	for _, x := range ins.Parent().Blocks {
		for _, y := range x.Instrs {
			if _, isDefer := y.(*ssa.Defer); isDefer && writes(y) {
				return true
			}
		}
	}
	return false
}

// writesBefore reports whether a run of ins's function may write a
// before it reaches ins.
func (c *Checker) writesBefore(ins ssa.Instruction, a *types.Var) bool {
	return writesBefore(ins, func(x ssa.Instruction) bool { return c.insWrites(x, a) })
}

// writesBefore reports whether a run of ins's function may make a write
// that writes reports before it reaches ins.
func writesBefore(ins ssa.Instruction, writes func(ssa.Instruction) bool) bool {
	b := ins.Block()
	reach := reachesTo(b)
	loops := false
	for _, s := range b.Succs {
		loops = loops || reach[s]
	}
	for x := range reach {
		for k, y := range x.Instrs {
			if x == b && !loops && k >= instrIndex(ins) {
				break
			}
			if _, isDefer := y.(*ssa.Defer); isDefer {
				continue
			}
			if y != ins && writes(y) {
				return true
			}
		}
	}
	return false
}

// writesBetweenIns reports whether a run of one function may write a
// after instruction x and before instruction y (a deferred call runs at
// the function's end, not there).
func (c *Checker) writesBetweenIns(x, y ssa.Instruction, a *types.Var) bool {
	return writesBetweenIns(x, y, func(z ssa.Instruction) bool { return c.insWrites(z, a) })
}

// writesBetweenIns reports whether a run of one function may make a
// write that writes reports after instruction x and before instruction y.
func writesBetweenIns(x, y ssa.Instruction, writes func(ssa.Instruction) bool) bool {
	return anyBetween(x, y, func(z ssa.Instruction) bool {
		_, isDefer := z.(*ssa.Defer)
		return !isDefer && writes(z)
	}, nil)
}

// stillPairs are the assumptions that reads of the path are still
// between them: for each pair of reads of one struct's integer field,
// first before then, that a serial run keeps still (stillBetween), the
// two reads are one value.
func (w *walk) stillPairs() []assumed {
	if len(w.c.serial) == 0 {
		return nil
	}
	var out []assumed
	seen := map[[2]string]bool{}
	for _, t := range w.intReads() {
		rd := w.terms[t].read
		for _, p := range w.orderedPairs(t, rd) {
			k := [2]string{p.first, p.then}
			if seen[k] {
				continue
			}
			seen[k] = true
			st := w.stillBetween(w.terms[p.first].read, w.terms[p.then].read)
			if st == nil {
				continue
			}
			reads := []token.Pos{p.at[0], p.at[1]}
			out = append(out,
				assumed{a: p.first, b: p.then, still: st, reads: reads},
				assumed{a: p.then, b: p.first, still: st, reads: reads})
		}
	}
	return out
}

// loweredPairs are the assumptions that a field that only grows, but
// through writes that may lower it (an order the analysis does not
// assume, see order.go), does not go down between two reads of the path
// that a serial run holds with none of those writes between them and
// none made outside such runs (loweredBetween): the first is at most the
// second.
func (w *walk) loweredPairs() []assumed {
	if len(w.c.serial) == 0 {
		return nil
	}
	var out []assumed
	for _, t := range w.intReads() {
		rd := w.terms[t].read
		inv := w.c.grows(rd.field)
		if inv == nil || len(inv.Unbounded) == 0 {
			continue
		}
		for _, p := range w.orderedPairs(t, rd) {
			if p.then != t {
				continue // each pair once: from its later read
			}
			st := w.loweredBetween(w.terms[p.first].read, w.terms[p.then].read, inv)
			if st == nil {
				continue
			}
			out = append(out, assumed{a: p.first, b: p.then, inv: inv, still: st, reads: []token.Pos{p.at[0], p.at[1]}})
		}
	}
	return out
}

// raisePairs are the assumptions that a read of the path is at least
// the value a raise the path passed before it left in the field: a write
// `f = v` under a test that finds f below v (`if f < v { f = v }`), in a
// frame of the path, whose test the way from that frame's entry to its
// step on the path passes, when a serial run holds both and writes f
// nowhere between the write and the read (raisedBefore). On both sides
// of the test f is then at least v.
func (w *walk) raisePairs() []assumed {
	if len(w.c.serial) == 0 {
		return nil
	}
	var out []assumed
	for _, t := range w.intReads() {
		rd := w.terms[t].read
		for _, r := range w.raisedBefore(rd) {
			out = append(out, assumed{b: t, raised: r.val, still: r.still, raise: r.text, reads: []token.Pos{r.at, rd.at.Pos()}})
		}
	}
	return out
}

// raise is a write that raised a field before a read of the path: the
// value it stored (one of several, maybe: resolved in each world), the
// write's place and statement, and what keeps the field still from it to
// the read.
type raise struct {
	val   *value
	at    token.Pos
	text  string
	still *Still
}

// raisedBefore are the raises of read rd's field that the path passes
// before rd, with no other write of the field between (see raisePairs).
func (w *walk) raisedBefore(rd *readInfo) []raise {
	chain := stepsOf(rd)
	a := rd.field
	c := w.c
	var out []raise
	for gi, g := range chain {
		if gi > 0 {
			// The frame below, on the way down to the read: a goroutine
			// it starts runs apart, and a write of the field in it before
			// its step leaves no raise above the last.
			x := chain[gi-1]
			if _, isGo := x.fr.callAt.(*ssa.Go); isGo || c.writesBefore(x.ins, a) {
				break
			}
		}
		// The serial function whose run holds the write and the read.
		s := c.serialOf(g.fr)
		if s == nil {
			continue
		}
		for _, b := range g.fr.fn.Blocks {
			for _, ins := range b.Instrs {
				st, ok := ins.(*ssa.Store)
				if !ok {
					continue
				}
				v, fa, ok := raiseOf(st, a)
				if !ok || !passesRaise(st, g.ins) || c.writesBetweenIns(st, g.ins, a) {
					continue
				}
				owner := c.owner(a)
				if base := g.fr.eval(fa.X); base.term == "" || w.stableTerm(base.term, owner) != w.stableTerm(rd.base, owner) {
					continue
				}
				val := g.fr.eval(v)
				if val.org == unknown {
					continue
				}
				still := c.stillOf(a, s)
				if still == nil {
					continue
				}
				out = append(out, raise{val: val, at: st.Pos(), text: c.text.stmtText(st.Pos()), still: still})
			}
		}
	}
	return out
}

// raiseOf reports whether store st writes field a only to raise it: it
// stores v in the block that a test finding a below v (`a < v`, `a <= v`,
// or `v > a`, `v >= a`, on a read of the same struct's field) alone leads
// to. It returns v and the field's address.
func raiseOf(st *ssa.Store, a *types.Var) (ssa.Value, *ssa.FieldAddr, bool) {
	fa, ok := st.Addr.(*ssa.FieldAddr)
	if !ok || fieldVar(fa.X.Type(), fa.Field) != a || madeWrite(st) {
		return nil, nil, false
	}
	b := st.Block()
	if len(b.Preds) != 1 {
		return nil, nil, false
	}
	p := b.Preds[0]
	ifi, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If)
	if !ok || p.Succs[0] != b {
		return nil, nil, false
	}
	cmp, ok := ifi.Cond.(*ssa.BinOp)
	if !ok {
		return nil, nil, false
	}
	readOf := func(x ssa.Value) bool {
		ld, ok := x.(*ssa.UnOp)
		if !ok || ld.Op != token.MUL {
			return false
		}
		f, ok := ld.X.(*ssa.FieldAddr)
		return ok && f.X == fa.X && f.Field == fa.Field
	}
	switch {
	case (cmp.Op == token.LSS || cmp.Op == token.LEQ) && readOf(cmp.X) && cmp.Y == st.Val,
		(cmp.Op == token.GTR || cmp.Op == token.GEQ) && readOf(cmp.Y) && cmp.X == st.Val:
		return st.Val, fa, true
	}
	return nil, nil, false
}

// passesRaise reports whether a run that reaches ins passes the test of
// raise st first, once: the test's block dominates ins's, no loop takes
// the run back to it, and ins is not in the raise's block before it.
func passesRaise(st *ssa.Store, ins ssa.Instruction) bool {
	p := st.Block().Preds[0]
	if !p.Dominates(ins.Block()) || p == ins.Block() {
		return false
	}
	for _, s := range p.Succs {
		if reachable(s)[p] {
			return false
		}
	}
	return ins.Block() != st.Block() || instrIndex(st) < instrIndex(ins)
}

// Stilled is the Why of a path's condition of class Gave when the way
// can run only if a field changes between two reads, inside a run of a
// serial function that writes it nowhere between them, and some write of
// the field is made outside such runs (Cond.Still).
const Stilled = "stilled"

// gaveStill makes res No when every write of the field is made within
// the serial function's runs, and Unknown otherwise; the condition the
// way needs it changed for is the one named.
func (w *walk) gaveStill(res Result, x *assumed, needs []*Cond) Result {
	st := x.still
	var near *Cond
	for i := len(res.Conds) - 1; i >= 0 && near == nil; i-- {
		c := &res.Conds[i]
		for _, n := range needs {
			if c.Pos == n.Pos && c.Text == n.Text && c.Want == n.Want {
				near = c
			}
		}
	}
	if len(st.Out) == 0 && !x.apart && len(x.unnamed) == 0 {
		if near == nil {
			for i := len(res.Conds) - 1; i >= 0 && near == nil; i-- {
				if c := &res.Conds[i]; c.Class == State {
					near = c
				}
			}
		}
		if near != nil {
			c := *near
			c.Class = Excluded
			c.Why = ""
			c.Refuted = []Reason{{Kind: ReasonStill, Pos: x.reads[1], Text: itoa(int(x.reads[0])), Still: st, Raise: x.raise}}
			if x.entry {
				// What the earlier lookup found: the branches that, with
				// the entry the later one needs, leave no way.
				c.Refuted = append(c.Refuted, explain(w.c.text.fset, x.rs, near)...)
			}
			res.Conds = append(append([]Cond(nil), res.Conds...), c)
			res.Verdict, res.Because = No, &res.Conds[len(res.Conds)-1]
			return res
		}
	}
	cond := Cond{Class: Gave, Why: Stilled, Pos: st.S.Pos(), Func: st.S, Still: st, Reads: x.reads, Apart: x.apart, Raise: x.raise}
	for _, p := range dedupPos(x.unnamed) {
		cond.Unnamed = append(cond.Unnamed, InvariantWrite{Pos: p, Text: w.c.text.stmtText(p)})
	}
	if x.entry {
		// With the entry unchanged, these leave the way no world.
		cond.Refuted = explain(w.c.text.fset, x.rs, near)
	}
	if len(st.Out) > 0 {
		cond.Pos, cond.Func = st.Out[0].Pos, st.Out[0].Func
	}
	return gaveOn(res, cond, needs, st.A)
}
