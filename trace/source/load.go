package source

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/srctrace/srctrace/trace/progress"
)

// Load runs go/packages in the source's module context. Packages that the
// module cache cannot provide under GOPROXY=off are fetched through the
// user's proxy on a second try, as are the checksums of modules the work
// module's go.sum does not hold yet (the go command verifies them through
// the proxy). Errors inside packages are left in the packages (see
// Errors); the error returned is the driver's, or says which package
// named by its path the go command listed nothing for (go/packages
// returns no package and no error when a go list that builds export data
// fails).
func (s *Source) Load(ctx context.Context, mode packages.LoadMode, patterns ...string) ([]*packages.Package, error) {
	pkgs, err := s.load(ctx, mode, patterns)
	if s.Offline() && (err != nil || needsNetwork(pkgs) || len(missingRoots(pkgs, patterns)) > 0) {
		online := s.WithOnline()
		pkgs, err = online.load(ctx, mode, patterns)
		if err == nil {
			s.Env = online.Env
		}
	}
	if err != nil {
		return nil, err
	}
	if miss := missingRoots(pkgs, patterns); len(miss) > 0 {
		more := ""
		if len(miss) > 3 {
			more = fmt.Sprintf(" and %d more", len(miss)-3)
			miss = miss[:3]
		}
		return nil, fmt.Errorf("loading etcd %s: the go command listed no package for %s%s (run go list -e -export %s in %s to see why)",
			s.Version, strings.Join(miss, ", "), more, miss[0], s.Dir)
	}
	// Files of etcd's other modules (api, pkg) are named by their folder too.
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if m := p.Module; m != nil && m.Dir != "" {
			if _, known := s.layout[m.Path]; known {
				if _, ok := s.Modules[m.Path]; !ok {
					s.Modules[m.Path] = m.Dir
				}
			}
		}
	})
	return pkgs, nil
}

func (s *Source) load(ctx context.Context, mode packages.LoadMode, patterns []string) ([]*packages.Package, error) {
	cfg := &packages.Config{
		Context:   ctx,
		Mode:      mode,
		Dir:       s.Dir,
		Env:       s.Env,
		ParseFile: parseFile,
	}
	var pkgs []*packages.Package
	ph := progress.Start(ctx, strings.TrimSpace("loading the packages of "+s.tname+" "+s.Version), 0)
	defer ph.Done()
	err := s.Locked(ctx, func() error {
		var err error
		pkgs, err = packages.Load(cfg, patterns...)
		return err
	})
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr // the go command was stopped: its error says nothing more
		}
		return nil, fmt.Errorf("loading etcd %s: %w", s.Version, err)
	}
	return pkgs, nil
}

// parseFile parses a file loaded from source as go/packages would, with
// its comments and every error, but without resolving identifiers to
// ast.Objects: go/types, go/ssa and srctrace use the type checker's
// objects.
func parseFile(fset *token.FileSet, name string, src []byte) (*ast.File, error) {
	return parser.ParseFile(fset, name, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
}

// missingRoots are the patterns that name one package by its import
// path (no wildcard, directory or file) for which no root package came
// back, sorted.
func missingRoots(pkgs []*packages.Package, patterns []string) []string {
	got := map[string]bool{}
	for _, p := range pkgs {
		got[p.PkgPath] = true
	}
	seen := map[string]bool{}
	var miss []string
	for _, pat := range patterns {
		if seen[pat] || got[pat] || pat == "" || strings.Contains(pat, "...") || strings.HasPrefix(pat, ".") ||
			strings.HasPrefix(pat, "/") || strings.HasSuffix(pat, ".go") || strings.Contains(pat, "=") {
			continue
		}
		seen[pat] = true
		miss = append(miss, pat)
	}
	sort.Strings(miss)
	return miss
}

func needsNetwork(pkgs []*packages.Package) bool {
	found := false
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			if strings.Contains(e.Msg, "GOPROXY=off") || strings.Contains(e.Msg, "module lookup disabled") ||
				strings.Contains(e.Msg, "missing go.sum entry") || strings.Contains(e.Msg, "verifying module") {
				found = true
			}
		}
	})
	return found
}

// Errors summarises the errors of pkgs and their dependencies, or nil.
func Errors(pkgs []*packages.Package) error {
	var msgs []string
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			msgs = append(msgs, e.Error())
		}
	})
	if len(msgs) == 0 {
		return nil
	}
	sort.Strings(msgs)
	if len(msgs) > 5 {
		msgs = append(msgs[:5], fmt.Sprintf("and %d more", len(msgs)-5))
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}
