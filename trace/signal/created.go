package signal

import (
	"go/ast"
	"go/types"

	"github.com/srctrace/srctrace/trace/sites"
)

// Created is how a create response reaches, or does not reach, the user:
// where the server's send loop holds a watch's responses until it has
// announced the watch, where the client hands out a created response only
// when asked, and whether the tool asks.
type Created struct {
	// Hold is the condition under which the send loop holds a response,
	// and HoldAt where it keeps it.
	Hold, HoldAt Pos
	// Gate is the condition on which the client hands a created response
	// to the user.
	Gate Pos
	// Option is the client option that asks for created responses; Asks
	// are its uses in the tool's packages (none: the tool never asks).
	Option string
	Asks   []Pos
}

func (r *Result) created() {
	sg := r.in.Spec
	c := &Created{Option: sg.ClientCreatedOpt}
	if send, err := r.in.Graph.Func(sg.Send); err == nil {
		if fd, ok := send.Syntax().(*ast.FuncDecl); ok && fd.Body != nil {
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				ifs, ok := n.(*ast.IfStmt)
				if !ok || c.Hold.Filename != "" {
					return c.Hold.Filename == ""
				}
				// A map entry set in a branch that appends: responses kept
				// aside, per key, until something else sends them.
				appends := false
				ast.Inspect(ifs.Body, func(n ast.Node) bool {
					if call, ok := n.(*ast.CallExpr); ok {
						if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "append" {
							appends = true
						}
					}
					return true
				})
				if !appends {
					return true
				}
				for _, st := range ifs.Body.List {
					if as, ok := st.(*ast.AssignStmt); ok && len(as.Lhs) == 1 && isMapIndexVar(r, as) {
						c.Hold = r.pos(ifs.Cond.Pos(), send, r.syn.src(ifs.Cond))
						c.HoldAt = r.pos(as.Pos(), send, r.syn.src(as))
					}
				}
				return true
			})
		}
	}
	if sg.ClientServe != "" && sg.ClientOut != "" {
		out := r.fieldOrNil(sg.ClientOut)
		if serve, err := r.in.Graph.Func(sg.ClientServe); err == nil && out != nil {
			if fd, ok := serve.Syntax().(*ast.FuncDecl); ok && fd.Body != nil {
				ast.Inspect(fd.Body, func(n ast.Node) bool {
					ifs, ok := n.(*ast.IfStmt)
					if !ok || c.Gate.Filename != "" {
						return c.Gate.Filename == ""
					}
					if len(ifs.Body.List) == 1 {
						if snd, ok := ifs.Body.List[0].(*ast.SendStmt); ok && r.syn.obj(snd.Chan) == out {
							if _, isField := r.syn.obj(ifs.Cond).(*types.Var); isField {
								c.Gate = r.pos(ifs.Cond.Pos(), serve, r.syn.src(ifs.Cond))
							}
						}
					}
					return true
				})
			}
		}
	}
	if sg.ClientCreatedOpt != "" {
		if obj, _, err := r.in.Graph.Lookup(sg.ClientCreatedOpt); err == nil {
			var toolPkgs []string
			if t := sg.Tool.Watch; t != "" {
				toolPkgs = append(toolPkgs, packageOf(t))
			}
			for _, s := range sites.Find(r.in.Pkgs, obj) {
				if s.Kind == sites.Definition {
					continue
				}
				for _, p := range toolPkgs {
					if s.Pkg.PkgPath == p {
						c.Asks = append(c.Asks, r.pos(s.Ident.Pos(), nil, lineText(r.syn, s.Ident.Pos())))
					}
				}
			}
		}
	}
	r.Created = c
}

// isMapIndexVar reports whether the assignment's left side indexes a map.
func isMapIndexVar(r *Result, as *ast.AssignStmt) bool {
	ix, ok := as.Lhs[0].(*ast.IndexExpr)
	if !ok {
		return false
	}
	info := r.syn.info[r.syn.file(ix.Pos())]
	_, isMap := info.TypeOf(ix.X).Underlying().(*types.Map)
	return isMap
}

// packageOf is the package path of a qualified name.
func packageOf(name string) string {
	slash := 0
	for i := range name {
		if name[i] == '/' {
			slash = i
		}
	}
	for i := slash; i < len(name); i++ {
		if name[i] == '.' {
			return name[:i]
		}
	}
	return name
}
