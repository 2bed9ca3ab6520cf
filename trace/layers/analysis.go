package layers

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/report"
)

// analysis answers a spec's questions on a loaded program.
type analysis struct {
	spec *Spec
	p    *prog

	sentinel types.Object
	text     string // the sentinel's text, as its initializer spells it
	statusT  types.Type
	event    types.Type
	// kindIndex is the index of the event's kind field.
	kindIndex int

	logs    map[*types.Func]string
	verbose map[*types.Func]bool
	text2   map[*types.Func]bool

	// consts and funcs are what answers found, by name, for later questions.
	consts map[string]*types.Const
	funcs  map[string]*types.Func

	hops []found
	seen map[string]bool
	read map[*ssa.Function]bool // constructors whose status was read
	bins map[token.Pos]*ast.BinaryExpr
}

// found is a hop with its position in the program.
type found struct {
	report.LayerHop
	pos token.Pos
}

func callpathName(fn *ssa.Function) string { return callpath.Name(fn) }

func newAnalysis(spec *Spec, p *prog) (*analysis, error) {
	a := &analysis{spec: spec, p: p, logs: map[*types.Func]string{}, verbose: map[*types.Func]bool{}, text2: map[*types.Func]bool{},
		consts: map[string]*types.Const{}, funcs: map[string]*types.Func{}, seen: map[string]bool{}, read: map[*ssa.Function]bool{}}
	var err error
	if a.sentinel, err = p.object(spec.Sentinel); err != nil {
		return nil, fmt.Errorf("the sentinel: %w", err)
	}
	a.text = a.initText(a.sentinel)
	if spec.Status != "" {
		o, err := p.object(spec.Status)
		if err != nil {
			return nil, fmt.Errorf("the status type: %w", err)
		}
		a.statusT = o.Type()
	}
	if spec.Event != "" {
		o, err := p.object(spec.Event)
		if err != nil {
			return nil, fmt.Errorf("the event type: %w", err)
		}
		a.event = o.Type()
		st, ok := a.event.Underlying().(*types.Struct)
		if !ok {
			return nil, fmt.Errorf("the event type %s is not a struct", spec.Event)
		}
		a.kindIndex = -1
		for i := 0; i < st.NumFields(); i++ {
			if st.Field(i).Name() == spec.EventKind {
				a.kindIndex = i
			}
		}
		if a.kindIndex < 0 {
			return nil, fmt.Errorf("the event type %s has no field %s", spec.Event, spec.EventKind)
		}
	}
	funcs := func(names []string, each func(*types.Func, int)) {
		for i, n := range names {
			if o, err := p.object(n); err == nil {
				if f, ok := o.(*types.Func); ok {
					each(f, i)
				}
			}
		}
	}
	for _, l := range spec.Logs {
		if o, err := p.object(l.Func); err == nil {
			if f, ok := o.(*types.Func); ok {
				a.logs[f] = l.Level
			}
		}
	}
	funcs(spec.Verbosity, func(f *types.Func, _ int) { a.verbose[f] = true })
	funcs(spec.Text, func(f *types.Func, _ int) { a.text2[f] = true })
	return a, nil
}

// initText is the longest string literal in a variable's initializer,
// following the package-level variables it names in its own package.
func (a *analysis) initText(obj types.Object) string {
	best := ""
	seen := map[types.Object]bool{}
	var visit func(o types.Object)
	visit = func(o types.Object) {
		if seen[o] || o == nil {
			return
		}
		seen[o] = true
		e := a.initializer(o)
		if e == nil {
			return
		}
		ast.Inspect(e, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.BasicLit:
				if x.Kind == token.STRING {
					if s, err := strconv.Unquote(x.Value); err == nil && len(s) > len(best) {
						best = s
					}
				}
			case *ast.Ident:
				if v, ok := a.p.obj(x).(*types.Var); ok && v.Pkg() == obj.Pkg() && !v.IsField() && v.Parent() == v.Pkg().Scope() {
					visit(v)
				}
			}
			return true
		})
	}
	visit(obj)
	return best
}

// initializer is the expression a package-level variable is declared with.
func (a *analysis) initializer(o types.Object) ast.Expr {
	f := a.p.file(o.Pos())
	if f == nil {
		return nil
	}
	for _, n := range a.p.path(o.Pos(), o.Pos()) {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			continue
		}
		for i, name := range vs.Names {
			if name.Pos() == o.Pos() && i < len(vs.Values) {
				return vs.Values[i]
			}
		}
	}
	return nil
}

func (a *analysis) add(q Question, pos token.Pos, h report.LayerHop) {
	if !pos.IsValid() {
		return // an implicit return, say: nothing to cite
	}
	h.Role, h.Layer = q.Role, q.Layer
	h.Loc = a.p.loc(pos)
	h.Loc.Function = a.p.funcAt(pos)
	if h.Cond == nil {
		h.Cond = a.p.conds(pos)
	}
	key := fmt.Sprint(h.Role, h.Kind, pos, h.Object, h.Of, h.Value)
	if a.seen[key] {
		return
	}
	a.seen[key] = true
	a.hops = append(a.hops, found{LayerHop: h, pos: pos})
}

// answers are the hops found for a role so far.
func (a *analysis) answers(role string) []report.LayerHop {
	var out []report.LayerHop
	for _, h := range a.hops {
		if h.Role == role {
			out = append(out, h.LayerHop)
		}
	}
	return out
}

// binaryAt is the binary expression whose operator is at pos.
func (a *analysis) binaryAt(pos token.Pos) *ast.BinaryExpr {
	for _, n := range a.p.path(pos, pos+1) {
		if be, ok := n.(*ast.BinaryExpr); ok && be.OpPos == pos {
			return be
		}
	}
	return nil
}

// verbosity is the V level of a logger value made by a verbosity function
// with a constant, 0 otherwise.
func (a *analysis) verbosity(v ssa.Value) int {
	c := callOf(v)
	if c == nil || !a.verbose[callee(&c.Call)] {
		return 0
	}
	for _, arg := range c.Call.Args {
		if k, ok := arg.(*ssa.Const); ok && k.Value != nil && k.Value.Kind() == constant.Int {
			if n, ok := constant.Int64Val(k.Value); ok {
				return int(n)
			}
		}
	}
	return 0
}

// constNamed is the constant of k's type, declared in the package of the
// event type, that has k's value.
func (a *analysis) constNamed(k *ssa.Const) *types.Const {
	named, ok := a.event.(*types.Named)
	if !ok || k.Value == nil {
		return nil
	}
	scope := named.Obj().Pkg().Scope()
	var out *types.Const
	for _, n := range scope.Names() {
		c, ok := scope.Lookup(n).(*types.Const)
		if ok && types.Identical(c.Type(), k.Type()) && constant.Compare(c.Val(), token.EQL, k.Value) {
			if out != nil {
				return nil // ambiguous
			}
			out = c
		}
	}
	return out
}

// status reads the fields of the status a constructor builds: the keyed
// fields of its composite literals of the status type.
func (a *analysis) status(q Question, g *ssa.Function) {
	if a.statusT == nil || a.read[g] {
		return
	}
	a.read[g] = true
	body := g.Syntax()
	if o, ok := g.Object().(*types.Func); body == nil && ok {
		if fd, _, err := a.p.decl(qualified(o)); err == nil {
			body = fd
		}
	}
	if body == nil {
		return
	}
	info := a.p.info[a.p.file(body.Pos())]
	ast.Inspect(body, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		if tv, ok := info.Types[lit]; !ok || !types.Identical(tv.Type, a.statusT) {
			return true
		}
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			key, _ := kv.Key.(*ast.Ident)
			if key == nil {
				continue
			}
			h := report.LayerHop{Kind: "field", Object: key.Name, Args: []string{a.p.src(kv.Value)}}
			if k, ok := a.p.obj(kv.Value).(*types.Const); ok {
				h.Constant, h.Value = objName(k), show(k.Val(), k.Type())
			} else if v, ok := a.p.value(kv.Value); ok {
				h.Value = show(v, info.Types[kv.Value].Type)
			}
			a.add(q, kv.Pos(), h)
		}
		return true
	})
}

// finish marks, after every question is answered, what needs all the
// answers: which predicates' tests compare with a constant of the
// signal's status, and under which recognition each log runs.
func (a *analysis) finish() {
	statusConsts := map[string]bool{}
	for _, h := range a.hops {
		if h.Kind == "field" && h.Constant != "" {
			statusConsts[h.Constant] = true
		}
	}
	for i := range a.hops {
		h := &a.hops[i]
		if h.Kind == "tests" && statusConsts[h.Object] {
			h.Match = true
		}
	}
	for i := range a.hops {
		h := &a.hops[i]
		if h.Kind != "log" {
			continue
		}
		for _, r := range a.hops {
			if (r.Kind != "by-text" && r.Kind != "by-value") || r.Loc.Function != h.Loc.Function {
				continue
			}
			c := a.condOf(r.pos)
			if c == "" {
				continue
			}
			for _, hc := range h.Cond {
				switch hc {
				case c:
					h.Under = r.Kind
				case "!(" + c + ")":
					h.Under = "not " + r.Kind
				}
			}
		}
	}
}

// condOf is the condition, as conds writes it, of the if or case whose
// condition holds the expression at pos.
func (a *analysis) condOf(pos token.Pos) string {
	path := a.p.path(pos, pos)
	for i := 1; i < len(path); i++ {
		switch x := path[i].(type) {
		case *ast.IfStmt:
			if path[i-1] == x.Cond {
				return a.p.src(x.Cond)
			}
			return ""
		case *ast.CaseClause:
			c := a.p.caseConds(x, path[i+1:])
			if len(c) == 1 && x.List != nil {
				return c[0]
			}
			return ""
		case ast.Stmt, *ast.FuncLit:
			return ""
		}
	}
	return ""
}

// run answers every question, in order.
func (a *analysis) run() error {
	layers := map[string]map[string]bool{}
	for _, l := range a.spec.Layers {
		layers[l.Name] = map[string]bool{}
		for _, p := range l.Packages {
			layers[l.Name][p] = true
		}
	}
	for _, q := range a.spec.Questions {
		var err error
		switch q.Ask {
		case Follow:
			err = a.follow(q, layers[q.Layer])
		case Returns:
			err = a.returnsOf(q)
		case Calls:
			err = a.callsIn(q)
		case Values:
			err = a.valuesOf(q)
		case Writes:
			err = a.writes(q, layers[q.Layer])
		case Composite:
			err = a.composite(q)
		case Table:
			err = a.table(q)
		}
		if err != nil {
			return fmt.Errorf("question %s: %w", q.Role, err)
		}
	}
	a.finish()
	return nil
}

// Hops are the answers, sorted by question, then by file and line.
func (a *analysis) result() []report.LayerHop {
	order := map[string]int{}
	for i, q := range a.spec.Questions {
		order[q.Role] = i
	}
	hs := append([]found(nil), a.hops...)
	sort.SliceStable(hs, func(i, j int) bool {
		x, y := hs[i], hs[j]
		if order[x.Role] != order[y.Role] {
			return order[x.Role] < order[y.Role]
		}
		if x.Loc.Repo != y.Loc.Repo {
			return x.Loc.Repo < y.Loc.Repo
		}
		if x.Loc.File != y.Loc.File {
			return x.Loc.File < y.Loc.File
		}
		if x.Loc.Line != y.Loc.Line {
			return x.Loc.Line < y.Loc.Line
		}
		return x.pos < y.pos
	})
	out := make([]report.LayerHop, len(hs))
	for i, h := range hs {
		out[i] = h.LayerHop
	}
	return out
}

// body is a function's syntax and the type information of its file.
func (a *analysis) body(name string) (ast.Node, *types.Info, error) {
	fd, info, err := a.p.decl(name)
	if err != nil {
		return nil, nil, err
	}
	return fd, info, nil
}

// bodyAndObject is a question's function's body with its file's type
// information, and the object the question names.
func (a *analysis) bodyAndObject(q Question) (ast.Node, *types.Info, types.Object, error) {
	body, info, err := a.body(q.Func)
	if err != nil {
		return nil, nil, nil, err
	}
	obj, err := a.p.object(q.Object)
	if err != nil {
		return nil, nil, nil, err
	}
	return body, info, obj, nil
}

// returnsOf answers Returns: the returns of Func that return Object.
func (a *analysis) returnsOf(q Question) error {
	body, _, obj, err := a.bodyAndObject(q)
	if err != nil {
		return err
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		rs, ok := n.(*ast.ReturnStmt)
		if !ok {
			return true
		}
		for _, r := range rs.Results {
			ast.Inspect(r, func(m ast.Node) bool {
				if e, ok := m.(ast.Expr); ok && a.p.obj(e) == obj {
					found = true
					a.add(q, rs.Pos(), report.LayerHop{Kind: "returns", Object: objName(obj), Value: a.p.src(rs)})
					return false
				}
				return true
			})
		}
		return true
	})
	if !found {
		return fmt.Errorf("%s returns no %s", q.Func, q.Object)
	}
	return nil
}

// valuesOf answers Values: every return of Func with its results.
func (a *analysis) valuesOf(q Question) error {
	body, _, err := a.body(q.Func)
	if err != nil {
		return err
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			var rs []string
			for _, r := range x.Results {
				rs = append(rs, a.p.src(r))
			}
			a.add(q, x.Pos(), report.LayerHop{Kind: "return", Object: q.Func, Value: strings.Join(rs, ", ")})
		}
		return true
	})
	return nil
}

// callsIn answers Calls: the calls of Calls in Func and its function
// literals, and in the functions they call statically, Depth deep.
func (a *analysis) callsIn(q Question) error {
	fn, err := a.p.function(q.Func)
	if err != nil {
		return err
	}
	want := map[*types.Func]bool{}
	builtins := map[string]bool{}
	for _, n := range q.Calls {
		if types.Universe.Lookup(n) != nil {
			builtins[n] = true
			continue
		}
		o, err := a.p.object(n)
		if err != nil {
			return err
		}
		f, ok := o.(*types.Func)
		if !ok {
			return fmt.Errorf("%s is not a function or method", n)
		}
		want[f] = true
	}
	seen := map[*ssa.Function]bool{}
	var visit func(g *ssa.Function, depth int)
	visit = func(g *ssa.Function, depth int) {
		if seen[g] {
			return
		}
		seen[g] = true
		for _, b := range g.Blocks {
			for _, ins := range b.Instrs {
				ci, ok := ins.(ssa.CallInstruction)
				if !ok {
					continue
				}
				c := ci.Common()
				if bi, ok := c.Value.(*ssa.Builtin); ok && builtins[bi.Name()] {
					a.add(q, ci.Pos(), report.LayerHop{Kind: "calls", Object: bi.Name(), Args: a.args(ci.Pos())})
					continue
				}
				if f := callee(c); f != nil && want[f] {
					a.add(q, ci.Pos(), report.LayerHop{Kind: "calls", Object: qualified(f), Args: a.args(ci.Pos())})
					continue
				}
				if h := c.StaticCallee(); h != nil && len(h.Blocks) > 0 && depth > 0 {
					visit(h, depth-1)
				}
			}
		}
		for _, an := range g.AnonFuncs {
			visit(an, depth)
		}
	}
	visit(fn, q.Depth)
	return nil
}

// args are the arguments of the call whose parenthesis is at pos, as
// written, a constant's value after " = ", a function literal shortened.
func (a *analysis) args(pos token.Pos) []string {
	for _, n := range a.p.path(pos, pos+1) {
		ce, ok := n.(*ast.CallExpr)
		if !ok || ce.Lparen != pos {
			continue
		}
		var out []string
		for _, e := range ce.Args {
			out = append(out, a.argText(e))
		}
		return out
	}
	return nil
}

func (a *analysis) argText(e ast.Expr) string {
	if _, ok := e.(*ast.FuncLit); ok {
		return "func(…)"
	}
	s := a.p.src(e)
	if v, ok := a.p.value(e); ok {
		if tv, ok := a.p.info[a.p.file(e.Pos())].Types[e]; ok {
			if w := show(v, tv.Type); w != s {
				return s + " = " + w
			}
		}
	}
	return s
}

// writes answers Writes: assignments to the field Object, and keyed
// elements of composite literals that set it, in the layer's files.
func (a *analysis) writes(q Question, layer map[string]bool) error {
	field, err := a.p.object(q.Object)
	if err != nil {
		return err
	}
	// consts are the named constants, and package-level variables with a
	// constant initializer, that a value uses: "name = value".
	consts := func(e ast.Expr) []string {
		var out []string
		ast.Inspect(e, func(n ast.Node) bool {
			x, ok := n.(ast.Expr)
			if !ok {
				return true
			}
			switch o := a.p.obj(x).(type) {
			case *types.Const:
				if o.Pkg() != nil {
					out = append(out, objName(o)+" = "+show(o.Val(), o.Type()))
					return false
				}
			case *types.Var:
				if name, v := a.resolve(x); name != "" && v != "" && !o.IsField() {
					out = append(out, name+" = "+v)
					return false
				}
			}
			return true
		})
		return out
	}
	for _, f := range a.sortedFiles(layer) {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.AssignStmt:
				for i, l := range x.Lhs {
					if a.p.obj(l) == field && i < len(x.Rhs) {
						a.add(q, x.Pos(), report.LayerHop{Kind: "write", Object: objName(field), Value: a.p.src(x.Rhs[i]), Args: consts(x.Rhs[i])})
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := x.Key.(*ast.Ident); ok && a.p.obj(k) == field {
					a.add(q, x.Pos(), report.LayerHop{Kind: "write", Object: objName(field), Value: a.p.src(x.Value), Args: consts(x.Value)})
				}
			}
			return true
		})
	}
	return nil
}

// sortedFiles are the syntax files of the layer's packages, by name.
func (a *analysis) sortedFiles(layer map[string]bool) []*ast.File {
	var out []*ast.File
	for _, f := range a.p.files {
		if pk := a.p.pkgOf[f]; pk != nil && layer[pk.PkgPath] {
			out = append(out, f)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return a.p.fset.Position(out[i].Pos()).Filename < a.p.fset.Position(out[j].Pos()).Filename
	})
	return out
}

// composite answers Composite: the keyed fields of the composite literals
// of type Object in Func, each with its value (a package-level variable's
// constant initializer too).
func (a *analysis) composite(q Question) error {
	body, info, o, err := a.bodyAndObject(q)
	if err != nil {
		return err
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		if tv, ok := info.Types[lit]; !ok || !types.Identical(tv.Type, o.Type()) {
			return true
		}
		found = true
		for _, e := range lit.Elts {
			kv, ok := e.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			key, _ := kv.Key.(*ast.Ident)
			if key == nil {
				continue
			}
			h := report.LayerHop{Kind: "field", Object: key.Name, Args: []string{a.p.src(kv.Value)}}
			h.Constant, h.Value = a.resolve(kv.Value)
			a.add(q, kv.Pos(), h)
		}
		return true
	})
	if !found {
		return fmt.Errorf("%s makes no %s", q.Func, q.Object)
	}
	return nil
}

// resolve is the value of e: a constant's, or that of the constant
// initializer of the package-level variable or constant it names.
func (a *analysis) resolve(e ast.Expr) (name, value string) {
	tv := a.p.info[a.p.file(e.Pos())].Types[e]
	o := a.p.obj(e)
	if v, ok := a.p.value(e); ok {
		if o != nil && o.Pkg() != nil {
			name = objName(o)
		}
		return name, show(v, tv.Type)
	}
	if v, ok := o.(*types.Var); ok && !v.IsField() && v.Pkg() != nil && v.Parent() == v.Pkg().Scope() {
		if init := a.initializer(v); init != nil {
			if val, ok := a.p.value(init); ok {
				return objName(v), show(val, v.Type())
			}
		}
		return objName(v), ""
	}
	return "", ""
}

// table answers Table: the entry of the map variable Object for the
// constant Key; its value's last element's Field.
func (a *analysis) table(q Question) error {
	o, err := a.p.object(q.Object)
	if err != nil {
		return err
	}
	key, err := a.p.object(q.Key)
	if err != nil {
		return err
	}
	init := a.initializer(o)
	lit, _ := init.(*ast.CompositeLit)
	if lit == nil {
		return fmt.Errorf("%s is not declared with a composite literal", q.Object)
	}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok || a.p.obj(kv.Key) != key {
			continue
		}
		list, ok := kv.Value.(*ast.CompositeLit)
		if !ok || len(list.Elts) == 0 {
			return fmt.Errorf("%s's entry for %s is not a list", q.Object, q.Key)
		}
		var all []string
		var last *ast.KeyValueExpr
		for _, el := range list.Elts {
			spec, ok := el.(*ast.CompositeLit)
			if !ok {
				continue
			}
			for _, f := range spec.Elts {
				if fk, ok := f.(*ast.KeyValueExpr); ok {
					if id, ok := fk.Key.(*ast.Ident); ok && id.Name == q.Field {
						all = append(all, a.p.src(spec))
						last = fk
					}
				}
			}
		}
		if last == nil {
			return fmt.Errorf("%s's entry for %s sets no %s", q.Object, q.Key, q.Field)
		}
		_, v := a.resolve(last.Value)
		if v == "" {
			v = a.p.src(last.Value)
		}
		a.add(q, last.Pos(), report.LayerHop{Kind: "default", Object: objName(key), Value: v, Args: all})
		return nil
	}
	return fmt.Errorf("%s has no entry for %s", q.Object, q.Key)
}
