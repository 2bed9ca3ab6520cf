package source

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"

	"github.com/srctrace/srctrace/trace/target"
	"github.com/srctrace/srctrace/trace/tmpdir"
)

// resolveDir makes a checkout's modules available to the go command,
// without writing anything into the checkout.
func resolveDir(ctx context.Context, spec Spec) (*Source, error) {
	root, err := filepath.Abs(spec.Dir)
	if err != nil {
		return nil, fmt.Errorf("%w: --etcd-dir %s: %v", ErrUsage, spec.Dir, err)
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%w: --etcd-dir %s is not a directory: it wants the root of an etcd checkout", ErrUsage, spec.Dir)
	}
	s := &Source{Kind: "dir", tname: spec.tgt().Name, Root: root, Modules: map[string]string{}, Missing: map[string]string{}, layout: map[string]string{}}
	var order []string
	for i, m := range spec.Modules {
		folder, ok := spec.Layout[m]
		if !ok {
			return nil, fmt.Errorf("resolving %s: the study gives no folder for module %s", spec.Dir, m)
		}
		d := filepath.Join(root, filepath.FromSlash(folder))
		gm := filepath.Join(d, "go.mod")
		path, err := modulePath(gm)
		if err != nil {
			if i == 0 {
				return nil, fmt.Errorf("%w: no go.mod under %s: --etcd-dir wants the root of an etcd checkout", ErrUsage, filepath.Join(spec.Dir, folder))
			}
			s.Missing[m] = fmt.Sprintf("no %s/go.mod in the checkout", folder)
			continue
		}
		if path != m {
			if i == 0 {
				return nil, fmt.Errorf("%w: %s declares module %s, not %s: --etcd-dir wants the root of an etcd checkout (3.6 or later)", ErrUsage, gm, path, m)
			}
			s.Missing[m] = fmt.Sprintf("%s/go.mod declares %s", folder, path)
			continue
		}
		s.Modules[m] = d
		order = append(order, m)
		if i == 0 {
			s.Dir = d
		}
	}
	for m, f := range spec.Layout {
		s.layout[m] = f
	}
	// The checkout is the user's: its go.mod, go.sum and go.work are used
	// as they are (-mod=readonly), never rewritten.
	s.Env = append(append(os.Environ(), "GOFLAGS=-mod=readonly"), spec.Env...)
	var err2 error
	if gw := filepath.Join(root, "go.work"); fileExists(gw) {
		s.Dir, s.cleanup, err2 = copyGoWork(gw)
		if err2 == nil {
			s.Env = append(s.Env, "GOWORK="+filepath.Join(s.Dir, "go.work"))
		}
	} else {
		// One module builds from its own go.mod (and the siblings it
		// replaces itself with); several need a module over them.
		if len(order) > 1 {
			s.Dir, s.cleanup, err2 = writeWorkModule(root, order, s.Modules, spec.Layout)
		}
		s.Env = append(s.Env, "GOWORK=off")
	}
	if err2 != nil {
		return nil, fmt.Errorf("preparing the go command for %s: %w", spec.Dir, err2)
	}
	s.Version, s.Dirty = describe(ctx, root, spec.tgt())
	return s, nil
}

func fileExists(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// writeWorkModule writes, in a new temporary directory, a module that
// requires the checkout's modules and replaces each with its folder, for a
// checkout without a go.work (etcd 3.6).
//
// A go.work over the checkout's modules does not do: in a workspace the
// replace directives of every module apply, and etcd's modules replace
// siblings they must not depend on with ./FORBIDDEN_DEPENDENCY, which
// contradicts the server's replacement of the same module with ../api and
// so on ("conflicting replacements"); and a workspace adds the checksums
// of every module of the build list to its go.work.sum, which makes the
// import of some packages ambiguous (old and new genproto) where the
// modules' own go.sum files, read only, are not. In a module of its own,
// only its replace directives apply: each module of the checkout that the
// layout names, and every sibling a module of the checkout replaces itself
// with (a folder with a go.mod; FORBIDDEN_DEPENDENCY has none). Its go.sum
// is the union of theirs, and go commands run with -mod=readonly.
func writeWorkModule(root string, order []string, mods map[string]string, layout map[string]string) (string, func(), error) {
	goVersion := "1.22"
	replace := map[string]string{}  // module path -> directory
	required := map[string]string{} // module path -> highest version a visited module requires
	var sums []string
	seenSum := map[string]bool{}
	var visit func(path, dir string) error
	visit = func(path, dir string) error {
		if prev, ok := replace[path]; ok {
			if prev != dir {
				return fmt.Errorf("module %s is in two folders of the checkout, %s and %s", path, prev, dir)
			}
			return nil
		}
		replace[path] = dir
		gm := filepath.Join(dir, "go.mod")
		data, err := os.ReadFile(gm)
		if err != nil {
			return err
		}
		f, err := modfile.Parse(gm, data, nil)
		if err != nil {
			return fmt.Errorf("parsing %s: %w", gm, err)
		}
		if f.Go != nil && versionLess(goVersion, f.Go.Version) {
			goVersion = f.Go.Version
		}
		for _, r := range f.Require {
			if v, ok := required[r.Mod.Path]; !ok || semver.Compare(v, r.Mod.Version) < 0 {
				required[r.Mod.Path] = r.Mod.Version
			}
		}
		if sum, err := os.ReadFile(filepath.Join(dir, "go.sum")); err == nil {
			for _, l := range strings.Split(string(sum), "\n") {
				if l = strings.TrimSpace(l); l != "" && !seenSum[l] {
					seenSum[l] = true
					sums = append(sums, l)
				}
			}
		}
		for _, r := range f.Replace {
			if r.New.Version != "" || r.Old.Version != "" {
				continue
			}
			sib := filepath.FromSlash(r.New.Path)
			if !filepath.IsAbs(sib) {
				sib = filepath.Join(dir, sib)
			}
			sib = filepath.Clean(sib)
			if p, err := modulePath(filepath.Join(sib, "go.mod")); err == nil && p == r.Old.Path {
				if err := visit(p, sib); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, m := range order {
		if err := visit(m, mods[m]); err != nil {
			return "", nil, err
		}
	}
	// The layout's other modules, where the checkout has them.
	var others []string
	for m := range layout {
		others = append(others, m)
	}
	sort.Strings(others)
	for _, m := range others {
		dir := filepath.Join(root, filepath.FromSlash(layout[m]))
		if _, done := replace[m]; done {
			continue
		}
		if p, err := modulePath(filepath.Join(dir, "go.mod")); err == nil && p == m {
			if err := visit(m, dir); err != nil {
				return "", nil, err
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// Written by srctrace: a module to load a checkout without a go.work from.\nmodule %s\n\ngo %s\n\nrequire (\n", WorkModule, goVersion)
	// Every module of the checkout is required (a package of a module the
	// main module does not require is not loaded under -mod=readonly), each
	// at the version the others require, so that the requirement is what
	// the go command selects.
	var paths []string
	for p := range replace {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, m := range paths {
		v, ok := required[m]
		if !ok {
			v = placeholderVersion(m)
		}
		fmt.Fprintf(&b, "\t%s %s\n", m, v)
	}
	b.WriteString(")\n\nreplace (\n")
	for _, p := range paths {
		fmt.Fprintf(&b, "\t%s => %s\n", p, strconv.Quote(replace[p]))
	}
	b.WriteString(")\n")
	sort.Strings(sums)
	return writeTemp(map[string]string{"go.mod": b.String(), "go.sum": strings.Join(sums, "\n") + "\n"})
}

// placeholderVersion is a version for a requirement that a replacement
// with a directory satisfies at every version.
func placeholderVersion(path string) string {
	_, major, ok := module.SplitPathVersion(path)
	if !ok || major == "" {
		return "v0.0.0-00010101000000-000000000000"
	}
	return strings.TrimLeft(major, "/.") + ".0.0-00010101000000-000000000000"
}

// copyGoWork copies a checkout's go.work and go.work.sum into a new
// temporary directory, with its paths made absolute, so that the go
// command uses the checkout's workspace as it is and yet writes nothing into
// the checkout (in a workspace it adds checksums to go.work.sum).
func copyGoWork(gw string) (string, func(), error) {
	data, err := os.ReadFile(gw)
	if err != nil {
		return "", nil, err
	}
	f, err := modfile.ParseWork(gw, data, nil)
	if err != nil {
		return "", nil, fmt.Errorf("parsing %s: %w", gw, err)
	}
	root := filepath.Dir(gw)
	abs := func(p string) string {
		p = filepath.FromSlash(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		return strconv.Quote(filepath.Clean(p))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "// Copied by srctrace from %s, with its paths made absolute.\n\n", gw)
	if f.Go != nil {
		fmt.Fprintf(&b, "go %s\n\n", f.Go.Version)
	}
	if f.Toolchain != nil {
		fmt.Fprintf(&b, "toolchain %s\n\n", f.Toolchain.Name)
	}
	for _, g := range f.Godebug {
		fmt.Fprintf(&b, "godebug %s=%s\n\n", g.Key, g.Value)
	}
	b.WriteString("use (\n")
	for _, u := range f.Use {
		fmt.Fprintf(&b, "\t%s\n", abs(u.Path))
	}
	b.WriteString(")\n")
	for _, r := range f.Replace {
		old := r.Old.Path
		if r.Old.Version != "" {
			old += " " + r.Old.Version
		}
		to := r.New.Path + " " + r.New.Version
		if r.New.Version == "" {
			to = abs(r.New.Path)
		}
		fmt.Fprintf(&b, "\nreplace %s => %s\n", old, to)
	}
	files := map[string]string{"go.work": b.String()}
	if sum, err := os.ReadFile(gw + ".sum"); err == nil {
		files["go.work.sum"] = string(sum)
	}
	return writeTemp(files)
}

// writeTemp writes files into a new temporary directory and returns it
// and the function that removes it.
func writeTemp(files map[string]string) (string, func(), error) {
	tmp, err := tmpdir.Make("srctrace-checkout-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { tmpdir.Remove(tmp) }
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(data), 0o644); err != nil {
			cleanup()
			return "", nil, err
		}
	}
	return tmp, cleanup, nil
}

// versionLess compares go versions such as 1.24 and 1.25.3.
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// Describe names the release of a checkout, as describe does (t nil:
// target.Etcd), and reports whether its tracked files have uncommitted
// changes.
func Describe(ctx context.Context, root string, t *target.Target) (version string, dirty bool) {
	if t == nil {
		t = target.Etcd
	}
	return describe(ctx, root, t)
}

// describe names the release of a checkout: in a git work tree whose top
// is root, what `git describe --tags --dirty` prints; else the target's
// version constant. Git runs with GIT_OPTIONAL_LOCKS=0 and the dirty check
// is git status's, so that not even the checkout's .git/index is
// rewritten (git describe --dirty refreshes and writes it).
func describe(ctx context.Context, root string, t *target.Target) (string, bool) {
	git := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0")
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err
	}
	if top, err := git("rev-parse", "--show-toplevel"); err == nil {
		top, _ = filepath.EvalSymlinks(top)
		r, _ := filepath.EvalSymlinks(root)
		if top == r {
			st, err := git("status", "--porcelain", "--untracked-files=no")
			dirty := err == nil && st != ""
			if v, err := git("describe", "--tags"); err == nil && v != "" {
				if dirty {
					v += "-dirty"
				}
				return v, dirty
			}
			if v, ok := constVersion(root, t); ok {
				if dirty {
					v += "-dirty"
				}
				return v, dirty
			}
			return "unknown", dirty
		}
	}
	if v, ok := constVersion(root, t); ok {
		return v, false
	}
	return "unknown", false
}

func constVersion(root string, t *target.Target) (string, bool) {
	v, err := versionConst(filepath.Join(root, filepath.FromSlash(t.VersionFile)), t.VersionVar)
	if err != nil {
		return "", false
	}
	return "v" + strings.TrimPrefix(v, "v"), true
}
