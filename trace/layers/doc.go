// Package layers follows a study's signal past its target into the code
// of another repository that consumes it: Kubernetes past etcd. It pairs
// a release of the consumer with the target's release, loads it beside
// that release, and answers the study's questions from the loaded code.
//
// # Which release
//
// The consumer's target says how one of its releases fits a release of
// the producer (target.Fit): by what one module's go.mod requires of the
// producer. Run reads the releases the module proxy lists (or the module
// cache, offline), newest first, and takes the first whose requirement is
// in the producer's minor line and not later; a release the user names
// must fit too. The work module requires the producer's modules at its
// release and every consumer module at one release (source.Spec.With);
// the build list is read back, and a consumer that would make minimum
// version selection raise a producer module is refused. A release that
// cannot be had or does not fit is one sentence (report.Layers.Absent),
// not an error.
//
// # What is answered
//
// A Spec names everything: the layers and their packages (read from
// source; the others come from export data), the sentinel, the status and
// event types, the logging functions with their levels, and the questions.
// Follow tracks the signal's value through a layer's functions (go/ssa)
// by calls, returns and stores, and records what happens to it: a
// comparison with the sentinel, a test of its text against the sentinel's
// own (read from its initializer), a log and its level, what it becomes
// (a constructor whose status fields are read from its body), the event
// it is sent as; then, by the identity of that event's kind constant or
// of that constructor, where the next layer takes it up, the predicates
// that classify it and the returns of their branches. Calls, Returns,
// Values, Writes, Composite and Table read declarations: the calls a
// function makes with their conditions and constant arguments, what it
// returns under which condition, the writes of a field, the fields of a
// composite literal (a variable's constant initializer too), a table's
// entry. Every answer is a report.LayerHop at a position in its own
// module's repository and tag.
//
// # The lab
//
// A consumer's lab is one program, built on demand in the consumer's work
// module and kept in the cache, run once with a bound; it prints its
// record and cleans up after itself, also when stopped (RunLab).
package layers
