package signal

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"github.com/srctrace/srctrace/trace/callpath"
)

// Retry is what the client library does when a unary call fails: the log
// call it makes after each failed attempt (Log, its message Msg, the
// logger method Level names), the branch that returns the error instead
// of trying again (Stop), and the comparison in the function that decides
// whether an error may be tried again (Only) with the one code it allows
// (Code).
type Retry struct {
	Log   Pos
	Msg   string
	Level string
	Stop  Pos
	Only  Pos
	Code  string
}

// retry reads the client's retrying interceptor (Spec.ClientRetry, a
// function that returns it as a literal), the logger method it logs a
// failure with (Spec.ClientLog) and the function that decides whether an
// error is tried again (Spec.ClientSafeRetry).
func (r *Result) retry() {
	sg := r.in.Spec
	if sg.ClientRetry == "" || sg.ClientLog == "" || sg.ClientSafeRetry == "" {
		return
	}
	mk, err := r.in.Graph.Func(sg.ClientRetry)
	if err != nil {
		return
	}
	safe, err := r.in.Graph.Func(sg.ClientSafeRetry)
	if err != nil {
		return
	}
	fd, ok := mk.Syntax().(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return
	}
	x := &Retry{}
	calls := func(call *ast.CallExpr) string {
		f := calleeObj(r.syn.info[r.syn.file(call.Pos())], call.Fun)
		if f == nil {
			return ""
		}
		if fn := r.in.Graph.Prog.FuncValue(f); fn != nil {
			return callpath.Name(fn)
		}
		return ""
	}
	var lit *ast.FuncLit
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if fl, ok := n.(*ast.FuncLit); ok && lit == nil {
			lit = fl
			return false
		}
		return lit == nil
	})
	if lit == nil {
		return
	}
	path, _ := r.syn.path(lit.Pos(), lit.End())
	fn := r.funcAt(r.syn.file(lit.Pos()), path)
	if fn == nil {
		return
	}
	// Closures are functions of their own in SSA: the literal's.
	for _, anon := range fn.AnonFuncs {
		if anon.Syntax() == lit {
			fn = anon
		}
	}
	safeName := callpath.Name(safe)
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.CallExpr:
			if calls(s) == sg.ClientLog && x.Log.Filename == "" && len(s.Args) > 0 {
				if tv, ok := r.syn.info[r.syn.file(s.Pos())].Types[s.Args[0]]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
					x.Log = r.pos(s.Pos(), fn, lineText(r.syn, s.Pos()))
					x.Msg = constant.StringVal(tv.Value)
					if sel, ok := s.Fun.(*ast.SelectorExpr); ok {
						x.Level = sel.Sel.Name
					}
				}
			}
		case *ast.IfStmt:
			// if !safe(...) { return ... }, or a call that reaches safe.
			if x.Log.Filename != "" && x.Stop.Filename == "" && returns(s.Body) {
				if u, ok := ast.Unparen(s.Cond).(*ast.UnaryExpr); ok && u.Op == token.NOT {
					if call, ok := ast.Unparen(u.X).(*ast.CallExpr); ok {
						name := calls(call)
						if name == safeName || r.reaches(call, safeName) {
							x.Stop = r.pos(s.Cond.Pos(), fn, r.syn.src(s.Cond))
						}
					}
				}
			}
		}
		return true
	})
	if x.Log.Filename == "" || x.Stop.Filename == "" {
		return
	}
	// In the deciding function: a comparison of a code with a constant
	// whose branch returns false.
	sfd, ok := safe.Syntax().(*ast.FuncDecl)
	if !ok || sfd.Body == nil {
		return
	}
	ast.Inspect(sfd.Body, func(n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok || x.Only.Filename != "" || !returnsFalse(r, ifs.Body) {
			return x.Only.Filename == ""
		}
		ast.Inspect(ifs.Cond, func(m ast.Node) bool {
			be, ok := m.(*ast.BinaryExpr)
			if !ok || be.Op != token.NEQ || x.Only.Filename != "" {
				return x.Only.Filename == ""
			}
			if c, ok := r.syn.obj(be.Y).(*types.Const); ok {
				x.Only = r.pos(be.Pos(), safe, r.syn.src(be))
				x.Code = c.Name()
			}
			return true
		})
		return true
	})
	if x.Only.Filename == "" {
		return
	}
	r.Retry = x
}

// reaches reports whether the call's callee reaches the function named
// name in the call graph.
func (r *Result) reaches(call *ast.CallExpr, name string) bool {
	f := calleeObj(r.syn.info[r.syn.file(call.Pos())], call.Fun)
	if f == nil {
		return false
	}
	fn := r.in.Graph.Prog.FuncValue(f)
	if fn == nil {
		return false
	}
	for g := range r.in.Graph.Reachable(fn) {
		if callpath.Name(g) == name {
			return true
		}
	}
	return false
}

// returnsFalse reports whether a block ends with `return false`.
func returnsFalse(r *Result, b *ast.BlockStmt) bool {
	if b == nil || len(b.List) == 0 {
		return false
	}
	ret, ok := b.List[len(b.List)-1].(*ast.ReturnStmt)
	if !ok || len(ret.Results) != 1 {
		return false
	}
	tv, ok := r.syn.info[r.syn.file(ret.Pos())].Types[ret.Results[0]]
	return ok && tv.Value != nil && tv.Value.Kind() == constant.Bool && !constant.BoolVal(tv.Value)
}
