package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/srctrace/srctrace/trace/check"
	"github.com/srctrace/srctrace/trace/cite"
	"github.com/srctrace/srctrace/trace/source"
	"github.com/srctrace/srctrace/trace/target"
)

type checkOptions struct {
	format   string
	version  string
	dir      string
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

  path/to/file.go:123, file.go:123 (a bare name), file.go:120-130
  git grep -n output: path/file.go:123:<source text>
  https://github.com/etcd-io/etcd/blob/<tag>/path#L123 (checked at that tag)
  a citation followed by inline code: that code is the text to find

Each is ok, drifted (the cited text is now at another line), missing,
mismatch (the text is nowhere in the file), ambiguous or unresolved. Exit
status 0 when all are ok, 3 when any is not. --fix rewrites the line
numbers of drifted citations in place, atomically, and nothing else.`,
		Example: `  srctrace check notes.md
  srctrace check --etcd-version v3.6.0 notes.md
  srctrace check --format json notes.md
  srctrace check --fix notes.md`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("check wants the notes to check: srctrace check NOTES...")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.files = args
			if err := checkFormat(opts.format, "text", "json"); err != nil {
				return err
			}
			if err := checkSource(opts.version, opts.dir); err != nil {
				return err
			}
			opts.stdout = cmd.OutOrStdout()
			return runF(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.format, "format", "text", "output format: text or json")
	f.StringVar(&opts.version, "etcd-version", "", "etcd release to check against (default: the pinned release)")
	f.StringVar(&opts.dir, "etcd-dir", "", "root of a local etcd checkout to check against")
	f.BoolVar(&opts.fix, "fix", false, "rewrite the line numbers of drifted citations in place")
	return cmd
}

// checkedCitation is one citation in the JSON output.
type checkedCitation struct {
	Notes     string `json:"notes"`
	NotesLine int    `json:"notes_line"`
	Form      string `json:"form"`
	Citation  string `json:"citation"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	End       int    `json:"end,omitempty"`
	Text      string `json:"text,omitempty"`
	Status    string `json:"status"`
	Now       int    `json:"now,omitempty"`
	Release   string `json:"release"`
	Resolved  string `json:"resolved,omitempty"`
	Message   string `json:"message,omitempty"`
}

type checkReport struct {
	Release   string            `json:"release"`
	Citations []checkedCitation `json:"citations"`
	Problems  []checkProblem    `json:"problems"`
	Fixed     []string          `json:"fixed,omitempty"`
}

type checkProblem struct {
	Notes     string `json:"notes"`
	NotesLine int    `json:"notes_line,omitempty"`
	Message   string `json:"message"`
}

func treeSpec(o *checkOptions, version, dir string) source.Spec {
	t := target.Etcd
	return source.Spec{Target: t, Version: version, Dir: dir, Modules: t.Modules(), CacheDir: o.cacheDir, Env: o.env}
}

func runCheck(ctx context.Context, o *checkOptions) error {
	rep, err := checkNotes(ctx, o)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if o.format == "json" {
		enc := json.NewEncoder(&buf)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else {
		writeCheckText(&buf, rep)
	}
	if _, err := o.stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	bad := len(rep.Problems)
	for _, c := range rep.Citations {
		if c.Status != string(check.OK) {
			bad++
		}
	}
	if bad > 0 {
		return problemsError{}
	}
	return nil
}

func checkNotes(ctx context.Context, o *checkOptions) (*checkReport, error) {
	def, err := check.Open(ctx, treeSpec(o, o.version, o.dir))
	if err != nil {
		return nil, err
	}
	k := &check.Checker{Default: def, Open: func(ctx context.Context, v string) (*check.Tree, error) {
		t, err := check.Open(ctx, treeSpec(o, v, ""))
		if errors.Is(err, source.ErrUsage) {
			return nil, fmt.Errorf("the link's release %s is not an etcd release", v)
		}
		return t, err
	}}
	rep := &checkReport{Release: def.Version, Citations: []checkedCitation{}, Problems: []checkProblem{}}
	for _, name := range o.files {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("reading notes: %w", err)
		}
		cs, ps := cite.Parse(data)
		for _, p := range ps {
			rep.Problems = append(rep.Problems, checkProblem{Notes: name, NotesLine: p.NotesLine, Message: p.Msg})
		}
		var results []check.Result
		for _, c := range cs {
			r := k.Check(ctx, c)
			results = append(results, r)
			rep.Citations = append(rep.Citations, checkedCitation{Notes: name, NotesLine: c.NotesLine, Form: string(c.Form),
				Citation: c.Raw, File: c.File, Line: c.Line, End: c.End, Text: c.Text, Status: string(r.Status),
				Now: r.Now, Release: r.Release, Resolved: r.Resolved, Message: r.Msg})
		}
		if o.fix {
			fixed := check.Fix(data, results)
			if !bytes.Equal(fixed, data) {
				if err := source.WriteFileAtomic(name, fixed); err != nil {
					return nil, fmt.Errorf("fixing %s: %w", name, err)
				}
				rep.Fixed = append(rep.Fixed, name)
			}
		}
	}
	return rep, nil
}

func writeCheckText(w io.Writer, rep *checkReport) {
	counts := map[string]int{}
	for _, c := range rep.Citations {
		counts[c.Status]++
		line := fmt.Sprintf("%s:%d: %s: %s", c.Notes, c.NotesLine, c.Citation, c.Status)
		if c.Status == string(check.Drifted) {
			line += fmt.Sprintf(" -> %d", c.Now)
		}
		if c.Release != "" && c.Release != rep.Release {
			line += " at " + c.Release
		}
		if c.Message != "" && c.Status != string(check.OK) {
			line += " (" + c.Message + ")"
		}
		fmt.Fprintln(w, line)
	}
	for _, p := range rep.Problems {
		if p.NotesLine > 0 {
			fmt.Fprintf(w, "%s:%d: %s\n", p.Notes, p.NotesLine, p.Message)
		} else {
			fmt.Fprintf(w, "%s: %s\n", p.Notes, p.Message)
		}
	}
	for _, f := range rep.Fixed {
		fmt.Fprintf(w, "%s: drifted line numbers rewritten\n", f)
	}
	fmt.Fprintf(w, "%d citations checked against etcd %s: %d ok, %d drifted, %d missing, %d mismatch, %d ambiguous, %d unresolved\n",
		len(rep.Citations), rep.Release, counts["ok"], counts["drifted"], counts["missing"], counts["mismatch"], counts["ambiguous"], counts["unresolved"])
}
