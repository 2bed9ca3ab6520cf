package layers

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/tools/go/ast/astutil"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/target"
)

// prog is the consumer's code as loaded: SSA for the packages read from
// source, their syntax, and who calls whom statically.
type prog struct {
	fset   *token.FileSet
	ssa    *ssa.Program
	files  map[*token.File]*ast.File
	info   map[*ast.File]*types.Info
	pkgOf  map[*ast.File]*packages.Package
	text   map[string][]byte
	source map[*types.Package]bool // read from source
	// callers are the static call sites of each function with a body.
	callers map[*ssa.Function][]ssa.CallInstruction
	funcs   []*ssa.Function // with bodies, in a fixed order
	// targets name the files of their modules.
	targets []*target.Target
	// types are the packages as the loaded packages see them, by path.
	types map[string]*types.Package
}

// newProg builds SSA for the loaded packages in built (the others keep
// their syntax and types only).
func newProg(pkgs []*packages.Package, built map[string]bool, targets ...*target.Target) (*prog, error) {
	var initial []*packages.Package
	for _, pk := range pkgs {
		if built[pk.PkgPath] {
			initial = append(initial, pk)
		}
	}
	sp, spkgs := ssautil.Packages(initial, 0)
	for i, p := range spkgs {
		if p == nil {
			return nil, fmt.Errorf("building SSA: package %s has errors", initial[i].PkgPath)
		}
	}
	sp.Build()
	p := &prog{fset: sp.Fset, ssa: sp, files: map[*token.File]*ast.File{}, info: map[*ast.File]*types.Info{},
		pkgOf: map[*ast.File]*packages.Package{}, text: map[string][]byte{}, source: map[*types.Package]bool{},
		callers: map[*ssa.Function][]ssa.CallInstruction{}, targets: targets, types: map[string]*types.Package{}}
	var visit func(t *types.Package)
	visit = func(t *types.Package) {
		if p.types[t.Path()] != nil {
			return
		}
		p.types[t.Path()] = t
		for _, i := range t.Imports() {
			visit(i)
		}
	}
	for _, pk := range pkgs {
		visit(pk.Types)
	}
	for _, pk := range pkgs {
		p.source[pk.Types] = true
		for _, f := range pk.Syntax {
			p.files[p.fset.File(f.Pos())] = f
			p.info[f] = pk.TypesInfo
			p.pkgOf[f] = pk
		}
	}
	for fn := range declared(sp, spkgs) {
		if len(fn.Blocks) == 0 || fn.Pkg == nil || !p.source[fn.Pkg.Pkg] {
			continue
		}
		p.funcs = append(p.funcs, fn)
	}
	sort.Slice(p.funcs, func(i, j int) bool {
		a, b := p.fset.Position(p.funcs[i].Pos()), p.fset.Position(p.funcs[j].Pos())
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Offset != b.Offset {
			return a.Offset < b.Offset
		}
		return p.funcs[i].String() < p.funcs[j].String()
	})
	for _, fn := range p.funcs {
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				if c, ok := ins.(ssa.CallInstruction); ok {
					if callee := c.Common().StaticCallee(); callee != nil {
						p.callers[callee] = append(p.callers[callee], c)
					}
				}
			}
		}
	}
	return p, nil
}

// declared are the functions the packages declare, called or not: their
// functions and the methods of their types, with the function literals
// inside them, and every function the program reaches besides.
func declared(prog *ssa.Program, pkgs []*ssa.Package) map[*ssa.Function]bool {
	out := ssautil.AllFunctions(prog)
	var add func(fn *ssa.Function)
	add = func(fn *ssa.Function) {
		if fn == nil || out[fn] && len(fn.AnonFuncs) == 0 {
			out[fn] = true
			return
		}
		out[fn] = true
		for _, an := range fn.AnonFuncs {
			add(an)
		}
	}
	for _, pk := range pkgs {
		for _, m := range pk.Members {
			switch x := m.(type) {
			case *ssa.Function:
				add(x)
			case *ssa.Type:
				if n, ok := x.Type().(*types.Named); ok && n.TypeParams().Len() > 0 {
					continue // its methods are built per instance
				}
				for _, t := range []types.Type{x.Type(), types.NewPointer(x.Type())} {
					ms := prog.MethodSets.MethodSet(t)
					for i := 0; i < ms.Len(); i++ {
						if fn := prog.MethodValue(ms.At(i)); fn != nil && fn.Pkg == pk {
							add(fn)
						}
					}
				}
			}
		}
	}
	return out
}

// inLayer reports whether fn's package is one of pkgs.
func inLayer(fn *ssa.Function, pkgs map[string]bool) bool {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	if fn.Pkg != nil {
		return pkgs[fn.Pkg.Pkg.Path()]
	}
	if o := fn.Origin(); o != nil && o.Pkg != nil {
		return pkgs[o.Pkg.Pkg.Path()]
	}
	return false
}

// object finds the object a qualified name denotes, as the loaded
// packages see it.
func (p *prog) object(name string) (types.Object, error) {
	obj, _, err := p.lookup(name)
	return obj, err
}

func (p *prog) lookup(name string) (types.Object, types.Type, error) {
	path, _, err := callpath.SplitName(name)
	if err != nil {
		return nil, nil, err
	}
	pkg := p.types[path]
	if pkg == nil {
		return nil, nil, fmt.Errorf("package %s is not loaded", path)
	}
	return callpath.LookupPackage(pkg, name)
}

// decl finds the declaration of a function or method by qualified name,
// with the type information of its file.
func (p *prog) decl(name string) (*ast.FuncDecl, *types.Info, error) {
	obj, err := p.object(name)
	if err != nil {
		return nil, nil, err
	}
	if _, ok := obj.(*types.Func); !ok {
		return nil, nil, fmt.Errorf("%s is not a function", name)
	}
	for _, n := range p.path(obj.Pos(), obj.Pos()) {
		if fd, ok := n.(*ast.FuncDecl); ok && fd.Name.Pos() == obj.Pos() && fd.Body != nil {
			return fd, p.info[p.file(fd.Pos())], nil
		}
	}
	return nil, nil, fmt.Errorf("%s has no body here: its package is not read from source", name)
}

// function finds a function or method with a body by qualified name.
func (p *prog) function(name string) (*ssa.Function, error) {
	obj, recv, err := p.lookup(name)
	if err != nil {
		return nil, err
	}
	f, ok := obj.(*types.Func)
	if !ok {
		return nil, fmt.Errorf("%s is not a function", name)
	}
	var fn *ssa.Function
	if recv == nil {
		fn = p.ssa.FuncValue(f)
	} else if sel := types.NewMethodSet(recv).Lookup(f.Pkg(), f.Name()); sel != nil {
		fn = p.ssa.MethodValue(sel)
	}
	if fn == nil {
		return nil, fmt.Errorf("%s has no SSA form", name)
	}
	if len(fn.Blocks) == 0 {
		return nil, fmt.Errorf("%s has no body here: its package is not read from source", name)
	}
	return fn, nil
}

// callee is the function or method a call instruction calls, as an object:
// the static callee's, or an interface method's.
func callee(c *ssa.CallCommon) *types.Func {
	if c.IsInvoke() {
		return c.Method
	}
	if f := c.StaticCallee(); f != nil {
		if o, ok := f.Object().(*types.Func); ok {
			return o
		}
		if o := f.Origin(); o != nil {
			if ob, ok := o.Object().(*types.Func); ok {
				return ob
			}
		}
	}
	return nil
}

// qualified names a function object as the specs do: "pkg.F",
// "pkg.(*T).M", "pkg.T.M".
func qualified(f *types.Func) string {
	if f == nil {
		return ""
	}
	pkg := ""
	if f.Pkg() != nil {
		pkg = f.Pkg().Path() + "."
	}
	sig, _ := f.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return pkg + f.Name()
	}
	t := sig.Recv().Type()
	star := false
	if pt, ok := t.(*types.Pointer); ok {
		star, t = true, pt.Elem()
	}
	name := types.TypeString(t, func(*types.Package) string { return "" })
	if n, ok := t.(*types.Named); ok {
		name = n.Obj().Name()
		if n.Obj().Pkg() != nil {
			pkg = n.Obj().Pkg().Path() + "."
		}
	}
	if star {
		return pkg + "(*" + name + ")." + f.Name()
	}
	return pkg + name + "." + f.Name()
}

// objName qualifies any package-level object or field: "pkg.Name".
func objName(o types.Object) string {
	if f, ok := o.(*types.Func); ok {
		return qualified(f)
	}
	if o.Pkg() == nil {
		return o.Name()
	}
	return o.Pkg().Path() + "." + o.Name()
}

func (p *prog) file(pos token.Pos) *ast.File { return p.files[p.fset.File(pos)] }

// path is the syntax enclosing [pos, end), innermost first.
func (p *prog) path(pos, end token.Pos) []ast.Node {
	f := p.file(pos)
	if f == nil || !pos.IsValid() {
		return nil
	}
	path, _ := astutil.PathEnclosingInterval(f, pos, end)
	return path
}

// src is the source text of n with runs of white space folded.
func (p *prog) src(n ast.Node) string {
	if n == nil {
		return ""
	}
	a, b := p.fset.Position(n.Pos()), p.fset.Position(n.End())
	data := p.read(a.Filename)
	if a.Offset < 0 || b.Offset > len(data) || a.Offset > b.Offset {
		return ""
	}
	return strings.Join(strings.Fields(string(data[a.Offset:b.Offset])), " ")
}

func (p *prog) read(name string) []byte {
	data, ok := p.text[name]
	if !ok {
		data, _ = os.ReadFile(name)
		p.text[name] = data
	}
	return data
}

// line is the text of pos's line, trimmed.
func (p *prog) line(pos token.Pos) string {
	ps := p.fset.Position(pos)
	lines := strings.Split(string(p.read(ps.Filename)), "\n")
	if ps.Line < 1 || ps.Line > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[ps.Line-1])
}

// obj is the object an identifier or selector denotes.
func (p *prog) obj(e ast.Expr) types.Object {
	f := p.file(e.Pos())
	if f == nil {
		return nil
	}
	info := p.info[f]
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

// value is the constant value of e, when it has one.
func (p *prog) value(e ast.Expr) (constant.Value, bool) {
	f := p.file(e.Pos())
	if f == nil {
		return nil, false
	}
	tv, ok := p.info[f].Types[e]
	if !ok || tv.Value == nil {
		return nil, false
	}
	return tv.Value, true
}

// show writes a constant as Go would print it: strings quoted, durations
// of time as durations.
func show(v constant.Value, t types.Type) string {
	if v.Kind() == constant.String {
		return strconv.Quote(constant.StringVal(v))
	}
	if n, ok := t.(*types.Named); ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time" && n.Obj().Name() == "Duration" {
		if i, ok := constant.Int64Val(v); ok {
			return time.Duration(i).String()
		}
	}
	return v.ExactString()
}

// loc converts a position to report data, in its module's repository at
// its release.
func (p *prog) loc(pos token.Pos) report.Loc {
	ps := p.fset.Position(pos)
	l := report.Loc{File: filepath.ToSlash(ps.Filename), Line: ps.Line, Text: p.line(pos)}
	f := p.file(pos)
	pk := p.pkgOf[f]
	if pk == nil || pk.Module == nil {
		return l
	}
	rel, err := filepath.Rel(pk.Module.Dir, ps.Filename)
	if err != nil {
		return l
	}
	rel = filepath.ToSlash(rel)
	// The module that holds the package is the longest of the targets'.
	var best target.Folder
	for _, t := range p.targets {
		if fo, ok := t.Folder(pk.PkgPath); ok && len(fo.Module) > len(best.Module) {
			best = fo
		}
	}
	if best.Module == "" {
		l.File = pk.Module.Path + "/" + rel
		return l
	}
	if best.Dir != "" {
		rel = best.Dir + "/" + rel
	}
	l.File, l.Repo, l.Ref = rel, best.Repo, pk.Module.Version
	return l
}

// funcAt names the function whose body holds pos.
func (p *prog) funcAt(pos token.Pos) string {
	path := p.path(pos, pos)
	for _, n := range path {
		if fd, ok := n.(*ast.FuncDecl); ok {
			if o, ok := p.info[p.file(pos)].Defs[fd.Name].(*types.Func); ok {
				return qualified(o)
			}
		}
	}
	return ""
}

// conds are the conditions, as written, under which the statement at pos
// runs in its function, outermost first: an if's condition ("!(c)" in its
// else), a case's expressions, and the negations of the cases before a
// switch's default.
func (p *prog) conds(pos token.Pos) []string {
	path := p.path(pos, pos)
	var out []string
	for i := 1; i < len(path); i++ {
		child := path[i-1]
		switch x := path[i].(type) {
		case *ast.FuncDecl, *ast.FuncLit:
			i = len(path)
		case *ast.IfStmt:
			if child == x.Body {
				out = append(out, p.src(x.Cond))
			} else if child == x.Else {
				out = append(out, "!("+p.src(x.Cond)+")")
			}
		case *ast.CaseClause:
			out = append(out, p.caseConds(x, path[i+1:])...)
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// caseConds says when a case clause runs: its expressions (against the
// switch's tag, if any), or, for default, the other cases' negations.
func (p *prog) caseConds(cc *ast.CaseClause, up []ast.Node) []string {
	var tag ast.Expr
	var body *ast.BlockStmt
	for _, n := range up {
		if sw, ok := n.(*ast.SwitchStmt); ok {
			tag, body = sw.Tag, sw.Body
			break
		}
		if _, ok := n.(*ast.BlockStmt); !ok {
			break
		}
	}
	one := func(e ast.Expr) string {
		if tag != nil {
			return p.src(tag) + " == " + p.src(e)
		}
		return p.src(e)
	}
	if cc.List != nil {
		var alts []string
		for _, e := range cc.List {
			alts = append(alts, one(e))
		}
		return []string{strings.Join(alts, " || ")}
	}
	var out []string
	if body != nil {
		for _, s := range body.List {
			if o, ok := s.(*ast.CaseClause); ok && o != cc {
				for _, e := range o.List {
					out = append(out, "!("+one(e)+")")
				}
			}
		}
	}
	return out
}
