package check

import (
	"go/scanner"
	"go/token"
	"strings"

	"github.com/srctrace/srctrace/trace/cite"
)

// carryQuote returns the code to quote in place of q when the line was,
// which held it, became is: for a grep line, the line as it is; for code
// that quoted the whole line, the whole line; else the part of is that q's
// tokens became, found by aligning the two lines' tokens. It fails when q's
// first or last token has no counterpart, or the code cannot be written
// as inline code.
func carryQuote(q cite.Quote, was, is string) (string, bool) {
	if q.Grep {
		return is, true
	}
	if strings.TrimSpace(is) == "" {
		return "", false
	}
	code := ""
	if cite.Normalize(q.Code) == cite.Normalize(was) {
		code = strings.TrimSpace(is)
	} else {
		wt, qt, it := tokenSpans(was), tokenSpans(q.Code), tokenSpans(is)
		i := indexTokens(wt, qt)
		if i < 0 || len(qt) == 0 {
			return "", false
		}
		align := alignTokens(wt, it)
		a, ok1 := align[i]
		b, ok2 := align[i+len(qt)-1]
		if !ok1 || !ok2 || b < a {
			return "", false
		}
		code = is[it[a].start:it[b].end]
	}
	if strings.Contains(code, "`") || strings.ContainsAny(code, "\n\r") {
		return "", false
	}
	return code, true
}

// tok is a Go token of a line and where it is.
type tok struct {
	text       string
	start, end int
}

// tokenSpans splits a line into Go tokens, punctuation too, with their
// byte offsets.
func tokenSpans(line string) []tok {
	var s scanner.Scanner
	fset := token.NewFileSet()
	src := []byte(line)
	f := fset.AddFile("", fset.Base(), len(src))
	s.Init(f, src, func(token.Position, string) {}, scanner.ScanComments)
	var out []tok
	for {
		pos, t, lit := s.Scan()
		if t == token.EOF {
			return out
		}
		if t == token.SEMICOLON && lit == "\n" {
			continue // inserted
		}
		text := lit
		if text == "" {
			text = t.String()
		}
		start := f.Offset(pos)
		end := start + len(text)
		if end > len(line) {
			end = len(line)
		}
		out = append(out, tok{text, start, end})
	}
}

// indexTokens returns where q's tokens are, in a row, in w; -1 if not.
func indexTokens(w, q []tok) int {
	for i := 0; i+len(q) <= len(w); i++ {
		ok := true
		for j := range q {
			if w[i+j].text != q[j].text {
				ok = false
				break
			}
		}
		if ok {
			return i
		}
	}
	return -1
}

// alignTokens maps the tokens of a to the tokens of b that a longest
// common subsequence pairs them with.
func alignTokens(a, b []tok) map[int]int {
	n, m := len(a), len(b)
	// l[i][j]: the LCS of a[i:] and b[j:].
	l := make([][]int, n+1)
	for i := range l {
		l[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i].text == b[j].text {
				l[i][j] = l[i+1][j+1] + 1
			} else {
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	out := map[int]int{}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i].text == b[j].text:
			out[i] = j
			i++
			j++
		case l[i+1][j] >= l[i][j+1]:
			i++
		default:
			j++
		}
	}
	return out
}
