package check

import (
	"bytes"
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/srctrace/srctrace/trace/cite"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/target"
)

// Tree is the files of one release or checkout, by repo-relative path.
type Tree struct {
	Version string
	Kind    string // "module" (a release), "dir" (a checkout) or "git" (a ref of a checkout's history)
	Dirty   bool   // a checkout with uncommitted changes
	// Commit and RefKind are, for a tree read from a checkout's history,
	// the commit and what Version names there (tag, branch, commit).
	Commit, RefKind string
	// Missing names the modules a release lacks, with the reason.
	Missing map[string]string

	tgt     *target.Target
	files   map[string]string   // repo path -> absolute
	base    map[string][]string // base name -> repo paths
	dirs    map[string][]string // repo dir -> repo paths of its files
	data    map[string][]byte
	lines   map[string][]string
	norm    map[string][]string
	toks    map[string][][]int
	ids     map[string]int // token -> id
	gofiles map[string]*goFile
	pkgs    map[string][]string // package name -> repo dirs, built on first use
	decls   map[string][]decl   // repo path of a Go file -> its declarations
	// load reads a repo path when the files are not on disk (git).
	load func(rp string) ([]byte, error)
	// places caches textPlaces.
	places map[string][]int
}

// Open reads the file list of the source spec names. For a release, the
// modules of spec (all of the target's, for citations anywhere) are
// fetched as for a study; for a checkout (spec.Dir), the files are read as
// they are and no go command runs.
func Open(ctx context.Context, spec source.Spec) (*Tree, error) {
	tgt := spec.Target
	if tgt == nil {
		tgt = target.Etcd
	}
	t := newTree(tgt)
	roots := map[string]string{}
	if spec.Dir != "" {
		root, err := filepath.Abs(spec.Dir)
		if err != nil {
			return nil, fmt.Errorf("%w: --%s-dir %s: %v", source.ErrUsage, tgt.Name, spec.Dir, err)
		}
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("%w: --%s-dir %s is not a directory: it wants the root of an %s checkout", source.ErrUsage, tgt.Name, spec.Dir, tgt.Name)
		}
		t.Version, t.Dirty = source.Describe(ctx, root, tgt)
		t.Kind = "dir"
		roots[""] = root
	} else {
		src, err := source.Resolve(ctx, spec)
		if err != nil {
			return nil, err
		}
		defer src.Close()
		t.Version, t.Kind, t.Missing = src.Version, src.Kind, src.Missing
		for m, d := range src.Modules {
			roots[src.Folder(m)] = d
		}
	}
	for folder, dir := range roots {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != dir && (d.Name() == ".git" || d.Name() == "node_modules") {
					return filepath.SkipDir
				}
				// In a release, a nested module is another module's folder.
				if p != dir && t.Kind != "dir" {
					if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
						return filepath.SkipDir
					}
				}
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			rp := filepath.ToSlash(rel)
			if folder != "" {
				rp = folder + "/" + rp
			}
			t.add(rp, p)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading the files of %s %s: %w", tgt.Name, t.Version, err)
		}
	}
	t.sort()
	return t, nil
}

func newTree(tgt *target.Target) *Tree {
	if tgt == nil {
		tgt = target.Etcd
	}
	return &Tree{tgt: tgt, files: map[string]string{}, base: map[string][]string{}, dirs: map[string][]string{},
		data: map[string][]byte{}, lines: map[string][]string{}, norm: map[string][]string{}, toks: map[string][][]int{}, ids: map[string]int{}, gofiles: map[string]*goFile{}, decls: map[string][]decl{}, places: map[string][]int{}}
}

func (t *Tree) add(rp, abs string) {
	t.files[rp] = abs
	b := path.Base(rp)
	t.base[b] = append(t.base[b], rp)
	d := path.Dir(rp)
	t.dirs[d] = append(t.dirs[d], rp)
}

func (t *Tree) sort() {
	for _, m := range []map[string][]string{t.base, t.dirs} {
		for k := range m {
			sort.Strings(m[k])
		}
	}
}

// bytes returns the content of a repo path.
func (t *Tree) bytes(rp string) ([]byte, error) {
	if b, ok := t.data[rp]; ok {
		return b, nil
	}
	var b []byte
	var err error
	switch {
	case t.load != nil:
		if _, ok := t.files[rp]; !ok {
			return nil, fmt.Errorf("no file %s in %s", rp, t.Version)
		}
		b, err = t.load(rp)
	default:
		b, err = os.ReadFile(t.files[rp])
	}
	if err != nil {
		return nil, err
	}
	t.data[rp] = b
	return b, nil
}

// mentions reports whether rp's text holds word: a file that does not
// mention a function's name need not be parsed to look for it.
func (t *Tree) mentions(rp, word string) bool {
	b, err := t.bytes(rp)
	return err == nil && bytes.Contains(b, []byte(word))
}

// read returns the lines of a repo path.
func (t *Tree) read(rp string) ([]string, error) {
	if ls, ok := t.lines[rp]; ok {
		return ls, nil
	}
	data, err := t.bytes(rp)
	if err != nil {
		return nil, err
	}
	ls := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for i := range ls {
		ls[i] = strings.TrimSuffix(ls[i], "\r")
	}
	t.lines[rp] = ls
	return ls, nil
}

// normalized returns the lines of rp with white space folded.
func (t *Tree) normalized(rp string) []string {
	if ns, ok := t.norm[rp]; ok {
		return ns
	}
	ls, err := t.read(rp)
	if err != nil {
		return nil
	}
	ns := make([]string, len(ls))
	for i, l := range ls {
		ns[i] = cite.Normalize(l)
	}
	t.norm[rp] = ns
	return ns
}

// unread says why a release's tree cannot tell whether a repo path
// exists: its module could not be had, or it is in no module of the
// target's layout (a release is read module by module; a checkout whole).
func (t *Tree) unread(file string) (string, bool) {
	if t.Kind == "dir" || t.Kind == "git" || !strings.Contains(file, "/") || strings.HasPrefix(file, "…/") || strings.HasPrefix(file, ".../") {
		return "", false
	}
	best := target.Folder{}
	for _, f := range t.tgt.Layout {
		if strings.HasPrefix(file, f.Dir+"/") && len(f.Dir) > len(best.Dir) {
			best = f
		}
	}
	if best.Dir == "" {
		var dirs []string
		for _, f := range t.tgt.Layout {
			dirs = append(dirs, f.Dir+"/")
		}
		return fmt.Sprintf("%s is in none of the modules srctrace reads of a release (%s): check it against a checkout with --%s-dir", file, strings.Join(dirs, ", "), t.tgt.Name), true
	}
	if _, missing := t.Missing[best.Module]; missing {
		return fmt.Sprintf("%s/ of %s %s cannot be had: the module proxy does not serve %s@%s", best.Dir, t.tgt.Name, t.Version, best.Module, t.Version), true
	}
	return "", false
}

// resolve finds the repo path a citation names: the path itself, else the
// files whose path ends so (a path relative to a module, a bare name, or
// …/name).
func (t *Tree) resolve(file string) (string, []string) {
	file = strings.TrimPrefix(file, "/")
	// A relative link's ../ and ./ say where the notes are, not where
	// the file is in the repository.
	for strings.HasPrefix(file, "../") || strings.HasPrefix(file, "./") {
		_, file, _ = strings.Cut(file, "/")
	}
	abbrev := false
	for _, p := range []string{"…/", ".../"} {
		if strings.HasPrefix(file, p) {
			file, abbrev = strings.TrimPrefix(file, p), true
		}
	}
	if _, ok := t.files[file]; ok && !abbrev {
		return file, nil
	}
	var cands []string
	for _, rp := range t.base[path.Base(file)] {
		if rp == file || strings.HasSuffix(rp, "/"+file) {
			cands = append(cands, rp)
		}
	}
	if len(cands) == 1 {
		return cands[0], nil
	}
	// A path written from a folder above the repository's root
	// (etcd/server/..., from a checkout named etcd) is looked up without
	// its first elements.
	if len(cands) == 0 && !abbrev && strings.Count(file, "/") >= 2 {
		_, rest, _ := strings.Cut(file, "/")
		return t.resolve(rest)
	}
	return "", cands
}

// A goFile is what a Go file declares, by line, and which lines guard
// which.
type goFile struct {
	pkg    string
	funcs  []fnSpan
	guards []guard
}

// guard says lines hs..he (an if's condition, a case, a loop's or a
// function's header) decide whether lines bs..be (its body) run.
type guard struct{ hs, he, bs, be int }

// guardsOf returns the lines that guard line: the headers of the
// statements and functions whose bodies hold it.
func (t *Tree) guardsOf(rp string, line int) []int {
	g := t.goFile(rp)
	if g == nil {
		return nil
	}
	var out []int
	for _, x := range g.guards {
		if line < x.bs || line > x.be {
			continue
		}
		for l := x.hs; l <= x.he; l++ {
			if l != line {
				out = append(out, l)
			}
		}
	}
	return out
}

// guardsIn lists the guards of a parsed file.
func guardsIn(fset *token.FileSet, f *ast.File) []guard {
	line := func(p token.Pos) int { return fset.Position(p).Line }
	var out []guard
	add := func(h token.Pos, body *ast.BlockStmt, end token.Pos) {
		if body == nil || !h.IsValid() {
			return
		}
		if !end.IsValid() {
			end = body.Rbrace
		}
		out = append(out, guard{line(h), line(body.Lbrace), line(body.Lbrace), line(end)})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt:
			add(n.If, n.Body, n.End())
		case *ast.ForStmt:
			add(n.For, n.Body, 0)
		case *ast.RangeStmt:
			add(n.For, n.Body, 0)
		case *ast.SwitchStmt:
			add(n.Switch, n.Body, 0)
		case *ast.TypeSwitchStmt:
			add(n.Switch, n.Body, 0)
		case *ast.SelectStmt:
			add(n.Select, n.Body, 0)
		case *ast.FuncDecl:
			add(n.Pos(), n.Body, 0)
		case *ast.FuncLit:
			add(n.Pos(), n.Body, 0)
		case *ast.CaseClause:
			out = append(out, guard{line(n.Case), line(n.Colon), line(n.Colon), line(n.End())})
		case *ast.CommClause:
			out = append(out, guard{line(n.Case), line(n.Colon), line(n.Colon), line(n.End())})
		}
		return true
	})
	return out
}

// fnSpan is a function or method declaration: its name, its receiver's
// type name (or ""), and the lines of the declaration.
type fnSpan struct {
	name, recv string
	start, end int
}

// goFile parses a Go file of the tree (nil for other files).
func (t *Tree) goFile(rp string) *goFile {
	if g, ok := t.gofiles[rp]; ok {
		return g
	}
	var g *goFile
	if strings.HasSuffix(rp, ".go") {
		if data, err := t.bytes(rp); err == nil {
			fset := token.NewFileSet()
			// A file that does not parse still gives what parsed.
			if f, _ := parser.ParseFile(fset, rp, data, parser.SkipObjectResolution); f != nil {
				g = &goFile{pkg: f.Name.Name}
				for _, d := range f.Decls {
					fd, ok := d.(*ast.FuncDecl)
					if !ok {
						continue
					}
					s := fnSpan{name: fd.Name.Name, start: fset.Position(fd.Pos()).Line, end: fset.Position(fd.End()).Line}
					if fd.Recv != nil && len(fd.Recv.List) == 1 {
						s.recv = recvName(fd.Recv.List[0].Type)
					}
					g.funcs = append(g.funcs, s)
				}
				g.guards = guardsIn(fset, f)
			}
		}
	}
	t.gofiles[rp] = g
	return g
}

func recvName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// enclosing returns the function declaration that holds line, if any.
func (t *Tree) enclosing(rp string, line int) (fnSpan, bool) {
	g := t.goFile(rp)
	if g == nil {
		return fnSpan{}, false
	}
	for _, f := range g.funcs {
		if line >= f.start && line <= f.end {
			return f, true
		}
	}
	return fnSpan{}, false
}

// funcsNamed returns the functions of rp that name n could mean.
func (t *Tree) funcsNamed(rp string, n cite.Name) []fnSpan {
	g := t.goFile(rp)
	if g == nil {
		return nil
	}
	parts := n.Parts
	if n.Path != "" {
		parts = append([]string{g.pkg}, parts...)
	}
	k := len(parts)
	var out []fnSpan
	for _, f := range g.funcs {
		if f.name != parts[k-1] {
			continue
		}
		var ok bool
		switch {
		case k == 1:
			ok = true
		case f.recv != "":
			// (*T).M, pkg.(*T).M, T.M, pkg.T.M
			ok = f.recv == parts[k-2] && (k == 2 || k == 3 && parts[0] == g.pkg)
		default:
			// pkg.Func
			ok = !n.Recv && k == 2 && parts[0] == g.pkg
		}
		if ok {
			out = append(out, f)
		}
	}
	return out
}

// A decl is a package-level object of a Go package: a function, a type, a
// variable or constant (member ""), or a method or struct field of a type.
type decl struct {
	name, member string
	kind         string // func, type, var (also const), method, field
	file         string
	line         int
}

// packageDirs returns the repo dirs whose Go package is named name.
func (t *Tree) packageDirs(name string) []string {
	if t.pkgs == nil {
		t.pkgs = map[string][]string{}
		var dirs []string
		for d := range t.dirs {
			dirs = append(dirs, d)
		}
		sort.Strings(dirs)
		for _, d := range dirs {
			if pkg := t.packageOf(d); pkg != "" {
				t.pkgs[pkg] = append(t.pkgs[pkg], d)
			}
		}
	}
	return t.pkgs[name]
}

// packageOf reads the package clause of a directory's first Go file that
// is not a test.
func (t *Tree) packageOf(dir string) string {
	for _, rp := range t.dirs[dir] {
		if !strings.HasSuffix(rp, ".go") || strings.HasSuffix(rp, "_test.go") || strings.Contains(rp, "/testdata/") {
			continue
		}
		data, err := t.bytes(rp)
		if err != nil {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), rp, data, parser.PackageClauseOnly)
		if err != nil {
			continue
		}
		return f.Name.Name
	}
	return ""
}

// importDir returns the repo dir of an import path of the target's
// modules, or of a path written as a repository folder (client/v3).
func (t *Tree) importDir(p string) string {
	best, folder := "", ""
	for _, f := range t.tgt.Layout {
		if (p == f.Module || strings.HasPrefix(p, f.Module+"/")) && len(f.Module) > len(best) {
			best, folder = f.Module, f.Dir
		}
	}
	if best != "" {
		d := folder + strings.TrimPrefix(p, best)
		if _, ok := t.dirs[d]; ok {
			return d
		}
	}
	if _, ok := t.dirs[p]; ok {
		return p
	}
	return ""
}

// declsOf returns the package-level declarations of the Go files of a
// package dir (not its tests) that mention every one of words: only those
// files are parsed, once each.
func (t *Tree) declsOf(dir string, words ...string) []decl {
	var ds []decl
	for _, rp := range t.dirs[dir] {
		if !strings.HasSuffix(rp, ".go") || strings.HasSuffix(rp, "_test.go") {
			continue
		}
		if fds, ok := t.decls[rp]; ok {
			ds = append(ds, fds...)
			continue
		}
		data, err := t.bytes(rp)
		if err != nil {
			continue
		}
		mentions := true
		for _, w := range words {
			if !bytes.Contains(data, []byte(w)) {
				mentions = false
			}
		}
		if !mentions {
			continue
		}
		fds := fileDecls(rp, data)
		t.decls[rp] = fds
		ds = append(ds, fds...)
	}
	return ds
}

// fileDecls parses a Go file for its package-level declarations.
func fileDecls(rp string, data []byte) []decl {
	fset := token.NewFileSet()
	f, _ := parser.ParseFile(fset, rp, data, parser.SkipObjectResolution)
	if f == nil {
		return nil
	}
	ds := []decl{}
	line := func(p token.Pos) int { return fset.Position(p).Line }
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil && len(d.Recv.List) == 1 {
				ds = append(ds, decl{name: recvName(d.Recv.List[0].Type), member: d.Name.Name, kind: "method", file: rp, line: line(d.Name.Pos())})
			} else {
				ds = append(ds, decl{name: d.Name.Name, kind: "func", file: rp, line: line(d.Name.Pos())})
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					ds = append(ds, decl{name: sp.Name.Name, kind: "type", file: rp, line: line(sp.Name.Pos())})
					if st, ok := sp.Type.(*ast.StructType); ok {
						for _, fl := range st.Fields.List {
							for _, n := range fl.Names {
								ds = append(ds, decl{name: sp.Name.Name, member: n.Name, kind: "field", file: rp, line: line(n.Pos())})
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						ds = append(ds, decl{name: n.Name, kind: "var", file: rp, line: line(n.Pos())})
					}
				}
			}
		}
	}
	return ds
}

// symbol finds what a qualified name names: its declarations, the
// packages searched, and whether the qualifier is a package at all.
func (t *Tree) symbol(n cite.Name) (found []decl, pkgs []string, isPkg bool) {
	parts := n.Parts
	if n.Path != "" {
		if d := t.importDir(n.Path); d != "" {
			pkgs = []string{d}
		}
	} else {
		pkgs = t.packageDirs(parts[0])
		parts = parts[1:]
	}
	if len(pkgs) == 0 || len(parts) == 0 || len(parts) > 2 {
		return nil, pkgs, len(pkgs) > 0 && len(parts) > 0 && len(parts) <= 2
	}
	for _, d := range pkgs {
		for _, dc := range t.declsOf(d, parts...) {
			switch {
			case len(parts) == 1 && dc.member == "" && dc.name == parts[0]:
			case len(parts) == 2 && dc.name == parts[0] && dc.member == parts[1] && (dc.kind == "method" || !n.Recv):
			default:
				continue
			}
			found = append(found, dc)
		}
	}
	if len(found) == 0 && len(parts) == 2 && !n.Recv {
		// A method or field of a variable (rpctypes.ErrCompacted.Error):
		// its type is not read from the syntax; the variable is what is
		// found.
		for _, d := range pkgs {
			for _, dc := range t.declsOf(d, parts[0]) {
				if dc.kind == "var" && dc.name == parts[0] {
					found = append(found, dc)
				}
			}
		}
	}
	return found, pkgs, true
}
