package feasible

import (
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
)

// neverNil reports whether package-level variable g is never nil once
// its package is initialised: every store to it, in the whole program,
// stores a value made there (a composite literal, an error made by a
// function that returns one it makes, as errors.New does).
func (c *Checker) neverNil(g *ssa.Global) bool {
	c.globalIndex()
	if c.nonNil == nil {
		c.nonNil = map[*ssa.Global]bool{}
	}
	if v, ok := c.nonNil[g]; ok {
		return v
	}
	c.nonNil[g] = false // while deciding: a cycle is not known
	sts := c.globals[g]
	ok := len(sts) > 0
	if g.Pkg != nil && !c.withSyntaxOf(g.Pkg.Pkg) {
		// Its package is read from export data: its initialiser is
		// not loaded, so its declaration is read from the source.
		ok = !c.globalKept[g] && c.declaredMade(g)
	}
	for _, st := range sts {
		w := &walk{c: c, objects: map[objKey]*object{}, terms: map[string]termInfo{}, reads: map[readKey][]string{}, readFields: map[string][]readKey{}, readsOf: map[*types.Var]map[string][]string{}, holds: map[string][]holding{}, inlined: map[inlineKey]*frame{}, tframes: map[tfKey]*frame{}, budget: 200}
		fr := w.newFrame(st.Parent(), nil, nil)
		fr.root, fr.rootState = true, true
		if call, ok := st.Val.(*ssa.Call); ok && madeByLibrary(call) {
			continue
		}
		if !made(fr.eval(st.Val), 0) {
			ok = false
			break
		}
	}
	c.nonNil[g] = ok
	return ok
}

// Library functions whose bodies are not loaded (their packages are read
// from export data) but whose contract is that they return an error they
// make: errors.New and fmt.Errorf always; gRPC's status.Error and
// status.Errorf for any code but OK (0).
var (
	makesError     = map[string]bool{"errors.New": true, "fmt.Errorf": true}
	makesErrorCode = map[string]bool{"google.golang.org/grpc/status.Error": true, "google.golang.org/grpc/status.Errorf": true}
)

// madeByLibrary reports whether call returns an error it makes, by the
// library's contract.
func madeByLibrary(call *ssa.Call) bool {
	fn := call.Call.StaticCallee()
	if fn == nil {
		return false
	}
	name := fn.RelString(nil)
	if makesError[name] {
		return true
	}
	if makesErrorCode[name] && len(call.Call.Args) > 0 {
		if k, ok := call.Call.Args[0].(*ssa.Const); ok && k.Value != nil {
			if n, ok := constant.Int64Val(k.Value); ok && n != 0 {
				return true
			}
		}
	}
	return false
}

// made reports whether every way v can be is a value made on the way
// (not nil).
func made(v *value, depth int) bool {
	switch v.kind {
	case kObj, kNonNil:
		return true
	case kAlt:
		if depth > 4 {
			return false
		}
		for _, a := range v.alts {
			if !made(a.value(), depth+1) {
				return false
			}
		}
		return len(v.alts) > 0
	}
	return false
}

// table reports whether g is a map the package's initialisation fills and
// nothing changes after (a table of names by value, say): what a lookup
// in it finds depends only on the key. Every store of g is in a package
// initialiser, and every read of it outside one is only looked up,
// ranged over or measured.
func (c *Checker) table(g *ssa.Global) bool {
	if v, ok := c.tables[g]; ok {
		return v
	}
	if c.tables == nil {
		c.tables = map[*ssa.Global]bool{}
	}
	ok := false
	if p, isPtr := g.Type().Underlying().(*types.Pointer); isPtr {
		_, ok = p.Elem().Underlying().(*types.Map)
	}
	inInit := func(fn *ssa.Function) bool {
		for ; fn != nil; fn = fn.Parent() {
			if fn.Synthetic == "package initializer" || strings.HasPrefix(fn.Name(), "init#") {
				return true
			}
		}
		return false
	}
	c.globalIndex()
	for _, st := range c.globals[g] {
		ok = ok && inInit(st.Parent())
	}
	ok = ok && !c.globalKept[g]
	for _, x := range c.globalLoads[g] {
		if !ok {
			break
		}
		if inInit(x.Parent()) {
			continue
		}
		for _, u := range *x.Referrers() {
			switch y := u.(type) {
			case *ssa.Lookup, *ssa.Range, *ssa.DebugRef:
			case *ssa.Call:
				b, isB := y.Call.Value.(*ssa.Builtin)
				ok = ok && isB && b.Name() == "len"
			default:
				ok = false
			}
		}
	}
	c.tables[g] = ok
	return ok
}

// inTable is what a lookup in map m with key finds when m is a table
// (see table) and the key the root's input: the input's choice; nil
// otherwise.
func (f *frame) inTable(m, key ssa.Value) *value {
	u, ok := m.(*ssa.UnOp)
	if !ok || u.Op != token.MUL {
		return nil
	}
	g, ok := u.X.(*ssa.Global)
	if !ok || !f.p.c.table(g) {
		return nil
	}
	if k := f.eval(key); k.org == input {
		return opaque(input)
	}
	return nil
}

// globalIndex lists, once, the stores to each package-level variable and
// the loads of it (go/ssa keeps no referrers of a global), for a checker
// and all its forks.
func (c *Checker) globalIndex() {
	if c.globals != nil {
		return
	}
	p := c.prog
	p.globalsOnce.Do(func() { p.globals, p.globalLoads, p.globalKept = globalsOf(c.g) })
	c.globals, c.globalLoads, c.globalKept = p.globals, p.globalLoads, p.globalKept
}

func globalsOf(g *callpath.Graph) (stores map[*ssa.Global][]*ssa.Store, loads map[*ssa.Global][]*ssa.UnOp, kept map[*ssa.Global]bool) {
	stores, loads, kept = map[*ssa.Global][]*ssa.Store{}, map[*ssa.Global][]*ssa.UnOp{}, map[*ssa.Global]bool{}
	for fn := range g.CG.Nodes {
		if fn == nil {
			continue
		}
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				switch x := ins.(type) {
				case *ssa.Store:
					if gl, ok := x.Addr.(*ssa.Global); ok {
						stores[gl] = append(stores[gl], x)
					}
					if gl, ok := x.Val.(*ssa.Global); ok {
						kept[gl] = true
					}
				case *ssa.UnOp:
					if gl, ok := x.X.(*ssa.Global); ok && x.Op == token.MUL {
						loads[gl] = append(loads[gl], x)
					}
				}
			}
		}
	}
	return stores, loads, kept
}

// declaredMade reports whether package-level variable g, of a package
// whose code is not loaded, is declared with an error a library makes
// (var ErrX = errors.New("…") or fmt.Errorf(…), which always return one
// they make) and its package never assigns it or takes its address. Its package's files are read
// from the directory its declaration is in.
func (c *Checker) declaredMade(g *ssa.Global) bool {
	fset := c.g.Fset()
	pos := fset.Position(g.Pos())
	if !pos.IsValid() || pos.Filename == "" {
		return false
	}
	files := c.dirSyntax(filepath.Dir(pos.Filename), g.Pkg.Pkg.Name())
	if len(files) == 0 {
		return false
	}
	name := g.Name()
	declared, other := 0, false
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.GenDecl:
				if x.Tok != token.VAR {
					return true
				}
				for _, sp := range x.Specs {
					vs, ok := sp.(*ast.ValueSpec)
					if !ok {
						continue
					}
					for i, id := range vs.Names {
						if id.Name != name {
							continue
						}
						if len(vs.Values) == len(vs.Names) && libraryError(f, vs.Values[i]) {
							declared++
						} else {
							other = true
						}
					}
				}
			case *ast.AssignStmt:
				for _, l := range x.Lhs {
					other = other || isName(l, name)
				}
			case *ast.RangeStmt:
				other = other || x.Tok == token.ASSIGN && (isName(x.Key, name) || isName(x.Value, name))
			case *ast.UnaryExpr:
				other = other || x.Op == token.AND && isName(x.X, name)
			}
			return true
		})
	}
	return declared == 1 && !other
}

// isName reports whether e is the identifier name (parenthesised or not).
func isName(e ast.Expr, name string) bool {
	id, ok := ast.Unparen(e).(*ast.Ident)
	return e != nil && ok && id.Name == name
}

// libraryError reports whether expression e of file f calls errors.New
// or fmt.Errorf: an error the call makes, never nil.
func libraryError(f *ast.File, e ast.Expr) bool {
	call, ok := ast.Unparen(e).(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	path := ""
	for _, im := range f.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil {
			continue
		}
		local := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			local = im.Name.Name
		}
		if local == x.Name {
			path = p
		}
	}
	return makesError[path+"."+sel.Sel.Name]
}

// dirSyntax are the files of package pkg in directory dir, without its
// tests, parsed once.
func (c *Checker) dirSyntax(dir, pkg string) []*ast.File {
	key := dir + "\x00" + pkg
	if fs, ok := c.dirFiles[key]; ok {
		return fs
	}
	if c.dirFiles == nil {
		c.dirFiles = map[string][]*ast.File{}
	}
	var out []*ast.File
	ents, err := os.ReadDir(dir)
	if err == nil {
		fset := token.NewFileSet()
		for _, e := range ents {
			n := e.Name()
			if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
			if err != nil {
				out = nil
				break
			}
			if f.Name.Name == pkg {
				out = append(out, f)
			}
		}
	}
	c.dirFiles[key] = out
	return out
}
