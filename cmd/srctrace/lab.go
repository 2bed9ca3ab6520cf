package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/srctrace/srctrace/annotate"
	"github.com/srctrace/srctrace/trace/lab"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

type labOptions struct {
	study        *study.Study
	format       string
	output       string
	version      string
	endpoints    []string
	allowCompact bool
	etcdctl      string
	noEtcdctl    bool
	writes       int
	byHand       time.Duration
	cacheDir     string
	env          []string
	phase        func(string)
	stdout       io.Writer
}

func newLabCmd(runF func(context.Context, *labOptions) error) *cobra.Command {
	if runF == nil {
		runF = runLab
	}
	opts := &labOptions{study: errcompacted.Study}
	defaults := opts.study.Lab.Defaults
	cmd := &cobra.Command{
		Use:   "lab",
		Short: "Run the evict-watcher exercise on a real etcd server and record what happens",
		Long: `lab runs the exercise on a real etcd server: an etcd embedded in srctrace
(the pinned release, loopback, ephemeral ports, a fresh data dir); with
--etcd-version another release, its server built once from the release's
module into the user cache dir and run on loopback the same way; or, with
--endpoints, a server on this machine that someone else runs (one srctrace
lab at a time: a second one waits). It writes an anchor key and 2000
writes under a prefix unique to the run, opens a behind and a current watcher, compacts to
N-10 while the behind one is mid-replay (and once more with the by-hand
timing), reopens a watch from the compacted revision, finds the boundary,
runs exercise 6's historical read, and adds two probes the exercise does not
make: a compaction to the revision already compacted to, and a HashKV below
it. The real etcdctl of the server's release
is used for the captures: --etcdctl, else one on PATH of that release, else
one built once into the user cache dir.

Everything the lab wrote is deleted at the end, also on error and on Ctrl-C;
where a server someone else runs stops answering, the error names the keys
left on it. Every request has a deadline: a server that dies or stops
answering ends the run within seconds.`,
		Example: `  srctrace lab                      # embedded etcd: Markdown on stdout
  srctrace lab --format json
  srctrace lab --etcd-version v3.6.0                        # the server of another release
  srctrace lab --endpoints 127.0.0.1:2379 --allow-compact   # an existing server`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			opts.stdout = cmd.OutOrStdout()
			return runF(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.format, "format", "markdown", "output format: markdown, json or html")
	f.StringVarP(&opts.output, "output", "o", "", "write to this file (atomically) instead of stdout")
	f.StringVar(&opts.version, "etcd-version", "", "etcd release to run (default: the pinned release, embedded); another is built from its module")
	f.StringSliceVar(&opts.endpoints, "endpoints", nil, "use the etcd server at these loopback endpoints instead of one srctrace runs")
	f.BoolVar(&opts.allowCompact, "allow-compact", false, "allow compacting the server given by --endpoints (compaction is cluster-wide)")
	f.StringVar(&opts.etcdctl, "etcdctl", "", "the etcdctl binary to use for the captures")
	f.BoolVar(&opts.noEtcdctl, "no-etcdctl", false, "use no etcdctl: Go client results only")
	f.IntVar(&opts.writes, "writes", defaults.Writes, "writes in each round's setup")
	f.DurationVar(&opts.byHand, "by-hand-delay", defaults.Delay, "delay of the by-hand compaction after the watch opens; 0 skips that round")
	return cmd
}

func (o *labOptions) validate() error {
	if err := checkFormat(o.format, "markdown", "json", "html"); err != nil {
		return err
	}
	if c := o.study.Lab.Check; c != nil {
		if err := c(lab.Options{Writes: o.writes, Delay: o.byHand}); err != nil {
			return usageError{err}
		}
	}
	if o.byHand < 0 {
		return usagef("--by-hand-delay %v: want 0 (skip) or more", o.byHand)
	}
	if o.etcdctl != "" && o.noEtcdctl {
		return usagef("--etcdctl and --no-etcdctl exclude each other")
	}
	if o.version != "" {
		if t := o.study.Tgt(); !t.IsRelease(o.version) {
			return usagef("--etcd-version %q: want an %s release such as %s", o.version, t.Name, t.ReleaseHint)
		}
		if len(o.endpoints) > 0 {
			return usagef("--etcd-version and --endpoints exclude each other: the server at %s runs its own release", strings.Join(o.endpoints, ","))
		}
	}
	if len(o.endpoints) > 0 && !o.allowCompact {
		return usagef("the lab compacts the server, and compaction is cluster-wide: it destroys history for every client of %s; pass --allow-compact to allow it", strings.Join(o.endpoints, ","))
	}
	return checkOutput(o.output)
}

// labRun runs the study's lab with the options shared by `lab` and
// `errcompacted --lab`.
func labRun(ctx context.Context, o *labOptions) (lab.Record, error) {
	st := o.study
	delay := o.byHand
	if delay == 0 {
		delay = -1 // --by-hand-delay 0: skip that round
	}
	rep, err := lab.Run(ctx, st.Lab, lab.Options{
		Version:      o.version,
		BuildServer:  lab.ServerBuilder(o.cacheDir, st.Module, st.LayoutMap(), o.env),
		Endpoints:    o.endpoints,
		AllowCompact: o.allowCompact,
		Etcdctl:      o.etcdctl,
		NoEtcdctl:    o.noEtcdctl,
		Build:        lab.Builder(o.cacheDir, st.Modules(), st.LayoutMap(), o.env),
		Writes:       o.writes,
		Delay:        delay,
		Phase:        o.phase,
	})
	if errors.Is(err, lab.ErrUsage) {
		return nil, usageError{err}
	}
	return rep, err
}

func runLab(ctx context.Context, o *labOptions) error {
	rep, err := labRun(ctx, o)
	if err != nil {
		return err
	}
	run := rep.Run()
	if o.study.LabNotes != nil {
		run.Doc = o.study.LabNotes(rep)
	}
	var buf bytes.Buffer
	if err := annotate.Render(&buf, o.format, annotate.Output{Data: rep, Doc: run.Doc, Etcd: report.Etcd{Version: run.Etcd.Version, Repo: o.study.Tgt().Repo, Ref: run.Etcd.Version}}); err != nil {
		return err
	}
	return writeOutput(ctx, o.stdout, o.output, buf.Bytes())
}
