package annotate

import (
	"fmt"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// AtlasDoc composes the atlas of a release's errors as a document: an
// index of every error (a row each, linked to its section), then a
// section per error with its declaration, its text, what the wire and the
// client make of it, its uses with the roots that reach them, and the
// tool's commands that can print it. In HTML the index has a search box.
func AtlasDoc(a *report.Atlas) *report.Doc {
	tool := a.Tool
	if tool == "" {
		tool = "the tool"
	}
	d := &report.Doc{Title: "The errors of etcd " + a.Etcd.Version,
		Search: "Search the errors: a name, words of a text, a gRPC code, a command, a file"}
	withText, withUses, withCmds, generated := 0, 0, 0, 0
	for _, e := range a.Errors {
		if e.Text != "" {
			withText++
		}
		for _, u := range e.Uses {
			if u.Generated {
				generated++
			}
		}
		for _, u := range e.Uses {
			if len(u.Roots) > 0 {
				withUses++
				break
			}
		}
		if commandNames(e.Etcdctl) != "-" {
			withCmds++
		}
	}
	d.Lead = report.Text{
		report.Plain(fmt.Sprintf("Every exported error variable of %s at %s: %d errors. ", strings.Join(a.Modules, " and "), a.Etcd.Version, len(a.Errors))),
		report.Plain(fmt.Sprintf("Each text is evaluated from its declaration (%d of them; the others are made otherwise, and their initializer is shown); ", withText)),
		report.Plain("the gRPC code is the one the wire carries it with (its own for a status, its translation's for a server error, what the translation function sends for one no map holds); "),
		report.Plain(fmt.Sprintf("the uses are found by identity, with the %d nearest roots that reach each by a path that can run, as srctrace why finds them (%d errors have a use that a root reaches); ", a.Nearest, withUses)),
		report.Plain(fmt.Sprintf("and the commands of %s are those that make a call that can send a gRPC method whose server root reaches a use (for a wire error, or a client value made from one, also a use of a server error translated into it), with what each prints on stderr and its exit status (%d errors have one), but for a command whose requests leave at zero a field that every way of the method to a use needs (its row in the error's answer says never). ", tool, withCmds)),
		report.Plain("A command is evaluated with that call failing and every other call succeeding; what it tests that the evaluation cannot decide is taken as false. Beyond that, whether the request a command sends can take the server's way to the use is not decided: a command is listed by the method it calls, not because its request can make the server return the error."),
	}
	if generated > 0 {
		d.Lead = append(d.Lead, report.Plain(fmt.Sprintf(" Uses in generated code (a file whose header says it is generated and not to be edited, such as a decoder's, which uses its errors in every message's Unmarshal) are listed, but their roots are not searched, and no method or command comes from them; srctrace why searches them (%d %s).", generated, pluralOf(generated, "use", "uses"))))
	}
	idx := &report.Table{Head: []report.Text{{report.Plain("error")}, {report.Plain("text")}, {report.Plain("gRPC code")}, {report.Plain("uses")}, {report.Plain(tool + " commands")}}}
	for _, e := range a.Errors {
		text := report.Text{report.CodeSpan(e.Text)}
		if e.Text == "" {
			text = report.Text{report.Plain("not evaluated")}
		}
		idx.Rows = append(idx.Rows, []report.Cell{
			{Text: report.Text{report.RefSpan(report.ShortName(e.Object), e.Anchor)}},
			{Text: text},
			{Text: report.Text{report.Plain(orDash(e.GRPCCode))}},
			{Text: report.Text{report.Plain(fmt.Sprint(len(e.Uses)))}},
			{Text: report.Text{report.Plain(commandNames(e.Etcdctl))}},
		})
	}
	d.Sections = append(d.Sections, report.Section{ID: "index", Title: "Every error", Blocks: []report.Block{{Table: idx}}})
	have := map[string]string{}
	for _, e := range a.Errors {
		have[e.Object] = e.Anchor
	}
	for _, e := range a.Errors {
		d.Sections = append(d.Sections, atlasSection(e, have))
	}
	return d
}

// commandNames are the distinct commands, in order, shortened after a few.
func commandNames(cs []report.UserCommand) string {
	var names []string
	seen := map[string]bool{}
	for _, c := range cs {
		// A command whose requests cannot take a way to a use does not
		// print it.
		if c.Cannot == nil && !seen[c.Command] {
			seen[c.Command] = true
			names = append(names, c.Command)
		}
	}
	if len(names) == 0 {
		return "-"
	}
	if len(names) > 6 {
		return fmt.Sprintf("%s and %d more", strings.Join(names[:5], ", "), len(names)-5)
	}
	return strings.Join(names, ", ")
}

func atlasSection(e report.AtlasError, have map[string]string) report.Section {
	sec := report.Section{ID: e.Anchor, Title: report.ShortName(e.Object)}
	decl := report.Text{report.CodeSpan(e.Object), report.Plain(", declared at "), report.Cite(report.Loc{File: e.File, Line: e.Line}), report.Plain(": "), report.CodeSpan(e.Decl), report.Plain(". ")}
	switch {
	case e.Text != "":
		decl = append(decl, report.Plain("Made by "+e.Kind+"; its text: "), report.CodeSpan(e.Text), report.Plain("."))
	case e.Expr != "":
		decl = append(decl, report.Plain("Its text is not evaluated: it is made by "), report.CodeSpan(e.Expr), report.Plain("."))
	default:
		decl = append(decl, report.Plain("Its text is not evaluated."))
	}
	sec.Blocks = append(sec.Blocks, report.Block{Para: decl})
	if len(e.TranslatedFrom) > 0 {
		t := report.Text{report.Plain("Translated from: ")}
		for i, x := range e.TranslatedFrom {
			if i > 0 {
				t = append(t, report.Plain(", "))
			}
			if id := have[x]; id != "" {
				t = append(t, report.RefSpan(report.ShortName(x), id))
			} else {
				t = append(t, report.CodeSpan(report.ShortName(x)))
			}
		}
		t = append(t, report.Plain("."))
		sec.Blocks = append(sec.Blocks, report.Block{Para: t})
	}
	if u := e.User; u != nil {
		if u.GRPC != nil {
			sec.Blocks = append(sec.Blocks, report.Block{Para: grpcPara(u.GRPC)})
		}
		if u.Client != nil {
			sec.Blocks = append(sec.Blocks, report.Block{Para: clientPara(u.Client)})
		}
	}
	var uses []report.Text
	for _, u := range e.Uses {
		it := report.Text{report.Cite(report.Loc{File: u.File, Line: u.Line}), report.Plain(" " + u.Kind)}
		if u.Function != "" {
			it = append(it, report.Plain(" in "), report.CodeSpan(report.ShortName(u.Function)))
		}
		switch {
		case u.Init:
			it = append(it, report.Plain(": package-level code, run once at initialisation"))
		case u.Generated:
			it = append(it, report.Plain(": in generated code, whose roots the atlas does not search (srctrace why "), report.CodeSpan(report.ShortName(e.Object)), report.Plain(" does)"))
		case len(u.Roots) == 0:
			it = append(it, report.Plain(": no root found that reaches it by a path that can run"))
		default:
			it = append(it, report.Plain(": reached from "))
			for i, r := range u.Roots {
				if i > 0 {
					it = append(it, report.Plain(", "))
				}
				it = append(it, report.CodeSpan(r))
				if i < len(u.Ways) && u.Ways[i] != "calls" {
					it = append(it, report.Plain(" ("+u.Ways[i]+")"))
				}
			}
		}
		uses = append(uses, it)
	}
	if len(uses) > 0 {
		sec.Blocks = append(sec.Blocks, report.Block{Para: report.Text{report.Plain(fmt.Sprintf("Its %d %s:", len(uses), pluralOf(len(uses), "use", "uses")))}}, report.Block{List: &report.List{Items: uses}})
	} else {
		sec.Blocks = append(sec.Blocks, report.Block{Para: report.Text{report.Plain("It has no use besides its declaration in the packages of the release.")}})
	}
	if e.User != nil {
		u := *e.User
		u.Etcdctl = e.Etcdctl
		sec.Blocks = append(sec.Blocks, commandBlocks(&u, false)...)
		for _, n := range u.Notes {
			sec.Blocks = append(sec.Blocks, report.Block{Para: report.Text{report.Plain(n)}})
		}
	}
	return sec
}
