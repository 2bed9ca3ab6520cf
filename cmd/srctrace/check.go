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
  https://github.com/etcd-io/etcd/blob/<tag>/path#L123 (at that tag, or --to)
  symbols as inline code: ` + "`mvcc.(*watcherGroup).chooseAll`, `pkg.Func`, `pkg.T.field`" + `

A citation is ok only with evidence: the code the notes give for it (the
grep text, inline code in its sentence, list item or table cell), a
function named beside it whose body holds the line, or the notes' own
release (--from, a link's tag, or the marker srctrace errcompacted writes),
from which the line is carried by its text and its neighbours.

Statuses: ok, drifted (now another line), moved (now another file),
missing, mismatch, ambiguous, unresolved, unanchored (the line exists, but
nothing confirms it). Exit status 0 when all are ok, 3 when any is not.
--fix rewrites drifted and moved citations in place, atomically, and
nothing else; with --to, also the tags of links.`,
		Example: `  srctrace check notes.md
  srctrace check --etcd-version v3.6.0 notes.md
  srctrace check --from v3.6.0 --etcd-version v3.7.3 notes.md   # notes written for v3.6.0
  srctrace check --to v3.7.3 --fix notes.md                     # carry them, links too, to v3.7.3
  srctrace check --format json notes.md`,
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
	f.StringVar(&opts.format, "format", "text", "output format: text, json, markdown or html")
	f.StringVar(&opts.version, "etcd-version", "", "etcd release to check against (default: the pinned release)")
	f.StringVar(&opts.dir, "etcd-dir", "", "root of a local etcd checkout to check against")
	f.StringVar(&opts.from, "from", "", "the etcd release the notes' line numbers are of (default: the notes' marker, if any)")
	f.StringVar(&opts.to, "to", "", "carry links to this release: check them, and everything else, against it (with --fix, rewrite their tags)")
	f.BoolVar(&opts.fix, "fix", false, "rewrite drifted and moved citations in place")
	return cmd
}

func (o *checkOptions) validate() error {
	if err := checkFormat(o.format, "text", "json", "markdown", "html"); err != nil {
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
	return nil
}

func runCheck(ctx context.Context, o *checkOptions) error {
	rep, err := check.Run(ctx, check.Options{Target: target.Etcd, Version: o.version, Dir: o.dir, From: o.from, To: o.to,
		Fix: o.fix, Files: o.files, CacheDir: o.cacheDir, Env: o.env})
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := annotate.Render(&buf, o.format, annotate.Output{Data: rep, Doc: annotate.CheckDoc(rep)}); err != nil {
		return err
	}
	if _, err := o.stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	if rep.Bad() > 0 {
		return problemsError{}
	}
	return nil
}
