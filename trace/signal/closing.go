package signal

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Closing is what the client's receive loop does once a substream that
// handed out a cancel has stopped, in the case that closes it: when that
// was the stream's last watch, the loop returns (Last, the condition of
// the returning branch) and its deferred clean-up calls Spec.ClientClose
// (Defer), which cancels the stream's context (Ends); otherwise it sends
// the server a request of type Spec.ClientCancel (Request, the literal,
// with the condition it is sent under, If).
type Closing struct {
	Last    Pos
	Defer   Pos
	Ends    Pos
	Request Pos
	If      Pos
	// Send is the call in the same branch that sends a value the branch
	// made after the request.
	Send Pos
}

func (r *Result) closing(fd *ast.FuncDecl, loop *ssa.Function, close *Resume) *Closing {
	sg := r.in.Spec
	// The case clause that holds the loop's call of the close.
	path, _ := r.syn.path(close.pos, close.pos+1)
	var cc *ast.CommClause
	for _, n := range path {
		if c, ok := n.(*ast.CommClause); ok {
			cc = c
			break
		}
	}
	if cc == nil {
		return nil
	}
	c := &Closing{}
	for _, st := range cc.Body {
		ifs, ok := st.(*ast.IfStmt)
		if !ok || ifs.Pos() < close.pos {
			continue
		}
		if returns(ifs.Body) && len(ifs.Body.List) == 1 && c.Last.Filename == "" {
			c.Last = r.pos(ifs.Cond.Pos(), loop, r.syn.src(ifs.Cond))
			continue
		}
		if sg.ClientCancel == "" {
			continue
		}
		obj, _, err := r.in.Graph.Lookup(sg.ClientCancel)
		if err != nil {
			continue
		}
		ast.Inspect(ifs.Body, func(n ast.Node) bool {
			cl, ok := n.(*ast.CompositeLit)
			if !ok || c.Request.Filename != "" {
				return c.Request.Filename == ""
			}
			t := r.syn.info[r.syn.file(cl.Pos())].TypeOf(cl)
			if t != nil && types.Identical(t, obj.Type()) {
				c.Request = r.pos(cl.Pos(), loop, r.syn.src(cl))
				c.If = r.pos(ifs.Cond.Pos(), loop, r.syn.src(ifs.Cond))
			}
			return true
		})
		if c.Request.Filename == "" || c.Send.Filename != "" {
			continue
		}
		defined := map[types.Object]bool{}
		ast.Inspect(ifs.Body, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && as.Pos() > c.Request.pos {
				for _, l := range as.Lhs {
					if o := r.syn.obj(l); o != nil {
						defined[o] = true
					}
				}
			}
			call, ok := n.(*ast.CallExpr)
			if !ok || c.Send.Filename != "" || len(call.Args) != 1 || call.Pos() < c.Request.pos {
				return c.Send.Filename == ""
			}
			if defined[r.syn.obj(call.Args[0])] {
				c.Send = r.pos(call.Pos(), loop, r.syn.src(call))
			}
			return true
		})
	}
	// The loop's deferred clean-up, and what the close it calls ends.
	if sg.ClientClose != "" {
		if target, err := r.in.Graph.Func(sg.ClientClose); err == nil {
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				d, ok := n.(*ast.DeferStmt)
				if !ok || c.Defer.Filename != "" {
					return c.Defer.Filename == ""
				}
				ast.Inspect(d.Call, func(m ast.Node) bool {
					call, ok := m.(*ast.CallExpr)
					if !ok || c.Defer.Filename != "" {
						return c.Defer.Filename == ""
					}
					if f := calleeObj(r.syn.info[r.syn.file(call.Pos())], call.Fun); f != nil && r.in.Graph.Prog.FuncValue(f) == target {
						c.Defer = r.pos(call.Pos(), loop, r.syn.src(call))
					}
					return true
				})
				return true
			})
			if tfd, ok := target.Syntax().(*ast.FuncDecl); ok && tfd.Body != nil {
				ast.Inspect(tfd.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok || c.Ends.Filename != "" || len(call.Args) != 0 {
						return c.Ends.Filename == ""
					}
					if isCancelFunc(r.syn.info[r.syn.file(call.Pos())].TypeOf(call.Fun)) {
						c.Ends = r.pos(call.Pos(), target, r.syn.src(call))
					}
					return true
				})
			}
		}
	}
	if c.Last.Filename == "" && c.Request.Filename == "" {
		return nil
	}
	return c
}

// isCancelFunc reports whether t is context.CancelFunc.
func isCancelFunc(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "CancelFunc"
}
