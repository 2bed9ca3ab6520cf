package report

// Why answers `srctrace why SYMBOL`: every use of one object of the
// target's source, by identity, and the roots found from the code that
// reach each use by a path that can run. Sites, Entries and Paths have the
// shapes of a study's report.
type Why struct {
	// Symbol is the object as the user named it; Object where it is
	// declared and what it is ("var", "const", "func", "method", "field",
	// "type"). For an error's text, Symbol is empty and Text, Matches
	// and Answers say what it matched.
	Symbol string `json:"symbol"`
	// Text is the error's text as the user gave it; Stripped the text
	// once the forms the layers put around it are taken off (Forms: who
	// made each, "grpc" or the tool's name), and Code the gRPC code a
	// status form named.
	Text     string   `json:"text,omitempty"`
	Stripped string   `json:"stripped,omitempty"`
	Forms    []string `json:"forms,omitempty"`
	Code     string   `json:"code,omitempty"`
	// Matches are the error objects the text names, and Answers the
	// answer for each, in the same order.
	Matches []Match `json:"matches,omitempty"`
	Answers []*Why  `json:"answers,omitempty"`
	Object  Object  `json:"object"`
	Etcd    Etcd    `json:"etcd"`
	// Packages are those loaded from source: the object's package, every
	// package of the target's modules that imports it, those that import
	// the sending side of a hand-off into them, and the target's Messages
	// and Gates.
	Packages []string `json:"packages"`
	Sites    []Site   `json:"sites"`
	// Entries are the roots that reach some use by a path that can run,
	// the nearest ones of each use (at most Nearest of them).
	Entries []Entry     `json:"entries"`
	Paths   []PairPaths `json:"paths"`
	// Nearest is how many roots per use are kept; Roots how many roots the
	// code has (of every kind).
	Nearest int            `json:"nearest"`
	Roots   map[string]int `json:"roots"`
	// Ways say, per use and root kept, how the root gets to the use: by
	// calls, across the target's hand-offs (with the message kind each
	// carries), or by the calls a program's main function makes at
	// start-up; and whether a call on the way is dynamic.
	Ways []WhyWay `json:"ways"`
	// HandOffs are the target's hand-offs that the loaded code has (those
	// a way crosses are named in Ways); Absent the target's hand-offs it
	// could not find in the loaded code, with the reason (their packages
	// are not among those loaded, or the release lacks them).
	HandOffs []Boundary `json:"handoffs"`
	Absent   []string   `json:"handoffs_absent,omitempty"`
	// Interceptors are the server interceptors the loaded code builds a
	// gRPC server with, which gRPC runs before the handler of each unary
	// (or stream) method: how each goes on to the handler. A gRPC root's
	// way begins at its handler; these come before it.
	Interceptors []Interceptor `json:"interceptors,omitempty"`
	// User is, for an error variable, what its user meets: the gRPC code
	// and text it becomes, what the Go client returns, and which of the
	// target tool's commands can print it, what they print and their exit
	// status.
	User *User `json:"user,omitempty"`
	// Notes is the answer as a document, for Markdown and HTML.
	Notes *Doc `json:"notes,omitempty"`
}

// Match is one error object a text names.
type Match struct {
	Object string `json:"object"`
	// Kind is how its value is made: errors.New, fmt.Errorf, status (a
	// gRPC status), client (what the client's conversion makes of a wire
	// error), alias (another variable's value), unknown.
	Kind string `json:"kind"`
	Text string `json:"text"`
	Code string `json:"code,omitempty"`
	// How is exact (the text is its message), within (the text contains
	// its whole message), part (the text is a part of its message) or
	// translated (a server error a translation map turns into a match,
	// Via).
	How  string `json:"how"`
	Via  string `json:"via,omitempty"`
	File string `json:"file"`
	Line int    `json:"line"`
	// Decl is its declaration's line.
	Decl string `json:"decl"`
}

// User is an error's user's half.
type User struct {
	// Tool is the name of the target's command-line tool (Etcdctl lists
	// its commands).
	Tool   string      `json:"tool,omitempty"`
	GRPC   *UserGRPC   `json:"grpc,omitempty"`
	Client *UserClient `json:"client,omitempty"`
	// Methods are the gRPC methods whose server roots reach a use of the
	// error by a path that can run (among the roots kept per use) along
	// which the error comes back to the root: each caller returns what
	// its call returned, or keeps it where that is not followed.
	Methods []string `json:"methods"`
	// TranslatedFrom are the server errors a translation map turns into
	// this wire error (their own answers list the commands that surface
	// it through them).
	TranslatedFrom []string `json:"translated_from,omitempty"`
	// Etcdctl are the tool's commands that can surface it: a call a
	// command makes can send one of Methods.
	Etcdctl []UserCommand `json:"etcdctl"`
	// Notes say what could not be decided.
	Notes []string `json:"notes,omitempty"`
	// Unsearched counts the uses whose roots were not searched (in the
	// atlas, those in generated code): Methods and Etcdctl come from the
	// others.
	Unsearched int `json:"unsearched,omitempty"`
}

// UserGRPC is the gRPC code and text an error is sent with.
type UserGRPC struct {
	Code string `json:"code"`
	// Text is the status's message; Status what the status error prints
	// (gRPC's form, as gRPC's status package makes it).
	Text   string `json:"text"`
	Status string `json:"status,omitempty"`
	// Object is the wire error (the translation's value, the object
	// itself, the status a client value is made from).
	Object string `json:"object,omitempty"`
	// By is how: own (a status, sent as it is), made-from (a client value:
	// the status it is made from), translation (a translation map's entry,
	// At, in Map, which Translate indexes), default (what Translate
	// returns for an error no entry holds, At).
	By        string `json:"by"`
	Translate string `json:"translate,omitempty"`
	Map       *Loc   `json:"map,omitempty"`
	At        *Loc   `json:"at,omitempty"`
	// NotStatus is set when the translation's value (for made-from, the
	// value itself) is no gRPC status: gRPC sends it with the code it
	// gives any other error (NonStatus), and its text.
	NotStatus bool   `json:"not_status,omitempty"`
	NonStatus string `json:"non_status,omitempty"`
}

// UserClient is what the Go client returns for the error.
type UserClient struct {
	// Value is the value the client's conversion makes of the wire error
	// (Made: its type; at MadeAt), and Text what it prints; EqualTo the
	// client-side variables it compares equal to (==, errors.Is). When the
	// conversion's map does not hold the message, the client returns the
	// status error it received (Passes), which prints gRPC's form.
	Value   string   `json:"value"`
	Text    string   `json:"text"`
	EqualTo []string `json:"equal_to"`
	Made    string   `json:"made,omitempty"`
	Passes  bool     `json:"passes,omitempty"`
	Convert *Loc     `json:"convert,omitempty"`
	MadeAt  *Loc     `json:"made_at,omitempty"`
	// Retried is set when the client's retrying interceptor tries a
	// repeatable call again on this code (the comparison at RetriedAt).
	Retried   bool `json:"retried,omitempty"`
	RetriedAt *Loc `json:"retried_at,omitempty"`
	// Own are the returns in the client's own code (the packages the
	// tool uses, outside its own module) of a variable of EqualTo: where
	// the client makes that error itself, from no error of the server's
	// (each with the function it is in).
	Own []Loc `json:"own,omitempty"`
}

// UserCommand is one command of the tool that can surface an error
// through one gRPC method.
type UserCommand struct {
	Command string `json:"command"`
	Method  string `json:"method"`
	// Stream is set for a streaming method: what the command prints of
	// its error is not evaluated. Evaluated is set when the command's code
	// was evaluated with the call failing; it is false for a stream, and
	// when the call is not reached once the conditions the evaluation
	// could not decide (Assumed) are taken as false.
	Stream    bool `json:"stream,omitempty"`
	Evaluated bool `json:"evaluated"`
	// Stderr are the lines it prints on stderr; ExitCode its exit status
	// (nil when it returns without exiting), ExitConstant the constant
	// that names it, At the call that exits.
	Stderr       []string `json:"stderr"`
	ExitCode     *int     `json:"exit_code"`
	ExitConstant string   `json:"exit_constant,omitempty"`
	At           *Loc     `json:"at,omitempty"`
	// Assumed are the conditions the evaluation could not decide, taken
	// as false.
	Assumed []string `json:"assumed,omitempty"`
	// Run is the command's function.
	Run string `json:"run"`
	// Unset are fields of the method's request that the command's code
	// never sets ("pkg.Type.Field"), and Cannot what refutes, with them
	// left at zero, a way of the method's roots to a use that can hand the
	// error on (a return or another use that is no comparison, test of
	// its text or map literal's entry): every way they have to one is
	// refuted so. Set only then.
	Unset  []string `json:"unset,omitempty"`
	Cannot *Because `json:"cannot,omitempty"`
}

// Object is a declared Go object.
type Object struct {
	Name string `json:"name"` // qualified
	Kind string `json:"kind"`
	File string `json:"file"`
	Line int    `json:"line"`
	Text string `json:"text"` // the declaration's line
}

// WhyWay is how one root gets to one use.
type WhyWay struct {
	Site int    `json:"site"` // index in Sites
	Root string `json:"root"` // entry name
	// By is "calls" (a call path from the root), "hand-off" (call paths
	// joined across the target's hand-offs) or "start-up" (the calls a
	// main function makes in its own goroutine).
	By string `json:"by"`
	// HandOffs name the hand-offs crossed, in order, and Messages the kind
	// of message each hands off (the fields its message sets, joined with
	// "+"; "" for an untyped hand-off).
	HandOffs []string `json:"handoffs,omitempty"`
	Messages []string `json:"messages,omitempty"`
	// Dynamic is set when the use itself, or a call on the way, goes
	// through an interface method or a function value.
	Dynamic  bool   `json:"dynamic,omitempty"`
	Feasible string `json:"feasible"`
}

// Interceptor is a server interceptor the loaded code builds a gRPC
// server with: the function (Name, where it is), whether it is a stream
// method's (else a unary method's), the call that builds the server's
// option with it (Installed), its call of the handler it is handed
// (Handler), and the returns before that call by which it refuses a
// call (Refuses), each with its way (none: it calls the handler on every
// call).
type Interceptor struct {
	Name      string    `json:"name"`
	File      string    `json:"file"`
	Line      int       `json:"line"`
	Stream    bool      `json:"stream,omitempty"`
	Installed Loc       `json:"installed"`
	Handler   Loc       `json:"handler"`
	Refuses   []Refused `json:"refuses"`
}

// Refused is a return of an interceptor before the handler, and the way
// to it from the interceptor's entry (its Hops are empty).
type Refused struct {
	At  Loc `json:"at"`
	Way Way `json:"way"`
}
