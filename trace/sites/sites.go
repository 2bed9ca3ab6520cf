// Package sites finds every use of one Go object in type-checked packages,
// by identity (go/types), not by text, and says what each use does.
package sites

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/packages"
)

// Kind says what a use of the object does.
type Kind string

// The kinds of use.
const (
	Definition  Kind = "definition"  // the object is declared here
	Return      Kind = "return"      // the value is returned
	Comparison  Kind = "comparison"  // compared with ==, !=, errors.Is or a switch case
	Translation Kind = "translation" // a key or value in a map literal: translated to something else
	// TextComparison: the object's text (its Error()) is compared with a
	// string, with == or a function of package strings: how an error that
	// came as text (over the network, say) is recognised.
	TextComparison Kind = "text-comparison"
	Other          Kind = "other"
)

// Site is one use of the object.
type Site struct {
	Pkg   *packages.Package
	File  *ast.File
	Ident *ast.Ident
	Pos   token.Position
	Kind  Kind
	// Path encloses the identifier, innermost first (astutil.PathEnclosingInterval).
	Path []ast.Node
	// Object is the object used (or declared) here.
	Object types.Object
}

// Find returns every use and definition of obj in the syntax of pkgs,
// sorted by file and position.
func Find(pkgs []*packages.Package, obj types.Object) []Site {
	return FindAny(pkgs, map[types.Object]bool{obj: true})
}

// FindAny returns every use and definition of the objects in objs, in
// one walk of the syntax of pkgs, sorted by file and position; each
// Site's Object says whose use it is.
func FindAny(pkgs []*packages.Package, objs map[types.Object]bool) []Site {
	var out []Site
	for _, p := range pkgs {
		if p.TypesInfo == nil {
			continue
		}
		for _, f := range p.Syntax {
			ast.Inspect(f, func(n ast.Node) bool {
				id, ok := n.(*ast.Ident)
				if !ok {
					return true
				}
				var kind Kind
				var obj types.Object
				switch {
				case objs[p.TypesInfo.Defs[id]]:
					kind, obj = Definition, p.TypesInfo.Defs[id]
				case objs[p.TypesInfo.Uses[id]]:
					obj = p.TypesInfo.Uses[id]
				default:
					return true
				}
				s := At(p, f, id)
				s.Object = obj
				if kind != "" {
					s.Kind = kind
				}
				out = append(out, s)
				return true
			})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		return a.Offset < b.Offset
	})
	return out
}

// At is the use that identifier id of file f makes, classified by the
// syntax around it: how a use found otherwise than by identity (a call
// through an interface or a function value, found in the call graph) is
// described like the others.
func At(p *packages.Package, f *ast.File, id *ast.Ident) Site {
	path, _ := astutil.PathEnclosingInterval(f, id.Pos(), id.End())
	return Site{Pkg: p, File: f, Ident: id, Pos: p.Fset.Position(id.Pos()), Kind: classify(p.TypesInfo, path), Path: path}
}

// classify looks at the syntax around a use. path[0] is the identifier.
func classify(info *types.Info, path []ast.Node) Kind {
	// expr is the expression that denotes the object: the identifier or the
	// selector pkg.Name, without parentheses.
	i := 0
	if len(path) > 1 {
		if sel, ok := path[1].(*ast.SelectorExpr); ok && sel.Sel == path[0] {
			i = 1
		}
	}
	for i+1 < len(path) {
		if _, ok := path[i+1].(*ast.ParenExpr); !ok {
			break
		}
		i++
	}
	expr := path[i].(ast.Expr)
	if i+1 >= len(path) {
		return Other
	}
	if textCompared(info, path[i+1:]) {
		return TextComparison
	}
	switch parent := path[i+1].(type) {
	case *ast.BinaryExpr:
		if parent.Op == token.EQL || parent.Op == token.NEQ {
			return Comparison
		}
	case *ast.CallExpr:
		if isErrorsIs(info, parent.Fun) && contains(parent.Args, expr) {
			return Comparison
		}
	case *ast.CaseClause:
		if i+3 < len(path) {
			if sw, ok := path[i+3].(*ast.SwitchStmt); ok && sw.Tag != nil {
				return Comparison
			}
		}
	case *ast.KeyValueExpr:
		if i+2 < len(path) {
			if cl, ok := path[i+2].(*ast.CompositeLit); ok {
				if _, isMap := info.TypeOf(cl).Underlying().(*types.Map); isMap {
					return Translation
				}
			}
		}
	}
	for _, n := range path[i+1:] {
		switch n.(type) {
		case *ast.ReturnStmt:
			return Return
		case ast.Stmt, *ast.FuncLit, *ast.FuncDecl:
			return Other
		}
	}
	return Other
}

// textCompared reports whether path, from the parent of an expression x
// outwards, is x.Error() used as an operand of == or != or as an argument
// of a function of package strings.
func textCompared(info *types.Info, path []ast.Node) bool {
	if len(path) < 3 {
		return false
	}
	sel, ok := path[0].(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Error" {
		return false
	}
	call, ok := path[1].(*ast.CallExpr)
	if !ok || call.Fun != sel || len(call.Args) != 0 {
		return false
	}
	switch parent := path[2].(type) {
	case *ast.BinaryExpr:
		return parent.Op == token.EQL || parent.Op == token.NEQ
	case *ast.CallExpr:
		f, ok := ast.Unparen(parent.Fun).(*ast.SelectorExpr)
		if !ok || !contains(parent.Args, call) {
			return false
		}
		fn, ok := info.Uses[f.Sel].(*types.Func)
		return ok && fn.Pkg() != nil && fn.Pkg().Path() == "strings"
	}
	return false
}

func isErrorsIs(info *types.Info, fun ast.Expr) bool {
	var id *ast.Ident
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return false
	}
	fn, ok := info.Uses[id].(*types.Func)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() == "errors" && fn.Name() == "Is"
}

func contains(args []ast.Expr, e ast.Expr) bool {
	for _, a := range args {
		if ast.Unparen(a) == e {
			return true
		}
	}
	return false
}
