package signal

import (
	"go/ast"
	"go/types"

	"github.com/srctrace/srctrace/trace/callpath"
)

// Refused is how the client turns a refusal at open (a create response
// that is also canceled, with a reason) into the error its user sees: the
// branch that tests the reason (Cond) and keeps the conversion of its text
// in a field (Set); the response made with that field for the user (Hand);
// and the case of the client's error method that returns the conversion of
// it (Case, Return).
type Refused struct {
	Cond, Set    Pos
	Hand         Pos
	Case, Return Pos
}

func (r *Result) refused() {
	sg := r.in.Spec
	reason := r.fieldOrNil(sg.Reason)
	if reason == nil || sg.ClientConvert == "" || sg.ClientErr == "" {
		return
	}
	conv, err := r.in.Graph.Func(sg.ClientConvert)
	if err != nil {
		return
	}
	errFn, err := r.in.Graph.Func(sg.ClientErr)
	if err != nil || errFn.Pkg == nil {
		return
	}
	client := errFn.Pkg.Pkg
	isConv := func(e ast.Expr) bool {
		call, ok := ast.Unparen(e).(*ast.CallExpr)
		if !ok {
			return false
		}
		f := calleeObj(r.syn.info[r.syn.file(call.Pos())], call.Fun)
		return f != nil && r.in.Graph.Prog.FuncValue(f) == conv
	}
	reads := func(e ast.Node, v types.Object) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if x, ok := n.(ast.Expr); ok && r.syn.obj(x) == v {
				found = true
			}
			return !found
		})
		return found
	}
	x := &Refused{}
	var kept types.Object // the field the conversion is kept in
	r.syn.inspectAll(func(f *ast.File, info *types.Info, n ast.Node) bool {
		if p := r.syn.pkg[f]; p == nil || p.Types != client || kept != nil {
			return false
		}
		ifs, ok := n.(*ast.IfStmt)
		if !ok || !reads(ifs.Cond, reason) {
			return true
		}
		for _, st := range ifs.Body.List {
			as, ok := st.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || !isConv(as.Rhs[0]) || !reads(as.Rhs[0], reason) {
				continue
			}
			if v, ok := r.syn.obj(as.Lhs[0]).(*types.Var); ok && v.IsField() {
				path, _ := r.syn.path(as.Pos(), as.End())
				fn := r.funcAt(f, path)
				kept = v
				x.Cond = r.pos(ifs.Cond.Pos(), fn, r.syn.src(ifs.Cond))
				x.Set = r.pos(as.Pos(), fn, r.syn.src(as))
			}
		}
		return true
	})
	if kept == nil {
		return
	}
	// The user's response made with the kept error: in the function the
	// receive loop closes a substream with, when there is one.
	closer := ""
	if rc := r.Receive; rc != nil && rc.Close != nil {
		closer = rc.Close.Callee
	}
	var handed types.Object
	r.syn.inspectAll(func(f *ast.File, info *types.Info, n ast.Node) bool {
		if p := r.syn.pkg[f]; p == nil || p.Types != client || handed != nil {
			return false
		}
		if fd, ok := n.(*ast.FuncDecl); ok && closer != "" {
			path, _ := r.syn.path(fd.Pos(), fd.End())
			if fn := r.funcAt(f, path); fn == nil || callpath.Name(fn) != closer {
				return false
			}
		}
		cl, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		for _, el := range cl.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok || r.syn.obj(kv.Value) != kept {
				continue
			}
			if v, ok := r.syn.obj(kv.Key).(*types.Var); ok {
				path, _ := r.syn.path(cl.Pos(), cl.End())
				handed = v
				x.Hand = r.pos(cl.Pos(), r.funcAt(f, path), lineText(r.syn, cl.Pos()))
			}
		}
		return true
	})
	if handed == nil {
		return
	}
	fd, ok := errFn.Syntax().(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		cc, ok := n.(*ast.CaseClause)
		if !ok || x.Case.Filename != "" {
			return x.Case.Filename == ""
		}
		readsIt := false
		for _, e := range cc.List {
			readsIt = readsIt || reads(e, handed)
		}
		if !readsIt {
			return true
		}
		for _, st := range cc.Body {
			if ret, ok := st.(*ast.ReturnStmt); ok && len(ret.Results) == 1 && isConv(ret.Results[0]) && reads(ret.Results[0], handed) {
				x.Case = r.pos(cc.Pos(), errFn, caseText(r, cc))
				x.Return = r.pos(ret.Pos(), errFn, r.syn.src(ret))
			}
		}
		return true
	})
	if x.Return.Filename == "" {
		return
	}
	r.Refused = x
}
