// Package report holds the plain data that srctrace reports: what the
// renderers in package annotate print and what the JSON output carries.
//
// Every file is a repo-relative path with '/' separators, as `git grep -n`
// prints it from the root of an etcd checkout. Lines and columns are 1-based.
// The types hold no pointers into the analysis; a Report read back from JSON
// renders exactly like the one the analysis produced.
package report

import "encoding/json"

// Report is the result of one study on one etcd source.
type Report struct {
	Study    Study    `json:"study"`
	Etcd     Etcd     `json:"etcd"`
	Packages []string `json:"packages"` // loaded from source, sorted
	Citation Citation `json:"citation"`
	Files    []File   `json:"files"`
	Sites    []Site   `json:"sites"`
	Entries  []Entry  `json:"entries"`
	// EntriesAbsent are the study's optional entries this release lacks.
	EntriesAbsent []AbsentEntry `json:"entries_absent,omitempty"`
	Boundaries    []Boundary    `json:"boundaries"`
	Paths         []PairPaths   `json:"paths"`
	// Invariants are the relations of the store's fields that the
	// verdicts used, each with the writes that justify it.
	Invariants []Invariant `json:"invariants,omitempty"`
	Behaviours []Behaviour `json:"behaviours"`
	// Signal follows the sentinel's meaning layer by layer.
	Signal *Signal `json:"signal,omitempty"`
	// Lab is what a run of the lab observed, when it was asked for: the
	// study's own record (lab.Record) as JSON, which the study reads.
	Lab json.RawMessage `json:"lab,omitempty"`
	// Observe is the coverage run, when it was asked for.
	Observe *Observe `json:"observe,omitempty"`
	// Layers follows the signal past etcd into the code that consumes it
	// (Kubernetes), when it was asked for.
	Layers *Layers `json:"layers,omitempty"`
	// Notes is the study's notes, composed from the rest of the report:
	// what the Markdown and HTML outputs render.
	Notes *Doc `json:"notes,omitempty"`
}

// Observe is a coverage run of the lab's behaviours.
type Observe struct {
	Release string       `json:"release"`
	Binary  string       `json:"binary"`
	Built   bool         `json:"built"`
	BuildMs int64        `json:"build_ms,omitempty"`
	Runs    []ObserveRun `json:"runs"`
	// Only lists, per behaviour, what ran there and not in the baseline.
	Only []ObserveOnly `json:"only"`
	// Disagreements are where static paths and the run disagree.
	Disagreements []Disagreement `json:"disagreements"`
	// Decided names, per behaviour, the decisions whose guarded signal or
	// sentinel line ran there and not in the baseline.
	Decided []Decided `json:"decided"`
	// Chains counts, per behaviour, the measured steps of its chain that ran.
	Chains []ChainRun `json:"chains"`
}

// Decided is a decision that took effect in a behaviour at run time.
type Decided struct {
	Behaviour  string `json:"behaviour"`
	Comparison string `json:"comparison"`
	File       string `json:"file"`
	Line       int    `json:"line"`
	Guarded    string `json:"guarded"` // file:line of what it guards
}

// ChainRun is a chain's steps at run time.
type ChainRun struct {
	Behaviour string   `json:"behaviour"`
	Measured  int      `json:"measured"`
	Ran       int      `json:"ran"`
	NotRan    []string `json:"not_ran"` // file:line label
}

// ObserveRun is one behaviour's run.
type ObserveRun struct {
	Behaviour string `json:"behaviour"`
	Ms        int64  `json:"ms"`
	Blocks    int    `json:"blocks"`
	Ran       int    `json:"ran"`
}

// ObserveOnly is what ran only in one behaviour.
type ObserveOnly struct {
	Behaviour string   `json:"behaviour"`
	Lines     []string `json:"lines"` // file:line, with what is there
}

// Disagreement is a site or comparison where static and dynamic differ.
type Disagreement struct {
	Behaviour string `json:"behaviour"`
	// Kind is "static-only" (reachable from the behaviour's entries, did
	// not run) or "dynamic-only" (ran, no static path explains it).
	Kind string `json:"kind"`
	What string `json:"what"`
	File string `json:"file"`
	Line int    `json:"line"`
}

// Study names the study and its sentinel.
type Study struct {
	Name     string `json:"name"`
	Title    string `json:"title"`
	Summary  string `json:"summary"`
	Sentinel string `json:"sentinel"`
}

// Etcd says what was loaded.
type Etcd struct {
	Version string `json:"version"`
	Source  string `json:"source"` // "module" or "dir"
	// Dirty is set for a checkout with uncommitted changes to tracked
	// files (Version then ends in "-dirty").
	Dirty bool `json:"dirty,omitempty"`
	// Modules are the Go modules loaded, with the folder of each.
	Modules []Module `json:"modules"`
	// Missing lists modules the source could not provide, with the reason.
	Missing []Module `json:"missing,omitempty"`
	// Repo is the GitHub repository ("owner/name") and Ref the tag or
	// commit at which the files are published: permalinks are
	// https://github.com/<repo>/blob/<ref>/<file>#L<line>. Ref is empty
	// when the source has no published name (a checkout's local changes).
	Repo string `json:"repo,omitempty"`
	Ref  string `json:"ref,omitempty"`
}

// Module is one etcd Go module.
type Module struct {
	Path   string `json:"path"`
	Folder string `json:"folder"`
	Reason string `json:"reason,omitempty"`
}

// Citation is the exercise's git grep, evaluated on the loaded release.
type Citation struct {
	Step    string     `json:"step"`
	Command string     `json:"command"`
	Lines   []GrepLine `json:"lines"`
	Files   []string   `json:"files"`
}

// GrepLine is one line as `git grep -n` prints it.
type GrepLine struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Text string `json:"text"`
	// Site is the index in Report.Sites of the use on this line, or -1 when
	// the line holds the name but no use of the sentinel (a comment, say).
	Site int `json:"site"`
	// Behaviours gives the line's role in each of the exercise's
	// behaviours: "runs" (a path that can run with the behaviour's
	// requests reaches it), "value" (a declaration whose object a use that
	// runs returns, compares or looks up), or "no".
	Behaviours map[string]string `json:"behaviours,omitempty"`
}

// File is one file the study cites.
type File struct {
	File    string `json:"file"`
	Present bool   `json:"present"`
	Sites   int    `json:"sites"`
}

// Site is one use of the sentinel.
type Site struct {
	File     string  `json:"file"`
	Line     int     `json:"line"`
	Column   int     `json:"column"`
	Function string  `json:"function"` // qualified; "" at package level
	Kind     string  `json:"kind"`
	Text     string  `json:"text"`
	Cited    bool    `json:"cited"` // in a file the citation greps
	Excerpt  Excerpt `json:"excerpt"`
	// Observed says, per behaviour, whether the line ran (--observe).
	Observed map[string]bool `json:"observed,omitempty"`
	// Roots are the roots found from the code that reach the use by the
	// shortest feasible path, when they are nearer than every study entry
	// that does (entry names).
	Roots []string `json:"roots,omitempty"`
	// Init is set for a use in package-level code, which runs once at
	// package initialisation rather than through calls.
	Init bool `json:"init,omitempty"`
	// Dynamic marks a call that reaches the object through an interface
	// method or a function value (srctrace why): Via is what the call
	// names there. Impl is the implementation of an interface method
	// whose use this is.
	Dynamic bool   `json:"dynamic,omitempty"`
	Via     string `json:"via,omitempty"`
	Impl    string `json:"impl,omitempty"`
	// NoWay, when no root reaches the use by a way that can run (srctrace
	// why), is the nearest root that reaches it only by ways that cannot.
	NoWay *NoWay `json:"no_way,omitempty"`
	// Undecided are the nearest roots that reach the use by ways the
	// analysis could not decide (srctrace why), with why not: they are
	// not among Roots, and not refuted.
	Undecided []NoWay `json:"undecided,omitempty"`
}

// NoWay is a root that reaches a use only by ways that cannot run: how
// (by "calls" or across a "hand-off", named), and what refutes its best
// way.
type NoWay struct {
	Root    string `json:"root"` // short name
	By      string `json:"by"`
	HandOff string `json:"hand_off,omitempty"`
	// Message is the fields the hand-off's message sets ("Compaction").
	Message string   `json:"message,omitempty"`
	Because *Because `json:"because"`
	// Crossing and Hops are the way, of a root not decided (undecided):
	// the legs to its hand-offs, then the calls after the last.
	Crossing []Crossing `json:"crossing,omitempty"`
	Hops     []Hop      `json:"hops,omitempty"`
	// OnlyIf and Asks are what the way needs beside what is not decided,
	// after its last hand-off (or from the root, by calls): the
	// conditions of state and what it asks of the request.
	OnlyIf []Cond `json:"only_if,omitempty"`
	Asks   []Cond `json:"asks,omitempty"`
}

// Excerpt is a few numbered source lines.
type Excerpt struct {
	First int      `json:"first"` // line number of Lines[0]
	Lines []string `json:"lines"`
}

// Entry is a function from which paths are traced.
type Entry struct {
	Name     string `json:"name"`
	Function string `json:"function"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Doc      string `json:"doc"`
	// Found is "study" for an entry the study names, "code" for a root
	// found from the code; Kind is what starts it: "grpc" (a method of a
	// gRPC service), "http" (an HTTP handler), "goroutine" (a function
	// started with go), or empty.
	Found string `json:"found,omitempty"`
	Kind  string `json:"kind,omitempty"`
	// Method is the gRPC method a root serves ("/etcdserverpb.KV/Range")
	// and Stubs the client functions that send it, as the generated code
	// declares them; Starter is where a goroutine is started (or a
	// handler registered), and StartUp the main function that reaches
	// that starter (srctrace why).
	Method  string   `json:"method,omitempty"`
	Stubs   []string `json:"stubs,omitempty"`
	Starter *Loc     `json:"starter,omitempty"`
	StartUp string   `json:"start_up,omitempty"`
	// Helper, for a goroutine a helper starts for the function Starter
	// hands it (GoAttach(f)), is the helper.
	Helper string `json:"helper,omitempty"`
	// Later says that StartUp reaches the starter only through a
	// goroutine it starts (the raft loop, on a message it receives), not
	// in its own goroutine at start-up.
	Later bool `json:"start_up_later,omitempty"`
	// HandsOff are the hand-offs a root's ways cross from it, each "the
	// NAME: what it does" (srctrace why): the raft loop's own code only
	// schedules the apply job.
	HandsOff []string `json:"hands_off,omitempty"`
}

// AbsentEntry is an entry of the study that the release lacks.
type AbsentEntry struct {
	Name     string `json:"name"`
	Function string `json:"function"`
	Doc      string `json:"doc"`
}

// Boundary is an asynchronous hand-off the call graph cannot follow.
type Boundary struct {
	Name   string `json:"name"`
	From   string `json:"from"` // qualified function that hands off
	Via    string `json:"via"`  // the call that hands off
	To     string `json:"to"`   // entry name on the other side
	File   string `json:"file"` // position of the hand-off call
	Line   int    `json:"line"`
	Column int    `json:"column"`
	Doc    string `json:"doc"`
	// Message is the qualified type of the message the hand-off carries,
	// when it carries one (a raft proposal's request); a hand-off without
	// one (a scheduled job) hands its receiver the state it holds, which
	// any of the receiver's ways may take.
	Message string `json:"message,omitempty"`
}

// SiteRef points at a site.
type SiteRef struct {
	Index int    `json:"index"` // in Report.Sites
	File  string `json:"file"`
	Line  int    `json:"line"`
}

// PairPaths answers one (entry, site) pair.
type PairPaths struct {
	Entry     string  `json:"entry"`
	Site      SiteRef `json:"site"`
	Reachable bool    `json:"reachable"`
	// Paths are up to k shortest call paths, shortest first.
	Paths [][]Hop `json:"paths,omitempty"`
	// Hops is the first (shortest) path, for readers that want one.
	Hops []Hop `json:"hops"`
	// Why explains an unreachable pair: "definition" (the declaration of
	// the sentinel), "init" (package-level code, such as a map literal, run
	// once at package initialisation), or "unreachable".
	Why string `json:"why,omitempty"`
	// Crossing is set when the pair is connected only through asynchronous
	// hand-offs: the call graph reaches each boundary's sending side, and
	// the entry on the other side reaches the site.
	Crossing []Crossing `json:"crossing,omitempty"`
	// Also are the other crossings that can run and hand off another kind
	// of message than Crossing's (a sender that proposes both an alarm
	// and a compaction, say), each with its verdict.
	Also []AlsoCrossing `json:"also,omitempty"`
	// Feasible is the best verdict of the pair's paths (or of its
	// crossing): "yes", "only-if", "unknown" or "no"; empty when nothing
	// connects the pair. Because is the condition that decides it.
	Feasible string   `json:"feasible,omitempty"`
	Because  *Because `json:"because,omitempty"`
	// Ways are the paths checked, each with its verdict: the k shortest,
	// and the shortest of the best verdict when it is not among them (for
	// a crossing: the receiving entry's paths to the site).
	Ways []Way `json:"ways,omitempty"`
	// Best is the index in Ways of the way whose verdict is the pair's
	// (the first of the best verdict; of ways that can run only if, the
	// first that needs the fewest conditions of state).
	Best int `json:"best,omitempty"`
	// Searched is how many paths were checked; Cut says the search
	// stopped at its bound without finding a yes.
	Searched int  `json:"searched,omitempty"`
	Cut      bool `json:"cut,omitempty"`
}

// Way is one call path with its verdict.
type Way struct {
	Hops     []Hop    `json:"hops"`
	Feasible string   `json:"feasible"`
	Because  *Because `json:"because,omitempty"`
	// OnlyIf are the conditions on server state the path needs.
	OnlyIf []Cond `json:"only_if,omitempty"`
	// Asks are the conditions the path needs that depend on the request
	// (the client's choice, given the state a condition compares it
	// with), in path order.
	Asks []Cond `json:"asks,omitempty"`
}

// Because is what decides a verdict: one condition of the path, and, for
// "no", the value the path fixes that makes it false. Text says it in a
// few words; File and Line are where the deciding value is fixed (a
// constant argument, a literal), or the condition's place.
type Because struct {
	Text string `json:"text"`
	File string `json:"file"`
	Line int    `json:"line"`
	// Cond is the condition, as written, where it is, the outcome the
	// path needs (want) and how it was decided: "false" (by a value the
	// path fixes), "excluded" (contradicts an earlier condition),
	// "unknown", "state" (server state only).
	Cond Cond `json:"cond"`
	// Near is, for an only-if, the path's last condition of state when it
	// is another one: the one nearest the use.
	Near *Cond `json:"near,omitempty"`
	// Refuted are, for a condition that cannot hold ("excluded"), what
	// the path already needs that rules it out; Implied, for one that
	// must hold, what makes it hold.
	Refuted []Reason `json:"refuted,omitempty"`
	// Pinned are, for an only-if that compares an operand the path leaves
	// one value with state, those operands: a part of the request (what
	// the path checked earlier leaves the client no choice), or a value
	// the path fixes; each with what fixes it.
	Pinned []Pin `json:"pinned,omitempty"`
}

// Pin is an operand of a comparison that a path leaves one value: a
// part of the request that what the path checked earlier leaves one
// value (Because says what), or a value the path fixes (fixed, at File
// and Line).
type Pin struct {
	Name    string   `json:"name"`
	Value   int64    `json:"value"`
	Fixed   bool     `json:"fixed,omitempty"`
	File    string   `json:"file,omitempty"`
	Line    int      `json:"line,omitempty"`
	Because []Reason `json:"because,omitempty"`
}

// Reason is one part of why a condition cannot hold: an earlier condition
// of the path ("condition"), a branch of a call whose result the path
// tests ("guard"), what a loop of such a call checked of every element
// ("forall"), a value the path fixes ("value"), an invariant of the store
// ("invariant"), a lock that keeps a field still ("lock").
type Reason struct {
	Kind string `json:"kind"`
	// Text is the reason in words, as the notes print it.
	Text string `json:"text"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Cond is the condition with the outcome needed (condition, guard,
	// forall).
	Cond *Cond `json:"cond,omitempty"`
	// Via are the calls whose results the reason is about, outermost
	// first, as written.
	Via []string `json:"via,omitempty"`
	// Returned is what the innermost of them returned, when constant.
	Returned string `json:"returned,omitempty"`
	// Invariant is the relation the store keeps ("invariant").
	Invariant string `json:"invariant,omitempty"`
}

// Invariant is a relation between two integer fields of a struct that
// every write of either keeps, found from the loaded code: A <= B + C
// while Lock is held.
type Invariant struct {
	Struct   string `json:"struct"`
	Relation string `json:"relation"` // "compactMainRev <= currentRev"
	Lock     string `json:"lock,omitempty"`
	// Writes are the writes of the two fields, each with why it keeps the
	// relation.
	Writes []InvariantWrite `json:"writes"`
}

// InvariantWrite is one write of a field of an invariant.
type InvariantWrite struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Function string `json:"function"`
	Why      string `json:"why"`
}

// Cond is a branch condition of a path.
type Cond struct {
	Text     string `json:"text"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Function string `json:"function,omitempty"`
	Want     bool   `json:"want"`
	Class    string `json:"class"`
	// Whole is the if statement's whole condition, when Text is a part
	// of it (`a` of `a && b`).
	Whole string `json:"whole,omitempty"`
	// Note says, for a condition of state that compares an operand the
	// path leaves one value, that value and what it leaves the condition
	// asking (", where `rev` can only be 0 on the runs that take it (…): so only if
	// `0 > curRev`"); text that quotes code in backticks.
	Note string `json:"note,omitempty"`
	// NotEmpty says that Text is a slice of server state a range loop
	// the path makes a pass of ranges over: the path needs it not empty
	// (Want is then true).
	NotEmpty bool `json:"not_empty,omitempty"`
	// Case says that Text is the communication of a select's case (a
	// receive, a send) that the path needs the select to take, where it
	// waits (Want is then true).
	Case bool `json:"select_case,omitempty"`
	// Either says that the condition is one of two alternatives the way
	// needs one of; Note says the other ("or else …").
	Either bool `json:"either,omitempty"`
	// Every, on a condition the way needs of the request inside a loop
	// it goes past, is the slice the loop ranges over: the way needs the
	// outcome for every element.
	Every string `json:"every,omitempty"`
	// Passes, on a condition the way needs of the request that tests
	// whether a call returned an error, is the call as written: the way
	// needs it to return none; Fails, the call where the way needs it to
	// return one. PassesMade, for a call of a function value, is where
	// the function it calls on the way is declared (a function literal
	// its caller hands down).
	// After, on a test of the request, says what a filter beside the way
	// leaves, which the test reads where the filter runs; text that
	// quotes code in backticks.
	After      string `json:"after,omitempty"`
	Passes     string `json:"passes,omitempty"`
	Fails      string `json:"fails,omitempty"`
	PassesMade *Loc   `json:"passes_made,omitempty"`
	// Erred, on a condition of state that tests the error of a call of
	// state, is the call as written: the way needs it to return an error
	// (where the analysis follows the call and lists a branch inside it
	// that leads to its error, the branch is listed instead).
	Erred string `json:"erred,omitempty"`
	// Unloaded, with Fails or Erred, says where the code the call runs is
	// when none of it is loaded from source, though it is the target's:
	// whether it can fail is not known.
	Unloaded string `json:"unloaded,omitempty"`
}

// AlsoCrossing is another crossing of a pair: its legs and its verdict.
type AlsoCrossing struct {
	Crossing []Crossing `json:"crossing"`
	Feasible string     `json:"feasible"`
	Because  *Because   `json:"because,omitempty"`
}

// Crossing is one leg across an asynchronous boundary.
type Crossing struct {
	Boundary string `json:"boundary"`
	From     string `json:"from"` // entry whose call graph reaches the hand-off
	To       string `json:"to"`   // entry on the other side
	// Function hands off, at File:Line (the boundary's call).
	Function string `json:"function"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	// Hops lead from From to Function.
	Hops []Hop `json:"hops"`
	// Feasible is the verdict on Hops up to the hand-off call; Because
	// decides it. Message lists the fields that the message it hands off
	// sets (a typed boundary), and MessageAt where that message is made.
	Feasible string   `json:"feasible"`
	Because  *Because `json:"because,omitempty"`
	// OnlyIf are the conditions on server state the leg needs, in the
	// order the path meets them.
	OnlyIf []Cond `json:"only_if,omitempty"`
	// Asks are the conditions the leg needs that depend on the request,
	// in path order (see Way).
	Asks      []Cond   `json:"asks,omitempty"`
	Message   []string `json:"message,omitempty"`
	MessageAt *Loc     `json:"message_at,omitempty"`
	// Carried is false when the hand-off does not carry the receiving
	// entry at all (a scheduled job that runs something else).
	Carried bool `json:"carried"`
}

// Hop is one call: the callee and the call site in the caller.
type Hop struct {
	Function  string `json:"function"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	Goroutine bool   `json:"goroutine"`
	Dynamic   bool   `json:"dynamic"`
	// Observed says, per behaviour, whether the call site ran.
	Observed map[string]bool `json:"observed,omitempty"`
}

// Behaviour is one lab behaviour and the code that belongs to it.
type Behaviour struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Lab     string   `json:"lab"`
	Prose   string   `json:"prose"`
	Entries []string `json:"entries"`
	// Observed names the lab section that shows this behaviour.
	Observed string `json:"observed,omitempty"`
	// Setup are the entries the lab's setup runs for it (a compaction).
	Setup []string `json:"setup,omitempty"`
	// Unset are the fields its requests leave at zero; Probe marks a
	// demonstration the lab adds, not one of the exercise's behaviours.
	Unset []string `json:"unset,omitempty"`
	Probe bool     `json:"probe,omitempty"`
	// Sites are the indices of the sites reachable from the entries.
	Sites []int `json:"sites"`
	// CitedNotReached are cited sites that none of the entries reaches.
	CitedNotReached []int `json:"cited_not_reached"`
}
