// Package report holds the plain data that srctrace reports: what the
// renderers in package annotate print and what the JSON output carries.
//
// Every file is a repo-relative path with '/' separators, as `git grep -n`
// prints it from the root of an etcd checkout. Lines and columns are 1-based.
// The types hold no pointers into the analysis; a Report read back from JSON
// renders exactly like the one the analysis produced.
package report

// Report is the result of one study on one etcd source.
type Report struct {
	Study      Study       `json:"study"`
	Etcd       Etcd        `json:"etcd"`
	Packages   []string    `json:"packages"` // loaded from source, sorted
	Citation   Citation    `json:"citation"`
	Files      []File      `json:"files"`
	Sites      []Site      `json:"sites"`
	Entries    []Entry     `json:"entries"`
	Boundaries []Boundary  `json:"boundaries"`
	Paths      []PairPaths `json:"paths"`
	Behaviours []Behaviour `json:"behaviours"`
	// Signal follows the sentinel's meaning layer by layer.
	Signal *Signal `json:"signal,omitempty"`
	// Lab is what a run of the lab observed, when it was asked for.
	Lab *Lab `json:"lab,omitempty"`
	// Observe is the coverage run, when it was asked for.
	Observe *Observe `json:"observe,omitempty"`
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
	// Sites are the indices of the sites reachable from the entries.
	Sites []int `json:"sites"`
	// CitedNotReached are cited sites that none of the entries reaches.
	CitedNotReached []int `json:"cited_not_reached"`
}
