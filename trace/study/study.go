// Package study defines what a study is: the data that tells the generic
// engine in package trace what to look for in the etcd source.
//
// A study names things, never positions. It names the sentinel error by its
// qualified Go name, the files an exercise cites, the entry functions from
// which call paths are traced, the asynchronous hand-offs that a call graph
// cannot follow, and the lab behaviours with their prose. Every position, line
// and text in a report is found in the loaded source.
package study

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/srctrace/srctrace/trace/lab"
	"github.com/srctrace/srctrace/trace/layers"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/signal"
	"github.com/srctrace/srctrace/trace/target"
)

// Study is one exercise's worth of questions about the etcd source.
type Study struct {
	// Name is the study's command-line name (e.g. "errcompacted").
	Name string
	// Title heads the notes.
	Title string
	// Summary is one paragraph for the top of the notes.
	Summary string

	// Module is the Go module whose release is loaded (the server).
	Module string
	// Extra are further modules of the same release that the study and its
	// lab need (the client, etcdctl).
	Extra []string
	// Target is the repository read (its module layout, releases, GitHub
	// address); nil means target.Etcd.
	Target *target.Target

	// Sentinel is the qualified name of the error variable under study,
	// e.g. "go.etcd.io/etcd/server/v3/storage/mvcc.ErrCompacted".
	Sentinel string

	// Citation is the exercise's own citation: a fixed-string `git grep -n`
	// over a list of files. The tool evaluates it on the loaded release.
	Citation Citation

	// Entries are the functions from which call paths are traced.
	Entries []Entry

	// Boundaries are the study's own asynchronous hand-offs: a function on
	// the sending side and the entry that runs on the receiving side. A
	// pair that the call graph cannot connect is reported as crossing a
	// boundary when the entry reaches From and the receiving entry reaches
	// the site. The target's hand-offs (target.Target.HandOffs) come first,
	// each one whose receiving function is an entry's: a study declares
	// only what its exercise adds.
	Boundaries []Boundary

	// Behaviours are what the lab shows, each linked to entries.
	Behaviours []Behaviour

	// Signal says how the sentinel's meaning travels without its name,
	// layer by layer: the names the engine's detectors follow. Nil for a
	// study that only traces the name.
	Signal *signal.Spec

	// Claims are what the exercise asserts, each checked against a verdict
	// of the signal analysis.
	Claims []Claim

	// Analyze, when set, is the study's own reading of what the engine
	// found: its verdicts, chains and claims, from the Pass. Validate, when
	// set, checks the study's data against its rules before anything is
	// loaded (a claim that names a verdict Analyze never gives).
	Analyze func(*Pass) (*Findings, error) `json:"-"`
	// Notes composes the study's notes from its report (after the lab's
	// and coverage's records are merged in); LabNotes the document of a
	// lab run on its own. Nil: no notes beyond the JSON.
	Notes    func(*report.Report) *report.Doc `json:"-"`
	LabNotes func(lab.Record) *report.Doc     `json:"-"`
	Validate func(*Study) error               `json:"-"`
	// Lab is what the study runs on a real etcd server (srctrace lab,
	// --lab) and the scripts of its coverage runs (--observe); nil for a
	// study without a lab. Behaviours name its scripts by Observed.
	Lab *lab.Lab `json:"-"`
	// Consumers is what the study asks of the code that consumes etcd's
	// signal (Kubernetes, with --kubernetes); nil for a study that stops
	// at etcd's client.
	Consumers *layers.Spec `json:"-"`
}

// Claim is one assertion of the exercise, quoted, and the verdict that
// decides it: the claim holds when the verdict establishes the fact named
// by Holds, and does not when it establishes the fact named by Fails (fact
// keys are those of package trace, e.g. "accepted-then-canceled").
type Claim struct {
	Where        string // where the exercise says it, e.g. "step 4"
	Says         string // the exercise's words
	Verdict      string
	Holds, Fails string
	// Partly names a fact that limits the outcome: when the verdict
	// establishes it, the claim holds only in part. With Holds, the fact
	// says which part does not hold; with Fails, which part does.
	Partly string
	// OnlyIf names a fact that, established with Fails', says when the
	// claim holds all the same: it holds only if the fact's condition
	// does.
	OnlyIf string
}

// Citation is a `git grep -n -F Pattern -- Files...` as an exercise writes it.
type Citation struct {
	Step    string   // where the exercise makes it, e.g. "step 6"
	Pattern string   // fixed string searched for
	Files   []string // repo-relative paths
	// About are the behaviours whose code the citation means to point at
	// (ids); empty means all of the exercise's.
	About []string
}

// Entry is a function from which call paths start.
type Entry struct {
	Name     string // short name used in reports, e.g. "watch-open"
	Function string // qualified: "pkg/path.(*T).M" or "pkg/path.F"
	Doc      string // one sentence: what runs this function
	// Optional marks an entry that some releases lack (a handler added
	// later): where it is absent it is left out, and the report says so.
	Optional bool
}

// Boundary is an asynchronous hand-off between two entries: a target's
// hand-off (its fields and their meaning) whose To names the entry that
// runs on the other side, not its function.
type Boundary struct {
	target.HandOff
}

// Behaviour is one thing the lab shows.
type Behaviour struct {
	ID      string   // e.g. "evict"
	Title   string   // heading in the notes
	Lab     string   // what the student sees, in the exercise's words
	Entries []string // entry names the behaviour runs through
	Prose   string   // the exercise's explanation, to check against the code
	// Observed names the lab section that shows the behaviour ("evict",
	// "reopen", "read"), for notes merged with a lab run.
	Observed string
	// Setup are the entries of the requests the lab makes to set the
	// behaviour up (the compaction), which run in its coverage run too.
	Setup []string
	// Unset are the fields ("pkg.T.field") that the behaviour's requests
	// leave at their zero value: the options its commands do not ask for
	// (a watch without previous values). A path that needs one set does
	// not run in the behaviour.
	Unset []string
	// Probe marks a demonstration the lab adds: not one of the exercise's
	// behaviours; verdicts about the exercise ignore it.
	Probe bool
}

// ChannelSend as a Boundary's Via means a send statement on a channel.
const ChannelSend = target.ChannelSend

// Parse reads a study from JSON (the field names of Study) and checks it.
func Parse(data []byte) (*Study, error) {
	var s Study
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("reading study: %w", err)
	}
	if err := s.Check(); err != nil {
		return nil, err
	}
	return &s, nil
}

// Check reports the first inconsistency in the study's data.
func (s *Study) Check() error {
	if s.Name == "" || s.Module == "" || s.Sentinel == "" {
		return fmt.Errorf("study: Name, Module and Sentinel are required")
	}
	if PackageOf(s.Sentinel) == s.Sentinel {
		return fmt.Errorf("study %s: sentinel %q is not a qualified name", s.Name, s.Sentinel)
	}
	if _, ok := s.LayoutMap()[s.Module]; !ok {
		return fmt.Errorf("study %s: %s's layout gives no folder for module %s", s.Name, s.Tgt().Name, s.Module)
	}
	seen := map[string]bool{}
	for _, e := range s.Entries {
		if e.Name == "" || seen[e.Name] {
			return fmt.Errorf("study %s: entry names must be unique and not empty (%q)", s.Name, e.Name)
		}
		seen[e.Name] = true
		if PackageOf(e.Function) == e.Function {
			return fmt.Errorf("study %s: entry %s: %q is not a qualified name", s.Name, e.Name, e.Function)
		}
	}
	for _, b := range s.Boundaries {
		if !seen[b.To] {
			return fmt.Errorf("study %s: boundary %s continues in %q, which is no entry", s.Name, b.Name, b.To)
		}
	}
	if s.Validate != nil {
		if err := s.Validate(s); err != nil {
			return err
		}
	}
	for _, c := range s.Claims {
		if c.Says == "" || c.Verdict == "" || c.Holds == "" {
			return fmt.Errorf("study %s: a claim needs the exercise's words, a verdict and the fact that makes it hold (%q)", s.Name, c.Says)
		}
		if s.Signal == nil {
			return fmt.Errorf("study %s: claims are checked against the signal's verdicts, and the study has no signal", s.Name)
		}
	}
	if sg := s.Signal; sg != nil {
		if sg.Revision == "" {
			return fmt.Errorf("study %s: the signal needs a Revision field", s.Name)
		}
		for _, e := range []string{sg.Open, sg.Sync, sg.Read} {
			if e != "" && !seen[e] {
				return fmt.Errorf("study %s: the signal names %q, which is no entry", s.Name, e)
			}
		}
	}
	ids := map[string]bool{}
	for _, b := range s.Behaviours {
		if b.ID == "" || ids[b.ID] {
			return fmt.Errorf("study %s: behaviour ids must be unique and not empty (%q)", s.Name, b.ID)
		}
		ids[b.ID] = true
		for _, e := range append(append([]string{}, b.Entries...), b.Setup...) {
			if !seen[e] {
				return fmt.Errorf("study %s: behaviour %s runs through %q, which is no entry", s.Name, b.ID, e)
			}
		}
		if s.Lab != nil && len(s.Lab.Scripts) > 0 && b.Observed != "" {
			if _, ok := s.Lab.Script(b.Observed); !ok {
				return fmt.Errorf("study %s: behaviour %s is observed by script %q, which the lab does not have (it has %s)", s.Name, b.ID, b.Observed, strings.Join(s.Lab.ScriptNames(), ", "))
			}
		}
	}
	if s.Lab != nil && len(s.Lab.Scripts) > 0 {
		if _, ok := s.Lab.Script(lab.Baseline); !ok {
			return fmt.Errorf("study %s: the lab's coverage scripts need a %q script to compare the others with", s.Name, lab.Baseline)
		}
	}
	return nil
}

// PackageOf returns the package path of a qualified name such as
// "go.etcd.io/etcd/server/v3/storage/mvcc.(*store).Compact".
func PackageOf(name string) string {
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return name
	}
	return name[:slash+1+dot]
}

// Entry returns the entry named name.
func (s *Study) Entry(name string) (Entry, bool) {
	for _, e := range s.Entries {
		if e.Name == name {
			return e, true
		}
	}
	return Entry{}, false
}

// Modules returns Module followed by Extra.
func (s *Study) Modules() []string { return append([]string{s.Module}, s.Extra...) }

// Tgt is the study's target.
func (s *Study) Tgt() *target.Target {
	if s.Target != nil {
		return s.Target
	}
	return target.Etcd
}

// LayoutMap returns the target's layout as a map from module path to folder.
func (s *Study) LayoutMap() map[string]string { return s.Tgt().LayoutMap() }

var registry = map[string]*Study{}

// Register makes a study known by its Name; studies register themselves
// in an init function, the way analyzers are listed for a driver. A second
// study of the same name panics.
func Register(s *Study) {
	if _, dup := registry[s.Name]; dup {
		panic("study: Register called twice for " + s.Name)
	}
	registry[s.Name] = s
}

// Lookup returns the registered study named name.
func Lookup(name string) (*Study, bool) {
	s, ok := registry[name]
	return s, ok
}
