package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"

	"github.com/srctrace/srctrace/trace/cite"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/target"
)

// Options say what to check against what.
type Options struct {
	// Target is the repository cited; nil means target.Etcd.
	Target *target.Target
	// Version or Dir is the release or checkout checked against (neither:
	// the release srctrace pins).
	Version, Dir string
	// From is the notes' own release (it overrides their markers).
	From string
	// To is the release that links are carried to; it is the release
	// checked against when Version and Dir are empty.
	To string
	// Fix rewrites drifted and moved citations (and, with To, the tags of
	// links) in the notes, atomically.
	Fix   bool
	Files []string
	// CacheDir and Env are as for source.Spec.
	CacheDir string
	Env      []string

	// open replaces Open in tests.
	open func(ctx context.Context, spec source.Spec) (*Tree, error)
}

// Run checks the notes files of o.
func Run(ctx context.Context, o Options) (*Report, error) {
	tgt := o.Target
	if tgt == nil {
		tgt = target.Etcd
	}
	spec := func(v, dir string) source.Spec {
		return source.Spec{Target: tgt, Version: v, Dir: dir, Modules: tgt.Modules(), CacheDir: o.CacheDir, Env: o.Env}
	}
	open := Open
	if o.open != nil {
		open = o.open
	}
	version := o.Version
	if version == "" && o.Dir == "" {
		version = o.To
	}
	if version == "" && o.Dir == "" {
		// The pinned release, named now so that notes of that release do
		// not open it twice.
		if v, err := source.DefaultVersion(tgt.Main); err == nil {
			version = v
		}
	}
	type notes struct {
		name    string
		data    []byte
		cites   []cite.Citation
		probs   []cite.Problem
		markers []cite.Marker
	}
	var all []*notes
	want := map[string]bool{}
	if o.From != "" {
		want[o.From] = true
	}
	for _, name := range o.Files {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("reading notes: %w", err)
		}
		n := &notes{name: name, data: data}
		n.cites, n.probs = cite.Parse(data)
		n.markers = cite.Markers(data)
		sort.SliceStable(n.cites, func(i, j int) bool {
			if n.cites[i].NotesLine != n.cites[j].NotesLine {
				return n.cites[i].NotesLine < n.cites[j].NotesLine
			}
			return n.cites[i].Start < n.cites[j].Start
		})
		for _, m := range n.markers {
			if o.From == "" && m.Target == tgt.Name && tgt.IsRelease(m.Release) {
				want[m.Release] = true
			}
		}
		for _, c := range n.cites {
			if c.Form == cite.GitHub && tgt.IsRelease(c.Ref) {
				want[c.Ref] = true
			}
		}
		all = append(all, n)
	}

	// The tree checked against and the notes' releases, read at once.
	var def *Tree
	var defErr error
	trees := map[string]*Tree{}
	errs := map[string]error{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		def, defErr = open(ctx, spec(version, o.Dir))
	}()
	for v := range want {
		if v == version {
			continue
		}
		wg.Add(1)
		go func(v string) {
			defer wg.Done()
			t, err := open(ctx, spec(v, ""))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if errors.Is(err, source.ErrUsage) {
					err = fmt.Errorf("%s is not a %s release", v, tgt.Name)
				}
				errs[v] = err
				return
			}
			trees[v] = t
		}(v)
	}
	wg.Wait()
	if defErr != nil {
		return nil, defErr
	}
	if o.To != "" && def.Version != o.To {
		return nil, fmt.Errorf("%w: --to %s, but the source checked is %s %s: links are carried to the release checked; drop --to or check against %s", source.ErrUsage, o.To, tgt.Name, def.Version, o.To)
	}
	if err, bad := errs[o.From]; o.From != "" && bad {
		return nil, fmt.Errorf("reading the notes' release %s (--from): %w", o.From, err)
	}
	k := &Checker{Target: tgt, Default: def, Open: func(ctx context.Context, v string) (*Tree, error) {
		if t, ok := trees[v]; ok {
			return t, nil
		}
		if err, ok := errs[v]; ok {
			return nil, err
		}
		return open(ctx, spec(v, ""))
	}}
	if o.To != "" {
		k.To = def.Version
	}
	ownOf := func(v, by string) own {
		if v == def.Version {
			return own{tree: def, by: by, name: v}
		}
		if !tgt.IsRelease(v) {
			return own{by: by, name: v, err: fmt.Errorf("%s is not a %s release (a checkout's?): check the notes against that checkout with --%s-dir", v, tgt.Name, tgt.Name)}
		}
		t, err := k.tree(ctx, v)
		return own{tree: t, by: by, name: v, err: err}
	}

	rep := &Report{Release: def.Version, Target: tgt.Name, Dirty: def.Dirty, Citations: []Citation{}, Problems: []Problem{}, Notes: []Summary{}}
	for _, n := range all {
		first := len(rep.Citations)
		for _, p := range n.probs {
			rep.Problems = append(rep.Problems, Problem{Notes: n.name, NotesLine: p.NotesLine, Message: p.Msg})
		}
		var markers []cite.Marker
		for _, m := range n.markers {
			if m.Target != tgt.Name {
				rep.Problems = append(rep.Problems, Problem{Notes: n.name, NotesLine: m.NotesLine, Message: fmt.Sprintf("a marker for %s, not %s: ignored", m.Target, tgt.Name)})
				continue
			}
			markers = append(markers, m)
		}
		from, fromBy := "", ""
		switch {
		case o.From != "":
			from, fromBy = o.From, "flag"
		case len(markers) > 0:
			from, fromBy = markers[0].Release, "marker"
			for _, m := range markers {
				if m.Release != from {
					from, fromBy = "", ""
				}
			}
			if o.From == "" {
				for _, m := range markers {
					if ow := ownOf(m.Release, "marker"); ow.tree == nil {
						rep.Problems = append(rep.Problems, Problem{Notes: n.name, NotesLine: m.NotesLine,
							Message: fmt.Sprintf("the notes' release %s (their marker) cannot be read: %v; their citations are checked on their own evidence", m.Release, ow.err)})
					}
				}
			}
		}
		var results []result
		for _, c := range n.cites {
			var ow own
			switch {
			case o.From != "":
				ow = ownOf(o.From, "flag")
			default:
				if m, ok := cite.MarkerAt(markers, c.NotesLine); ok {
					ow = ownOf(m.Release, "marker")
				}
			}
			r := k.check(ctx, c, ow)
			if r.status == "" {
				continue // inline code that names no symbol of the release
			}
			results = append(results, r)
			rep.Citations = append(rep.Citations, plain(n.name, r))
		}
		fix := ""
		if o.Fix {
			p := planFix(results, markers, def, k.To, tgt.IsRelease)
			fix = p.note
			if fixed := applyEdits(n.data, p.edits); string(fixed) != string(n.data) {
				if err := source.WriteFileAtomic(n.name, fixed); err != nil {
					return nil, fmt.Errorf("fixing %s: %w", n.name, err)
				}
				rep.Fixed = append(rep.Fixed, n.name)
				if fromBy == "flag" {
					fix += fmt.Sprintf("; the rewritten lines are %s's: check these notes without --from %s from now on", def.Version, o.From)
				}
			}
		}
		summarize(rep, n.name, first, from, fromBy, fix)
	}
	return rep, nil
}
