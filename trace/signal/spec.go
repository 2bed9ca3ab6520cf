package signal

import "time"

// Spec names the objects along which a study follows the meaning of its
// sentinel: the revision it is about, the response fields that carry it out,
// the loops and hand-offs between them, the client's error and the command
// line tool that prints it. Names only; every position is found.
type Spec struct {
	// Revision is the store's compaction revision field ("pkg.T.field").
	// Comparisons of a revision against a value derived from it decide.
	Revision string
	// Current is the store's current revision field: where the compaction
	// revision is written, a comparison with it bounds the compaction.
	Current string
	// Fields carry the signal in responses, from the server's own type to
	// the wire and the client ("pkg.T.field" each).
	Fields []string
	// Cancel, Created and Reason are the wire response's flag and text
	// fields ("pkg.T.field").
	Cancel, Created, Reason string

	// Progress and Start are the watcher's fields for the next revision it
	// needs and the revision it asked for (Start may not exist in a release).
	Progress, Start string
	// Groups are the collections of watchers ("pkg.T.field"); Behind is the
	// one behind watchers are put in.
	Groups []string
	Behind string

	// Channel is the element type of the channel the decision sends on.
	Channel string

	// Open and Sync are the entry names of the watch-open path and the sync
	// loop; Recv and Send are the watch stream's receive and send loops
	// (qualified functions). The hand-offs are looked up between them.
	Open, Sync string
	Recv, Send string
	// Read is the entry name of the historical read.
	Read string

	// ClientErr is the client response's error method; ClientBuffer the
	// field where the client buffers responses.
	ClientErr, ClientBuffer string
	// ClientRecv is the client's receive loop (it switches over each wire
	// response), ClientServe the function that hands responses to the
	// user, ClientOut the field of the user's channel, ClientResume the
	// function with which the client watches again.
	ClientRecv, ClientServe, ClientOut, ClientResume string
	// ClientCreatedOpt is the client option that asks for created
	// responses ("pkg.Func"); ClientConvert the function with which the
	// client turns a server's error into its own.
	ClientCreatedOpt, ClientConvert string

	// Victims is the field of the third set of watchers, those whose
	// channel was full when a response was due; VictimFlag the watcher's
	// flag that says it is in that set ("pkg.T.field" each).
	Victims, VictimFlag string
	// Compacted is the watcher's flag the decision sets when it cancels
	// the watcher ("pkg.T.field").
	Compacted string
	// Fragment is the wire response's flag for a response split in parts;
	// Events the responses' events fields, the channel's then the wire's.
	Fragment string
	Events   []string
	// ClientCancel is the wire request type with which the client cancels
	// a watch; ClientClose the function that closes the client's stream.
	ClientCancel, ClientClose string
	// ClientRetry is the function that makes the client's retrying
	// interceptor for unary calls, ClientLog the logger method it reports
	// a failed attempt with, ClientSafeRetry the function that decides
	// whether an error is tried again.
	ClientRetry, ClientLog, ClientSafeRetry string
	// Removal is the function that removes compacted revisions; Schedule
	// the interface method that hands a job to a scheduler.
	Removal, Schedule string

	// Tool is the command line tool's layer.
	Tool ToolSpec

	// Pacing are the objects that pace a replay: a variable or constant
	// ("pkg.name"), or a call in an entry ("entry:pkg.Func", its first
	// argument).
	Pacing []Pace

	// Load lists further packages to load from source for the layers.
	Load []string

	// Replay, when set, is checked against the pacing: does the replay
	// last until the compaction is typed?
	Replay *Replay
}

// ToolSpec names the command line tool's functions.
type ToolSpec struct {
	Name string // "etcdctl"
	// Watch and Get are the command functions of a watch and a get.
	Watch, Get string
	// Exit is the function that prints an error and exits.
	Exit string
	// Failing is the client call whose error the get command handles.
	Failing string
	// JSON is the function that prints a response as JSON; Printers the
	// function that chooses a printer by the output format's name.
	JSON, Printers string
	// Typed are the tool's commands as the exercise types them, the words
	// after the tool's name ("endpoint status").
	Typed []string
}

// Pace is one object that paces a replay.
type Pace struct {
	Name   string // what it means, in a few words
	Object string // "pkg.name", or "entry-name:pkg.Func" for a call's first argument
	// Role is "batch" for the revisions one pass sends a behind watcher,
	// "period" for the time between passes, or empty.
	Role string
}

// Replay is the exercise's replay, by hand: how many revisions the behind
// watcher is behind when it opens, and how soon after opening it a person
// types the compaction in another terminal.
type Replay struct {
	Revisions  int
	TypedAfter time.Duration
	// Short is how many revisions before the head the compaction is to
	// (the exercise compacts to N-10): once the watcher's progress reaches
	// that revision, the compaction can no longer evict it.
	Short int
	// Quiet is set when the exercise writes no key between its setup and
	// its teardown: none while its watches open, none after its compaction.
	Quiet bool
}
