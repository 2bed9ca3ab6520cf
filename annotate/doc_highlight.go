package annotate

import (
	"html"
	"html/template"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
)

// Go code in the HTML page is highlighted by chroma: its Go lexer, and
// class names with one stylesheet for the page (chroma's HTML formatter
// writes it from the style below). chroma's styles package is not used: it
// parses every bundled style at init (8 ms here); the one style here is
// enough. Its lexers package does register every bundled lexer at init:
// 5–10 ms of every srctrace start on this 2-core machine, and it is most of
// the 4.3 MB that chroma adds to the binary. Go's own go/scanner would do
// with neither, at the cost of classifying tokens here.

// hlPrefix prefixes chroma's class names, so that "k" or "s" cannot meet
// the page's own classes.
const hlPrefix = "hl-"

// hlStyle is a light style after GitHub's, every colour at a contrast of
// 4.5:1 or more on its background.
// It is built on first use, not at init.
var hlStyle = sync.OnceValue(func() *chroma.Style {
	return chroma.MustNewStyle("srctrace", chroma.StyleEntries{
		chroma.Background:      "#1f2328 bg:#f6f8fa",
		chroma.Keyword:         "#cf222e",
		chroma.KeywordType:     "#953800",
		chroma.KeywordConstant: "#0550ae",
		chroma.NameFunction:    "#6639ba",
		chroma.NameBuiltin:     "#6639ba",
		chroma.NameOther:       "#1f2328",
		chroma.LiteralString:   "#0a3069",
		chroma.LiteralNumber:   "#0550ae",
		chroma.Comment:         "italic #57606a",
		chroma.Operator:        "#1f2328",
		chroma.Error:           "#82071e",
	})
})

// highlightCSS is the stylesheet for the classes highlightGo writes.
func highlightCSS() string {
	var b strings.Builder
	f := chromahtml.New(chromahtml.WithClasses(true), chromahtml.ClassPrefix(hlPrefix))
	if err := f.WriteCSS(&b, hlStyle()); err != nil {
		return "" // writes to a strings.Builder do not fail
	}
	return b.String()
}

// highlightGo returns each line as HTML: escaped text in spans with
// chroma's classes. Lines that chroma cannot split back as they came are
// returned escaped, without colour.
func highlightGo(lines []string) []template.HTML {
	out := make([]template.HTML, len(lines))
	plain := func() []template.HTML {
		for i, l := range lines {
			out[i] = template.HTML(html.EscapeString(l))
		}
		return out
	}
	lexer := lexers.Get("go")
	if lexer == nil {
		return plain()
	}
	src := strings.Join(lines, "\n") + "\n"
	it, err := chroma.Coalesce(lexer).Tokenise(nil, src)
	if err != nil {
		return plain()
	}
	split := chroma.SplitTokensIntoLines(it.Tokens())
	if len(split) < len(lines) {
		return plain()
	}
	for i := range lines {
		var b strings.Builder
		var text strings.Builder
		for _, tok := range split[i] {
			v := strings.TrimSuffix(tok.Value, "\n")
			if v == "" {
				continue
			}
			text.WriteString(v)
			class := hlClass(tok.Type)
			if class == "" {
				b.WriteString(html.EscapeString(v))
				continue
			}
			b.WriteString(`<span class="` + class + `">` + html.EscapeString(v) + `</span>`)
		}
		if text.String() != lines[i] {
			return plain()
		}
		out[i] = template.HTML(b.String())
	}
	return out
}

// hlClass is the class chroma's formatter gives a token type, "" for plain
// text.
func hlClass(tt chroma.TokenType) string {
	for _, t := range []chroma.TokenType{tt, tt.SubCategory(), tt.Category()} {
		if c, ok := chroma.StandardTypes[t]; ok {
			if c == "" {
				return ""
			}
			return hlPrefix + c
		}
	}
	return ""
}
