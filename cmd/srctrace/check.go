package main

import (
	"bytes"
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/srctrace/srctrace/annotate"
	"github.com/srctrace/srctrace/trace/check"
	"github.com/srctrace/srctrace/trace/target"
)

type checkOptions struct {
	format   string
	output   string
	version  string
	dir      string
	from     string
	to       string
	fix      bool
	files    []string
	cacheDir string
	env      []string
	stdout   io.Writer
}

func newCheckCmd(runF func(context.Context, *checkOptions) error) *cobra.Command {
	if runF == nil {
		runF = runCheck
	}
	opts := &checkOptions{}
	cmd := &cobra.Command{
		Use:   "check [flags] NOTES...",
		Short: "Check the file:line citations in study notes against an etcd release",
		Long: `check finds the citations in notes (Markdown, plain text, code blocks) and
checks each against the files of an etcd release or checkout:

  path/to/file.go:123, file.go:123 (a bare name), file.go:120-130, …/file.go:123
  git grep -n output at any indentation: path/file.go:123:<source text>
  https://github.com/etcd-io/etcd/blob/<ref>/path#L123 (at that ref, or --to)
  repository-relative links and paths: [name](server/x.go#L40-L80), ../server/x.go#L12
  prose: "line 255 of watcher_group.go", "watcher_group.go, line 255"
  symbols as inline code: ` + "`mvcc.(*watcherGroup).chooseAll`, `pkg.Func`, `pkg.T.field`" + `

A citation is ok only with evidence, and never when the notes' own text
contradicts it: the code the notes quote (a grep line's text, inline code
beside it, other code of its sentence, list item or table row) is always
compared with the line; a function named beside it whose body holds the
line; or the notes' own release (--from, a link's ref, or the marker srctrace
errcompacted writes), which says whose line numbers they are: the line is
carried from it by its text, its neighbours and its function.

Links are read at their ref: a release tag from the Go module proxy; any
tag, branch or commit through the history of --etcd-dir, a clone with its
.git (the module proxy serves releases, not commits).

Statuses: ok, drifted (now another line), moved (now another file),
missing, mismatch, ambiguous, unresolved, unanchored (the line exists, but
nothing confirms it). Exit status 0 when all are ok, 3 when any is not.
--fix rewrites drifted and moved citations in place, atomically (and the
code quoted beside a line that changed; with --to, the tags of links), and
exits 0 when everything left is ok.`,
		Example: `  srctrace check notes.md
  srctrace check --etcd-version v3.6.0 notes.md
  srctrace check --from v3.6.0 --etcd-version v3.7.3 notes.md   # notes written for v3.6.0
  srctrace check --to v3.7.3 --fix notes.md                     # carry them, links too, to v3.7.3
  srctrace check --etcd-dir ~/src/etcd notes.md                 # links at commits and branches too
  srctrace check --format sarif -o check.sarif notes.md         # for code scanning
  srctrace check --format github notes.md                       # annotations in a GitHub workflow
  srctrace check --format html -o check.html notes.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("check wants the notes to check: srctrace check NOTES...")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.files = args
			if err := opts.validate(); err != nil {
				return err
			}
			opts.stdout = cmd.OutOrStdout()
			return runF(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.format, "format", "text", "output format: text, json, markdown, html, sarif or github")
	f.StringVarP(&opts.output, "output", "o", "", "write to this file (atomically) instead of stdout")
	f.StringVar(&opts.version, "etcd-version", "", "etcd release to check against (default: the pinned release)")
	f.StringVar(&opts.dir, "etcd-dir", "", "root of a local etcd checkout to check against")
	f.StringVar(&opts.from, "from", "", "the etcd release the notes' line numbers are of (default: the notes' marker, if any)")
	f.StringVar(&opts.to, "to", "", "carry links to this release: check them, and everything else, against it (with --fix, rewrite their tags)")
	f.BoolVar(&opts.fix, "fix", false, "rewrite drifted and moved citations in place")
	return cmd
}

func (o *checkOptions) validate() error {
	if err := checkFormat(o.format, "text", "json", "markdown", "html", "sarif", "github"); err != nil {
		return err
	}
	if err := checkSource(o.version, o.dir); err != nil {
		return err
	}
	t := target.Etcd
	for _, f := range []struct{ flag, v string }{{"--from", o.from}, {"--to", o.to}} {
		if f.v != "" && !t.IsRelease(f.v) {
			return usagef("%s %q: want an %s release such as %s", f.flag, f.v, t.Name, t.ReleaseHint)
		}
	}
	if o.to != "" && o.version != "" && o.to != o.version {
		return usagef("--to %s and --etcd-version %s differ: links are carried to the release checked; name one", o.to, o.version)
	}
	return checkOutput(o.output)
}

func runCheck(ctx context.Context, o *checkOptions) error {
	rep, err := check.Run(ctx, check.Options{Target: target.Etcd, Version: o.version, Dir: o.dir, From: o.from, To: o.to,
		Fix: o.fix, Files: o.files, CacheDir: o.cacheDir, Env: o.env})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := annotate.Render(&buf, o.format, annotate.CheckOutput(rep)); err != nil {
		return err
	}
	if err := writeOutput(ctx, o.stdout, o.output, buf.Bytes()); err != nil {
		return err
	}
	if rep.Bad() > 0 {
		return problemsError{}
	}
	return nil
}
