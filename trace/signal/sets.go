package signal

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Victims is the third set a watcher can be in, besides the groups: the
// watchers whose channel was full when a response was due. Spec.Victims
// is the field that holds them and Spec.VictimFlag the watcher's flag
// that says it is there. Marks are the writes that set the flag (a watcher
// becomes a victim there), Clears those that unset it (it leaves the set,
// for a group).
type Victims struct {
	Field         string
	Marks, Clears []Write
	// Adds are the writes that append to the field: the functions a
	// watcher is handed to when it becomes a victim.
	Adds []Write
}

// victims finds the writes of the victim flag.
func (r *Result) victims() {
	sg := r.in.Spec
	if sg.Victims == "" || sg.VictimFlag == "" || r.fieldOrNil(sg.Victims) == nil {
		return
	}
	fs := r.stores(sg.VictimFlag)
	if fs.Absent {
		return
	}
	v := &Victims{Field: sg.Victims}
	for _, w := range fs.Stores {
		switch w.Value {
		case "true":
			v.Marks = append(v.Marks, w)
		case "false":
			v.Clears = append(v.Clears, w)
		}
	}
	for _, w := range r.stores(sg.Victims).Stores {
		if strings.HasPrefix(w.Value, "append(") {
			v.Adds = append(v.Adds, w)
		}
	}
	r.Victims = v
}

// Cleanup is what becomes of a watcher the decision cancels: the flag the
// decision sets on it (Spec.Compacted), the call in the same branch that
// removes it from the group the decision runs over (a method of the
// decision's receiver), and the branches of other functions that test the
// flag.
type Cleanup struct {
	Mark   Pos
	Delete Pos
	// OnReceiver is set when Delete is called on the decision function's
	// receiver: the watcher leaves the group the decision was called on.
	OnReceiver bool
	Reads      []FlagRead
}

// FlagRead is a branch that tests the flag: where, in which function, the
// condition, and whether the branch ends what the function is doing (a
// break or a return).
type FlagRead struct {
	Pos
	Cond string
	Ends bool
}

func (r *Result) cleanup() {
	sg := r.in.Spec
	flag := r.fieldOrNil(sg.Compacted)
	if flag == nil {
		return
	}
	d := r.signalling()
	if d == nil {
		return
	}
	c := &Cleanup{}
	for _, w := range r.stores(sg.Compacted).Stores {
		if w.Func != d.Func || w.Value != "true" {
			continue
		}
		c.Mark = w.Pos
		// The statements of the branch that sets the flag: the call after
		// it that removes the watcher.
		path, _ := r.syn.path(w.pos, w.pos+1)
		var list []ast.Stmt
		for _, n := range path {
			switch x := n.(type) {
			case *ast.CommClause:
				list = x.Body
			case *ast.CaseClause:
				list = x.Body
			case *ast.BlockStmt:
				list = x.List
			}
			if list != nil {
				break
			}
		}
		recv := receiverOf(d.Func)
		for _, st := range list {
			es, ok := st.(*ast.ExprStmt)
			if !ok || st.Pos() < w.pos {
				continue
			}
			call, ok := es.X.(*ast.CallExpr)
			if !ok {
				continue
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				continue
			}
			c.Delete = r.pos(call.Pos(), d.Func, r.syn.src(call))
			c.OnReceiver = recv != nil && r.syn.obj(sel.X) == recv
			break
		}
		break
	}
	if c.Mark.Filename == "" {
		return
	}
	r.syn.inspectIn(flag, func(f *ast.File, info *types.Info, n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok {
			return true
		}
		reads := false
		ast.Inspect(ifs.Cond, func(m ast.Node) bool {
			if e, ok := m.(ast.Expr); ok && r.syn.obj(e) == flag {
				reads = true
			}
			return !reads
		})
		if !reads {
			return true
		}
		path, _ := r.syn.path(ifs.Pos(), ifs.End())
		fn := r.funcAt(f, path)
		if fn == d.Func {
			return true
		}
		ends := false
		if n := len(ifs.Body.List); n > 0 {
			switch x := ifs.Body.List[n-1].(type) {
			case *ast.ReturnStmt:
				ends = true
			case *ast.BranchStmt:
				ends = x.Tok == token.BREAK
			}
		}
		c.Reads = append(c.Reads, FlagRead{Pos: r.pos(ifs.Cond.Pos(), fn, lineText(r.syn, ifs.Cond.Pos())), Cond: r.syn.src(ifs.Cond), Ends: ends})
		return true
	})
	r.Cleanup = c
}

// receiverOf is the receiver variable of a method, nil for a function.
func receiverOf(fn *ssa.Function) types.Object {
	if fn == nil {
		return nil
	}
	if fn.Signature.Recv() == nil {
		return nil
	}
	return fn.Signature.Recv()
}

// Choose is how the sync loop takes the behind group's watchers for a
// pass: the call that takes them, the most it takes (the call's first
// argument, a package value), the comparison of the group's size with that
// most that decides whether it takes them all, and, when it does not, the
// new group the chosen watchers are copied into (Copy) and the decision's
// function called on that copy (Decide).
type Choose struct {
	Call   Pos
	Max    Const
	Cond   Pos
	Copy   Pos
	Decide Pos
	// Range is the loop that picks the watchers to copy, when it ranges
	// over a map (in an order Go leaves unspecified).
	Range Pos
}

// choose analyses the call that takes the behind group's watchers on the
// way to the decision.
func (r *Result) choose() {
	sg := r.in.Spec
	d := r.signalling()
	if d == nil || d.Func == nil {
		return
	}
	for _, a := range r.Groups {
		if a.Group != sg.Behind || a.Method == "" || a.Func == nil {
			continue
		}
		call := r.callAt(a.pos)
		if call == nil || len(call.Args) == 0 {
			continue
		}
		info := r.syn.info[r.syn.file(call.Pos())]
		callee := calleeObj(info, call.Fun)
		if callee == nil {
			continue
		}
		target := r.in.Graph.Prog.FuncValue(callee)
		if target == nil {
			continue
		}
		fd, ok := target.Syntax().(*ast.FuncDecl)
		if !ok || fd.Body == nil || fd.Type.Params == nil || len(fd.Type.Params.List) == 0 || len(fd.Type.Params.List[0].Names) == 0 {
			continue
		}
		limit := r.syn.obj(fd.Type.Params.List[0].Names[0])
		ch := &Choose{Call: r.pos(call.Pos(), a.Func, lineText(r.syn, call.Pos()))}
		// The most it takes: the argument's value, where it is declared.
		ch.Max = Const{Pos: ch.Call}
		if tv, ok := info.Types[call.Args[0]]; ok && tv.Value != nil {
			ch.Max.set(tv.Value, tv.Type)
		}
		if v, ok := r.syn.obj(call.Args[0]).(*types.Var); ok && !v.IsField() {
			if e := r.initializer(v); e != nil {
				if tv, ok := r.syn.info[r.syn.file(e.Pos())].Types[e]; ok && tv.Value != nil {
					ch.Max.set(tv.Value, v.Type())
				}
			}
			decl := r.pos(v.Pos(), nil, lineText(r.syn, v.Pos()))
			ch.Max.Pos, ch.Max.Via, ch.Max.Declared = decl, qualified(v), &decl
		}
		if !ch.Max.IsInt {
			continue
		}
		for i, st := range fd.Body.List {
			ifs, ok := st.(*ast.IfStmt)
			if !ok || !returns(ifs.Body) || !comparesLen(r, ifs.Cond, limit) {
				continue
			}
			ch.Cond = r.pos(ifs.Cond.Pos(), target, r.syn.src(ifs.Cond))
			// After it: a new value made by a call, and the return that
			// calls the decision's function on it.
			for _, rest := range fd.Body.List[i+1:] {
				switch x := rest.(type) {
				case *ast.RangeStmt:
					if t := r.syn.info[r.syn.file(x.Pos())].TypeOf(x.X); t != nil && ch.Range.Filename == "" {
						if _, isMap := t.Underlying().(*types.Map); isMap {
							ch.Range = r.pos(x.Pos(), target, lineText(r.syn, x.Pos()))
						}
					}
				case *ast.AssignStmt:
					if len(x.Lhs) == 1 && len(x.Rhs) == 1 && x.Tok == token.DEFINE {
						if _, isCall := ast.Unparen(x.Rhs[0]).(*ast.CallExpr); isCall && ch.Copy.Filename == "" {
							ch.Copy = r.pos(x.Pos(), target, r.syn.src(x))
							copied := r.syn.obj(x.Lhs[0])
							ch.Decide = r.decideOn(x, fd, target, copied, d.Func)
						}
					}
				}
			}
			break
		}
		if ch.Cond.Filename != "" {
			r.Choose = ch
			return
		}
	}
}

// decideOn finds, after st in fd, a return whose call of decision is made
// on the value v.
func (r *Result) decideOn(st ast.Stmt, fd *ast.FuncDecl, fn *ssa.Function, v types.Object, decision *ssa.Function) Pos {
	var at Pos
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		ret, ok := n.(*ast.ReturnStmt)
		if !ok || ret.Pos() < st.End() || at.Filename != "" {
			return at.Filename == ""
		}
		for _, e := range ret.Results {
			call, ok := ast.Unparen(e).(*ast.CallExpr)
			if !ok {
				continue
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || r.syn.obj(sel.X) != v {
				continue
			}
			if f := calleeObj(r.syn.info[r.syn.file(call.Pos())], call.Fun); f != nil && r.in.Graph.Prog.FuncValue(f) == decision {
				at = r.pos(ret.Pos(), fn, r.syn.src(ret))
			}
		}
		return true
	})
	return at
}

// callAt is the call whose function expression holds pos.
func (r *Result) callAt(pos token.Pos) *ast.CallExpr {
	path, _ := r.syn.path(pos, pos+1)
	for _, n := range path {
		if call, ok := n.(*ast.CallExpr); ok && call.Fun.Pos() <= pos && pos < call.Fun.End() {
			return call
		}
	}
	return nil
}

// returns reports whether a block ends with a return.
func returns(b *ast.BlockStmt) bool {
	if b == nil || len(b.List) == 0 {
		return false
	}
	_, ok := b.List[len(b.List)-1].(*ast.ReturnStmt)
	return ok
}

// comparesLen reports whether e compares len(...) with the variable v.
func comparesLen(r *Result, e ast.Expr, v types.Object) bool {
	be, ok := ast.Unparen(e).(*ast.BinaryExpr)
	if !ok || v == nil {
		return false
	}
	switch be.Op {
	case token.LSS, token.LEQ, token.GTR, token.GEQ:
	default:
		return false
	}
	isLen := func(x ast.Expr) bool {
		call, ok := ast.Unparen(x).(*ast.CallExpr)
		if !ok {
			return false
		}
		id, ok := call.Fun.(*ast.Ident)
		if !ok {
			return false
		}
		b, ok := r.syn.info[r.syn.file(id.Pos())].Uses[id].(*types.Builtin)
		return ok && b.Name() == "len"
	}
	return (isLen(be.X) && r.syn.obj(be.Y) == v) || (isLen(be.Y) && r.syn.obj(be.X) == v)
}

// signalling is the comparison whose guarded code writes a signal field
// (the decision that signals without the sentinel), nil when none does.
func (r *Result) signalling() *Comparison {
	for i, c := range r.Comparisons {
		if c.Signals {
			return &r.Comparisons[i]
		}
	}
	return nil
}
