package study

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/roots"
	"github.com/srctrace/srctrace/trace/signal"
	"github.com/srctrace/srctrace/trace/sites"
	"github.com/srctrace/srctrace/trace/source"
)

// Pass is what the engine found in one release, handed to a study's
// Analyze: the loaded program, the uses of the sentinel, the entries (the
// study's and the roots found from the code), the hand-offs, every
// (entry, site) pair with its paths and their feasibility, the
// citation's grep, and the signal's detectors' findings. It is the
// analysis.Pass of srctrace: the driver fills it, the study reads it.
type Pass struct {
	Study    *Study
	Source   *source.Source
	Pkgs     []*packages.Package // loaded from source
	Graph    *callpath.Graph
	Feas     *feasible.Checker
	Sentinel types.Object
	// Roots are the roots found from the code.
	Roots []roots.Root

	Sites   []Site
	Entries []EntryPoint
	// Absent are the study's optional entries the release lacks.
	Absent     []Entry
	Boundaries []HandOff
	Pairs      []Pair
	Grep       []GrepHit
	Files      []FileHit
	// Signal is what the detectors found, when the study has a Signal.
	Signal *signal.Result

	// Lines reads a line of a file of the source (1-based).
	Lines func(file string, line int) (string, error)
}

// Findings are what a study's Analyze concludes, as report data.
type Findings struct {
	Chains    []report.Chain
	Verdicts  []report.Verdict
	Claims    []report.Claim
	Corrected []report.Loc
	ErrorUses []report.ErrorUse
	// Roles are, per line of the citation's grep (in order), the line's
	// role in each behaviour: "runs", "value" or "no".
	Roles []map[string]string
}

// EntryIndex returns the index of the entry named name, or -1.
func (p *Pass) EntryIndex(name string) int {
	for i, e := range p.Entries {
		if e.Name == name {
			return i
		}
	}
	return -1
}

// Loc converts a position of the program to report data.
func (p *Pass) Loc(pos signal.Pos) report.Loc {
	l := report.Loc{Line: pos.Line, Column: pos.Column, Text: pos.Text}
	if pos.Filename != "" {
		l.File = p.Source.RepoPath(pos.Filename)
	}
	if pos.Func != nil {
		l.Function = callpath.Name(pos.Func)
	}
	return l
}

// Locs converts positions.
func (p *Pass) Locs(ps []signal.Pos) []report.Loc {
	out := []report.Loc{}
	for _, x := range ps {
		out = append(out, p.Loc(x))
	}
	return out
}

// Site is a use of the sentinel with its place in the program.
type Site struct {
	sites.Site
	Func  *ssa.Function // enclosing function; nil at package level
	Repo  string        // repo-relative file
	Text  string        // the source line
	Cited bool          // in a file of the citation
	// Instr is where Func evaluates the use: what a path must reach.
	Instr ssa.Instruction
	// Roots are the roots found from the code nearest to the site by a
	// feasible path, indices into Entries.
	Roots []int
	// Dynamic marks a call that reaches the object through an interface
	// method or a function value (found in the call graph, not by the
	// object's name): Via is what the call names (the interface method,
	// the function value). Impl is the implementation of the interface
	// method asked about whose use this is, when it is one.
	Dynamic   bool
	Via, Impl string
	// NoWay, when no root reaches the use by a way that can run, is the
	// nearest root found that reaches it by ways none of which can.
	NoWay *NoWay
	// Undecided are the nearest roots searched whose best way to the use
	// the analysis could not decide (at most the number of roots kept),
	// nearest first: they are not among the roots, and not refuted.
	Undecided []*NoWay
}

// NoWay is a root that reaches a use only by ways that cannot run: how
// (by calls, across a hand-off) and what refutes its best way.
type NoWay struct {
	Root    string // qualified function
	By      string
	HandOff string // the first hand-off crossed, when By is one
	// Message is the fields the first hand-off's message sets (a typed
	// hand-off's request kind), when it is a literal.
	Message string
	Because *feasible.Cond
	// Legs and Path are the way (of a root not decided): the legs to the
	// hand-offs it crosses, then the calls from the last one's receiving
	// side (or from the root, by calls).
	Legs []Leg
	Path callpath.Path
	// Res is the verdict of Path, with the conditions it needs beside the
	// one not decided.
	Res feasible.Result
}

// EntryPoint is a resolved entry point: one the study names, or a root
// found from the code.
type EntryPoint struct {
	Entry
	Func  *ssa.Function
	Pos   token.Position
	Reach map[*ssa.Function]bool
	// Found is "study" for the study's entries, "code" for a root found
	// from the code, "target" for the receiving side of a hand-off of the
	// target that is no other entry's; Kind is what starts it (grpc, http, goroutine), when
	// the code says.
	Found string
	Kind  roots.Kind
}

// HandOff is a resolved boundary.
type HandOff struct {
	Boundary
	From  *ssa.Function
	Calls []token.Position // the calls in From that match Via
	// Instrs are those calls (or channel sends), Sent the values a
	// channel hand-off's sends send; Msg and Dispatch the typed message
	// and the receiver's dispatch function, when the study names them;
	// Param is what holds the message at the first of Instrs: From's
	// parameter of its type, or the value a channel send sends.
	Instrs   []ssa.Instruction
	Sent     []ssa.Value
	Msg      types.Type
	Dispatch *ssa.Function
	Param    ssa.Value
	// Carried is false for a closure hand-off when no closure From makes
	// calls the receiving entry's function.
	Carried bool
}

// Pair is the answer for one (entry, site) pair.
type Pair struct {
	Entry, Site int
	// Paths are the k shortest call paths.
	Paths []callpath.Path
	// Ways are the paths checked for feasibility that the report shows:
	// the k shortest, and the shortest of the best verdict when it is not
	// among them. For a pair connected across hand-offs, they are the
	// receiving entry's paths to the site.
	Ways []Way
	// Verdict is the best verdict of the pair's paths (or of its
	// crossing), "" when nothing connects it; Because decides it.
	Verdict feasible.Verdict
	Because *feasible.Cond
	// Searched is how many paths the search for the best verdict checked;
	// Cut says the search stopped at its bound without a yes.
	Searched int
	Cut      bool
	// Why is "definition", "init" (package-level code, run once at
	// initialisation) or "unreachable" when Paths is empty.
	Why string
	// Crossing connects the pair across hand-offs, when the call graph
	// alone cannot.
	Crossing []Leg
	// Also are the other crossings that can run (not "no") and hand off
	// a message of another kind than Crossing's: each message kind of a
	// sender that reaches the use, with its own verdict.
	Also []Also
}

// Also is another crossing of a pair, with its verdict.
type Also struct {
	Legs    []Leg
	Verdict feasible.Verdict
	Because *feasible.Cond
}

// Way is one path with its verdict.
type Way struct {
	Path callpath.Path
	Res  feasible.Result
}

// Leg is one step across a boundary: From reaches the boundary's sending
// function along Path, and the boundary's To entry takes over.
type Leg struct {
	Boundary int
	From, To int
	Path     callpath.Path
	// Res is the verdict on Path up to the hand-off call; Message the
	// value it hands off, for a typed boundary.
	Res     feasible.Result
	Message *feasible.Value
}

// GrepHit is one line of the citation's git grep.
type GrepHit struct {
	Repo string
	Line int
	Text string
	Site int // index into Sites, or -1
}

// FileHit is one cited file.
type FileHit struct {
	Repo    string
	Present bool
	Sites   int
}

// RunsIn says whether use si runs in behaviour b: the best verdict of the
// call paths from b's entries to it, checked again with the fields that
// b's requests leave unset at their zero value, and the condition that
// decides it. Paths across hand-offs are not counted: a behaviour runs
// through its entries.
func (p *Pass) RunsIn(b Behaviour, si int) (feasible.Verdict, *feasible.Cond) {
	var zero []*types.Var
	for _, name := range b.Unset {
		if obj, _, err := p.Graph.Lookup(name); err == nil {
			if v, ok := obj.(*types.Var); ok && v.IsField() {
				zero = append(zero, v)
			}
		}
	}
	s := p.Sites[si]
	best, why := feasible.Verdict(""), (*feasible.Cond)(nil)
	for _, name := range b.Entries {
		ei := p.EntryIndex(name)
		if ei < 0 || s.Func == nil || !p.Entries[ei].Reach[s.Func] {
			continue
		}
		for _, pr := range p.Pairs {
			if pr.Entry != ei || pr.Site != si || len(pr.Crossing) > 0 {
				continue
			}
			for _, w := range pr.Ways {
				res, _ := p.Feas.Check(feasible.Path{Root: p.Entries[ei].Func, Hops: w.Path, Target: s.Instr, Zero: zero,
					RootState: p.Entries[ei].Found == "code" && p.Entries[ei].Kind == roots.Goroutine, ArgsNonNil: p.Entries[ei].Kind.ArgsNonNil()})
				if best == "" || feasible.Better(res.Verdict, best) {
					best, why = res.Verdict, res.Because
				}
			}
		}
	}
	return best, why
}
