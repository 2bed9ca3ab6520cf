package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study"
)

func TestErrorsFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    errorsOptions
		wantErr string
	}{
		{args: nil, want: errorsOptions{format: "markdown", paths: 3, nearest: 5}},
		{args: []string{"--format", "html", "-o", "e.html"}, want: errorsOptions{format: "html", output: "e.html", paths: 3, nearest: 5}},
		{args: []string{"--etcd-version", "v3.6.0", "--roots", "2", "--paths", "1"}, want: errorsOptions{format: "markdown", version: "v3.6.0", paths: 1, nearest: 2}},
		{args: []string{"extra"}, wantErr: "errors takes no arguments"},
		{args: []string{"--format", "text"}, wantErr: `--format "text"`},
		{args: []string{"--roots", "0"}, wantErr: "want 1 or more"},
		{args: []string{"--etcd-version", "v3.6.0", "--etcd-dir", "x"}, wantErr: "exclude each other"},
		{args: []string{"-o", filepath.Join("no", "such", "dir", "e.md")}, wantErr: "there is no directory"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var opts *errorsOptions
			cmd := newErrorsCmd(func(_ context.Context, o *errorsOptions) error { opts = o; return nil })
			cmd.SetArgs(tc.args)
			cmd.SetOut(new(bytes.Buffer))
			cmd.SetErr(new(bytes.Buffer))
			err := cmd.Execute()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			opts.stdout = nil
			if diff := cmp.Diff(tc.want, *opts, cmp.AllowUnexported(errorsOptions{})); diff != "" {
				t.Errorf("opts (-want +got):\n%s", diff)
			}
		})
	}
}

// TestErrorsExitCodes: an argument, or -o into a directory that is not
// there, is usage (2), before any work.
func TestErrorsExitCodes(t *testing.T) {
	for _, args := range [][]string{{"errors", "x"}, {"errors", "-o", filepath.Join(t.TempDir(), "no", "e.md")}} {
		var out, errb bytes.Buffer
		if code := run(args, nil, &out, &errb); code != exitUsage {
			t.Errorf("srctrace %s: exit %d, want %d (%s)", strings.Join(args, " "), code, exitUsage, errb.String())
		}
	}
}

// TestRunErrorsFixture: the atlas of the errors fixture as JSON (the
// brief's fields), Markdown and HTML (a search box, an anchor per error).
func TestRunErrorsFixture(t *testing.T) {
	dir, ar := fixtures.Unpack(t, "errors")
	st, err := study.Parse(fixtures.File(ar, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	opts := &errorsOptions{format: "json", dir: dir, paths: 3, nearest: 5, env: fixtures.Env, target: st.Tgt(), stdout: &js}
	if err := runErrors(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Errors []map[string]json.RawMessage `json:"errors"`
	}
	if err := json.Unmarshal(js.Bytes(), &raw); err != nil || len(raw.Errors) == 0 {
		t.Fatalf("json: %v (%d errors)", err, len(raw.Errors))
	}
	for _, k := range []string{"object", "text", "grpc_code", "uses", "roots", "etcdctl"} {
		if _, ok := raw.Errors[0][k]; !ok {
			t.Errorf("an error has no %q", k)
		}
	}
	var a report.Atlas
	if err := json.Unmarshal(js.Bytes(), &a); err != nil || a.Notes == nil {
		t.Fatalf("json: %v", err)
	}
	var md, html bytes.Buffer
	opts.format, opts.stdout = "markdown", &md
	if err := runErrors(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	opts.format, opts.stdout = "html", &html
	if err := runErrors(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	for _, e := range a.Errors {
		if !strings.Contains(md.String(), `<a id="`+e.Anchor+`"></a>`) || !strings.Contains(html.String(), `id="`+e.Anchor+`"`) {
			t.Errorf("no anchor %s", e.Anchor)
		}
	}
	if !strings.Contains(html.String(), `<input type="search" id="search"`) || !strings.Contains(html.String(), "<script>") {
		t.Error("the HTML has no search box")
	}
	for _, s := range []string{"<script src", "<link rel=\"stylesheet\"", "http://", "@import"} {
		if strings.Contains(html.String(), s) {
			t.Errorf("the HTML loads something: %q", s)
		}
	}
}

// TestRunWhyText: why on an error's text, on the errors fixture: the
// answer names the objects and their user's half; a text that names
// nothing is one sentence with the closest texts (exit 1 through run).
func TestRunWhyText(t *testing.T) {
	dir, ar := fixtures.Unpack(t, "errors")
	st, err := study.Parse(fixtures.File(ar, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	opts := &whyOptions{symbol: "Error: etcdserver: mvcc: required revision has been compacted", format: "markdown", dir: dir,
		paths: 3, nearest: 5, env: fixtures.Env, target: st.Tgt(), stdout: &md}
	if err := runWhy(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`# Why: "Error: etcdserver: mvcc: required revision has been compacted"`,
		"What the text names", "translated into `rpctypes.ErrGRPCCompacted`",
		"What its user meets", "`Error: etcdserver: mvcc: required revision has been compacted`",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	var js bytes.Buffer
	opts.format, opts.stdout = "json", &js
	if err := runWhy(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	var w report.Why
	if err := json.Unmarshal(js.Bytes(), &w); err != nil || len(w.Matches) != 4 || len(w.Answers) != 4 {
		t.Fatalf("json: %v, %d matches", err, len(w.Matches))
	}
	opts.symbol = "mvcc: requird revision has been compacted"
	err = runWhy(context.Background(), opts)
	if !errors.Is(err, trace.ErrNoObject) || !strings.Contains(err.Error(), `the closest texts are "mvcc: required revision has been compacted"`) {
		t.Errorf("a typo: err = %v", err)
	}
}
