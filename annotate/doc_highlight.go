package annotate

import (
	"html"
	"html/template"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Go code in the HTML page is highlighted here: a lexer of Go tokens by
// the rules of chroma's Go lexer (github.com/alecthomas/chroma, v2.27.0,
// lexers/go.go), which the page used before, with chroma's class names
// and its stylesheet for the one style below, kept as it wrote it. chroma
// registers every bundled lexer when a program starts, whatever command
// runs: 14–17 ms of every srctrace start on this 2-core machine, and 4.3
// MB of the binary, for the 23 rules of one lexer. The rules are its,
// matched the same way (the first rule that matches where the text goes
// on wins; a character none matches is an error token); runs of one kind
// are joined and split into lines as chroma's Coalesce and
// SplitTokensIntoLines do. What differs: the text of a raw string is one
// string token (chroma's lexes `{{…}}` in it as a Go template).

// hlPrefix prefixes the class names, so that "k" or "s" cannot meet the
// page's own classes.
const hlPrefix = "hl-"

// hlToken is one token: its class (without hlPrefix) and text.
type hlToken struct {
	class string
	text  string
}

// hlRule matches at the start of the rest of the text; classes are its
// tokens' classes: one for the whole match, or one per group (a group
// classed "" is lexed again by the rules, as chroma's UsingSelf). word
// says that the match must end at a word's end (chroma's \b after it).
type hlRule struct {
	re      *regexp.Regexp
	classes []string
	word    bool
}

// The classes chroma's rules use, by .NET's regular expressions (of
// Unicode, where Go's \w, \d and \s are ASCII's): a word character, a
// digit, white space, and a word character that is no digit.
const (
	reW  = `[\p{L}\p{Mn}\p{Nd}\p{Pc}]`
	reD  = `\p{Nd}`
	reS  = `[\t\n\v\f\r\x{85}\p{Z}]`
	reWD = `[\p{L}\p{Mn}\p{Pc}]`
)

// hlRules are chroma's Go rules, in its order.
var hlRules = sync.OnceValue(func() []hlRule {
	builtins := words("uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64", "float", "float32", "float64",
		"complex64", "complex128", "byte", "rune", "string", "bool", "error", "uintptr", "print", "println", "panic", "recover", "close",
		"complex", "real", "imag", "len", "cap", "append", "copy", "delete", "new", "make", "clear", "min", "max")
	types := words("uint", "uint8", "uint16", "uint32", "uint64", "int", "int8", "int16", "int32", "int64", "float", "float32", "float64",
		"complex64", "complex128", "byte", "rune", "string", "bool", "error", "uintptr", "any")
	keywords := words("break", "default", "select", "case", "defer", "go", "else", "goto", "switch", "fallthrough", "if", "range", "continue", "for", "return")
	expand := func(pattern string) string {
		return strings.NewReplacer(`[^\s\n\r]`, `[^\t\n\v\f\r\x{85}\p{Z}]`, `\s`, reS, `\d`, reD, `\w`, reW, `[^\W\d]`, reWD).Replace(pattern)
	}
	rule := func(pattern string, classes ...string) hlRule {
		r := hlRule{classes: classes}
		if p, ok := strings.CutSuffix(pattern, `\b`); ok {
			pattern, r.word = p, true
		}
		r.re = regexp.MustCompile(`^(?:` + expand(pattern) + `)`)
		return r
	}
	return []hlRule{
		rule(`\n`, "w"),
		rule(`\s+`, "w"),
		rule(`//[^\s\n\r][^\n\r]*`, "cp"),
		rule(`//[^\n\r]*`, "c1"),
		rule(`/(\\\n)?[*](.|\n)*?[*](\\\n)?/`, "cm"),
		rule(`(import|package)\b`, "kn"),
		rule(`(var|func|struct|map|chan|type|interface|const)\b`, "kd"),
		rule(keywords+`\b`, "k"),
		rule(`(true|false|iota|nil)\b`, "kc"),
		rule(builtins+`(\()`, "nb", "p"), // chroma's \b before the ( always holds
		rule(types+`\b`, "kt"),
		rule(`\d+i`, "m"),
		rule(`\d+\.\d*([Ee][-+]\d+)?i`, "m"),
		rule(`\.\d+([Ee][-+]\d+)?i`, "m"),
		rule(`\d+[Ee][-+]\d+i`, "m"),
		rule(`\d+(\.\d+[eE][+\-]?\d+|\.\d*|[eE][+\-]?\d+)`, "mf"),
		rule(`\.\d+([eE][+\-]?\d+)?`, "mf"),
		rule(`0[0-7]+`, "mo"),
		rule(`0[xX][0-9a-fA-F_]+`, "mh"),
		rule(`0b[01_]+`, "mb"),
		rule(`(0|[1-9][0-9_]*)`, "mi"),
		rule(`'(\\['"\\abfnrtv]|\\x[0-9a-fA-F]{2}|\\[0-7]{1,3}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|[^\\])'`, "sc"),
		rule("`[^`]*`", "s"),
		rule(`"(\\\\|\\"|[^"])*"`, "s"),
		rule(`(<<=|>>=|<<|>>|<=|>=|&\^=|&\^|\+=|-=|\*=|/=|%=|&=|\|=|&&|\|\||<-|\+\+|--|==|!=|:=|\.\.\.|[+\-*/%&])`, "o"),
		rule(`([a-zA-Z_]\w*)(\s*)(\()`, "nf", "", "p"),
		rule(`[|^<>=!()\[\]{}.,;:~]`, "p"),
		rule(`[^\W\d]\w*`, "nx"),
	}
})

// wordRune says whether r is a word character (reW).
func wordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Pc, r)
}

// words is an alternation of ws, the longest first (as chroma's Words).
func words(ws ...string) string {
	s := append([]string(nil), ws...)
	for i := 1; i < len(s); i++ { // a stable insertion sort, by length, longest first
		for j := i; j > 0 && len(s[j]) > len(s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	for i := range s {
		s[i] = regexp.QuoteMeta(s[i])
	}
	return "(" + strings.Join(s, "|") + ")"
}

// lexGo splits src into tokens by hlRules.
func lexGo(src string) []hlToken {
	rules := hlRules()
	var out []hlToken
	for pos := 0; pos < len(src); {
		rest := src[pos:]
		matched := false
		for _, r := range rules {
			m := r.re.FindStringSubmatchIndex(rest)
			if m == nil {
				continue
			}
			if r.word && m[1] < len(rest) {
				if next, _ := utf8.DecodeRuneInString(rest[m[1]:]); wordRune(next) {
					continue
				}
			}
			matched = true
			if len(r.classes) == 1 {
				out = append(out, hlToken{r.classes[0], rest[:m[1]]})
			} else {
				for g, class := range r.classes {
					a, b := m[2*(g+1)], m[2*(g+1)+1]
					if a < 0 || a == b {
						continue
					}
					if class == "" {
						out = append(out, lexGo(rest[a:b])...)
						continue
					}
					out = append(out, hlToken{class, rest[a:b]})
				}
			}
			pos += m[1]
			break
		}
		if !matched {
			_, n := utf8.DecodeRuneInString(rest)
			out = append(out, hlToken{"err", rest[:n]})
			pos += n
		}
	}
	return out
}

// coalesce joins runs of tokens of one class (each at most 8192 bytes
// before the next is joined, as chroma's Coalesce).
func coalesce(ts []hlToken) []hlToken {
	var out []hlToken
	for _, t := range ts {
		if t.text == "" {
			continue
		}
		if n := len(out); n > 0 && out[n-1].class == t.class && len(out[n-1].text) < 8192 {
			out[n-1].text += t.text
			continue
		}
		out = append(out, t)
	}
	return out
}

// splitLines splits tokens at their newlines, each newline ending its
// line's last token, as chroma's SplitTokensIntoLines.
func splitLines(ts []hlToken) [][]hlToken {
	var out [][]hlToken
	var line []hlToken
	for _, t := range ts {
		for strings.Contains(t.text, "\n") {
			head, tail, _ := strings.Cut(t.text, "\n")
			line = append(line, hlToken{t.class, head + "\n"})
			out = append(out, line)
			line = nil
			t.text = tail
		}
		if t.text != "" {
			line = append(line, t)
		}
	}
	if len(line) > 0 {
		out = append(out, line)
	}
	return out
}

// highlightCSS is the stylesheet for the classes highlightGo writes: what
// chroma's HTML formatter wrote for the page's style, a light one after
// GitHub's, every colour at a contrast of 4.5:1 or more on its background.
func highlightCSS() string { return hlCSS }

// highlightGo returns each line as HTML: escaped text in spans with the
// tokens' classes. Lines that the tokens cannot be split back into as they
// came are returned escaped, without colour.
func highlightGo(lines []string) []template.HTML {
	out := make([]template.HTML, len(lines))
	plain := func() []template.HTML {
		for i, l := range lines {
			out[i] = template.HTML(html.EscapeString(l))
		}
		return out
	}
	src := strings.Join(lines, "\n") + "\n"
	src = strings.ReplaceAll(strings.ReplaceAll(src, "\r\n", "\n"), "\r", "\n")
	split := splitLines(coalesce(lexGo(src)))
	if len(split) < len(lines) {
		return plain()
	}
	for i := range lines {
		var b strings.Builder
		var text strings.Builder
		for _, tok := range split[i] {
			v := strings.TrimSuffix(tok.text, "\n")
			if v == "" {
				continue
			}
			text.WriteString(v)
			b.WriteString(`<span class="` + hlPrefix + tok.class + `">` + html.EscapeString(v) + `</span>`)
		}
		if text.String() != lines[i] {
			return plain()
		}
		out[i] = template.HTML(b.String())
	}
	return out
}
