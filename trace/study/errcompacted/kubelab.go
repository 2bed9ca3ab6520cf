package errcompacted

import (
	_ "embed"
	"encoding/json"
	"time"

	"github.com/srctrace/srctrace/trace/layers"
)

// kubeLabSource is the four layers' lab: a real etcd, the API server's
// etcd3 storage and watch cache over it, and client-go Reflectors, in one
// program built on demand in the Kubernetes work module (see package
// layers). It is not part of srctrace's own build.
//
//go:embed kubelab.go.txt
var kubeLabSource []byte

// kubeLab is the lab as the layers engine runs it.
var kubeLab = &layers.Lab{
	Name:    "kubelab",
	Source:  kubeLabSource,
	Args:    []string{"-objects", "20", "-updates", "50", "-timeout", "2m"},
	Timeout: 3 * time.Minute,
}

// KubeLab is the record the four layers' lab prints: when each reader
// (the watch cache's own Reflector, a client through the cache, a client
// of the storage itself) asked for what, what it got, and the API
// server's log, each with its time in milliseconds since the lab began.
type KubeLab struct {
	Objects         int          `json:"objects"`
	Updates         int          `json:"updates"`
	ListedRevision  int64        `json:"listed_revision"`
	HeadRevision    int64        `json:"head_revision"`
	CompactRevision int64        `json:"compact_revision"`
	HeldMs          int64        `json:"held_ms"`
	CompactedMs     int64        `json:"compacted_ms"`
	ReleasedMs      int64        `json:"released_ms"`
	DoneMs          int64        `json:"done_ms"`
	Readers         []KubeReader `json:"readers"`
	Logs            []KubeLog    `json:"logs"`
	Notes           []string     `json:"notes,omitempty"`
}

// KubeReader is one Reflector: "cache" (the watch cache's own), "client"
// (through the watch cache) or "direct" (the storage itself).
type KubeReader struct {
	Name     string        `json:"name"`
	Over     string        `json:"over"`
	Requests []KubeRequest `json:"requests"`
	SyncedMs int64         `json:"synced_ms,omitempty"`
}

// KubeRequest is one list or watch a reader made.
type KubeRequest struct {
	Kind     string      `json:"kind"` // list, watch, watch-list
	RV       string      `json:"rv"`
	Match    string      `json:"match,omitempty"`
	AtMs     int64       `json:"at_ms"`
	HeldMs   int64       `json:"held_ms,omitempty"`
	Items    int         `json:"items,omitempty"`
	ListRV   string      `json:"list_rv,omitempty"`
	Events   int         `json:"events"`
	Error    *KubeStatus `json:"error,omitempty"`
	ErrorMs  int64       `json:"error_ms,omitempty"`
	Returned bool        `json:"returned,omitempty"`
	EndedMs  int64       `json:"ended_ms,omitempty"`
	Ended    string      `json:"ended,omitempty"`
}

// KubeStatus is an API status a reader got.
type KubeStatus struct {
	Code    int32  `json:"code"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// KubeLog is a line of the API server's (klog's) log.
type KubeLog struct {
	AtMs  int64  `json:"at_ms"`
	Level string `json:"level"`
	File  string `json:"file"`
	Line  int    `json:"line"`
	Text  string `json:"text"`
}

// kubeLabOf reads the lab's record, if there is one.
func kubeLabOf(raw json.RawMessage) *KubeLab {
	if len(raw) == 0 {
		return nil
	}
	var k KubeLab
	if json.Unmarshal(raw, &k) != nil {
		return nil
	}
	return &k
}
