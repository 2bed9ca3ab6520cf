package trace

import (
	"fmt"
	"go/token"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study"
)

// excerptLines is how many lines an excerpt shows either side of a site.
const excerptLines = 2

// Report converts the result to plain report data. This is the one place
// where analysis objects become paths, lines and names.
func (r *Result) Report() (*report.Report, error) {
	st := r.Study
	rep := &report.Report{
		Study: report.Study{Name: st.Name, Title: st.Title, Summary: st.Summary, Sentinel: st.Sentinel},
		Etcd:  r.etcd(st.Tgt()),
	}
	for _, p := range r.Pkgs {
		rep.Packages = append(rep.Packages, p.PkgPath)
	}

	c := st.Citation
	rep.Citation = report.Citation{Step: c.Step, Command: GrepCommand(c.Pattern, c.Files), Files: c.Files, Lines: []report.GrepLine{}}
	for i, h := range r.Grep {
		gl := report.GrepLine{File: h.Repo, Line: h.Line, Text: h.Text, Site: h.Site}
		if f := r.Findings; f != nil && i < len(f.Roles) {
			gl.Behaviours = f.Roles[i]
		}
		rep.Citation.Lines = append(rep.Citation.Lines, gl)
	}
	for _, f := range r.Files {
		rep.Files = append(rep.Files, report.File{File: f.Repo, Present: f.Present, Sites: f.Sites})
	}

	var err error
	if rep.Sites, err = r.reportSites(); err != nil {
		return nil, err
	}
	rep.Entries = r.reportEntries()
	for _, e := range r.Absent {
		rep.EntriesAbsent = append(rep.EntriesAbsent, report.AbsentEntry{Name: e.Name, Function: e.Function, Doc: e.Doc})
	}
	rep.Boundaries = []report.Boundary{}
	for _, b := range r.Boundaries {
		pos := b.Calls[0]
		rep.Boundaries = append(rep.Boundaries, report.Boundary{
			Name: b.Name, From: b.Boundary.From, Via: b.Via, To: b.To, Doc: b.Doc,
			File: r.Source.RepoPath(pos.Filename), Line: pos.Line, Column: pos.Column, Message: b.Boundary.Message,
		})
	}

	rep.Paths = r.reportPaths()
	rep.Invariants = r.invariants(r.Feas.Invariants())

	for _, b := range st.Behaviours {
		rb := report.Behaviour{ID: b.ID, Title: b.Title, Lab: b.Lab, Prose: b.Prose, Entries: b.Entries, Observed: b.Observed, Setup: b.Setup,
			Unset: b.Unset, Probe: b.Probe, Sites: []int{}, CitedNotReached: []int{}}
		for si, s := range r.Sites {
			v, _ := r.RunsIn(b, si)
			reached := v == feasible.Yes || v == feasible.OnlyIf
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

// reportSites converts the uses, with an excerpt of each.
func (r *Result) reportSites() ([]report.Site, error) {
	out := []report.Site{}
	for _, s := range r.Sites {
		first, ex, err := r.lines.excerpt(s.Pos.Filename, s.Pos.Line, excerptLines, excerptLines)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", s.Repo, err)
		}
		fn := ""
		if s.Func != nil {
			fn = callpath.Name(s.Func)
		}
		rs := report.Site{
			File: s.Repo, Line: s.Pos.Line, Column: s.Pos.Column,
			Function: fn, Kind: string(s.Kind), Text: s.Text, Cited: s.Cited,
			Excerpt: report.Excerpt{First: first, Lines: ex},
			Init:    s.Func != nil && s.Func.Synthetic == "package initializer",
			Dynamic: s.Dynamic, Via: s.Via, Impl: s.Impl,
		}
		for _, ei := range s.Roots {
			rs.Roots = append(rs.Roots, r.Entries[ei].Name)
		}
		if nw := s.NoWay; nw != nil && nw.Because != nil {
			rs.NoWay = &report.NoWay{Root: report.ShortName(nw.Root), By: nw.By, HandOff: nw.HandOff, Because: r.because(nw.Because)}
		}
		for _, u := range s.Undecided {
			nw := report.NoWay{Root: report.ShortName(u.Root), By: u.By, HandOff: u.HandOff, Message: u.Message, Because: r.because(u.Because),
				Crossing: r.crossings(u.Legs)}
			if len(u.Path) > 0 {
				nw.Hops = r.hops(u.Path)
			}
			for _, c := range u.Res.OnlyIfs() {
				nw.OnlyIf = append(nw.OnlyIf, r.cond(&c))
			}
			for _, c := range u.Res.Asks() {
				nw.Asks = append(nw.Asks, r.cond(&c))
			}
			rs.Undecided = append(rs.Undecided, nw)
		}
		out = append(out, rs)
	}

	return out, nil
}

// reportEntries converts the entries.
func (r *Result) reportEntries() []report.Entry {
	out := []report.Entry{}
	for _, e := range r.Entries {
		out = append(out, report.Entry{
			Name: e.Name, Function: callpath.Name(e.Func), Doc: e.Doc,
			File: r.Source.RepoPath(e.Pos.Filename), Line: e.Pos.Line,
			Found: e.Found, Kind: string(e.Kind),
		})
	}
	return out
}

// reportPaths converts the pairs.
func (r *Result) reportPaths() []report.PairPaths {
	out := []report.PairPaths{}
	for _, p := range r.Pairs {
		s := r.Sites[p.Site]
		pp := report.PairPaths{
			Entry:     r.Entries[p.Entry].Name,
			Site:      report.SiteRef{Index: p.Site, File: s.Repo, Line: s.Pos.Line},
			Reachable: len(p.Paths) > 0,
			Why:       p.Why,
			Hops:      []report.Hop{},
			Feasible:  string(p.Verdict),
			Because:   r.because(p.Because),
			Ways:      r.ways(p.Ways),
			Searched:  p.Searched,
			Cut:       p.Cut,
		}
		if len(p.Ways) > 0 {
			pp.Best = bestWayIndex(p.Ways)
		}
		for i, path := range p.Paths {
			hs := r.hops(path)
			pp.Paths = append(pp.Paths, hs)
			if i == 0 {
				pp.Hops = hs
			}
		}
		pp.Crossing = r.crossings(p.Crossing)
		for _, a := range p.Also {
			pp.Also = append(pp.Also, report.AlsoCrossing{Crossing: r.crossings(a.Legs), Feasible: string(a.Verdict), Because: r.because(a.Because)})
		}
		out = append(out, pp)
	}
	return out
}

// crossings are a chain of legs as report data.
func (r *Result) crossings(legs []study.Leg) []report.Crossing {
	var out []report.Crossing
	for _, l := range legs {
		b := r.Boundaries[l.Boundary]
		{
			out = append(out, report.Crossing{
				Boundary: b.Name,
				From:     r.Entries[l.From].Name,
				To:       r.Entries[l.To].Name,
				Function: callpath.Name(b.From),
				File:     r.Source.RepoPath(b.Calls[0].Filename),
				Line:     b.Calls[0].Line,
				Hops:     r.hops(l.Path),
				Feasible: string(l.Res.Verdict),
				Because:  r.because(l.Res.Because),
				Message:  l.Message.Fields(),
				Carried:  b.Carried,
			})
			for _, c := range l.Res.OnlyIfs() {
				out[len(out)-1].OnlyIf = append(out[len(out)-1].OnlyIf, r.cond(&c))
			}
			for _, c := range l.Res.Asks() {
				out[len(out)-1].Asks = append(out[len(out)-1].Asks, r.cond(&c))
			}
			if at := l.Message.At(); at.IsValid() && b.Msg != nil {
				file, line := r.position(at)
				out[len(out)-1].MessageAt = &report.Loc{File: file, Line: line, Text: r.literalText(at)}
			}
		}
	}
	return out
}
