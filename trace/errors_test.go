package trace_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
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
		// client is the client half of the answer for f[1], or nil (said).
		client := func(w *report.Why) *report.UserClient {
			a := obj(w)
			if a == nil || a.User == nil || a.User.Client == nil {
				t.Errorf("%q: %s has no client half", curText, f[1])
				return nil
			}
			return a.User.Client
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
			c := client(cur)
			if c == nil {
				continue
			}
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
		case "own", "noown":
			if !need(4) {
				continue
			}
			c := client(cur)
			if c == nil {
				continue
			}
			var got []string
			for _, l := range c.Own {
				got = append(got, fmt.Sprintf("%s:%d %s", l.File, l.Line, report.ShortName(l.Function)))
			}
			if want := f[2] + " " + f[3]; slices.Contains(got, want) != (f[0] == "own") {
				t.Errorf("%q: %s's client's own returns %v, want %s %s", curText, f[1], got, f[0], want)
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
			if len(f) > 6 {
				at := "at=none"
				if c.At != nil {
					at = fmt.Sprintf("at=%s:%d", c.At.File, c.At.Line)
				}
				if at != f[6] {
					t.Errorf("%q: %s %s exits %s, want %s", curText, f[1], f[2], at, f[6])
				}
			}
		case "etcdctlnever", "etcdctlmay":
			// etcdctlnever OBJECT COMMAND METHOD FIELD: the command's
			// requests of METHOD never set FIELD (its type and name), and
			// with it left at zero no way of the method to a use runs;
			// etcdctlmay OBJECT COMMAND METHOD: its row is not so.
			if !need(4) {
				continue
			}
			a := obj(cur)
			if a == nil || a.User == nil {
				continue
			}
			var c *report.UserCommand
			for i, x := range a.User.Etcdctl {
				if x.Command == f[2] && x.Method == f[3] {
					c = &a.User.Etcdctl[i]
				}
			}
			switch {
			case c == nil:
				t.Errorf("%q: %s lists no command %s with %s", curText, f[1], f[2], f[3])
			case f[0] == "etcdctlmay" && c.Cannot != nil:
				t.Errorf("%q: %s %s %s: never (%v, %s), want a row that can", curText, f[1], f[2], f[3], c.Unset, c.Cannot.Text)
			case f[0] == "etcdctlnever" && (!need(5) || c.Cannot == nil || !slices.ContainsFunc(c.Unset, func(u string) bool { return strings.HasSuffix(u, "/"+f[4]) || strings.HasSuffix(u, "."+f[4]) })):
				t.Errorf("%q: %s %s %s: unset %v, cannot %+v; want never, for %s", curText, f[1], f[2], f[3], c.Unset, c.Cannot, f[4])
			}
		case "dropped":
			// dropped OBJECT METHOD FUNC FILE:LINE: the method's handler
			// reaches a use but does not return the error: it is no method
			// of the user's half, and a note names the function and its
			// call whose result it does not return.
			if !need(5) {
				continue
			}
			a := obj(cur)
			if a == nil || a.User == nil {
				continue
			}
			for _, m := range a.User.Methods {
				if m == f[2] {
					t.Errorf("%q: %s's methods list %s", curText, f[1], f[2])
				}
			}
			found := false
			for _, n := range a.User.Notes {
				if strings.HasPrefix(n, f[2]+" is left out") && strings.Contains(n, f[3]+" does not return what its call at "+f[4]+" returns") {
					found = true
				}
			}
			if !found {
				t.Errorf("%q: %s: no note that %s leaves out %s at %s: %q", curText, f[1], f[3], f[2], f[4], a.User.Notes)
			}
		case "droppedsays":
			// droppedsays OBJECT METHOD WORDS: the note that leaves the
			// method out says WORDS (what its function does with the
			// error instead).
			if !need(4) {
				continue
			}
			a := obj(cur)
			if a == nil || a.User == nil {
				continue
			}
			words := strings.Join(f[3:], " ")
			found := false
			for _, n := range a.User.Notes {
				found = found || strings.HasPrefix(n, f[2]+" is left out") && strings.Contains(n, words)
			}
			if !found {
				t.Errorf("%q: %s: no note leaving out %s that says %q: %q", curText, f[1], f[2], words, a.User.Notes)
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
				// A command that cannot get it (its requests leave a
				// field unset that every way needs) does not print it.
				if c.Cannot == nil && !seen[c.Command] {
					seen[c.Command] = true
					got = append(got, c.Command)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(f[2:]) {
				t.Errorf("the atlas's %s: %v, want %v", f[1], got, f[2:])
			}
		case "atlasgen":
			if !need(4) {
				continue
			}
			a := atlasOf()
			var e *report.AtlasError
			for i := range a.Errors {
				if report.ShortName(a.Errors[i].Object) == f[1] {
					e = &a.Errors[i]
				}
			}
			if e == nil {
				t.Errorf("the atlas lists no %s", f[1])
				continue
			}
			found, others := false, 0
			for _, u := range e.Uses {
				if fmt.Sprintf("%s:%d", u.File, u.Line) == f[2] {
					found = true
					if !u.Generated || len(u.Roots) != 0 {
						t.Errorf("the atlas's %s: use %+v, want it generated, with no roots", f[1], u)
					}
				} else if len(u.Roots) > 0 {
					others++
				}
			}
			if !found || others == 0 || e.User == nil || e.User.Unsearched != 1 {
				t.Errorf("the atlas's %s: found %v, %d other uses with roots, user %+v", f[1], found, others, e.User)
			}
			w, err := trace.Why(context.Background(), trace.WhyOptions{Symbol: e.Object, Target: st.Tgt(), Dir: dir, Env: fixtures.Env})
			if err != nil {
				t.Fatalf("why %s: %v", e.Object, err)
			}
			rooted := false
			for _, s := range w.Sites {
				if fmt.Sprintf("%s:%d", s.File, s.Line) == f[2] {
					rooted = slices.Contains(s.Roots, f[3])
				}
			}
			if !rooted {
				t.Errorf("why %s: no use at %s reached from %s: %+v", f[1], f[2], f[3], w.Sites)
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

// issueText is an error's text as people reported it in etcd's issue
// tracker, with what reading etcd says why must find for it.
type issueText struct {
	text, issue string
	// stripped and code: the text with the layers' forms taken off.
	stripped, code string
	// matches: every object it names, "how kind" (short name: how).
	matches map[string]string
	// commands: per object, commands that must be listed for it.
	commands map[string][]string
	// notes: per object, a part of a note its user's half must have.
	notes map[string]string
}

// TestWhyIssueTexts: why on five texts people reported in etcd's issue
// tracker, at etcd v3.7.3, with expectations derived by reading the
// release (api/v3rpc/rpctypes/error.go, server/etcdserver/errors/errors.go,
// server/etcdserver/api/v3rpc/util.go, server/storage/mvcc/kvstore.go).
func TestWhyIssueTexts(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a real etcd release")
	}
	for _, tc := range []issueText{
		// The watch's error as Kubernetes logs it: the client's value
		// (rpctypes.ErrCompacted, error.go:177) inside a longer text; the
		// status it is made from (error.go:32), the proxy cache's alias of
		// it (grpcproxy/cache/store.go:33) and the store's sentinel
		// (kvstore.go:38), whose text is inside too and which the map
		// (util.go:45) translates into the status. The client's
		// WatchResponse.Err returns the value (client/v3/watch.go:128),
		// which etcdctl's watch reaches. The store's sentinel does not
		// come back through Watch (its send loop drops what the previous
		// value's range returns, watch.go:452): watch meets the text as
		// the client's value only.
		{text: "watch chan error: etcdserver: mvcc: required revision has been compacted", issue: "https://github.com/etcd-io/etcd/issues/10450",
			stripped: "watch chan error: etcdserver: mvcc: required revision has been compacted",
			matches: map[string]string{"rpctypes.ErrCompacted": "within client", "rpctypes.ErrGRPCCompacted": "within status",
				"cache.ErrCompacted": "within alias", "mvcc.ErrCompacted": "within errors.New"},
			commands: map[string][]string{"rpctypes.ErrCompacted": {"watch"}, "mvcc.ErrCompacted": {"get", "compaction"}}},
		// errors.go:27, translated at util.go:56 into the status of
		// error.go:82 (Unavailable), which the client's conversion makes
		// rpctypes.ErrTimeout of (error.go:224); put's Put proposes to raft
		// and times out waiting (v3_server.go's parseProposeCtxErr).
		{text: "etcdserver: request timed out", issue: "https://github.com/etcd-io/etcd/issues/11809",
			stripped: "etcdserver: request timed out",
			matches:  map[string]string{"errors.ErrTimeout": "exact errors.New", "rpctypes.ErrGRPCTimeout": "exact status", "rpctypes.ErrTimeout": "exact client"},
			commands: map[string][]string{"errors.ErrTimeout": {"put", "del", "txn"}},
			// The read index's timeout (read.go:225) comes back to a
			// waiting read from the linearizable read loop, which does not
			// return it: it notifies the waiting reads (read.go:117-119).
			notes: map[string]string{"errors.ErrTimeout": "is a goroutine (read.(*Read).LinearizableReadLoop), and along none of their ways that can run (of those checked) is it returned to the goroutine's function: on the first, read.(*Read).LinearizableReadLoop does not return what its call at server/etcdserver/read/read.go:117 returns"}},
		// The status of error.go:34, returned by the quota check of put
		// (quota.go:50); the server's errors.ErrNoSpace ("etcdserver: no
		// space", errors.go:38) is translated into it at util.go:48.
		{text: "etcdserver: mvcc: database space exceeded", issue: "https://github.com/etcd-io/etcd/issues/13716",
			stripped: "etcdserver: mvcc: database space exceeded",
			matches:  map[string]string{"rpctypes.ErrGRPCNoSpace": "exact status", "rpctypes.ErrNoSpace": "exact client", "errors.ErrNoSpace": "translated errors.New"},
			commands: map[string][]string{"rpctypes.ErrGRPCNoSpace": {"put", "txn", "lease grant"}, "errors.ErrNoSpace": {"put"}}},
		// errors.go:32, translated at util.go:53; the read index's
		// (read.go:172, 193) reaches a read only through the read loop.
		{text: "etcdserver: leader changed", issue: "https://github.com/etcd-io/etcd/issues/13794",
			stripped: "etcdserver: leader changed",
			matches:  map[string]string{"errors.ErrLeaderChanged": "exact errors.New", "rpctypes.ErrGRPCLeaderChanged": "exact status", "rpctypes.ErrLeaderChanged": "exact client"},
			notes:    map[string]string{"errors.ErrLeaderChanged": "is a goroutine (read.(*Read).LinearizableReadLoop)"}},
		// The client's retry log line: gRPC's status form, code and all.
		{text: "rpc error: code = ResourceExhausted desc = etcdserver: mvcc: database space exceeded", issue: "https://github.com/etcd-io/etcd/issues/11947",
			stripped: "etcdserver: mvcc: database space exceeded", code: "ResourceExhausted",
			matches: map[string]string{"rpctypes.ErrGRPCNoSpace": "exact status", "rpctypes.ErrNoSpace": "exact client", "errors.ErrNoSpace": "translated errors.New"}},
	} {
		t.Run(tc.issue[strings.LastIndex(tc.issue, "/")+1:], func(t *testing.T) {
			w, err := trace.Why(context.Background(), trace.WhyOptions{Symbol: tc.text, Version: "v3.7.3"})
			if err != nil {
				t.Fatal(err)
			}
			if w.Stripped != tc.stripped || w.Code != tc.code {
				t.Errorf("stripped %q code %q, want %q %q", w.Stripped, w.Code, tc.stripped, tc.code)
			}
			got := map[string]string{}
			for _, m := range w.Matches {
				got[report.ShortName(m.Object)] = m.How + " " + m.Kind
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.matches) {
				t.Errorf("matches %v, want %v", got, tc.matches)
			}
			for obj, cmds := range tc.commands {
				a := answer(w, obj)
				if a == nil || a.User == nil {
					t.Errorf("no user's half for %s", obj)
					continue
				}
				have := map[string]bool{}
				for _, c := range a.User.Etcdctl {
					have[c.Command] = true
				}
				for _, c := range cmds {
					if !have[c] {
						t.Errorf("%s: etcdctl %s is not listed (%v)", obj, c, have)
					}
				}
			}
			for obj, note := range tc.notes {
				a := answer(w, obj)
				if a == nil || a.User == nil || !strings.Contains(strings.Join(a.User.Notes, "\n"), note) {
					t.Errorf("%s: no note saying %q", obj, note)
				}
			}
		})
	}
}

// userHalf is what a test pins of an error's user's half.
func userHalf(u *report.User) map[string]string {
	out := map[string]string{}
	if g := u.GRPC; g != nil {
		out["grpc"] = fmt.Sprintf("%s %s %q %s", g.By, g.Code, g.Text, report.ShortName(g.Object))
		if g.At != nil {
			out["grpc at"] = fmt.Sprintf("%s:%d", g.At.File, g.At.Line)
		}
		if g.Map != nil {
			out["map"] = fmt.Sprintf("%s:%d", g.Map.File, g.Map.Line)
		}
	}
	if c := u.Client; c != nil {
		var eq []string
		for _, e := range c.EqualTo {
			eq = append(eq, report.ShortName(e))
		}
		out["client"] = fmt.Sprintf("%s %q %v", report.ShortName(c.Made), c.Text, eq)
		if c.MadeAt != nil {
			out["made at"] = fmt.Sprintf("%s:%d", c.MadeAt.File, c.MadeAt.Line)
		}
	}
	for _, c := range u.Etcdctl {
		if c.Command == "get" && c.Method == "/etcdserverpb.KV/Range" {
			exit := "-"
			if c.ExitCode != nil {
				exit = fmt.Sprint(*c.ExitCode)
			}
			out["get"] = fmt.Sprintf("%q exit %s %s", c.Stderr, exit, report.ShortName(c.ExitConstant))
			if c.At != nil {
				out["get exits at"] = fmt.Sprintf("%s:%d", c.At.File, c.At.Line)
			}
		}
	}
	return out
}

// TestWhyTextAsName: at v3.7.3 and v3.6.0, mvcc.ErrCompacted found by the
// text etcdctl prints answers as by its name; its user's half is what
// reading the release says; and at v3.7.3 the errcompacted study's
// etcdctl get agrees with why's.
func TestWhyTextAsName(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	const text = "Error: etcdserver: mvcc: required revision has been compacted"
	for _, tc := range []struct {
		version string
		want    map[string]string
	}{
		// util.go:35 the map, :45 its entry; error.go:32 the status, :177
		// the client's value, :271 the conversion's EtcdError; get_command.go
		// exits with cobrautl.ExitError (cobrautl/error.go: 1).
		{"v3.7.3", map[string]string{
			"grpc":    `translation OutOfRange "etcdserver: mvcc: required revision has been compacted" rpctypes.ErrGRPCCompacted`,
			"grpc at": "server/etcdserver/api/v3rpc/util.go:45", "map": "server/etcdserver/api/v3rpc/util.go:35",
			"client":       `rpctypes.EtcdError "etcdserver: mvcc: required revision has been compacted" [rpctypes.ErrCompacted]`,
			"made at":      "api/v3rpc/rpctypes/error.go:271",
			"get":          `["Error: etcdserver: mvcc: required revision has been compacted"] exit 1 cobrautl.ExitError`,
			"get exits at": "etcdctl/ctlv3/command/get_command.go:103"}},
		{"v3.6.0", map[string]string{
			"grpc":    `translation OutOfRange "etcdserver: mvcc: required revision has been compacted" rpctypes.ErrGRPCCompacted`,
			"grpc at": "server/etcdserver/api/v3rpc/util.go:45", "map": "server/etcdserver/api/v3rpc/util.go:35",
			"client":       `rpctypes.EtcdError "etcdserver: mvcc: required revision has been compacted" [rpctypes.ErrCompacted]`,
			"made at":      "api/v3rpc/rpctypes/error.go:271",
			"get":          `["Error: etcdserver: mvcc: required revision has been compacted"] exit 1 cobrautl.ExitError`,
			"get exits at": "etcdctl/ctlv3/command/get_command.go:87"}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			byText, err := trace.Why(context.Background(), trace.WhyOptions{Symbol: text, Version: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			a := answer(byText, "mvcc.ErrCompacted")
			if a == nil {
				t.Fatalf("the text names no mvcc.ErrCompacted: %v", shortMatches(byText))
			}
			byName, err := trace.Why(context.Background(), trace.WhyOptions{Symbol: "mvcc.ErrCompacted", Version: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(whyRoots(byName), whyRoots(a)); diff != "" {
				t.Errorf("the uses and their roots, by name (-) and by text (+):\n%s", diff)
			}
			if diff := cmp.Diff(byName.User, a.User); diff != "" {
				t.Errorf("the user's half, by name (-) and by text (+):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, userHalf(a.User)); diff != "" {
				t.Errorf("the user's half (-want +got):\n%s", diff)
			}
			if tc.version != "v3.7.3" {
				return
			}
			// The study's etcdctl get, evaluated in its own way.
			res, err := trace.Run(context.Background(), trace.Options{Study: errcompacted.Study, Version: tc.version})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := res.Report()
			if err != nil {
				t.Fatal(err)
			}
			if rep.Signal == nil || rep.Signal.Tool == nil || rep.Signal.Tool.Get == nil {
				t.Fatal("the study evaluates no etcdctl get")
			}
			var studyLines []string
			for _, l := range rep.Signal.Tool.Get.Stderr {
				studyLines = append(studyLines, l.Text)
			}
			study := fmt.Sprintf("%q exit %d %s", studyLines, rep.Signal.Tool.Get.Exit, report.ShortName(rep.Signal.Tool.Get.ExitBy))
			if study != userHalf(a.User)["get"] {
				t.Errorf("the study's etcdctl get: %s; why's: %s", study, userHalf(a.User)["get"])
			}
		})
	}
}

// TestErrorsRelease: the atlas of etcd v3.7.3: every exported error
// variable of the server and api modules, once each with an anchor of its
// own, and some of them as reading the release says.
func TestErrorsRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a real etcd release")
	}
	a, err := trace.Errors(context.Background(), trace.ErrorsOptions{Version: "v3.7.3"})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	byShort := map[string]report.AtlasError{}
	for _, e := range a.Errors {
		if anchors[e.Anchor] {
			t.Errorf("anchor %s twice", e.Anchor)
		}
		anchors[e.Anchor] = true
		if !strings.HasPrefix(e.Object, "go.etcd.io/etcd/server/v3/") && !strings.HasPrefix(e.Object, "go.etcd.io/etcd/api/v3/") {
			t.Errorf("%s is in neither the server nor the api module", e.Object)
		}
		if e.Text == "" && e.Expr == "" {
			t.Errorf("%s has neither a text nor an initializer", e.Object)
		}
		byShort[report.ShortName(e.Object)] = e
	}
	// rpctypes/error.go declares 63 statuses (one an alias), 57 client
	// values (one an alias); errors.go 37 server errors, mvcc 3 more.
	if len(a.Errors) < 200 {
		t.Errorf("%d errors, want every exported one of server and api (more than 200)", len(a.Errors))
	}
	for _, tc := range []struct{ obj, text, code, command string }{
		{"mvcc.ErrCompacted", "mvcc: required revision has been compacted", "OutOfRange", "get"},
		{"rpctypes.ErrGRPCCompacted", "etcdserver: mvcc: required revision has been compacted", "OutOfRange", "get"},
		{"errors.ErrTimeout", "etcdserver: request timed out", "Unavailable", "put"},
		{"rpctypes.ErrGRPCNoSpace", "etcdserver: mvcc: database space exceeded", "ResourceExhausted", "put"},
		// errors.ErrTooManyRequests (errors.go:39) is translated into a
		// client value, rpctypes.ErrTooManyRequests (util.go:49,
		// error.go:195), an EtcdError, which has no GRPCStatus method.
		{"errors.ErrTooManyRequests", "etcdserver: too many requests", "Unknown", ""},
		// Not in errStringToError (error.go:100-165): the client passes
		// the status through.
		{"rpctypes.ErrGRPCTimeoutWaitAppliedIndex", "etcdserver: request timed out, waiting for the applied index took too long", "Unavailable", ""},
	} {
		e, ok := byShort[tc.obj]
		if !ok {
			t.Errorf("no %s in the atlas", tc.obj)
			continue
		}
		if e.Text != tc.text || e.GRPCCode != tc.code {
			t.Errorf("%s: %q %s, want %q %s", tc.obj, e.Text, e.GRPCCode, tc.text, tc.code)
		}
		if tc.command != "" {
			found := false
			for _, c := range e.Etcdctl {
				found = found || c.Command == tc.command
			}
			if !found {
				t.Errorf("%s: etcdctl %s is not listed", tc.obj, tc.command)
			}
		}
	}
	if e := byShort["rpctypes.ErrGRPCTimeoutWaitAppliedIndex"]; e.User == nil || e.User.Client == nil || !e.User.Client.Passes {
		t.Errorf("rpctypes.ErrGRPCTimeoutWaitAppliedIndex: the client does not pass the status through: %+v", e.User)
	}
}

// TestAtlasShards: the atlas of fixtures/errors.txtar is the same
// whether its errors are answered in one shard, in several beside each
// other, or each in a shard of its own (one feasibility checker each).
func TestAtlasShards(t *testing.T) {
	dir, ar := fixtures.Unpack(t, "errors")
	st, err := study.Parse(fixtures.File(ar, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	atlas := func(shards int) string {
		defer trace.SetErrorShards(shards)()
		a, err := trace.Errors(context.Background(), trace.ErrorsOptions{Target: st.Tgt(), Dir: dir, Env: fixtures.Env})
		if err != nil {
			t.Fatalf("%d shards: %v", shards, err)
		}
		if len(a.Errors) < 3 {
			t.Fatalf("%d shards: %d errors, want more than the shards to split", shards, len(a.Errors))
		}
		got, err := json.MarshalIndent(a, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		return string(got)
	}
	one := atlas(1)
	for _, n := range []int{2, 3, 1000} {
		if diff := cmp.Diff(one, atlas(n)); diff != "" {
			t.Errorf("%d shards and one differ (-one +%d):\n%s", n, n, diff)
		}
	}
}

var update = flag.Bool("update", false, "rewrite the stored atlas of the errors fixture (annotate/testdata/atlas/fixture.json)")

// TestAtlasStoredIsCurrent: the atlas of fixtures/errors.txtar that
// annotate's golden and browser tests render is the one the engine makes
// now; -update rewrites it.
func TestAtlasStoredIsCurrent(t *testing.T) {
	dir, ar := fixtures.Unpack(t, "errors")
	st, err := study.Parse(fixtures.File(ar, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := trace.Errors(context.Background(), trace.ErrorsOptions{Target: st.Tgt(), Dir: dir, Env: fixtures.Env})
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(a, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	file := filepath.Join("..", "annotate", "testdata", "atlas", "fixture.json")
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (go test ./trace -run TestAtlasStoredIsCurrent -update writes it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("the stored atlas is stale (-stored +now):\n%s", diff)
	}
}

// TestWhyInterceptors: an answer whose roots include gRPC methods says
// which interceptors the server is built with (one made by a function
// whose caller installs it with the library's option), where, where each
// calls the handler it is handed, and each return before that call by
// which it refuses a call, with its way: under the test of state that
// refuses it. One that no server is built with is not listed.
func TestWhyInterceptors(t *testing.T) {
	dir, ar := fixtures.Unpack(t, "errors")
	st, err := study.Parse(fixtures.File(ar, "study.json"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := trace.Why(context.Background(), trace.WhyOptions{Symbol: st.Sentinel, Target: st.Tgt(), Dir: dir, Env: fixtures.Env})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Interceptors) != 1 {
		t.Fatalf("interceptors %+v, want the one the server is built with", w.Interceptors)
	}
	ic := w.Interceptors[0]
	if !strings.HasSuffix(ic.Name, ".newUnaryInterceptor$1") || ic.Stream {
		t.Errorf("interceptor %s (stream %v), want newUnaryInterceptor's literal, for unary methods", ic.Name, ic.Stream)
	}
	if ic.Installed.File != "server/v3rpc/key.go" || ic.Installed.Line != 60 {
		t.Errorf("installed at %s:%d, want server/v3rpc/key.go:60 (grpc.UnaryInterceptor)", ic.Installed.File, ic.Installed.Line)
	}
	if ic.Handler.Line != 54 {
		t.Errorf("handler called at line %d, want 54", ic.Handler.Line)
	}
	if len(ic.Refuses) != 1 {
		t.Fatalf("refuses %+v, want the return under `if l.none`", ic.Refuses)
	}
	r := ic.Refuses[0]
	if r.At.Line != 52 || r.Way.Feasible != "only-if" || len(r.Way.OnlyIf) != 1 || r.Way.OnlyIf[0].Text != "l.none" || !r.Way.OnlyIf[0].Want {
		t.Errorf("refusal at line %d, way %+v, want at line 52, only if l.none", r.At.Line, r.Way)
	}
}
