package layers

import (
	"fmt"

	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/target"
)

// Spec is what a study asks of the code that consumes its target's signal:
// which consumer, which of its packages make up each layer, and the
// questions whose answers are the hops. Everything here is a name;
// positions, texts and values come from the loaded code.
type Spec struct {
	// Consumer is the repository read as the consumer (target.Kubernetes);
	// its Fits says how a release of it is paired with the producer's.
	Consumer *target.Target
	// Producer is the target whose release the study reads (target.Etcd).
	Producer *target.Target
	// Requires are the producer's modules the consumer's work module
	// requires at the producer's release (the client the consumer calls,
	// the server its lab embeds).
	Requires []string
	// Layers are the consumer's layers, in the order the signal crosses
	// them, each with the packages read from source. Bodies are further
	// packages whose functions the answers follow into (a constructor, a
	// predicate); Load packages read only for their declarations (a
	// variable's initializer, a table).
	Layers []Layer
	Bodies []string
	Load   []string

	// Sentinel is the producer's error value that the consumer receives,
	// qualified ("go.etcd.io/etcd/api/v3/v3rpc/rpctypes.ErrCompacted"). Its
	// text is read from its initializer.
	Sentinel string
	// Status is the qualified type of the status an error becomes
	// ("k8s.io/apimachinery/pkg/apis/meta/v1.Status"): a constructor's
	// composite literal of it gives the status's fields.
	Status string
	// Event is the qualified type of the event a watch stream carries, and
	// EventKind its field that says what kind of event it is.
	Event, EventKind string
	// Logs are the consumer's logging functions and methods with their
	// level; Verbosity are the functions that set a verbosity (klog.V).
	Logs      []Log
	Verbosity []string
	// Text are the functions that test a string for another (strings.Contains).
	Text []string

	Questions []Question

	// Lab is the consumer's lab, if the study has one.
	Lab *Lab

	// Decide, when set, is the study's reading of the answers: it sets
	// the layers' Verdict and Claim (also when no release was read).
	Decide func(*report.Layers) `json:"-"`
}

// Layer is one layer of the consumer. A Syntax layer's packages are read
// for their declarations only: its questions ask what a function returns
// (Returns, Values) or what a literal holds (Composite, Table), not where
// a value goes.
type Layer struct {
	Name     string
	Packages []string
	Syntax   bool
}

// Log is a logging function or method, qualified, and its level
// ("error", "warning", "info").
type Log struct {
	Func, Level string
}

// Ask is what a question asks.
type Ask string

const (
	// Returns: the returns of Func whose results include Object, with the
	// conditions that guard them.
	Returns Ask = "returns"
	// Follow: the signal's value followed through the layer's code, from
	// the results of calls of From, or from what the answer of FromRole
	// found (an event kind compared, a constructor called).
	Follow Ask = "follow"
	// Calls: the calls of Calls in Func (and in the functions it calls
	// statically, Depth deep), with their conditions and arguments.
	Calls Ask = "calls"
	// Values: every return of Func, with what it returns and the conditions
	// that guard it.
	Values Ask = "values"
	// Writes: the writes of the field Object, with the values written.
	Writes Ask = "writes"
	// Composite: the fields of composite literals of the type Object in
	// Func, with their constant values.
	Composite Ask = "composite"
	// Table: the entry for the constant Key in the map variable Object: the
	// Field of its last element.
	Table Ask = "table"
)

// Question is one thing asked of the consumer's code; its answers are hops
// with its Role.
type Question struct {
	Role  string
	Layer string
	Ask   Ask

	Func   string
	Object string
	Calls  []string
	Depth  int

	From     string
	FromRole string

	Key, Field string
}

// Check reports the first inconsistency in the spec's data.
func (s *Spec) Check() error {
	if s.Consumer == nil || s.Consumer.Fits == nil {
		return fmt.Errorf("layers: the consumer needs a target that says how its releases fit the producer's")
	}
	if s.Producer == nil || !s.Producer.Owns(s.Consumer.Fits.Requires) {
		return fmt.Errorf("layers: %s's fit names %s, which is not a module of the producer", s.Consumer.Name, s.Consumer.Fits.Requires)
	}
	layers, syntax := map[string]bool{}, map[string]bool{}
	for _, l := range s.Layers {
		syntax[l.Name] = l.Syntax
		if l.Name == "" || layers[l.Name] || len(l.Packages) == 0 {
			return fmt.Errorf("layers: a layer needs a unique name and packages (%q)", l.Name)
		}
		layers[l.Name] = true
	}
	roles := map[string]bool{}
	for _, q := range s.Questions {
		if q.Role == "" || roles[q.Role] {
			return fmt.Errorf("layers: question roles must be unique and not empty (%q)", q.Role)
		}
		if !layers[q.Layer] {
			return fmt.Errorf("layers: question %s asks in layer %q, which the spec does not have", q.Role, q.Layer)
		}
		if q.FromRole != "" && !roles[q.FromRole] {
			return fmt.Errorf("layers: question %s continues from %q, which no earlier question answers", q.Role, q.FromRole)
		}
		roles[q.Role] = true
		if syntax[q.Layer] && (q.Ask == Follow || q.Ask == Calls || q.Ask == Writes) {
			return fmt.Errorf("layers: question %s asks %s of the layer %s, which is read for its declarations only", q.Role, q.Ask, q.Layer)
		}
		var need []string
		switch q.Ask {
		case Returns:
			need = []string{q.Func, q.Object}
		case Follow:
			if (q.From == "") == (q.FromRole == "") {
				return fmt.Errorf("layers: question %s follows from one place: From or FromRole", q.Role)
			}
		case Calls:
			need = []string{q.Func}
			if len(q.Calls) == 0 {
				return fmt.Errorf("layers: question %s asks for calls of nothing", q.Role)
			}
		case Values:
			need = []string{q.Func}
		case Writes:
			need = []string{q.Object}
		case Composite:
			need = []string{q.Func, q.Object}
		case Table:
			need = []string{q.Object, q.Key, q.Field}
		default:
			return fmt.Errorf("layers: question %s asks %q, which is no question", q.Role, q.Ask)
		}
		for _, n := range need {
			if n == "" {
				return fmt.Errorf("layers: question %s (%s) lacks a name", q.Role, q.Ask)
			}
		}
	}
	return nil
}

// Packages are every package the spec reads from source, layers first.
func (s *Spec) Packages() []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, l := range s.Layers {
		for _, p := range l.Packages {
			add(p)
		}
	}
	for _, p := range s.Bodies {
		add(p)
	}
	for _, p := range s.Load {
		add(p)
	}
	return out
}

// built are the packages whose functions are built for the answers to
// follow: the layers' that are not Syntax, and Bodies.
func (s *Spec) built() map[string]bool {
	out := map[string]bool{}
	for _, l := range s.Layers {
		if !l.Syntax {
			for _, p := range l.Packages {
				out[p] = true
			}
		}
	}
	for _, p := range s.Bodies {
		out[p] = true
	}
	return out
}
