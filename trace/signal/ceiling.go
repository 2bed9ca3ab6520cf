package signal

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Ceiling is a comparison, in a function that writes the store's
// compaction revision, of the revision asked for with the store's current
// revision, whose branch returns an error: the compaction revision cannot
// pass the current one.
type Ceiling struct {
	Pos
	// Returns is the error the branch returns, as written; Writes where
	// the function then writes the compaction revision.
	Returns string
	Writes  Pos
}

// ceilings finds the Ceilings, when the spec names the current revision.
func (r *Result) ceilings() {
	sg := r.in.Spec
	cur, rev := r.fieldOrNil(sg.Current), r.fieldOrNil(sg.Revision)
	if cur == nil || rev == nil {
		return
	}
	r.syn.inspectAll(func(f *ast.File, info *types.Info, n ast.Node) bool {
		fd, ok := n.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			return true
		}
		// Where the function writes the compaction revision.
		var write ast.Node
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && write == nil {
				for _, l := range as.Lhs {
					if r.syn.obj(l) == rev {
						write = as
					}
				}
			}
			return write == nil
		})
		if write == nil {
			return false
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			ifs, ok := n.(*ast.IfStmt)
			if !ok || ifs.Pos() > write.Pos() {
				return true
			}
			be, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr)
			if !ok || !isOrder(be.Op) {
				return true
			}
			if r.syn.obj(be.X) != cur && r.syn.obj(be.Y) != cur {
				return true
			}
			ret := returnedError(ifs.Body)
			if ret == nil {
				return true
			}
			path, _ := r.syn.path(be.Pos(), be.End())
			fn := r.funcAt(f, path)
			r.Ceilings = append(r.Ceilings, Ceiling{
				Pos:     r.pos(be.Pos(), fn, r.syn.src(be)),
				Returns: r.syn.src(ret),
				Writes:  r.pos(write.Pos(), fn, r.syn.src(write)),
			})
			return true
		})
		return false
	})
	sortBy(r.Ceilings, func(a, b Ceiling) bool { return posLess(a.Position, b.Position) })
}

func isOrder(op token.Token) bool {
	return op == token.LSS || op == token.LEQ || op == token.GTR || op == token.GEQ
}

// returnedError is the last result of the first return statement of body.
func returnedError(body *ast.BlockStmt) ast.Expr {
	for _, st := range body.List {
		if ret, ok := st.(*ast.ReturnStmt); ok && len(ret.Results) > 0 {
			return ret.Results[len(ret.Results)-1]
		}
	}
	return nil
}
