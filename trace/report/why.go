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
