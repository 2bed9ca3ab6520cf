package check

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/srctrace/srctrace/trace/target"
)

// history is the git history of a checkout (--etcd-dir with a .git): the
// files of any tag, branch or commit it has, read with git itself (git
// ls-tree, git show REF:path). The module proxy serves releases, not
// commits: a link at a commit or a branch is checked only through it.
type history struct {
	dir string
	tgt *target.Target

	mu    sync.Mutex
	refs  map[string]gitRef
	trees map[string]*Tree // by commit
}

// gitRef is a ref as a checkout's history resolves it.
type gitRef struct {
	commit string
	kind   string // tag, branch or commit
	err    error
}

// openHistory returns the history of the checkout at dir, or nil when dir
// is not the top of a git work tree with a commit.
func openHistory(ctx context.Context, dir string, tgt *target.Target) *history {
	h := &history{dir: dir, tgt: tgt, refs: map[string]gitRef{}, trees: map[string]*Tree{}}
	top, err := h.git(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil
	}
	t, _ := filepath.EvalSymlinks(strings.TrimSpace(string(top)))
	d, _ := filepath.EvalSymlinks(dir)
	if t == "" || t != d {
		return nil
	}
	if _, err := h.git(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return nil
	}
	return h
}

// git runs git in the checkout, taking no lock and writing nothing.
func (h *history) git(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", h.dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("git %s: %s", args[0], firstLine(msg))
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// refRE is what a ref in a link may be: no option, no revision syntax.
var refRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`)

// commitRE is a commit's name as links write it: 7 to 40 hex digits.
var commitRE = regexp.MustCompile(`^[0-9a-f]{7,40}$`)

// resolve finds ref in the history: a tag, a branch (local, or origin's),
// or a commit.
func (h *history) resolve(ctx context.Context, ref string) gitRef {
	h.mu.Lock()
	r, ok := h.refs[ref]
	h.mu.Unlock()
	if ok {
		return r
	}
	r = h.lookup(ctx, ref)
	h.mu.Lock()
	h.refs[ref] = r
	h.mu.Unlock()
	return r
}

func (h *history) lookup(ctx context.Context, ref string) gitRef {
	if !refRE.MatchString(ref) {
		return gitRef{err: fmt.Errorf("%q is not a ref srctrace looks up", ref)}
	}
	try := func(name string) string {
		out, err := h.git(ctx, "rev-parse", "--verify", "--quiet", name+"^{commit}")
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	for _, c := range []struct{ name, kind string }{
		{"refs/tags/" + ref, "tag"},
		{"refs/heads/" + ref, "branch"},
		{"refs/remotes/origin/" + ref, "branch"},
	} {
		if sha := try(c.name); sha != "" {
			return gitRef{commit: sha, kind: c.kind}
		}
	}
	if commitRE.MatchString(ref) {
		if sha := try(ref); sha != "" {
			return gitRef{commit: sha, kind: "commit"}
		}
		return gitRef{kind: "commit", err: fmt.Errorf("commit %s is not in the history of %s", ref, h.dir)}
	}
	return gitRef{err: fmt.Errorf("%s has no tag or branch %s", h.dir, ref)}
}

// head returns the commit the checkout is at.
func (h *history) head(ctx context.Context) string {
	out, err := h.git(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// tree returns the files of ref in the history.
func (h *history) tree(ctx context.Context, ref string) (*Tree, error) {
	r := h.resolve(ctx, ref)
	if r.err != nil {
		return nil, r.err
	}
	h.mu.Lock()
	t, ok := h.trees[r.commit]
	h.mu.Unlock()
	if ok {
		return t.named(ref, r.kind), nil
	}
	out, err := h.git(ctx, "ls-tree", "-r", "-z", "--name-only", "--full-tree", r.commit)
	if err != nil {
		return nil, fmt.Errorf("listing the files of %s: %w", ref, err)
	}
	t = newTree(h.tgt)
	t.Version, t.Kind, t.Commit, t.RefKind = ref, "git", r.commit, r.kind
	commit := r.commit
	t.load = func(rp string) ([]byte, error) {
		return h.git(ctx, "cat-file", "blob", commit+":"+rp)
	}
	for _, rp := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if rp != "" {
			t.add(rp, "")
		}
	}
	t.sort()
	h.mu.Lock()
	h.trees[r.commit] = t
	h.mu.Unlock()
	return t, nil
}

// named is t under another name of its commit (a short hash, a tag): the
// files and what was read of them are shared.
func (t *Tree) named(ref, kind string) *Tree {
	if t.Version == ref {
		return t
	}
	n := *t
	n.Version, n.RefKind = ref, kind
	return &n
}
