package report

import (
	"fmt"
	"strconv"
	"strings"
)

// A Doc is a document made of generic elements: sections, paragraphs,
// lists, tables, code and diagrams, with citations (Loc) inside the text.
// A study composes its notes as a Doc from its report; package annotate
// renders a Doc as Markdown, HTML or text without knowing what it says.
//
// Exactly one field of a Block is set. Text is a sequence of spans; a
// span with Loc is a citation, rendered as file:line (a permalink in HTML).
type Doc struct {
	Title string `json:"title"`
	// Marker is a line for programs that read the rendered document (which
	// release its line numbers are of): Markdown writes it as it is after
	// the title, HTML as a comment; it must be an HTML comment.
	Marker string `json:"marker,omitempty"`
	// Lead is the paragraph under the title.
	Lead     Text      `json:"lead,omitempty"`
	Sections []Section `json:"sections"`
	// Search, when set, is the label of a search box the HTML page has
	// instead of a table of contents: what is typed in it keeps the
	// top-level sections after the first, and the rows of the first
	// section's tables, whose text has every word typed. Markdown and
	// text have none.
	Search string `json:"search,omitempty"`
}

// Section is a headed part of a document. Sections nest one level deep in
// Markdown (## and ###) and HTML; an Appendix section is collapsible in
// HTML.
type Section struct {
	// ID is the anchor other text refers to (Span.Ref), unique in the Doc.
	ID       string    `json:"id"`
	Title    string    `json:"title"`
	Appendix bool      `json:"appendix,omitempty"`
	Blocks   []Block   `json:"blocks"`
	Sections []Section `json:"sections,omitempty"`
}

// Block is one element of a section.
type Block struct {
	Para    Text     `json:"para,omitempty"`
	List    *List    `json:"list,omitempty"`
	Table   *Table   `json:"table,omitempty"`
	Code    *Code    `json:"code,omitempty"`
	Diagram *Diagram `json:"diagram,omitempty"`
	// Terms is a glossary: each term with its explanation.
	Terms []Term `json:"terms,omitempty"`
}

// Text is inline text.
type Text []Span

// Span is a piece of inline text: plain, code, strong, a citation, or a
// reference to a section.
type Span struct {
	Text   string `json:"text,omitempty"`
	Code   bool   `json:"code,omitempty"`   // Text is inline code
	Strong bool   `json:"strong,omitempty"` // Text is emphasised
	// Loc makes the span a citation of a line; Text, when set, is shown
	// instead of file:line.
	Loc *Loc `json:"loc,omitempty"`
	// Ref makes the span a link to the section with that ID.
	Ref string `json:"ref,omitempty"`
}

// List is a bulleted or numbered list.
type List struct {
	Ordered bool   `json:"ordered,omitempty"`
	Items   []Text `json:"items"`
}

// Table is a table with a header row. A cell's Class ("yes", "no",
// "only-if", "unknown", "ran", ...) lets HTML colour it; Markdown ignores it.
type Table struct {
	Head []Text   `json:"head"`
	Rows [][]Cell `json:"rows"`
}

// Cell is one table cell.
type Cell struct {
	Text  Text   `json:"text"`
	Class string `json:"class,omitempty"`
}

// Code is a block of code or terminal output. Lines may carry the Loc of
// the source line they show (grep output, an excerpt), which HTML links.
type Code struct {
	// Lang is "go", "console" or "text".
	Lang  string     `json:"lang"`
	Lines []CodeLine `json:"lines"`
}

// CodeLine is one line of a Code block.
type CodeLine struct {
	Text string `json:"text"`
	Loc  *Loc   `json:"loc,omitempty"`
	// Mark highlights the line (the cited line of an excerpt).
	Mark bool `json:"mark,omitempty"`
}

// Diagram is a directed graph: laid out as SVG in HTML, written as a
// mermaid flowchart in Markdown.
type Diagram struct {
	Title string `json:"title,omitempty"`
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// Node is a box of a diagram.
type Node struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	// Kind styles the node ("entry", "decision", "signal", "client", ...).
	Kind string `json:"kind,omitempty"`
	Loc  *Loc   `json:"loc,omitempty"`
	// Class marks a node ("ran", "not-ran", "differs", ...).
	Class string `json:"class,omitempty"`
}

// Edge is an arrow between two nodes. Style is "call" (solid) or
// "handoff" (dashed: across a goroutine, a channel, the network).
type Edge struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Style string `json:"style,omitempty"`
	Label string `json:"label,omitempty"`
}

// Term is a glossary entry.
type Term struct {
	Term string `json:"term"`
	Text Text   `json:"text"`
}

// Plain is a span of plain text.
func Plain(s string) Span { return Span{Text: s} }

// CodeSpan is a span of inline code.
func CodeSpan(s string) Span { return Span{Text: s, Code: true} }

// StrongSpan is a span of emphasised text.
func StrongSpan(s string) Span { return Span{Text: s, Strong: true} }

// Cite is a citation of l.
func Cite(l Loc) Span { return Span{Loc: &l} }

// RefSpan is a link with text s to the section with id.
func RefSpan(s, id string) Span { return Span{Text: s, Ref: id} }

// Sentence turns s into text: {N} becomes a citation of lines[N], and text
// quoted in backticks becomes inline code.
func Sentence(s string, lines []Loc) Text {
	var t Text
	plain := func(x string) {
		if x == "" {
			return
		}
		if n := len(t); n > 0 && !t[n-1].Code && t[n-1].Loc == nil && t[n-1].Ref == "" && !t[n-1].Strong {
			t[n-1].Text += x
			return
		}
		t = append(t, Plain(x))
	}
	for s != "" {
		i := strings.IndexAny(s, "{`")
		if i < 0 {
			plain(s)
			break
		}
		plain(s[:i])
		s = s[i:]
		if s[0] == '`' {
			end := strings.IndexByte(s[1:], '`')
			if end < 0 {
				plain(s)
				break
			}
			t = append(t, CodeSpan(s[1:1+end]))
			s = s[end+2:]
			continue
		}
		end := strings.IndexByte(s, '}')
		n, err := strconv.Atoi(s[1:max(end, 1)])
		if end < 0 || err != nil || n < 0 || n >= len(lines) {
			plain(s[:1])
			s = s[1:]
			continue
		}
		t = append(t, Cite(lines[n]))
		s = s[end+1:]
	}
	return t
}

// OnlyIf says what a path needs of condition c: "only if [not] `c` (part
// of `whole`, file:line)" and its note, the way the documents of every
// command say it.
func OnlyIf(c Cond) Text {
	not := ""
	if !c.Want {
		not = "not "
	}
	if c.Either {
		not = "either " + not
	}
	out := Text{Plain("only if " + not), CodeSpan(c.Text), Plain(" (")}
	if c.Every != "" {
		out = Text{Plain("only if " + not), CodeSpan(c.Text), Plain(" for every element of "), CodeSpan(c.Every), Plain(" (")}
	}
	if c.Erred != "" {
		out = Text{Plain("only if "), CodeSpan(c.Erred), Plain(" returns an error (" + not), CodeSpan(c.Text), Plain(", ")}
		if c.Unloaded != "" {
			out = append(out, CodeText(UnloadedText(c.Unloaded)+", ")...)
		}
	}
	if c.NotEmpty {
		out = Text{Plain("only if "), CodeSpan(c.Text), Plain(" is not empty (")}
	}
	if c.Case {
		out = Text{Plain("only if the select takes its case "), CodeSpan(c.Text), Plain(" (")}
	}
	if c.Whole != "" {
		out = append(out, Plain("part of "), CodeSpan(c.Whole), Plain(", "))
	}
	out = append(out, Cite(Loc{File: c.File, Line: c.Line}), Plain(")"))
	return append(out, CodeText(c.Note)...)
}

// Asks says what a way needs of the request: ", for a request that
// makes `c` true (file:line), `d` false (part of `whole`, file:line) and
// …", in the order the way meets them; a check of the request the way
// needs passed is "passes `check(r)` (file:line)", one it needs failed
// "fails `check(r)` (file:line)", and then each item has its verb.
// Nothing when the way needs nothing of the request.
func Asks(cs []Cond) Text {
	if len(cs) == 0 {
		return nil
	}
	verbs := false
	for _, c := range cs {
		verbs = verbs || c.Passes != "" || c.Fails != "" || c.Either
	}
	out := Text{Plain(", for a request that ")}
	if !verbs {
		out = append(out, Plain("makes "))
	}
	// An item of one of several alternatives holds commas of its own:
	// then the items are set apart by semicolons.
	sep, last := ", ", " and "
	for _, c := range cs {
		if c.Either {
			sep, last = "; ", "; and "
		}
	}
	for i, c := range cs {
		switch {
		case i > 0 && i == len(cs)-1:
			out = append(out, Plain(last))
		case i > 0:
			out = append(out, Plain(sep))
		}
		if c.Passes != "" || c.Fails != "" {
			if c.Passes != "" {
				out = append(out, Plain("passes "), CodeSpan(c.Passes))
			} else {
				out = append(out, Plain("fails "), CodeSpan(c.Fails))
			}
			out = append(out, Plain(" ("))
			if c.Unloaded != "" {
				out = append(out, CodeText(UnloadedText(c.Unloaded)+", ")...)
			}
			out = append(out, Cite(Loc{File: c.File, Line: c.Line}))
			if c.PassesMade != nil {
				out = append(out, Plain(", the function value made at "), Cite(*c.PassesMade))
			}
			if c.After != "" {
				out = append(out, Plain("; "))
				out = append(out, CodeText(c.After)...)
			}
			out = append(out, Plain(")"))
			continue
		}
		if c.Either {
			out = append(out, Plain("either "))
		}
		if verbs {
			out = append(out, Plain("makes "))
		}
		out = append(out, CodeSpan(c.Text), Plain(fmt.Sprintf(" %v", c.Want)))
		if c.Every != "" {
			out = append(out, Plain(" for every element of "), CodeSpan(c.Every))
		}
		out = append(out, Plain(" ("))
		if c.Whole != "" {
			out = append(out, Plain("part of "), CodeSpan(c.Whole), Plain(", "))
		}
		out = append(out, Cite(Loc{File: c.File, Line: c.Line}))
		if c.After != "" {
			out = append(out, Plain("; "))
			out = append(out, CodeText(c.After)...)
		}
		out = append(out, Plain(")"))
		if c.Either {
			out = append(out, CodeText(c.Note)...)
		}
	}
	return out
}

// CodeText turns text that quotes code in backticks into spans: each
// quoted part a code span, the rest plain (an unclosed backtick's part
// stays plain).
func CodeText(s string) Text {
	var t Text
	parts := strings.Split(s, "`")
	for i, p := range parts {
		if p == "" {
			continue
		}
		if i%2 == 1 && i < len(parts)-1 {
			t = append(t, CodeSpan(p))
		} else {
			t = append(t, Plain(p))
		}
	}
	return t
}

// UnloadedText says that whether a call can fail is not known, none of
// the code it may run being loaded from source; where is where that code
// is ("a method of PKG's interface `I`", "its code is in PKG").
func UnloadedText(where string) string {
	return "whether it can fail is not known: none of the code it may run is loaded from source, " + where
}
