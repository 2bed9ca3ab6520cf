package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/mod/semver"

	"github.com/srctrace/srctrace/annotate"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/observe"
	"github.com/srctrace/srctrace/trace/progress"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/study"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

type errcompactedOptions struct {
	study    *study.Study
	format   string
	output   string
	version  string
	dir      string
	paths    int
	noCache  bool
	cacheDir string
	env      []string
	lab      bool
	drift    bool
	observe  bool
	// kubernetes is --kubernetes: "" off, "auto" the newest release that
	// fits, or a release.
	kubernetes string
	stdout     io.Writer
	stderr     io.Writer // for what --drift leaves out
}

// newErrcompactedCmd builds the command; runF replaces runErrcompacted in
// tests of flag parsing.
func newErrcompactedCmd(runF func(context.Context, *errcompactedOptions) error) *cobra.Command {
	if runF == nil {
		runF = runErrcompacted
	}
	opts := &errcompactedOptions{study: errcompacted.Study}
	cmd := &cobra.Command{
		Use:   "errcompacted",
		Short: "Trace the evict-watcher exercise's ErrCompacted sites in the etcd source",
		Long: `errcompacted loads the etcd server packages of one release, finds every use
of mvcc.ErrCompacted by type identity, traces call paths to each use from
the server's entry points (the gRPC watch handler, the watch sync loop, the
Range handler, the apply loop, the compactor, ...), and writes study notes
that link step 6's citation to the behaviours seen in the lab.

The default release is the one srctrace pins in its go.mod; it is fetched
from the Go module proxy once, then read from the module cache.`,
		Example: `  srctrace errcompacted                          # Markdown notes on stdout
  srctrace errcompacted --format json -o r.json  # the same report as JSON
  srctrace errcompacted --etcd-version v3.6.0    # another release
  srctrace errcompacted --etcd-dir ~/src/etcd    # a local checkout (repo root)
  srctrace errcompacted --lab                    # with the lab's observations merged in
  srctrace errcompacted --observe                # mark what ran in each behaviour (coverage)
  srctrace errcompacted --kubernetes             # and the Kubernetes layers (API server, watch cache, client-go)
  srctrace errcompacted --kubernetes --lab       # and the four layers' lab
  srctrace errcompacted --etcd-version v3.6.0,v3.7.1,v3.7.3 --drift   # positions across releases
  srctrace errcompacted --etcd-version v3.6.0,v3.7.3 --drift --format html -o drift.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.validate(); err != nil {
				return err
			}
			opts.stdout, opts.stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runF(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.format, "format", "markdown", "output format: markdown, json, html or text")
	f.StringVarP(&opts.output, "output", "o", "", "write to this file (atomically) instead of stdout")
	f.StringVar(&opts.version, "etcd-version", "", "etcd release to load from the Go module proxy (default: the pinned release)")
	f.StringVar(&opts.dir, "etcd-dir", "", "root of a local etcd checkout to load instead of a release")
	f.IntVar(&opts.paths, "paths", 3, "shortest call paths to show per (entry, site) pair")
	f.BoolVar(&opts.observe, "observe", false, "run the lab's behaviours on a coverage-instrumented etcd and mark what ran")
	f.BoolVar(&opts.drift, "drift", false, "with several releases (--etcd-version A,B,C): where every position the notes cite is in each, and whether its code changed")
	f.BoolVar(&opts.lab, "lab", false, "also run the lab on a server of the release the notes read and merge what it observed into the notes")
	f.StringVar(&opts.kubernetes, "kubernetes", "", "also follow the signal into Kubernetes (API server storage, watch cache, client-go): the newest release that fits, or --kubernetes=v0.N.M")
	f.Lookup("kubernetes").NoOptDefVal = "auto"
	f.BoolVar(&opts.noCache, "no-cache", false, "do not read or write a result cache (srctrace keeps none yet; the flag is accepted for scripts)")
	return cmd
}

func (o *errcompactedOptions) validate() error {
	if err := checkFormat(o.format, "markdown", "json", "html", "text"); err != nil {
		return err
	}
	if o.paths < 1 {
		return usagef("--paths %d: want 1 or more", o.paths)
	}
	if err := checkSource(o.version, o.dir); err != nil {
		return err
	}
	multi := strings.Contains(o.version, ",")
	switch {
	case o.drift && !multi:
		return usagef("--drift wants several releases: --etcd-version v3.6.0,v3.7.1,v3.7.3")
	case multi && !o.drift:
		return usagef("several releases (%s) are for --drift", o.version)
	case o.drift && o.lab:
		return usagef("--drift and --lab exclude each other")
	case o.drift && o.observe:
		return usagef("--drift and --observe exclude each other")
	case o.observe && o.dir != "":
		return usagef("--observe runs releases only: use --etcd-version, not --etcd-dir")
	case o.drift && o.kubernetes != "":
		return usagef("--drift and --kubernetes exclude each other")
	}
	if c := o.study.Consumers; o.kubernetes != "" && o.kubernetes != "auto" && c != nil && !c.Consumer.IsRelease(o.kubernetes) {
		return usagef("--kubernetes=%s: %q is not a %s release: name one such as %s, or give --kubernetes alone for the newest that fits", o.kubernetes, o.kubernetes, c.Consumer.Name, c.Consumer.ReleaseHint)
	}
	return checkOutput(o.output)
}

// labVersion is the release the lab runs for notes that read etcd: the
// release they read, or a checkout's when it is at a release's tag with no
// changes (git describe prints the tag alone: v3.6.0, not
// v3.6.0-5-gabcdef); empty (the embedded release) for a checkout that is
// no release.
func labVersion(st *study.Study, e report.Etcd) string {
	if e.Source == "module" {
		return e.Version
	}
	if !e.Dirty && st.Tgt().IsRelease(e.Version) && semver.Prerelease(e.Version) == "" && semver.Build(e.Version) == "" {
		return e.Version
	}
	return ""
}

// runDrift runs the study at each release and renders the drift table. A
// release that cannot be had (not served, not supported by the study) is
// left out of the table, which covers the others, and named on stderr.
func runDrift(ctx context.Context, opts *errcompactedOptions) error {
	var reps []*report.Report
	var skipped []string
	vs := strings.Split(opts.version, ",")
	for i, v := range vs {
		if vs[i] = strings.TrimSpace(v); vs[i] == "" {
			return usagef("--etcd-version %q: an empty release in the list", opts.version)
		}
	}
	ph := progress.Start(ctx, fmt.Sprintf("drift over %d releases", len(vs)), len(vs))
	defer ph.Done()
	for _, v := range vs {
		ph.Next("etcd " + v)
		rep, err := driftRelease(ctx, opts, v)
		switch {
		case err == nil:
			reps = append(reps, rep)
		case errors.Is(err, source.ErrUsage) || ctx.Err() != nil:
			return err
		default:
			skipped = append(skipped, fmt.Sprintf("--drift leaves out etcd %s: %v", v, err))
		}
	}
	ph.Done()
	if len(reps) == 0 {
		return fmt.Errorf("no release of %s could be had: %s", opts.version, strings.Join(skipped, "; "))
	}
	var buf bytes.Buffer
	d := trace.Drift(reps)
	if err := annotate.Render(&buf, opts.format, annotate.Output{Data: d, Doc: annotate.DriftDoc(d), Etcd: report.Etcd{Repo: d.Repo}}); err != nil {
		return err
	}
	if err := writeOutput(ctx, opts.stdout, opts.output, buf.Bytes()); err != nil {
		return err
	}
	if opts.stderr != nil {
		for _, s := range skipped {
			fmt.Fprintf(opts.stderr, "srctrace: %s\n", s)
		}
	}
	return nil
}

func driftRelease(ctx context.Context, opts *errcompactedOptions, v string) (*report.Report, error) {
	res, err := trace.Run(ctx, trace.Options{Study: opts.study, Version: v, CacheDir: opts.cacheDir, Env: opts.env, Paths: opts.paths})
	if err != nil {
		return nil, err
	}
	return res.Report()
}

func runErrcompacted(ctx context.Context, opts *errcompactedOptions) error {
	if opts.drift {
		return runDrift(ctx, opts)
	}
	if opts.kubernetes != "" && opts.study.Consumers == nil {
		return usagef("--kubernetes: the %s study reads no consumers of etcd", opts.study.Name)
	}
	cons := startConsumers(ctx, opts)
	defer cons.stop()
	res, err := trace.Run(ctx, trace.Options{
		Study:    opts.study,
		Version:  opts.version,
		Dir:      opts.dir,
		CacheDir: opts.cacheDir,
		Env:      opts.env,
		Paths:    opts.paths,
	})
	if err != nil {
		return err
	}
	rep, err := res.Report()
	if err != nil {
		return err
	}
	if opts.lab {
		if opts.study.Lab == nil {
			return usagef("--lab: the %s study has no lab", opts.study.Name)
		}
		d := opts.study.Lab.Defaults
		lr, err := labRun(ctx, &labOptions{study: opts.study, version: labVersion(opts.study, rep.Etcd), writes: d.Writes, byHand: d.Delay, cacheDir: opts.cacheDir, env: opts.env})
		if err != nil {
			return err
		}
		if run := lr.Run(); run.Etcd.Version != rep.Etcd.Version {
			run.Notes = append(run.Notes, fmt.Sprintf("the lab ran etcd %s, the notes read the source of %s, which is no release: positions are %s's", run.Etcd.Version, rep.Etcd.Version, rep.Etcd.Version))
		}
		if rep.Lab, err = json.Marshal(lr); err != nil {
			return fmt.Errorf("recording the lab: %w", err)
		}
	}
	if opts.observe {
		var pkgs []string
		for _, p := range rep.Packages {
			if p == opts.study.Module || strings.HasPrefix(p, opts.study.Module+"/") {
				pkgs = append(pkgs, p)
			}
		}
		res, err := observe.Run(ctx, observe.Options{Version: rep.Etcd.Version, Packages: pkgs, Modules: opts.study.Modules(),
			Layout: opts.study.LayoutMap(), CacheDir: opts.cacheDir, Env: opts.env, Lab: opts.study.Lab})
		if err != nil {
			return err
		}
		observe.Apply(rep, res)
	}
	if opts.kubernetes != "" {
		if err := readConsumers(ctx, opts, cons, rep); err != nil {
			return err
		}
	}
	if opts.study.Notes != nil {
		rep.Notes = opts.study.Notes(rep)
	} else {
		rep.Notes = annotate.ReportDoc(rep)
	}
	var buf bytes.Buffer
	if err := annotate.Render(&buf, opts.format, annotate.Output{Data: rep, Doc: rep.Notes, Etcd: rep.Etcd}); err != nil {
		return err
	}
	return writeOutput(ctx, opts.stdout, opts.output, buf.Bytes())
}
