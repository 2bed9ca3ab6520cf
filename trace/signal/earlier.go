package signal

import (
	"go/ast"
	"go/types"

	"github.com/srctrace/srctrace/trace/callpath"
)

// Earlier is a return that ends a caller with no error before it makes a
// call on a path, under a test of one of the caller's parameters: a
// request whose value meets the test is answered there, and the call is
// not made. Over is the field the test's loop ranges over, when it is in
// such a loop; Kept are the writes that append to that field.
type Earlier struct {
	Return Pos
	Cond   Pos // the test, with its condition as Text
	Param  string
	Over   string
	Kept   []Write
}

// ReturnsBefore finds the earlier returns of h's caller, before its call
// of h's callee, that return no error under a test of a parameter.
func (r *Result) ReturnsBefore(h callpath.Hop) []Earlier {
	fn := h.Caller
	if fn == nil || h.Site == nil {
		return nil
	}
	fd, ok := fn.Syntax().(*ast.FuncDecl)
	if !ok || fd.Body == nil || fd.Type.Results == nil {
		return nil
	}
	res := fn.Signature.Results()
	if res.Len() == 0 || !callpath.IsError(res.At(res.Len()-1).Type()) {
		return nil
	}
	params := map[types.Object]string{}
	for _, p := range fn.Params {
		if p.Object() != nil {
			params[p.Object()] = p.Name()
		}
	}
	call := h.Site.Pos()
	var out []Earlier
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		ret, ok := n.(*ast.ReturnStmt)
		if !ok || ret.Pos() > call || len(ret.Results) == 0 {
			return true
		}
		if id, ok := ast.Unparen(ret.Results[len(ret.Results)-1]).(*ast.Ident); !ok || id.Name != "nil" {
			return true
		}
		path, _ := r.syn.path(ret.Pos(), ret.End())
		var e Earlier
		for i := 1; i < len(path); i++ {
			switch x := path[i].(type) {
			case *ast.IfStmt:
				if e.Cond.Filename != "" || path[i-1] != x.Body {
					continue
				}
				ast.Inspect(x.Cond, func(m ast.Node) bool {
					if id, ok := m.(*ast.Ident); ok && e.Param == "" {
						if name, ok := params[r.syn.obj(id)]; ok {
							e.Param = name
						}
					}
					return e.Param == ""
				})
				if e.Param != "" {
					e.Cond = r.pos(x.Cond.Pos(), fn, r.syn.src(x.Cond))
				}
			case *ast.RangeStmt:
				if e.Cond.Filename == "" || e.Over != "" {
					continue
				}
				if v, ok := r.syn.obj(x.X).(*types.Var); ok && v.IsField() {
					e.Over = r.syn.src(x.X)
					e.Kept = r.appendsTo(v)
				}
			}
		}
		if e.Cond.Filename == "" {
			return true
		}
		e.Return = r.pos(ret.Pos(), fn, r.syn.src(ret))
		out = append(out, e)
		return true
	})
	return out
}

// appendsTo finds the assignments that append to field v.
func (r *Result) appendsTo(v *types.Var) []Write {
	var out []Write
	r.syn.inspectIn(v, func(f *ast.File, info *types.Info, n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		for i, l := range as.Lhs {
			if r.syn.obj(l) != v {
				continue
			}
			call, ok := ast.Unparen(as.Rhs[i]).(*ast.CallExpr)
			if !ok || !isBuiltin(r, call.Fun, "append") {
				continue
			}
			path, _ := r.syn.path(as.Pos(), as.End())
			out = append(out, Write{Pos: r.pos(as.Pos(), r.funcAt(f, path), r.syn.src(as)), Field: v.Name(), Value: r.syn.src(as.Rhs[i])})
		}
		return true
	})
	return out
}
