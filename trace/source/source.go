// Package source finds and loads the etcd source that a study reads: a
// release from the Go module proxy (through a small work module in the user
// cache dir), or a local etcd checkout.
//
// # Releases
//
// For a release, Resolve writes a work module that requires the study's
// modules at that release and asks the go command for them, first with
// GOPROXY=off (so that a release already in the module cache needs no
// network) and then, if the cache lacks something, with the user's proxy.
//
// # Checkouts
//
// For a checkout, the server module is its server/ folder; the release is
// what `git describe --tags --dirty` says, or, outside a git work tree, the
// Version variable of etcd's api/version package. A checkout's own go.work
// is used when it has one (etcd 3.7); otherwise the go command gets a
// go.work outside the checkout whose main modules and replacements are
// chosen so that etcd's go.mod files agree (etcd 3.6 has none, and a go.work
// that uses every module fails: see planWorkspace). Nothing is written into
// the checkout: go commands run with -mod=readonly, and git without
// optional locks.
//
// # Paths
//
// Every file is named as `git grep -n` prints it from the root of an etcd
// checkout: the module's folder in the repository, then the path inside the
// module (see RepoPath).
package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/srctrace/srctrace/trace/progress"
	"github.com/srctrace/srctrace/trace/target"
	"github.com/srctrace/srctrace/trace/tmpdir"
)

// Spec says which etcd source to use.
type Spec struct {
	// Target is the repository read; nil means target.Etcd.
	Target *target.Target
	// Version is a release such as "v3.7.3". Empty means DefaultVersion.
	Version string
	// Dir is the root of an etcd checkout. Exclusive with Version.
	Dir string
	// Modules are the Go modules to make available, the server module first.
	Modules []string
	// Layout maps module paths to repository folders (used for releases,
	// checked against the checkout for a Dir); nil means the target's.
	Layout map[string]string
	// CacheDir holds the work modules; empty means the user cache dir.
	CacheDir string
	// Env is added to the environment of every go command (tests use it).
	Env []string
	// With are modules of another repository that the work module requires
	// beside Modules, each at its own release (Kubernetes, which consumes
	// the etcd release). A release's work module with them is a directory
	// of its own (see Name).
	With []Require
	// Name names the work module's directory under the cache's work/
	// (default: the release), and Label what progress calls the source
	// (default: the target's name).
	Name, Label string
}

// Require is a module at a release.
type Require struct {
	Path, Version string
}

// Source is a resolved etcd source, ready to load packages from.
type Source struct {
	// Version is the release loaded ("v3.7.3", or git describe output).
	Version string
	// Kind is "module" for a release, "dir" for a checkout.
	Kind string
	// Root is the checkout root for a Dir, empty for a release.
	Root string
	// Dir is where go commands run.
	Dir string
	// Env is the environment of go commands (os.Environ plus overrides).
	Env []string
	// Modules maps each available module path to its directory on disk.
	Modules map[string]string
	// Missing lists requested modules that this source lacks (a checkout
	// without etcdctl/, say, or a module the proxy refuses), with the reason.
	Missing map[string]string
	// Dirty is set for a checkout whose tracked files have uncommitted
	// changes (its Version then ends in "-dirty", as git describe --dirty
	// prints it).
	Dirty bool

	tname   string // the target's name, for progress
	layout  map[string]string
	with    map[string]string // the release of each module of Spec.With
	gomod   []byte            // a release's work module go.mod
	gotmp   string            // GOTMPDIR of its go commands
	cleanup func()
}

// Close removes what Resolve made for the source: a temporary go.work, and
// the directory its go commands keep their work in (GOTMPDIR), with
// whatever an interrupted go command left there.
func (s *Source) Close() {
	if s.cleanup != nil {
		s.cleanup()
		s.cleanup = nil
	}
	if s.gotmp != "" {
		removeAll(s.gotmp)
		s.gotmp = ""
	}
}

// WorkModule is the module path of the work modules Resolve writes.
const WorkModule = "srctrace.work/etcd"

// ErrUsage marks errors in what the user asked for.
var ErrUsage = errors.New("usage")

// tgt is the spec's target.
func (spec Spec) tgt() *target.Target {
	if spec.Target != nil {
		return spec.Target
	}
	return target.Etcd
}

// DefaultVersion is the release of module that this program was built
// with, as recorded in its build information (the pin in go.mod).
func DefaultVersion(module string) (string, error) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "", fmt.Errorf("reading build information: not available; name a release with --etcd-version")
	}
	for _, d := range bi.Deps {
		if d.Path == module {
			if d.Replace != nil && d.Replace.Version != "" {
				return d.Replace.Version, nil
			}
			return d.Version, nil
		}
	}
	return "", fmt.Errorf("this build of srctrace does not depend on %s; name a release with --etcd-version", module)
}

// Resolve makes the source that spec names available.
func Resolve(ctx context.Context, spec Spec) (*Source, error) {
	if len(spec.Modules) == 0 {
		return nil, fmt.Errorf("resolving etcd source: no modules named")
	}
	if spec.Layout == nil {
		spec.Layout = spec.tgt().LayoutMap()
	}
	if spec.Dir != "" && spec.Version != "" {
		return nil, fmt.Errorf("%w: --etcd-dir and --etcd-version exclude each other: name one source", ErrUsage)
	}
	// Every go command of the source keeps its work (the go command's
	// go-build directories) in a directory of the source's own, which Close
	// removes: a go command killed on an interrupt leaves its work behind.
	gotmp, err := tmpdir.Make("srctrace-go-")
	if err != nil {
		return nil, fmt.Errorf("making a directory for the go command's work: %w (TMPDIR must name a writable directory)", err)
	}
	spec.Env = append(append([]string{}, spec.Env...), "GOTMPDIR="+gotmp)
	var s *Source
	if spec.Dir != "" {
		s, err = resolveDir(ctx, spec)
	} else {
		s, err = resolveRelease(ctx, spec)
	}
	if err != nil {
		removeAll(gotmp)
		return nil, err
	}
	s.gotmp = gotmp
	return s, nil
}

func resolveRelease(ctx context.Context, spec Spec) (*Source, error) {
	v := spec.Version
	if v == "" {
		d, err := DefaultVersion(spec.Modules[0])
		if err != nil {
			return nil, err
		}
		v = d
	}
	if t := spec.tgt(); !t.IsRelease(v) {
		return nil, fmt.Errorf("%w: %q is not an %s release: --%s-version wants a tag such as %s", ErrUsage, v, t.Name, t.Name, t.ReleaseHint)
	}
	cache := spec.CacheDir
	if cache == "" {
		uc, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("finding the user cache dir: %w (set XDG_CACHE_HOME or HOME)", err)
		}
		cache = filepath.Join(uc, "srctrace")
	}
	name := spec.Name
	if name == "" {
		name = v
	}
	dir := filepath.Join(cache, "work", name)
	created, err := makeWorkDir(dir)
	if err != nil {
		return nil, err
	}
	// A release that turns out not to exist leaves no work module behind.
	ok := false
	defer func() {
		if !ok && created {
			os.RemoveAll(dir)
		}
	}()
	label := spec.Label
	if label == "" {
		label = spec.tgt().Name
	}
	s := &Source{Version: v, tname: label, Kind: "module", Dir: dir, layout: spec.Layout, gomod: workGoMod(spec.Modules, v, spec.With)}

	base := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	base = append(base, spec.Env...)
	offline := append(append([]string{}, base...), "GOPROXY=off")
	var args []string
	for _, m := range spec.Modules {
		args = append(args, m+"@"+v)
	}
	for _, w := range spec.With {
		args = append(args, w.Path+"@"+w.Version)
	}
	var mods []modInfo
	err = s.Locked(ctx, func() error {
		var err error
		mods, err = download(ctx, dir, offline, args)
		if err == nil && allPresent(mods) {
			s.Env = offline
			return nil
		}
		ph := progress.Start(ctx, "downloading etcd "+v+" from the module proxy", 0)
		mods, err = download(ctx, dir, base, args)
		ph.Done()
		if err != nil {
			return fmt.Errorf("fetching etcd %s: %w", v, err)
		}
		s.Env = base
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.Modules = map[string]string{}
	s.Missing = map[string]string{}
	s.with = map[string]string{}
	for _, w := range spec.With {
		s.with[w.Path] = w.Version
	}
	for i, m := range mods {
		if m.Error != "" && i >= len(spec.Modules) {
			return nil, fmt.Errorf("%s %s cannot be had: the module proxy said %q", m.Path, m.Version, proxySays(m.Error))
		}
		if m.Error != "" {
			if i == 0 {
				return nil, releaseError(v, m)
			}
			s.Missing[m.Path] = fmt.Sprintf("the module proxy refuses %s@%s (%q), so these notes leave out the layer in %s/", m.Path, v, proxySays(m.Error), spec.Layout[m.Path])
			continue
		}
		s.Modules[m.Path] = m.Dir
	}
	if len(s.Missing) > 0 {
		// A module the proxy refuses (etcdctl of some releases) must not be
		// required: the go command would fail on it for every package.
		var have []string
		for _, m := range spec.Modules {
			if _, missing := s.Missing[m]; !missing {
				have = append(have, m)
			}
		}
		s.gomod = workGoMod(have, v, spec.With)
	}
	ok = true
	return s, nil
}

// Selected returns the release that minimum version selection chose in
// the work module for each of modules in its build list (a module not in
// it is left out). A module required at one release may be selected at a
// later one when another requirement asks for more.
func (s *Source) Selected(ctx context.Context, modules ...string) (map[string]string, error) {
	out := map[string]string{}
	err := s.Locked(ctx, func() error {
		cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-m", "-e", "-json"}, modules...)...)
		cmd.Dir, cmd.Env = s.Dir, s.Env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go list -m: %v: %s", err, strings.TrimSpace(stderr.String()))
		}
		dec := json.NewDecoder(&stdout)
		for {
			var m struct {
				Path, Version string
				Error         *struct{ Err string }
			}
			if err := dec.Decode(&m); err != nil {
				break
			}
			if m.Error == nil && m.Version != "" {
				out[m.Path] = m.Version
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the build list of %s: %w", s.Dir, err)
	}
	return out, nil
}

// WithOnline returns a copy of s whose go commands may use the user's
// module proxy, for a load that the module cache alone could not serve.
func (s *Source) WithOnline() *Source {
	c := *s
	c.Env = nil
	for _, e := range s.Env {
		if e != "GOPROXY=off" {
			c.Env = append(c.Env, e)
		}
	}
	return &c
}

// Offline reports whether go commands run with GOPROXY=off.
func (s *Source) Offline() bool {
	for _, e := range s.Env {
		if e == "GOPROXY=off" {
			return true
		}
	}
	return false
}

func allPresent(mods []modInfo) bool {
	for _, m := range mods {
		if m.Error != "" {
			return false
		}
	}
	return true
}

func releaseError(v string, m modInfo) error {
	msg := proxySays(m.Error)
	switch {
	case strings.Contains(msg, "lookup disabled by GOPROXY=off"):
		return fmt.Errorf("etcd %s is not in the module cache, and GOPROXY=off forbids fetching it: unset GOPROXY=off once to fetch it, or use --etcd-dir with a local checkout", v)
	case strings.Contains(msg, "dial tcp") || strings.Contains(msg, "no such host") ||
		strings.Contains(msg, "connection refused") || strings.Contains(msg, "i/o timeout") ||
		strings.Contains(msg, "network is unreachable"):
		return fmt.Errorf("etcd %s is not in the module cache and the module proxy cannot be reached (%s): connect once to fetch it, or use --etcd-dir with a local checkout", v, msg)
	default:
		return fmt.Errorf("etcd release %s cannot be had: the module proxy said %q for %s", v, msg, m.Path)
	}
}

// proxySays shortens a go command module error to what the proxy said.
func proxySays(e string) string {
	e = strings.TrimSpace(e)
	if i := strings.Index(e, "server response:"); i >= 0 {
		return strings.TrimSpace(e[i+len("server response:"):])
	}
	if i := strings.LastIndex(e, ": "); i >= 0 && i+2 < len(e) {
		return strings.TrimSpace(e[i+2:])
	}
	return e
}

type modInfo struct {
	Path    string
	Version string
	Dir     string
	Error   string
}

func download(ctx context.Context, dir string, env, args []string) ([]modInfo, error) {
	cmd := GoCommand(ctx, dir, env, append([]string{"mod", "download", "-json"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	_ = signalGroup(cmd, os.Kill)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var mods []modInfo
	dec := json.NewDecoder(&stdout)
	for {
		var m modInfo
		if err := dec.Decode(&m); err != nil {
			break
		}
		mods = append(mods, m)
	}
	if len(mods) != len(args) {
		if runErr != nil {
			if errors.Is(runErr, exec.ErrNotFound) {
				return nil, fmt.Errorf("running go: %w: srctrace needs the go command on PATH", runErr)
			}
			return nil, fmt.Errorf("go mod download: %v: %s", runErr, strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("go mod download: %d answers for %d modules", len(mods), len(args))
	}
	// Keep the order of args.
	sort.SliceStable(mods, func(i, j int) bool { return index(args, mods[i].Path) < index(args, mods[j].Path) })
	return mods, nil
}

func index(args []string, path string) int {
	for i, a := range args {
		if strings.HasPrefix(a, path+"@") {
			return i
		}
	}
	return len(args)
}

// workGoMod is the go.mod of a work module that requires modules at
// release v. It is written afresh before every go command (see Locked):
// the go command may have rewritten it (its go line, or, when a package was
// missing, an upgraded requirement), and a stale one must not decide which
// release is loaded. go.sum is kept: it only grows.
func workGoMod(modules []string, v string, with []Require) []byte {
	var b strings.Builder
	b.WriteString("// Written by srctrace: a work module to load etcd " + v + " from.\n")
	b.WriteString("module " + WorkModule + "\n\ngo 1.24\n\nrequire (\n")
	for _, m := range modules {
		fmt.Fprintf(&b, "\t%s %s\n", m, v)
	}
	for _, w := range with {
		fmt.Fprintf(&b, "\t%s %s\n", w.Path, w.Version)
	}
	b.WriteString(")\n")
	return []byte(b.String())
}

// makeWorkDir makes the work module's directory and reports whether it
// was new.
func makeWorkDir(dir string) (created bool, err error) {
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		created = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("making work module: %w", err)
	}
	return created, nil
}

// WriteFileAtomic writes data to name through a temporary file in the same
// directory and a rename, so that name is never left half written.
func WriteFileAtomic(name string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		if fi, err := os.Stat(name); err == nil {
			_ = os.Chmod(tmp, fi.Mode().Perm())
		} else {
			_ = os.Chmod(tmp, 0o644)
		}
		werr = os.Rename(tmp, name)
	}
	if werr != nil {
		os.Remove(tmp)
		return werr
	}
	return nil
}

// versionConst reads `name = "..."` from a Go file.
func versionConst(file, name string) (string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		return "", err
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, sp := range gd.Specs {
			vs, ok := sp.(*ast.ValueSpec)
			if !ok {
				continue
			}
			for i, n := range vs.Names {
				if n.Name == name && i < len(vs.Values) {
					if bl, ok := vs.Values[i].(*ast.BasicLit); ok && bl.Kind == token.STRING {
						return strconv.Unquote(bl.Value)
					}
				}
			}
		}
	}
	return "", fmt.Errorf("no %s in %s", name, file)
}

var moduleRE = regexp.MustCompile(`(?m)^module\s+("?)([^"\s]+)"?\s*$`)

func modulePath(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	m := moduleRE.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s: no module line", gomod)
	}
	return string(m[2]), nil
}

// Provides reports whether package path belongs to one of the modules
// the source was asked for (and so HasPackage can tell).
func (s *Source) Provides(path string) bool {
	for m := range s.Modules {
		if path == m || strings.HasPrefix(path, m+"/") {
			return true
		}
	}
	return false
}

// InLayout reports whether package path lies in a module of the layout
// that the source does not lack (see Missing).
func (s *Source) InLayout(path string) bool {
	best := ""
	for m := range s.layout {
		if (path == m || strings.HasPrefix(path, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	if best == "" {
		return false
	}
	_, missing := s.Missing[best]
	return !missing
}

// HasPackage reports whether the source holds package path in one of its
// modules, by looking at the module's files. It is asked before the go
// command runs: in a work module (-mod=mod) the go command would otherwise
// satisfy a package missing from the release by upgrading the module.
func (s *Source) HasPackage(path string) bool {
	best := ""
	for m := range s.Modules {
		if (path == m || strings.HasPrefix(path, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	if best == "" {
		return false
	}
	dir := filepath.Join(s.Modules[best], filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(path, best), "/")))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go") {
			return true
		}
	}
	return false
}

// CheckVersions returns an error when a loaded package of one of the
// source's modules comes from another version than the release asked for.
func (s *Source) CheckVersions(pkgs []*packages.Package) error {
	if s.Kind != "module" {
		return nil
	}
	var bad error
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if bad != nil || p.Module == nil {
			return
		}
		want := s.Version
		if w, ok := s.with[p.Module.Path]; ok {
			want = w
		}
		if _, own := s.Modules[p.Module.Path]; own && p.Module.Version != want {
			bad = fmt.Errorf("package %s was loaded from %s@%s, not %s: the work module in %s is inconsistent; remove it and run again", p.PkgPath, p.Module.Path, p.Module.Version, want, s.Dir)
		}
	})
	return bad
}

// ImportFile names a file given as import path and base name (as
// coverage profiles do) as RepoPath does.
func (s *Source) ImportFile(f string) string {
	best := ""
	for m := range s.layout {
		if strings.HasPrefix(f, m+"/") && len(m) > len(best) {
			best = m
		}
	}
	if best == "" {
		return f
	}
	return s.layout[best] + "/" + strings.TrimPrefix(f, best+"/")
}

// RepoPath names file as `git grep -n` prints it from the root of an etcd
// checkout. A file outside every known module keeps its absolute path.
func (s *Source) RepoPath(file string) string {
	best, bestDir := "", ""
	for m, d := range s.Modules {
		if (strings.HasPrefix(file, d+string(filepath.Separator)) || file == d) && len(d) > len(bestDir) {
			best, bestDir = m, d
		}
	}
	if best == "" {
		return filepath.ToSlash(file)
	}
	rel, err := filepath.Rel(bestDir, file)
	if err != nil {
		return filepath.ToSlash(file)
	}
	return s.Folder(best) + "/" + filepath.ToSlash(rel)
}

// Folder is the repository folder of module m.
func (s *Source) Folder(m string) string {
	if s.Kind == "dir" {
		if d, ok := s.Modules[m]; ok {
			if rel, err := filepath.Rel(s.Root, d); err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return s.layout[m]
}

// File returns the absolute path of a repo-relative path, if the module
// that holds it is available.
func (s *Source) File(repoPath string) (string, bool) {
	best, bestFolder := "", ""
	for m := range s.Modules {
		f := s.Folder(m)
		if strings.HasPrefix(repoPath, f+"/") && len(f) > len(bestFolder) {
			best, bestFolder = m, f
		}
	}
	if best == "" {
		return "", false
	}
	return filepath.Join(s.Modules[best], filepath.FromSlash(strings.TrimPrefix(repoPath, bestFolder+"/"))), true
}
