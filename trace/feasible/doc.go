// Package feasible decides whether a call path can really run: whether
// the branches that lead from each function's entry to its next call on
// the path can all be taken, given what the path itself fixes.
//
// A call graph says that f calls g somewhere. A path through it is only a
// way the program can go when every branch on the way can be taken: a
// return guarded by `rev > 0` never fires on a path that passes 0 for rev.
// Check follows one path from its first function to a target instruction
// in the last one, binding each callee's parameters to the arguments at
// that path's call sites, and evaluates the conditions it must pass.
//
// # Conditions
//
// In each function of the path, the conditions are the branches whose
// taken edge dominates the call of the next function (in the last
// function, the target): an *ssa.If ends a block P, and its successor S
// has P as its only predecessor and dominates the target, so every run
// that reaches the target took that edge. This is the shape of x/tools'
// nilness analysis, which learns on each edge what holds there.
//
// # Values
//
// A value on the path is one of: a constant (fixed by the code, for
// example a constant argument at a call on the path); an object made by a
// composite literal on the path, whose fields are known where the literal
// sets them (and zero where it does not), as long as nothing else on the
// path may write them; a term of the root's input (its parameters, their
// fields, and what methods of the input return); or server state
// (receiver fields, globals, results of calls, channel receives).
//
// # Verdicts
//
// A path is
//
//   - No when a condition is false by a value fixed on the path (a constant
//     argument, a literal's field, a message kind), or contradicts an
//     earlier condition on the same input;
//   - Unknown when a condition could not be evaluated (the analysis says
//     where it gave up);
//   - OnlyIf when some condition depends on server state only, not on the
//     root's input (it is named);
//   - Yes when every condition is true or can be met by the root's input.
//
// Conditions on the error result of a call compared with nil, on a loop's
// iteration, and on which case of a select fires, are ordinary: a run
// takes either edge in normal operation, and they are kept as assumptions
// rather than as conditions of the path.
//
// # Typed hand-offs
//
// A message that one goroutine hands to another (a raft proposal carrying
// a request) connects the sender only to the receiver's branch for that
// message. Message binds, in the receiver's dispatch function, every value
// of the message's type to the sender's value, so that the dispatch
// conditions (`case r.Compaction != nil:`) are evaluated against the
// fields the sender's literal sets.
package feasible
