package layers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"

	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/target"
)

// pairing is how a consumer release was chosen for a producer release.
type pairing struct {
	Release string // the consumer release; "" when none fits
	At      string // what the consumer's fit module requires of the producer
	Named   bool
	Among   string // where the candidates were listed: "proxy", "module cache"
	Passed  []report.LayerModule
	// Absent is the sentence that says why there is no release.
	Absent string
}

// goEnv runs go commands for the pairing: in dir (no module there), with
// env added, online or with the module cache as the only proxy.
type goEnv struct {
	dir string
	env []string
}

func (g goEnv) run(ctx context.Context, offline bool, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = g.dir
	cmd.Env = append(append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off"), g.env...)
	if offline {
		cmd.Env = append(cmd.Env, "GOPROXY="+cacheProxy(cmd.Env))
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("go %s: %s", strings.Join(args, " "), msg)
	}
	return stdout.Bytes(), nil
}

// cacheProxy is the module cache's download directory as a file:// proxy:
// it serves what the cache holds and nothing else.
func cacheProxy(env []string) string {
	dir := ""
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "GOMODCACHE="); ok {
			dir = v
		}
	}
	if dir == "" {
		if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
			dir = strings.TrimSpace(string(out))
		}
	}
	return "file://" + filepath.ToSlash(filepath.Join(dir, "cache", "download"))
}

// versions lists the releases of module, newest first: as the proxy
// serves them, or, when it cannot be asked, as the module cache knows them.
func (g goEnv) versions(ctx context.Context, module string) (vs []string, among string, err error) {
	among = "proxy"
	out, err := g.run(ctx, false, "list", "-m", "-versions", "-json", module)
	if err != nil {
		among = "module cache"
		var err2 error
		if out, err2 = g.run(ctx, true, "list", "-m", "-versions", "-json", module); err2 != nil {
			return nil, "", fmt.Errorf("listing the releases of %s: %v", module, err)
		}
	}
	var m struct{ Versions []string }
	if err := json.Unmarshal(out, &m); err != nil {
		return nil, "", fmt.Errorf("listing the releases of %s: %w", module, err)
	}
	semver.Sort(m.Versions)
	for i := len(m.Versions) - 1; i >= 0; i-- {
		vs = append(vs, m.Versions[i])
	}
	return vs, among, nil
}

// requires reads what module@v's go.mod requires of dep ("" for nothing),
// from the module cache first.
func (g goEnv) requires(ctx context.Context, module, v, dep string) (string, error) {
	out, err := g.run(ctx, true, "list", "-m", "-json", module+"@"+v)
	if err != nil {
		if out, err = g.run(ctx, false, "list", "-m", "-json", module+"@"+v); err != nil {
			return "", fmt.Errorf("reading the go.mod of %s@%s: %w", module, v, err)
		}
	}
	var m struct{ GoMod string }
	if err := json.Unmarshal(out, &m); err != nil || m.GoMod == "" {
		return "", fmt.Errorf("reading the go.mod of %s@%s: the go command names none", module, v)
	}
	data, err := os.ReadFile(m.GoMod)
	if err != nil {
		return "", fmt.Errorf("reading the go.mod of %s@%s: %w", module, v, err)
	}
	f, err := modfile.ParseLax(m.GoMod, data, nil)
	if err != nil {
		return "", fmt.Errorf("reading the go.mod of %s@%s: %w", module, v, err)
	}
	for _, r := range f.Require {
		if r.Mod.Path == dep {
			return r.Mod.Version, nil
		}
	}
	return "", nil
}

// fits says whether a consumer release that requires the producer at at
// fits producer release p: the same minor line, and not later.
func fits(at, p string) bool {
	return at != "" && semver.MajorMinor(at) == semver.MajorMinor(p) && semver.Compare(at, p) <= 0
}

// pair chooses the consumer release for producer release p: named, when
// the user named one (it must fit), else the newest release that fits.
// Releases are read newest first until one fits or their requirement
// falls below p's minor line (older releases require older ones).
func pair(ctx context.Context, g goEnv, c *target.Target, p, named string) (*pairing, error) {
	fit := c.Fits
	if named != "" {
		at, err := g.requires(ctx, fit.Module, named, fit.Requires)
		if err != nil {
			return &pairing{Named: true, Absent: fmt.Sprintf("%s %s cannot be had (%v); these notes stop at etcd's client", c.Name, named, err)}, nil
		}
		out := &pairing{Named: true, At: at}
		if !fits(at, p) {
			out.Absent = fmt.Sprintf("%s %s does not fit etcd %s: %s@%s requires %s %s%s; these notes stop at etcd's client",
				c.Name, named, p, fit.Module, named, fit.Requires, orNothing(at), raises(at, p))
			return out, nil
		}
		out.Release = named
		return out, nil
	}
	vs, among, err := g.versions(ctx, fit.Module)
	if err != nil {
		return &pairing{Absent: fmt.Sprintf("no %s release can be listed (%v); these notes stop at etcd's client", c.Name, err)}, nil
	}
	out := &pairing{Among: among}
	for _, v := range vs {
		if semver.Prerelease(v) != "" || !c.IsRelease(v) {
			continue
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		at, err := g.requires(ctx, fit.Module, v, fit.Requires)
		if err != nil {
			return nil, err
		}
		if fits(at, p) {
			out.Release, out.At = v, at
			return out, nil
		}
		out.Passed = append(out.Passed, report.LayerModule{Path: fit.Module, Version: v, Requires: at})
		if at != "" && semver.Compare(semver.MajorMinor(at), semver.MajorMinor(p)) < 0 {
			break
		}
	}
	last := "none was read"
	if n := len(out.Passed); n > 0 {
		// The oldest in etcd's minor line says most: the others need
		// another line altogether.
		l := out.Passed[n-1]
		for i := n - 1; i >= 0; i-- {
			if semver.MajorMinor(out.Passed[i].Requires) == semver.MajorMinor(p) {
				l = out.Passed[i]
				break
			}
		}
		last = fmt.Sprintf("%s@%s requires %s %s%s", l.Path, l.Version, fit.Requires, orNothing(l.Requires), raises(l.Requires, p))
		if semver.MajorMinor(l.Requires) == semver.MajorMinor(p) {
			last = "the oldest in its minor line, " + last
		}
	}
	out.Absent = fmt.Sprintf("no %s release listed by the %s fits etcd %s: %s; these notes stop at etcd's client", c.Name, among, p, last)
	return out, nil
}

func orNothing(v string) string {
	if v == "" {
		return "at no release"
	}
	return v
}

// raises says what loading a consumer that requires at would do to p.
func raises(at, p string) string {
	if at != "" && semver.Compare(at, p) > 0 {
		return fmt.Sprintf(", and minimum version selection would raise etcd %s to %s", p, at)
	}
	return ""
}
