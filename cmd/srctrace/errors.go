package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/srctrace/srctrace/annotate"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/target"
)

type errorsOptions struct {
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

// newErrorsCmd builds the command; runF replaces runErrors in tests of
// flag parsing.
func newErrorsCmd(runF func(context.Context, *errorsOptions) error) *cobra.Command {
	if runF == nil {
		runF = runErrors
	}
	opts := &errorsOptions{}
	cmd := &cobra.Command{
		Use:   "errors [flags]",
		Short: "An atlas of every exported error of etcd's server and api modules",
		Long: `errors lists every exported error variable of etcd's server and api modules at
one release: its text, evaluated from its declaration (errors.New, fmt.Errorf,
gRPC's status.Error, the client's conversion rpctypes.Error, an alias); the
gRPC code it is carried with (its own, or its translation's in the server's
translation map); its uses by identity, with the roots that reach each by a
path that can run, as srctrace why finds them; what the Go client returns for
it; and the etcdctl commands, read from etcdctl's command tree, whose calls
can send a gRPC method whose server root reaches a use, with what each prints
on stderr and its exit status. One load of the release and one call graph
serve every error.

The HTML page is one file with a search box and an anchor per error
(#err-<package>.<Name>); nothing is loaded from anywhere.`,
		Example: `  srctrace errors --format html -o errors.html
  srctrace errors --format json | jq '.errors[] | select(.grpc_code == "Unavailable") | .object'
  srctrace errors --etcd-version v3.6.0 -o errors-v3.6.0.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 0 {
				return usagef("errors takes no arguments: srctrace errors [flags]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
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
	f.IntVar(&opts.paths, "paths", 3, "shortest call paths to try first per (root, use)")
	f.IntVar(&opts.nearest, "roots", 5, "nearest roots to keep per use")
	return cmd
}

// atlasGC is how the atlas collects garbage unless GOGC or GOMEMLIMIT
// says otherwise: it holds one call graph of every package of the release
// while it answers every error, and trades memory for time: a heap three
// times what is live before a collection, but never past a soft limit
// (measured: a fourth less CPU, about 1 GB at v3.7.3 instead of 0.9).
const (
	atlasGCPercent = 300
	atlasMemLimit  = 1000 << 20
)

// atlasGC sets the atlas's target (unless GOGC or GOMEMLIMIT say
// otherwise), after ending the delay of the first collection, and
// returns what puts the settings before it back.
func atlasGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	endFirstGCDelay()
	percent := debug.SetGCPercent(atlasGCPercent)
	limit := debug.SetMemoryLimit(atlasMemLimit)
	return func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	}
}

func runErrors(ctx context.Context, opts *errorsOptions) error {
	defer atlasGC()()
	atlas, err := trace.Errors(ctx, trace.ErrorsOptions{Target: opts.target, Version: opts.version, Dir: opts.dir,
		CacheDir: opts.cacheDir, Env: opts.env, Paths: opts.paths, Nearest: opts.nearest})
	if err != nil {
		return err
	}
	atlas.Notes = annotate.AtlasDoc(atlas)
	var buf bytes.Buffer
	if err := annotate.Render(&buf, opts.format, annotate.Output{Data: atlas, Doc: atlas.Notes, Etcd: atlas.Etcd}); err != nil {
		return err
	}
	return writeOutput(ctx, opts.stdout, opts.output, buf.Bytes())
}
