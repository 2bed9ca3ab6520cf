package trace_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study"
)

// fields splits a want line into words and double-quoted strings.
func fields(t *testing.T, line string) []string {
	t.Helper()
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			s, err := strconv.QuotedPrefix(line)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			u, _ := strconv.Unquote(s)
			out = append(out, u)
			line = line[len(s):]
			continue
		}
		i := strings.IndexAny(line, " \t")
		if i < 0 {
			i = len(line)
		}
		out = append(out, line[:i])
		line = line[i:]
	}
	return out
}

// answer finds the answer for an object (its short name) of a text.
func answer(w *report.Why, short string) *report.Why {
	for _, a := range w.Answers {
		if report.ShortName(a.Symbol) == short {
			return a
		}
	}
	return nil
}

// TestErrorsFixture: why on error texts and the atlas, on
// fixtures/errors.txtar, against its want-errors file.
func TestErrorsFixture(t *testing.T) {
	dir, ar := fixtures.Unpack(t, "errors")
	st, err := study.Parse(fixtures.File(ar, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := fixtures.File(ar, "want-errors")
	if want == nil {
		t.Fatal("the archive has no want-errors file")
	}
	why := func(text string) (*report.Why, error) {
		return trace.Why(context.Background(), trace.WhyOptions{Symbol: text, Target: st.Tgt(), Dir: dir, Env: fixtures.Env})
	}
	var atlas *report.Atlas
	atlasOf := func() *report.Atlas {
		if atlas == nil {
			a, err := trace.Errors(context.Background(), trace.ErrorsOptions{Target: st.Tgt(), Dir: dir, Env: fixtures.Env})
			if err != nil {
				t.Fatalf("errors: %v", err)
			}
			atlas = a
		}
		return atlas
	}
	var cur *report.Why
	var curText string
	sc := bufio.NewScanner(bytes.NewReader(want))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		f := fields(t, line)
		need := func(n int) bool {
			if len(f) < n {
				t.Errorf("%s: wants %d fields", line, n)
				return false
			}
			return true
		}
		obj := func(w *report.Why) *report.Why {
			a := answer(w, f[1])
			if a == nil {
				t.Errorf("%q: no answer for %s", curText, f[1])
			}
			return a
		}
		switch f[0] {
		case "text":
			if !need(2) {
				continue
			}
			curText = f[1]
			if cur, err = why(curText); err != nil {
				t.Fatalf("why %q: %v", curText, err)
			}
			if cur.Text != curText || len(cur.Answers) != len(cur.Matches) {
				t.Errorf("why %q: text %q, %d answers for %d matches", curText, cur.Text, len(cur.Answers), len(cur.Matches))
			}
		case "stripped":
			if !need(2) {
				continue
			}
			got := []string{cur.Stripped}
			wantF := []string{f[1]}
			for i := 2; i+1 < len(f); i += 2 {
				switch f[i] {
				case "code":
					got = append(got, "code", cur.Code)
				case "forms":
					got = append(got, "forms", strings.Join(cur.Forms, ","))
				}
				wantF = append(wantF, f[i], f[i+1])
			}
			if fmt.Sprint(got) != fmt.Sprint(wantF) {
				t.Errorf("%q: stripped %v, want %v", curText, got, wantF)
			}
		case "match":
			if !need(5) {
				continue
			}
			found := false
			for _, m := range cur.Matches {
				if report.ShortName(m.Object) == f[1] {
					found = true
					if got := []string{m.How, m.Kind, m.Code}; fmt.Sprint(got) != fmt.Sprint(f[2:5]) {
						t.Errorf("%q: %s matched %v, want %v", curText, f[1], got, f[2:5])
					}
				}
			}
			if !found {
				t.Errorf("%q names no %s (it names %v)", curText, f[1], shortMatches(cur))
			}
		case "matches":
			if n, _ := strconv.Atoi(f[1]); n != len(cur.Matches) {
				t.Errorf("%q names %d objects, want %s: %v", curText, len(cur.Matches), f[1], shortMatches(cur))
			}
		case "grpc":
			if !need(4) {
				continue
			}
			a := obj(cur)
			if a == nil || a.User == nil || a.User.GRPC == nil {
				t.Errorf("%q: %s has no gRPC half", curText, f[1])
				continue
			}
			g := a.User.GRPC
			got := []string{g.By, g.Code}
			if len(f) > 4 {
				got = append(got, report.ShortName(g.Object))
			}
			if fmt.Sprint(got) != fmt.Sprint(f[2:]) {
				t.Errorf("%q: %s is sent %v, want %v", curText, f[1], got, f[2:])
			}
		case "client":
			if !need(3) {
				continue
			}
			a := obj(cur)
			if a == nil || a.User == nil || a.User.Client == nil {
				t.Errorf("%q: %s has no client half", curText, f[1])
				continue
			}
			c := a.User.Client
			if f[2] == "passes" {
				if !c.Passes || len(c.EqualTo) != 0 || !strings.HasPrefix(c.Text, "rpc error: ") {
					t.Errorf("%q: %s's client value = %+v, want the status passed through", curText, f[1], c)
				}
				continue
			}
			got := []string{report.ShortName(c.Made)}
			for _, e := range c.EqualTo {
				got = append(got, report.ShortName(e))
			}
			if fmt.Sprint(got) != fmt.Sprint(f[2:]) {
				t.Errorf("%q: %s's client value %v, want %v", curText, f[1], got, f[2:])
			}
		case "etcdctl", "noetcdctl":
			if !need(3) {
				continue
			}
			a := obj(cur)
			if a == nil || a.User == nil {
				continue
			}
			var c *report.UserCommand
			for i, x := range a.User.Etcdctl {
				if x.Command == f[2] {
					c = &a.User.Etcdctl[i]
				}
			}
			if f[0] == "noetcdctl" {
				if c != nil {
					t.Errorf("%q: %s lists %s: %+v", curText, f[1], f[2], *c)
				}
				continue
			}
			if !need(6) {
				continue
			}
			if c == nil {
				t.Errorf("%q: %s lists no command %s (%+v)", curText, f[1], f[2], a.User.Etcdctl)
				continue
			}
			exit := "-"
			if c.ExitCode != nil {
				exit = fmt.Sprint(*c.ExitCode)
			}
			got := []string{c.Method, exit, strings.Join(c.Stderr, "\n")}
			if fmt.Sprint(got) != fmt.Sprint(f[3:6]) || !c.Evaluated {
				t.Errorf("%q: %s %s: %q (evaluated %v), want %q", curText, f[1], f[2], got, c.Evaluated, f[3:6])
			}
		case "none":
			if !need(3) {
				continue
			}
			_, err := why(f[1])
			if !errors.Is(err, trace.ErrNoObject) || !strings.Contains(err.Error(), strconv.Quote(f[2])) {
				t.Errorf("why %q: err = %v, want one naming %q", f[1], err, f[2])
			}
		case "atlas", "notatlas":
			a := atlasOf()
			var e *report.AtlasError
			for i := range a.Errors {
				if report.ShortName(a.Errors[i].Object) == f[1] {
					e = &a.Errors[i]
				}
			}
			if f[0] == "notatlas" {
				if e != nil {
					t.Errorf("the atlas lists %s", f[1])
				}
				continue
			}
			if e == nil {
				t.Errorf("the atlas lists no %s", f[1])
				continue
			}
			got := []string{e.GRPCCode}
			seen := map[string]bool{}
			for _, c := range e.Etcdctl {
				if !seen[c.Command] {
					seen[c.Command] = true
					got = append(got, c.Command)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(f[2:]) {
				t.Errorf("the atlas's %s: %v, want %v", f[1], got, f[2:])
			}
		default:
			t.Errorf("unknown want-errors line %q", line)
		}
	}
}

func shortMatches(w *report.Why) []string {
	var out []string
	for _, m := range w.Matches {
		out = append(out, report.ShortName(m.Object)+" "+m.How)
	}
	return out
}
