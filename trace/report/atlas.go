package report

import "strings"

// Atlas answers `srctrace errors`: every exported error variable of the
// target's server and API modules at one release, each with its text, the
// gRPC code it is carried with, its uses and the roots that reach them,
// and the target tool's commands that can print it.
type Atlas struct {
	Etcd Etcd `json:"etcd"`
	// Modules are the modules whose errors are listed; Tool the name of
	// the target's command-line tool.
	Modules []string `json:"modules"`
	Tool    string   `json:"tool,omitempty"`
	// Nearest is how many roots per use are kept.
	Nearest int          `json:"nearest"`
	Errors  []AtlasError `json:"errors"`
	// Notes is the atlas as a document, for Markdown and HTML.
	Notes *Doc `json:"notes,omitempty"`
}

// AtlasError is one error variable.
type AtlasError struct {
	// Object is its qualified name; Anchor the id of its section in the
	// document.
	Object string `json:"object"`
	Anchor string `json:"anchor"`
	// Kind is how its value is made (see Match.Kind); Text its message
	// (empty when it is made otherwise and was not evaluated, with Expr
	// its initializer).
	Kind string `json:"kind"`
	Text string `json:"text"`
	Expr string `json:"expr,omitempty"`
	// GRPCCode is the code it is carried with on the wire ("" when not
	// known).
	GRPCCode string `json:"grpc_code"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Decl     string `json:"decl"`
	// Uses are its uses, each with the roots that reach it; Roots every
	// root of some use.
	Uses  []AtlasUse `json:"uses"`
	Roots []string   `json:"roots"`
	// TranslatedFrom are the server errors a translation map turns into
	// it; MadeFrom, for a value the client makes, the wire error.
	TranslatedFrom []string `json:"translated_from,omitempty"`
	// Etcdctl are the tool's commands that can print it (for a wire error,
	// also through the server errors translated into it; for a client
	// value, through its wire error), and User the rest of its user's
	// half.
	Etcdctl []UserCommand `json:"etcdctl"`
	User    *User         `json:"user,omitempty"`
}

// AtlasUse is one use of an error and the roots that reach it.
type AtlasUse struct {
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Kind     string   `json:"kind"`
	Function string   `json:"function,omitempty"`
	Text     string   `json:"text"`
	Init     bool     `json:"init,omitempty"`
	Roots    []string `json:"roots"`
	// Ways say how each root gets to it: calls, hand-off, start-up.
	Ways []string `json:"ways,omitempty"`
	// Generated marks a use in generated code (a file whose header says
	// "Code generated … DO NOT EDIT."): the atlas lists it but does not
	// search its roots (why does).
	Generated bool `json:"generated,omitempty"`
}

// ErrorAnchor is the id of an error's section in the atlas: "err-" and
// its short name, with the characters an id keeps.
func ErrorAnchor(name string) string {
	short := ShortName(name)
	var b strings.Builder
	for _, r := range short {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return "err-" + b.String()
}
