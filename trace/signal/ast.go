package signal

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"os"
	"strings"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/packages"
)

// syntax indexes the loaded files and serves their text.
type syntax struct {
	fset  *token.FileSet
	files map[*token.File]*ast.File
	info  map[*ast.File]*types.Info
	pkg   map[*ast.File]*packages.Package
	text  map[string][]byte
	lines map[string][]string // text split at newlines, by lineText
}

func newSyntax(fset *token.FileSet, pkgs []*packages.Package) *syntax {
	s := &syntax{fset: fset, files: map[*token.File]*ast.File{}, info: map[*ast.File]*types.Info{},
		pkg: map[*ast.File]*packages.Package{}, text: map[string][]byte{}, lines: map[string][]string{}}
	for _, p := range pkgs {
		for _, f := range p.Syntax {
			s.files[fset.File(f.Pos())] = f
			s.info[f] = p.TypesInfo
			s.pkg[f] = p
		}
	}
	return s
}

func (s *syntax) file(pos token.Pos) *ast.File { return s.files[s.fset.File(pos)] }

// src returns the source text of a node, with runs of white space folded.
func (s *syntax) src(n ast.Node) string {
	if n == nil {
		return ""
	}
	p, e := s.fset.Position(n.Pos()), s.fset.Position(n.End())
	data, ok := s.text[p.Filename]
	if !ok {
		data, _ = os.ReadFile(p.Filename)
		s.text[p.Filename] = data
	}
	if p.Offset < 0 || e.Offset > len(data) || p.Offset > e.Offset {
		return ""
	}
	return strings.Join(strings.Fields(string(data[p.Offset:e.Offset])), " ")
}

// path returns the syntax enclosing [pos, end), innermost first.
func (s *syntax) path(pos, end token.Pos) ([]ast.Node, *ast.File) {
	f := s.file(pos)
	if f == nil {
		return nil, nil
	}
	p, _ := astutil.PathEnclosingInterval(f, pos, end)
	return p, f
}

// binaryAt finds the binary expression whose operator is at pos.
func (s *syntax) binaryAt(pos token.Pos) (*ast.BinaryExpr, []ast.Node) {
	path, _ := s.path(pos, pos+1)
	for i, n := range path {
		if be, ok := n.(*ast.BinaryExpr); ok && be.OpPos == pos {
			return be, path[i:]
		}
	}
	return nil, nil
}

// zero reports whether e is a constant whose value is 0.
func (s *syntax) zero(e ast.Expr) bool {
	f := s.file(e.Pos())
	if f == nil || s.info[f] == nil {
		return false
	}
	tv, ok := s.info[f].Types[e]
	return ok && tv.Value != nil && tv.Value.Kind() == constant.Int && constant.Sign(tv.Value) == 0
}

// obj is the object an identifier or selector denotes.
func (s *syntax) obj(e ast.Expr) types.Object {
	f := s.file(e.Pos())
	if f == nil {
		return nil
	}
	info := s.info[f]
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		if o := info.Uses[x]; o != nil {
			return o
		}
		return info.Defs[x]
	case *ast.SelectorExpr:
		if sel := info.Selections[x]; sel != nil {
			return sel.Obj()
		}
		return info.Uses[x.Sel]
	}
	return nil
}

// guard returns the statements a condition guards: the body of the if
// statement whose condition holds the expression at path[0], or of the case
// clause that lists it; and the guarding statement. A comparison used as a
// value (assigned, returned) guards nothing.
func guard(path []ast.Node) (body []ast.Stmt, cond ast.Expr) {
	for i := 1; i < len(path); i++ {
		switch x := path[i].(type) {
		case *ast.IfStmt:
			if path[i-1] == x.Cond {
				return x.Body.List, x.Cond
			}
			return nil, nil
		case *ast.CaseClause:
			for _, e := range x.List {
				if path[i-1] == e {
					return x.Body, e
				}
			}
			return nil, nil
		case ast.Stmt, *ast.FuncLit:
			return nil, nil
		}
	}
	return nil, nil
}

// enclosingFunc names the function declaration around a path ("(*T).M").
func enclosingFunc(path []ast.Node) *ast.FuncDecl {
	for _, n := range path {
		if fd, ok := n.(*ast.FuncDecl); ok {
			return fd
		}
	}
	return nil
}

// inspectIn walks the files that can name obj: those of its package when
// it is not exported, every loaded file otherwise.
func (s *syntax) inspectIn(obj types.Object, visit func(f *ast.File, info *types.Info, n ast.Node) bool) {
	if obj.Exported() || obj.Pkg() == nil {
		s.inspectAll(visit)
		return
	}
	s.inspectAll(func(f *ast.File, info *types.Info, n ast.Node) bool {
		if _, ok := n.(*ast.File); ok {
			if p := s.pkg[f]; p == nil || p.Types != obj.Pkg() {
				return false // not its package: skip the file
			}
		}
		return visit(f, info, n)
	})
}

// inspectAll walks every loaded file.
func (s *syntax) inspectAll(visit func(f *ast.File, info *types.Info, n ast.Node) bool) {
	// Deterministic order: by file name.
	type fe struct {
		name string
		f    *ast.File
	}
	var fs []fe
	for tf, f := range s.files {
		fs = append(fs, fe{tf.Name(), f})
	}
	sortBy(fs, func(a, b fe) bool { return a.name < b.name })
	for _, x := range fs {
		info := s.info[x.f]
		ast.Inspect(x.f, func(n ast.Node) bool { return visit(x.f, info, n) })
	}
}
