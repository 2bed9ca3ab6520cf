// Package signal follows the meaning of a study's sentinel through the
// code rather than its name: where a revision is compared with the store's
// compaction revision (the decisions and boundaries), where the response
// fields that carry the compaction out are written and read, the hand-offs
// between goroutines (go statements, watcher groups, channels), how the
// client turns the signal into an error value and its text, and what the
// command line tool prints and with which exit status.
//
// Everything is found from the study's names in the loaded packages: the
// objects it names are looked up by qualified name, and every position,
// text and value comes from the syntax, the types or the SSA form.
package signal

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
)

// Input is what Analyze reads.
type Input struct {
	Spec     *Spec
	Pkgs     []*packages.Package // loaded from source
	Graph    *callpath.Graph
	Sentinel types.Object
	// Entries maps entry names to their functions; Reach to the functions
	// each reaches.
	Entries map[string]*ssa.Function
	Reach   map[string]map[*ssa.Function]bool
}

// Pos is a position with the function that holds it.
type Pos struct {
	token.Position
	Func *ssa.Function // nil at package level
	Text string        // the source text there (an expression or a line)

	pos token.Pos // the position in the program's file set
}

// Comparison is an ordering comparison of a revision with a value derived
// from the store's compaction revision.
type Comparison struct {
	Pos
	Op string // as written: "<", "<=", ">", ">="
	// Revision is the other operand's text ("w.minRev", "rev").
	Revision string
	// RevisionObj is the object the other operand denotes, when it is a
	// variable or field.
	RevisionObj types.Object
	// Decision is set when the comparison guards a signal write or a use of
	// the sentinel; Consequence says which, or what the guarded code does.
	Decision    bool
	Consequence string
	// Guard is the whole condition the comparison is part of, when it is
	// more than the comparison ("rev > 0 && rev < compactRev").
	Guard string
	// Signals is set when the guarded code writes a signal field: the
	// decision signals without the sentinel. NoWait is set when that
	// signal is sent in a select with a default case (at NoWaitAt): when
	// the channel is full, nothing is sent on that run.
	Signals, NoWait bool
	NoWaitAt        Pos
	// ConsequencePos is the position of the guarded write or use.
	ConsequencePos Pos
	// LowestPassing is the lowest revision that passes relative to the
	// compaction revision C: 0 means C passes and C-1 fails, 1 means C
	// itself fails.
	LowestPassing int
}

// Write is a write of a signal field (a composite literal key or an
// assignment).
type Write struct {
	Pos
	Field string // qualified "pkg.T.field"
	Value string // the value's text
	// Past is set when the value is one past another (x + 1, or the
	// larger of such a value and others): the text of x.
	Past string
}

// Mark is where the wire response is marked canceled from a read of a
// signal field.
type Mark struct {
	Read  Pos // the comparison that reads the signal field
	Write Pos // the write of the cancel flag
	// NonZero says that the comparison is the signal field's `!= 0`: the
	// flag is set only when the field is not 0.
	NonZero bool
	// Branches are the conditions in the same function that read the
	// mark or a signal field; none when the function only passes the
	// mark on in the response and goes on. Ends are those of them whose
	// branch returns.
	Branches, Ends []Pos
}

// Refusal is a create response that is created and canceled at once.
type Refusal struct {
	Pos
	Cond   string // the condition that leads to it
	Reason string // the cancel reason's expression
	Text   string // the reason's text, when it can be evaluated
	// CondAt is where the condition is tested, ReasonAt where the reason
	// is set; Def where a variable the condition tests is set
	// ("err := sws.isWatchPermitted(creq)"), when it is a local.
	CondAt, ReasonAt, Def Pos
}

// GoStmt is a go statement that starts a loop.
type GoStmt struct {
	Pos
	Loop string // qualified name of the loop function
}

// GroupAccess is a use of a watcher group field.
type GroupAccess struct {
	Pos
	Group  string // qualified field name
	Method string // the method called on it, if any
	Cond   string // the condition guarding the access, if any
	// CondDef is the definition of a condition that is a local variable
	// ("synced := startRev > s.store.currentRev || startRev == 0").
	CondDef Pos
}

// ChanOp is a send or receive on a channel of the study's element type.
type ChanOp struct {
	Pos
	Send    bool
	Carries bool // the value sent sets a signal field
}

// Const is a pacing value.
type Const struct {
	Pos
	Name   string // the study's words
	Object string // qualified name, or the call
	Value  string // formatted
	// Int is the value as an integer (a time.Duration in nanoseconds),
	// when IsInt.
	Int    int64
	IsInt  bool
	Absent bool // the object does not exist in this release
	// Via and Declared name the constant a call's argument is, if any.
	Via      string
	Declared *Pos
	// Resets are, for a call that makes a ticker, the calls in the same
	// function that reset that ticker.
	Resets []Reset
}

// Reset is a call that resets a ticker: with the argument the ticker was
// made with (Same), or with another (Arg) under a condition (Cond, its
// and its text; empty when none guards it).
type Reset struct {
	Pos
	Arg  string
	Same bool
	Cond Pos
	// OneBehind is the condition's value for every outcome of a pass
	// over one behind watcher (the behind group's size 1 before the pass,
	// 0 or 1 after it), when the condition compares only those two counts
	// and constants; nil when it is not decided.
	OneBehind *bool
}

// FieldStores lists the writes of one field.
type FieldStores struct {
	Field  string
	Absent bool
	Stores []Write
}

// ErrorText is an error value's text, found by following its initializer.
type ErrorText struct {
	Object string // qualified name of the error variable
	Text   string
	Code   string // gRPC code, when the chain builds a status error
	Chain  []Pos  // the declarations followed, outermost first
}

// Client is the client layer.
type Client struct {
	Method Pos // the error method
	Case   Pos // the case that reads the signal field
	Return Pos // what it returns
	Err    ErrorText
	// Before are the cases checked before it (their conditions).
	Before []string
	// Copies are writes of the client's signal field from the wire.
	Copies []Write
	// Buffer is where the client appends responses to its buffer.
	Buffer []Pos
}

// ReadPath is the failed historical read's mapping to a wire error.
type ReadPath struct {
	Map     Pos   // the translation map's declaration
	Key     Pos   // the sentinel's key in it
	Indexed []Pos // where the map is indexed
	Called  []Pos // calls of the indexing functions from the read entry
	Wire    ErrorText
}

// Result is the signal analysis.
type Result struct {
	Comparisons []Comparison
	Writes      []Write
	Marks       []Mark
	Refusals    []Refusal
	GoStmts     []GoStmt
	Groups      []GroupAccess
	Chans       []ChanOp
	Client      *Client
	Tool        *Tool
	Read        *ReadPath
	Pacing      []Const
	Progress    FieldStores
	Start       FieldStores
	// Ceilings say that the compaction revision cannot pass the current
	// one (when the spec names Current).
	Ceilings []Ceiling
	// RevisionAccesses are the reads and writes of the compaction
	// revision, with the lock held there.
	RevisionAccesses []RevisionAccess
	// RevisionInit is the constant the store's literals start the
	// compaction revision at, when they agree on one.
	RevisionInit *RevisionInit
	// Receive is how the client takes a compaction cancel (when the spec
	// names its receive loop); Created how a create response reaches the
	// user.
	Receive *Receive
	Created *Created
	// Convert is how the client converts the read's error, against the
	// watch's (when the spec names the conversion).
	Convert *Convert
	// ProgressVar and StartVar are the resolved fields (nil when absent).
	ProgressVar, StartVar *types.Var

	// Victims is the third set of watchers (when the spec names it);
	// Cleanup what becomes of a watcher the decision cancels; Choose how
	// the sync loop takes the behind group's watchers; Refused how the
	// client shows a refusal at open; Retry what the client library does
	// when a unary call fails; Removal when a compaction removes what it
	// compacts; Display how the tool shows each response; Docs the signal
	// fields' doc comments.
	Victims *Victims
	Cleanup *Cleanup
	Choose  *Choose
	Refused *Refused
	Retry   *Retry
	Removal *Removal
	Display *Display
	Docs    []FieldDoc
	// StartArg is how the receive loop hands the store a watch's start
	// revision (when the spec names the receive loop and the groups).
	StartArg *StartArg

	in  Input
	syn *syntax
	all []*ssa.Function // functions with bodies, in source order
}

// Analyze runs the signal analysis. It fails only when a name the study
// requires cannot be resolved.
func Analyze(in Input) (*Result, error) {
	sg := in.Spec
	r := &Result{in: in, syn: newSyntax(in.Graph.Fset(), in.Pkgs)}
	rev, err := r.field(sg.Revision)
	if err != nil {
		return nil, fmt.Errorf("signal revision %s: %w", sg.Revision, err)
	}
	var fns []*ssa.Function
	for fn := range in.Graph.Funcs {
		if len(fn.Blocks) > 0 {
			fns = append(fns, fn)
		}
	}
	sortBy(fns, func(a, b *ssa.Function) bool {
		return a.Pos() < b.Pos() || (a.Pos() == b.Pos() && a.String() < b.String())
	})
	r.all = fns
	d := newDeriver(in.Graph, fns)
	d.run(rev)
	r.comparisons(d)
	r.writes()
	r.marks()
	r.refusals()
	r.goStmts(fns)
	r.groups()
	r.chans(fns)
	r.client()
	r.receive()
	r.created()
	r.readPath(fns)
	r.pacing()
	r.ProgressVar, r.StartVar = r.fieldOrNil(sg.Progress), r.fieldOrNil(sg.Start)
	r.Progress = r.stores(sg.Progress)
	r.ceilings()
	r.revisionAccesses()
	r.Start = r.stores(sg.Start)
	r.tool()
	r.convert()
	r.victims()
	r.cleanup()
	r.choose()
	r.refused()
	r.retry()
	r.removal()
	r.display()
	r.fieldDocs()
	r.startArg()
	return r, nil
}

// field resolves "pkg.T.field".
func (r *Result) field(name string) (*types.Var, error) {
	obj, _, err := r.in.Graph.Lookup(name)
	if err != nil {
		return nil, err
	}
	v, ok := obj.(*types.Var)
	if !ok || !v.IsField() {
		return nil, fmt.Errorf("%s is not a struct field", name)
	}
	return v, nil
}

func (r *Result) fieldOrNil(name string) *types.Var {
	if name == "" {
		return nil
	}
	v, _ := r.field(name)
	return v
}

// pos makes a Pos for a token position inside fn.
func (r *Result) pos(p token.Pos, fn *ssa.Function, text string) Pos {
	return Pos{Position: r.syn.fset.Position(p), Func: fn, Text: text, pos: p}
}

// funcAt returns the SSA function that encloses a syntax path.
func (r *Result) funcAt(f *ast.File, path []ast.Node) *ssa.Function {
	p := r.syn.pkg[f]
	if p == nil {
		return nil
	}
	sp := r.in.Graph.Prog.Package(p.Types)
	if sp == nil {
		return nil
	}
	return ssa.EnclosingFunction(sp, path)
}

func (r *Result) comparisons(d *deriver) {
	seen := map[token.Pos]bool{}
	memo := map[ssa.Value]bool{}
	for _, b := range d.refine() {
		if seen[b.Pos()] || !b.Pos().IsValid() {
			continue
		}
		seen[b.Pos()] = true
		be, path := r.syn.binaryAt(b.Pos())
		if be == nil {
			continue
		}
		leftTainted := d.derives(b.X, memo)
		other := be.Y
		if !leftTainted {
			other = be.X
		}
		c := Comparison{
			Pos:         r.pos(be.Pos(), b.Parent(), r.syn.src(be)),
			Op:          be.Op.String(),
			Revision:    r.syn.src(other),
			RevisionObj: r.syn.obj(other),
		}
		// Does revision C pass? x < C is false at x = C; x <= C is true.
		op := be.Op
		if leftTainted { // C > x, C >= x
			switch op {
			case token.GTR:
				op = token.LSS
			case token.GEQ:
				op = token.LEQ
			case token.LSS:
				op = token.GTR
			case token.LEQ:
				op = token.GEQ
			}
		}
		if op == token.LEQ {
			c.LowestPassing = 1
		}
		body, cond := guard(path)
		if cond != nil && cond != ast.Expr(be) {
			c.Guard = r.syn.src(cond)
		}
		c.Decision, c.Consequence, c.ConsequencePos, c.Signals = r.consequence(body, b.Parent())
		if c.Signals {
			if def := r.sentWithoutWaiting(c.ConsequencePos.pos); def != nil {
				c.NoWait, c.NoWaitAt = true, r.pos(def.Pos(), b.Parent(), lineText(r.syn, def.Pos()))
			}
		}
		r.Comparisons = append(r.Comparisons, c)
	}
	sortBy(r.Comparisons, func(a, b Comparison) bool { return posLess(a.Position, b.Position) })
}

func posLess(a, b token.Position) bool {
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	return a.Offset < b.Offset
}

// consequence looks into the statements a comparison guards.
// It reports whether they decide something (a signal write or a use of the
// sentinel), what, where, and whether it is a signal write.
func (r *Result) consequence(body []ast.Stmt, fn *ssa.Function) (decides bool, what string, at Pos, signals bool) {
	if len(body) == 0 {
		return false, "", Pos{}, false
	}
	signal := map[*types.Var]string{}
	for _, f := range r.in.Spec.Fields {
		if v := r.fieldOrNil(f); v != nil {
			signal[v] = f
		}
	}
	for _, st := range body {
		ast.Inspect(st, func(n ast.Node) bool {
			if what != "" {
				return false
			}
			switch x := n.(type) {
			case *ast.KeyValueExpr:
				if v, ok := r.syn.obj(x.Key).(*types.Var); ok {
					if name, ok := signal[v]; ok {
						what = "sends " + shortField(name) + " = " + r.syn.src(x.Value)
						at = r.pos(x.Pos(), fn, r.syn.src(x))
						signals = true
					}
				}
			case *ast.Ident:
				if r.syn.obj(x) == r.in.Sentinel {
					what = "returns " + r.in.Sentinel.Pkg().Name() + "." + r.in.Sentinel.Name()
					at = r.pos(x.Pos(), fn, r.syn.src(x))
				}
			}
			return true
		})
		if what != "" {
			return true, what, at, signals
		}
	}
	return false, r.syn.src(body[0]), r.pos(body[0].Pos(), fn, r.syn.src(body[0])), false
}

// sentWithoutWaiting returns the default case of the select whose send
// holds pos, nil when pos is not in such a send.
func (r *Result) sentWithoutWaiting(pos token.Pos) *ast.CommClause {
	path, _ := r.syn.path(pos, pos)
	for _, n := range path {
		sel, ok := n.(*ast.SelectStmt)
		if !ok {
			continue
		}
		inComm := false
		for _, st := range sel.Body.List {
			c := st.(*ast.CommClause)
			if c.Comm != nil {
				if _, send := c.Comm.(*ast.SendStmt); send && c.Comm.Pos() <= pos && pos <= c.Comm.End() {
					inComm = true
				}
			}
		}
		if !inComm {
			return nil
		}
		for _, st := range sel.Body.List {
			if c := st.(*ast.CommClause); c.Comm == nil {
				return c
			}
		}
		return nil
	}
	return nil
}

// shortField turns "pkg/path.T.f" into "T.f".
func shortField(q string) string {
	head := q[strings.LastIndex(q, "/")+1:]
	if i := strings.Index(head, "."); i >= 0 {
		return head[i+1:]
	}
	return head
}

// writes finds every write of a signal field, or of the wire response's
// cancel, created and reason fields.
func (r *Result) writes() {
	sg := r.in.Spec
	names := map[*types.Var]string{}
	for _, f := range append(append([]string{}, sg.Fields...), sg.Cancel, sg.Created, sg.Reason) {
		if v := r.fieldOrNil(f); v != nil {
			names[v] = f
		}
	}
	r.syn.inspectAll(func(f *ast.File, info *types.Info, n ast.Node) bool {
		switch x := n.(type) {
		case *ast.KeyValueExpr:
			if v, ok := r.syn.obj(x.Key).(*types.Var); ok {
				if name, ok := names[v]; ok {
					path, _ := r.syn.path(x.Pos(), x.End())
					r.Writes = append(r.Writes, Write{Pos: r.pos(x.Pos(), r.funcAt(f, path), r.syn.src(x)), Field: name, Value: r.syn.src(x.Value)})
				}
			}
		case *ast.AssignStmt:
			for i, lhs := range x.Lhs {
				if v, ok := r.syn.obj(lhs).(*types.Var); ok && i < len(x.Rhs) {
					if name, ok := names[v]; ok {
						path, _ := r.syn.path(x.Pos(), x.End())
						r.Writes = append(r.Writes, Write{Pos: r.pos(lhs.Pos(), r.funcAt(f, path), r.syn.src(x)), Field: name, Value: r.syn.src(x.Rhs[i])})
					}
				}
			}
		}
		return true
	})
}

// writesOf returns the writes of one field.
func (r *Result) writesOf(field string) []Write {
	var out []Write
	for _, w := range r.Writes {
		if w.Field == field {
			out = append(out, w)
		}
	}
	return out
}

// marks finds writes of the cancel flag whose value is a comparison that
// reads a signal field (directly, or through a local it was assigned to).
func (r *Result) marks() {
	sg := r.in.Spec
	signal := map[*types.Var]bool{}
	for _, f := range sg.Fields {
		if v := r.fieldOrNil(f); v != nil {
			signal[v] = true
		}
	}
	for _, w := range r.writesOf(sg.Cancel) {
		val := r.valueExpr(w)
		if val == nil {
			continue
		}
		be := r.readsSignal(val, signal)
		if be == nil {
			// A local: find its definition in the same function.
			if id, ok := ast.Unparen(val).(*ast.Ident); ok {
				be = r.readsSignal(r.definition(id), signal)
			}
		}
		if be != nil {
			m := Mark{Read: r.pos(be.Pos(), w.Func, r.syn.src(be)), Write: w.Pos,
				NonZero: be.Op == token.NEQ && (r.syn.zero(be.X) || r.syn.zero(be.Y))}
			m.Branches, m.Ends = r.branchesOn(w.pos, val, signal)
			r.Marks = append(r.Marks, m)
		}
	}
}

// branchesOn finds, in the function around pos, the conditions (of if,
// for and switch statements, and case lists) that read val's local or a
// signal field: where that function could act on the mark; and those of
// if statements whose body returns.
func (r *Result) branchesOn(pos token.Pos, val ast.Expr, signal map[*types.Var]bool) (all, ends []Pos) {
	path, f := r.syn.path(pos, pos+1)
	fd := enclosingFunc(path)
	if fd == nil || fd.Body == nil {
		return nil, nil
	}
	fn := r.funcAt(f, path)
	watched := map[types.Object]bool{}
	for v := range signal {
		watched[v] = true
	}
	if id, ok := ast.Unparen(val).(*ast.Ident); ok {
		if o := r.syn.obj(id); o != nil {
			watched[o] = true
		}
	}
	reads := func(e ast.Node) bool {
		found := false
		if e == nil {
			return false
		}
		ast.Inspect(e, func(n ast.Node) bool {
			if x, ok := n.(ast.Expr); ok && watched[r.syn.obj(x)] {
				found = true
			}
			return !found
		})
		return found
	}
	var out []Pos
	add := func(e ast.Expr) bool {
		if e != nil && reads(e) {
			out = append(out, r.pos(e.Pos(), fn, r.syn.src(e)))
			return true
		}
		return false
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.IfStmt:
			if add(x.Cond) && returns(x.Body) {
				ends = append(ends, out[len(out)-1])
			}
		case *ast.ForStmt:
			add(x.Cond)
		case *ast.SwitchStmt:
			add(x.Tag)
		case *ast.CaseClause:
			for _, e := range x.List {
				add(e)
			}
		}
		return true
	})
	return out, ends
}

// valueExpr returns the value expression of a write.
func (r *Result) valueExpr(w Write) ast.Expr {
	p := w.pos
	if !p.IsValid() {
		return nil
	}
	path, _ := r.syn.path(p, p+1)
	for _, n := range path {
		switch x := n.(type) {
		case *ast.KeyValueExpr:
			return x.Value
		case *ast.AssignStmt:
			for i, l := range x.Lhs {
				if l.Pos() == p && i < len(x.Rhs) {
					return x.Rhs[i]
				}
			}
		}
	}
	return nil
}

// readsSignal returns e if it is a comparison with an operand that is a
// signal field.
func (r *Result) readsSignal(e ast.Expr, signal map[*types.Var]bool) *ast.BinaryExpr {
	be, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok || e == nil {
		return nil
	}
	for _, side := range []ast.Expr{be.X, be.Y} {
		if v, ok := r.syn.obj(side).(*types.Var); ok && signal[v] {
			return be
		}
	}
	return nil
}

// definition finds the expression a local variable is defined with.
func (r *Result) definition(id *ast.Ident) ast.Expr {
	obj := r.syn.obj(id)
	if obj == nil {
		return nil
	}
	path, _ := r.syn.path(id.Pos(), id.End())
	fd := enclosingFunc(path)
	if fd == nil {
		return nil
	}
	var out ast.Expr
	ast.Inspect(fd, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || out != nil {
			return out == nil
		}
		for i, l := range as.Lhs {
			if li, ok := l.(*ast.Ident); ok && r.syn.obj(li) == obj && i < len(as.Rhs) {
				out = as.Rhs[i]
			}
		}
		return true
	})
	return out
}

// refusals finds create responses that set both the created and the
// canceled flag to true: a request refused in its create response.
func (r *Result) refusals() {
	sg := r.in.Spec
	created, canceled, reason := r.fieldOrNil(sg.Created), r.fieldOrNil(sg.Cancel), r.fieldOrNil(sg.Reason)
	if created == nil || canceled == nil {
		return
	}
	r.syn.inspectAll(func(f *ast.File, info *types.Info, n ast.Node) bool {
		cl, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		var isCreated, isCanceled bool
		var why ast.Expr
		for _, el := range cl.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			v, _ := r.syn.obj(kv.Key).(*types.Var)
			isTrue := false
			if tv, ok := info.Types[kv.Value]; ok && tv.Value != nil && tv.Value.Kind() == constant.Bool {
				isTrue = constant.BoolVal(tv.Value)
			}
			switch v {
			case created:
				isCreated = isTrue
			case canceled:
				isCanceled = isTrue
			case reason:
				why = kv.Value
			}
		}
		if !isCreated || !isCanceled {
			return true
		}
		path, _ := r.syn.path(cl.Pos(), cl.End())
		fn := r.funcAt(f, path)
		ref := Refusal{Pos: r.pos(cl.Pos(), fn, "")}
		if why != nil {
			ref.Reason = r.syn.src(why)
			ref.Text = r.exprText(why).Text
			ref.ReasonAt = r.pos(why.Pos(), fn, lineText(r.syn, why.Pos()))
		}
		ref.Cond = r.condAbove(path)
		if c := r.condExprAbove(path); c != nil {
			ref.CondAt = r.pos(c.Pos(), fn, lineText(r.syn, c.Pos()))
			// err != nil: where err is set.
			if be, ok := ast.Unparen(c).(*ast.BinaryExpr); ok {
				if id, ok := ast.Unparen(be.X).(*ast.Ident); ok {
					if def := r.definition(id); def != nil {
						ref.Def = r.pos(def.Pos(), fn, id.Name+" := "+r.syn.src(def))
					}
				}
			}
		}
		r.Refusals = append(r.Refusals, ref)
		return true
	})
}

// condAbove returns the condition of the nearest if statement whose body
// holds the path ("!(cond)" for its else branch).
func (r *Result) condAbove(path []ast.Node) string {
	for i := 1; i < len(path); i++ {
		if ifs, ok := path[i].(*ast.IfStmt); ok && path[i-1] == ifs.Body {
			return r.syn.src(ifs.Cond)
		}
		if ifs, ok := path[i].(*ast.IfStmt); ok && path[i-1] == ifs.Else {
			return "!(" + r.syn.src(ifs.Cond) + ")"
		}
		if _, ok := path[i].(*ast.FuncDecl); ok {
			return ""
		}
	}
	return ""
}

// condExprAbove returns the condition of the nearest if statement whose
// body or else branch holds the path.
func (r *Result) condExprAbove(path []ast.Node) ast.Expr {
	for i := 1; i < len(path); i++ {
		if ifs, ok := path[i].(*ast.IfStmt); ok && (path[i-1] == ifs.Body || path[i-1] == ifs.Else) {
			return ifs.Cond
		}
		if _, ok := path[i].(*ast.FuncDecl); ok {
			return nil
		}
	}
	return nil
}

// condIdent returns the guarding if statement's condition when it is a
// plain identifier.
func (r *Result) condIdent(path []ast.Node) *ast.Ident {
	for i := 1; i < len(path); i++ {
		if ifs, ok := path[i].(*ast.IfStmt); ok && (path[i-1] == ifs.Body || path[i-1] == ifs.Else) {
			id, _ := ast.Unparen(ifs.Cond).(*ast.Ident)
			return id
		}
		if _, ok := path[i].(*ast.FuncDecl); ok {
			return nil
		}
	}
	return nil
}

// goStmts finds the go statements that start the study's loops.
func (r *Result) goStmts(fns []*ssa.Function) {
	sg := r.in.Spec
	loops := map[*ssa.Function]string{}
	if fn := r.in.Entries[sg.Sync]; fn != nil {
		loops[fn] = callpath.Name(fn)
	}
	for _, name := range []string{sg.Recv, sg.Send} {
		if fn, err := r.in.Graph.Func(name); err == nil {
			loops[fn] = name
		}
	}
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				g, ok := ins.(*ssa.Go)
				if !ok {
					continue
				}
				callee := g.Call.StaticCallee()
				if callee == nil {
					continue
				}
				target, ok := loops[callee]
				if !ok && callee.Parent() != nil {
					target, ok = r.callsLoop(callee, loops)
				}
				if ok {
					r.GoStmts = append(r.GoStmts, GoStmt{Pos: r.pos(g.Pos(), fn, lineText(r.syn, g.Pos())), Loop: target})
				}
			}
		}
	}
	sortBy(r.GoStmts, func(a, b GoStmt) bool { return posLess(a.Position, b.Position) })
}

// callsLoop reports whether closure fn calls one of the loops directly.
func (r *Result) callsLoop(fn *ssa.Function, loops map[*ssa.Function]string) (string, bool) {
	for _, b := range fn.Blocks {
		for _, ins := range b.Instrs {
			if c, ok := ins.(ssa.CallInstruction); ok {
				if t, ok := loops[c.Common().StaticCallee()]; ok {
					return t, true
				}
			}
		}
	}
	return "", false
}

// lineText is the trimmed source line at pos.
func lineText(s *syntax, pos token.Pos) string {
	p := s.fset.Position(pos)
	lines, ok := s.lines[p.Filename]
	if !ok {
		data, ok := s.text[p.Filename]
		if !ok {
			data = readFile(p.Filename)
			s.text[p.Filename] = data
		}
		lines = strings.Split(string(data), "\n")
		s.lines[p.Filename] = lines
	}
	if p.Line < 1 || p.Line > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[p.Line-1])
}

// groups finds uses of the watcher group fields.
func (r *Result) groups() {
	for _, g := range r.in.Spec.Groups {
		v := r.fieldOrNil(g)
		if v == nil {
			continue
		}
		r.syn.inspectAll(func(f *ast.File, info *types.Info, n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || r.syn.obj(sel) != v {
				return true
			}
			path, _ := r.syn.path(sel.Pos(), sel.End())
			a := GroupAccess{Pos: r.pos(sel.Pos(), r.funcAt(f, path), lineText(r.syn, sel.Pos())), Group: g}
			if len(path) > 1 {
				if outer, ok := path[1].(*ast.SelectorExpr); ok && outer.X == sel {
					a.Method = outer.Sel.Name
				}
			}
			a.Cond = r.condAbove(path)
			if id := r.condIdent(path); id != nil {
				if def := r.definition(id); def != nil {
					a.CondDef = r.pos(def.Pos(), a.Func, id.Name+" := "+r.syn.src(def))
				}
			}
			r.Groups = append(r.Groups, a)
			return true
		})
	}
}

// chans finds sends and receives on channels of the study's element type.
func (r *Result) chans(fns []*ssa.Function) {
	obj, _, err := r.in.Graph.Lookup(r.in.Spec.Channel)
	if err != nil {
		return
	}
	elem := obj.Type()
	isChan := func(t types.Type) bool {
		c, ok := t.Underlying().(*types.Chan)
		return ok && types.Identical(c.Elem(), elem)
	}
	add := func(fn *ssa.Function, pos token.Pos, send bool) {
		if !pos.IsValid() {
			return
		}
		op := ChanOp{Pos: r.pos(pos, fn, lineText(r.syn, pos)), Send: send}
		if send {
			op.Carries = r.sendCarries(pos)
		}
		r.Chans = append(r.Chans, op)
	}
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				switch x := ins.(type) {
				case *ssa.Send:
					if isChan(x.Chan.Type()) {
						add(fn, x.Pos(), true)
					}
				case *ssa.UnOp:
					if x.Op == token.ARROW && isChan(x.X.Type()) {
						add(fn, x.Pos(), false)
					}
				case *ssa.Select:
					for _, st := range x.States {
						if isChan(st.Chan.Type()) {
							add(fn, st.Pos, st.Dir == types.SendOnly)
						}
					}
				}
			}
		}
	}
	sortBy(r.Chans, func(a, b ChanOp) bool { return posLess(a.Position, b.Position) })
}

// sendCarries reports whether the send statement at pos sends a composite
// literal that sets a signal field.
func (r *Result) sendCarries(pos token.Pos) bool {
	path, _ := r.syn.path(pos, pos+1)
	for _, n := range path {
		if ss, ok := n.(*ast.SendStmt); ok {
			found := false
			ast.Inspect(ss.Value, func(n ast.Node) bool {
				if kv, ok := n.(*ast.KeyValueExpr); ok {
					if v, ok := r.syn.obj(kv.Key).(*types.Var); ok {
						for _, f := range r.in.Spec.Fields {
							if r.fieldOrNil(f) == v {
								found = true
							}
						}
					}
				}
				return !found
			})
			return found
		}
	}
	return false
}

// stores lists the writes of a field ("pkg.T.field").
func (r *Result) stores(name string) FieldStores {
	fs := FieldStores{Field: name}
	v := r.fieldOrNil(name)
	if v == nil {
		fs.Absent = true
		return fs
	}
	r.syn.inspectAll(func(f *ast.File, info *types.Info, n ast.Node) bool {
		switch x := n.(type) {
		case *ast.KeyValueExpr:
			if r.syn.obj(x.Key) == v {
				path, _ := r.syn.path(x.Pos(), x.End())
				fs.Stores = append(fs.Stores, Write{Pos: r.pos(x.Pos(), r.funcAt(f, path), r.syn.src(x)), Field: name, Value: r.syn.src(x.Value), Past: r.past(x.Value, info)})
			}
		case *ast.AssignStmt:
			for i, l := range x.Lhs {
				if r.syn.obj(l) == v && i < len(x.Rhs) {
					path, _ := r.syn.path(x.Pos(), x.End())
					fs.Stores = append(fs.Stores, Write{Pos: r.pos(l.Pos(), r.funcAt(f, path), r.syn.src(x)), Field: name, Value: r.syn.src(x.Rhs[i]), Past: r.past(x.Rhs[i], info)})
				}
			}
		}
		return true
	})
	return fs
}

// past returns x when e is x + 1 (or x + k for a constant k > 0), or a
// call of the built-in max with such an argument; "" otherwise.
func (r *Result) past(e ast.Expr, info *types.Info) string {
	switch x := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return ""
		}
		if tv, ok := info.Types[x.Y]; ok && tv.Value != nil && constant.Sign(tv.Value) > 0 {
			return r.syn.src(x.X)
		}
	case *ast.CallExpr:
		id, ok := ast.Unparen(x.Fun).(*ast.Ident)
		if !ok {
			return ""
		}
		if b, ok := info.Uses[id].(*types.Builtin); !ok || b.Name() != "max" {
			return ""
		}
		for _, a := range x.Args {
			if p := r.past(a, info); p != "" {
				return p
			}
		}
	}
	return ""
}

// pacing evaluates the study's pacing objects.
func (r *Result) pacing() {
	for _, p := range r.in.Spec.Pacing {
		c := Const{Name: p.Name, Object: p.Object}
		if entry, callee, ok := strings.Cut(p.Object, ":"); ok {
			r.pacingCall(&c, entry, callee)
			r.Pacing = append(r.Pacing, c)
			continue
		}
		obj, _, err := r.in.Graph.Lookup(p.Object)
		if err != nil {
			c.Absent = true
			r.Pacing = append(r.Pacing, c)
			continue
		}
		c.Pos = r.pos(obj.Pos(), nil, lineText(r.syn, obj.Pos()))
		switch o := obj.(type) {
		case *types.Const:
			c.set(o.Val(), o.Type())
		case *types.Var:
			// A variable with a constant initializer.
			if e := r.initializer(o); e != nil {
				if tv, ok := r.syn.info[r.syn.file(e.Pos())].Types[e]; ok && tv.Value != nil {
					c.set(tv.Value, o.Type())
				}
			}
		}
		r.Pacing = append(r.Pacing, c)
	}
}

// pacingCall evaluates the first argument of the first call of callee in
// the entry's function.
func (r *Result) pacingCall(c *Const, entry, callee string) {
	fn := r.in.Entries[entry]
	if fn == nil {
		c.Absent = true
		return
	}
	target, _, err := r.in.Graph.Callable(callee)
	for _, b := range fn.Blocks {
		for _, ins := range b.Instrs {
			call, ok := ins.(*ssa.Call)
			if !ok || err != nil || call.Common().StaticCallee() != target || len(call.Call.Args) == 0 {
				continue
			}
			c.Pos = r.pos(call.Pos(), fn, lineText(r.syn, call.Pos()))
			c.Position = r.in.Graph.CallPos(call)
			c.Value = "(not a constant)"
			if k, ok := call.Call.Args[0].(*ssa.Const); ok && k.Value != nil {
				c.set(k.Value, k.Type())
			}
			path, f := r.syn.path(call.Pos(), call.Pos()+1)
			for _, n := range path {
				ce, ok := n.(*ast.CallExpr)
				if !ok || ce.Lparen != call.Pos() || len(ce.Args) == 0 {
					continue
				}
				arg := ce.Args[0]
				if tv, ok := r.syn.info[f].Types[arg]; ok && tv.Value != nil {
					c.set(tv.Value, tv.Type)
				}
				switch k := r.syn.obj(arg).(type) {
				case *types.Const:
					d := r.pos(k.Pos(), nil, lineText(r.syn, k.Pos()))
					c.Via, c.Declared = qualified(k), &d
				case *types.Var:
					// A package variable with a constant initializer.
					if e := r.initializer(k); e != nil {
						if tv, ok := r.syn.info[r.syn.file(e.Pos())].Types[e]; ok && tv.Value != nil {
							c.set(tv.Value, k.Type())
							d := r.pos(k.Pos(), nil, lineText(r.syn, k.Pos()))
							c.Via, c.Declared = qualified(k), &d
						}
						break
					}
					// A local whose value at the call is a constant: where
					// it is defined.
					if id, ok := ast.Unparen(arg).(*ast.Ident); ok && c.IsInt && k.Parent() != nil && k.Parent() != k.Pkg().Scope() {
						if def := r.definition(id); def != nil {
							d := r.pos(k.Pos(), fn, lineText(r.syn, k.Pos()))
							c.Via, c.Declared = k.Name(), &d
						}
					}
				}
				c.Resets = r.resets(fn, ce, arg)
			}
			return
		}
	}
	c.Absent = true
}

// resets finds the calls that reset the ticker made by call in fn (the
// variable call's result is assigned to), and whether each passes the
// same argument, arg, the ticker was made with.
func (r *Result) resets(fn *ssa.Function, call *ast.CallExpr, arg ast.Expr) []Reset {
	path, _ := r.syn.path(call.Pos(), call.End())
	var ticker types.Object
	for i, n := range path {
		as, ok := n.(*ast.AssignStmt)
		if !ok {
			continue
		}
		for j, rhs := range as.Rhs {
			if i > 0 && rhs == path[i-1] && j < len(as.Lhs) {
				ticker = r.syn.obj(as.Lhs[j])
			}
		}
		break
	}
	fd := enclosingFunc(path)
	if ticker == nil || fd == nil || fd.Body == nil {
		return nil
	}
	made := r.syn.obj(arg)
	var out []Reset
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		ce, ok := n.(*ast.CallExpr)
		if !ok || len(ce.Args) != 1 {
			return true
		}
		sel, ok := ce.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Reset" || r.syn.obj(sel.X) != ticker {
			return true
		}
		rs := Reset{Pos: r.pos(ce.Pos(), fn, lineText(r.syn, ce.Pos())), Arg: r.syn.src(ce.Args[0])}
		rs.Same = made != nil && r.syn.obj(ce.Args[0]) == made
		p, _ := r.syn.path(ce.Pos(), ce.End())
		if c := r.condExprAbove(p); c != nil {
			rs.Cond = r.pos(c.Pos(), fn, r.syn.src(c))
			rs.OneBehind = r.oneBehind(c, fd)
		}
		out = append(out, rs)
		return true
	})
	return out
}

// oneBehind evaluates cond, in fd, for a pass over one behind watcher:
// a local defined from the behind group's size (before the pass) is 1,
// a local assigned a call's result elsewhere (after it) is 0 or 1. It
// decides only when every outcome gives the same value.
func (r *Result) oneBehind(cond ast.Expr, fd *ast.FuncDecl) *bool {
	behind := r.fieldOrNil(r.in.Spec.Behind)
	if behind == nil {
		return nil
	}
	before, after := map[types.Object]bool{}, map[types.Object]bool{}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || (len(as.Lhs) != len(as.Rhs) && len(as.Rhs) != 1) {
			return true
		}
		for i, l := range as.Lhs {
			o := r.syn.obj(l)
			rhs := as.Rhs[0]
			if len(as.Rhs) == len(as.Lhs) {
				rhs = as.Rhs[i]
			}
			call, ok := ast.Unparen(rhs).(*ast.CallExpr)
			if o == nil || !ok {
				continue
			}
			sizeOf := false
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "size" && r.syn.obj(sel.X) == behind {
				sizeOf = true
			}
			if sizeOf {
				before[o] = true
			} else {
				after[o] = true
			}
		}
		return true
	})
	var result *bool
	for _, a := range []int64{0, 1} {
		v, ok := r.evalInt(cond, func(o types.Object) (int64, bool) {
			switch {
			case before[o] && !after[o]:
				return 1, true
			case after[o] && !before[o]:
				return a, true
			}
			return 0, false
		})
		if !ok || v.Kind() != constant.Bool {
			return nil
		}
		b := constant.BoolVal(v)
		if result != nil && *result != b {
			return nil
		}
		result = &b
	}
	return result
}

// evalInt evaluates an expression of integer locals (valued by val),
// constants, comparisons and logical operators.
func (r *Result) evalInt(e ast.Expr, val func(types.Object) (int64, bool)) (constant.Value, bool) {
	info := r.syn.info[r.syn.file(e.Pos())]
	if tv, ok := info.Types[e]; ok && tv.Value != nil {
		return tv.Value, true
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if v, ok := val(r.syn.obj(x)); ok {
			return constant.MakeInt64(v), true
		}
	case *ast.UnaryExpr:
		if v, ok := r.evalInt(x.X, val); ok && x.Op == token.NOT && v.Kind() == constant.Bool {
			return constant.MakeBool(!constant.BoolVal(v)), true
		}
	case *ast.BinaryExpr:
		a, ok1 := r.evalInt(x.X, val)
		b, ok2 := r.evalInt(x.Y, val)
		if !ok1 || !ok2 {
			return nil, false
		}
		switch x.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			return constant.MakeBool(constant.Compare(a, x.Op, b)), true
		case token.LAND, token.LOR:
			if a.Kind() != constant.Bool || b.Kind() != constant.Bool {
				return nil, false
			}
			return constant.BinaryOp(a, x.Op, b), true
		case token.ADD, token.SUB:
			return constant.BinaryOp(a, x.Op, b), true
		}
	}
	return nil, false
}

// set records a constant value of type t.
func (c *Const) set(v constant.Value, t types.Type) {
	c.Value = formatConst(v, t)
	c.Int, c.IsInt = constant.Int64Val(constant.ToInt(v))
}

func formatConst(v constant.Value, t types.Type) string {
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration" {
		if i, ok := constant.Int64Val(v); ok {
			return time.Duration(i).String()
		}
	}
	if v.Kind() == constant.String {
		return strconv.Quote(constant.StringVal(v))
	}
	return v.ExactString()
}

// initializer finds the initializer expression of a package-level var.
func (r *Result) initializer(v *types.Var) ast.Expr {
	path, _ := r.syn.path(v.Pos(), v.Pos()+1)
	for _, n := range path {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			continue
		}
		for i, name := range vs.Names {
			if name.Pos() == v.Pos() && i < len(vs.Values) {
				return vs.Values[i]
			}
		}
	}
	return nil
}
