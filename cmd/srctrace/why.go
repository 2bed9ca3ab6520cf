package main

import (
	"bytes"
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/srctrace/srctrace/annotate"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/target"
)

type whyOptions struct {
	symbol   string
	format   string
	output   string
	version  string
	dir      string
	paths    int
	nearest  int
	cacheDir string
	env      []string
	target   *target.Target // nil: etcd (tests set a fixture's)
	stdout   io.Writer
}

// newWhyCmd builds the command; runF replaces runWhy in tests of flag
// parsing.
func newWhyCmd(runF func(context.Context, *whyOptions) error) *cobra.Command {
	if runF == nil {
		runF = runWhy
	}
	opts := &whyOptions{}
	cmd := &cobra.Command{
		Use:   "why [flags] SYMBOL|TEXT",
		Short: "Every use of one etcd object (or of the errors an error text names), and the roots that can reach each",
		Long: `why finds every use of one object of etcd's modules (an error variable, a
function, a method, an interface method, a field) by type identity, with the
calls that reach a function or method through an interface or a function
value (marked dynamic) and, for an interface method, its implementations'
uses; and for each use the roots found from the code (gRPC methods, HTTP
handlers, goroutines, main functions) that reach it by a path that can run:
by calls, across the hand-offs of etcd's architecture (a raft proposal and
its apply, the scheduled apply job, the watch channels, a peer's hash request
over the network), with the message
each hands off, or at start-up from a program's main function. Each root says
what runs it (a gRPC method's name and the client stub that sends it). No
study is needed.

SYMBOL is pkg.Name, pkg.(*T).M, pkg.T.M or pkg.T.field, where pkg is a
package's path, the end of it (mvcc, client/v3) or its name. A pkg that
several packages end with is refused with the list of them (exit 2) unless
only one declares the name; a name that is not there gets the closest names
(exit 1).

An error variable also gets what its user meets: the gRPC code and text it
is sent with (its own, or its entry in the server's translation map), what
the Go client returns (the value its conversion makes, and the client-side
variables that value compares equal to), and the etcdctl commands (read from
etcdctl's command tree) whose calls can send a gRPC method whose server root
reaches a use, with what each prints on stderr and its exit status.

An argument that is not a Go name (quote it) is an error's text as a user saw
it, whole or in part, with or without the forms layers put around it
(etcdctl's "Error: ", gRPC's "rpc error: code = ... desc = "): every error
object of etcd's modules whose text it is, evaluated from its declaration, and
the server errors translated into those, are each answered as for a name. A
text that names none gets the closest texts (exit 1); one that is a part of
too many is refused (exit 2).`,
		Example: `  srctrace why mvcc.ErrFutureRev
  srctrace why "Error: etcdserver: mvcc: required revision has been compacted"
  srctrace why "rpc error: code = Unavailable desc = etcdserver: request timed out" --format json
  srctrace why 'mvcc.(*store).Compact'
  srctrace why mvcc.KV.Compact --format json
  srctrace why go.etcd.io/etcd/server/v3/lease.ErrLeaseNotFound --format json
  srctrace why rpctypes.ErrGRPCNoLeader --etcd-version v3.6.0
  srctrace why 'etcdserver.(*EtcdServer).LeaseRevoke' --format html -o why.html`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("why wants one symbol or one error text: srctrace why pkg.Name, or srctrace why \"TEXT\"")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.symbol = args[0]
			if err := checkFormat(opts.format, "markdown", "json", "html"); err != nil {
				return err
			}
			if err := checkSource(opts.version, opts.dir); err != nil {
				return err
			}
			if opts.paths < 1 || opts.nearest < 1 {
				return usagef("--paths and --roots want 1 or more")
			}
			if err := checkOutput(opts.output); err != nil {
				return err
			}
			opts.stdout = cmd.OutOrStdout()
			return runF(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.format, "format", "markdown", "output format: markdown, json or html")
	f.StringVarP(&opts.output, "output", "o", "", "write to this file (atomically) instead of stdout")
	f.StringVar(&opts.version, "etcd-version", "", "etcd release to load from the Go module proxy (default: the pinned release)")
	f.StringVar(&opts.dir, "etcd-dir", "", "root of a local etcd checkout to load instead of a release")
	f.IntVar(&opts.paths, "paths", 3, "shortest call paths to show per (root, use)")
	f.IntVar(&opts.nearest, "roots", 5, "nearest roots to keep per use")
	return cmd
}

func runWhy(ctx context.Context, opts *whyOptions) error {
	rep, err := trace.Why(ctx, trace.WhyOptions{Symbol: opts.symbol, Target: opts.target, Version: opts.version, Dir: opts.dir,
		CacheDir: opts.cacheDir, Env: opts.env, Paths: opts.paths, Nearest: opts.nearest, LoadingTool: putOffFirstGC})
	if err != nil {
		return err
	}
	rep.Notes = annotate.WhyDoc(rep)
	var buf bytes.Buffer
	if err := annotate.Render(&buf, opts.format, annotate.Output{Data: rep, Doc: rep.Notes, Etcd: rep.Etcd}); err != nil {
		return err
	}
	return writeOutput(ctx, opts.stdout, opts.output, buf.Bytes())
}
