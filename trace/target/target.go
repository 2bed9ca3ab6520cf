// Package target describes a source tree that srctrace reads: its Go
// modules and their folders in the repository, how its releases are
// written, where a checkout records its version, where the repository
// is published, and the hand-offs of its architecture that calls do not
// show (a proposal to raft and its apply, a scheduler, a channel between
// goroutines, a request to a peer over the network). etcd is the target a study reads (Etcd); Kubernetes is
// read as etcd's consumer (Kubernetes). Nothing else in srctrace names
// their layouts, etcd's hand-offs or how etcd's errors reach its users
// (its translation map, its client's conversion, etcdctl), and every study
// and `srctrace why` share them.
//
// The target names things, never positions: the functions and types of a
// hand-off are found in the loaded release.
package target

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Target is a repository of Go modules that is read by release or checkout.
type Target struct {
	// Name is what the user calls it ("etcd").
	Name string
	// Repo is the GitHub "owner/name" the repository is published as.
	Repo string
	// Main is the module whose release is loaded first (the server).
	Main string
	// Layout maps each Go module of the repository to its folder, so that
	// files are named as `git grep -n` prints them from the repository root.
	Layout []Folder
	// Release is a regular expression that matches a release tag ("v3.7.3").
	Release string
	// ReleaseHint is an example release for messages.
	ReleaseHint string
	// VersionFile and VersionVar are where a checkout outside git says its
	// version: a string constant or variable in a Go file of the repository.
	VersionFile, VersionVar string
	// Fits, for a target read as the consumer of another, says how one of
	// its releases fits a release of the other: by what its own go.mod
	// requires.
	Fits *Fit
	// HandOffs are where work crosses from one goroutine to another in a
	// way a call graph cannot follow: what every study and why cross.
	HandOffs []HandOff
	// Messages are the packages of the requests the servers take
	// (generated code): why loads them from source, so that the analysis
	// reads what their getters return (a oneof's getter is nil unless the
	// request is of its kind). A study loads them when it names them.
	Messages []string `json:",omitempty"`
	// Gates are the packages of the code a server runs on a request to
	// decide whether to let it through by what it costs (a quota): why
	// loads them from source too, so that the analysis reads what they
	// compute of a request (a transaction that puts costs more than
	// nothing) where a way passes such a test.
	Gates []string `json:",omitempty"`
	// Errors is how the target's errors reach the people who use it, when
	// described: what `srctrace why` says of an error's user's half and
	// what `srctrace errors` lists.
	Errors *Errors `json:",omitempty"`
}

// Errors describes how an error of the target's server reaches a user:
// the server functions that translate it into the error the wire carries,
// the client's conversion of what it receives, the client's retrying of a
// failed call, and the command-line tool whose commands print it. Names
// only: the maps, the codes, the texts, the commands and what they print
// are read from the code.
type Errors struct {
	// Atlas are the modules whose exported error variables the atlas
	// (`srctrace errors`) lists.
	Atlas []string
	// Translate are the server functions that turn an error into the one
	// the wire carries, each by indexing a map of error to error
	// ("pkg/path.Func").
	Translate []string
	// Convert is the client's conversion of an error it receives into the
	// value it returns ("pkg/path.Func").
	Convert string
	// Retry is the function that makes the client's retrying interceptor
	// for unary calls (it returns it as a function literal), RetryLog the
	// logger method the interceptor reports a failed attempt with, and
	// SafeRetry the function that decides whether a repeatable call's
	// error is tried again.
	Retry, RetryLog, SafeRetry string
	// Tool is the command-line tool, when there is one.
	Tool *Tool `json:",omitempty"`
}

// Tool is a command-line tool built on a command library: the commands
// are read from the code that builds its command tree.
type Tool struct {
	Name string // "etcdctl"
	// Root is the package-level variable that holds the root command
	// ("pkg/path.rootCmd").
	Root string
	// Command is the library's command type ("pkg/path.T"); Use its field
	// with a command's usage line (whose first word names the command),
	// Run its fields that hold the function the library calls back, and
	// Add the method that adds subcommands to a command.
	Command, Use, Add string
	Run               []string
	// Aliases is the command type's field of a command's other names.
	Aliases string
	// PrefixMatching is the library's package-level switch that, set to
	// true, lets a user type the start of a command's name
	// ("pkg/path.Name").
	PrefixMatching string
	// Exit is the function with which the tool prints an error and exits.
	Exit string
}

// HandOff is an asynchronous hand-off of the target's architecture: From
// hands work off by Via, and To runs it on the other side.
type HandOff struct {
	Name string // e.g. "raft proposal"
	// From is the qualified function that hands the work off.
	From string
	// Via is the call inside From that performs the hand-off: a qualified
	// function or interface method ("pkg/path.Iface.Method"), or
	// ChannelSend for a send on a channel.
	Via string
	// To is the qualified function that runs the work on the other side.
	To  string
	Doc string
	// Message, when set, is the qualified type of the message the hand-off
	// carries ("pkg.T"), and Dispatch the qualified function on the
	// receiving side that branches on the message's kind: the sender then
	// connects only to the receiver's branch for the message it sends.
	Message, Dispatch string
	// Closure says the hand-off carries a function value (a scheduled
	// job): it connects only when a closure that From makes calls To.
	Closure bool
	// Serial says that To runs one hand-off at a time: each run ends
	// before the next begins (one worker takes the jobs in turn), so
	// what only To's runs write does not change within one run but by
	// the run itself.
	Serial bool
	// After, for a serial hand-off, is the qualified function whose calls
	// return before To's runs begin (the start-up order: what makes the
	// server, before the loop that hands off starts): a field it writes,
	// in what it makes, does not change within one of To's runs. The
	// checker sets it only when To is not reachable from After. AfterWhy
	// says why the order holds, for the reader.
	After, AfterWhy string
}

// ChannelSend as a HandOff's Via means a send statement on a channel.
const ChannelSend = "<-"

// Folder is one module's folder in the repository.
type Folder struct {
	Module string // e.g. "go.etcd.io/etcd/server/v3"
	Dir    string // e.g. "server"; "" for the root of Repo
	// Repo is the GitHub "owner/name" the module is published as when it
	// is not the target's Repo (Kubernetes' staging modules are each a
	// repository of their own, tagged with the module's release).
	Repo string
}

// Fit is how a consumer's release is paired with a release of the target
// it consumes: Module's go.mod requires Requires (a module of the other
// target) at the oldest release it works with. A consumer release fits a
// release of the other when that requirement is in the same minor line
// and not later: a later one would make minimum version selection raise
// the other's release.
type Fit struct {
	Module   string // e.g. "k8s.io/apiserver"
	Requires string // e.g. "go.etcd.io/etcd/client/v3"
}

// Etcd is the etcd repository (github.com/etcd-io/etcd), 3.6 and later.
var Etcd = &Target{
	Name: "etcd",
	Repo: "etcd-io/etcd",
	Main: "go.etcd.io/etcd/server/v3",
	Layout: []Folder{
		{Module: "go.etcd.io/etcd/server/v3", Dir: "server"},
		{Module: "go.etcd.io/etcd/api/v3", Dir: "api"},
		{Module: "go.etcd.io/etcd/pkg/v3", Dir: "pkg"},
		{Module: "go.etcd.io/etcd/client/v3", Dir: "client/v3"},
		{Module: "go.etcd.io/etcd/client/pkg/v3", Dir: "client/pkg"},
		{Module: "go.etcd.io/etcd/etcdctl/v3", Dir: "etcdctl"},
	},
	Release:     `^v3\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`,
	ReleaseHint: "v3.7.3",
	VersionFile: "api/version/version.go",
	VersionVar:  "Version",
	// The gRPC requests and the raft request that wraps them.
	Messages: []string{"go.etcd.io/etcd/api/v3/etcdserverpb"},
	// The backend quota: what a request costs, which the gRPC quota
	// check and the capped applier (under a NOSPACE alarm) test.
	Gates: []string{"go.etcd.io/etcd/server/v3/storage"},
	HandOffs: []HandOff{
		{
			Name: "raft proposal",
			From: "go.etcd.io/etcd/server/v3/etcdserver.(*EtcdServer).processInternalRaftRequestOnce",
			Via:  "go.etcd.io/raft/v3.Node.Propose",
			To:   "go.etcd.io/etcd/server/v3/etcdserver.(*EtcdServer).applyAll",
			Doc:  "the request is proposed to raft and waits on a channel; once committed, the apply job executes it",
			// The proposal carries one request; the applier's dispatch
			// branches on which of its fields is set.
			Message:  "go.etcd.io/etcd/api/v3/etcdserverpb.InternalRaftRequest",
			Dispatch: "go.etcd.io/etcd/server/v3/etcdserver/apply.(*uberApplier).dispatch",
		},
		{
			Name:    "scheduled job",
			From:    "go.etcd.io/etcd/server/v3/etcdserver.(*EtcdServer).run",
			Via:     "go.etcd.io/etcd/pkg/v3/schedule.Scheduler.Schedule",
			To:      "go.etcd.io/etcd/server/v3/etcdserver.(*EtcdServer).applyAll",
			Doc:     "the raft loop hands committed entries to a FIFO scheduler, whose worker runs the apply job",
			Closure: true,
			// The scheduler has one worker, which runs the jobs one after
			// another (pkg/schedule's FIFO scheduler).
			Serial: true,
			// NewServer makes the server and its store; the raft loop,
			// which schedules the apply job, starts only when Start is
			// called on the server NewServer returned (go s.run()).
			After:    "go.etcd.io/etcd/server/v3/etcdserver.NewServer",
			AfterWhy: "the raft loop, which schedules the apply job, starts only when Start is called on the server NewServer returned",
		},
		{
			Name: "watch channel",
			From: "go.etcd.io/etcd/server/v3/storage/mvcc.(*watcher).send",
			Via:  ChannelSend,
			To:   "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*serverWatchStream).sendLoop",
			Doc:  "the store sends a watcher's events on the watcher's channel; the watch stream's send loop receives them and sends them to the client",
			// The store's response to the watcher; the send loop's
			// select hands each it receives on to the client.
			Message:  "go.etcd.io/etcd/server/v3/storage/mvcc.WatchResponse",
			Dispatch: "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*serverWatchStream).sendLoop",
		},
		{
			Name: "watch eviction",
			From: "go.etcd.io/etcd/server/v3/storage/mvcc.(*watcherGroup).chooseAll",
			Via:  ChannelSend,
			To:   "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*serverWatchStream).sendLoop",
			Doc:  "the sync loop sends a watcher behind the compaction a response with the compaction revision on the watcher's channel and takes the watcher out of its group; the send loop receives the response and sends it to the client, marked canceled",
			// The store's response to the watcher; the send loop's
			// select hands each it receives on to the client.
			Message:  "go.etcd.io/etcd/server/v3/storage/mvcc.WatchResponse",
			Dispatch: "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*serverWatchStream).sendLoop",
		},
		{
			Name: "peer hash request",
			From: "go.etcd.io/etcd/server/v3/etcdserver.HashByRev",
			Via:  "net/http.(*Client).Do",
			To:   "go.etcd.io/etcd/server/v3/etcdserver.(*hashKVHandler).ServeHTTP",
			Doc:  "a member's corruption check asks a peer over the network for the hash of its store at a revision; the peer's HTTP handler answers it from the peer's own store (the state it compares the revision with is the peer's), with the error's text in the body of a 400 when it fails",
		},
		{
			Name: "watch control stream",
			From: "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*serverWatchStream).recvLoop",
			Via:  ChannelSend,
			To:   "go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.(*serverWatchStream).sendLoop",
			Doc:  "the receive loop answers a create or cancel request on the stream's control channel; the send loop sends the answer to the client",
		},
	},
	Errors: &Errors{
		Atlas:     []string{"go.etcd.io/etcd/server/v3", "go.etcd.io/etcd/api/v3"},
		Translate: []string{"go.etcd.io/etcd/server/v3/etcdserver/api/v3rpc.togRPCError"},
		Convert:   "go.etcd.io/etcd/api/v3/v3rpc/rpctypes.Error",
		Retry:     "go.etcd.io/etcd/client/v3.(*Client).unaryClientInterceptor",
		RetryLog:  "go.uber.org/zap.(*Logger).Warn",
		SafeRetry: "go.etcd.io/etcd/client/v3.isSafeRetryImmutableRPC",
		Tool: &Tool{
			Name:    "etcdctl",
			Root:    "go.etcd.io/etcd/etcdctl/v3/ctlv3.rootCmd",
			Command: "github.com/spf13/cobra.Command",
			Use:     "Use",
			Run:     []string{"Run", "RunE"},
			Add:     "AddCommand",
			Aliases: "Aliases",
			// cobra's own switch; etcdctl sets it when it starts.
			PrefixMatching: "github.com/spf13/cobra.EnablePrefixMatching",
			Exit:           "go.etcd.io/etcd/pkg/v3/cobrautl.ExitWithError",
		},
	},
}

// Kubernetes is the Kubernetes code that consumes etcd's watch: the API
// server's storage and watch cache (k8s.io/apiserver) and client-go, each
// published from the kubernetes/kubernetes staging tree as a repository of
// its own with tags v0.N.M (Kubernetes 1.N.M). It has no checkouts here:
// its releases come from the Go module proxy.
var Kubernetes = &Target{
	Name: "kubernetes",
	Repo: "kubernetes/kubernetes",
	Main: "k8s.io/apiserver",
	Layout: []Folder{
		{Module: "k8s.io/apiserver", Repo: "kubernetes/apiserver"},
		{Module: "k8s.io/client-go", Repo: "kubernetes/client-go"},
		{Module: "k8s.io/apimachinery", Repo: "kubernetes/apimachinery"},
		{Module: "k8s.io/api", Repo: "kubernetes/api"},
	},
	Release:     `^v0\.\d+\.\d+$`,
	ReleaseHint: "v0.37.2",
	Fits:        &Fit{Module: "k8s.io/apiserver", Requires: "go.etcd.io/etcd/client/v3"},
}

// IsRelease reports whether v is written as one of the target's release
// tags. A target without a Release pattern has no releases.
func (t *Target) IsRelease(v string) bool {
	if t.Release == "" {
		return false
	}
	re, ok := patterns.Load(t.Release)
	if !ok {
		c, err := regexp.Compile(t.Release)
		if err != nil {
			return false
		}
		re, _ = patterns.LoadOrStore(t.Release, c)
	}
	return re.(*regexp.Regexp).MatchString(v)
}

var patterns sync.Map // pattern -> *regexp.Regexp

// LayoutMap returns Layout as a map from module path to folder.
func (t *Target) LayoutMap() map[string]string {
	m := map[string]string{}
	for _, f := range t.Layout {
		m[f.Module] = f.Dir
	}
	return m
}

// Modules lists the modules of the layout, Main first.
func (t *Target) Modules() []string {
	out := []string{t.Main}
	for _, f := range t.Layout {
		if f.Module != t.Main {
			out = append(out, f.Module)
		}
	}
	return out
}

// Folder returns the folder of the module that holds package pkg (the
// longest module path that is a prefix), the repository it is published
// in, and the module; ok is false outside the layout.
func (t *Target) Folder(pkg string) (f Folder, ok bool) {
	for _, x := range t.Layout {
		if (pkg == x.Module || strings.HasPrefix(pkg, x.Module+"/")) && len(x.Module) > len(f.Module) {
			f, ok = x, true
		}
	}
	if ok && f.Repo == "" {
		f.Repo = t.Repo
	}
	return f, ok
}

// Owns reports whether a package path lies in one of the target's modules.
func (t *Target) Owns(pkg string) bool {
	for _, f := range t.Layout {
		if pkg == f.Module || strings.HasPrefix(pkg, f.Module+"/") {
			return true
		}
	}
	return false
}

// Permalink is the GitHub address of a repo-relative file at ref (a tag
// or a commit), at a line (0: none) or a range of lines.
func (t *Target) Permalink(ref, file string, line, end int) string {
	u := fmt.Sprintf("https://github.com/%s/blob/%s/%s", t.Repo, ref, file)
	switch {
	case line > 0 && end > line:
		u += fmt.Sprintf("#L%d-L%d", line, end)
	case line > 0:
		u += fmt.Sprintf("#L%d", line)
	}
	return u
}
