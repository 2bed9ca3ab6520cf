package feasible

import (
	"go/token"
	"go/types"
	"slices"

	"github.com/srctrace/srctrace/trace/callpath"
	"golang.org/x/tools/go/ssa"
)

// A call through an interface runs a method of the value's dynamic type.
// When the program makes values of that type in one place only, and only
// under a branch of state,
//
//	if noSpaceAlarms { a.applyV3 = newApplierV3Capped(a.applyV3) }
//
// a way through the method needs that branch to have been taken when the
// value was made, though the way itself takes no branch of it. madeConds
// lists such branches with the way's conditions; they are not used to
// refute it (they held at another time).

// Made is the type a condition guards the making of.
type Made struct {
	Type  *types.TypeName
	Maker *ssa.Function // the function that allocates it
	// Kept: the condition keeps the value made in the field it is stored
	// in (a run that took the other way would replace it).
	Kept bool
	// Out: the condition keeps a value of Type out of Field, the field
	// the way's call reads its receiver from: Maker (the one function
	// that sets the field, but for the literals that make its struct)
	// stores one under the other way, and Type's Method cannot lead on to
	// the way's callee (see keptOut).
	Out    bool
	Field  *types.Var
	Method string
	// Past, for Out: Type's Method may lead on to the way's callee, but
	// only past these tests of its own (each, Text as the code has it,
	// taken the Want way), which the analysis does not decide on the
	// way: the way needs the condition, or them.
	Past []Test
	// Blocked, for Past, is the verdict's condition of the same way
	// through Type's Method, checked beside this one, when it is one of
	// those tests, which that way cannot pass (Bar): Method cannot lead
	// on to this way either, and the way needs the condition alone.
	Blocked *Cond
}

// Test is a test of a function's code, taken one way. Of, for a test of
// an error a call returned, is that call as written.
type Test struct {
	Text string
	Pos  token.Pos
	// CallAt, on a test that names a call (Passes, NoError), is where the
	// call is made: the line cited for it (Pos is the test of its error).
	CallAt token.Pos
	Want   bool
	Of     string
	// Passes, on a test of what a check of the request returned that a
	// way needs passed (an alternative of a request's join), is the check
	// as written.
	Passes string
	// NoError says that the test is that the call Text, as written,
	// returned no error (an alternative of a join: eitherNoError); More
	// are the other places the way may make that call instead of at
	// CallAt.
	NoError bool
	More    []token.Pos
	// Under are the branches of state the way takes on the way to this
	// one from where the alternatives part (a join's: a test of a
	// feature before the lessor's lookup): the alternative is all of them.
	Under []Test
	// Asked, on an alternative of a join whose others are branches of
	// state, says the test is the request's (eitherMixed): the way takes
	// it when the request makes Text come out Want.
	Asked bool
	// Either, on a test among an alternative's Under, are the ways into
	// a join that alternative passes (nestedJoins): it takes one of them.
	// The test is that, and has no Text of its own.
	Either []Test
}

// pointee is the named struct type t points to, or nil.
func pointee(t types.Type) *types.TypeName {
	p, ok := t.Underlying().(*types.Pointer)
	if !ok {
		return nil
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	if !ok {
		return nil
	}
	if _, isStruct := n.Underlying().(*types.Struct); !isStruct {
		return nil
	}
	return n.Obj()
}

// madeConds are the conditions of state under which the receiver of the
// call at site, when it runs callee through an interface and the path
// does not know the value, was made.
func (w *walk) madeConds(fr *frame, site ssa.CallInstruction, callee *ssa.Function) []Cond {
	c := site.Common()
	if !c.IsInvoke() || callee.Synthetic != "" || callee.Signature.Recv() == nil {
		return nil
	}
	if recv := fr.eval(c.Value); recv.kind == kObj || recv.kind == kNonNil && recv.dyn != nil {
		return nil
	}
	tn := pointee(callee.Signature.Recv().Type())
	if tn == nil {
		return nil
	}
	k := madeKey{tn: tn, callee: callee}
	if cs, ok := w.c.madeMemo[k]; ok {
		return cs
	}
	cs := w.madeConds1(tn, callee)
	if w.c.madeMemo == nil {
		w.c.madeMemo = map[madeKey][]Cond{}
	}
	w.c.madeMemo[k] = cs
	return cs
}

type madeKey struct {
	tn     *types.TypeName
	callee *ssa.Function
}

func (w *walk) madeConds1(tn *types.TypeName, callee *ssa.Function) []Cond {
	ix := w.c.index()
	allocs := ix.made[tn]
	if len(allocs) != 1 || ix.inner[tn] {
		return nil
	}
	a := allocs[0]
	maker := a.Parent()
	fn, blk := maker, a.Block()
	es := w.c.domEdges(fn, blk)
	made := len(es) // es[made:] keep the value in its field
	if len(es) == 0 {
		// Made on every call of its maker: the branches of the one call
		// of it, if there is one.
		var sites []ssa.CallInstruction
		if n := w.c.g.CG.Nodes[maker]; n != nil {
			for _, e := range n.In {
				if e.Site != nil && e.Site.Common().StaticCallee() == maker {
					sites = append(sites, e.Site)
				}
			}
		}
		if len(sites) != 1 {
			return nil
		}
		fn, blk = sites[0].Parent(), sites[0].Block()
		es = w.c.domEdges(fn, blk)
		made = len(es)
		es = append(es, w.c.notOverwritten(sites[0], callee)...)
	}
	rf := w.newFrame(fn, nil, nil)
	rf.root, rf.rootState = true, true
	var out []Cond
	for i, e := range es {
		text, pos, flip := w.c.text.condText(e.ifi)
		cd := Cond{Func: fn, If: e.ifi, Text: text, Pos: pos, Want: e.want != flip, Made: &Made{Type: tn, Maker: maker, Kept: i >= made}}
		cd.Whole = w.c.text.whole(pos, text)
		w.classify(rf, &cd, e.ifi.Cond, e.want)
		if cd.Class != State {
			continue
		}
		cd.Fields = fieldsRead(e.ifi.Cond)
		out = append(out, cd)
	}
	return out
}

// notOverwritten are the edges a run must not take for the field that the
// call's result is stored in to keep it: a later store to the same field
// of the same value, in its function, under one branch that the store of
// the result is not under (`if corruptAlarms { a.applyV3 =
// newApplierV3Corrupt(a.applyV3) }` after the result's store). Each is
// given as the edge the run takes instead. A later store that wraps the
// field's value in a type whose callee's method forwards to it (one
// promoted from the field it is kept in) does not replace it. None when
// the result is not stored in a field, a later store is under no branch
// of its own or under several, or wraps it in a type whose own method
// may still lead on to the callee.
func (c *Checker) notOverwritten(call ssa.CallInstruction, callee *ssa.Function) []edgeOf {
	v, ok := call.(*ssa.Call)
	if !ok {
		return nil
	}
	var st *ssa.Store
	for _, r := range *v.Referrers() {
		if x, ok := r.(*ssa.Store); ok && x.Val == v {
			st = x
		}
	}
	if st == nil {
		return nil
	}
	fa, ok := st.Addr.(*ssa.FieldAddr)
	if !ok {
		return nil
	}
	fn := st.Parent()
	after := map[*ssa.BasicBlock]bool{}
	queue := append([]*ssa.BasicBlock(nil), st.Block().Succs...)
	for len(queue) > 0 {
		b := queue[0]
		queue = queue[1:]
		if after[b] || b == st.Block() {
			continue
		}
		after[b] = true
		queue = append(queue, b.Succs...)
	}
	own := map[edgeOf]bool{}
	for _, e := range c.domEdges(fn, st.Block()) {
		own[e] = true
	}
	var out []edgeOf
	for _, b := range fn.Blocks {
		if !after[b] {
			continue
		}
		for _, ins := range b.Instrs {
			s2, ok := ins.(*ssa.Store)
			if !ok || s2 == st {
				continue
			}
			fa2, ok := s2.Addr.(*ssa.FieldAddr)
			if !ok || fa2.Field != fa.Field || fa2.X != fa.X {
				continue
			}
			switch c.wraps(s2, callee) {
			case wrapForwards:
				continue
			case wrapMay:
				return nil
			}
			var extra []edgeOf
			for _, e := range c.domEdges(fn, b) {
				if !own[e] {
					extra = append(extra, e)
				}
			}
			if len(extra) != 1 {
				return nil
			}
			out = append(out, edgeOf{ifi: extra[0].ifi, want: !extra[0].want})
		}
	}
	return out
}

// A call through an interface whose receiver is read from a field runs
// the method of whatever value the field holds. When one function sets
// the field (`restoreAlarms`: the base applier, then, under a branch of
// state, a wrapper of it),
//
//	if corruptAlarms { a.applyV3 = newApplierV3Corrupt(a.applyV3) }
//
// and the wrapper's method cannot lead on to the way's callee (it
// returns an error and calls nothing that reaches it), a way through the
// call needs that branch not taken on the run that last set the field.
// keptOut lists such branches with the way's conditions, as madeConds
// does: they held at another time, and do not refute the way. A later
// store in the same function keeps the wrapper in the value when it
// wraps the field's value again with a method that forwards to it (a
// promoted one) or cannot lead on either; any other later store, a store
// under more than one branch of its own, or a store of the field in
// another function than its struct's literals, gives none. A wrapper
// whose own method leads on only past tests of its own
//
//	func (a *applierV3Capped) Txn(r …) … { if a.q.Cost(r) > 0 { return …, ErrNoSpace }; return a.applierV3.Txn(r …) }
//
// gives its branch too, with those tests (Made.Past): the way needs the
// branch not taken, or else the tests passed where it calls the method,
// which the way's own walk does not decide (it calls the wrapped value's
// method directly).

type outKey struct {
	field  *types.Var
	callee *ssa.Function
}

// keptOut are the branches of state that keep a value whose method
// cannot run the callee out of the field the call at site reads its
// receiver from.
func (w *walk) keptOut(fr *frame, site ssa.CallInstruction, callee *ssa.Function) []Cond {
	c := site.Common()
	if !c.IsInvoke() {
		return nil
	}
	f := fieldRead(c.Value)
	if f == nil {
		return nil
	}
	if recv := fr.eval(c.Value); recv.kind == kObj || recv.kind == kNonNil && recv.dyn != nil {
		return nil
	}
	k := outKey{field: f, callee: callee}
	if cs, ok := w.c.outMemo[k]; ok {
		return cs
	}
	cs := w.keptOut1(k)
	if w.c.outMemo == nil {
		w.c.outMemo = map[outKey][]Cond{}
	}
	w.c.outMemo[k] = cs
	return cs
}

func (w *walk) keptOut1(k outKey) []Cond {
	if !w.c.seesAllWrites(k.field) || w.c.index().addrTaken[k.field] {
		return nil
	}
	var setter *ssa.Function
	var sts []*ssa.Store
	for _, st := range w.c.sortedWrites(k.field) {
		if rootAllocOf(st.Addr) != nil {
			continue // its struct's literal
		}
		if setter != nil && st.Parent() != setter {
			return nil
		}
		setter = st.Parent()
		sts = append(sts, st)
	}
	if setter == nil {
		return nil
	}
	var out []Cond
	for i, st := range sts {
		t, _ := storedMade(st.Val)
		if t == nil {
			continue
		}
		wt := pointee(t)
		if wt == nil {
			continue
		}
		var past []Test
		switch w.c.leads(t, k.callee) {
		case wrapBlocks:
		case wrapMay:
			if past = w.c.leadsPast(t, k.callee); past == nil {
				continue
			}
		default:
			continue
		}
		es := w.c.domEdges(setter, st.Block())
		if len(es) != 1 || !w.c.keepsWrapper(st, sts[i+1:], k.callee) {
			continue
		}
		e := es[0]
		rf := w.newFrame(setter, nil, nil)
		rf.root, rf.rootState = true, true
		text, pos, flip := w.c.text.condText(e.ifi)
		cd := Cond{Func: setter, If: e.ifi, Text: text, Pos: pos, Want: !e.want != flip,
			Made: &Made{Type: wt, Maker: setter, Out: true, Field: k.field, Method: k.callee.Name(), Past: past}}
		cd.Whole = w.c.text.whole(pos, text)
		w.classify(rf, &cd, e.ifi.Cond, !e.want)
		if cd.Class != State {
			continue
		}
		cd.Fields = fieldsRead(e.ifi.Cond)
		out = append(out, cd)
	}
	return out
}

// reaches reports whether the call graph leads from fn to target within
// depth calls (true when it cannot tell: a function it does not know).
func (c *Checker) reaches(fn, target *ssa.Function, depth int) bool {
	seen := map[*ssa.Function]bool{fn: true}
	front := []*ssa.Function{fn}
	for d := 0; d < depth && len(front) > 0; d++ {
		var next []*ssa.Function
		for _, f := range front {
			n := c.g.CG.Nodes[f]
			if n == nil {
				return true
			}
			for _, e := range n.Out {
				g := e.Callee.Func
				if g == target {
					return true
				}
				if g != nil && !seen[g] {
					seen[g] = true
					next = append(next, g)
				}
			}
		}
		front = next
	}
	return len(front) > 0
}

// keepsWrapper reports whether every store of later (the field's stores
// after st in its function) that a run may make after st keeps st's
// value in the field's: it wraps a read of the same field with a type
// whose method of callee's name forwards to the value it holds (a
// promoted method) or cannot lead on to callee either.
func (c *Checker) keepsWrapper(st *ssa.Store, later []*ssa.Store, callee *ssa.Function) bool {
	after := reachable(st.Block())
	for _, s2 := range later {
		if !after[s2.Block()] && s2.Block() != st.Block() {
			continue
		}
		if w := c.wraps(s2, callee); w != wrapForwards && w != wrapBlocks {
			return false
		}
	}
	return true
}

// How a store of a field affects a way whose call reads the field and
// runs callee.
const (
	wrapNot      = iota // it does not wrap the field's value: it replaces it
	wrapForwards        // the wrapper's method forwards to the value (promoted)
	wrapBlocks          // the wrapper's own method cannot lead on to callee
	wrapMay             // the wrapper's own method may lead on to callee
)

// wraps says how store s2 of a field affects a way that runs callee
// through a call of the field's value: whether its value wraps a read of
// the same field of the same struct (an argument of the call that makes
// it, or a field of the literal it is), and what the wrapper's method of
// callee's name does.
func (c *Checker) wraps(s2 *ssa.Store, callee *ssa.Function) int {
	fa, ok := s2.Addr.(*ssa.FieldAddr)
	if !ok {
		return wrapNot
	}
	t, made := storedMade(s2.Val)
	if t == nil || made == nil || !readsSame(made, fa) {
		return wrapNot
	}
	return c.leads(t, callee)
}

// leads says whether the method of type t with callee's name forwards to
// a value t holds (promoted: wrapForwards), cannot lead on to callee (its
// own, from which the call graph reaches no call of callee: wrapBlocks),
// or may (wrapMay).
func (c *Checker) leads(t types.Type, callee *ssa.Function) int {
	fn := methodOf(callee.Prog, t, callee)
	switch {
	case fn == nil:
		return wrapMay
	case fn.Synthetic != "":
		return wrapForwards
	case fn == callee || len(fn.Blocks) == 0 || c.reaches(fn, callee, 12):
		return wrapMay
	}
	return wrapBlocks
}

// leadsPast are, for a type t whose own method of callee's name may lead
// on to callee (wrapMay), the tests of that method that every call in it
// that may lead on is past: each a branch that dominates them all, taken
// the way that reaches them (`if a.q.Cost(r) > 0 { return … }` before
// the call that forwards); nil when there is none.
func (c *Checker) leadsPast(t types.Type, callee *ssa.Function) []Test {
	fn := methodOf(callee.Prog, t, callee)
	if fn == nil || fn == callee || len(fn.Blocks) == 0 {
		return nil
	}
	n := c.g.CG.Nodes[fn]
	if n == nil {
		return nil
	}
	var common []edgeOf // nil until the first call that may lead on
	for _, e := range n.Out {
		g := e.Callee.Func
		if e.Site == nil || g == nil || (g != callee && !c.reaches(g, callee, 12)) {
			continue
		}
		es := c.domEdges(fn, e.Site.Block())
		if common == nil {
			common = append([]edgeOf{}, es...)
			continue
		}
		common = slices.DeleteFunc(common, func(x edgeOf) bool { return !slices.Contains(es, x) })
	}
	var out []Test
	for _, e := range common {
		text, pos, flip := c.text.condText(e.ifi)
		if text == "" {
			return nil
		}
		out = append(out, Test{Text: text, Pos: pos, Want: e.want != flip})
	}
	return out
}

// methodOf is the method of type t with callee's name (nil when t has
// none).
func methodOf(prog *ssa.Program, t types.Type, callee *ssa.Function) *ssa.Function {
	obj, ok := callee.Object().(*types.Func)
	if !ok {
		return nil
	}
	sel := prog.MethodSets.MethodSet(t).Lookup(obj.Pkg(), obj.Name())
	if sel == nil {
		return nil
	}
	return prog.MethodValue(sel)
}

// readsSame reports whether made (the call or the literal that makes a
// value) is given a read of the field fa addresses, of the same struct:
// as an argument, or stored into one of the literal's fields.
func readsSame(made ssa.Value, fa *ssa.FieldAddr) bool {
	f := fieldVar(fa.X.Type(), fa.Field)
	same := func(v ssa.Value) bool { return readsFieldOf(v, f, fa.X) }
	switch x := made.(type) {
	case *ssa.Call:
		return slices.ContainsFunc(x.Call.Args, same)
	case *ssa.Alloc:
		for _, r := range *x.Referrers() {
			f, ok := r.(*ssa.FieldAddr)
			if !ok {
				continue
			}
			for _, r2 := range *f.Referrers() {
				if st, ok := r2.(*ssa.Store); ok && st.Addr == f && same(st.Val) {
					return true
				}
			}
		}
	}
	return false
}

// storedMade is the concrete type of the value v puts into an interface
// (a pointer made into it here, or returned so by every return of the
// function v calls), and what makes it: the call, or the literal.
func storedMade(v ssa.Value) (types.Type, ssa.Value) {
	if mi, ok := v.(*ssa.MakeInterface); ok {
		switch x := mi.X.(type) {
		case *ssa.Call:
			return mi.X.Type(), x
		case *ssa.Alloc:
			return mi.X.Type(), x
		}
		return mi.X.Type(), nil
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil, nil
	}
	fn := call.Call.StaticCallee()
	if fn == nil || len(fn.Blocks) == 0 {
		return nil, nil
	}
	var t types.Type
	for _, b := range fn.Blocks {
		if len(b.Instrs) == 0 {
			continue
		}
		r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || len(r.Results) != 1 {
			continue
		}
		mi, ok := r.Results[0].(*ssa.MakeInterface)
		if !ok || t != nil && !types.Identical(t, mi.X.Type()) {
			return nil, nil
		}
		t = mi.X.Type()
	}
	return t, call
}

// Bar marks, among ways checked side by side (each a path and its
// result), the conditions that keep a wrapper out of a field or else need
// its tests to let the way by (Made.Past), where the same way through the
// wrapper's method (the path with that method's hop put in) cannot run
// because of one of those tests: the wrapper cannot lead on to the way,
// which needs the condition alone. It changes the results' conditions in
// copies, not in place (results are kept and shared).
func Bar(paths []callpath.Path, res []*Result) {
	for i := range res {
		for j := range res[i].Conds {
			m := res[i].Conds[j].Made
			if !m.Open() {
				continue
			}
			for k := range res {
				o := res[k]
				if k == i || o.Verdict != No || o.Because == nil || !ThroughWrapper(paths[i], paths[k], m) {
					continue
				}
				b := o.Because
				if !slices.ContainsFunc(m.Past, func(t Test) bool { return t.Pos == b.Pos && t.Want == b.Want }) {
					continue
				}
				res[i].bar(j, b)
				break
			}
		}
	}
}

// bar sets condition j's Made.Blocked to b, in copies of the conditions.
func (r *Result) bar(j int, b *Cond) {
	old := r.Conds
	r.Conds = append([]Cond(nil), old...)
	m := *old[j].Made
	m.Blocked = b
	r.Conds[j].Made = &m
	if r.Because != nil {
		for k := range old {
			if r.Because == &old[k] {
				r.Because = &r.Conds[k]
			}
		}
		if r.Because.Made == old[j].Made {
			c := *r.Because
			c.Made = &m
			r.Because = &c
		}
	}
}

// Open reports whether m is a condition that keeps a wrapper out or
// else needs its tests (Past) which no way checked beside it has settled
// (Blocked): Bar settles it only with the way through the wrapper's
// method (ThroughWrapper) among those ways.
func (m *Made) Open() bool {
	return m != nil && m.Out && len(m.Past) > 0 && m.Blocked == nil
}

// ThroughWrapper reports whether path o is path p with one hop put in
// that runs the method m names of m's type.
func ThroughWrapper(p, o callpath.Path, m *Made) bool {
	if len(o) != len(p)+1 {
		return false
	}
	k := 0
	inserted := false
	for i := range o {
		if k < len(p) && o[i].Callee == p[k].Callee {
			k++
			continue
		}
		fn := o[i].Callee
		if inserted || fn == nil || fn.Name() != m.Method || !isMethodOf(fn, m.Type) {
			return false
		}
		inserted = true
	}
	return inserted && k == len(p)
}

// isMethodOf reports whether fn is a method of named type t (or of a
// pointer to it).
func isMethodOf(fn *ssa.Function, t *types.TypeName) bool {
	recv := fn.Signature.Recv()
	if recv == nil {
		return false
	}
	rt := recv.Type()
	if p, ok := rt.(*types.Pointer); ok {
		rt = p.Elem()
	}
	n, ok := rt.(*types.Named)
	return ok && n.Obj() == t
}
