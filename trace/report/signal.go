package report

// Signal is the layer-by-layer analysis: how the compaction is decided,
// signalled and carried out to what the user sees, found from the code.
type Signal struct {
	// Source is the field whose value is followed (the compaction revision).
	Source string `json:"source"`
	// Comparisons are the comparisons of a revision against the store's
	// compaction revision, found by following its value.
	Comparisons []Comparison `json:"comparisons"`
	// Writes are the writes of the signal's response fields.
	Writes []Write `json:"writes"`
	// Marks are where the wire response is marked canceled.
	Marks []Mark `json:"marks"`
	// Refusals are create responses that are created and canceled at once.
	Refusals []Refusal `json:"refusals"`
	// Handoffs are what the call graph cannot see: go statements, watcher
	// groups, channels.
	Handoffs []Handoff `json:"handoffs"`
	Client   *Client   `json:"client,omitempty"`
	Tool     *Tool     `json:"tool,omitempty"`
	Read     *ReadMap  `json:"read,omitempty"`
	// ErrorUses are watch-side calls that can fail with the sentinel.
	ErrorUses []ErrorUse `json:"error_uses"`
	Pacing    []Pace     `json:"pacing"`
	Progress  Field      `json:"progress"`
	Start     Field      `json:"start"`
	// Receive is how the client takes a compaction cancel; Created how a
	// create response reaches the user, or not.
	Receive *Receive `json:"receive,omitempty"`
	Created *Created `json:"created,omitempty"`
	// Convert is how the client converts the read's error, and whether it
	// is then the same value as the watch's.
	Convert *Convert `json:"convert,omitempty"`
	// Ceilings are comparisons, where the compaction revision is written,
	// that keep it from passing the current revision.
	Ceilings []Ceiling `json:"ceilings,omitempty"`
	// RevisionAccesses are the reads and writes of the compaction revision,
	// each with the lock held there.
	RevisionAccesses []RevisionAccess `json:"revision_accesses,omitempty"`
	// Chains are the behaviours' ways through the code, step by step.
	Chains   []Chain   `json:"chains"`
	Verdicts []Verdict `json:"verdicts"`
	// Claims are the exercise's claims, checked against the verdicts.
	Claims []Claim `json:"claims"`
	// Corrected is a citation of the lines that run in the behaviours.
	Corrected []Loc `json:"corrected_citation"`
}

// Loc is a position with its function and code.
type Loc struct {
	File     string `json:"file"`
	Line     int    `json:"line"`
	Column   int    `json:"column,omitempty"`
	Function string `json:"function,omitempty"`
	Text     string `json:"text,omitempty"`
	// Ref is the tag or commit at which File:Line is meant, when it is not
	// the release of the document that cites it (a drift cites several).
	Ref string `json:"ref,omitempty"`
	// Repo is the GitHub repository ("owner/name") that File is in, when
	// it is not the document's (a consumer's module: kubernetes/apiserver);
	// Ref is then its tag, and File a path in that repository.
	Repo string `json:"repo,omitempty"`
}

// Comparison is a revision compared with the compaction revision.
type Comparison struct {
	Loc
	Op       string `json:"op"`
	Revision string `json:"revision"` // the other operand
	// Guard is the whole condition the comparison is part of, when it is
	// more than the comparison.
	Guard string `json:"guard,omitempty"`
	// LowestPassing is the lowest revision that passes relative to the
	// compaction revision C: 0 when C passes and C-1 fails, 1 when C fails.
	LowestPassing int `json:"lowest_passing"`
	// Kind is "decision" (it guards the signal or the sentinel) or
	// "boundary" (it decides something else at the same revision).
	Kind        string `json:"kind"`
	Consequence string `json:"consequence"`
	Guarded     *Loc   `json:"guarded,omitempty"`
	// Passing says what happens at C and C-1.
	Passing    string          `json:"passing"`
	Entries    []string        `json:"entries"`
	Behaviours []string        `json:"behaviours"`
	Observed   map[string]bool `json:"observed,omitempty"`
}

// RevisionAccess is a read or write of the compaction revision.
type RevisionAccess struct {
	Loc
	Write bool `json:"write,omitempty"`
	// Lock is the lock call held there, if any.
	Lock *Loc `json:"lock,omitempty"`
}

// Write is a write of a signal field.
type Write struct {
	Loc
	Field string `json:"field"`
	Value string `json:"value"`
	// Past is x when the value is one past x (x + 1, or max of such).
	Past string `json:"past,omitempty"`
}

// Mark is a read of the signal that sets the cancel flag.
type Mark struct {
	Read  Loc `json:"read"`
	Write Loc `json:"write"`
	// NonZero: the comparison is the signal field's `!= 0`, so a cancel
	// is marked only for a value that is not 0.
	NonZero bool `json:"non_zero,omitempty"`
}

// Refusal is a request refused in its create response.
type Refusal struct {
	Loc
	Cond   string `json:"cond"`
	Reason string `json:"reason"`
	Text   string `json:"reason_text,omitempty"`
	// CondAt is where the condition is tested, ReasonAt where the reason
	// is set, Def where a variable the condition tests is set.
	CondAt   *Loc `json:"cond_at,omitempty"`
	ReasonAt *Loc `json:"reason_at,omitempty"`
	Def      *Loc `json:"cond_def,omitempty"`
}

// Handoff is a hand-off between goroutines.
type Handoff struct {
	Loc
	Kind    string   `json:"kind"` // go, group, send, receive
	Detail  string   `json:"detail"`
	Entries []string `json:"entries"` // entries whose call graph reaches it
	// Group and Method are, for a group's, the group's field and the
	// method called on it ("" for a use of the field itself).
	Group  string `json:"group,omitempty"`
	Method string `json:"method,omitempty"`
}

// Client is the client layer.
type Client struct {
	Method Loc      `json:"method"`
	Before []string `json:"before"` // cases checked first
	Case   Loc      `json:"case"`
	Return Loc      `json:"return"`
	Error  Error    `json:"error"`
	Copies []Loc    `json:"copies"`
	Buffer []Loc    `json:"buffer"`
}

// Error is an error value and how its text was found.
type Error struct {
	Object string `json:"object"`
	Text   string `json:"text"`
	Code   string `json:"code,omitempty"`
	Chain  []Loc  `json:"chain"`
}

// Tool is what the command line tool prints, evaluated from its code.
type Tool struct {
	Name  string   `json:"name"`
	Watch *ToolRun `json:"watch,omitempty"`
	Get   *ToolRun `json:"get,omitempty"`
}

// ToolRun is one command in one scenario.
type ToolRun struct {
	Function string     `json:"function"`
	At       Loc        `json:"at"`
	Stdout   []ToolLine `json:"stdout"`
	Stderr   []ToolLine `json:"stderr"`
	Exit     int        `json:"exit_code"`
	ExitBy   string     `json:"exit_constant"`
	ExitAt   Loc        `json:"exit_at"`
	// ExitFrom is where the command chooses its exit status (the
	// expression naming the constant), ExitDecl the constant's declaration.
	ExitFrom *Loc     `json:"exit_from,omitempty"`
	ExitDecl *Loc     `json:"exit_decl,omitempty"`
	Assumed  []string `json:"assumed_false"`
	// CallsSucceed is set when the evaluation took the errors of the
	// calls it does not follow as nil: the exit holds when they succeed.
	CallsSucceed bool `json:"calls_succeed,omitempty"`
	Unknown      bool `json:"unknown,omitempty"`
}

// ToolLine is a printed line and the call that prints it.
type ToolLine struct {
	Text   string `json:"text"`
	Format string `json:"format,omitempty"`
	At     Loc    `json:"at"`
	// Built is where the error the line prints was made.
	Built *Loc `json:"built,omitempty"`
}

// ReadMap is how the read's error is mapped to the wire.
type ReadMap struct {
	Map     Loc   `json:"map"`
	Key     Loc   `json:"key"`
	Indexed []Loc `json:"indexed"`
	Called  []Loc `json:"called"`
	Wire    Error `json:"wire"`
}

// ErrorUse is a call whose error can be the sentinel, and its fate.
type ErrorUse struct {
	Entry   string   `json:"entry"`
	Site    SiteRef  `json:"site"`
	Call    Loc      `json:"call"`
	Callee  string   `json:"callee"`
	Uses    []string `json:"uses"`
	Dropped bool     `json:"dropped"`
}

// Pace is a value that paces a replay.
type Pace struct {
	Loc
	Name     string `json:"name"`
	Object   string `json:"object"`
	Value    string `json:"value"`
	Absent   bool   `json:"absent,omitempty"`
	Via      string `json:"via,omitempty"`
	Declared *Loc   `json:"declared,omitempty"`
}

// Field lists the writes of one field.
type Field struct {
	Field  string  `json:"field"`
	Absent bool    `json:"absent,omitempty"`
	Writes []Write `json:"writes"`
}

// Chain is a behaviour's way through the code.
type Chain struct {
	Behaviour string `json:"behaviour"`
	Steps     []Step `json:"steps"`
}

// Step is one station of a chain.
type Step struct {
	Loc
	Kind  string `json:"kind"`
	Label string `json:"label"`
	// From are the arrows into the step: none for a way's start (the entry,
	// or a loop started elsewhere).
	From     []StepLink      `json:"from"`
	Observed map[string]bool `json:"observed,omitempty"`
	// Feasible is the verdict of the call path from the chain's entry to
	// the step, where the step ends one ("yes", "only-if", ...).
	Feasible string `json:"feasible,omitempty"`
}

// StepLink is an arrow from the chain's step at index Step, by a call or,
// when Handoff, across a hand-off (a group, a channel, the network).
type StepLink struct {
	Step    int  `json:"step"`
	Handoff bool `json:"handoff"`
}

// Verdict answers a question in one sentence; {N} stands for Lines[N].
type Verdict struct {
	ID        string `json:"id"`
	Behaviour string `json:"behaviour,omitempty"`
	Question  string `json:"question"`
	Sentence  string `json:"sentence"`
	Lines     []Loc  `json:"lines"`
	// Facts are what the verdict establishes, by key.
	Facts []Fact `json:"facts"`
}

// Fact is one thing a verdict establishes, with the lines that do.
type Fact struct {
	Key   string `json:"key"`
	Text  string `json:"text"`
	Lines []Loc  `json:"lines"`
}

// Claim is one of the exercise's claims, checked: it holds when its
// verdict establishes the fact Holds names, and not when it establishes
// the one Fails names; Holds is null when the verdict establishes neither.
type Claim struct {
	Where   string `json:"where"`
	Says    string `json:"says"`
	Verdict string `json:"verdict"`
	HoldsIf string `json:"holds_if"`
	FailsIf string `json:"fails_if"`
	// PartlyIf names the fact that, established with HoldsIf's, makes the
	// claim hold only in part.
	PartlyIf string `json:"partly_if,omitempty"`
	// OnlyIf names the fact that, established with FailsIf's, says when
	// the claim holds all the same.
	OnlyIf string `json:"only_if,omitempty"`
	Holds  *bool  `json:"holds"`
	// Outcome is "yes", "no", "partly", "only if" or "undecided": yes
	// and partly when Holds is true, partly when Part is set too; only if
	// when Holds is false and Part says when the claim holds all the same.
	Outcome string `json:"outcome"`
	Fact    *Fact  `json:"fact"`
	// Part is the fact that says which part of the claim does not hold
	// or, for "only if", when it holds.
	Part *Fact `json:"part,omitempty"`
}

// Claim outcomes.
const (
	OutcomeYes       = "yes"
	OutcomeNo        = "no"
	OutcomePartly    = "partly"
	OutcomeOnlyIf    = "only if"
	OutcomeUndecided = "undecided"
)

// Ceiling is a comparison with the current revision that bounds the
// compaction: its branch returns an error before the revision is written.
type Ceiling struct {
	Loc
	Returns string `json:"returns"`
	Writes  Loc    `json:"writes"`
}

// Receive is how the client takes a response that cancels a watch for a
// compaction: the cases of its receive loop (takes, excludes, unknown),
// where the substream stops after handing it out, where the user's channel
// is closed, and the calls with which the client watches again.
type Receive struct {
	Loop   Loc    `json:"loop"`
	Cases  []Case `json:"cases"`
	Stop   *Loc   `json:"stop,omitempty"`
	Closes []Loc  `json:"closes"`
	// Close is the loop's call (with its case) of the function that
	// closes the user's channel.
	Close   *Resume  `json:"close,omitempty"`
	Resumes []Resume `json:"resumes"`
}

// Case is one case of the receive loop's switch.
type Case struct {
	Loc
	Takes   string `json:"takes"`
	Unknown string `json:"unknown,omitempty"`
	// Because are the lines that decide what the response alone does not
	// (the fragment flag of a compaction cancel, from the server's code).
	Because []Loc `json:"because,omitempty"`
}

// Resume is a call that watches again, with the case it is in.
type Resume struct {
	Loc
	Case  string `json:"case"`
	Inner string `json:"inner,omitempty"` // the switch case inside Case
	// Callee is the function the call calls (for the loop's close).
	Callee string `json:"callee,omitempty"`
}

// Created is how a create response reaches the user, or not: the send
// loop's hold of a watch's responses until it has announced the watch
// (hold, and where it keeps them), the client's condition for handing out a
// created response (gate), and the uses of the client option that asks for
// them in the tool's packages (asks; none: the tool never asks).
type Created struct {
	Hold   *Loc   `json:"hold,omitempty"`
	HoldAt *Loc   `json:"hold_at,omitempty"`
	Gate   *Loc   `json:"gate,omitempty"`
	Option string `json:"option,omitempty"`
	Asks   []Loc  `json:"asks"`
}

// Convert is how the client turns the read's error into its own: the
// conversion function, the calls from the failing client call to it; the
// watch's client error and the read's wire error when the former is the
// conversion of the latter; the value the conversion makes and whether its
// type is comparable (two made from one error then compare equal).
type Convert struct {
	Func       Loc   `json:"func"`
	Path       []Loc `json:"path"`
	Watch      *Loc  `json:"watch,omitempty"`
	Read       *Loc  `json:"read,omitempty"`
	Made       *Loc  `json:"made,omitempty"`
	Comparable bool  `json:"comparable"`
}
