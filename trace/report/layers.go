package report

import "encoding/json"

// Layers is the signal followed past the target into the code of another
// repository that consumes it (Kubernetes past etcd): which release of the
// consumer was read and why, and what its code does with the signal, hop
// by hop. Every Loc of a hop names its own repository and tag.
type Layers struct {
	// Target names the consumer ("kubernetes"); Release is the release
	// read, "" when none was.
	Target  string `json:"target"`
	Release string `json:"release,omitempty"`
	// Producer is the release of the target consumed (the etcd release).
	Producer string `json:"producer"`
	// Absent says in one sentence why no consumer release was read (none
	// can be had, or none fits the producer's release); the rest is then
	// empty, but for Fit when the pairing got that far.
	Absent string     `json:"absent,omitempty"`
	Fit    *LayersFit `json:"fit,omitempty"`
	// Modules are the consumer's modules loaded, and Producer's modules as
	// the consumer's work module selected them.
	Modules []LayerModule `json:"modules,omitempty"`
	// Layers names the layers in order, each with the packages read.
	Layers []Layer `json:"layers,omitempty"`
	// Hops are what the code does with the signal, each an answer to one of
	// the study's questions (Role).
	Hops []LayerHop `json:"hops,omitempty"`
	// Verdict is the study's reading of the hops, and Claim the exercise's
	// claim it decides.
	Verdict *Verdict `json:"verdict,omitempty"`
	Claim   *Claim   `json:"claim,omitempty"`
	// Lab is the record of the consumer's lab, when it ran: the study's
	// own type as JSON, which the study reads. LabMs is how long the run
	// took, LabBuildMs how long building its program took (0: it was
	// already built).
	Lab        json.RawMessage `json:"lab,omitempty"`
	LabMs      int64           `json:"lab_ms,omitempty"`
	LabBuildMs int64           `json:"lab_build_ms,omitempty"`
}

// LayersFit is how the consumer's release was paired with the producer's:
// Module's go.mod requires Requires at At.
type LayersFit struct {
	Module   string `json:"module"`
	Requires string `json:"requires"`
	At       string `json:"at"`
	// Named is set when the user named the release; otherwise it is the
	// newest that fits among the releases listed by Among ("proxy" or
	// "module cache").
	Named bool   `json:"named,omitempty"`
	Among string `json:"among,omitempty"`
	// Passed are the newer releases read and passed over, with what each
	// requires.
	Passed []LayerModule `json:"passed,omitempty"`
}

// LayerModule is a module at a release; Repo is where it is published,
// Requires what it requires of the fit's module (a release passed over).
type LayerModule struct {
	Path     string `json:"path"`
	Version  string `json:"version"`
	Repo     string `json:"repo,omitempty"`
	Requires string `json:"requires,omitempty"`
}

// Layer is one layer of the consumer: a name and the packages read.
type Layer struct {
	Name     string   `json:"name"`
	Packages []string `json:"packages"`
}

// LayerHop is one thing the consumer's code does with the signal, at Loc.
//
// Kind says what it is: "returns" (a function returns Object when Cond
// holds), "call" (the value is handed to Object), "by-value" (compared with
// the sentinel Object), "by-text" (its text tested by Object for Value),
// "log" (a log call of Level and Verbosity, format Value), "becomes" (the
// constructor Object makes what the path returns, with message Value),
// "field" (a field Object of what a constructor builds, Value its
// constant), "event" (an event made with kind Object), "send" (sent on a
// channel), "receives" (an event's kind compared with Object), "error" (an
// event's object made an error by Object), "classifies" (the predicate
// Object decides a branch), "tests" (a predicate compares with constant
// Object = Value), "return" (the branch returns Value from Object),
// "caller" (Object calls the function before it), "calls" (a call of
// Object, with constant arguments Args), "default" (a table's default
// for Object is Value), "write" (a field Object is written with Value).
type LayerHop struct {
	Role     string `json:"role"`
	Layer    string `json:"layer"`
	Kind     string `json:"kind"`
	Loc      Loc    `json:"loc"`
	Object   string `json:"object,omitempty"`
	Value    string `json:"value,omitempty"`
	Constant string `json:"constant,omitempty"` // the named constant Value comes from
	// Level is a log call's level ("error", "warning", "info"), and
	// Verbosity its V level when it logs at one.
	Level     string `json:"level,omitempty"`
	Verbosity int    `json:"v,omitempty"`
	// Cond are the conditions (as written, "!" for the false edge) under
	// which it happens inside its function, outermost first.
	Cond []string `json:"cond,omitempty"`
	// Args are a call's arguments as written, constants with their value.
	Args []string `json:"args,omitempty"`
	// Match is set for a "tests" hop whose constant is one the signal's
	// status carries, and for a "by-text" hop whose text is in the
	// sentinel's.
	Match bool `json:"match,omitempty"`
	// Of is the predicate a "tests" or "return" hop belongs to.
	Of string `json:"of,omitempty"`
	// Under says, for a "log" hop, whether it runs only when the value is
	// recognised ("by-text", "by-value") or only when it is not ("not
	// by-text", ...); "" when neither.
	Under string `json:"under,omitempty"`
}
