// Package target describes a source tree that srctrace reads: its Go
// modules and their folders in the repository, how its releases are
// written, where a checkout records its version, and where the repository
// is published. etcd is the one target today (Etcd); nothing else in
// srctrace names etcd's layout.
package target

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Target is a repository of Go modules that is read by release or checkout.
type Target struct {
	// Name is what the user calls it ("etcd").
	Name string
	// Repo is the GitHub "owner/name" the repository is published as.
	Repo string
	// Main is the module whose release is loaded first (the server).
	Main string
	// Layout maps each Go module of the repository to its folder, so that
	// files are named as `git grep -n` prints them from the repository root.
	Layout []Folder
	// Release is a regular expression that matches a release tag ("v3.7.3").
	Release string
	// ReleaseHint is an example release for messages.
	ReleaseHint string
	// VersionFile and VersionVar are where a checkout outside git says its
	// version: a string constant or variable in a Go file of the repository.
	VersionFile, VersionVar string
}

// Folder is one module's folder in the repository.
type Folder struct {
	Module string // e.g. "go.etcd.io/etcd/server/v3"
	Dir    string // e.g. "server"
}

// Etcd is the etcd repository (github.com/etcd-io/etcd), 3.6 and later.
var Etcd = &Target{
	Name: "etcd",
	Repo: "etcd-io/etcd",
	Main: "go.etcd.io/etcd/server/v3",
	Layout: []Folder{
		{Module: "go.etcd.io/etcd/server/v3", Dir: "server"},
		{Module: "go.etcd.io/etcd/api/v3", Dir: "api"},
		{Module: "go.etcd.io/etcd/pkg/v3", Dir: "pkg"},
		{Module: "go.etcd.io/etcd/client/v3", Dir: "client/v3"},
		{Module: "go.etcd.io/etcd/client/pkg/v3", Dir: "client/pkg"},
		{Module: "go.etcd.io/etcd/etcdctl/v3", Dir: "etcdctl"},
	},
	Release:     `^v3\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`,
	ReleaseHint: "v3.7.3",
	VersionFile: "api/version/version.go",
	VersionVar:  "Version",
}

// IsRelease reports whether v is written as one of the target's release
// tags. A target without a Release pattern has no releases.
func (t *Target) IsRelease(v string) bool {
	if t.Release == "" {
		return false
	}
	re, ok := patterns.Load(t.Release)
	if !ok {
		c, err := regexp.Compile(t.Release)
		if err != nil {
			return false
		}
		re, _ = patterns.LoadOrStore(t.Release, c)
	}
	return re.(*regexp.Regexp).MatchString(v)
}

var patterns sync.Map // pattern -> *regexp.Regexp

// LayoutMap returns Layout as a map from module path to folder.
func (t *Target) LayoutMap() map[string]string {
	m := map[string]string{}
	for _, f := range t.Layout {
		m[f.Module] = f.Dir
	}
	return m
}

// Modules lists the modules of the layout, Main first.
func (t *Target) Modules() []string {
	out := []string{t.Main}
	for _, f := range t.Layout {
		if f.Module != t.Main {
			out = append(out, f.Module)
		}
	}
	return out
}

// Owns reports whether a package path lies in one of the target's modules.
func (t *Target) Owns(pkg string) bool {
	for _, f := range t.Layout {
		if pkg == f.Module || strings.HasPrefix(pkg, f.Module+"/") {
			return true
		}
	}
	return false
}

// Permalink is the GitHub address of a repo-relative file at ref (a tag
// or a commit), at a line (0: none) or a range of lines.
func (t *Target) Permalink(ref, file string, line, end int) string {
	u := fmt.Sprintf("https://github.com/%s/blob/%s/%s", t.Repo, ref, file)
	switch {
	case line > 0 && end > line:
		u += fmt.Sprintf("#L%d-L%d", line, end)
	case line > 0:
		u += fmt.Sprintf("#L%d", line)
	}
	return u
}
