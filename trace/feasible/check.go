package feasible

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
)

// Verdict is whether a path can run.
type Verdict string

// The verdicts, from the best to the worst.
const (
	Yes     Verdict = "yes"
	OnlyIf  Verdict = "only-if"
	Unknown Verdict = "unknown"
	No      Verdict = "no"
)

func (v Verdict) rank() int {
	switch v {
	case Yes:
		return 3
	case OnlyIf:
		return 2
	case Unknown:
		return 1
	}
	return 0
}

// Better reports whether a is a better verdict than b (yes > only-if >
// unknown > no).
func Better(a, b Verdict) bool { return a.rank() > b.rank() }

// Class says how a condition of a path was decided.
type Class string

// The classes.
const (
	True     Class = "true"     // true by values fixed on the path
	False    Class = "false"    // false by values fixed on the path
	Excluded Class = "excluded" // contradicts an earlier condition on the same input
	Input    Class = "input"    // depends on the root's input
	State    Class = "state"    // depends on server state only
	Ordinary Class = "ordinary" // a call's error, a loop's iteration, a select's case
	Gave     Class = "unknown"  // the analysis could not evaluate it
)

// Cond is one branch a path must take.
type Cond struct {
	Func *ssa.Function
	If   *ssa.If
	// Text is the condition as written; Pos where it is. Want is the
	// outcome of Text the path needs.
	Text string
	Pos  token.Pos
	Want bool
	// Class is how the condition was decided.
	Class Class
	// Fixed are the values on the path that decide it (True, False).
	Fixed []Fixed
	// Why says where the analysis gave up (Gave), or which earlier
	// condition this one contradicts (Excluded, as its Text).
	Why   string
	Prior *Cond
	// Whole is the if statement's whole condition, when Text is one part
	// of it (`a` of `a && b`).
	Whole string
	// Near is, on the condition that decides an OnlyIf verdict, the
	// path's last condition of state, when it is another one: the one
	// nearest the target (often the guard of the target itself).
	Near *Cond
	// Fields are the struct fields the condition's value is read from (in
	// its function, through locals, loads and map lookups).
	Fields []*types.Var
	// Callee, for a call refused by dispatch (Why "dispatch"), is the
	// function the call cannot run.
	Callee *ssa.Function
	// Refuted, for Excluded, are what the path already needs that rules
	// the condition out: earlier conditions, what earlier calls returned,
	// what every element of a slice passed, invariants of the store.
	// Implied, for True, are what makes it hold without the path fixing a
	// value.
	Refuted, Implied []Reason
	// Senders, on the condition that refutes a way through a typed
	// hand-off's dispatch that was handed no message, are where the
	// requests that the hand-off's senders make are made: the way was
	// checked with each, and none can take it (this condition refutes the
	// first).
	Senders []token.Pos
	// HandOff names that hand-off.
	HandOff string
	// CheckAt, with Passes or Fails, is where the check is called: the
	// line cited for it (Pos is the test of its error, often a line or
	// more below).
	CheckAt token.Pos
	// CallAt, on a condition that refutes a way across a channel send
	// because its call is in another case of the receiving select (Why
	// "other case", set by the caller), is where that call is.
	CallAt token.Pos
	// Pinned, on a condition of State that compares a part of the request
	// with state, are the parts the path leaves one value: what it
	// checked earlier leaves the client no choice, so the condition is
	// the state's.
	Pinned []Pin
	// Made, on a condition of State that no branch of the path takes, is
	// the receiver type whose only making the condition guards: the way
	// calls a method of a value of that type (see madeConds).
	Made *Made
	// Inside, on a condition of State that no branch of the path takes,
	// is the call whose result the path tests that the branch is in (as
	// written): the way needs the value it returns under that branch.
	Inside string
	// Floor, on a condition of class Gave with Why Floored, is the
	// assumed floor the way would need broken: a field never set below 0
	// but through writes the analysis does not bound, which every world
	// of the way needs below 0.
	Floor *Invariant
	// Reads, when Floor is an order (Grows), are the two reads of its
	// field, first and then, that the way needs the second below the
	// first.
	Reads []token.Pos
	// Carry, on a condition of class Gave with Why Carried, is what the
	// writes of the field read first (at Reads[0]) carry from earlier
	// reads of the field read after it (at Reads[1]). Sent says that the
	// first read is the sender's, of a value handed off to the path.
	Carry *Carry
	Sent  bool
	// Ref, on a condition of class Gave with Why Referenced, is what the
	// values of the map read first (at Reads[0]) name in the map the way
	// needs a key missing from (looked up at Reads[1]); NotZero is the
	// way's condition that needs the key not zero. RefNil says that the
	// way tests the value looked up for nil (not the ok of the lookup).
	Ref     *MapRef
	NotZero *Cond
	RefNil  bool
	// Back, on a condition of class Gave with Why ReadBack, is the map
	// the key the way needs missing was ranged from (Reads[0] the range,
	// Reads[1] the lookup), which the path made and handed to calls that
	// fill it from what the server holds.
	Back *ReadBackMap
	// Rewrite, on a condition of class Gave with Why Rewritten, is the
	// call beside the way, made before the test of the request at Pos,
	// that may write a field the test reads.
	Rewrite *Rewrite
	// Drop, on a condition the way needs so as not to make a call
	// beside it that filters out every element its later test needs, is
	// that call and test (avoidCall).
	Drop *Drop
	// After, on a test of the request, is a filter beside the way, made
	// under a branch the way may take or not, whose leavings the test
	// reads where it runs: the test is then asked of those.
	After *Rewrite
	// Still, on a condition of class Gave with Why Stilled, is what keeps
	// the field read at Reads[0] and again at Reads[1] still between
	// them, but for the writes it makes outside the serial function's runs.
	// Apart says, for a map's entries (Still.Entry), that the two lookups
	// reach the map through different fields, which the analysis does not
	// show hold one struct.
	Still *Still
	Apart bool
	// Raise, with Still, is the statement that raised the field at
	// Reads[0] (a write under a test that finds the field below the value
	// written), in place of a first read: the field is at least that
	// value at its read at Reads[1].
	Raise string
	// Unnamed are, for a map's entries, where the key the way looks up
	// second is fixed on the ways where it is not the first's but a value
	// the analysis cannot name (what a call it does not follow returned).
	Unnamed []InvariantWrite
	// OrBelow, with an order, says that some of the way's worlds need
	// the field below 0 instead (an assumed floor of the same field).
	OrBelow bool
	// Entry, on a test of the second result of a map lookup (`v, ok :=
	// m[k]`), is the lookup as written: the condition asks whether the
	// map holds the key.
	Entry string
	// Ranged, on the test of a range loop over a slice of server state
	// that the way makes a pass of, is the slice as written (Text too):
	// the way needs it not empty. Loop is where that loop begins.
	Ranged string
	Loop   token.Pos
	// Case, on a condition of State that a select's choice decides, is
	// the communication of the case the way takes, as written (Text too,
	// and Pos where it is): a select not in a loop, whose case the way
	// needs taken (a channel another goroutine closes before the others
	// are ready).
	Case bool
	// taken is the block the path goes on to from If.
	taken *ssa.BasicBlock
	// unasked marks a condition of class Input that Asks leaves out: a
	// test of an error other than that a call returned none, or a test
	// of what a hand-off carries its message in, met before the way
	// reaches the message's dispatch.
	unasked bool
	// Every, on a condition of class Input inside a range loop the way
	// goes past, is the slice as written: the way needs the condition's
	// outcome (Want) for every element.
	Every string
	// Passes, on a condition of class Input that tests whether a call
	// returned an error, where the way needs it to return none, is the
	// call as written; Fails, where the way needs it to return one.
	// PassesFn, for a call of a function value, is the function it calls
	// on the way (a check its caller hands down).
	Passes   string
	Fails    string
	PassesFn *ssa.Function
	// Erred, on a condition of class State that tests the error of a call
	// of state, where the way needs the error, is the call as written: the
	// way runs only when it fails. (When the analysis follows the call, the
	// branches that lead to its error are tests of errors or of state
	// inside it, which are not listed: the failure is.)
	Erred string
	// Or, on a condition of state at a join the way passes (joins), are
	// the other branches into it: the way takes this one or one of them.
	// Under are the branches of state that this one needs beside it, from
	// where the alternatives part (Test.Under).
	Or    []Test
	Under []Test
	// Configured, on a condition of state, is the carry of a value a
	// sender handed off less a field of the configuration the server is
	// made with: the condition holds only with that field below 0
	// (configNeed).
	Configured *Carry
	// errRead marks a test of an error read from memory that the way
	// needs (erred): a condition of state.
	errRead bool
	// erredCall, with Erred (or Fails, for a call given part of the
	// request), is the call when the analysis follows it: a branch
	// inside it that leads to its error, listed (within), says more
	// (result).
	erredCall ssa.CallInstruction
	// within, on a condition a value the way reads needs (needed), are
	// the calls the branch is inside, outermost first.
	within []ssa.CallInstruction
	// Unloaded, on a condition with Fails or Erred, says where the code
	// the call runs is when none of it is loaded from source, though it
	// is the target's: whether it can fail is not known.
	Unloaded string
	// late marks a condition that a value the way reads needs (needed),
	// listed after the way's own. hop and at are where the way meets a
	// condition: the index of its frame on the path (-1 when not known)
	// and the place there (the call the way makes, for one inside a
	// function it calls, as written in meet).
	late bool
	hop  int
	at   token.Pos
	meet string
}

// joinFrom is where a join's condition came from (joins): the frame and
// the ways into the join the path could take when the way came to it,
// with the condition's first branch; what the path needs past it may
// rule more of them out (laterJoins).
type joinFrom struct {
	fr    *frame
	alive []edgeOf
	pos   token.Pos
	want  bool
}

// Fixed is a value that a path fixes: an operand, its value, and where the
// path fixes it (a constant argument, a literal).
type Fixed struct {
	Name  string // the operand as written
	Value string // "0", "nil"
	At    token.Pos
	// Set lists the fields a literal sets, when the value is a field the
	// literal leaves unset.
	Set []string
	// Unset is the field the path's requests leave at zero, when the value
	// is read from it (Path.Zero).
	Unset *types.Var
	// Handed, when the value is a pointer the path's root was handed,
	// which its caller never passes nil (Path.ArgsNonNil), is the root.
	Handed *ssa.Function
}

// Pin is an operand of a comparison that the path leaves one value, and
// why: a part of the request that what the path checked earlier leaves
// one value, or (Fixed) a value the path fixes, a constant it passes or
// a field a literal leaves unset.
type Pin struct {
	Name  string // the operand as written
	Value int64
	Fixed bool
	At    token.Pos // where a Fixed value is fixed
	// Because are what fixes it: earlier branches of the path, what the
	// calls it tests returned (the returns that let it through, and those
	// that refuse the other values), what a loop checked of every element.
	Because []Reason
	// terms are the operand's terms in the worlds, each the value plus
	// off (one per value the operand can be).
	terms []termOff
}

// termOff is a term plus a constant.
type termOff struct {
	t   string
	off int64
}

// Result is the verdict on one path.
type Result struct {
	Verdict Verdict
	// Because is the condition that decides the verdict: the false one
	// (No), the first one the analysis could not evaluate (Unknown), the
	// first that depends on state only (OnlyIf); nil for Yes.
	Because *Cond
	// Conds are the path's conditions in path order.
	Conds []Cond
	// Sites are the calls the path takes, one per hop.
	Sites []ssa.CallInstruction
}

// OnlyIfs are the conditions of state the path needs, in the order the
// way meets them (inOrder).
func (r *Result) OnlyIfs() []Cond {
	var out, late []Cond
	for _, c := range r.Conds {
		if c.Class == State {
			if c.late {
				late = append(late, c)
			} else {
				out = append(out, c)
			}
		}
	}
	return r.inOrder(out, late, nil)
}

// Asks are the conditions the path needs that depend on the root's
// input (the request), in path order: what the request asks decides
// them, given the state a condition compares it with. A test of whether
// a call returned an error is one only as a check the way needs passed
// (Passes) or failed (Fails), nor, on a way handed a message, is a test
// of what carries it that the way meets before the message's dispatch (a
// batch of entries that holds it). One inside a check the way needs
// passed or failed is what the check tests: not listed.
func (r *Result) Asks() []Cond {
	var out, late []Cond
	checks := map[string]bool{}
	for _, c := range r.Conds {
		if (c.Class == Input || c.check() != "") && !c.unasked {
			if c.late {
				late = append(late, c)
			} else {
				out = append(out, c)
				if c.check() != "" {
					checks[c.check()] = true
				}
			}
		}
	}
	// What a check the way needs of a value it reads tests is not listed
	// either.
	lateChecks := map[string]bool{}
	for _, c := range late {
		if c.check() != "" {
			lateChecks[c.check()] = true
		}
	}
	late = slices.DeleteFunc(late, func(c Cond) bool { return c.check() == "" && c.Inside != "" && lateChecks[c.Inside] })
	return r.inOrder(out, late, checks)
}

// check is the call, as written, of a check the way needs passed or
// failed; "" when c is none.
func (c *Cond) check() string {
	if c.Passes != "" {
		return c.Passes
	}
	return c.Fails
}

// inOrder puts each condition that a value the way reads needs (late:
// the branch of a join before it, a branch inside a call it makes) among
// the way's own (out, in path order) where the way meets it: by the frame
// of the path, then by the place there, then by its own place (one not
// placed goes last). One inside a call in skip (as written) is left out.
func (r *Result) inOrder(out, late []Cond, skip map[string]bool) []Cond {
	less := func(a, b *Cond) bool {
		ah, bh := a.hop, b.hop
		if ah < 0 {
			ah = 1 << 30
		}
		if bh < 0 {
			bh = 1 << 30
		}
		if ah != bh {
			return ah < bh
		}
		if a.at != b.at {
			return a.at < b.at
		}
		return a.Pos < b.Pos
	}
	for _, c := range late {
		if c.meet != "" && skip[c.meet] {
			continue
		}
		at := len(out)
		for i := range out {
			if less(&c, &out[i]) {
				at = i
				break
			}
		}
		out = slices.Insert(out, at, c)
	}
	return out
}

// Path is one call path to check.
type Path struct {
	// Root is the path's first function; Hops lead from it.
	Root *ssa.Function
	Hops callpath.Path
	// Target is the instruction the path must reach in its last function;
	// nil stops at the function's entry.
	Target ssa.Instruction
	// RootState makes the root's parameters state, not input: a function
	// that the server starts itself (a goroutine, a job).
	RootState bool
	// ArgsNonNil says that the root's pointer parameters (not its
	// receiver) are never nil: its caller, a framework, passes what it
	// allocated (a gRPC method's request).
	ArgsNonNil bool
	// Message binds a message handed off to the path's root.
	Message *Message
	// Want, when set, is a value of the last function to evaluate at the
	// end of the path (see Result.Value).
	Want ssa.Value
	// Zero are fields the path's requests leave at their zero value
	// (an option a request did not ask for): reading one gives zero, and
	// looking up in one, when it is a map, finds nothing.
	Zero []*types.Var
	// OnlyRuns says that the caller keeps the verdict only when it is
	// Yes or OnlyIf (a search for a better way than one that is not No).
	// A path whose work passes the bound (Checker.Budget) can be neither,
	// so its walk stops there, and a path that shares its first hops with
	// one whose walk passed the bound before going further is not walked
	// (boundedEarly): each is Unknown (Bounded), and not remembered as
	// the path's verdict. Not with Want.
	OnlyRuns bool
	// OnlyYes says more: the caller keeps only Yes. The walk then does
	// not follow a call site where the way has already met a condition
	// that no later step takes back (kept): one of state, or one the
	// analysis did not decide, that no join made and that stands for no
	// followed call's failure. When it followed every site it tried, its
	// verdict is the path's; when not, a Yes is found again by a walk
	// that follows every site, and any other verdict is given as Unknown
	// (Bounded), which the caller drops, and is not remembered.
	OnlyYes bool
}

// Message is a message a sender hands to a receiver: in Dispatch, every
// value of type Type (or a pointer to it) is the sender's Value.
type Message struct {
	Type     types.Type
	Dispatch *ssa.Function
	Value    *Value
}

// Matches reports whether t is the message's type or a pointer to it.
func (m *Message) Matches(t types.Type) bool {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	return types.Identical(t, m.Type)
}

// Value is a value of a path, kept to bind a message, with what the
// path's worlds knew of its request where the path ended.
type Value struct {
	v     *value
	carry *carried
}

// Fields lists the fields a literal value sets (nil when it is not a
// literal of the path).
func (v *Value) Fields() []string {
	if v == nil || v.v.kind != kObj {
		return nil
	}
	return v.v.obj.set
}

// Literal reports whether the value is an object the path made (a
// literal), whose fields the path knows.
func (v *Value) Literal() bool {
	return v != nil && v.v.kind == kObj
}

// Input reports whether the value is the path's input (what its first
// function was given), not a literal the path made.
func (v *Value) Input() bool {
	return v != nil && v.v.org == input && v.v.kind != kObj
}

// At is where the value was made or fixed.
func (v *Value) At() token.Pos {
	if v == nil {
		return token.NoPos
	}
	return v.v.at
}

// SentReads names the reads of shared state the sender made that the
// value's fields (to three levels) hold, sorted: what a receiver given
// the value may learn of them (see carried.go) depends on them.
func (v *Value) SentReads() []string {
	if v == nil {
		return nil
	}
	var out []string
	eachSent(v.v, 3, func(x *value) {
		s := x.sent.field.Name() + "@" + itoa(int(x.sent.pos))
		if x.sent.elem {
			s = x.sent.field.Name() + "[]@" + itoa(int(x.sent.pos))
		}
		out = append(out, s)
	})
	sort.Strings(out)
	return slices.Compact(out)
}

// Checker checks paths of one program.
type Checker struct {
	sites func(caller, callee *ssa.Function) []ssa.CallInstruction
	edges func(site ssa.CallInstruction) []*callgraph.Edge
	g     *callpath.Graph
	text  *texts
	// MaxLeaves bounds the choices of call sites tried on one path.
	MaxLeaves int
	// Owns, when set, reports whether a package is the target's own code:
	// one of its packages not loaded from source is code the analysis
	// could follow but did not load (see unloaded).
	Owns func(pkgPath string) bool

	sums map[*ssa.Function]*summary
	// loopsOf are each function's range loops over slices (loops), once
	// found.
	loopsOf map[*ssa.Function][]*loopInfo
	// leasts are leastOf's answers; leastFns and leastBusy its search.
	leasts    map[ssa.Value]leastInfo
	leastFns  map[*ssa.Function]leastState
	leastBusy int
	// derefMemo are derefs' answers.
	derefMemo map[ssa.Instruction][]*ssa.FieldAddr
	dom       map[*ssa.BasicBlock][]edgeOf
	// globals are the stores to each package-level variable; nonNil
	// which are never nil.
	globals map[*ssa.Global][]*ssa.Store
	nonNil  map[*ssa.Global]bool
	// dirFiles are the parsed files of packages read from export data,
	// by directory and package name (declaredMade).
	dirFiles map[string][]*ast.File
	// What the program's locks keep (locks.go) and its invariants
	// (invariant.go).
	ix        *index
	guardsOf  map[*types.Var][]*types.Var
	releasers map[*types.Var]map[*ssa.Function]bool
	heldMemo  map[heldKey]bool
	retHold   map[retKey]bool
	shared    *invStore // the invariants read by this checker and its forks
	prog      *progShare
	ctorOnly  map[*types.Var]bool
	madeMemo  map[madeKey][]Cond   // madeConds' answers
	outMemo   map[outKey][]Cond    // keptOut's answers
	whenMade  map[*types.Var]bool  // setWhenMade's answers
	tables    map[*ssa.Global]bool // table's answers
	// globalLoads are the loads of each package-level variable;
	// globalKept those whose address is stored somewhere.
	globalLoads map[*ssa.Global][]*ssa.UnOp
	globalKept  map[*ssa.Global]bool
	writersOf   map[*ssa.Alloc]map[ssa.Instruction]bool
	closureW    map[*ssa.Alloc]bool // closureWrites' answers
	// withSyntax are the packages whose code is loaded.
	withSyntax  map[*types.Package]bool
	owners      map[*types.Var]*types.Named
	exposedMemo map[*types.Named]bool
	// checked are the verdicts of paths checked already (without Want);
	// early those of paths whose walks ended before their last hop
	// (endedEarly).
	checked map[string]Result
	early   prefixMemo[Result]
	// bounded are, keyed as early, the first hops of paths whose walks
	// passed the bound of work before going further (boundedEarly).
	bounded prefixMemo[bool]
	// budget is the bound of work of one path (checkBudget; tests set
	// less).
	budget int
	// rewriteMemo are rewrites' answers; filterMemo filterFunc's.
	rewriteMemo   map[rewriteKey]bool
	rewrittenMemo map[*ssa.Function][]*types.Var
	filterMemo    map[*ssa.Function]keepMemo
	recursiveMemo map[*ssa.Function]bool
	// joinMemo are joinsTo's answers, by target.
	joinMemo map[*ssa.BasicBlock][][]edgeOf
	// siteMemo are the call sites of each caller and callee (sitesOf).
	siteMemo map[[2]*ssa.Function]callSites
	loads    map[loadKey]*ssa.UnOp // sameLoad's answers
	tstr     map[types.Type]string
	// serial are the functions that run one call at a time (SetSerial);
	// stills, writers and runs are stillOf's, mayWrite's and runsOf's answers.
	serial   []*ssa.Function
	serialBy []string
	// after are, per serial function, the function whose calls return
	// before its runs begin (SetSerialAfter); befores are beforeRuns's
	// answers.
	after   map[*ssa.Function]serialAfter
	befores map[stillKey]bool
	stills  map[stillKey]*Still
	entries map[*types.Var]*entrySites
	stores  map[loadKey]*ssa.Store
	looked  map[looksKey]bool
	writers map[*types.Var]map[*ssa.Function]bool
	runs    map[*ssa.Function]map[*ssa.Function]bool
	// lowerers are, per field that keeps an order through writes that
	// may lower it, the functions that may make one of those (insLowers).
	lowerers map[*types.Var]map[*ssa.Function]bool
	// configs are configured's answers.
	configs map[*types.Var]*ConfigField
}

// typeString is types.TypeString(t, nil), once per type.
func (c *Checker) typeString(t types.Type) string {
	if s, ok := c.tstr[t]; ok {
		return s
	}
	s := types.TypeString(t, nil)
	if c.tstr == nil {
		c.tstr = map[types.Type]string{}
	}
	c.tstr[t] = s
	return s
}

// New returns a checker over g's program.
func New(g *callpath.Graph) *Checker {
	return &Checker{
		sites:     g.Sites,
		edges:     g.EdgesAt,
		g:         g,
		text:      &texts{file: g.File, fset: g.Fset(), files: &files{data: map[string][]byte{}, index: map[*ast.File]*fileIndex{}}},
		prog:      &progShare{},
		MaxLeaves: 16,
		budget:    checkBudget,
		sums:      map[*ssa.Function]*summary{},
		loopsOf:   map[*ssa.Function][]*loopInfo{},
		dom:       map[*ssa.BasicBlock][]edgeOf{},
		guardsOf:  map[*types.Var][]*types.Var{},
		releasers: map[*types.Var]map[*ssa.Function]bool{},
		heldMemo:  map[heldKey]bool{},
		retHold:   map[retKey]bool{},
		shared:    &invStore{m: map[invKey]*Invariant{}},
		checked:   map[string]Result{},
		ctorOnly:  map[*types.Var]bool{},
		writersOf: map[*ssa.Alloc]map[ssa.Instruction]bool{},
		closureW:  map[*ssa.Alloc]bool{},
	}
}

// progShare is what a checker finds of the program alone, made once for
// the checker and all its forks: the index of its writes, locks and
// allocations, and the stores to and loads of its package-level
// variables.
type progShare struct {
	ixOnce      sync.Once
	ix          *index
	globalsOnce sync.Once
	globals     map[*ssa.Global][]*ssa.Store
	globalLoads map[*ssa.Global][]*ssa.UnOp
	globalKept  map[*ssa.Global]bool
}

// Fork returns a checker over the same program, for use beside c (on
// another goroutine): it memoizes on its own, except the invariants of
// the store, which c and all its forks read once and share (c's
// Invariants are then those that any of them found), and what is of the
// program alone (progShare, the source files' text).
func (c *Checker) Fork() *Checker {
	f := New(c.g)
	f.MaxLeaves, f.Owns = c.MaxLeaves, c.Owns
	f.shared, f.prog, f.text.files = c.shared, c.prog, c.text.files
	f.serial, f.serialBy, f.after = c.serial, c.serialBy, c.after
	return f
}

// walk is the state of one path's evaluation.
type walk struct {
	c *Checker
	p Path
	// deepest is the furthest hop the walk has come to; entered the
	// furthest whose callee it entered.
	deepest, entered int
	// heldAtMemo are held's answers.
	heldAtMemo map[heldAtKey][]holding
	frames     []*frame
	objects    map[objKey]*object
	leaves     int
	// worlds are the ways the path's conditions can all hold so far;
	// deaths the worlds that could not, with why.
	worlds []*world
	deaths []death
	// thorough is set while a recheck runs: a loop's element is checked
	// against what every element passes by its whole conditions, not
	// first by a quick look that may find the other side possible.
	thorough bool
	// settled are the branches the path took that its worlds were
	// constrained by, in order (see entryRecheck).
	settled []settledIf
	terms   map[string]termInfo
	// clientMaps says whether a map field of an object of the path holds
	// what clients chose (clientEntry).
	clientMaps map[clientKey]bool
	// reads are the read terms of each field of each struct (by base and
	// field); holds what acquisitions hold at each read.
	reads      map[readKey][]string
	readFields map[string][]readKey
	// readsOf are the read terms of each field by the struct's term as
	// stableTerm names it.
	readsOf map[*types.Var]map[string][]string
	holds   map[string][]holding
	// inlined are the frames of the calls the path followed, by caller
	// frame, call and callee.
	inlined map[inlineKey]*frame
	tframes map[tfKey]*frame
	// sumMay are the checks of sumExceeded that found the part may be at
	// most the limit.
	sumMay map[sumKey]bool
	nextID int
	// budget bounds the constraint work of one path; overBound is set
	// once the walk has seen it passed (atBound), and cut when the walk
	// stopped there (Path.OnlyRuns).
	budget    int
	overBound bool
	cut       bool
	// skipped is set when the walk did not follow a call site for a
	// condition that keeps the way from Yes (Path.OnlyYes).
	skipped bool
	// shortened is set once a condition went untested for the bound of
	// work, in the path's own steps or in a test of what is possible
	// that gives its budget back (tryBranch, pinned, ...): such a test
	// took what it could not finish as possible.
	shortened bool
	maxSeen   int
	// checking is set while an element is checked against a template;
	// inWorld is the world whose ruled-out blocks a lock's holding skips,
	// refining set while such a block is tested.
	checking bool
	inWorld  *world
	refining bool
	// expanding are the values of several alternatives being expanded.
	expanding map[altKey]bool
	// alts are the values of several alternatives the worlds chose among,
	// by key (see needed).
	alts map[altKey]*value
	// one holds expand's result when it is a single way.
	one [1]choice
	// refutedMemo are refutedIn's answers, by world state, frame and
	// block.
	refutedMemo map[refutedKey]bool
	// joinSrc are where the conditions joins made came from, by the
	// condition's first branch (joinOf).
	joinSrc map[*ssa.If][]joinFrom
}

// Check decides whether the path can run. With Path.Want set, it also
// returns that value as the end of the path sees it.
func (c *Checker) Check(p Path) (Result, *Value) {
	if p.Want != nil {
		return c.check(p)
	}
	k := pathKey(p)
	if r, ok := c.checked[k]; ok {
		return r, nil
	}
	if r, ok := c.endedEarly(p); ok {
		c.checked[k] = r
		return r, nil
	}
	if p.OnlyRuns && c.boundedEarly(p) {
		return boundedResult(p), nil
	}
	w, r, _ := c.walkPath(p)
	if w.skipped && r.Verdict == Yes {
		// A Yes of a walk that left sites out is found again by one
		// that does not (which sites a walk follows changes what it
		// knows on the way).
		q := p
		q.OnlyYes = false
		w, r, _ = c.walkPath(q)
	}
	if w.skipped {
		return boundedResult(p), nil
	}
	if w.cut {
		return r, nil
	}
	c.checked[k] = r
	return r, nil
}

// kept reports whether a path's condition stays to its end and keeps the
// verdict from Yes (Path.OnlyYes): one of state or one the analysis did
// not decide, not made of the ways into a join (laterJoins may replace
// it) nor standing for a followed call's failure (failedWithin may).
func kept(c *Cond) bool {
	return (c.Class == State || c.Class == Gave) && (c.If == nil || len(c.Or) == 0) && c.erredCall == nil
}

// boundedEarly reports whether an earlier walk of a path that shares p's
// first hops passed the bound of work before it went past them: p's walk
// takes the same steps up to there (endedEarly) and passes it too.
func (c *Checker) boundedEarly(p Path) bool {
	_, ok := c.bounded.find(c, p)
	return ok
}

// boundedResult is the verdict of a path whose work passed the bound:
// Unknown (Bounded), cited at its target (or its root).
func boundedResult(p Path) Result {
	c := Cond{Func: p.Root, Class: Gave, Why: Bounded, Pos: p.Root.Pos()}
	if p.Target != nil {
		c.Func, c.Pos = p.Target.Parent(), p.Target.Pos()
	}
	r := Result{Verdict: Unknown, Conds: []Cond{c}}
	r.Because = &r.Conds[0]
	return r
}

// endedEarly is the verdict of an earlier path that shares p's first
// hops and whose walk never went past them: every way it tried failed
// at or before its last hop that p shares. The walk of a path reads its
// hops one at a time and its target only past the last, so p's walk
// takes the same steps and ends the same.
//
// A walk that reached the call sites of a hop but entered none of them
// (every way to each failed first) read of that hop only its caller and
// the sites it tries: a path that shares the hops before it and whose
// hop there has another callee at the same sites (another method that
// one call through an interface runs) ends the same too.
func (c *Checker) endedEarly(p Path) (Result, bool) { return c.early.find(c, p) }

// prefixMemo keeps what walks that went no further than some first hops
// of their paths found (endedEarly, boundedEarly): by the hops they
// passed, and, for one that entered no callee at its last hop, by the
// hops before it and the call sites it tried there.
type prefixMemo[V any] struct {
	by map[string]V
	at map[earlyKey]V
}

// find is what a walk of a path that shares p's first hops found.
func (m *prefixMemo[V]) find(c *Checker, p Path) (V, bool) {
	var zero V
	if len(m.by) == 0 {
		return zero, false
	}
	var b strings.Builder
	prefixBase(&b, p)
	for _, h := range p.Hops {
		if v, ok := m.at[earlyKey{b.String(), c.sitesSig(h)}]; ok {
			return v, true
		}
		writeHop(&b, h)
		if v, ok := m.by[b.String()]; ok {
			return v, true
		}
	}
	return zero, false
}

// note records v for a walk of p that went no further than hop deepest,
// and entered no callee past hop entered.
func (m *prefixMemo[V]) note(c *Checker, p Path, deepest, entered int, v V) {
	if deepest >= len(p.Hops) {
		return
	}
	var b strings.Builder
	prefixBase(&b, p)
	for _, h := range p.Hops[:deepest] {
		writeHop(&b, h)
	}
	if entered < deepest {
		if m.at == nil {
			m.at = map[earlyKey]V{}
		}
		m.at[earlyKey{b.String(), c.sitesSig(p.Hops[deepest])}] = v
	}
	writeHop(&b, p.Hops[deepest])
	if m.by == nil {
		m.by = map[string]V{}
	}
	m.by[b.String()] = v
}

// earlyKey names the call sites a walk tries (sitesSig) after the hops
// of prefix (prefixMemo).
type earlyKey struct{ prefix, sites string }

// candidates are the call sites a walk tries for hop h: those of its
// caller that may call its callee, or the hop's own site.
func (c *Checker) candidates(h callpath.Hop) []ssa.CallInstruction {
	cands := c.sitesOf(h).cands
	if len(cands) == 0 && h.Site != nil {
		return []ssa.CallInstruction{h.Site}
	}
	return cands
}

// sitesSig names candidates(h).
func (c *Checker) sitesSig(h callpath.Hop) string {
	if s := c.sitesOf(h); len(s.cands) > 0 || h.Site == nil {
		return s.sig
	}
	return fmt.Sprintf("%p,", h.Site)
}

// callSites are the call sites of a caller that may call a callee, and
// their name (sitesSig).
type callSites struct {
	cands []ssa.CallInstruction
	sig   string
}

// sitesOf are the call sites of hop h's caller that may call its callee,
// read once.
func (c *Checker) sitesOf(h callpath.Hop) callSites {
	k := [2]*ssa.Function{h.Caller, h.Callee}
	s, ok := c.siteMemo[k]
	if !ok {
		s.cands = c.sites(h.Caller, h.Callee)
		var b strings.Builder
		for _, x := range s.cands {
			fmt.Fprintf(&b, "%p,", x)
		}
		s.sig = b.String()
		if c.siteMemo == nil {
			c.siteMemo = map[[2]*ssa.Function]callSites{}
		}
		c.siteMemo[k] = s
	}
	return s
}

// prefixBase writes what a walk reads of a path besides its hops and
// target: its root, how the root runs, its message and its zero fields.
func prefixBase(b *strings.Builder, p Path) {
	fmt.Fprintf(b, "%p|%v|%v", p.Root, p.RootState, p.ArgsNonNil)
	if m := p.Message; m != nil {
		fmt.Fprintf(b, "|%p|%p|%p", m.Type, m.Dispatch, m.Value)
	}
	for _, z := range p.Zero {
		fmt.Fprintf(b, ",%p", z)
	}
}

// pathKey names a path by the identity of its parts.
func pathKey(p Path) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%p|%p|%v|%v|%p", p.Root, p.Target, p.RootState, p.ArgsNonNil, p.Message)
	if p.Message != nil {
		fmt.Fprintf(&b, "|%p", p.Message.Value)
	}
	for _, h := range p.Hops {
		writeHop(&b, h)
	}
	for _, z := range p.Zero {
		fmt.Fprintf(&b, ",%p", z)
	}
	return b.String()
}

// writeHop writes a hop of a path's key.
func writeHop(b *strings.Builder, h callpath.Hop) {
	fmt.Fprintf(b, ";%p>%p@%p", h.Caller, h.Callee, h.Site)
}

func (c *Checker) check(p Path) (Result, *Value) {
	_, r, v := c.walkPath(p)
	return r, v
}

// walkPath walks path p for its verdict and, with Want, that value.
func (c *Checker) walkPath(p Path) (*walk, Result, *Value) {
	if p.Want != nil {
		p.OnlyRuns, p.OnlyYes = false, false
	}
	if p.OnlyYes {
		p.OnlyRuns = true
	}
	w := &walk{c: c, p: p, entered: -1, objects: map[objKey]*object{}, worlds: []*world{newWorld()}, terms: map[string]termInfo{}, reads: map[readKey][]string{}, readFields: map[string][]readKey{}, readsOf: map[*types.Var]map[string][]string{}, holds: map[string][]holding{}, inlined: map[inlineKey]*frame{}, tframes: map[tfKey]*frame{}, budget: c.budget}
	root := w.newFrame(p.Root, nil, nil)
	root.root, root.rootState = true, p.RootState
	root.msg = w.messageFor(p.Root)
	if m := p.Message; m != nil && m.Value != nil {
		m.Value.carry.receive(w.worlds[0], paramTerms(p.Root))
		w.noteSent(m.Value.v, 3)
	}
	best, val := w.dfs(root, 0, nil, nil)
	if w.cut {
		return w, boundedResult(p), nil
	}
	if p.Want == nil && !w.skipped {
		c.early.note(c, p, w.deepest, w.entered, best)
	}
	if (w.budget < 0 && (best.Verdict == Yes || best.Verdict == OnlyIf)) || (w.shortened && best.Verdict == Yes) {
		// The path's conditions past the bound were taken as they came:
		// that earlier checks leave them possible was not shown. A Yes
		// is not shown either when a test of what is possible ran out
		// of the bound (shortened): it took the rest as possible. (Only
		// a Yes: a way that needs conditions says so already, and a
		// walk that skips sites, with more budget left at each, then
		// gives Yes exactly when the whole walk does: Path.OnlyYes.)
		c := Cond{Func: p.Root, Class: Gave, Why: Bounded, Pos: p.Root.Pos()}
		if p.Target != nil {
			c.Func, c.Pos = p.Target.Parent(), p.Target.Pos()
		}
		best.Conds = append(append([]Cond(nil), best.Conds...), c)
		best.Verdict, best.Because = Unknown, &best.Conds[len(best.Conds)-1]
	}
	return w, best, val
}

// Floored is the Why of a path's condition of class Gave when the way
// can run only with a field below 0 that every write the analysis bounds
// keeps at or above 0 (Cond.Floor): whether the others can set it below 0
// is not decided.
const Floored = "floored"

// Carried is the Why of a path's condition of class Gave when the way
// can run only with a field's read above a later read of a field that
// never goes down, plus what the first field's writes add to the read
// they carry of it (Cond.Carry): whether the value read is one of theirs
// is not decided.
const Carried = "carried"

// Bounded is the Why of a path's condition of class Gave when the
// analysis reached its bound of work on the path (Checker.Budget) before
// it could show that what the path checks earlier leaves the rest
// possible.
const Bounded = "bounded"

// newFrame makes a frame of fn called by parent at call.
func (w *walk) newFrame(fn *ssa.Function, parent *frame, call ssa.CallInstruction) *frame {
	w.nextID++
	return &frame{fn: fn, params: map[*ssa.Parameter]*value{}, free: map[*ssa.FreeVar]*value{}, memo: map[ssa.Value]*value{}, p: w,
		id: w.nextID, parent: parent, callAt: call}
}

func (w *walk) messageFor(fn *ssa.Function) *Message {
	if m := w.p.Message; m != nil && m.Dispatch == fn {
		return m
	}
	return nil
}

// joinConds is a new slice of conds and then more, with room for the
// one or two conditions a hop may add (a Cond is large: growing the
// slice would copy them all again).
func joinConds(conds, more []Cond) []Cond {
	cs := make([]Cond, 0, len(conds)+len(more)+2)
	return append(append(cs, conds...), more...)
}

// dfs evaluates frame fr (the function of hop i, or the last one) and the
// rest of the path, trying each call site of the hop; it returns the best
// result.
func (w *walk) dfs(fr *frame, i int, conds []Cond, sites []ssa.CallInstruction) (Result, *Value) {
	if w.atBound() {
		return Result{}, nil
	}
	w.deepest = max(w.deepest, i)
	fr.idx = len(w.frames)
	w.frames = append(w.frames, fr)
	defer func() { w.frames = w.frames[:len(w.frames)-1] }()

	if i == len(w.p.Hops) {
		var blk *ssa.BasicBlock
		if w.p.Target != nil && w.p.Target.Parent() == fr.fn {
			blk = w.p.Target.Block()
		}
		cs := joinConds(conds, w.conds(fr, blk))
		if blk != nil && !failed(cs) {
			if c, ok := w.readThrough(fr, w.p.Target); ok {
				cs = append(cs, c)
			}
		}
		if !failed(cs) {
			cs = w.laterJoins(cs)
		}
		res := w.result(cs, sites)
		if res.Verdict == OnlyIf || res.Verdict == Yes {
			res = w.assumedFloors(res)
		}
		if res.Verdict == OnlyIf || res.Verdict == Yes {
			res = w.refNeeded(res)
		}
		if res.Verdict == OnlyIf || res.Verdict == Yes {
			res = w.readBackNeeded(res)
		}
		if res.Verdict == OnlyIf || res.Verdict == Yes || res.Verdict == Unknown {
			// A way already not decided keeps its reason; what it lists
			// beside that is qualified all the same.
			res = w.rewrittenNeeded(res)
		}
		var val *Value
		if w.p.Want != nil {
			v := freeze(fr, fr.eval(w.p.Want), 2)
			val = &Value{v: v}
			if !failed(cs) {
				val.carry = carry(w.worlds, w.frames, v)
			}
		}
		return res, val
	}
	h := w.p.Hops[i]
	cands := w.c.candidates(h)
	var best Result
	var bestVal *Value
	have := false
	for _, site := range cands {
		if w.leaves >= w.c.MaxLeaves && have {
			break
		}
		fr.site = site
		savedW, savedD, savedS := w.worlds, w.deaths, len(w.settled)
		cs := joinConds(conds, w.conds(fr, site.Block()))
		ss := append(append([]ssa.CallInstruction{}, sites...), site)
		var res Result
		var val *Value
		if w.p.OnlyYes && !failed(cs) && slices.ContainsFunc(cs, func(c Cond) bool { return kept(&c) }) {
			w.worlds, w.deaths, w.settled = savedW, savedD, w.settled[:savedS]
			w.skipped = true
			if !have {
				best, have = Result{Verdict: Unknown}, true
			}
			continue
		}
		if !failed(cs) {
			if c, ok := w.readThrough(fr, site); ok {
				cs = append(cs, c)
			}
		}
		if failed(cs) {
			res = w.result(cs, ss)
			w.leaves++
		} else {
			w.entered = max(w.entered, i)
			next := w.enter(fr, site, h.Callee)
			if next.refused == nil {
				next.refused = w.dispatchTo(fr, site, h.Callee)
			}
			if next.refused != nil {
				cs = append(cs, *next.refused)
				res = w.result(cs, ss)
			} else {
				made := w.madeConds(fr, site, h.Callee)
				cs = append(cs, made...)
				for _, o := range w.keptOut(fr, site, h.Callee) {
					if !slices.ContainsFunc(made, func(m Cond) bool { return m.If == o.If && m.Want == o.Want }) {
						cs = append(cs, o)
					}
				}
				res, val = w.dfs(next, i+1, cs, ss)
			}
		}
		w.worlds, w.deaths, w.settled = savedW, savedD, w.settled[:savedS]
		if w.atBound() {
			return Result{}, nil
		}
		if !have || Better(res.Verdict, best.Verdict) {
			best, bestVal, have = res, val, true
		}
		if best.Verdict == Yes {
			break
		}
	}
	fr.site = nil
	if !have {
		return w.result(conds, sites), nil
	}
	return best, bestVal
}

// atBound reports whether the walk is to stop: its work has passed the
// bound and its caller keeps only a way that can run (Path.OnlyRuns). The
// first time the walk sees the bound passed, between the steps of its
// hops (the path's own work: a test that restores the budget it used is
// not), it notes how far it came (boundedEarly).
func (w *walk) atBound() bool {
	if w.cut {
		return true
	}
	if w.budget >= 0 {
		return false
	}
	if !w.overBound {
		w.overBound = true
		// (A walk that leaves sites out does less work than the path's
		// own walk up to where it passes the bound: it notes nothing.)
		if w.p.Want == nil && !w.p.OnlyYes {
			w.c.bounded.note(w.c, w.p, w.deepest, w.entered, true)
		}
	}
	w.cut = w.p.OnlyRuns
	return w.cut
}

// dispatchTo decides, at a call through an interface, whether the value
// called can be one that has the callee's method: when it is one of
// several (a variable assigned on two branches, a call's returns) and
// some of them cannot run the callee, each world is tried with the
// others, and the branches they need. When no world can, the call cannot
// run the callee on this path: the condition that says so, with what
// rules out each way the value could have the method. Otherwise nil,
// and the worlds are left as they were.
func (w *walk) dispatchTo(fr *frame, site ssa.CallInstruction, callee *ssa.Function) *Cond {
	cc := site.Common()
	if !cc.IsInvoke() {
		return nil
	}
	recv := fr.eval(cc.Value)
	if recv.kind != kAlt || !fr.someCannot(recv, cc.Method, callee, 0) {
		return nil
	}
	before := len(w.deaths)
	var ws []*world
	for _, ch := range w.expand(w.worlds, fr, cc.Value, recv, nil) {
		if !fr.canCall(ch.val, cc.Method, callee) {
			w.kill(append([]*reason{{kind: ReasonValue, text: "dispatch", pos: ch.val.at}}, ch.src...)...)
			continue
		}
		ws = append(ws, ch.w)
	}
	if len(ws) > 0 {
		// The worlds are left as they were: what each survivor chose
		// of the value is not carried on (it would split the path's
		// worlds at every such call).
		w.deaths = w.deaths[:before]
		return nil
	}
	c := &Cond{Func: fr.fn, Text: w.c.text.callText(site), Pos: site.Pos(), Want: true, Class: Excluded, Why: "dispatch", Callee: callee}
	var rs []*reason
	for _, d := range w.deaths[before:] {
		rs = append(rs, d.why...)
	}
	c.Refuted = explain(w.c.text.fset, rs, c)
	w.worlds = nil
	return c
}

// someCannot reports whether one of the ways v can be (to a bounded
// depth) is a value whose type has no method m that is callee.
func (f *frame) someCannot(v *value, m *types.Func, callee *ssa.Function, depth int) bool {
	if v == nil || depth > 6 {
		return false
	}
	if v.kind != kAlt {
		return !f.canCall(v, m, callee)
	}
	for _, a := range v.alts {
		if f.someCannot(a.value(), m, callee, depth+1) {
			return true
		}
	}
	return false
}

// failedWithin is cs with the need of a followed call's error (Erred,
// or Fails where the call is given part of the request) left an ordinary
// test where a branch inside that call that leads to its error is
// listed: the branch says why the call fails.
func failedWithin(cs []Cond) []Cond {
	inside := map[ssa.CallInstruction]bool{}
	for _, c := range cs {
		for _, call := range c.within {
			inside[call] = true
		}
	}
	if len(inside) == 0 {
		return cs
	}
	var out []Cond
	for i, c := range cs {
		if c.erredCall == nil || !inside[c.erredCall] {
			continue
		}
		if out == nil {
			out = slices.Clone(cs)
		}
		if out[i].Fails != "" {
			// A failure the request asks of a followed call, where a
			// check inside it that fails is listed: that check says it.
			out[i].Fails, out[i].erredCall, out[i].unasked = "", nil, true
			continue
		}
		out[i].Class, out[i].Erred, out[i].erredCall = Ordinary, "", nil
	}
	if out == nil {
		return cs
	}
	return out
}

func failed(cs []Cond) bool {
	for _, c := range cs {
		if c.Class == False || c.Class == Excluded {
			return true
		}
	}
	return false
}

// result turns a path's conditions into its verdict.
func (w *walk) result(cs []Cond, sites []ssa.CallInstruction) Result {
	w.leaves++
	if !failed(cs) {
		cs = append(cs, w.needed(cs)...)
		cs = failedWithin(cs)
	}
	r := Result{Verdict: Yes, Conds: cs, Sites: sites}
	pick := func(v Verdict, class ...Class) bool {
		for i := range cs {
			for _, k := range class {
				if cs[i].Class == k {
					r.Verdict, r.Because = v, &cs[i]
					return true
				}
			}
		}
		return false
	}
	if pick(No, False, Excluded) || pick(Unknown, Gave) {
		return r
	}
	if pick(OnlyIf, State) {
		// A pass of a loop over state says little of the way: the first
		// other condition of state decides, when there is one.
		// Nor does a branch that keeps a value out of a field the way
		// calls through (keptOut): no step of the way takes it; nor the
		// test of an error read from memory (erred), which says only
		// that something before failed.
		out := func(c *Cond) bool { return c.Made != nil && c.Made.Out }
		weak := func(c *Cond) bool { return c.Ranged != "" || out(c) || c.errRead }
		if weak(r.Because) {
			for i := range cs {
				if cs[i].Class == State && !weak(&cs[i]) {
					r.Because = &cs[i]
					break
				}
			}
		}
		for j := len(cs) - 1; j >= 0; j-- {
			if cs[j].Class == State && !out(&cs[j]) {
				if &cs[j] != r.Because {
					b := *r.Because
					b.Near = &cs[j]
					r.Because = &b
				}
				break
			}
		}
	}
	return r
}

// enter makes the frame of callee as called from fr at site.
func (w *walk) enter(fr *frame, site ssa.CallInstruction, callee *ssa.Function) *frame {
	nf := w.newFrame(callee, fr, site)
	nf.msg = w.messageFor(callee)
	c := site.Common()
	var args []ssa.Value
	if c.IsInvoke() {
		args = append([]ssa.Value{c.Value}, c.Args...)
	} else {
		args = append(args, c.Args...)
	}
	var pre []*value
	if !c.IsInvoke() {
		// A closure carries its captured variables, a bound method value
		// its receiver: from the value called, as the path made it.
		fv := fr.eval(c.Value)
		switch {
		case fv.fn == callee:
			for j, b := range fv.bindings {
				if j < len(callee.FreeVars) {
					nf.free[callee.FreeVars[j]] = b
				}
			}
		case fv.fn != nil && fv.fn.Synthetic != "" && len(fv.bindings) == 1:
			pre = fv.bindings
		}
	}
	at := site.Pos()
	if len(pre)+len(args) == len(callee.Params) {
		for j, p := range callee.Params {
			if j < len(pre) {
				nf.params[p] = pre[j]
				continue
			}
			if c.IsInvoke() && j == 0 {
				recv := fr.eval(args[0])
				if !fr.canCall(recv, c.Method, callee) || !canHold(fr, recv, p.Type()) {
					// The value called is of a type whose method this
					// is not: the call cannot run this callee.
					nf.refused = &Cond{Func: fr.fn, Text: w.c.text.callText(site), Pos: site.Pos(), Want: true, Class: False,
						Fixed: []Fixed{{Name: w.c.text.callText(site), Value: typeName(recv), At: recv.at}}, Why: "dispatch", Callee: callee}
				}
				nf.params[p] = adapt(fr, fr.callers(recv, c.Method, callee), p.Type())
				continue
			}
			nf.params[p] = fr.eval(args[j-len(pre)]).fixedAt(at)
		}
	}
	// A closure made further up the path (passed down as a function value).
	if len(callee.FreeVars) > 0 && len(nf.free) == 0 {
		for k := len(w.frames) - 1; k >= 0; k-- {
			if mc := makeClosureIn(w.frames[k].fn, callee); mc != nil {
				for j, b := range mc.Bindings {
					if j < len(callee.FreeVars) {
						nf.free[callee.FreeVars[j]] = w.frames[k].eval(b)
					}
				}
				break
			}
		}
	}
	return nf
}

func makeClosureIn(fn, closure *ssa.Function) *ssa.MakeClosure {
	for _, b := range fn.Blocks {
		for _, ins := range b.Instrs {
			if mc, ok := ins.(*ssa.MakeClosure); ok && mc.Fn == closure {
				return mc
			}
		}
	}
	return nil
}

// conds are the conditions fr's function must pass to reach block target
// (none when target is nil), decided with what the frame binds.
func (w *walk) conds(fr *frame, target *ssa.BasicBlock) []Cond {
	if target == nil {
		return nil
	}
	var out []Cond
	for _, e := range w.c.domEdges(fr.fn, target) {
		out = append(out, w.decide(fr, e.ifi, e.want))
	}
	for _, c := range append(append(w.avoided(fr, target), w.everyElement(fr, target)...), w.joins(fr, target)...) {
		if c.If != nil && slices.ContainsFunc(out, func(o Cond) bool { return o.If == c.If && o.Want == c.Want && len(o.Or) == len(c.Or) }) {
			continue // one branch the way needs, found twice (avoided, joins)
		}
		// In the order the function meets them.
		i := len(out)
		for i > 0 && out[i-1].Pos > c.Pos {
			i--
		}
		out = append(out[:i], append([]Cond{c}, out[i:]...)...)
	}
	return impliedPasses(out)
}

// joins are the conditions of the joins the way passes on to target in
// fr's function: at a block that dominates target and that two or more
// ways come into (the end of an if statement whose body can fall
// through), the way takes one of them, each the last branch into it on
// its way (an `if s.isLeader() { … }` whose body goes on to the
// forwarding only if the lessor was not the primary). The branches the
// path's worlds rule out are dropped; when one is left, the way needs
// it; when more, one of them (Cond.Or), if every one is a condition of
// state and they do not cover every run between them (see joinsTo for
// the joins left as they are).
func (w *walk) joins(fr *frame, target *ssa.BasicBlock) []Cond {
	var out []Cond
	for _, ins := range w.c.joinsTo(fr.fn, target) {
		if c, ok := w.joinCond(fr, w.alive(fr, ins)); ok {
			out = append(out, c)
		}
	}
	return out
}

// joinCond is the condition of a join whose ways in the path can take are
// alive: the one way's branch, or one of them (Cond.Or); none when they
// cover every run, or when they cannot be worded.
func (w *walk) joinCond(fr *frame, alive []edgeOf) (Cond, bool) {
	if len(alive) == 1 {
		return w.decide(fr, alive[0].ifi, alive[0].want), true
	}
	if len(alive) == 0 || covers(alive) {
		return Cond{}, false
	}
	for _, word := range []func(*frame, []edgeOf) (Cond, bool){w.either, w.askEither, w.eitherNoError, w.eitherMixed} {
		if c, ok := word(fr, alive); ok {
			if w.joinSrc == nil {
				w.joinSrc = map[*ssa.If][]joinFrom{}
			}
			w.joinSrc[c.If] = append(w.joinSrc[c.If], joinFrom{fr: fr, alive: alive, pos: c.Pos, want: c.Want})
			return c, true
		}
	}
	return Cond{}, false
}

// joinOf is where condition c came from, when a join made it in a frame
// the way is in now, and only one such did.
func (w *walk) joinOf(c Cond) (joinFrom, bool) {
	if c.If == nil || len(c.Or) == 0 {
		return joinFrom{}, false
	}
	var found []joinFrom
	for _, j := range w.joinSrc[c.If] {
		if j.pos == c.Pos && j.want == c.Want && slices.Contains(w.frames, j.fr) {
			found = append(found, j)
		}
	}
	if len(found) != 1 {
		return joinFrom{}, false
	}
	return found[0], true
}

// laterJoins are conditions cs, at the path's end, with each join's ways
// in that a condition the path needs past the join rules out dropped (a
// callee that returns early under that way's branch): where the way
// came to the join, its worlds could still take them. A join left with
// one way in needs its branch; one left with ways that cover every run,
// or that cannot be worded, asks nothing.
func (w *walk) laterJoins(cs []Cond) []Cond {
	out := make([]Cond, 0, len(cs))
	changed := false
	for _, c := range cs {
		j, ok := w.joinOf(c)
		if !ok {
			out = append(out, c)
			continue
		}
		alive := w.byConds(j.fr, j.alive)
		if len(alive) == len(j.alive) || len(alive) == 0 {
			out = append(out, c)
			continue
		}
		changed = true
		if nc, ok := w.joinCond(j.fr, alive); ok {
			out = append(out, nc)
		}
	}
	if !changed {
		return cs
	}
	return out
}

// joinsTo are, for each join that dominates target in fn, the last
// branches of the ways into it (joins). Left out: a join a way comes
// into with no branch of its own; a loop's head; the end of a loop (a
// way in from a branch inside one: every run that gets past the loop
// takes one); the ends of the parts of one if statement's condition (`a
// && b`: what the statement asks is its whole condition, see avoided);
// and joins whose branches cover every run.
func (c *Checker) joinsTo(fn *ssa.Function, target *ssa.BasicBlock) [][]edgeOf {
	if js, ok := c.joinMemo[target]; ok {
		return js
	}
	var out [][]edgeOf
	for _, j := range fn.Blocks {
		if len(j.Preds) < 2 || !j.Dominates(target) || loopHeads[j.Comment] {
			continue
		}
		var ins []edgeOf
		for _, p := range j.Preds {
			e, ok := lastEdge(p, j)
			if !ok || j.Dominates(p) || loopHeads[e.ifi.Block().Comment] || inCycle(e.ifi.Block()) {
				ins = nil
				break
			}
			if !slices.Contains(ins, e) {
				ins = append(ins, e)
			}
		}
		if len(ins) < 2 || covers(ins) || c.oneStatement(ins) {
			continue
		}
		out = append(out, ins)
	}
	if c.joinMemo == nil {
		c.joinMemo = map[*ssa.BasicBlock][][]edgeOf{}
	}
	c.joinMemo[target] = out
	return out
}

// oneStatement reports whether branches es are all parts of one if
// statement's condition.
func (c *Checker) oneStatement(es []edgeOf) bool {
	whole := ""
	for _, e := range es {
		text, pos, _ := c.text.condText(e.ifi)
		wh := c.text.whole(pos, text)
		if wh == "" || whole != "" && wh != whole {
			return false
		}
		whole = wh
	}
	return true
}

// inCycle reports whether block b can run again after it runs: it is in
// a loop.
func inCycle(b *ssa.BasicBlock) bool { return reachedAfter(b, b) }

// reachedAfter reports whether a run can come to block to after block
// from.
func reachedAfter(from, to *ssa.BasicBlock) bool {
	for _, s := range from.Succs {
		if reachable(s)[to] {
			return true
		}
	}
	return false
}

// lastEdge is the branch that a way into block j through its
// predecessor p takes last: p's own, or, when p only goes on to j, the
// one into p.
func lastEdge(p, j *ssa.BasicBlock) (edgeOf, bool) {
	for k := 0; k < 2; k++ {
		if len(p.Instrs) == 0 {
			return edgeOf{}, false
		}
		if ifi, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If); ok {
			if p.Succs[0] == p.Succs[1] {
				return edgeOf{}, false
			}
			return edgeOf{ifi: ifi, want: p.Succs[0] == j}, true
		}
		if len(p.Preds) != 1 {
			return edgeOf{}, false
		}
		p, j = p.Preds[0], p
	}
	return edgeOf{}, false
}

// covers reports whether branches es cover every run between them: for
// every outcome of the tests they take, one of them is taken.
func covers(es []edgeOf) bool {
	var ifs []*ssa.If
	for _, e := range es {
		if !slices.Contains(ifs, e.ifi) {
			ifs = append(ifs, e.ifi)
		}
	}
	if len(ifs) > 10 {
		return true // too many to try: taken as covering
	}
	for bits := 0; bits < 1<<len(ifs); bits++ {
		taken := false
		for _, e := range es {
			if (bits>>slices.Index(ifs, e.ifi)&1 == 1) == e.want {
				taken = true
				break
			}
		}
		if !taken {
			return false
		}
	}
	return true
}

// alive are the ways into a join, es, that some world of the path can
// take (possible).
func (w *walk) alive(fr *frame, es []edgeOf) []edgeOf {
	var out []edgeOf
	for _, e := range es {
		if w.possible(fr, e) {
			out = append(out, e)
		}
	}
	return out
}

// byConds are the ways into a join, es, less those that the conditions
// the path settled alone rule out: a way in is dropped only when some
// world died trying it, every world did, and every death names only
// such conditions (not what every element of a slice passes, a value's
// other alternatives, a lock or an invariant). The worlds are left as
// they were.
func (w *walk) byConds(fr *frame, es []edgeOf) []edgeOf {
	var out []edgeOf
	for _, e := range es {
		ok, deaths := w.tryBranch(fr, e)
		if !ok {
			ok = len(deaths) == 0
			for _, d := range deaths {
				if len(d.why) == 0 || slices.ContainsFunc(d.why, func(r *reason) bool { return r.kind != ReasonCond || r.cond == nil }) {
					ok = true
				}
			}
		}
		if ok {
			out = append(out, e)
		}
	}
	return out
}

// possible reports whether some world of the path can take branch e; the
// worlds are left as they were.
func (w *walk) possible(fr *frame, e edgeOf) bool {
	ok, _ := w.tryBranch(fr, e)
	return ok
}

// tryBranch reports whether some world of the path can take branch e,
// and when none can, the worlds' deaths; the worlds are left as they
// were.
func (w *walk) tryBranch(fr *frame, e edgeOf) (bool, []death) {
	saved, budget := w.deaths, w.budget
	defer func() { w.deaths, w.budget = saved, budget }()
	n := len(w.deaths)
	if len(w.constrain(w.worlds, fr, e.ifi.Cond, e.want, nil)) > 0 {
		return true, nil
	}
	return false, slices.Clone(w.deaths[n:])
}

// either is the condition that the way takes one of branches es, each a
// condition of state: the first as the way meets them, the others its
// Or.
func (w *walk) either(fr *frame, es []edgeOf) (Cond, bool) {
	var alts []Cond
	for _, e := range es {
		text, pos, flip := w.c.text.condText(e.ifi)
		c := Cond{Func: fr.fn, If: e.ifi, Text: text, Pos: pos, Want: e.want != flip}
		w.classify(fr, &c, e.ifi.Cond, e.want)
		if c.Class != State || text == "" {
			return Cond{}, false
		}
		c.Under = w.under(fr, e, es)
		alts = append(alts, c)
	}
	return w.firstOf(fr, alts), true
}

// under are the branches of state that alternative e of a join's ways in
// es takes from where the alternatives part (the nearest block that
// dominates every one of their tests) to its own test: what the
// alternative needs beside its last branch. A branch of that block is
// left out when it is itself an alternative's (`if s.isLeader()`, whose
// other side is one).
func (w *walk) under(fr *frame, e edgeOf, es []edgeOf) []Test {
	fork := e.ifi.Block()
	for _, x := range es {
		fork = commonDom(fork, x.ifi.Block())
	}
	if fork == nil {
		return nil
	}
	own := false
	for _, x := range es {
		own = own || x.ifi.Block() == fork
	}
	var out []Test
	for _, d := range w.c.domEdges(fr.fn, e.ifi.Block()) {
		if d.ifi == e.ifi || !fork.Dominates(d.ifi.Block()) || own && d.ifi.Block() == fork {
			continue
		}
		text, pos, flip := w.c.text.condText(d.ifi)
		c := Cond{Func: fr.fn, If: d.ifi, Text: text, Pos: pos, Want: d.want != flip}
		w.classify(fr, &c, d.ifi.Cond, d.want)
		if (c.Class == Ordinary || c.Class == Input) && errTest(d.ifi.Cond) {
			// Past a test that a call of state returned no error (a wait
			// for the apply): that call's success. Past one of a check
			// of the request (a permission check of the lease's keys):
			// the check passed.
			if x, needsErr, ok := nilTest(d.ifi.Cond, d.want); ok && !needsErr {
				call := resultOf(x)
				switch {
				case call == nil:
				case !givenInput(fr, call):
					if ct := shortCall(w.c.text.callText(call)); ct != "" && c.Class == Ordinary {
						out = append(out, Test{Text: ct, Pos: pos, CallAt: calledAt(call, pos), NoError: true})
					}
				default:
					w.checkCall(fr, &c, d.ifi.Cond, d.want, fr.site)
					if chk := c.check(); chk != "" && c.Fails == "" {
						out = append(out, Test{Pos: pos, CallAt: calledAt(call, pos), Passes: chk})
					}
				}
			}
			continue
		}
		if c.Class != State || text == "" {
			continue
		}
		out = append(out, Test{Text: text, Pos: pos, Want: c.Want, Of: w.errorOf(d.ifi.Cond)})
	}
	// A join the alternative's way passes after the fork (the wait for
	// the apply, made on either side of a test of a feature): one of its
	// ways in, in its place among the rest.
	for _, t := range w.nestedJoins(fr, fork, e) {
		at := slices.IndexFunc(out, func(u Test) bool { return u.Pos > t.Pos })
		if at < 0 {
			at = len(out)
		}
		out = slices.Insert(out, at, t)
	}
	return out
}

// nestedJoins are the joins that the way through alternative e passes
// between the fork where the alternatives part and e's own test, whose
// ways in all start after the fork: each as a Test whose Either are its
// ways in that some world of the path can take (either's or
// eitherNoError's, each with the branches it takes from where they
// part), or, where only one can be taken, that one's branch of state.
// Joins whose ways in are not of state or waits of state are left out.
func (w *walk) nestedJoins(fr *frame, fork *ssa.BasicBlock, e edgeOf) []Test {
	var out []Test
	for _, ins := range w.c.joinsTo(fr.fn, e.ifi.Block()) {
		if slices.ContainsFunc(ins, func(x edgeOf) bool { b := x.ifi.Block(); return b == fork || !fork.Dominates(b) }) {
			continue
		}
		alive := w.alive(fr, ins)
		switch {
		case len(alive) == 1:
			if c := w.decide(fr, alive[0].ifi, alive[0].want); c.Class == State && c.Text != "" {
				out = append(out, Test{Text: c.Text, Pos: c.Pos, Want: c.Want, Of: w.errorOf(alive[0].ifi.Cond)})
			}
		case len(alive) > 1 && !covers(alive):
			c, ok := w.either(fr, alive)
			if !ok {
				c, ok = w.eitherNoError(fr, alive)
			}
			if ok {
				first := Test{Text: c.Text, Pos: c.Pos, Want: c.Want, Of: w.errorOf(c.If.Cond), Under: c.Under}
				out = append(out, Test{Pos: c.Pos, Either: append([]Test{first}, c.Or...)})
			}
		}
	}
	return out
}

// commonDom is the nearest block that dominates both a and b.
func commonDom(a, b *ssa.BasicBlock) *ssa.BasicBlock {
	for x := a; x != nil; x = x.Idom() {
		if x.Dominates(b) {
			return x
		}
	}
	return nil
}

// firstOf is the condition that the way takes one of branches alts,
// each a condition of state: the first as the way meets them, the others
// its Or.
func (w *walk) firstOf(fr *frame, alts []Cond) Cond {
	sort.SliceStable(alts, func(i, j int) bool { return alts[i].Pos < alts[j].Pos })
	c := alts[0]
	c.Whole = w.c.text.whole(c.Pos, c.Text)
	c.hop, c.at, c.meet = w.meetAt(fr, c.Pos)
	for _, a := range alts[1:] {
		c.Or = append(c.Or, Test{Text: a.Text, Pos: a.Pos, Want: a.Want, Of: w.errorOf(a.If.Cond), Under: a.Under})
	}
	return c
}

// eitherNoError is either for a join that some ways come into past a
// test that a call of server state returned no error (a lease's renewal
// waits for the apply only when the lessor does not find the lease, or
// when a feature is off, and goes on when the wait returns no error):
// each such way in is "`s.waitAppliedIndex()` returns no error", one per
// call as written (with each place it is made), in Or after the branches
// of state, at least one of
// which comes in too. False when a way in is neither (a check of the
// request is not of class Ordinary).
func (w *walk) eitherNoError(fr *frame, es []edgeOf) (Cond, bool) {
	var states []Cond
	var calls []Test
	for _, e := range es {
		text, pos, flip := w.c.text.condText(e.ifi)
		c := Cond{Func: fr.fn, If: e.ifi, Text: text, Pos: pos, Want: e.want != flip}
		w.classify(fr, &c, e.ifi.Cond, e.want)
		if c.Class == State && text != "" {
			c.Under = w.under(fr, e, es)
			states = append(states, c)
			continue
		}
		if c.Class != Ordinary || !errTest(e.ifi.Cond) {
			return Cond{}, false
		}
		x, needsErr, ok := nilTest(e.ifi.Cond, e.want)
		if !ok || needsErr {
			return Cond{}, false
		}
		call := resultOf(x)
		if call == nil {
			return Cond{}, false
		}
		ct := shortCall(w.c.text.callText(call))
		if ct == "" {
			return Cond{}, false
		}
		calls = append(calls, Test{Text: ct, Pos: pos, CallAt: calledAt(call, pos), NoError: true})
	}
	if len(states) == 0 || len(calls) == 0 {
		return Cond{}, false
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].Pos < calls[j].Pos })
	// One call made at two places (the wait, under either side of a
	// test of a feature) is one alternative, naming both.
	var merged []Test
	for _, t := range calls {
		if i := slices.IndexFunc(merged, func(m Test) bool { return m.Text == t.Text }); i >= 0 {
			merged[i].More = append(merged[i].More, t.CallAt)
			continue
		}
		merged = append(merged, t)
	}
	c := w.firstOf(fr, states)
	c.Or = append(c.Or, merged...)
	return c, true
}

// askEither is, for a join whose ways in are each the request's choice
// (a branch on part of the request, or a check of the request passed),
// what the way asks of the request: one of them ("either makes
// `!r.Serializable` false, or else passes `s.linearizableReadNotify(ctx)`"),
// a condition of class Input with the others as Or. False when one is
// not the request's, or is met before a handed request's dispatch.
func (w *walk) askEither(fr *frame, es []edgeOf) (Cond, bool) {
	if w.beforeMessage(fr) {
		return Cond{}, false
	}
	var alts []Cond
	for _, e := range es {
		text, pos, flip := w.c.text.condText(e.ifi)
		c := Cond{Func: fr.fn, If: e.ifi, Text: text, Pos: pos, Want: e.want != flip}
		w.classify(fr, &c, e.ifi.Cond, e.want)
		if (c.Class == Input || c.Class == Ordinary) && errTest(e.ifi.Cond) {
			// Where the way goes on past the join, a call whose other
			// results the function uses only after it is a check too.
			w.checkCall(fr, &c, e.ifi.Cond, e.want, fr.site)
			if c.check() == "" {
				return Cond{}, false
			}
			c.Class = Input
		}
		// A check the way needs failed is not an alternative this words.
		if c.Class != Input || text == "" && c.check() == "" || c.Fails != "" {
			return Cond{}, false
		}
		alts = append(alts, c)
	}
	sort.SliceStable(alts, func(i, j int) bool { return alts[i].Pos < alts[j].Pos })
	c := alts[0]
	c.Whole = w.c.text.whole(c.Pos, c.Text)
	c.Fields = fieldsRead(c.If.Cond)
	c.hop, c.at, c.meet = w.meetAt(fr, c.Pos)
	for _, a := range alts[1:] {
		c.Or = append(c.Or, Test{Text: a.Text, Pos: a.Pos, CallAt: a.CheckAt, Want: a.Want, Passes: a.Passes})
	}
	return c, true
}

// eitherMixed is either for a join some of whose ways in are branches of
// state and the others the request's (a put's check that reads the key
// back, and needs it found, only when the request asks to keep its value
// or its lease): the way takes one of the branches of state, or the
// request takes one of its own (Test.Asked), each its whole if
// statement's condition where the way in passes all of its parts. False
// when a way in is neither, when none is of state or none the request's,
// or when a request's way in is not one outcome of its statement.
func (w *walk) eitherMixed(fr *frame, es []edgeOf) (Cond, bool) {
	if w.beforeMessage(fr) {
		return Cond{}, false
	}
	var states []Cond
	var asked []Test
	for _, e := range es {
		text, pos, flip := w.c.text.condText(e.ifi)
		c := Cond{Func: fr.fn, If: e.ifi, Text: text, Pos: pos, Want: e.want != flip}
		w.classify(fr, &c, e.ifi.Cond, e.want)
		switch {
		case c.Class == State && text != "":
			c.Under = w.under(fr, e, es)
			if t, ok := w.wholeWay(e); ok && t.Text != text {
				// The statement's whole condition, taken one way, in place
				// of its last part and the others among Under.
				c.Text, c.Pos, c.Want = t.Text, t.Pos, t.Want
				c.Under = slices.DeleteFunc(c.Under, func(u Test) bool { return w.c.text.whole(u.Pos, u.Text) == t.Text })
			}
			states = append(states, c)
		case c.Class == Input && text != "" && !c.unasked && c.Fails == "" && !errTest(e.ifi.Cond):
			t, ok := w.wholeWay(e)
			if !ok {
				return Cond{}, false
			}
			asked = append(asked, t)
		default:
			return Cond{}, false
		}
	}
	if len(states) == 0 || len(asked) == 0 {
		return Cond{}, false
	}
	sort.SliceStable(asked, func(i, j int) bool { return asked[i].Pos < asked[j].Pos })
	c := w.firstOf(fr, states)
	c.Or = append(c.Or, asked...)
	return c, true
}

// wholeWay is the test a way in through branch e takes of e's if
// statement: its whole condition, when e is the last of a chain of parts
// each taken the same way (`a || b`, both false; `a && b`, both true),
// back to the statement's first part; e's own when e is the whole. False
// when the parts are taken differently or one is negated.
func (w *walk) wholeWay(e edgeOf) (Test, bool) {
	text, pos, flip := w.c.text.condText(e.ifi)
	whole := w.c.text.whole(pos, text)
	if whole == "" {
		return Test{Text: text, Pos: pos, Want: e.want != flip, Asked: true}, true
	}
	if flip {
		return Test{}, false
	}
	b := e.ifi.Block()
	first := pos
	for len(b.Preds) == 1 {
		p := b.Preds[0]
		ifi, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If)
		if !ok {
			break
		}
		pt, ppos, pflip := w.c.text.condText(ifi)
		if w.c.text.whole(ppos, pt) != whole {
			break
		}
		if pflip || (p.Succs[0] == b) != e.want {
			return Test{}, false
		}
		b, first = p, ppos
	}
	return Test{Text: whole, Pos: first, Want: e.want, Asked: true}, true
}

// errorOf is, for v a test of an error (a comparison with nil, or a
// function given it first: errors.Is), the call that returned the error,
// as written; "" otherwise.
func (w *walk) errorOf(v ssa.Value) string {
	if u, ok := v.(*ssa.UnOp); ok && u.Op == token.NOT {
		v = u.X
	}
	var x ssa.Value
	if e, _, ok := nilTest(v, true); ok {
		x = e
	} else if c, ok := v.(*ssa.Call); ok && len(c.Call.Args) > 0 && !c.Call.IsInvoke() && callpath.IsError(c.Call.Args[0].Type()) {
		x = c.Call.Args[0]
	}
	if x == nil || !callpath.IsError(x.Type()) {
		return ""
	}
	if call := resultOf(w.c.stored(x)); call != nil {
		return w.c.text.callText(call)
	}
	return ""
}

// resultOf is the call whose result x is (the call, or one of its
// results), or nil.
func resultOf(x ssa.Value) *ssa.Call {
	switch t := x.(type) {
	case *ssa.Call:
		return t
	case *ssa.Extract:
		call, _ := t.Tuple.(*ssa.Call)
		return call
	}
	return nil
}

// everyElement are, for each range loop over a slice that a run on to
// target leaves at its end, the branches inside it that lead to a return
// (one branch each) and compare part of the request, or else only server
// state: the way needs each false for every element (`rev == h.Revision`
// for every kept hash). They are what the way asks of the request (class
// Input), or a condition of state (a revision a sender handed off across
// a hand-off), Every the slice as written; the worlds are not
// constrained by them.
func (w *walk) everyElement(fr *frame, target *ssa.BasicBlock) []Cond {
	var out []Cond
	for _, l := range w.c.loops(fr.fn) {
		if !l.head.Succs[1].Dominates(target) {
			continue
		}
		over, ok := w.c.text.rangedOver(l.head.Instrs[len(l.head.Instrs)-1].(*ssa.If))
		if !ok {
			continue
		}
		for _, exit := range l.exits {
			if len(exit) != 1 {
				continue
			}
			e := exit[0]
			text, pos, flip := w.c.text.condText(e.ifi)
			if text == "" || !pos.IsValid() || errTest(e.ifi.Cond) {
				continue
			}
			cd := Cond{Func: fr.fn, If: e.ifi, Text: text, Pos: pos, Want: !e.want != flip, Every: over}
			w.classify(fr, &cd, e.ifi.Cond, !e.want)
			if cd.Class != Input && cd.Class != State {
				continue
			}
			cd.Whole = w.c.text.whole(pos, text)
			cd.hop, cd.at, cd.meet = w.meetAt(fr, pos)
			cd.unasked = w.beforeMessage(fr)
			out = append(out, cd)
		}
	}
	return out
}

// impliedPasses drops the pass of a range loop over a slice or a map
// (Ranged) where a condition of the same function already needs it not
// empty (`if len(keys) == 0 { return }`): the one says what the other
// does.
func impliedPasses(cs []Cond) []Cond {
	var nonEmpty []ssa.Value
	for _, c := range cs {
		if c.Class == State && c.Ranged == "" && c.If != nil && c.taken != nil {
			if x, ok := lenTest(c.If.Cond, c.taken == c.If.Block().Succs[0]); ok {
				nonEmpty = append(nonEmpty, x)
			}
		}
	}
	if len(nonEmpty) == 0 {
		return cs
	}
	out := cs[:0:0]
	for _, c := range cs {
		if c.Ranged != "" && c.If != nil {
			if b, ok := c.If.Cond.(*ssa.BinOp); ok {
				if n, ok := b.Y.(*ssa.Call); ok && len(n.Call.Args) == 1 && slices.Contains(nonEmpty, n.Call.Args[0]) {
					continue
				}
			}
			if rg, _, ok := rangeMap(c.If); ok && slices.Contains(nonEmpty, rg.X) {
				continue
			}
		}
		out = append(out, c)
	}
	return out
}

// lenTest reads cond, with outcome want, as a test that len(x) is not 0:
// `len(x) == 0` false, `len(x) != 0` or `len(x) > 0` true.
func lenTest(cond ssa.Value, want bool) (ssa.Value, bool) {
	b, ok := cond.(*ssa.BinOp)
	if !ok {
		return nil, false
	}
	n, ok := b.X.(*ssa.Call)
	if !ok || len(n.Call.Args) != 1 || !isZero(b.Y) {
		return nil, false
	}
	if bi, ok := n.Call.Value.(*ssa.Builtin); !ok || bi.Name() != "len" {
		return nil, false
	}
	switch {
	case b.Op == token.EQL && !want, b.Op == token.NEQ && want, b.Op == token.GTR && want:
		return n.Call.Args[0], true
	}
	return nil, false
}

// avoided are the early returns of fr's function that a run on to target
// does not take, where no branch alone says so: a return reached down one
// chain of branches, all parts of one if statement's condition (`a && b`,
// each part taken as the return needs), starting at a block that
// dominates target. A run that takes the whole chain returns, so one that
// reaches target does not: "only if not `a && b`". Listed when every part
// is a condition of state, or as what the way asks of the request when a
// part is the request's; an error test makes it no condition, and a part
// the path decides leaves the rest to the other parts (false: the chain
// cannot be taken; true: it drops out), so the chain is left out then. The worlds
// are not constrained by it: it adds a condition to the way's list, not a
// refutation.
func (w *walk) avoided(fr *frame, target *ssa.BasicBlock) []Cond {
	var out []Cond
	for _, r := range fr.fn.Blocks {
		if r == target || len(r.Instrs) == 0 {
			continue
		}
		ret, ok := r.Instrs[len(r.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		var chain []edgeOf
		cur, top := r, false
		for len(chain) < 8 && len(cur.Preds) == 1 {
			p := cur.Preds[0]
			ifi, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If)
			if !ok || p == target {
				break
			}
			chain = append(chain, edgeOf{ifi: ifi, want: p.Succs[0] == cur})
			if p.Dominates(target) {
				top = true
				break
			}
			cur = p
		}
		if !top || len(chain) < 2 {
			continue
		}
		if c, ok := w.chainCond(fr, chain, ret.Pos()); ok {
			out = append(out, c)
		} else if _, _, isCheck := w.c.checkOf(chain[0].ifi.Cond, !chain[0].want, nil); isCheck && w.entailedOuter(fr, chain[1:]) {
			// A check inside branches that hold on every way the path
			// can go on (an `if r.Authenticate == nil` around a check of
			// the caller, for a request the path made without one): the
			// way needs it as if it met it on the way.
			out = append(out, w.decide(fr, chain[0].ifi, !chain[0].want))
		} else if isCheck && w.messageDecides(fr, chain[1:]) {
			// The same before the message's dispatch, where the branches
			// around the check are the message's (an applier that checks
			// the caller's permission for an administrator's request):
			// a check of this request, though met before its dispatch.
			c := w.decide(fr, chain[0].ifi, !chain[0].want)
			if c.check() != "" {
				c.unasked = false
			}
			out = append(out, c)
		}
	}
	return out
}

// messageDecides reports whether, on a way handed a message, in a frame
// before the message's dispatch (where the request is not yet bound to
// the message), each of edges is the branch the message takes: its
// condition, evaluated with every value of the message's type bound to
// the message (the request the dispatch will be handed), is that
// constant (an applier's `needAdminPermission(r)` for the message of an
// AuthEnable request).
func (w *walk) messageDecides(fr *frame, edges []edgeOf) bool {
	if !w.beforeMessage(fr) || w.p.Message.Value == nil {
		return false
	}
	for _, e := range edges {
		if !usesMessage(e.ifi.Cond, w.p.Message, 0) {
			return false // a branch the message cannot decide
		}
	}
	nf := w.newFrame(fr.fn, fr.parent, fr.callAt)
	nf.params, nf.free, nf.inline, nf.depth, nf.root, nf.rootState, nf.override = fr.params, fr.free, fr.inline, fr.depth, fr.root, fr.rootState, fr.override
	nf.msg = w.p.Message
	return w.entailedOuter(nf, edges)
}

// usesMessage reports whether v is computed from a value of message m's
// type (through operators, calls' arguments, loads and fields, a few
// levels deep).
func usesMessage(v ssa.Value, m *Message, depth int) bool {
	if v == nil || depth > 6 {
		return false
	}
	if m.Matches(v.Type()) {
		return true
	}
	switch x := v.(type) {
	case *ssa.UnOp:
		return usesMessage(x.X, m, depth+1)
	case *ssa.BinOp:
		return usesMessage(x.X, m, depth+1) || usesMessage(x.Y, m, depth+1)
	case *ssa.Call:
		for _, a := range x.Call.Args {
			if usesMessage(a, m, depth+1) {
				return true
			}
		}
	case *ssa.FieldAddr:
		return usesMessage(x.X, m, depth+1)
	case *ssa.Field:
		return usesMessage(x.X, m, depth+1)
	}
	return false
}

// entailedOuter reports whether every world of the path takes each of
// edges, the branches that lead from a block the path passes to an
// early return's last branch: their other sides cannot be.
func (w *walk) entailedOuter(fr *frame, edges []edgeOf) bool {
	if len(w.worlds) == 0 {
		return false
	}
	for _, wd := range w.worlds {
		if _, ok := w.entailsAll(wd, fr, edges); !ok {
			return false
		}
	}
	return true
}

// chainCond is the condition "not the whole of one if statement's
// condition" for a chain of its parts that leads into its body (to the
// return, or the call, at body), when every part is a condition of state, or of the
// request (not an error test) or state: then it is the request's
// (class Input), which the way asks, not a condition of its only-if.
func (w *walk) chainCond(fr *frame, chain []edgeOf, body token.Pos) (Cond, bool) {
	whole := ""
	var first token.Pos
	var fields []*types.Var
	input := false
	for i, e := range chain {
		text, pos, _ := w.c.text.condText(e.ifi)
		wh := w.c.text.whole(pos, text)
		if wh == "" || i > 0 && wh != whole {
			return Cond{}, false
		}
		whole = wh
		if !first.IsValid() || pos < first {
			first = pos
		}
		pc := Cond{Func: fr.fn, If: e.ifi, Text: text, Pos: pos}
		w.classify(fr, &pc, e.ifi.Cond, e.want)
		switch {
		case pc.Class == Input && !errTest(e.ifi.Cond):
			input = true
		case pc.Class != State:
			return Cond{}, false
		}
		fields = append(fields, fieldsRead(e.ifi.Cond)...)
	}
	// The return is in the if statement's body: the chain is the
	// condition holding.
	ix := w.c.text.of(first)
	if ix == nil || !body.IsValid() {
		return Cond{}, false
	}
	inBody := false
	for _, c := range ix.conds {
		if c.text == whole && c.body <= body && body <= c.end {
			inBody = true
		}
	}
	if !inBody {
		return Cond{}, false
	}
	top := chain[len(chain)-1]
	class := State
	if input {
		class = Input // what the request asks (with the state a part compares it with)
	}
	hop, at, meet := w.meetAt(fr, first)
	return Cond{Func: fr.fn, If: top.ifi, Text: whole, Pos: first, Want: false, Class: class, Fields: fields, unasked: input && w.beforeMessage(fr),
		hop: hop, at: at, meet: meet}, true
}

// loopHeads are the blocks whose branch asks whether a range loop goes on.
var loopHeads = map[string]bool{
	"rangeindex.loop": true, "rangeiter.loop": true, "rangechan.loop": true,
	"rangeint.loop": true, "rangefunc.loop": true,
}

// loopExit reports whether ifi, taken want, leaves a for loop (`for
// leader == nil { … }`) whose condition reads a value the loop carries
// from one pass to the next (a phi of its head that a pass sets): every
// run that leaves the loop by that test finds it so, whatever it was
// when the loop began, so the test is the loop's next iteration, not a
// condition of the way.
func loopExit(ifi *ssa.If, want bool) bool {
	head := ifi.Block()
	if want || head.Comment != "for.loop" || len(head.Succs) != 2 || head.Succs[1].Comment != "for.done" {
		return false
	}
	carried := false
	var visit func(v ssa.Value, depth int)
	visit = func(v ssa.Value, depth int) {
		if carried || depth > 4 {
			return
		}
		if phi, ok := v.(*ssa.Phi); ok && phi.Block() == head {
			for i, e := range phi.Edges {
				if i < len(head.Preds) && head.Dominates(head.Preds[i]) && e != phi {
					carried = true
				}
			}
			return
		}
		if ins, ok := v.(ssa.Instruction); ok && ins.Block() != head {
			return
		}
		if ins, ok := v.(ssa.Instruction); ok {
			for _, op := range ins.Operands(nil) {
				if *op != nil {
					visit(*op, depth+1)
				}
			}
		}
	}
	visit(ifi.Cond, 0)
	return carried
}

// decide evaluates one branch of a path.
func (w *walk) decide(fr *frame, ifi *ssa.If, want bool) Cond {
	text, pos, flip := w.c.text.condText(ifi)
	c := Cond{Func: fr.fn, If: ifi, Text: text, Pos: pos, Want: want != flip}
	if want {
		c.taken = ifi.Block().Succs[0]
	} else {
		c.taken = ifi.Block().Succs[1]
	}
	c.Whole = w.c.text.whole(pos, text)
	c.Entry = w.c.text.lookupOf(ifi.Cond)
	c.hop, c.at, c.meet = w.meetAt(fr, pos)
	if loopExit(ifi, want) {
		c.Class = Ordinary
		w.settle(fr, ifi, want, &c)
		return c
	}
	if loopHeads[ifi.Block().Comment] {
		c.Class = Ordinary
		// A counted loop whose bound the path fixes (a loop over a slice
		// the path leaves empty) is settled: a way that needs a pass it
		// cannot make, or an end it cannot reach, cannot run. Its test is
		// not listed as a condition either way. A pass of a loop over a
		// slice of server state needs the slice not empty: a condition of
		// state.
		if b, ok := ifi.Cond.(*ssa.BinOp); ok && b.Op == token.LSS {
			y := fr.eval(b.Y)
			if _, fixed := intConst(y); fixed {
				w.settle(fr, ifi, want, &c)
			} else if want != flip && y.org == state {
				if x, ok := w.c.text.rangedOver(ifi); ok {
					c.Class, c.Ranged, c.Loop = State, x, w.c.text.loopOf(ifi)
					c.Text = x // as written where the slice is had
					c.Fields = fieldsRead(b.Y)
				}
			}
		} else if rg, _, ok := rangeMap(ifi); ok && want && mapOfState(fr, rg.X) {
			// A pass of a loop over a map of server state, or over one the
			// path made and handed only to calls given nothing of the
			// request (which fill it from stored data, say), needs the map
			// not empty: a condition of state, as for a slice.
			c.Class, c.Ranged, c.Loop = State, c.Text, w.c.text.loopOf(ifi) // the map, as written where it is had
			c.Fields = fieldsRead(rg.X)
		}
		return c
	}
	// An assertion: the branch the path does not take only panics, so
	// the condition restricts no run that goes on.
	if onlyPanics(notTaken(ifi, want), 0) {
		c.Class = Ordinary
	} else {
		w.classify(fr, &c, ifi.Cond, want)
		c.Fields = fieldsRead(ifi.Cond)
		if (c.Class == Input || c.Class == Ordinary) && errTest(ifi.Cond) {
			// A check the way needs passed or failed: of the request, or a
			// call of state given some of it (a permission check of the
			// caller).
			w.checkCall(fr, &c, ifi.Cond, want, nil)
			c.unasked = c.check() == ""
			w.erred(fr, &c, ifi.Cond, want)
		}
		c.unasked = c.unasked || (c.Class == Input || c.check() != "") && w.beforeMessage(fr)
	}
	w.settle(fr, ifi, want, &c)
	return c
}

// errTest reports whether v tests an error (through a not): compares a
// value of type error, or calls a function given one (`err != nil`, a
// match of an error against a variable).
func errTest(v ssa.Value) bool {
	isErr := func(x ssa.Value) bool { return callpath.IsError(x.Type()) }
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op == token.NOT {
			return errTest(x.X)
		}
	case *ssa.BinOp:
		return (x.Op == token.EQL || x.Op == token.NEQ) && (isErr(x.X) || isErr(x.Y))
	case *ssa.Call:
		for _, a := range x.Call.Args {
			if isErr(a) {
				return true
			}
		}
	}
	return false
}

// meetAt is where the way meets a condition at pos in frame fr: the
// index of the path's frame that fr is or is called from, and pos, or
// the call that frame makes toward fr (and its text); -1 when fr is on
// no path frame's chain.
func (w *walk) meetAt(fr *frame, pos token.Pos) (int, token.Pos, string) {
	var call ssa.CallInstruction
	for f := fr; f != nil; f = f.parent {
		if f.idx < len(w.frames) && w.frames[f.idx] == f {
			if call == nil {
				return f.idx, pos, ""
			}
			return f.idx, call.Pos(), w.c.text.callText(call)
		}
		if f.callAt != nil {
			call = f.callAt
		}
	}
	return -1, pos, ""
}

// usedBetween reports whether a result of call other than the one at
// index i is used after it and before instruction until: by an
// instruction a run can reach from the call before until, through the
// phis that merge it (a variable declared before an if statement that
// the call assigns in its body).
func usedBetween(call *ssa.Call, i int, until ssa.Instruction) bool {
	seen := map[ssa.Value]bool{}
	var uses func(v ssa.Value) bool
	uses = func(v ssa.Value) bool {
		if seen[v] || v.Referrers() == nil {
			return false
		}
		seen[v] = true
		for _, r := range *v.Referrers() {
			switch r := r.(type) {
			case *ssa.DebugRef:
			case *ssa.Phi:
				if uses(r) {
					return true
				}
			default:
				if r == until || anyBetween(call, until, func(z ssa.Instruction) bool { return z == r }, nil) {
					return true
				}
			}
		}
		return false
	}
	for _, r := range *call.Referrers() {
		if x, ok := r.(*ssa.Extract); ok && x.Index != i && uses(x) {
			return true
		}
	}
	return false
}

// givenInput reports whether call is given a value of the root's input
// (besides a method's receiver), or calls a function value that closes
// over one.
func givenInput(fr *frame, call ssa.CallInstruction) bool {
	for _, a := range checked(call) {
		if fr.eval(a).org == input || filledFromInput(fr, a, call) {
			return true
		}
	}
	// A function value that closes over part of the request (a check of
	// the request's keys that a caller hands down).
	if cm := call.Common(); !cm.IsInvoke() && cm.StaticCallee() == nil {
		for _, b := range fr.eval(cm.Value).bindings {
			// A variable it captures holds its value (a parameter's copy).
			if b != nil && b.kind == kObj && b.obj != nil {
				b = b.obj.whole(fr, nil)
			}
			if b != nil && ofInput(b) {
				return true
			}
		}
	}
	return false
}

// filledFromInput reports whether a, the address of a field of a struct
// (a struct of credentials the function keeps), is handed to call after
// the function may have stored part of the request in one of that
// field's own fields (the caller's name from the request's header): the
// call is given what the request brought.
func filledFromInput(fr *frame, a ssa.Value, call ssa.CallInstruction) bool {
	fa, ok := a.(*ssa.FieldAddr)
	if !ok || fa.X.Referrers() == nil {
		return false
	}
	for _, r := range *fa.X.Referrers() {
		of, ok := r.(*ssa.FieldAddr)
		if !ok || of.Field != fa.Field {
			continue
		}
		for _, r := range *of.Referrers() {
			inner, ok := r.(*ssa.FieldAddr)
			if !ok {
				continue
			}
			for _, r := range *inner.Referrers() {
				if st, ok := r.(*ssa.Store); ok && st.Addr == inner && mayRunBefore(st, call) && ofInput(fr.eval(st.Val)) {
					return true
				}
			}
		}
	}
	return false
}

// calledAt is where call is made, for a test of what it returned that
// names the call (its line, not the test's); at, the test's, when the
// call has no place of its own.
func calledAt(call ssa.CallInstruction, at token.Pos) token.Pos {
	if p := call.Pos(); p.IsValid() {
		return p
	}
	return at
}

// checkCall sets c's Passes or Fails when cond, which tests an error,
// is the test of a check's result (checkOf, with until) and the check is
// of the request (c is of class Input) or given part of it (a permission
// check of the caller).
func (w *walk) checkCall(fr *frame, c *Cond, cond ssa.Value, want bool, until ssa.Instruction) {
	call, fails, ok := w.c.checkOf(cond, want, until)
	if !ok || c.Class != Input && !givenInput(fr, call) {
		return
	}
	if fails {
		w.notLoaded(fr, c, call)
		c.Fails = w.c.text.callText(call)
	} else {
		c.Passes = w.c.text.callText(call)
	}
	c.CheckAt = call.Pos()
	if cm := call.Common(); !cm.IsInvoke() && cm.StaticCallee() == nil {
		c.PassesFn = fr.eval(cm.Value).fn
	}
}

// erred makes c, an ordinary test of an error, a condition of state when
// the way needs the error and it is what a call of state returned,
// whether the analysis follows the call (its returns say under which
// branches it fails, which the way's conditions may not list: a test of
// an inner call's error, a field the apply set) or not.
func (w *walk) erred(fr *frame, c *Cond, cond ssa.Value, want bool) {
	if c.Class != Ordinary && c.Class != Input || c.check() != "" {
		return
	}
	x, needsErr, ok := nilTest(cond, want)
	if !ok || !needsErr {
		return
	}
	call := resultOf(x)
	if !callpath.IsError(x.Type()) {
		return
	}
	v := fr.eval(x)
	if call != nil && v.kind == kAlt && givenInput(fr, call) {
		// A followed call given part of the request: the request may
		// make it fail (a lease it names that the lessor lacks). The way
		// needs it to fail: what it asks of the request, as a check it
		// fails, not a condition of state.
		c.Fails, c.erredCall = w.c.text.callText(call), call
		c.CheckAt = call.Pos()
		c.unasked = w.beforeMessage(fr)
		return
	}
	if c.Class != Ordinary || v.org != state {
		return
	}
	if call == nil {
		// An error the way reads from memory (a field a deferred function
		// finds): the test itself is a condition of state, with what
		// leads to the error listed beside it when every way to it shares
		// it (needed). (The error of a call the way tests at once is
		// named by the call below.)
		if !takesRequest(fr, cond, 0) {
			c.Class, c.errRead = State, true
		}
		return
	}
	if v.kind != kOpaque && v.kind != kAlt {
		return
	}
	w.notLoaded(fr, c, call)
	c.Class, c.Erred = State, w.c.text.callText(call)
	if v.kind == kAlt {
		c.erredCall = call
	}
}

// notLoaded sets c.Unloaded when c tests the error of call, which the
// way needs, and the code the call runs is the target's but not loaded
// from source (nor followed on the path): whether that code can return
// an error is not known. The verdict stays what the rest of the way
// makes it, so that it does not depend on which packages a run loads;
// a way with such a need is shown after one without (bestWay).
func (w *walk) notLoaded(fr *frame, c *Cond, call ssa.CallInstruction) {
	where, ok := w.c.unloaded(call)
	if !ok {
		return
	}
	if v, isCall := call.(*ssa.Call); isCall && fr.eval(v).kind == kAlt {
		return // followed on the path
	}
	c.Unloaded = where
}

// NeedsUnloaded reports whether the way needs an error of a call whose
// code is not loaded (Cond.Unloaded).
func (r *Result) NeedsUnloaded() bool {
	for _, c := range r.Conds {
		if c.Unloaded != "" {
			return true
		}
	}
	return false
}

// unloaded says where the code call runs is when that is the target's
// own (Owns) and none of it is loaded from source: a function with no
// body ("its code is in PKG"), or an interface's method that the call
// graph gives no callee with one ("a method of PKG's interface I").
func (c *Checker) unloaded(call ssa.CallInstruction) (string, bool) {
	if c.Owns == nil {
		return "", false
	}
	cm := call.Common()
	switch {
	case cm.IsInvoke():
		if c.edges != nil {
			for _, e := range c.edges(call) {
				if e.Callee.Func != nil && e.Callee.Func.Blocks != nil {
					return "", false
				}
			}
		}
		named, ok := types.Unalias(cm.Value.Type()).(*types.Named)
		if !ok || named.Obj().Pkg() == nil || !c.Owns(named.Obj().Pkg().Path()) {
			return "", false
		}
		return fmt.Sprintf("a method of %s's interface `%s`", named.Obj().Pkg().Path(), named.Obj().Name()), true
	case cm.StaticCallee() != nil:
		fn := cm.StaticCallee()
		if fn.Blocks != nil || fn.Pkg == nil || !c.Owns(fn.Pkg.Pkg.Path()) {
			return "", false
		}
		return "its code is in " + fn.Pkg.Pkg.Path(), true
	}
	return "", false
}

// nilTest is, when v compares a value with nil (through a not), that
// value, and whether the outcome want of v needs it not nil.
func nilTest(v ssa.Value, want bool) (x ssa.Value, notNil, ok bool) {
	if u, isNot := v.(*ssa.UnOp); isNot && u.Op == token.NOT {
		return nilTest(u.X, !want)
	}
	b, isBin := v.(*ssa.BinOp)
	if !isBin || b.Op != token.EQL && b.Op != token.NEQ {
		return nil, false, false
	}
	x = b.X
	if k, isConst := x.(*ssa.Const); isConst && k.IsNil() {
		x = b.Y
	} else if k, isConst := b.Y.(*ssa.Const); !isConst || !k.IsNil() {
		return nil, false, false
	}
	return x, (b.Op == token.EQL) != want, true
}

// checkOf is, when v compares with nil the error a check returned (a
// call given something, whose only result used is that error, or given
// only a context: ofContext) (through a not), that call, and whether the outcome want of v needs the error
// (fails) or needs it nil. With until (where a way goes on past a join),
// a call whose other results are used only after until is one too (a
// permission check that also returns the revision it checked at,
// compared when the way's call has returned: usedBetween).
func (c *Checker) checkOf(v ssa.Value, want bool, until ssa.Instruction) (call ssa.CallInstruction, fails, ok bool) {
	x, fails, ok := nilTest(v, want)
	if !ok {
		return nil, false, false
	}
	x = c.stored(x)
	// A check: a call that returns only an error, or whose other results
	// nothing uses, given something to check (not a stream's receive, not
	// a context's own error).
	if e, ok := x.(*ssa.Extract); ok {
		if call, ok := e.Tuple.(*ssa.Call); ok && (onlyErrUsed(call, e.Index) || ofContext(call) || until != nil && !usedBetween(call, e.Index, until)) && len(checked(call)) > 0 {
			return call, fails, true
		}
		return nil, false, false
	}
	cl, ok := x.(*ssa.Call)
	if !ok || cl.Call.Signature().Results().Len() != 1 || len(checked(cl)) == 0 {
		return nil, false, false
	}
	return cl, fails, true
}

// used reports whether anything but a debug reference refers to v (a
// result assigned to _ is not used).
func used(v ssa.Value) bool {
	for _, r := range *v.Referrers() {
		if _, ok := r.(*ssa.DebugRef); !ok {
			return true
		}
	}
	return false
}

// onlyErrUsed reports whether, of call's results, only the one at index
// i is used.
func onlyErrUsed(call *ssa.Call, i int) bool {
	for _, r := range *call.Referrers() {
		switch r := r.(type) {
		case *ssa.DebugRef:
		case *ssa.Extract:
			if r.Index != i && used(r) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// ofContext reports whether call is given a context and nothing else (a
// method's receiver aside): what it checks is what the request carries in
// its context, the caller's credentials or its deadline, whatever else
// it returns (the auth information a credentials check reads out).
func ofContext(call *ssa.Call) bool {
	args := checked(call)
	for _, a := range args {
		if !isContext(a.Type()) {
			return false
		}
	}
	return len(args) > 0
}

// isContext reports whether t is context.Context.
func isContext(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "context" && n.Obj().Name() == "Context"
}

// checked are the arguments of call, without a method's receiver.
func checked(call ssa.CallInstruction) []ssa.Value {
	args := call.Common().Args
	if !call.Common().IsInvoke() && call.Common().Signature().Recv() != nil && len(args) > 0 {
		args = args[1:]
	}
	return args
}

// beforeMessage reports whether, on a way handed a message, frame fr is
// not within the message's dispatch (nor a call it makes).
func (w *walk) beforeMessage(fr *frame) bool {
	if w.p.Message == nil {
		return false
	}
	for f := fr; f != nil; f = f.parent {
		if f.msg != nil {
			return false
		}
	}
	return true
}

// settle constrains the path's worlds with the condition: when no world
// can take it, the path's earlier conditions, what its calls returned and
// what the store keeps true exclude it; when no world can take its
// negation, they imply it.
func (w *walk) settle(fr *frame, ifi *ssa.If, want bool, c *Cond) {
	self := &reason{cond: c, pos: c.Pos, kind: ReasonCond}
	w.settled = append(w.settled, settledIf{fr: fr, ifi: ifi, want: want, why: self})
	before := len(w.deaths)
	ws := w.constrain(w.worlds, fr, ifi.Cond, want, self)
	if len(ws) == 0 {
		// The worlds that reached this condition, and why each cannot
		// take it (not why other worlds ended earlier on the path).
		var rs []*reason
		for _, d := range w.deaths[before:] {
			rs = append(rs, d.why...)
		}
		c.Refuted = explain(w.c.text.fset, rs, c)
		if c.Class != False {
			c.Class = Excluded
			c.Prior, c.Why = nil, ""
			for i := range c.Refuted {
				if r := c.Refuted[i]; r.Cond != nil && r.Kind == ReasonCond {
					c.Prior, c.Why = r.Cond, r.Cond.Text
				}
			}
			if c.Prior == nil {
				for i := range c.Refuted {
					if r := c.Refuted[i]; r.Cond != nil {
						c.Prior, c.Why = r.Cond, r.Cond.Text
						break
					}
				}
			}
		}
		w.worlds = nil
		return
	}
	// A comparison of a part of the request that every world leaves one
	// value: the client cannot choose it, so the condition is the state's.
	if c.Class == Input {
		if pins := w.pinned(ws, fr, ifi.Cond, c); pins != nil {
			c.Class, c.Pinned = State, pins
		}
	}
	if c.Class == State {
		c.Pinned = append(c.Pinned, w.fixedOperands(fr, ifi.Cond)...)
	}
	// (A world found to take the negation, a witness, shows at once that
	// the condition is not implied.)
	if (c.Class == State || c.Class == Input || c.Class == Gave) && !w.witnessIn(w.worlds, fr, ifi.Cond, !want) {
		saved := w.deaths
		neg := w.constrain(w.worlds, fr, ifi.Cond, !want, self)
		if len(neg) == 0 {
			var rs []*reason
			for _, d := range w.deaths[len(saved):] {
				rs = append(rs, d.why...)
			}
			c.Class, c.Implied = True, explain(w.c.text.fset, rs, c)
		}
		w.deaths = saved
	}
	w.worlds = shrink(ws)
}

// notTaken is the block an if's other side leads to: the one a way that
// needs its condition to be want does not take.
func notTaken(ifi *ssa.If, want bool) *ssa.BasicBlock {
	if want {
		return ifi.Block().Succs[1]
	}
	return ifi.Block().Succs[0]
}

// onlyPanics reports whether every way on from block b ends in a panic.
func onlyPanics(b *ssa.BasicBlock, depth int) bool {
	if b == nil || depth > 8 || len(b.Instrs) == 0 {
		return false
	}
	switch b.Instrs[len(b.Instrs)-1].(type) {
	case *ssa.Panic:
		return true
	case *ssa.Jump:
		return onlyPanics(b.Succs[0], depth+1)
	case *ssa.If:
		return onlyPanics(b.Succs[0], depth+1) && onlyPanics(b.Succs[1], depth+1)
	}
	return false
}

// fieldsRead lists the struct fields v is computed from within its
// function, nearest first.
func fieldsRead(v ssa.Value) []*types.Var {
	var out []*types.Var
	seen := map[ssa.Value]bool{}
	var visit func(v ssa.Value, depth int)
	visit = func(v ssa.Value, depth int) {
		if v == nil || seen[v] || depth > 8 {
			return
		}
		seen[v] = true
		switch x := v.(type) {
		case *ssa.FieldAddr:
			if fv := fieldVar(x.X.Type(), x.Field); fv != nil {
				out = append(out, fv)
			}
			visit(x.X, depth+1)
			return
		case *ssa.Field:
			if fv := fieldVar(x.X.Type(), x.Field); fv != nil {
				out = append(out, fv)
			}
			visit(x.X, depth+1)
			return
		case *ssa.Alloc:
			for _, st := range stores(x) {
				visit(st.Val, depth+1)
			}
			return
		}
		if ins, ok := v.(ssa.Instruction); ok {
			var ops []*ssa.Value
			for _, op := range ins.Operands(ops) {
				if op != nil {
					visit(*op, depth+1)
				}
			}
		}
	}
	visit(v, 0)
	return out
}

// classify decides condition v, which the path needs to be want.
func (w *walk) classify(fr *frame, c *Cond, v ssa.Value, want bool) {
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op == token.NOT {
			w.classify(fr, c, x.X, !want)
			return
		}
	case *ssa.Extract:
		switch t := x.Tuple.(type) {
		case *ssa.TypeAssert:
			if x.Index == 1 {
				w.typeTest(fr, c, t, want)
				return
			}
		case *ssa.UnOp, *ssa.Next, *ssa.Select:
			c.Class = Ordinary // a receive that finds its channel open, a loop
			return
		}
	case *ssa.BinOp:
		if sel, k, ok := selectCase(x); ok {
			c.Class = Ordinary // a select in a loop, or a case the way passes over
			takes := want == (x.Op == token.EQL)
			if takes && !inCycle(sel.Block()) && k < len(sel.States) {
				if text, pos, ok := w.c.text.commText(sel.States[k].Pos); ok {
					c.Class, c.Case, c.Text, c.Pos, c.Whole, c.Want = State, true, text, pos, "", true
				}
			}
			if !takes && !sel.Blocking && !inCycle(sel.Block()) && k == len(sel.States)-1 && sel.Pos().IsValid() {
				// Past the test of its last case, a select that does not
				// block takes its default (a server that is not stopping).
				c.Class, c.Case, c.Text, c.Pos, c.Whole, c.Want = State, true, "default", sel.Pos(), "", true
			}
			return
		}
		switch x.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
			w.compare(fr, c, x, want)
			return
		}
	}
	val := fr.eval(v)
	if val.kind == kConst && !val.isNil && val.c.Kind() == constant.Bool {
		w.decided(c, constant.BoolVal(val.c) == want, Fixed{Name: c.Text, Value: val.show(), At: val.at, Unset: val.unset})
		return
	}
	w.byOrigin(c, val)
}

func (w *walk) decided(c *Cond, holds bool, fs ...Fixed) {
	c.Class = False
	if holds {
		c.Class = True
	}
	for _, f := range fs {
		if f.At.IsValid() || f.Unset != nil {
			c.Fixed = append(c.Fixed, f)
		}
	}
}

func (w *walk) byOrigin(c *Cond, v *value) {
	switch v.org {
	case fixed, input:
		c.Class = Input
	case state:
		c.Class = State
	default:
		c.Class = Gave
		c.Why = v.why
	}
}

// selectCase reports whether b compares the index of the case a select
// chose with a constant: the select and the case's index.
func selectCase(b *ssa.BinOp) (*ssa.Select, int, bool) {
	for i, side := range []ssa.Value{b.X, b.Y} {
		if e, ok := side.(*ssa.Extract); ok && e.Index == 0 {
			if sel, ok := e.Tuple.(*ssa.Select); ok {
				k := -1
				if c, ok := []ssa.Value{b.Y, b.X}[i].(*ssa.Const); ok && c.Value != nil && c.Value.Kind() == constant.Int {
					if v, exact := constant.Int64Val(c.Value); exact {
						k = int(v)
					}
				}
				if k < 0 {
					return sel, len(sel.States), true
				}
				return sel, k, true
			}
		}
	}
	return nil, 0, false
}

func (w *walk) typeTest(fr *frame, c *Cond, ta *ssa.TypeAssert, want bool) {
	x := fr.eval(ta.X)
	if x.kind == kNonNil && x.dyn != nil {
		ok := types.Identical(x.dyn, ta.AssertedType)
		if iface, isIface := ta.AssertedType.Underlying().(*types.Interface); isIface {
			ok = types.Implements(x.dyn, iface)
		}
		w.decided(c, ok == want, Fixed{Name: c.Text, Value: types.TypeString(x.dyn, nil), At: x.at})
		return
	}
	if x.kind == kConst && x.isNil {
		w.decided(c, !want, Fixed{Name: c.Text, Value: "nil", At: x.at})
		return
	}
	if x.kind == kTerm && x.org == input {
		c.Class = Input
		return
	}
	w.byOrigin(c, x)
}

// compare decides a comparison.
func (w *walk) compare(fr *frame, c *Cond, b *ssa.BinOp, want bool) {
	x, y := fr.eval(b.X), fr.eval(b.Y)
	names := w.operands(b)
	if r, ok := foldBool(b.Op, x, y); ok {
		w.decided(c, r == want,
			Fixed{Name: names[0], Value: x.show(), At: x.at, Set: setOf(x), Unset: x.unset, Handed: x.handed},
			Fixed{Name: names[1], Value: y.show(), At: y.at, Set: setOf(y), Unset: y.unset, Handed: y.handed})
		return
	}
	// The error of a call compared with nil: either way in normal runs.
	if (b.Op == token.EQL || b.Op == token.NEQ) && (isNilConst(x) && callpath.IsError(b.Y.Type()) || isNilConst(y) && callpath.IsError(b.X.Type())) {
		other := x
		if isNilConst(x) {
			other = y
		}
		if other.org != input {
			c.Class = Ordinary
			return
		}
	}
	op := b.Op
	if !want {
		op = negate(op)
	}
	if x.kind == kTerm && y.kind == kConst && x.org == input || y.kind == kTerm && x.kind == kConst && y.org == input {
		c.Class = Input
		return
	}
	switch {
	case x.org == unknown || y.org == unknown:
		c.Class = Gave
		c.Why = x.why
		if c.Why == "" {
			c.Why = y.why
		}
	case x.org == input || y.org == input:
		c.Class = Input
	case x.org == fixed && y.org == fixed:
		c.Class = Input // fixed values the analysis cannot compare: not state
	default:
		c.Class = State
	}
}

// operands are the source texts of a comparison's operands.
func (w *walk) operands(b *ssa.BinOp) [2]string {
	if ix := w.c.text.of(b.Pos()); ix != nil {
		return ix.operands[b.Pos()]
	}
	return [2]string{}
}

// setOf lists the fields set by the literal that leaves v unset.
func setOf(v *value) []string {
	if v.lit == nil {
		return nil
	}
	if len(v.lit.set) == 0 {
		return []string{}
	}
	return v.lit.set
}

func isNilConst(v *value) bool { return v.kind == kConst && v.isNil }

func negate(op token.Token) token.Token {
	switch op {
	case token.EQL:
		return token.NEQ
	case token.NEQ:
		return token.EQL
	case token.LSS:
		return token.GEQ
	case token.LEQ:
		return token.GTR
	case token.GTR:
		return token.LEQ
	case token.GEQ:
		return token.LSS
	}
	return op
}

// mirror turns c OP x into x OP' c.
func mirror(op token.Token) token.Token {
	switch op {
	case token.LSS:
		return token.GTR
	case token.LEQ:
		return token.GEQ
	case token.GTR:
		return token.LSS
	case token.GEQ:
		return token.LEQ
	}
	return op
}

// Use returns the instruction at which fn evaluates the expression at pos
// (the program is built with debug information, so each expression has a
// DebugRef), or, failing that, the first instruction on that line.
func Use(fn *ssa.Function, pos token.Pos) ssa.Instruction {
	var line ssa.Instruction
	fset := fn.Prog.Fset
	want := fset.Position(pos)
	for _, b := range fn.Blocks {
		for _, ins := range b.Instrs {
			if d, ok := ins.(*ssa.DebugRef); ok {
				if d.Expr.Pos() == pos || (isSel(d.Expr) && d.Expr.(*ast.SelectorExpr).Sel.Pos() == pos) {
					return d
				}
			}
			if line == nil && ins.Pos().IsValid() && fset.Position(ins.Pos()).Line == want.Line {
				line = ins
			}
		}
	}
	return line
}

func isSel(e ast.Expr) bool { _, ok := e.(*ast.SelectorExpr); return ok }

// checkBudget bounds the constraint work on one path: past it, the
// path's conditions are taken as they come, and a path not ruled out
// before is Unknown (Bounded). On etcd v3.7.3 the deepest refutation the
// notes need (a gRPC Txn's earlier checks of every request) takes about
// 5000, and the Txn handler's read-only way to a range's refusal of a
// future revision about 10000.
const checkBudget = 12000

// pinned are the operands of comparison v that depend on the request,
// when each is one value, the same in every world of ws, and another
// operand is state that some world leaves free: the client has no choice
// left, and the comparison asks the state. Nil otherwise (or when v is
// no comparison): a comparison of a part of the request with a constant,
// or with state the worlds fix, is the client's choice.
func (w *walk) pinned(ws []*world, fr *frame, v ssa.Value, c *Cond) []Pin {
	b, ok := v.(*ssa.BinOp)
	if !ok || len(ws) == 0 {
		return nil
	}
	names := w.operands(b)
	saved, budget := w.deaths, w.budget
	defer func() { w.deaths, w.budget = saved, budget }()
	var out []Pin
	free := false
	for i, x := range []ssa.Value{b.X, b.Y} {
		val := fr.eval(x)
		if val.org == state && val.kind != kConst {
			// State that some world leaves free (one of several values
			// is taken as it is in each world).
			for _, ch := range w.expand(ws, fr, x, val, nil) {
				t, _, ok := linOf(ch.val)
				if !ok || t != "" && !isFixed(ch.w, t) {
					free = true
				}
			}
			continue
		}
		if val.org != input {
			continue
		}
		var k int64
		var rs []*reason
		var terms []termOff
		mark := len(w.deaths)
		chs := w.expand(ws, fr, x, val, nil)
		if len(chs) == 0 {
			return nil
		}
		seen := false
		for _, ch := range chs {
			t, off, ok := linOf(ch.val)
			if !ok || t == "" {
				return nil
			}
			terms = append(terms, termOff{t, off})
			for _, nw := range w.narrowTerm(ch.w, t) {
				n, ok := nw.d.value(t)
				if !ok || seen && n+off != k {
					return nil
				}
				k, seen = n+off, true
				_, up := nw.d.implies(t, "", n)
				_, down := nw.d.implies("", t, -n)
				rs = append(append(rs, up...), down...)
			}
		}
		if !seen {
			return nil
		}
		// Why the other values cannot be: the other returns of the calls
		// whose returns let the value through, which died (a return that
		// refuses a value the branch needs, one that passes only values
		// the branch excludes). Deaths of other ways (other checks of
		// the same element) are left out: they are no part of why.
		calls := map[ssa.CallInstruction]bool{}
		for _, r := range rs {
			if r != nil && len(r.via) > 0 {
				calls[r.via[len(r.via)-1].call] = true
			}
		}
		for _, d := range w.deaths[mark:] {
			for _, r := range d.why {
				if r != nil && r.kind == ReasonGuard && len(r.via) > 0 && calls[r.via[len(r.via)-1].call] {
					rs = append(rs, r)
				}
			}
		}
		out = append(out, Pin{Name: names[i], Value: k, Because: explain(w.c.text.fset, rs, c), terms: terms})
	}
	if !free {
		return nil
	}
	return out
}

// narrowTerm is world wd narrowed by what every element of a slice
// passes, said of the elements that term t is part of (see narrow).
func (w *walk) narrowTerm(wd *world, t string) []*world {
	ws := []*world{wd}
	slices := make([]string, 0, len(wd.forall))
	for s := range wd.forall {
		slices = append(slices, s)
	}
	sort.Strings(slices) // one order on every run
	for _, s := range slices {
		ts := wd.forall[s]
		for _, e := range wd.elems[s] {
			if t != e && !strings.HasPrefix(t, e+".") {
				continue
			}
			var next []*world
			for _, x := range ws {
				next = append(next, w.narrow(x, ts, e)...)
			}
			ws = next
		}
	}
	return ws
}

// isFixed reports whether world wd fixes term t to one value.
func isFixed(wd *world, t string) bool {
	_, ok := wd.d.value(t)
	return ok
}

// fixedOperands are the operands of comparison v that the path fixes to
// an integer constant where the condition does not write one (a constant
// argument, a field a literal leaves unset), with where, when the value
// says: a condition of state that compares one says what it asks of the
// state only with its value.
func (w *walk) fixedOperands(fr *frame, v ssa.Value) []Pin {
	b, ok := v.(*ssa.BinOp)
	if !ok || !isInteger(b.X.Type()) {
		return nil
	}
	names := w.operands(b)
	var out []Pin
	for i, x := range []ssa.Value{b.X, b.Y} {
		if _, lit := x.(*ssa.Const); lit || names[i] == "" {
			continue
		}
		val := fr.eval(x)
		k, ok := intConst(val)
		if !ok {
			continue
		}
		out = append(out, Pin{Name: names[i], Value: k, Fixed: true, At: val.at})
	}
	return out
}
