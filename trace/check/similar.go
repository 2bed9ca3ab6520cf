package check

import (
	"go/scanner"
	"go/token"
	"sort"
)

// An edited line (a call that gained an argument, a renamed variable) is
// found by its tokens: the line at the release checked that shares most of
// them, near its neighbours and in its function.

// tokens splits a line into the Go tokens that carry its meaning:
// identifiers, literals, keywords and operators, not the punctuation that
// every call and selector has (parentheses, brackets, braces, dots, commas).
func tokens(line string) []string {
	var s scanner.Scanner
	fset := token.NewFileSet()
	src := []byte(line)
	f := fset.AddFile("", fset.Base(), len(src))
	s.Init(f, src, func(token.Position, string) {}, 0)
	var out []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		switch tok {
		case token.LPAREN, token.RPAREN, token.LBRACK, token.RBRACK, token.LBRACE, token.RBRACE,
			token.PERIOD, token.COMMA, token.SEMICOLON, token.COLON:
			continue
		}
		if lit == "" {
			lit = tok.String()
		}
		out = append(out, lit)
	}
}

// tokens returns the tokens of each line of rp.
func (t *Tree) tokens(rp string) [][]string {
	if ts, ok := t.toks[rp]; ok {
		return ts
	}
	ns := t.normalized(rp)
	ts := make([][]string, len(ns))
	for i, l := range ns {
		ts[i] = tokens(l)
	}
	t.toks[rp] = ts
	return ts
}

// sharedContext counts the neighbours of line i+1 that are a's, leaving
// out lines without a letter or digit ("}", blank lines), which every
// place shares.
func sharedContext(ns []string, i int, a anchor) int {
	n := 0
	for d, b := range a.before {
		if i-1-d >= 0 && ns[i-1-d] == b && meaningful(b) {
			n++
		}
	}
	for d, b := range a.after {
		if i+1+d < len(ns) && ns[i+1+d] == b && meaningful(b) {
			n++
		}
	}
	return n
}

// similarity is the Dice coefficient of two token multisets: 1 for the
// same tokens, 0 for none in common.
func similarity(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	count := map[string]int{}
	for _, t := range a {
		count[t]++
	}
	common := 0
	for _, t := range b {
		if count[t] > 0 {
			count[t]--
			common++
		}
	}
	return 2 * float64(common) / float64(len(a)+len(b))
}

// Thresholds for an edited line: alike by most of its tokens, or by half
// of them with its neighbours or its function to show it is the same line.
const (
	alike     = 0.75
	halfAlike = 0.5
)

// locateEdited finds the line of a whose text changed, in files: the most
// similar line that passes the thresholds.
func locateEdited(t *Tree, files []string, a anchor) (string, int, float64) {
	want := tokens(a.text)
	if len(want) < 2 {
		return "", 0, 0
	}
	type cand struct {
		file  string
		line  int
		sim   float64
		score float64
		dist  int
	}
	var cs []cand
	for _, f := range files {
		ns := t.normalized(f)
		toks := t.tokens(f)
		for i := range ns {
			// Dice is at most 2·min/(a+b): skip lines too short or long.
			if n, m := len(want), len(toks[i]); 2*float64(min(n, m))/float64(n+m) < halfAlike {
				continue
			}
			sim := similarity(want, toks[i])
			if sim < halfAlike {
				continue
			}
			ctx := sharedContext(ns, i, a)
			sameFn := false
			expected := a.line
			if a.inFn {
				if fn, ok := t.enclosing(f, i+1); ok && fn.name == a.fn.name && fn.recv == a.fn.recv {
					sameFn = true
					expected = fn.start + a.expectedOffset
				}
			}
			if sim < alike && ctx < 2 && !sameFn {
				continue
			}
			score := 10*sim + float64(ctx)
			if sameFn {
				score += 2 * contextLines
			}
			cs = append(cs, cand{f, i + 1, sim, score, absInt(i + 1 - expected)})
		}
	}
	if len(cs) == 0 {
		return "", 0, 0
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].score != cs[j].score {
			return cs[i].score > cs[j].score
		}
		return cs[i].dist < cs[j].dist
	})
	if len(cs) > 1 && cs[1].score == cs[0].score && cs[1].dist == cs[0].dist {
		return "", 0, 0
	}
	return cs[0].file, cs[0].line, cs[0].sim
}
