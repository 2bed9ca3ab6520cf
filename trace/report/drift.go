package report

// Drift lines up every position that reports of one study cite (sites,
// entries, call hops, conditions, the signal's layers, chains, verdicts)
// across several releases, by what each position is rather than where.
type Drift struct {
	Study string `json:"study"`
	// Repo is the GitHub repository ("owner/name") of the releases.
	Repo string `json:"repo,omitempty"`
	// Releases are the releases compared, in semver order; every per
	// release list of a drift (Refs, DriftRow.At) is in this order.
	Releases []string `json:"releases"`
	// Refs are the tag or commit of each release at which its files are
	// published ("" when it has none: a checkout's local changes).
	Refs []string `json:"refs"`
	// Missing are the modules a release could not provide: positions in
	// their folders are not known there, rather than absent.
	Missing []DriftMissing `json:"missing,omitempty"`
	// Notes say what else a reader must know (a release that could not be
	// had, say).
	Notes []string `json:"notes,omitempty"`
	// Counts are the rows per change; Kinds the same per kind of position,
	// in the rows' order.
	Counts map[string]int `json:"counts"`
	Kinds  []DriftKind    `json:"kinds"`
	Rows   []DriftRow     `json:"rows"`
}

// DriftMissing is a module one release could not provide.
type DriftMissing struct {
	Release string `json:"release"`
	Module  string `json:"module"`
	Folder  string `json:"folder"`
	Reason  string `json:"reason,omitempty"`
}

// DriftKind is one kind of position: what it is, and its rows per change.
type DriftKind struct {
	Kind   string         `json:"kind"`
	Title  string         `json:"title"`
	Counts map[string]int `json:"counts"`
}

// DriftRow is one thing of the study across releases.
type DriftRow struct {
	// Kind is the sort of position, named after the part of the report
	// that cites it: "entry", "site", "hop", "comparison", "step", ...
	Kind string `json:"kind"`
	// Key names the thing independently of its line: the function (or the
	// file, outside functions), what it is there, the code text at the
	// first release that has it, and "#n" for the n-th such thing.
	Key string `json:"key"`
	// Function is the qualified function the position is in ("" outside
	// one); What is what the position is there, without its code.
	Function string `json:"function,omitempty"`
	What     string `json:"what"`
	// At holds, per release, file:line, or "" where the thing is not
	// there (or, for a release in Missing, not known).
	At []string `json:"at"`
	// Spans group consecutive releases where the thing is at one place
	// with one text, or is not there.
	Spans []DriftSpan `json:"spans"`
	// Change is one of the Drift* constants: how the thing changed.
	Change string `json:"change"`
}

// DriftSpan is a run of consecutive releases (From to To, inclusive)
// where a thing is at At with code Text; At is "" where it is not there,
// and Unknown is set where the release could not provide its module.
type DriftSpan struct {
	From    string `json:"from"`
	To      string `json:"to"`
	At      string `json:"at,omitempty"`
	Text    string `json:"text,omitempty"`
	Unknown bool   `json:"unknown,omitempty"`
}

// The changes of a DriftRow. A release whose module is missing counts for
// none of them: a row is judged on the releases that know it.
const (
	DriftSame      = "same"      // in every release, at one line, with one text
	DriftMoved     = "moved"     // in every release, with one text, not at one line
	DriftChanged   = "changed"   // in every release, but its code text differs between releases
	DriftAppeared  = "appeared"  // not in the first release, in the last
	DriftVanished  = "vanished"  // in the first release, not in the last
	DriftReturned  = "returned"  // in the first and last release, not in some between
	DriftTransient = "transient" // in neither the first nor the last release, in some between
)

// DriftChanges lists the changes in the order a reader wants them, with
// what each means.
var DriftChanges = []struct{ Change, Meaning string }{
	{DriftChanged, "there in every release, but its code differs between releases (a text change where the same thing stays)"},
	{DriftAppeared, "not there in the first release, there in the last"},
	{DriftVanished, "there in the first release, not in the last"},
	{DriftReturned, "there in the first and the last release, not in some release between"},
	{DriftTransient, "there only in releases between the first and the last"},
	{DriftMoved, "there in every release with the same code, at another line (or file) in some"},
	{DriftSame, "there in every release, at the same line with the same code"},
}
