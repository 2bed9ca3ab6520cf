package report

// LabRun is what every lab run records, whatever its study: the server it
// ran on, the run's key prefix, sentences about how it went, how long it
// took, and its record as a document. A study's lab record embeds it (its
// fields stand at the top level of the record's JSON).
type LabRun struct {
	Etcd LabEtcd `json:"etcd"`
	// Prefix is the fresh key prefix every key of the run was written under.
	Prefix string `json:"prefix"`
	// Notes are sentences about how the run went (e.g. why etcdctl is absent).
	Notes []string `json:"notes,omitempty"`
	// Millis is how long the lab took, server start to teardown.
	Millis int64 `json:"ms"`
	// Doc is the record as a document, for Markdown and HTML.
	Doc *Doc `json:"doc,omitempty"`
}

// LabEtcd names the server.
type LabEtcd struct {
	Version   string   `json:"version"`
	Server    string   `json:"server"` // "embedded", "process" (built from the release's module, run by srctrace) or "endpoints"
	Endpoints []string `json:"endpoints,omitempty"`
}

// LabTool names the command line tool a lab ran (the real etcdctl).
type LabTool struct {
	Path    string `json:"path"`
	Version string `json:"version"`
}

// Capture is one etcdctl run, character for character.
type Capture struct {
	Args        []string `json:"args"`
	StdoutLines int      `json:"stdout_lines"`
	// Stdout is stdout exactly, where the lab keeps it (short outputs).
	Stdout   *string `json:"stdout,omitempty"`
	Stderr   string  `json:"stderr"`
	ExitCode int     `json:"exit_code"`
	// Events is how many watch events stdout shows (3 lines each).
	Events int `json:"events,omitempty"`
	// Stopped is set when the lab stopped etcdctl itself (a watch that did
	// not end): ExitCode is then 0 and means nothing.
	Stopped bool `json:"stopped,omitempty"`
}
