package layers

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"golang.org/x/mod/semver"
	"golang.org/x/tools/go/packages"

	"github.com/srctrace/srctrace/trace/progress"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/source"
)

// Options configure Run.
type Options struct {
	Spec *Spec
	// Producer is the producer's release the study read ("v3.7.3").
	Producer string
	// Release is the consumer's release the user named; "" chooses the
	// newest that fits.
	Release string
	// CacheDir holds work modules; empty means the user cache dir.
	CacheDir string
	// Env is added to every go command's environment.
	Env []string
}

// Result is the consumer read: its report data, and its work module (nil
// when no release was read), in which the consumer's lab is built.
type Result struct {
	Layers *report.Layers
	Source *source.Source
	spec   *Spec
}

// Close removes what Run made for the work module.
func (r *Result) Close() {
	if r != nil && r.Source != nil {
		r.Source.Close()
	}
}

const fullMode = packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedTypes |
	packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule

// Run pairs a consumer release with the producer's, loads its packages in
// a work module beside the producer's release, and answers the spec's
// questions. A consumer release that cannot be had or does not fit is not
// an error: the result's Layers say why in one sentence (Absent).
func Run(ctx context.Context, o Options) (*Result, error) {
	s := o.Spec
	if s == nil {
		return nil, fmt.Errorf("reading the consumer: no spec given")
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	c := s.Consumer
	if o.Release != "" && !c.IsRelease(o.Release) {
		return nil, fmt.Errorf("%w: %q is not a %s release: --%s wants a tag such as %s", source.ErrUsage, o.Release, c.Name, c.Name, c.ReleaseHint)
	}
	out := &report.Layers{Target: c.Name, Producer: o.Producer}
	done := func(r *Result) (*Result, error) {
		if s.Decide != nil {
			s.Decide(out)
		}
		r.Layers, r.spec = out, s
		return r, nil
	}
	if !s.Producer.IsRelease(o.Producer) || semver.Build(o.Producer) != "" {
		out.Absent = fmt.Sprintf("etcd %s is no release, and a %s release is paired with etcd by the release its go.mod requires; these notes stop at etcd's client", o.Producer, c.Name)
		return done(&Result{})
	}
	ph := progress.Start(ctx, c.Name+" beside etcd "+o.Producer, 0)

	defer ph.Done()
	cache, err := cacheDir(o.CacheDir)
	if err != nil {
		return nil, err
	}
	work := filepath.Join(cache, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, fmt.Errorf("making the work dir: %w", err)
	}
	ph.Next("choosing the " + c.Name + " release")
	pr, err := pair(ctx, goEnv{dir: work, env: o.Env}, c, o.Producer, o.Release)
	if err != nil {
		return nil, err
	}
	if pr.At != "" || pr.Named || len(pr.Passed) > 0 {
		out.Fit = &report.LayersFit{Module: c.Fits.Module, Requires: c.Fits.Requires, At: pr.At, Named: pr.Named, Among: pr.Among, Passed: pr.Passed}
	}
	if pr.Absent != "" {
		out.Absent = pr.Absent
		return done(&Result{})
	}
	out.Release = pr.Release
	var with []source.Require
	for _, m := range c.Modules() {
		with = append(with, source.Require{Path: m, Version: pr.Release})
	}
	name := o.Producer + "+" + c.Name + "-" + pr.Release
	ph.Next("fetching " + c.Name + " " + pr.Release)
	src, err := source.Resolve(ctx, source.Spec{Target: s.Producer, Version: o.Producer, Modules: s.Requires, With: with,
		Name: name, Label: c.Name + " " + pr.Release + " with etcd", CacheDir: cache, Env: o.Env})
	if err != nil {
		if errors.Is(err, source.ErrUsage) || ctx.Err() != nil {
			return nil, err
		}
		out.Absent = fmt.Sprintf("%s %s cannot be had beside etcd %s (%v); these notes stop at etcd's client", c.Name, pr.Release, o.Producer, err)
		return done(&Result{})
	}
	res := &Result{Source: src}
	ok := false
	defer func() {
		if !ok {
			src.Close()
		}
	}()
	sel, err := src.Selected(ctx, append(s.Producer.Modules(), c.Modules()...)...)
	if err != nil {
		return nil, err
	}
	var mods []string
	for m := range sel {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	for _, m := range mods {
		v := sel[m]
		if s.Producer.Owns(m) && semver.Compare(v, o.Producer) > 0 {
			out.Absent = fmt.Sprintf("loading %s %s beside etcd %s would raise %s to %s (minimum version selection); these notes stop at etcd's client", c.Name, pr.Release, o.Producer, m, v)
			return done(res)
		}
		if f, ok := c.Folder(m); ok {
			out.Modules = append(out.Modules, report.LayerModule{Path: m, Version: v, Repo: f.Repo})
		} else if f, ok := s.Producer.Folder(m); ok {
			out.Modules = append(out.Modules, report.LayerModule{Path: m, Version: v, Repo: f.Repo})
		}
	}
	if _, err := os.Stat(filepath.Join(src.Dir, loadedMark)); err != nil {
		ph.Next("loading " + c.Name + " " + pr.Release + " (the first load compiles it and etcd: minutes)")
	} else {
		ph.Next("loading " + c.Name + " " + pr.Release)
	}
	pkgs, err := src.Load(ctx, fullMode, s.Packages()...)
	if err != nil {
		return nil, err
	}
	if err := source.Errors(pkgs); err != nil {
		return nil, fmt.Errorf("loading %s %s: %w", c.Name, pr.Release, err)
	}
	if err := src.CheckVersions(pkgs); err != nil {
		return nil, err
	}
	// Loaded once: the packages are compiled, and a later load is quick.
	_ = os.WriteFile(filepath.Join(src.Dir, loadedMark), nil, 0o644)
	ph.Next("following the signal into " + c.Name)
	p, err := newProg(pkgs, s.built(), c, s.Producer)
	if err != nil {
		return nil, fmt.Errorf("analysing %s %s: %w", c.Name, pr.Release, err)
	}
	a, err := newAnalysis(s, p)
	if err != nil {
		return nil, fmt.Errorf("analysing %s %s: %w", c.Name, pr.Release, err)
	}
	if err := a.run(); err != nil {
		return nil, fmt.Errorf("analysing %s %s: %w", c.Name, pr.Release, err)
	}
	out.Hops = a.result()
	for _, l := range s.Layers {
		out.Layers = append(out.Layers, report.Layer{Name: l.Name, Packages: l.Packages})
	}
	ok = true
	return done(res)
}

func cacheDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	uc, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the user cache dir: %w (set XDG_CACHE_HOME or HOME)", err)
	}
	return filepath.Join(uc, "srctrace"), nil
}

// loadedMark is the file a work module holds once its packages loaded.
const loadedMark = ".srctrace-loaded"

// Warm reports whether a consumer release (any that fits, for "") was
// loaded beside the producer's release before, so that loading it again
// needs no compiling: it may then run beside other work, quietly.
func Warm(spec *Spec, cacheDirectory, producer, release string) bool {
	cache, err := cacheDir(cacheDirectory)
	if err != nil || spec == nil || spec.Consumer == nil {
		return false
	}
	if release == "" {
		release = "*"
	}
	m, _ := filepath.Glob(filepath.Join(cache, "work", producer+"+"+spec.Consumer.Name+"-"+release, loadedMark))
	return len(m) > 0
}
