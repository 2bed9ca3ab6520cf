package trace

import (
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"

	"github.com/srctrace/srctrace/trace/source"
)

// listPackages lists the packages of the source's modules as the go
// command would build them here (their names, files and imports), read
// from their files: the import declarations of the files whose build
// constraints hold, as go/build matches them. It stands in for a `go
// list` of every package, which costs a quarter of a second; the packages
// then loaded are loaded by the go command. Directories the go command
// leaves out of a module are left out: testdata, vendor, those whose name
// starts with "." or "_", and nested modules.
func listPackages(src *source.Source) ([]*packages.Package, error) {
	type dir struct{ path, abs string }
	var dirs []dir
	var mods []string
	for m := range src.Modules {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	for _, m := range mods {
		root := src.Modules[m]
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			name := d.Name()
			if p != root {
				if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
					return filepath.SkipDir
				}
				if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			path := m
			if rel != "." {
				path += "/" + filepath.ToSlash(rel)
			}
			dirs = append(dirs, dir{path, p})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	pkgs := make([]*packages.Package, len(dirs))
	errs := make([]error, len(dirs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, d := range dirs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			pkgs[i], errs[i] = readPackage(d.path, d.abs)
		}()
	}
	wg.Wait()
	byPath := map[string]*packages.Package{}
	var out []*packages.Package
	for i, p := range pkgs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if p != nil {
			byPath[p.PkgPath] = p
			out = append(out, p)
		}
	}
	// Imports point at the listed packages, or at stubs for the others.
	for _, p := range out {
		for path := range p.Imports {
			if q, ok := byPath[path]; ok {
				p.Imports[path] = q
			}
		}
	}
	return out, nil
}

// readPackage reads the package of one directory: nil when no file of it
// is built here (only tests, or constraints that do not hold).
func readPackage(path, dir string) (*packages.Package, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	p := &packages.Package{ID: path, PkgPath: path, Imports: map[string]*packages.Package{}}
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		abs := filepath.Join(dir, name)
		f, err := parser.ParseFile(fset, abs, nil, parser.ImportsOnly|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if f.Name.Name == "documentation" {
			continue // a doc.go the go command ignores
		}
		p.Name = f.Name.Name
		p.GoFiles = append(p.GoFiles, abs)
		for _, imp := range f.Imports {
			ip, err := strconv.Unquote(imp.Path.Value)
			if err == nil && ip != "C" {
				p.Imports[ip] = &packages.Package{ID: ip, PkgPath: ip}
			}
		}
	}
	if len(p.GoFiles) == 0 {
		return nil, nil
	}
	return p, nil
}
