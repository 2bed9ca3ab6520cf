package annotate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// userSection says what a user meets of an error: the gRPC code and text
// it is sent with, what the Go client returns, and the tool's commands
// that can print it.
func userSection(u *report.User, id string) report.Section {
	sec := report.Section{ID: id, Title: "What its user meets"}
	if g := u.GRPC; g != nil {
		sec.Blocks = append(sec.Blocks, report.Block{Para: grpcPara(g)})
	} else {
		sec.Blocks = append(sec.Blocks, report.Block{Para: report.Text{report.Plain("What the wire carries of it is not known: its text is not evaluated, or the target's translation is not found.")}})
	}
	if len(u.TranslatedFrom) > 0 {
		t := report.Text{report.Plain("Server errors a translation map turns into it: ")}
		for i, x := range u.TranslatedFrom {
			if i > 0 {
				t = append(t, report.Plain(", "))
			}
			t = append(t, report.CodeSpan(report.ShortName(x)))
		}
		t = append(t, report.Plain("; where they are returned, and what the commands print of them, is in their own answers."))
		sec.Blocks = append(sec.Blocks, report.Block{Para: t})
	}
	if c := u.Client; c != nil {
		sec.Blocks = append(sec.Blocks, report.Block{Para: clientPara(c)})
	}
	sec.Blocks = append(sec.Blocks, commandBlocks(u, true)...)
	for _, n := range u.Notes {
		sec.Blocks = append(sec.Blocks, report.Block{Para: report.Text{report.Plain(n)}})
	}
	return sec
}

// shortMethods is how many methods shortSection names.
const shortMethods = 6

// shortSection says first what a user of an error meets, which the
// report's last section says in full: the code and text a client gets,
// from which methods, and what the Go client's error equals. ok is false
// when the wire's code is not known, or is not the error's own (a value
// that is no gRPC status is sent with the code of any other error).
func shortSection(u *report.User) (report.Section, bool) {
	if u == nil || u.GRPC == nil || u.GRPC.Code == "" || (u.GRPC.By == "made-from" && u.GRPC.NotStatus) {
		return report.Section{}, false
	}
	g := u.GRPC
	t := report.Text{report.Plain("A client gets it as gRPC code "), report.CodeSpan(g.Code), report.Plain(" with the text "), report.CodeSpan(g.Text)}
	if g.By == "translation" || g.By == "default" {
		t = append(t, report.Plain(" (through "), report.CodeSpan(report.ShortName(g.Translate)), report.Plain(")"))
	}
	if len(u.Methods) > 0 {
		t = append(t, report.Plain(", from "))
		for i, m := range u.Methods {
			if i == shortMethods {
				t = append(t, report.Plain(fmt.Sprintf(" and %d more", len(u.Methods)-i)))
				break
			}
			if i > 0 {
				sep := ", "
				if i == len(u.Methods)-1 {
					sep = " and "
				}
				t = append(t, report.Plain(sep))
			}
			t = append(t, report.CodeSpan(m))
		}
		t = append(t, report.Plain(pluralOf(len(u.Methods), ", the method", ", the methods")+" whose roots can return it, as far as that is followed"))
	}
	if c := u.Client; c != nil && !c.Passes && len(c.EqualTo) > 0 {
		t = append(t, report.Plain("; the Go client's error compares equal to "))
		t = append(t, shortNames(c.EqualTo, " and ")...)
	}
	if c := u.Client; c != nil && len(c.Own) > 0 {
		t = append(t, report.Plain(", a variable the client's own code also returns"))
		t = append(t, ownCites(c.Own)...)
		t = append(t, report.Plain(", on conditions this answer does not follow"))
	}
	t = append(t, report.Plain(". "), report.RefSpan("What its user meets", "user"), report.Plain(", at the end, says more, with the commands that can print it."))
	return report.Section{ID: "short", Title: "In short", Blocks: []report.Block{{Para: t}}}, true
}

func grpcPara(g *report.UserGRPC) report.Text {
	var t report.Text
	switch g.By {
	case "own":
		t = report.Text{report.Plain("It is a gRPC status: code "), report.CodeSpan(g.Code), report.Plain(", text "), report.CodeSpan(g.Text), report.Plain("; a handler or interceptor that returns it sends it as it is.")}
	case "made-from":
		t = report.Text{report.Plain("It is what the client's conversion makes of the gRPC status "), report.CodeSpan(report.ShortName(g.Object)), report.Plain(": code "), report.CodeSpan(g.Code), report.Plain(", text "), report.CodeSpan(g.Text), report.Plain(".")}
		if g.NotStatus {
			t = append(t, report.Plain(" It is no gRPC status itself (its type has no GRPCStatus method): a server that returns it sends it with the code gRPC gives any other error, "), report.CodeSpan(nonStatusCode(g)), report.Plain(", and its text."))
		}
	case "translation":
		t = report.Text{report.Plain("A gRPC handler that returns it through "), report.CodeSpan(report.ShortName(g.Translate)), report.Plain(" sends "), report.CodeSpan(report.ShortName(g.Object))}
		if g.At != nil {
			t = append(t, report.Plain(" (its entry "), report.Cite(*g.At))
			if g.Map != nil {
				t = append(t, report.Plain(" in the map at "), report.Cite(*g.Map))
			}
			t = append(t, report.Plain(")"))
		}
		if g.NotStatus {
			t = append(t, report.Plain(", which is no gRPC status (its type has no GRPCStatus method): gRPC sends it with code "), report.CodeSpan(g.Code), report.Plain(" and its text "), report.CodeSpan(g.Text), report.Plain("."))
		} else {
			t = append(t, report.Plain(": code "), report.CodeSpan(g.Code), report.Plain(", text "), report.CodeSpan(g.Text), report.Plain("."))
		}
	case "default":
		t = report.Text{report.Plain("No translation map holds it: "), report.CodeSpan(report.ShortName(g.Translate)), report.Plain(" sends it with code "), report.CodeSpan(g.Code), report.Plain(" and its own text "), report.CodeSpan(g.Text)}
		if g.At != nil {
			t = append(t, report.Plain(" ("), report.Cite(*g.At), report.Plain(")"))
		}
		t = append(t, report.Plain("."))
	}
	if g.Status != "" {
		t = append(t, report.Plain(" As a status error it prints "), report.CodeSpan(g.Status), report.Plain("."))
	}
	return t
}

func clientPara(c *report.UserClient) report.Text {
	var t report.Text
	if c.Passes {
		t = report.Text{report.Plain("The Go client's conversion")}
		if c.Convert != nil {
			t = append(t, report.Plain(" ("), report.Cite(*c.Convert), report.Plain(")"))
		}
		t = append(t, report.Plain(" has no entry for its message: the client returns the status error it received"))
		if c.MadeAt != nil {
			t = append(t, report.Plain(" ("), report.Cite(*c.MadeAt), report.Plain(")"))
		}
		t = append(t, report.Plain(", which prints "), report.CodeSpan(c.Text), report.Plain(" and compares equal to no variable of the client."))
	} else {
		t = report.Text{report.Plain("The Go client's conversion")}
		if c.Convert != nil {
			t = append(t, report.Plain(" ("), report.Cite(*c.Convert), report.Plain(")"))
		}
		t = append(t, report.Plain(" returns "), report.CodeSpan(c.Value))
		if c.MadeAt != nil {
			t = append(t, report.Plain(" ("), report.Cite(*c.MadeAt), report.Plain(")"))
		}
		t = append(t, report.Plain(", which prints "), report.CodeSpan(c.Text))
		if len(c.EqualTo) > 0 {
			t = append(t, report.Plain(" and compares equal (==, errors.Is) to "))
			t = append(t, shortNames(c.EqualTo, ", ")...)
		}
		t = append(t, report.Plain("."))
	}
	if len(c.Own) > 0 {
		t = append(t, report.Plain(" The client's own code also returns "))
		t = append(t, shortNames(c.EqualTo, " or ")...)
		t = append(t, report.Plain(" as it is, not as its conversion of an error a call received"))
		t = append(t, ownCites(c.Own)...)
		t = append(t, report.Plain(". What it returns it for there (a field of a response it received, say) is not followed here: whether a program meets the text that way is not decided."))
	}
	if c.Retried {
		t = append(t, report.Plain(" Its code is the one the client's retrying interceptor tries a repeatable call again on"))
		if c.RetriedAt != nil {
			t = append(t, report.Plain(" ("), report.Cite(*c.RetriedAt), report.Plain(")"))
		}
		t = append(t, report.Plain(": such a call is tried again until its deadline, and then fails with the deadline's error instead."))
	}
	return t
}

// commandBlocks lists the tool's commands that can print the error,
// grouped by method and what they print; waysAbove says that the
// document shows the ways above it (why), whose needs of the request a
// row does not decide.
func commandBlocks(u *report.User, waysAbove bool) []report.Block {
	tool := u.Tool
	if tool == "" {
		tool = "the tool"
	}
	unsearched := ""
	if n := u.Unsearched; n > 0 {
		unsearched = fmt.Sprintf("%d of its uses %s in generated code, whose roots are not searched here (srctrace why searches them)", n, pluralOf(n, "is", "are"))
	}
	if len(u.Methods) == 0 {
		if unsearched != "" {
			return []report.Block{{Para: report.Text{report.Plain("No gRPC method's server root reaches a use of it that is searched and returns it (among the roots kept), so no command of " + tool + " is found to print it; " + unsearched + ".")}}}
		}
		return []report.Block{{Para: report.Text{report.Plain("No gRPC method's server root reaches a use of it and returns it (among the roots kept), so no command of " + tool + " is found to print it.")}}}
	}
	more := ""
	if unsearched != "" {
		more = " " + unsearched + ": a method that reaches only " + pluralOf(u.Unsearched, "it", "those") + " is not listed."
	}
	var out []report.Block
	mt := report.Text{report.Plain("gRPC methods whose server roots reach a use of it and return it (as far as that is followed): ")}
	for i, m := range u.Methods {
		if i > 0 {
			mt = append(mt, report.Plain(", "))
		}
		mt = append(mt, report.CodeSpan(m))
	}
	mt = append(mt, report.Plain("."+more))
	out = append(out, report.Block{Para: mt})
	if len(u.Etcdctl) == 0 {
		return append(out, report.Block{Para: report.Text{report.Plain("No command of " + tool + " makes a call that can send one of them.")}})
	}
	asks := ""
	if waysAbove {
		asks = "; each way above says what it needs of the request, \"for a request that makes …\""
	}
	out = append(out, report.Block{Para: report.Text{report.Plain("The commands of " + tool + " that make a call that can send one of them (in the command's own goroutine, or a stream its client opens), read from its command tree; each is evaluated with that call failing with the client's value and every other call succeeding, what its code tests that the evaluation cannot decide taken as false, and a loop over a slice or a map whose body makes that call taken to make one pass (the JSON's "), report.CodeSpan("assumed"), report.Plain(" lists each); a value it cannot evaluate (the endpoint a loop is at, say) is shown as ?. What the command prints through the printer of its output format is not followed (a format that refuses the command, as some refuse protobuf, exits there instead). Whether a call sends the method on a run (an authentication only with a user, say) is not decided, nor whether the request it sends can take the server's way to the use (that way may need a field of the request the command never sets" + asks + "): a row says what the command does when the call fails so, not that it can. A row that says never is one whose requests leave at zero a field of the method's request, or of a struct the request holds (through a pointer, a slice, a map, or an interface only its own package's types can implement, such as a protobuf oneof), that every way of the method's roots to a use that can hand the error on (a return, an assignment, an argument; not a comparison, a test of its text or a map literal's entry) needs: the command reaches, in its call graph, no function that can make a value other than zero for it (an option's constructor, such as one that sets a revision, counts only where what it makes is handed to a call that can send the method, not to a watch's: a call that cannot send it is taken to drop it but for what it hands back, or stores through another argument, that can hold it); the first such way, and what refutes it then, are named. Where what sets a field may be code the analysis does not see (code read only from export data that may write it, a decoder handed what can hold the request, a field whose address is handed on), no row says never; nor where the server writes the field itself in code the method's roots or an interceptor reach, nor where a root has more call paths to a use than are tried, or reaches it across a hand-off but not by calls (a root's ways across hand-offs are tried too, with the fields left at zero).")}})
	out = append(out, report.Block{Table: commandTable(u.Etcdctl)})
	return out
}

// commandTable groups commands that print the same through one method and
// exit alike from the same place.
func commandTable(cs []report.UserCommand) *report.Table {
	type group struct {
		key      string
		cmds     []string
		c        report.UserCommand
		printsOn string
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, c := range cs {
		exit := "-"
		if c.ExitCode != nil {
			exit = fmt.Sprint(*c.ExitCode)
		}
		// The place of the exit is part of what a row says: commands
		// that exit alike from different places are rows of their own.
		at := ""
		if c.At != nil {
			at = fmt.Sprintf("%s:%d", c.At.File, c.At.Line)
		}
		cannot := ""
		if c.Cannot != nil {
			cannot = strings.Join(c.Unset, ",") + "\x00" + c.Cannot.Text
		}
		key := strings.Join([]string{c.Method, fmt.Sprint(c.Stream, c.Evaluated), strings.Join(c.Stderr, "\n"), exit, c.ExitConstant, at, cannot}, "\x00")
		if cannot != "" {
			// What the command would print is not what the row says.
			key = c.Method + "\x00" + cannot
		}
		g := byKey[key]
		if g == nil {
			g = &group{key: key, c: c}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.cmds = append(g.cmds, c.Command)
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].c.Method < groups[j].c.Method })
	t := &report.Table{Head: []report.Text{{report.Plain("commands")}, {report.Plain("method")}, {report.Plain("stderr")}, {report.Plain("exit status")}}}
	for _, g := range groups {
		var cmds report.Text
		for i, c := range g.cmds {
			if i > 0 {
				cmds = append(cmds, report.Plain(", "))
			}
			cmds = append(cmds, report.CodeSpan(c))
		}
		var stderr report.Text
		exit := report.Text{report.Plain("-")}
		class := ""
		switch {
		case g.c.Cannot != nil:
			// No request the command sends can take a way to a use.
			stderr = cannotText(g.c)
			class = "no"
		case g.c.Stream:
			stderr = report.Text{report.Plain("not evaluated: a stream, whose error reaches the command by the stream's own way")}
			class = "unknown"
		case !g.c.Evaluated:
			stderr = report.Text{report.Plain("not evaluated: the call is not reached when what could not be decided is taken as false")}
			class = "unknown"
		default:
			for i, l := range g.c.Stderr {
				if i > 0 {
					stderr = append(stderr, report.Plain(" / "))
				}
				stderr = append(stderr, report.CodeSpan(l))
			}
			if len(g.c.Stderr) == 0 {
				stderr = report.Text{report.Plain("nothing")}
			}
			if g.c.ExitCode != nil {
				exit = report.Text{report.Plain(fmt.Sprint(*g.c.ExitCode))}
				if g.c.ExitConstant != "" {
					exit = append(exit, report.Plain(" ("), report.CodeSpan(report.ShortName(g.c.ExitConstant)), report.Plain(")"))
				}
				if g.c.At != nil {
					exit = append(exit, report.Plain(", "), report.Cite(*g.c.At))
				}
			} else {
				exit = report.Text{report.Plain("returns without exiting")}
			}
		}
		t.Rows = append(t.Rows, []report.Cell{{Text: cmds}, {Text: report.Text{report.CodeSpan(g.c.Method)}}, {Text: stderr, Class: class}, {Text: exit}})
	}
	return t
}

// cannotText says why a command's call cannot get the error: the fields
// of the request it never sets, and what refutes a way of the method's
// roots to a use with them left at zero.
func cannotText(c report.UserCommand) report.Text {
	var names []string
	for _, u := range c.Unset {
		// "pkg.Type.Field": the type and the field.
		parts := strings.Split(u, ".")
		if n := len(parts); n >= 2 {
			u = parts[n-2] + "." + parts[n-1]
		}
		names = append(names, u)
	}
	t := report.Text{report.Plain("never: the command never sets ")}
	for i, n := range names {
		if i > 0 {
			t = append(t, report.Plain(joiner(i, len(names))))
		}
		t = append(t, report.CodeSpan(n))
	}
	t = append(t, report.Plain(" in the requests it sends, and with "+pluralOf(len(names), "it", "them")+" left at zero no way of the method's roots to a use that can hand the error on (as above) can run; on the first that could otherwise, "))
	t = append(t, report.CodeText(c.Cannot.Text)...)
	if c.Cannot.File != "" && !citesLines(c.Cannot.Text) {
		t = append(t, report.Plain(" ("), report.Cite(report.Loc{File: c.Cannot.File, Line: c.Cannot.Line}), report.Plain(")"))
	}
	return t
}

// textWhyDoc composes the answer for an error's text: what it matched,
// then each object's answer as for its name.
func textWhyDoc(w *report.Why) *report.Doc {
	d := &report.Doc{Title: fmt.Sprintf("Why: %q", w.Text)}
	lead := report.Text{}
	if len(w.Forms) > 0 {
		lead = append(lead, report.Plain("With the forms "+strings.Join(w.Forms, " and ")+" put around it taken off, the text is "), report.CodeSpan(w.Stripped))
		if w.Code != "" {
			lead = append(lead, report.Plain(" (a gRPC status of code "), report.CodeSpan(w.Code), report.Plain(": only errors carried with that code are matched)"))
		}
		lead = append(lead, report.Plain(". "))
	}
	primary := 0
	for _, m := range w.Matches {
		if m.How != "translated" {
			primary++
		}
	}
	lead = append(lead, report.Plain(fmt.Sprintf("It names %d error %s of etcd %s, found by evaluating the declarations of every error variable of its modules (errors.New, fmt.Errorf, gRPC's status.Error, the client's conversion, aliases)", primary, pluralOf(primary, "object", "objects"), w.Etcd.Version)))
	if n := len(w.Matches) - primary; n > 0 {
		lead = append(lead, report.Plain(fmt.Sprintf(", and %d server %s a translation map turns into one of them", n, pluralOf(n, "error", "errors"))))
	}
	lead = append(lead, report.Plain(". Each is answered below as for its name: its uses, the roots that reach them, and what its user meets."))
	d.Lead = lead
	t := &report.Table{Head: []report.Text{{report.Plain("object")}, {report.Plain("declared")}, {report.Plain("made by")}, {report.Plain("text")}, {report.Plain("gRPC code")}, {report.Plain("matched")}}}
	for i, m := range w.Matches {
		how := map[string]string{"exact": "the text is its message", "within": "the text contains its message", "part": "the text is a part of its message", "translated": "translated into "}[m.How]
		howT := report.Text{report.Plain(how)}
		if m.How == "translated" {
			howT = append(howT, report.CodeSpan(report.ShortName(m.Via)))
		}
		t.Rows = append(t.Rows, []report.Cell{
			{Text: report.Text{report.RefSpan(report.ShortName(m.Object), fmt.Sprintf("answer-%d", i+1))}},
			{Text: report.Text{report.Cite(report.Loc{File: m.File, Line: m.Line})}},
			{Text: report.Text{report.Plain(m.Kind)}},
			{Text: report.Text{report.CodeSpan(m.Text)}},
			{Text: report.Text{report.Plain(orDash(m.Code))}},
			{Text: howT},
		})
	}
	d.Sections = append(d.Sections, report.Section{ID: "matches", Title: "What the text names", Blocks: []report.Block{{Table: t}}})
	for i, a := range w.Answers {
		sub := WhyDoc(a)
		prefix := fmt.Sprintf("a%d-", i+1)
		sec := report.Section{ID: fmt.Sprintf("answer-%d", i+1), Title: report.ShortName(a.Symbol), Blocks: []report.Block{{Para: sub.Lead}}}
		for _, s := range sub.Sections {
			if s.ID == "judged" {
				continue // one for every answer, at the end: each lead refers to it
			}
			sec.Sections = append(sec.Sections, prefixIDs(s, prefix))
		}
		d.Sections = append(d.Sections, sec)
	}
	if len(w.Answers) > 0 {
		d.Sections = append(d.Sections, judgedSection())
	}
	return d
}

// prefixIDs prefixes the ids of a section and its subsections, and the
// references in its text to them.
func prefixIDs(s report.Section, prefix string) report.Section {
	s.ID = prefix + s.ID
	blocks := make([]report.Block, len(s.Blocks))
	for i, b := range s.Blocks {
		blocks[i] = b
		blocks[i].Para = prefixRefs(b.Para, prefix)
	}
	s.Blocks = blocks
	subs := make([]report.Section, len(s.Sections))
	for i, sub := range s.Sections {
		subs[i] = prefixIDs(sub, prefix)
	}
	if len(subs) > 0 {
		s.Sections = subs
	}
	return s
}

func prefixRefs(t report.Text, prefix string) report.Text {
	if t == nil {
		return nil
	}
	out := make(report.Text, len(t))
	for i, sp := range t {
		if sp.Ref != "" {
			sp.Ref = prefix + sp.Ref
		}
		out[i] = sp
	}
	return out
}

func pluralOf(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// nonStatusCode is the code gRPC gives an error that is no status, as
// the report carries it.
func nonStatusCode(g *report.UserGRPC) string {
	if g.NonStatus != "" {
		return g.NonStatus
	}
	return "?"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// shortNames are qualified names as code, short, with sep between them.
func shortNames(names []string, sep string) report.Text {
	var t report.Text
	for i, x := range names {
		if i > 0 {
			t = append(t, report.Plain(sep))
		}
		t = append(t, report.CodeSpan(report.ShortName(x)))
	}
	return t
}

// ownCites cites where the client's own code returns the error: " (at
// file:line, in `F`; …)".
func ownCites(ls []report.Loc) report.Text {
	t := report.Text{report.Plain(" (at ")}
	for i, l := range ls {
		if i > 0 {
			t = append(t, report.Plain("; "))
		}
		t = append(t, report.Cite(report.Loc{File: l.File, Line: l.Line}))
		if l.Function != "" {
			t = append(t, report.Plain(", in "), report.CodeSpan(report.ShortName(l.Function)))
		}
	}
	return append(t, report.Plain(")"))
}
