package signal

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Fragment is why a response that cancels a watch for a compaction is
// never a fragment: the wire's fragment flag (Spec.Fragment) is set only
// past a return taken for a response with fewer than MinEvents events
// (Guards, one per write that sets it), and the cancel carries no events:
// the decision's response sets no events field (NoEvents, the literal),
// and the send loop gives the wire response as many events as the
// channel's response has (Copy). Alias is where the client's receive loop
// makes the variable its case reads the response itself, on a branch a
// cancel takes.
type Fragment struct {
	Writes    []Pos
	Guards    []Pos
	MinEvents int64
	NoEvents  Pos
	Copy      Pos
	Alias     Pos
}

// fragment decides the flag for a compaction cancel; nil when the code
// does not show it false on every path.
func (r *Result) fragment(loop *ssa.Function, body *ast.BlockStmt, known map[*types.Var]tri) *Fragment {
	sg := r.in.Spec
	flag := r.fieldOrNil(sg.Fragment)
	if flag == nil || len(sg.Events) < 2 {
		return nil
	}
	chanEvents, wireEvents := r.fieldOrNil(sg.Events[0]), r.fieldOrNil(sg.Events[1])
	if chanEvents == nil || wireEvents == nil {
		return nil
	}
	fr := &Fragment{}
	// Every write that may set the flag, and the return before it.
	ok := true
	r.syn.inspectAll(func(f *ast.File, info *types.Info, n ast.Node) bool {
		var value ast.Expr
		var at token.Pos
		switch x := n.(type) {
		case *ast.KeyValueExpr:
			if r.syn.obj(x.Key) == flag {
				value, at = x.Value, x.Pos()
			}
		case *ast.AssignStmt:
			for i, l := range x.Lhs {
				if r.syn.obj(l) == flag && i < len(x.Rhs) {
					value, at = x.Rhs[i], l.Pos()
				}
			}
		}
		if value == nil {
			return true
		}
		if tv, isConst := info.Types[value]; isConst && tv.Value != nil && tv.Value.Kind() == constant.Bool && !constant.BoolVal(tv.Value) {
			return true // sets it false
		}
		if r.syn.obj(value) == flag {
			return true // copies it from another response
		}
		path, _ := r.syn.path(at, at+1)
		fn := r.funcAt(f, path)
		guard, min := r.minEventsGuard(path, wireEvents)
		if guard == nil {
			ok = false
			return true
		}
		fr.Writes = append(fr.Writes, r.pos(at, fn, lineText(r.syn, at)))
		fr.Guards = append(fr.Guards, r.pos(guard.Pos(), fn, r.syn.src(guard)))
		if fr.MinEvents == 0 || min < fr.MinEvents {
			fr.MinEvents = min
		}
		return true
	})
	if !ok || len(fr.Writes) == 0 || fr.MinEvents < 1 {
		return nil
	}
	// The cancel's response sets no events.
	d := r.signalling()
	if d == nil {
		return nil
	}
	lit := r.literalAt(d.ConsequencePos.pos)
	if lit == nil {
		return nil
	}
	for _, el := range lit.Elts {
		if kv, ok := el.(*ast.KeyValueExpr); ok && r.syn.obj(kv.Key) == chanEvents {
			return nil
		}
	}
	fr.NoEvents = r.pos(lit.Pos(), d.Func, r.syn.src(lit))
	// The send loop's wire response: as many events as the channel's.
	send, err := r.in.Graph.Func(sg.Send)
	if err != nil {
		return nil
	}
	fd, isDecl := send.Syntax().(*ast.FuncDecl)
	if !isDecl || fd.Body == nil {
		return nil
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok || r.syn.obj(kv.Key) != wireEvents || fr.Copy.Filename != "" {
			return fr.Copy.Filename == ""
		}
		id, ok := ast.Unparen(kv.Value).(*ast.Ident)
		if !ok {
			return true
		}
		// events := make(T, len(evs)); evs := x.Events (the channel's)
		mk, ok := ast.Unparen(r.definition(id)).(*ast.CallExpr)
		if !ok || len(mk.Args) != 2 || !isBuiltin(r, mk.Fun, "make") {
			return true
		}
		ln, ok := ast.Unparen(mk.Args[1]).(*ast.CallExpr)
		if !ok || len(ln.Args) != 1 || !isBuiltin(r, ln.Fun, "len") {
			return true
		}
		src := ln.Args[0]
		if x, ok := ast.Unparen(src).(*ast.Ident); ok {
			src = r.definition(x)
		}
		if src != nil && r.syn.obj(src) == chanEvents {
			fr.Copy = r.pos(kv.Pos(), send, r.syn.src(kv)+"; "+r.syn.src(mk))
		}
		return true
	})
	if fr.Copy.Filename == "" {
		return nil
	}
	// The loop's variable: the response itself on a branch the cancel takes.
	fr.Alias = r.aliasOf(loop, body, flag, known)
	if fr.Alias.Filename == "" {
		return nil
	}
	return fr
}

// minEventsGuard finds, before the statement at path[0], an if statement of
// the same function body that returns when len(x.events) < k (alone or in
// an || of conditions): the write is reached only with k or more events.
func (r *Result) minEventsGuard(path []ast.Node, events *types.Var) (ast.Expr, int64) {
	var body *ast.BlockStmt
	var stmt ast.Node
	for i, n := range path {
		switch n.(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			if i > 0 {
				if b, ok := path[i-1].(*ast.BlockStmt); ok && i > 1 {
					body, stmt = b, path[i-2]
				}
			}
		}
		if body != nil {
			break
		}
	}
	if body == nil {
		return nil, 0
	}
	for _, st := range body.List {
		if st == stmt {
			break
		}
		ifs, ok := st.(*ast.IfStmt)
		if !ok || !returns(ifs.Body) {
			continue
		}
		var found int64
		var walk func(e ast.Expr)
		walk = func(e ast.Expr) {
			be, ok := ast.Unparen(e).(*ast.BinaryExpr)
			if !ok {
				return
			}
			switch be.Op {
			case token.LOR:
				walk(be.X)
				walk(be.Y)
			case token.LSS:
				ln, ok := ast.Unparen(be.X).(*ast.CallExpr)
				if !ok || len(ln.Args) != 1 || !isBuiltin(r, ln.Fun, "len") || r.syn.obj(ln.Args[0]) != events {
					return
				}
				if tv, ok := r.syn.info[r.syn.file(be.Y.Pos())].Types[be.Y]; ok && tv.Value != nil {
					if k, exact := constant.Int64Val(constant.ToInt(tv.Value)); exact {
						found = k
					}
				}
			}
		}
		walk(ifs.Cond)
		if found > 0 {
			return ifs.Cond, found
		}
	}
	return nil, 0
}

// literalAt is the composite literal that holds pos.
func (r *Result) literalAt(pos token.Pos) *ast.CompositeLit {
	path, _ := r.syn.path(pos, pos+1)
	for _, n := range path {
		if cl, ok := n.(*ast.CompositeLit); ok {
			return cl
		}
	}
	return nil
}

// aliasOf finds, in the loop's body, an assignment `v = x` where v is the
// variable whose field the undecided case reads and x a value of the same
// type, in an if whose condition the known fields make true.
func (r *Result) aliasOf(loop *ssa.Function, body *ast.BlockStmt, flag *types.Var, known map[*types.Var]tri) Pos {
	// The variable: the base of a selector of the flag in a case clause.
	var v types.Object
	ast.Inspect(body, func(n ast.Node) bool {
		cc, ok := n.(*ast.CaseClause)
		if !ok || v != nil {
			return v == nil
		}
		for _, e := range cc.List {
			if sel, ok := ast.Unparen(e).(*ast.SelectorExpr); ok && r.syn.obj(sel) == flag {
				v = r.syn.obj(sel.X)
			}
		}
		return true
	})
	if v == nil {
		return Pos{}
	}
	var at Pos
	ast.Inspect(body, func(n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok || at.Filename != "" {
			return at.Filename == ""
		}
		if val, _ := r.eval3(ifs.Cond, known); val != yes3 {
			return true
		}
		for _, st := range ifs.Body.List {
			as, ok := st.(*ast.AssignStmt)
			if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || r.syn.obj(as.Lhs[0]) != v {
				continue
			}
			info := r.syn.info[r.syn.file(as.Pos())]
			if x, ok := ast.Unparen(as.Rhs[0]).(*ast.Ident); ok && x.Name != "nil" && types.Identical(info.TypeOf(x), v.Type()) {
				at = r.pos(as.Pos(), loop, r.syn.src(as)+" (when "+r.syn.src(ifs.Cond)+")")
			}
		}
		return true
	})
	return at
}

// isBuiltin reports whether fun names the built-in function name.
func isBuiltin(r *Result, fun ast.Expr, name string) bool {
	id, ok := ast.Unparen(fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := r.syn.info[r.syn.file(id.Pos())].Uses[id].(*types.Builtin)
	return ok && b.Name() == name
}
