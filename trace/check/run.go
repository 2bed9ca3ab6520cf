package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	// the release srctrace pins). A checkout with its git history also
	// serves the links at any tag, branch or commit it has.
	Version, Dir string
	// From is the notes' own release (it overrides their markers).
	From string
	// To is the release that links are carried to; it is the release
	// checked against when Version and Dir are empty.
	To string
	// Fix rewrites drifted and moved citations (and, with To, the tags of
	// links) in the notes, atomically, with the code they quote when it
	// changed with the line; a symbolic link is followed, and the file it
	// names is written.
	Fix   bool
	Files []string
	// CacheDir and Env are as for source.Spec.
	CacheDir string
	Env      []string

	// open replaces Open in tests.
	open func(ctx context.Context, spec source.Spec) (*Tree, error)
}

// notes is one notes file as read.
type notes struct {
	name    string
	data    []byte
	cites   []cite.Citation
	probs   []cite.Problem
	markers []cite.Marker
	starts  []int // where each line starts in data, made on first use
}

func readNotes(name string, data []byte) *notes {
	n := &notes{name: name, data: data}
	n.cites, n.probs = cite.Parse(data)
	n.markers = cite.Markers(data)
	sort.SliceStable(n.cites, func(i, j int) bool {
		if n.cites[i].NotesLine != n.cites[j].NotesLine {
			return n.cites[i].NotesLine < n.cites[j].NotesLine
		}
		return n.cites[i].Start < n.cites[j].Start
	})
	return n
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
	var hist *history
	if o.Dir != "" {
		if abs, err := filepath.Abs(o.Dir); err == nil {
			hist = openHistory(ctx, abs, tgt)
		}
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
		n := readNotes(name, data)
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

	// The tree checked against and the notes' releases, read at once;
	// the releases the checkout's history has are read from it instead.
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
		if v == version || hist != nil && hist.resolve(ctx, v).kind == "tag" {
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
	k := &Checker{Target: tgt, Default: def, hist: hist, Open: func(ctx context.Context, v string) (*Tree, error) {
		if t, ok := trees[v]; ok {
			return t, nil
		}
		if err, ok := errs[v]; ok {
			return nil, err
		}
		return open(ctx, spec(v, ""))
	}}
	if err, bad := errs[o.From]; o.From != "" && bad {
		if _, herr := k.tree(ctx, o.From); herr != nil {
			return nil, fmt.Errorf("reading the notes' release %s (--from): %w", o.From, err)
		}
	}
	if o.To != "" {
		k.To = def.Version
	}
	if hist != nil && def.Commit == "" && !def.Dirty {
		def.Commit = hist.head(ctx)
	}

	rep := &Report{Release: def.Version, Target: tgt.Name, Dirty: def.Dirty, Commit: def.Commit, Repo: tgt.Repo, Citations: []Citation{}, Problems: []Problem{}, Notes: []Summary{}}
	for _, n := range all {
		first := len(rep.Citations)
		nc := k.checkNotes(ctx, n, o.From)
		rep.Problems = append(rep.Problems, nc.problems...)
		rep.Citations = slices.Grow(rep.Citations, len(nc.results))
		for _, r := range nc.results {
			rep.Citations = append(rep.Citations, plain(n, r))
		}
		fix := ""
		var after map[string]int
		if o.Fix {
			p := planFix(nc.results, nc.markers, def, k.To, tgt.IsRelease, tgt.Name, n.data)
			fix = p.note
			if fixed := applyEdits(n.data, p.edits); string(fixed) != string(n.data) {
				// A symbolic link stays one: the file it names is written.
				file := n.name
				if real, err := filepath.EvalSymlinks(n.name); err == nil {
					file = real
				}
				if err := source.WriteFileAtomic(file, fixed); err != nil {
					return nil, fmt.Errorf("fixing %s: %w", n.name, err)
				}
				rep.Fixed = append(rep.Fixed, n.name)
				if nc.fromBy == "flag" {
					fix += fmt.Sprintf("; the rewritten lines are %s's: check these notes without --from %s from now on", def.Version, o.From)
				}
				// What is left: the fixed notes checked again, as the next
				// check will check them.
				from := o.From
				if nc.fromBy == "flag" && p.carried {
					from = ""
				}
				again := k.checkNotes(ctx, readNotes(n.name, fixed), from)
				after = map[string]int{}
				for _, st := range Statuses {
					after[string(st)] = 0
				}
				for _, r := range again.results {
					after[string(r.status)]++
				}
			}
		}
		summarize(rep, n.name, first, nc.from, nc.fromBy, fix, after)
		// What was read of these notes is not needed any more.
		n.data, n.cites, n.starts = nil, nil, nil
	}
	return rep, nil
}

// checked is one notes file checked.
type checked struct {
	results  []result
	problems []Problem
	markers  []cite.Marker // the target's
	from     string        // the notes' release, when one holds for all of them
	fromBy   string
}

// checkNotes checks the citations of one notes file; from is --from.
func (k *Checker) checkNotes(ctx context.Context, n *notes, from string) checked {
	tgt := k.tgt()
	var out checked
	for _, p := range n.probs {
		out.problems = append(out.problems, Problem{Notes: n.name, NotesLine: p.NotesLine, Message: p.Msg})
	}
	for _, m := range n.markers {
		if m.Target != tgt.Name {
			out.problems = append(out.problems, Problem{Notes: n.name, NotesLine: m.NotesLine, Message: fmt.Sprintf("a marker for %s, not %s: ignored", m.Target, tgt.Name)})
			continue
		}
		out.markers = append(out.markers, m)
	}
	ownOf := func(v, by string) own {
		if v == k.Default.Version && !k.Default.Dirty {
			return own{tree: k.Default, by: by, name: v}
		}
		if !tgt.IsRelease(v) {
			return own{by: by, name: v, err: fmt.Errorf("%s is not a %s release (a checkout's?): check the notes against that checkout with --%s-dir", v, tgt.Name, tgt.Name)}
		}
		t, err := k.tree(ctx, v)
		return own{tree: t, by: by, name: v, err: err}
	}
	switch {
	case from != "":
		out.from, out.fromBy = from, "flag"
	case len(out.markers) > 0:
		out.from, out.fromBy = out.markers[0].Release, "marker"
		for _, m := range out.markers {
			if m.Release != out.from {
				out.from, out.fromBy = "", ""
			}
		}
		for _, m := range out.markers {
			if ow := ownOf(m.Release, "marker"); ow.tree == nil {
				out.problems = append(out.problems, Problem{Notes: n.name, NotesLine: m.NotesLine,
					Message: fmt.Sprintf("the notes' release %s (their marker) cannot be read: %v; their citations are checked on their own evidence", m.Release, ow.err)})
			}
		}
	}
	// The citations of a unit are next to each other in the notes' order.
	unitOf := make([][]cite.Citation, len(n.cites))
	for i := 0; i < len(n.cites); {
		j := i + 1
		for j < len(n.cites) && n.cites[j].Unit == n.cites[i].Unit {
			j++
		}
		for x := i; x < j; x++ {
			unitOf[x] = n.cites[i:j:j]
		}
		i = j
	}
	out.results = make([]result, 0, len(n.cites))
	for i := range n.cites {
		c := &n.cites[i]
		var ow own
		switch {
		case from != "":
			ow = ownOf(from, "flag")
		default:
			if m, ok := cite.MarkerAt(out.markers, c.NotesLine); ok {
				ow = ownOf(m.Release, "marker")
			}
		}
		r := k.check(ctx, c, ow, unitOf[i])
		if r.status == "" {
			continue // inline code that names no symbol of the release
		}
		out.results = append(out.results, r)
	}
	return out
}
