package trace

import (
	"fmt"
	"go/token"
	"sort"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/report"
)

// excerptLines is how many lines an excerpt shows either side of a site.
const excerptLines = 2

// Report converts the result to plain report data. This is the one place
// where analysis objects become paths, lines and names.
func (r *Result) Report() (*report.Report, error) {
	st := r.Study
	rep := &report.Report{
		Study: report.Study{Name: st.Name, Title: st.Title, Summary: st.Summary, Sentinel: st.Sentinel},
		Etcd:  report.Etcd{Version: r.Source.Version, Source: r.Source.Kind, Dirty: r.Source.Dirty},
	}
	for m := range r.Source.Modules {
		rep.Etcd.Modules = append(rep.Etcd.Modules, report.Module{Path: m, Folder: r.Source.Folder(m)})
	}
	sort.Slice(rep.Etcd.Modules, func(i, j int) bool { return rep.Etcd.Modules[i].Path < rep.Etcd.Modules[j].Path })
	for m, why := range r.Source.Missing {
		rep.Etcd.Missing = append(rep.Etcd.Missing, report.Module{Path: m, Folder: st.LayoutMap()[m], Reason: why})
	}
	sort.Slice(rep.Etcd.Missing, func(i, j int) bool { return rep.Etcd.Missing[i].Path < rep.Etcd.Missing[j].Path })
	for _, p := range r.Pkgs {
		rep.Packages = append(rep.Packages, p.PkgPath)
	}

	c := st.Citation
	rep.Citation = report.Citation{Step: c.Step, Command: GrepCommand(c.Pattern, c.Files), Files: c.Files, Lines: []report.GrepLine{}}
	for _, h := range r.Grep {
		rep.Citation.Lines = append(rep.Citation.Lines, report.GrepLine{File: h.Repo, Line: h.Line, Text: h.Text, Site: h.Site})
	}
	for _, f := range r.Files {
		rep.Files = append(rep.Files, report.File{File: f.Repo, Present: f.Present, Sites: f.Sites})
	}

	rep.Sites = []report.Site{}
	for _, s := range r.Sites {
		first, ex, err := r.lines.excerpt(s.Pos.Filename, s.Pos.Line, excerptLines, excerptLines)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.Repo, err)
		}
		fn := ""
		if s.Func != nil {
			fn = callpath.Name(s.Func)
		}
		rep.Sites = append(rep.Sites, report.Site{
			File: s.Repo, Line: s.Pos.Line, Column: s.Pos.Column,
			Function: fn, Kind: string(s.Kind), Text: s.Text, Cited: s.Cited,
			Excerpt: report.Excerpt{First: first, Lines: ex},
		})
	}

	for _, e := range r.Entries {
		rep.Entries = append(rep.Entries, report.Entry{
			Name: e.Name, Function: callpath.Name(e.Func), Doc: e.Doc,
			File: r.Source.RepoPath(e.Pos.Filename), Line: e.Pos.Line,
		})
	}
	rep.Boundaries = []report.Boundary{}
	for _, b := range r.Boundaries {
		pos := b.Calls[0]
		rep.Boundaries = append(rep.Boundaries, report.Boundary{
			Name: b.Name, From: b.Boundary.From, Via: b.Via, To: b.To, Doc: b.Doc,
			File: r.Source.RepoPath(pos.Filename), Line: pos.Line, Column: pos.Column,
		})
	}

	rep.Paths = []report.PairPaths{}
	for _, p := range r.Pairs {
		s := r.Sites[p.Site]
		pp := report.PairPaths{
			Entry:     r.Entries[p.Entry].Name,
			Site:      report.SiteRef{Index: p.Site, File: s.Repo, Line: s.Pos.Line},
			Reachable: len(p.Paths) > 0,
			Why:       p.Why,
			Hops:      []report.Hop{},
		}
		for i, path := range p.Paths {
			hs := r.hops(path)
			pp.Paths = append(pp.Paths, hs)
			if i == 0 {
				pp.Hops = hs
			}
		}
		for _, l := range p.Crossing {
			b := r.Boundaries[l.Boundary]
			pp.Crossing = append(pp.Crossing, report.Crossing{
				Boundary: b.Name,
				From:     r.Entries[l.From].Name,
				To:       r.Entries[l.To].Name,
				Function: callpath.Name(b.From),
				File:     r.Source.RepoPath(b.Calls[0].Filename),
				Line:     b.Calls[0].Line,
				Hops:     r.hops(l.Path),
			})
		}
		rep.Paths = append(rep.Paths, pp)
	}

	for _, b := range st.Behaviours {
		rb := report.Behaviour{ID: b.ID, Title: b.Title, Lab: b.Lab, Prose: b.Prose, Entries: b.Entries, Observed: b.Observed, Setup: b.Setup,
			Sites: []int{}, CitedNotReached: []int{}}
		for si, s := range r.Sites {
			reached := false
			for _, name := range b.Entries {
				if ei := r.entryIndex(name); ei >= 0 && s.Func != nil && r.Entries[ei].Reach[s.Func] {
					reached = true
				}
			}
			switch {
			case reached:
				rb.Sites = append(rb.Sites, si)
			case s.Cited:
				rb.CitedNotReached = append(rb.CitedNotReached, si)
			}
		}
		rep.Behaviours = append(rep.Behaviours, rb)
	}
	rep.Signal = r.reportSignal()
	return rep, nil
}

func (r *Result) hops(p callpath.Path) []report.Hop {
	hs := []report.Hop{}
	for _, h := range p {
		hs = append(hs, r.hop(h.Callee, h.Pos, h.Goroutine, h.Dynamic))
	}
	return hs
}

func (r *Result) hop(callee *ssa.Function, pos token.Position, goroutine, dynamic bool) report.Hop {
	return report.Hop{
		Function: callpath.Name(callee),
		File:     r.Source.RepoPath(pos.Filename), Line: pos.Line, Column: pos.Column,
		Goroutine: goroutine, Dynamic: dynamic,
	}
}

// GrepCommand is the citation as a shell command.
func GrepCommand(pattern string, files []string) string {
	return fmt.Sprintf("git grep -n '%s' -- %s", pattern, strings.Join(files, " "))
}
