package signal

import (
	"go/ast"
	"go/constant"
	"go/types"
)

// RevisionAccess is a read or a write of the store's compaction revision
// field, with the lock its function holds there: the last Lock or RLock of
// a sync.Mutex or sync.RWMutex of the same struct as the field, called in
// a block around the access and not unlocked in that block before it.
type RevisionAccess struct {
	Pos
	Write bool
	// Lock is the lock call, when one is held ("s.revMu.Lock()").
	Lock *Pos
}

// revisionAccesses finds the RevisionAccesses.
func (r *Result) revisionAccesses() {
	rev := r.fieldOrNil(r.in.Spec.Revision)
	if rev == nil {
		return
	}
	// An unexported field is named only in its own package's files.
	r.syn.inspectIn(rev, func(f *ast.File, info *types.Info, n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || r.syn.obj(sel.Sel) != rev {
			return true
		}
		path, _ := r.syn.path(sel.Pos(), sel.End())
		fn := r.funcAt(f, path)
		if fn == nil {
			return true
		}
		a := RevisionAccess{Pos: r.pos(sel.Pos(), fn, lineText(r.syn, sel.Pos()))}
		if len(path) > 1 {
			if as, ok := path[1].(*ast.AssignStmt); ok {
				for _, l := range as.Lhs {
					if l == ast.Expr(sel) {
						a.Write = true
					}
				}
			}
		}
		if lk := r.lockHeld(path, sel, info); lk != nil {
			p := r.pos(lk.Pos(), fn, r.syn.src(lk))
			a.Lock = &p
		}
		r.RevisionAccesses = append(r.RevisionAccesses, a)
		return true
	})
	sortBy(r.RevisionAccesses, func(a, b RevisionAccess) bool { return posLess(a.Position, b.Position) })
	r.revisionInit(rev)
}

// RevisionInit is the value a literal of the store's struct starts the
// compaction revision at (`compactMainRev: -1`): Pos is the literal's
// element, Value the constant.
type RevisionInit struct {
	Pos
	Value int64
}

// revisionInit finds the RevisionInit: set when every literal that sets
// the field sets it to one integer constant.
func (r *Result) revisionInit(rev *types.Var) {
	var found []RevisionInit
	mixed := false
	r.syn.inspectIn(rev, func(f *ast.File, info *types.Info, n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok {
			return true
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok || r.syn.obj(key) != rev {
			return true
		}
		tv, ok := info.Types[kv.Value]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
			mixed = true
			return true
		}
		v, exact := constant.Int64Val(tv.Value)
		if !exact {
			mixed = true
			return true
		}
		path, _ := r.syn.path(kv.Pos(), kv.End())
		fn := r.funcAt(f, path)
		found = append(found, RevisionInit{Pos: r.pos(kv.Pos(), fn, r.syn.src(kv)), Value: v})
		return true
	})
	if mixed || len(found) == 0 {
		return
	}
	for _, x := range found[1:] {
		if x.Value != found[0].Value {
			return
		}
	}
	sortBy(found, func(a, b RevisionInit) bool { return posLess(a.Position, b.Position) })
	r.RevisionInit = &found[0]
}

// lockHeld is the lock call that holds at the access sel (see
// RevisionAccess), walking the blocks around it from the inside out.
func (r *Result) lockHeld(path []ast.Node, sel *ast.SelectorExpr, info *types.Info) *ast.CallExpr {
	owner := structOf(info.TypeOf(sel.X))
	for i := 1; i < len(path); i++ {
		if _, ok := path[i].(*ast.FuncLit); ok {
			return nil
		}
		if _, ok := path[i].(*ast.FuncDecl); ok {
			return nil
		}
		blk, ok := path[i].(*ast.BlockStmt)
		if !ok {
			continue
		}
		var held *ast.CallExpr
		for _, st := range blk.List {
			if st.Pos() >= sel.Pos() {
				break
			}
			es, ok := st.(*ast.ExprStmt)
			if !ok {
				continue
			}
			call, ok := es.X.(*ast.CallExpr)
			if !ok {
				continue
			}
			m, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || owner == nil {
				continue
			}
			mx, ok := m.X.(*ast.SelectorExpr) // the mutex, a field: x.mu
			if !ok || structOf(info.TypeOf(mx.X)) != owner {
				continue
			}
			switch lockOp(info, m) {
			case "lock":
				held = call
			case "unlock":
				held = nil
			}
		}
		if held != nil {
			return held
		}
	}
	return nil
}

// lockOp says whether m is a method of sync.Mutex or sync.RWMutex that
// takes the lock ("lock") or gives it back ("unlock").
func lockOp(info *types.Info, m *ast.SelectorExpr) string {
	s, ok := info.Selections[m]
	if !ok {
		return ""
	}
	f, ok := s.Obj().(*types.Func)
	if !ok || f.Pkg() == nil || f.Pkg().Path() != "sync" {
		return ""
	}
	switch f.Name() {
	case "Lock", "RLock":
		return "lock"
	case "Unlock", "RUnlock":
		return "unlock"
	}
	return ""
}

// structOf is the struct type t is or points to, nil if none.
func structOf(t types.Type) *types.Struct {
	if t == nil {
		return nil
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	s, _ := t.Underlying().(*types.Struct)
	return s
}
