package report

// Drift is the line of every site, hop and entry of a study at several
// releases.
type Drift struct {
	Study    string     `json:"study"`
	Releases []string   `json:"releases"`
	Rows     []DriftRow `json:"rows"`
}

// DriftRow is one thing of the study across releases.
type DriftRow struct {
	Kind string `json:"kind"` // entry, site, hop
	// Key names the thing independently of positions: a function, a
	// function and its use's text, or a caller and callee.
	Key string `json:"key"`
	// At holds, per release (in Releases' order), file:line or "" where it
	// does not exist.
	At []string `json:"at"`
	// Change is "same", "moved", "vanished", "appeared" or "changed"
	// (vanished in one release and back in another).
	Change string `json:"change"`
}
