package errcompacted

import "github.com/srctrace/srctrace/trace/report"

// LabRecord is what the exercise's lab observed on a real etcd server
// (srctrace lab, errcompacted --lab): report.LabRun's fields, then the
// exercise's own.
type LabRecord struct {
	report.LabRun
	Writes int `json:"writes"`
	// AnchorRevision (A), HeadRevision (N) and CompactRevision (N-10) are
	// those of the main round, whose compaction lands mid-replay.
	AnchorRevision  int64 `json:"anchor_revision"`
	HeadRevision    int64 `json:"head_revision"`
	CompactRevision int64 `json:"compact_revision"`
	// Watchers are the main round's behind and current watchers.
	Watchers []Watcher `json:"watchers"`
	// ByHand is the exercise's timing: the compaction typed after a delay.
	ByHand *ByHand `json:"by_hand,omitempty"`
	// Reopen is a watch opened from A after the compaction.
	Reopen Reopen `json:"reopen"`
	// Boundary probes which start revisions still open a watch.
	Boundary WatchBoundary `json:"boundary"`
	// Read is exercise 6's historical read at the same revisions.
	Read Read `json:"read"`
	// Probes are short requests the lab adds after the main round's
	// compaction, to show code of the study's that no behaviour of the
	// exercise runs (e.g. a compaction to a revision already compacted).
	Probes []RequestProbe `json:"probes,omitempty"`
	// Etcdctl holds the captures of the real etcdctl, when one was had.
	Etcdctl *Etcdctl `json:"etcdctl,omitempty"`
}

// Run is the part of the record every lab run has (lab.Record).
func (l *LabRecord) Run() *report.LabRun { return &l.LabRun }

// Watcher is one watch as the Go client saw it.
type Watcher struct {
	Name          string `json:"name"` // "behind" or "current"
	StartRevision int64  `json:"start_revision"`
	Events        int    `json:"events"`
	FirstRevision int64  `json:"first_revision,omitempty"`
	LastRevision  int64  `json:"last_revision"`
	// Responses lists the responses with events, as they arrived: how many
	// events each carried and when (ms after the watch was opened).
	Responses []Batch `json:"responses,omitempty"`
	Ended     bool    `json:"ended"`
	// EndedMs is when the final response arrived, ms after opening.
	EndedMs int64 `json:"ended_ms,omitempty"`
	// Cancel is the final response, when the server ended the watch.
	Cancel *Cancel `json:"cancel,omitempty"`
	Error  string  `json:"error,omitempty"` // the client's error text
	// CompactedAtMs is when the compaction returned, ms after opening.
	CompactedAtMs int64 `json:"compacted_at_ms,omitempty"`
	// EventsAfterCompaction counts events that arrived after the compaction
	// returned (the proof that a watcher lives on).
	EventsAfterCompaction int `json:"events_after_compaction"`
	// Total is how many of the lab's own events from its start revision to
	// the head revision the watcher is owed: the anchor and the writes
	// (set for the behind watcher; other clients' writes are not counted).
	Total int `json:"total,omitempty"`
}

// Batch is one response with events.
type Batch struct {
	Events int   `json:"events"`
	AtMs   int64 `json:"at_ms"`
	First  int64 `json:"first"`
	Last   int64 `json:"last"`
}

// Cancel holds the fields of the response that ended a watch.
type Cancel struct {
	Canceled        bool   `json:"canceled"`
	Created         bool   `json:"created"`
	CompactRevision int64  `json:"compact_revision"`
	CancelReason    string `json:"cancel_reason"`
	HeaderRevision  int64  `json:"header_revision"`
}

// ByHand is the exercise's step 2 as a person types it.
type ByHand struct {
	AnchorRevision  int64     `json:"anchor_revision"`
	HeadRevision    int64     `json:"head_revision"`
	CompactRevision int64     `json:"compact_revision"`
	DelayMs         int64     `json:"delay_ms"`
	Watchers        []Watcher `json:"watchers"`
	Evicted         bool      `json:"evicted"`
}

// Reopen is a watch opened from a compacted revision.
type Reopen struct {
	StartRevision int64   `json:"start_revision"`
	Created       bool    `json:"created"`
	Canceled      bool    `json:"canceled"`
	Events        int     `json:"events"`
	Error         string  `json:"error"`
	MsBetween     int64   `json:"ms_between"` // created → canceled
	Cancel        *Cancel `json:"cancel,omitempty"`
	// Negative is a watch opened from revision -1, which the server may
	// refuse in the create response itself.
	Negative *Reopen `json:"negative,omitempty"`
	// Raw are the responses the server sent for the same create request on
	// a watch stream of its own (gRPC, not the Go client's Watch), in order,
	// up to the one that canceled it; the fields above are what the Go
	// client's Watch delivered. Set on Negative.
	Raw []RawWatchResponse `json:"raw,omitempty"`
}

// RawWatchResponse is one etcdserverpb.WatchResponse as the server sent it.
type RawWatchResponse struct {
	WatchID         int64  `json:"watch_id"`
	Created         bool   `json:"created"`
	Canceled        bool   `json:"canceled"`
	CancelReason    string `json:"cancel_reason"`
	CompactRevision int64  `json:"compact_revision"`
	HeaderRevision  int64  `json:"header_revision"`
	Events          int    `json:"events"`
	// AtMs is when it arrived, ms after the create request was sent.
	AtMs int64 `json:"at_ms"`
}

// RequestProbe is one request the lab makes to show a path of the code
// run: what the Go client got, and the real etcdctl's run of the same
// request (its args, exact stdout, stderr and exit status; absent without
// etcdctl).
type RequestProbe struct {
	// Name is the probe's (and its coverage script's) name.
	Name string `json:"name"`
	// Title says what was asked, in the study's words.
	Title string `json:"title"`
	// Revision is the revision the request names; CompactRevision is the
	// revision the server had been compacted to.
	Revision        int64 `json:"revision"`
	CompactRevision int64 `json:"compact_revision"`
	// ClientError is the Go client's error text ("" when the request
	// succeeded) and ClientCode its gRPC status code.
	ClientError string `json:"client_error"`
	ClientCode  string `json:"client_code,omitempty"`
	*report.Capture
}

// WatchBoundary is the boundary between compacted and open start revisions.
type WatchBoundary struct {
	CompactRevision    int64   `json:"compact_revision"`
	LowestOpenRevision int64   `json:"lowest_open_revision"`
	Probes             []Probe `json:"probes"`
	// Searched is how many probes the search for the lowest open revision took.
	Searched int `json:"searched"`
}

// Probe is one watch open attempt.
type Probe struct {
	Revision int64  `json:"revision"`
	Open     bool   `json:"open"`
	Result   string `json:"result"` // etcdctl's first line, as the exercise's loop prints it, or what the client saw
	By       string `json:"by"`     // "etcdctl" or "client"
}

// Read is exercise 6's get --rev.
type Read struct {
	Probes []ReadProbe `json:"probes"`
	// LowestReadableRevision is the lowest revision a get still succeeds at.
	LowestReadableRevision int64 `json:"lowest_readable_revision"`
}

// ReadProbe is one get --rev.
type ReadProbe struct {
	Revision int64  `json:"revision"`
	OK       bool   `json:"ok"`
	Error    string `json:"error,omitempty"`
}

// Etcdctl holds the real etcdctl's captures.
type Etcdctl struct {
	report.LabTool
	Evict  *report.Capture `json:"evict,omitempty"`
	Reopen *report.Capture `json:"reopen,omitempty"`
	Read   *report.Capture `json:"read,omitempty"`
}
