package signal

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Tool is what the command line tool prints, evaluated from its code.
type Tool struct {
	Name  string
	Watch *ToolRun // the watch command whose stream the server cancels
	Get   *ToolRun // the get command whose read fails
}

// ToolRun is one command's output in one scenario.
type ToolRun struct {
	Func    Pos
	Stdout  []Line
	Stderr  []Line
	Exit    int
	ExitBy  string // the constant's qualified name
	ExitPos Pos
	Exited  bool
	// ExitFrom is where the code chooses the exit status (the expression
	// that names the constant), ExitDecl where the constant is declared.
	ExitFrom, ExitDecl Pos
	// ExitCall is the call of the function that exits (the tool's exit
	// function, called from the command's code), when the exit is in a
	// function the evaluation followed into.
	ExitCall Pos
	// Assumed lists the conditions the scenario does not decide and that
	// were taken as false (the branch not taken).
	Assumed []string
	// CallsSucceed is set when the evaluation took the error of a call
	// it does not follow as nil (the run's exit holds when they succeed).
	CallsSucceed bool
	// Unknown is set when some printed value could not be evaluated.
	Unknown bool
	// Display is the call that shows each response the command receives
	// (a method of a package-level printer), the final one too.
	Display Pos
	// Failed is set when a call the scenario makes fail was reached.
	Failed bool
}

// Line is one printed line and the call that prints it.
type Line struct {
	Text   string
	Pos    Pos
	Format string
	// Built is where the error value it prints was made (errors.New,
	// fmt.Errorf), when it prints one the command made.
	Built Pos
}

// value is what the interpreter knows of a Go value.
type value struct {
	kind  int // 0 unknown, 1 string, 2 error, 3 int, 4 bool, 5 final response, 6 nil
	s     string
	i     int64
	b     bool
	named string // qualified name of the constant it came from
	// from is where the code names the constant; decl where it is
	// declared; made where an error value is made.
	from, decl, made Pos
}

const (
	vUnknown = iota
	vString
	vError
	vInt
	vBool
	vResponse
	vNil
)

// interp evaluates a command's statements for one scenario: which fields of
// the final watch response are set, or which client call fails. Conditions
// the scenario does not decide are taken as false.
type interp struct {
	r     *Result
	run   *ToolRun
	env   map[types.Object]value
	depth int
	done  bool // returned from the current function
	// ret are the values an inlined function returned (its return
	// statement's, evaluated where it returns); skipped is set when the
	// evaluation passed over a statement it does not follow (a switch, a
	// loop) that holds a return: what the function returns is not known.
	ret     []value
	skipped bool
	// loops counts the loops the evaluation makes one pass of (those
	// whose body makes the call that fails); broken is set by a break or
	// a continue in the innermost, which ends its pass.
	loops  int
	broken bool
	// calls are the calls the evaluation is inside, outermost first
	// (their positions are made only for an exit).
	calls   []inCall
	respErr string
	setBool map[string]bool // field names of the final response that are true
	// fails says which calls fail (with failErr): the callee f of a call
	// in fn's code.
	fails   func(fn *ssa.Function, call *ast.CallExpr, f *types.Func) bool
	failErr string
	pkgs    map[string]bool // packages whose functions are inlined
}

func (r *Result) tool() {
	sg := r.in.Spec
	t := sg.Tool
	if t.Watch == "" && t.Get == "" {
		return
	}
	out := &Tool{Name: t.Name}
	pkgs := map[string]bool{}
	for _, name := range []string{t.Watch, t.Get, t.Exit} {
		if fn, err := r.in.Graph.Func(name); err == nil && fn.Pkg != nil {
			pkgs[fn.Pkg.Pkg.Path()] = true
		}
	}
	cancelName := ""
	if v := r.fieldOrNil(sg.Cancel); v != nil {
		cancelName = v.Name()
	}
	if fn, err := r.in.Graph.Func(t.Watch); err == nil && r.Client != nil && r.Client.Err.Text != "" {
		in := &interp{r: r, respErr: r.Client.Err.Text, setBool: map[string]bool{cancelName: true}, pkgs: pkgs}
		out.Watch = in.exec(fn)
	}
	if fn, err := r.in.Graph.Func(t.Get); err == nil && r.Read != nil && r.Read.Wire.Text != "" {
		_, m, _ := r.in.Graph.Callable(t.Failing)
		in := &interp{r: r, fails: callOf(m), failErr: r.Read.Wire.Text, pkgs: pkgs}
		out.Get = in.exec(fn)
	}
	if out.Watch != nil || out.Get != nil {
		r.Tool = out
	}
}

func (in *interp) exec(fn *ssa.Function) *ToolRun {
	fd, ok := fn.Syntax().(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return nil
	}
	in.run = &ToolRun{Func: in.r.pos(fd.Pos(), fn, fd.Name.Name)}
	in.env = map[types.Object]value{}
	in.block(fd.Body.List, fn)
	return in.run
}

func (in *interp) stopped() bool { return in.run.Exited || in.done || in.broken }

func (in *interp) block(list []ast.Stmt, fn *ssa.Function) {
	for _, st := range list {
		if in.stopped() {
			return
		}
		in.stmt(st, fn)
	}
}

func (in *interp) stmt(st ast.Stmt, fn *ssa.Function) {
	switch x := st.(type) {
	case *ast.BlockStmt:
		in.block(x.List, fn)
	case *ast.ExprStmt:
		in.eval(x.X, fn)
	case *ast.AssignStmt:
		in.assign(x.Lhs, x.Rhs, fn)
	case *ast.DeclStmt:
		if gd, ok := x.Decl.(*ast.GenDecl); ok {
			for _, sp := range gd.Specs {
				if vs, ok := sp.(*ast.ValueSpec); ok {
					var lhs []ast.Expr
					for _, n := range vs.Names {
						lhs = append(lhs, n)
					}
					in.assign(lhs, vs.Values, fn)
				}
			}
		}
	case *ast.IfStmt:
		if x.Init != nil {
			in.stmt(x.Init, fn)
		}
		cond, known := in.cond(x.Cond, fn)
		if !known {
			in.run.Assumed = appendOnce(in.run.Assumed, in.r.syn.src(x.Cond))
		}
		if cond {
			in.block(x.Body.List, fn)
		} else if x.Else != nil {
			in.stmt(x.Else, fn)
		}
	case *ast.RangeStmt:
		// A range over the watch channel: its body runs for the final
		// response, then the channel is closed and the code after it runs.
		if t, ok := in.r.syn.info[in.r.syn.file(x.Pos())].TypeOf(x.X).Underlying().(*types.Chan); ok && t != nil {
			if id, ok := x.Key.(*ast.Ident); ok {
				if o := in.r.syn.obj(id); o != nil {
					in.env[o] = value{kind: vResponse}
				}
			}
			in.block(x.Body.List, fn)
			in.done = false
		} else if in.failsIn(x.Body, fn) {
			// A loop over a slice or a map whose body makes the call that
			// fails: one pass, so that the call is made; its key and value
			// are not known.
			head := "for range " + in.r.syn.src(x.X)
			switch {
			case x.Key != nil && x.Value != nil:
				head = fmt.Sprintf("for %s, %s %s range %s", in.r.syn.src(x.Key), in.r.syn.src(x.Value), x.Tok, in.r.syn.src(x.X))
			case x.Key != nil:
				head = fmt.Sprintf("for %s %s range %s", in.r.syn.src(x.Key), x.Tok, in.r.syn.src(x.X))
			}
			in.run.Assumed = appendOnce(in.run.Assumed, "the loop `"+head+"` makes one pass (the call that fails is in it)")
			for _, e := range []ast.Expr{x.Key, x.Value} {
				if id, ok := e.(*ast.Ident); ok {
					if o := in.r.syn.obj(id); o != nil {
						in.env[o] = value{}
					}
				}
			}
			in.loops++
			in.block(x.Body.List, fn)
			in.loops--
			in.broken = false
		} else if in.depth > 0 && holdsReturn(x) {
			in.skipped = true
		}
	case *ast.BranchStmt:
		if in.loops > 0 && (x.Tok == token.BREAK || x.Tok == token.CONTINUE) {
			in.broken = true
		} else if in.depth > 0 && holdsReturn(st) {
			in.skipped = true
		}
	default:
		if in.depth > 0 && holdsReturn(st) {
			in.skipped = true
		}
	case *ast.ReturnStmt:
		if in.depth > 0 {
			in.ret = nil
			for _, r := range x.Results {
				in.ret = append(in.ret, in.eval(r, fn))
			}
		}
		in.done = true
	}
}

// failsIn reports whether body, in fn's code, makes a call that fails
// (not in a function literal).
func (in *interp) failsIn(body *ast.BlockStmt, fn *ssa.Function) bool {
	if in.fails == nil {
		return false
	}
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found {
			return false
		}
		switch x := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if f := calleeObj(in.r.syn.info[in.r.syn.file(x.Pos())], x.Fun); f != nil && in.fails(fn, x, f) {
				found = true
			}
		}
		return true
	})
	return found
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func (in *interp) assign(lhs, rhs []ast.Expr, fn *ssa.Function) {
	if len(rhs) == 1 && len(lhs) > 1 {
		// v, err := call(): the failing call binds its error result.
		v := in.eval(rhs[0], fn)
		last := lhs[len(lhs)-1]
		if o := in.r.syn.obj(last); o != nil {
			if v.kind == vError {
				in.env[o] = v
			} else {
				in.env[o] = value{kind: vNil}
				in.run.Assumed = appendOnce(in.run.Assumed, "every other call succeeds (its error is nil)")
				in.run.CallsSucceed = true
			}
		}
		return
	}
	for i, l := range lhs {
		if i >= len(rhs) {
			break
		}
		v := in.eval(rhs[i], fn)
		if o := in.r.syn.obj(l); o != nil {
			in.env[o] = v
		}
	}
}

// cond evaluates a condition: its value and whether the scenario decides it.
func (in *interp) cond(e ast.Expr, fn *ssa.Function) (bool, bool) {
	switch x := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			v, known := in.cond(x.X, fn)
			return !v && known, known
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.LAND:
			a, ka := in.cond(x.X, fn)
			b, kb := in.cond(x.Y, fn)
			return a && b, ka && kb
		case token.LOR:
			a, ka := in.cond(x.X, fn)
			b, kb := in.cond(x.Y, fn)
			return a || b, ka && kb
		case token.EQL, token.NEQ:
			// err != nil, err == nil
			var side ast.Expr
			if isNil(x.Y) {
				side = x.X
			} else if isNil(x.X) {
				side = x.Y
			}
			if side != nil {
				v := in.eval(side, fn)
				if v.kind == vError || v.kind == vNil {
					isNonNil := v.kind == vError
					return isNonNil == (x.Op == token.NEQ), true
				}
			}
		}
	case *ast.SelectorExpr:
		if v := in.eval(x.X, fn); v.kind == vResponse {
			return in.setBool[x.Sel.Name], true
		}
	}
	return false, false
}

func isNil(e ast.Expr) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return ok && id.Name == "nil"
}

func (in *interp) eval(e ast.Expr, fn *ssa.Function) value {
	info := in.r.syn.info[in.r.syn.file(e.Pos())]
	if info == nil {
		return value{}
	}
	if tv, ok := info.Types[e]; ok && tv.Value != nil {
		v := constValue(tv.Value)
		if c, ok := in.r.syn.obj(e).(*types.Const); ok {
			v.named = qualified(c)
			v.from = in.r.pos(e.Pos(), fn, lineText(in.r.syn, e.Pos()))
			v.decl = in.r.pos(c.Pos(), nil, lineText(in.r.syn, c.Pos()))
		}
		return v
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if x.Name == "nil" {
			return value{kind: vNil}
		}
		if o := in.r.syn.obj(x); o != nil {
			if v, ok := in.env[o]; ok {
				return v
			}
		}
	case *ast.CallExpr:
		return in.call(x, fn, info)
	}
	return value{}
}

func constValue(c constant.Value) value {
	switch c.Kind() {
	case constant.String:
		return value{kind: vString, s: constant.StringVal(c)}
	case constant.Int:
		i, _ := constant.Int64Val(c)
		return value{kind: vInt, i: i}
	case constant.Bool:
		return value{kind: vBool, b: constant.BoolVal(c)}
	}
	return value{}
}

// callee returns the function object a call calls.
func calleeObj(info *types.Info, fun ast.Expr) *types.Func {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		fn, _ := info.Uses[f].(*types.Func)
		return fn
	case *ast.SelectorExpr:
		if sel := info.Selections[f]; sel != nil {
			fn, _ := sel.Obj().(*types.Func)
			return fn
		}
		fn, _ := info.Uses[f.Sel].(*types.Func)
		return fn
	}
	return nil
}

func (in *interp) call(x *ast.CallExpr, fn *ssa.Function, info *types.Info) value {
	f := calleeObj(info, x.Fun)
	if f == nil {
		return value{}
	}
	pkg := ""
	if f.Pkg() != nil {
		pkg = f.Pkg().Path()
	}
	args := func(from int) []value {
		var vs []value
		for _, a := range x.Args[from:] {
			vs = append(vs, in.eval(a, fn))
		}
		return vs
	}
	switch {
	case in.fails != nil && in.fails(fn, x, f):
		in.run.Failed = true
		return value{kind: vError, s: in.failErr}
	case pkg == "fmt" && (f.Name() == "Fprintf" || f.Name() == "Fprintln" || f.Name() == "Fprint"):
		if len(x.Args) == 0 {
			return value{}
		}
		w := in.r.syn.obj(x.Args[0])
		stream := ""
		if w != nil && w.Pkg() != nil && w.Pkg().Path() == "os" {
			stream = w.Name()
		}
		format := ""
		var vals []value
		if f.Name() == "Fprintf" && len(x.Args) > 1 {
			fv := in.eval(x.Args[1], fn)
			format = fv.s
			vals = args(2)
		} else {
			vals = args(1)
		}
		text := in.format(f.Name(), format, vals)
		var built Pos
		for _, v := range vals {
			if v.kind == vError && v.made.Filename != "" {
				built = v.made
				break
			}
		}
		in.print(stream, text, x, fn, format, built)
		return value{}
	case pkg == "fmt" && f.Name() == "Errorf":
		if len(x.Args) == 0 {
			return value{}
		}
		fv := in.eval(x.Args[0], fn)
		return value{kind: vError, s: in.format("Errorf", fv.s, args(1)), made: in.r.pos(x.Pos(), fn, in.r.syn.src(x))}
	case pkg == "errors" && f.Name() == "New":
		if v := in.eval(x.Args[0], fn); v.kind == vString {
			return value{kind: vError, s: v.s, made: in.r.pos(x.Pos(), fn, in.r.syn.src(x))}
		}
		return value{}
	case pkg == "os" && f.Name() == "Exit":
		v := in.eval(x.Args[0], fn)
		if v.kind == vInt {
			in.run.Exit, in.run.Exited, in.run.ExitBy = int(v.i), true, v.named
			in.run.ExitPos = in.r.pos(x.Pos(), fn, in.r.syn.src(x))
			if n := len(in.calls); n > 0 {
				c := in.calls[n-1]
				in.run.ExitCall = in.r.pos(c.call.Pos(), c.fn, in.r.syn.src(c.call))
			}
			in.run.ExitFrom, in.run.ExitDecl = v.from, v.decl
		}
		return value{}
	case f.Name() == "Err" && len(x.Args) == 0:
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok && in.eval(sel.X, fn).kind == vResponse {
			return value{kind: vError, s: in.respErr}
		}
	}
	// A method of a package-level printer, called with the response.
	if sig, _ := f.Type().(*types.Signature); sig != nil && sig.Recv() != nil && in.run.Display.Filename == "" {
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok {
			if v, ok := in.r.syn.obj(sel.X).(*types.Var); ok && !v.IsField() && v.Pkg() != nil && v.Parent() == v.Pkg().Scope() && types.IsInterface(v.Type()) {
				for _, a := range x.Args {
					if u, ok := ast.Unparen(a).(*ast.UnaryExpr); ok && u.Op == token.AND {
						a = u.X
					}
					if in.eval(a, fn).kind == vResponse {
						in.run.Display = in.r.pos(x.Pos(), fn, in.r.syn.src(x))
					}
				}
			}
		}
	}
	// Inline functions of the tool's own packages.
	if sig, _ := f.Type().(*types.Signature); in.pkgs[pkg] && in.depth < 4 && sig != nil && sig.Recv() == nil {
		target := in.r.in.Graph.Prog.FuncValue(f)
		if target == nil {
			return value{}
		}
		fd, ok := target.Syntax().(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			return value{}
		}
		saved := in.env
		in.env = map[types.Object]value{}
		for k, v := range saved {
			in.env[k] = v
		}
		i := 0
		for _, field := range fd.Type.Params.List {
			for _, name := range field.Names {
				if i < len(x.Args) {
					if o := in.r.syn.obj(name); o != nil {
						in.env[o] = in.evalIn(x.Args[i], fn, saved)
					}
				}
				i++
			}
		}
		savedRet, savedSkipped := in.ret, in.skipped
		in.ret, in.skipped = nil, false
		in.calls = append(in.calls, inCall{x, fn})
		in.depth++
		in.block(fd.Body.List, target)
		in.depth--
		in.calls = in.calls[:len(in.calls)-1]
		ret, skipped := in.ret, in.skipped
		in.ret, in.skipped = savedRet, savedSkipped
		in.done = false
		in.env = saved
		// What it returned: its only result, or its last (the error of a
		// (value, error) pair, which is what the caller's assignment of
		// such a call reads); nothing known when it returned by no
		// return statement the evaluation took (an exit, the end of its
		// body) or gave none of the results.
		if n := sig.Results().Len(); n > 0 && len(ret) == n && !skipped && !in.run.Exited {
			return ret[n-1]
		}
	}
	return value{}
}

// callOf says a call fails when it calls m: the same function, its
// origin, or a method of its name on a type of its package.
func callOf(m *types.Func) func(*ssa.Function, *ast.CallExpr, *types.Func) bool {
	if m == nil {
		return nil
	}
	return func(_ *ssa.Function, _ *ast.CallExpr, f *types.Func) bool {
		return f == m || f.Origin() == m.Origin() || (f.Name() == m.Name() && sameRecvPkg(f, m))
	}
}

func sameRecvPkg(a, b *types.Func) bool {
	return a.Pkg() != nil && b.Pkg() != nil && a.Pkg().Path() == b.Pkg().Path()
}

func (in *interp) evalIn(e ast.Expr, fn *ssa.Function, env map[types.Object]value) value {
	saved := in.env
	in.env = env
	v := in.eval(e, fn)
	in.env = saved
	return v
}

// format applies fmt's rules to the values it knows (verb is the fmt
// function: Fprintf, Fprintln, Errorf, or another that prints its values
// as Fprint does). An error is an error, so that %w wraps it in Errorf as
// it does in fmt.
func (in *interp) format(verb, format string, vals []value) string {
	var args []any
	for _, v := range vals {
		switch v.kind {
		case vString:
			args = append(args, v.s)
		case vError:
			args = append(args, errors.New(v.s))
		case vInt:
			args = append(args, v.i)
		case vBool:
			args = append(args, v.b)
		default:
			in.run.Unknown = true
			args = append(args, "?")
		}
	}
	switch verb {
	case "Fprintf":
		return fmt.Sprintf(format, args...)
	case "Errorf":
		return fmt.Errorf(format, args...).Error()
	case "Fprintln":
		return fmt.Sprintln(args...)
	}
	return fmt.Sprint(args...)
}

func (in *interp) print(stream, text string, call *ast.CallExpr, fn *ssa.Function, format string, built Pos) {
	for _, l := range strings.SplitAfter(text, "\n") {
		if l == "" {
			continue
		}
		line := Line{Text: strings.TrimSuffix(l, "\n"), Pos: in.r.pos(call.Pos(), fn, in.r.syn.src(call)), Format: format, Built: built}
		switch stream {
		case "Stderr":
			in.run.Stderr = append(in.run.Stderr, line)
		case "Stdout":
			in.run.Stdout = append(in.run.Stdout, line)
		}
	}
}

// inCall is a call the evaluation followed into, in the function fn.
type inCall struct {
	call *ast.CallExpr
	fn   *ssa.Function
}

// holdsReturn reports whether statement st holds a return statement (not
// one of a function literal's).
func holdsReturn(st ast.Stmt) bool {
	found := false
	ast.Inspect(st, func(n ast.Node) bool {
		switch n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.ReturnStmt:
			found = true
		}
		return !found
	})
	return found
}
