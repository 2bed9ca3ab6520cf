package check

import (
	"go/scanner"
	"go/token"
	"regexp"
	"sort"
	"strings"
)

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

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

// lineTokens returns the tokens of line i+1 of rp, as sorted ids.
func (t *Tree) lineTokens(rp string, i int) []int {
	ts, ok := t.toks[rp]
	if !ok {
		ts = make([][]int, len(t.normalized(rp)))
		t.toks[rp] = ts
	}
	if ts[i] == nil {
		ts[i] = t.tokenIDs(t.normalized(rp)[i])
	}
	return ts[i]
}

// tokenIDs returns the tokens of a line as sorted ids of the tree.
func (t *Tree) tokenIDs(line string) []int {
	toks := tokens(line)
	ids := make([]int, len(toks), len(toks)+1) // never nil
	for i, tok := range toks {
		id, ok := t.ids[tok]
		if !ok {
			id = len(t.ids)
			t.ids[tok] = id
		}
		ids[i] = id
	}
	sort.Ints(ids)
	return ids
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

// similarity is the Dice coefficient of two token multisets, as sorted
// ids: 1 for the same tokens, 0 for none in common.
func similarity(a, b []int) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	common := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] == b[j]:
			common++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
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
	want := t.tokenIDs(a.text)
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
	// A line that shares none of the longer words (identifiers of three
	// letters or more) is not taken for the line edited.
	var words []string
	for _, w := range tokens(a.text) {
		if len(w) >= 3 && identRE.MatchString(w) {
			words = append(words, w)
		}
	}
	var cs []cand
	for _, f := range files {
		ns := t.normalized(f)
		for i, l := range ns {
			if len(words) > 0 && !containsAny(l, words) {
				continue
			}
			toks := t.lineTokens(f, i)
			// Dice is at most 2·min/(a+b): skip lines too short or long.
			if n, m := len(want), len(toks); 2*float64(min(n, m))/float64(n+m) < halfAlike {
				continue
			}
			sim := similarity(want, toks)
			if sim < halfAlike {
				continue
			}
			ctx := sharedContext(ns, i, a)
			sameFn := false
			expected := a.line
			if a.inFn && t.mentions(f, a.fn.name) {
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
