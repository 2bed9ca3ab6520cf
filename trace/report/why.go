package report

// Why answers `srctrace why SYMBOL`: every use of one object of the
// target's source, by identity, and the roots found from the code that
// reach each use by a path that can run. Sites, Entries and Paths have the
// shapes of a study's report.
type Why struct {
	// Symbol is the object as the user named it; Object where it is
	// declared and what it is ("var", "const", "func", "method", "field",
	// "type").
	Symbol string `json:"symbol"`
	Object Object `json:"object"`
	Etcd   Etcd   `json:"etcd"`
	// Packages are those loaded from source: the object's package and
	// every package of the target's modules that imports it.
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
	// Notes is the answer as a document, for Markdown and HTML.
	Notes *Doc `json:"notes,omitempty"`
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
