// Package check verifies file:line citations (package cite) against the
// files of an etcd release or checkout: whether each cited line exists and
// holds the cited text, or where that text is now.
package check

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/srctrace/srctrace/trace/cite"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/target"
)

// Status of a citation.
type Status string

// The statuses.
const (
	OK         Status = "ok"         // the line exists and holds the cited text, if any
	Drifted    Status = "drifted"    // the cited text is now at another line (Now)
	Missing    Status = "missing"    // no such file at that release, or the line is beyond its end
	Mismatch   Status = "mismatch"   // the line exists but the cited text is nowhere in the file
	Ambiguous  Status = "ambiguous"  // a bare file name that several files of the release have
	Unresolved Status = "unresolved" // the release cannot be had, or the link is not to etcd
)

// Result is one checked citation.
type Result struct {
	cite.Citation
	Status   Status
	Now      int    // the line the text is at now, when drifted
	NowEnd   int    // the range's new end, when drifted
	Release  string // the release checked against
	Resolved string // the repo path the citation resolved to
	Msg      string
}

// Tree is the files of one release or checkout, by repo-relative path.
type Tree struct {
	Version string
	files   map[string]string   // repo path -> absolute
	base    map[string][]string // base name -> repo paths
	lines   map[string][]string
}

// Open reads the file list of the source spec names; Modules and Layout
// should name every etcd module (all of them are searched).
func Open(ctx context.Context, spec source.Spec) (*Tree, error) {
	t := &Tree{files: map[string]string{}, base: map[string][]string{}, lines: map[string][]string{}}
	roots := map[string]string{}
	kind := "dir"
	if spec.Dir != "" {
		// Citations are checked against the files of the checkout as they
		// are: no module needs to load.
		root, err := filepath.Abs(spec.Dir)
		if err != nil {
			return nil, fmt.Errorf("%w: --etcd-dir %s: %v", source.ErrUsage, spec.Dir, err)
		}
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("%w: --etcd-dir %s is not a directory: it wants the root of an etcd checkout", source.ErrUsage, spec.Dir)
		}
		t.Version, _ = source.Describe(ctx, root, nil)
		roots[""] = root
	} else {
		src, err := source.Resolve(ctx, spec)
		if err != nil {
			return nil, err
		}
		defer src.Close()
		t.Version, kind = src.Version, src.Kind
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
				if p != dir && kind != "dir" {
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
			t.files[rp] = p
			b := filepath.Base(rp)
			t.base[b] = append(t.base[b], rp)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for b := range t.base {
		sort.Strings(t.base[b])
	}
	return t, nil
}

func (t *Tree) read(rp string) ([]string, error) {
	if ls, ok := t.lines[rp]; ok {
		return ls, nil
	}
	data, err := os.ReadFile(t.files[rp])
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

// resolve finds the repo path a citation names.
func (t *Tree) resolve(file string) (string, []string) {
	file = strings.TrimPrefix(strings.TrimPrefix(file, "./"), "/")
	if _, ok := t.files[file]; ok {
		return file, nil
	}
	// A path relative to a module, or a bare name: the files that end so.
	var cands []string
	for _, rp := range t.base[filepath.Base(file)] {
		if rp == file || strings.HasSuffix(rp, "/"+file) {
			cands = append(cands, rp)
		}
	}
	if len(cands) == 1 {
		return cands[0], nil
	}
	return "", cands
}

// Checker checks citations against a default tree and, for GitHub links,
// the release their link names.
type Checker struct {
	Default *Tree
	// Open opens another release for a link (nil: links are checked
	// against Default only when they name its release).
	Open  func(ctx context.Context, version string) (*Tree, error)
	trees map[string]*Tree
	errs  map[string]error
}

// Check checks one citation.
func (k *Checker) Check(ctx context.Context, c cite.Citation) Result {
	r := Result{Citation: c}
	t := k.Default
	if c.Form == cite.GitHub {
		if !strings.EqualFold(c.Repo, "etcd-io/etcd") {
			r.Status, r.Msg = Unresolved, fmt.Sprintf("a link to %s, not to etcd-io/etcd: not checked", c.Repo)
			return r
		}
		if !target.Etcd.IsRelease(c.Ref) {
			r.Status, r.Msg = Unresolved, fmt.Sprintf("the link is at %q, which is not a release tag: srctrace checks links at release tags", c.Ref)
			return r
		}
		var err error
		t, err = k.tree(ctx, c.Ref)
		if err != nil {
			r.Release, r.Status, r.Msg = c.Ref, Unresolved, err.Error()
			return r
		}
	}
	if t == nil {
		r.Status, r.Msg = Unresolved, "no release to check against"
		return r
	}
	r.Release = t.Version
	if c.Line < 1 {
		r.Status, r.Msg = Missing, "line 0 does not exist"
		return r
	}
	rp, cands := t.resolve(c.File)
	switch {
	case rp == "" && len(cands) > 1:
		r.Status, r.Msg = Ambiguous, fmt.Sprintf("%d files of %s are named so: %s", len(cands), t.Version, strings.Join(cands, ", "))
		return r
	case rp == "":
		r.Status, r.Msg = Missing, fmt.Sprintf("no file %s in etcd %s", c.File, t.Version)
		return r
	}
	r.Resolved = rp
	lines, err := t.read(rp)
	if err != nil {
		r.Status, r.Msg = Unresolved, fmt.Sprintf("reading %s: %v", rp, err)
		return r
	}
	last := c.Line
	if c.End > last {
		last = c.End
	}
	text := cite.Normalize(c.Text)
	holds := func(i int) bool {
		return i >= 1 && i <= len(lines) && strings.Contains(cite.Normalize(lines[i-1]), text)
	}
	if text == "" {
		if last > len(lines) {
			r.Status, r.Msg = Missing, fmt.Sprintf("%s has %d lines in etcd %s", rp, len(lines), t.Version)
			return r
		}
		r.Status = OK
		return r
	}
	if holds(c.Line) {
		r.Status = OK
		return r
	}
	best := 0
	for i := 1; i <= len(lines); i++ {
		if holds(i) && (best == 0 || abs(i-c.Line) < abs(best-c.Line)) {
			best = i
		}
	}
	switch {
	case best > 0:
		r.Status, r.Now = Drifted, best
		if c.End > 0 {
			r.NowEnd = c.End + best - c.Line
		}
		r.Msg = fmt.Sprintf("the text is at line %d now", best)
	case c.Line > len(lines):
		r.Status, r.Msg = Missing, fmt.Sprintf("%s has %d lines in etcd %s, and the cited text is not in it", rp, len(lines), t.Version)
	default:
		r.Status, r.Msg = Mismatch, fmt.Sprintf("the cited text is nowhere in %s at etcd %s", rp, t.Version)
	}
	return r
}

func (k *Checker) tree(ctx context.Context, v string) (*Tree, error) {
	if k.Default != nil && k.Default.Version == v {
		return k.Default, nil
	}
	if t, ok := k.trees[v]; ok {
		return t, nil
	}
	if err, ok := k.errs[v]; ok {
		return nil, err
	}
	if k.Open == nil {
		return nil, fmt.Errorf("the link is at %s; check it with --etcd-version %s", v, v)
	}
	if k.trees == nil {
		k.trees, k.errs = map[string]*Tree{}, map[string]error{}
	}
	t, err := k.Open(ctx, v)
	if err != nil {
		k.errs[v] = err
		return nil, err
	}
	k.trees[v] = t
	return t, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Fix rewrites the line numbers of drifted citations in data and leaves
// every other byte as it is.
func Fix(data []byte, results []Result) []byte {
	type edit struct {
		line     int
		from, to int
		text     string
	}
	var edits []edit
	for _, r := range results {
		if r.Status != Drifted {
			continue
		}
		edits = append(edits, edit{r.NotesLine, r.LineAt[0], r.LineAt[1], fmt.Sprint(r.Now)})
		if r.End > 0 && r.EndAt[1] > r.EndAt[0] {
			edits = append(edits, edit{r.NotesLine, r.EndAt[0], r.EndAt[1], fmt.Sprint(r.NowEnd)})
		}
	}
	if len(edits) == 0 {
		return data
	}
	// Right to left within a line, so earlier offsets stay valid.
	sort.Slice(edits, func(i, j int) bool {
		if edits[i].line != edits[j].line {
			return edits[i].line < edits[j].line
		}
		return edits[i].from > edits[j].from
	})
	var out []byte
	lineNo, start := 1, 0
	ei := 0
	for i := 0; i <= len(data); i++ {
		if i < len(data) && data[i] != '\n' {
			continue
		}
		line := data[start:i]
		if ei < len(edits) && edits[ei].line == lineNo {
			l := append([]byte{}, line...)
			for ei < len(edits) && edits[ei].line == lineNo {
				e := edits[ei]
				if e.to <= len(l) {
					l = append(l[:e.from:e.from], append([]byte(e.text), l[e.to:]...)...)
				}
				ei++
			}
			out = append(out, l...)
		} else {
			out = append(out, line...)
		}
		if i < len(data) {
			out = append(out, '\n')
		}
		lineNo++
		start = i + 1
	}
	return out
}
