package errtext

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"os"
	"sort"
	"strconv"
	"strings"
)

// The libraries whose error constructors are evaluated, by import path.
const (
	errorsPkg = "errors"
	fmtPkg    = "fmt"
	statusPkg = "google.golang.org/grpc/status"
	codesPkg  = "google.golang.org/grpc/codes"
)

// Package is one package's parsed files.
type Package struct {
	Path, Name string
	Files      []*ast.File
}

// Spec names what the target's error flow is made of (see target.Errors).
type Spec struct {
	// Translate are the functions that translate a server error into the
	// error the wire carries, each by indexing a map ("pkg/path.Func").
	Translate []string
	// Convert is the client's conversion of a received error into its own
	// value ("pkg/path.Func").
	Convert string
}

// Kind says how an error value is made.
type Kind string

// The kinds of error value.
const (
	New     Kind = "errors.New"
	Errorf  Kind = "fmt.Errorf"
	Status  Kind = "status"  // a gRPC status error: Code and Text (its message)
	Client  Kind = "client"  // what the client's conversion makes of a wire error
	Alias   Kind = "alias"   // another variable's value
	Unknown Kind = "unknown" // made otherwise: no text
)

// Pos is a position with the source text there.
type Pos struct {
	token.Position
	Text string
}

// Object is one package-level error variable and its value.
type Object struct {
	Name string // qualified: "pkg/path.Name"
	Pkg  string
	Pos  Pos // the declaration (its line)
	Kind Kind
	// Text is the value's message (a status's description), when known;
	// Code the gRPC code the value carries (a status, or what the
	// conversion makes of one).
	Text string
	Code string
	// Of is the variable the value is made from: an alias's, a %w
	// operand's, the conversion's argument.
	Of string
	// Made is, for what the conversion makes, the type of the value it
	// makes ("pkg/path.T"); empty when the conversion returns its argument
	// unchanged (its message is not in the conversion's map).
	Made string
	// Expr is the initializer's source.
	Expr string
	// Chain are the declarations followed to the text, outermost first.
	Chain []Pos
}

// Known reports whether the object's text was evaluated.
func (o *Object) Known() bool { return o.Kind != Unknown && o.Text != "" }

// Translation is one entry of a translation map: a server error and the
// wire error it becomes.
type Translation struct {
	Map      string // the map variable, qualified
	MapAt    Pos
	Func     string // the translate function that indexes it
	From, To string // qualified objects
	At       Pos    // the entry
}

// Default is what a translate function returns for an error no map entry
// holds: a status of Code with the error's own text.
type Default struct {
	Func string
	Code string
	At   Pos
}

// Conversion is the client's conversion, read from its body.
type Conversion struct {
	Func string
	At   Pos
	// Map is the map it indexes with its argument's message; Table maps
	// each message to the wire object whose code the value made carries.
	Map   string
	MapAt Pos
	Table map[string]string
	// Made is the type of the value it makes when the message is in the
	// map (a composite literal, at MadeAt); Passes is set when it returns
	// its argument unchanged otherwise (at PassAt).
	Made   string
	MadeAt Pos
	Passes bool
	PassAt Pos
}

// Catalog is every error variable of the packages read, with the
// translations and the conversion.
type Catalog struct {
	Objects      []*Object // sorted by name
	Translations []Translation
	Defaults     []Default
	Conversion   *Conversion

	byName map[string]*Object
	ev     *eval
}

// Var evaluates any package-level variable of the packages read (nil when
// there is none): an error variable whose value is made otherwise has
// kind Unknown and its initializer.
func (c *Catalog) Var(name string) *Object {
	if o := c.byName[name]; o != nil {
		return o
	}
	pkg, n, ok := splitQualified(name)
	if !ok || c.ev.pkgs[pkg] == nil {
		return nil
	}
	d, ok := c.ev.pkgs[pkg].vars[n]
	if !ok {
		return nil
	}
	return c.ev.object(pkg, n, d, true)
}

// Object returns the object of a qualified name, or nil.
func (c *Catalog) Object(name string) *Object { return c.byName[name] }

// Into returns the translations whose wire error is name (or an alias
// of it, or what name is an alias of).
func (c *Catalog) Into(name string) []Translation {
	same := c.sameValue(name)
	var out []Translation
	for _, t := range c.Translations {
		if same[t.To] {
			out = append(out, t)
		}
	}
	return out
}

// From returns the translation of a server error, if a map holds it.
func (c *Catalog) From(name string) (Translation, bool) {
	for _, t := range c.Translations {
		if t.From == name {
			return t, true
		}
	}
	return Translation{}, false
}

// sameValue is name and the aliases that share its value, both ways.
func (c *Catalog) sameValue(name string) map[string]bool {
	same := map[string]bool{name: true}
	for changed := true; changed; {
		changed = false
		for _, o := range c.Objects {
			if o.Kind == Alias && o.Of != "" && same[o.Of] != same[o.Name] {
				same[o.Of], same[o.Name] = true, true
				changed = true
			}
		}
	}
	return same
}

// Resolve follows aliases to the object whose value an object has.
func (c *Catalog) Resolve(o *Object) *Object {
	for i := 0; o != nil && o.Kind == Alias && i < 8; i++ {
		next := c.byName[o.Of]
		if next == nil {
			break
		}
		o = next
	}
	return o
}

// MadeFrom returns the objects made by the conversion from a wire error
// of the same message and code as w: what the client's value compares
// equal to (with their aliases).
func (c *Catalog) MadeFrom(text, code string) []string {
	var out []string
	for _, o := range c.Objects {
		r := c.Resolve(o)
		if r != nil && r.Kind == Client && r.Made != "" && r.Text == text && r.Code == code {
			out = append(out, o.Name)
		}
	}
	sort.Strings(out)
	return out
}

// Read evaluates the error variables of pkgs, the translation maps of
// spec's translate functions, and spec's conversion.
func Read(fset *token.FileSet, pkgs []Package, spec Spec) *Catalog {
	ev := newEval(fset, pkgs)
	ev.conversion(spec.Convert)
	c := &Catalog{Conversion: ev.conv, byName: map[string]*Object{}, ev: ev}
	for _, p := range ev.order {
		for _, name := range ev.pkgs[p].varOrder {
			d := ev.pkgs[p].vars[name]
			o := ev.object(p, name, d, false)
			if o != nil {
				c.Objects = append(c.Objects, o)
				c.byName[o.Name] = o
			}
		}
	}
	sort.Slice(c.Objects, func(i, j int) bool { return c.Objects[i].Name < c.Objects[j].Name })
	for _, fn := range spec.Translate {
		ts, def := ev.translations(fn)
		c.Translations = append(c.Translations, ts...)
		if def != nil {
			c.Defaults = append(c.Defaults, *def)
		}
	}
	return c
}

// decl is a package-level declaration: a value of a var or const spec,
// with the file it is in.
type decl struct {
	file  *ast.File
	name  *ast.Ident
	value ast.Expr // nil when declared without one
	typ   ast.Expr
	isVar bool
}

type pkgDecls struct {
	path, name string
	vars       map[string]decl
	varOrder   []string
	consts     map[string]decl
	funcs      map[string]*ast.FuncDecl
	methods    map[string]map[string]bool      // receiver type -> method names
	files      map[*ast.File]map[string]string // import name -> path
}

type eval struct {
	fset  *token.FileSet
	pkgs  map[string]*pkgDecls
	order []string
	names map[string]string // package path -> name, for the packages read
	memo  map[string]*value
	busy  map[string]bool
	conv  *Conversion
	text  map[string][]byte
}

// value is what is known of an expression's value.
type value struct {
	kind  Kind
	str   string // a string constant, or an error's message
	isStr bool
	// num is a numeric or character constant (int64, float64, rune), for
	// fmt's verbs.
	num   any
	code  string // a codes constant's name, or an error's code
	of    string
	made  string
	chain []Pos
}

func newEval(fset *token.FileSet, pkgs []Package) *eval {
	ev := &eval{fset: fset, pkgs: map[string]*pkgDecls{}, names: map[string]string{}, memo: map[string]*value{}, busy: map[string]bool{}, text: map[string][]byte{}}
	for _, p := range pkgs {
		ev.names[p.Path] = p.Name
	}
	for _, p := range pkgs {
		d := &pkgDecls{path: p.Path, name: p.Name, vars: map[string]decl{}, consts: map[string]decl{},
			funcs: map[string]*ast.FuncDecl{}, methods: map[string]map[string]bool{}, files: map[*ast.File]map[string]string{}}
		files := append([]*ast.File{}, p.Files...)
		sort.Slice(files, func(i, j int) bool {
			return fset.Position(files[i].Pos()).Filename < fset.Position(files[j].Pos()).Filename
		})
		for _, f := range files {
			imps := map[string]string{}
			for _, im := range f.Imports {
				path, err := strconv.Unquote(im.Path.Value)
				if err != nil {
					continue
				}
				name := ev.importName(path)
				if im.Name != nil {
					name = im.Name.Name
				}
				imps[name] = path
			}
			d.files[f] = imps
			for _, dc := range f.Decls {
				switch x := dc.(type) {
				case *ast.FuncDecl:
					if x.Recv == nil {
						d.funcs[x.Name.Name] = x
					} else if len(x.Recv.List) == 1 {
						t := x.Recv.List[0].Type
						if st, ok := t.(*ast.StarExpr); ok {
							t = st.X
						}
						if id, ok := t.(*ast.Ident); ok {
							if d.methods[id.Name] == nil {
								d.methods[id.Name] = map[string]bool{}
							}
							d.methods[id.Name][x.Name.Name] = true
						}
					}
				case *ast.GenDecl:
					if x.Tok != token.VAR && x.Tok != token.CONST {
						continue
					}
					for _, sp := range x.Specs {
						vs := sp.(*ast.ValueSpec)
						for i, n := range vs.Names {
							if n.Name == "_" {
								continue
							}
							dd := decl{file: f, name: n, typ: vs.Type, isVar: x.Tok == token.VAR}
							if i < len(vs.Values) && len(vs.Values) == len(vs.Names) {
								dd.value = vs.Values[i]
							}
							if dd.isVar {
								d.vars[n.Name] = dd
								d.varOrder = append(d.varOrder, n.Name)
							} else {
								d.consts[n.Name] = dd
							}
						}
					}
				}
			}
		}
		ev.pkgs[p.Path] = d
		ev.order = append(ev.order, p.Path)
	}
	sort.Strings(ev.order)
	return ev
}

// importName is the name a package is imported by when the import does
// not name it: its package name when it is read, else the last element of
// its path that is not a major version.
func (ev *eval) importName(path string) string {
	if n, ok := ev.names[path]; ok && n != "" {
		return n
	}
	parts := strings.Split(path, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && isDigits(last[1:]) {
		last = parts[len(parts)-2]
	}
	return last
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// pos makes a Pos of a node with its line's text.
func (ev *eval) pos(n ast.Node) Pos {
	p := ev.fset.Position(n.Pos())
	return Pos{Position: p, Text: ev.line(p)}
}

func (ev *eval) line(p token.Position) string {
	data, ok := ev.text[p.Filename]
	if !ok {
		data, _ = os.ReadFile(p.Filename)
		ev.text[p.Filename] = data
	}
	if p.Offset < 0 || p.Offset > len(data) {
		return ""
	}
	start := bytes.LastIndexByte(data[:p.Offset], '\n') + 1
	end := bytes.IndexByte(data[p.Offset:], '\n')
	if end < 0 {
		end = len(data) - p.Offset
	}
	return strings.TrimSpace(string(data[start : p.Offset+end]))
}

// src is a node's source text, its runs of white space folded.
func (ev *eval) src(n ast.Node) string {
	p, e := ev.fset.Position(n.Pos()), ev.fset.Position(n.End())
	data, ok := ev.text[p.Filename]
	if !ok {
		data, _ = os.ReadFile(p.Filename)
		ev.text[p.Filename] = data
	}
	if p.Offset < 0 || e.Offset > len(data) || p.Offset > e.Offset {
		return ""
	}
	return strings.Join(strings.Fields(string(data[p.Offset:e.Offset])), " ")
}

// object evaluates one package-level variable; nil when, unless any is
// set, its value is not an error evaluated and it is not declared of type
// error.
func (ev *eval) object(pkg, name string, d decl, any bool) *Object {
	v := ev.varValue(pkg, name)
	declaredError := false
	if id, ok := d.typ.(*ast.Ident); ok && id.Name == "error" {
		declaredError = true
	}
	known := v != nil && !v.isStr && v.kind != "" && v.kind != Unknown
	if !known && !declaredError && !any {
		return nil
	}
	if v == nil || v.isStr {
		v = &value{kind: Unknown}
	}
	o := &Object{Name: pkg + "." + name, Pkg: pkg, Pos: ev.pos(d.name), Kind: v.kind, Text: v.str, Code: v.code, Of: v.of, Made: v.made, Chain: v.chain}
	if d.value != nil {
		o.Expr = ev.src(d.value)
	}
	if o.Kind == "" {
		o.Kind = Unknown
	}
	if o.Kind == Unknown {
		o.Text, o.Code = "", ""
	}
	return o
}

// varValue evaluates a package-level variable, once.
func (ev *eval) varValue(pkg, name string) *value {
	key := pkg + "." + name
	if v, ok := ev.memo[key]; ok {
		return v
	}
	d, ok := ev.pkgs[pkg].vars[name]
	if !ok || ev.busy[key] {
		return nil
	}
	ev.busy[key] = true
	var v *value
	if d.value != nil {
		v = ev.expr(pkg, d.file, d.value)
	}
	delete(ev.busy, key)
	if v != nil && !v.isStr {
		c := *v
		c.chain = append([]Pos{ev.pos(d.name)}, v.chain...)
		v = &c
	}
	ev.memo[key] = v
	return v
}

// ref is what an identifier or selector names: a package path and a name.
func (ev *eval) ref(pkg string, f *ast.File, e ast.Expr) (string, string, bool) {
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		return pkg, x.Name, true
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		if !ok {
			return "", "", false
		}
		d := ev.pkgs[pkg]
		if d == nil {
			return "", "", false
		}
		path, ok := d.files[f][id.Name]
		if !ok {
			return "", "", false
		}
		return path, x.Sel.Name, true
	}
	return "", "", false
}

// fileOf is the file of package pkg that declares a name (for a
// declaration in another package).
func (ev *eval) declOf(pkg, name string) (decl, bool, bool) {
	d := ev.pkgs[pkg]
	if d == nil {
		return decl{}, false, false
	}
	if c, ok := d.consts[name]; ok {
		return c, true, false
	}
	if v, ok := d.vars[name]; ok {
		return v, true, true
	}
	return decl{}, false, false
}

// expr evaluates an expression of package pkg in file f.
func (ev *eval) expr(pkg string, f *ast.File, e ast.Expr) *value {
	switch x := ast.Unparen(e).(type) {
	case *ast.BasicLit:
		switch x.Kind {
		case token.STRING:
			if s, err := strconv.Unquote(x.Value); err == nil {
				return &value{str: s, isStr: true}
			}
		case token.INT:
			if n, err := strconv.ParseInt(x.Value, 0, 64); err == nil {
				return &value{num: n}
			}
		case token.FLOAT:
			if f, err := strconv.ParseFloat(x.Value, 64); err == nil {
				return &value{num: f}
			}
		case token.CHAR:
			if s, err := strconv.Unquote(x.Value); err == nil && len([]rune(s)) == 1 {
				return &value{num: []rune(s)[0]}
			}
		}
		return nil
	case *ast.BinaryExpr:
		if x.Op != token.ADD {
			return nil
		}
		a, b := ev.expr(pkg, f, x.X), ev.expr(pkg, f, x.Y)
		if a != nil && b != nil && a.isStr && b.isStr {
			return &value{str: a.str + b.str, isStr: true}
		}
		return nil
	case *ast.Ident, *ast.SelectorExpr:
		path, name, ok := ev.ref(pkg, f, x)
		if !ok {
			return nil
		}
		if path == codesPkg {
			return &value{code: name}
		}
		d, found, isVar := ev.declOf(path, name)
		if !found {
			if id, ok := x.(*ast.Ident); ok && id.Name == "nil" {
				return nil
			}
			return nil
		}
		if !isVar {
			if d.value == nil {
				return nil
			}
			return ev.expr(path, d.file, d.value)
		}
		v := ev.varValue(path, name)
		if v == nil || v.isStr {
			return v
		}
		if v.kind == "" || v.kind == Unknown {
			return &value{kind: Unknown}
		}
		return &value{kind: Alias, str: v.str, code: v.code, of: path + "." + name, made: v.made, chain: v.chain}
	case *ast.CallExpr:
		return ev.call(pkg, f, x)
	}
	return nil
}

// call evaluates a call: the constructors of errors, fmt and gRPC's
// status, and the target's conversion.
func (ev *eval) call(pkg string, f *ast.File, x *ast.CallExpr) *value {
	// status.New(code, msg).Err()
	if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Err" && len(x.Args) == 0 {
		if inner, ok := ast.Unparen(sel.X).(*ast.CallExpr); ok {
			if path, name, ok := ev.ref(pkg, f, inner.Fun); ok && path == statusPkg && name == "New" && len(inner.Args) == 2 {
				return ev.status(pkg, f, inner.Args[0], inner.Args[1], nil)
			}
		}
	}
	path, name, ok := ev.ref(pkg, f, x.Fun)
	if !ok {
		return &value{kind: Unknown}
	}
	switch {
	case path == errorsPkg && name == "New" && len(x.Args) == 1:
		if a := ev.expr(pkg, f, x.Args[0]); a != nil && a.isStr {
			return &value{kind: New, str: a.str}
		}
	case path == fmtPkg && name == "Errorf" && len(x.Args) >= 1:
		return ev.errorf(pkg, f, x.Args[0], x.Args[1:], Errorf)
	case path == statusPkg && name == "Error" && len(x.Args) == 2:
		return ev.status(pkg, f, x.Args[0], x.Args[1], nil)
	case path == statusPkg && name == "Errorf" && len(x.Args) >= 2:
		return ev.status(pkg, f, x.Args[0], x.Args[1], x.Args[2:])
	case ev.conv != nil && path+"."+name == ev.conv.Func && len(x.Args) == 1:
		return ev.convert(ev.expr(pkg, f, x.Args[0]))
	}
	return &value{kind: Unknown}
}

// errorf formats a constant format with known operands; a %w operand is
// the value the error is made from.
func (ev *eval) errorf(pkg string, f *ast.File, format ast.Expr, args []ast.Expr, kind Kind) *value {
	fv := ev.expr(pkg, f, format)
	if fv == nil || !fv.isStr {
		return &value{kind: Unknown}
	}
	var ops []any
	of := ""
	verbs := strings.ReplaceAll(fv.str, "%w", "%v")
	for i, a := range args {
		v := ev.expr(pkg, f, a)
		if v != nil && v.num != nil {
			ops = append(ops, v.num)
			continue
		}
		if v == nil || (!v.isStr && (v.kind == Unknown || v.kind == "")) {
			return &value{kind: Unknown}
		}
		ops = append(ops, v.str)
		if !v.isStr && of == "" && wrapsAt(fv.str, i) {
			of = v.of
		}
	}
	return &value{kind: kind, str: fmt.Sprintf(verbs, ops...), of: of}
}

// wrapsAt reports whether the i-th verb of a format is %w.
func wrapsAt(format string, i int) bool {
	n := 0
	for j := 0; j < len(format)-1; j++ {
		if format[j] != '%' {
			continue
		}
		if format[j+1] == '%' {
			j++
			continue
		}
		if n == i {
			return format[j+1] == 'w'
		}
		n++
	}
	return false
}

// status evaluates a gRPC status error: its code and message.
func (ev *eval) status(pkg string, f *ast.File, code, msg ast.Expr, args []ast.Expr) *value {
	c := ev.expr(pkg, f, code)
	if c == nil || c.code == "" {
		return &value{kind: Unknown}
	}
	var m *value
	if args != nil {
		m = ev.errorf(pkg, f, msg, args, Status)
		if m.kind == Unknown {
			return m
		}
	} else {
		m = ev.expr(pkg, f, msg)
		if m == nil || !m.isStr {
			return &value{kind: Unknown}
		}
	}
	return &value{kind: Status, str: m.str, code: c.code}
}

// convert is what the conversion makes of a wire error: a value of its
// made type with the wire error's message and the code of the map's wire
// error for that message; or the wire error itself, when the map does not
// hold its message and the conversion returns its argument.
func (ev *eval) convert(w *value) *value {
	cv := ev.conv
	if w == nil || w.isStr || w.kind == Unknown || w.kind == "" || cv == nil {
		return &value{kind: Unknown}
	}
	of := w.of
	if to, ok := cv.Table[w.str]; ok && cv.Made != "" {
		code := ""
		if tp, tn, ok := splitQualified(to); ok {
			if tv := ev.varValue(tp, tn); tv != nil {
				code = tv.code
			}
		}
		return &value{kind: Client, str: w.str, code: code, of: of, made: cv.Made, chain: w.chain}
	}
	if cv.Passes {
		return &value{kind: Client, str: w.str, code: w.code, of: of, chain: w.chain}
	}
	return &value{kind: Unknown}
}

func splitQualified(q string) (string, string, bool) {
	i := strings.LastIndex(q, ".")
	if i <= 0 || strings.Contains(q[i:], "/") {
		return "", "", false
	}
	return q[:i], q[i+1:], true
}

// funcDecl finds a package-level function by qualified name.
func (ev *eval) funcDecl(q string) (string, *ast.FuncDecl, *ast.File) {
	pkg, name, ok := splitQualified(q)
	if !ok {
		return "", nil, nil
	}
	d := ev.pkgs[pkg]
	if d == nil {
		return "", nil, nil
	}
	fd := d.funcs[name]
	if fd == nil || fd.Body == nil {
		return "", nil, nil
	}
	for f := range d.files {
		if f.Pos() <= fd.Pos() && fd.End() <= f.End() {
			return pkg, fd, f
		}
	}
	return "", nil, nil
}

// params are a function's parameter names, in order.
func params(fd *ast.FuncDecl) []string {
	var out []string
	for _, fl := range fd.Type.Params.List {
		for _, n := range fl.Names {
			out = append(out, n.Name)
		}
		if len(fl.Names) == 0 {
			out = append(out, "_")
		}
	}
	return out
}

// indexedMap is the package-level map variable a function body indexes,
// with its literal.
func (ev *eval) indexedMap(pkg string, f *ast.File, body *ast.BlockStmt) (string, *ast.CompositeLit, decl) {
	var name string
	var lit *ast.CompositeLit
	var dd decl
	ast.Inspect(body, func(n ast.Node) bool {
		ix, ok := n.(*ast.IndexExpr)
		if !ok || lit != nil {
			return lit == nil
		}
		path, vn, ok := ev.ref(pkg, f, ix.X)
		if !ok {
			return true
		}
		d, found, isVar := ev.declOf(path, vn)
		if !found || !isVar || d.value == nil {
			return true
		}
		if cl, ok := ast.Unparen(d.value).(*ast.CompositeLit); ok {
			if _, isMap := cl.Type.(*ast.MapType); isMap {
				name, lit, dd = path+"."+vn, cl, d
			}
		}
		return true
	})
	return name, lit, dd
}

// conversion reads the client's conversion function.
func (ev *eval) conversion(q string) {
	if q == "" {
		return
	}
	pkg, fd, f := ev.funcDecl(q)
	if fd == nil {
		return
	}
	cv := &Conversion{Func: q, At: ev.pos(fd.Name), Table: map[string]string{}}
	ps := params(fd)
	mapName, lit, md := ev.indexedMap(pkg, f, fd.Body)
	if lit == nil {
		return
	}
	cv.Map, cv.MapAt = mapName, ev.pos(md.name)
	mpkg, _, _ := splitQualified(mapName)
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key := ""
		switch k := ast.Unparen(kv.Key).(type) {
		case *ast.CallExpr:
			// F(X): the message of X.
			if len(k.Args) == 1 {
				if v := ev.expr(mpkg, md.file, k.Args[0]); v != nil && !v.isStr && v.kind != Unknown && v.kind != "" {
					key = v.str
				}
			}
		default:
			if v := ev.expr(mpkg, md.file, k); v != nil && v.isStr {
				key = v.str
			}
		}
		if key == "" {
			continue
		}
		if p, n, ok := ev.ref(mpkg, md.file, kv.Value); ok {
			cv.Table[key] = p + "." + n
		}
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		ret, ok := n.(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			return true
		}
		switch r := ast.Unparen(ret.Results[0]).(type) {
		case *ast.CompositeLit:
			if cv.Made == "" {
				if p, n, ok := ev.ref(pkg, f, r.Type); ok {
					cv.Made, cv.MadeAt = p+"."+n, ev.pos(r)
				}
			}
		case *ast.Ident:
			if len(ps) > 0 && r.Name == ps[0] && !cv.Passes {
				cv.Passes, cv.PassAt = true, ev.pos(ret)
			}
		}
		return true
	})
	ev.conv = cv
}

// translations reads a translate function: the entries of the map it
// indexes, and what it returns for an error the map does not hold.
func (ev *eval) translations(q string) ([]Translation, *Default) {
	pkg, fd, f := ev.funcDecl(q)
	if fd == nil {
		return nil, nil
	}
	var out []Translation
	mapName, lit, md := ev.indexedMap(pkg, f, fd.Body)
	if lit != nil {
		mpkg, _, _ := splitQualified(mapName)
		for _, el := range lit.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			fp, fn, ok1 := ev.ref(mpkg, md.file, kv.Key)
			tp, tn, ok2 := ev.ref(mpkg, md.file, kv.Value)
			if !ok1 || !ok2 {
				continue
			}
			out = append(out, Translation{Map: mapName, MapAt: ev.pos(md.name), Func: q,
				From: fp + "." + fn, To: tp + "." + tn, At: ev.pos(kv)})
		}
	}
	var def *Default
	ps := params(fd)
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		ret, ok := n.(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 || def != nil {
			return def == nil
		}
		call, ok := ast.Unparen(ret.Results[0]).(*ast.CallExpr)
		if !ok || len(call.Args) != 2 {
			return true
		}
		path, name, ok := ev.ref(pkg, f, call.Fun)
		if !ok || path != statusPkg || name != "Error" {
			return true
		}
		// status.Error(codes.X, err.Error()): the error's own text.
		m, ok := ast.Unparen(call.Args[1]).(*ast.CallExpr)
		if !ok || len(m.Args) != 0 {
			return true
		}
		sel, ok := m.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Error" {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); !ok || len(ps) == 0 || id.Name != ps[0] {
			return true
		}
		if c := ev.expr(pkg, f, call.Args[0]); c != nil && c.code != "" {
			def = &Default{Func: q, Code: c.code, At: ev.pos(ret)}
		}
		return true
	})
	return out, def
}
