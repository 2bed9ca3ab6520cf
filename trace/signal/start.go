package signal

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// StartArg is how the watch stream's receive loop hands the store a
// watch's start revision: on its way to where the watcher is put in the
// behind group (an addition guarded by a condition on a parameter, Param),
// the loop's call (Call) passes an argument (Arg, as written) that becomes
// that parameter. When the argument is a local the loop sets anew under a
// test of it, Init is its definition, If the test (its condition as Text),
// Set the assignment in the test's body, and Base the definition of a local
// the new value is made from: the store does not see what the request
// asked for when the test holds.
type StartArg struct {
	Call  Pos
	Arg   string
	Param string
	Init  Pos
	If    Pos
	Set   Pos
	Base  Pos
}

// Rewritten reports whether the loop sets the argument anew under a test.
func (s *StartArg) Rewritten() bool { return s != nil && s.Set.Filename != "" && s.If.Filename != "" }

// startArg follows the parameter the behind group's guarded addition
// tests back along the receive loop's calls to the argument the loop
// passes for it.
func (r *Result) startArg() {
	sg := r.in.Spec
	recv, err := r.in.Graph.Func(sg.Recv)
	if err != nil {
		return
	}
	open := r.in.Reach[sg.Open]
	for _, a := range r.Groups {
		if a.Group != sg.Behind || a.Method != "add" || a.CondDef.Filename == "" || a.Func == nil || (open != nil && !open[a.Func]) {
			continue
		}
		param := r.paramIn(a.Func, a.CondDef.pos)
		if param < 0 {
			continue
		}
		ps := r.in.Graph.Paths(recv, a.Func, 1)
		if len(ps) == 0 || len(ps[0]) == 0 {
			continue
		}
		p := ps[0]
		idx := param
		ok := true
		// From the last call back to the loop's: the argument for the
		// parameter is a parameter of the caller, down to the loop.
		for k := len(p) - 1; k > 0 && ok; k-- {
			v := argFor(p[k].Site, p[k].Callee, idx)
			pp, isParam := v.(*ssa.Parameter)
			if !isParam {
				ok = false
				break
			}
			idx = -1
			for i, q := range p[k].Caller.Params {
				if q == pp {
					idx = i
				}
			}
			ok = idx >= 0
		}
		if !ok {
			continue
		}
		first := p[0]
		ce := r.callOpening(first.Site.Pos())
		if ce == nil {
			continue
		}
		ai := idx
		if first.Callee.Signature.Recv() != nil {
			ai--
		}
		if ai < 0 || ai >= len(ce.Args) {
			continue
		}
		arg := ast.Unparen(ce.Args[ai])
		s := &StartArg{Call: r.pos(ce.Pos(), recv, lineText(r.syn, ce.Pos())), Arg: r.syn.src(arg), Param: a.Func.Params[param].Name()}
		if id, isIdent := arg.(*ast.Ident); isIdent {
			r.rewrite(s, id, recv, ce.Pos())
		}
		r.StartArg = s
		return
	}
}

// callOpening is the call whose opening parenthesis is at lparen (an SSA
// call's position).
func (r *Result) callOpening(lparen token.Pos) *ast.CallExpr {
	path, _ := r.syn.path(lparen, lparen+1)
	for _, n := range path {
		if call, ok := n.(*ast.CallExpr); ok && call.Lparen == lparen {
			return call
		}
	}
	return nil
}

// paramIn is the index of the first parameter of fn that the expression
// at pos reads, or -1.
func (r *Result) paramIn(fn *ssa.Function, pos token.Pos) int {
	path, _ := r.syn.path(pos, pos+1)
	var e ast.Expr
	for _, n := range path {
		if x, ok := n.(ast.Expr); ok {
			e = x // the outermost expression at pos
			continue
		}
		break
	}
	if e == nil {
		return -1
	}
	found := -1
	ast.Inspect(e, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || found >= 0 {
			return found < 0
		}
		obj := r.syn.obj(id)
		for i, p := range fn.Params {
			if obj != nil && p.Object() == obj {
				found = i
			}
		}
		return true
	})
	return found
}

// argFor is the value a call passes for the callee's parameter idx.
func argFor(site ssa.CallInstruction, callee *ssa.Function, idx int) ssa.Value {
	c := site.Common()
	i := idx
	if c.IsInvoke() {
		i-- // the receiver is not among an interface call's arguments
	}
	if i < 0 || i >= len(c.Args) {
		return nil
	}
	return c.Args[i]
}

// rewrite fills s when the local id is set anew, before the call at
// before, in the body of an if statement whose condition reads it.
func (r *Result) rewrite(s *StartArg, id *ast.Ident, fn *ssa.Function, before token.Pos) {
	obj, ok := r.syn.obj(id).(*types.Var)
	if !ok || obj.IsField() || obj.Parent() == nil || obj.Parent() == obj.Pkg().Scope() {
		return
	}
	path, _ := r.syn.path(id.Pos(), id.End())
	fd := enclosingFunc(path)
	if fd == nil || fd.Body == nil {
		return
	}
	reads := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if x, ok := n.(*ast.Ident); ok && r.syn.obj(x) == obj {
				found = true
			}
			return !found
		})
		return found
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if x.Pos() > before || len(x.Lhs) != len(x.Rhs) {
				return true
			}
			for i, l := range x.Lhs {
				li, ok := l.(*ast.Ident)
				if !ok || r.syn.obj(li) != obj {
					continue
				}
				if x.Tok == token.DEFINE && s.Init.Filename == "" && i < len(x.Rhs) {
					s.Init = r.pos(x.Pos(), fn, r.syn.src(x))
				}
			}
		case *ast.IfStmt:
			if x.Pos() > before || !reads(x.Cond) {
				return true
			}
			for _, st := range x.Body.List {
				as, ok := st.(*ast.AssignStmt)
				if !ok || as.Tok != token.ASSIGN || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
					continue
				}
				if li, ok := as.Lhs[0].(*ast.Ident); !ok || r.syn.obj(li) != obj {
					continue
				}
				s.If = r.pos(x.Cond.Pos(), fn, r.syn.src(x.Cond))
				s.Set = r.pos(as.Pos(), fn, r.syn.src(as))
				// The local the new value is made from, with its definition.
				ast.Inspect(as.Rhs[0], func(m ast.Node) bool {
					bi, ok := m.(*ast.Ident)
					if !ok || s.Base.Filename != "" {
						return s.Base.Filename == ""
					}
					if v, ok := r.syn.obj(bi).(*types.Var); ok && !v.IsField() && v != obj {
						if def := r.definition(bi); def != nil {
							s.Base = r.pos(def.Pos(), fn, bi.Name+" := "+r.syn.src(def))
						}
					}
					return true
				})
			}
		}
		return true
	})
}
