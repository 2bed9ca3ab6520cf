package trace

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study"
)

// position is a token position in the program as file and line.
func (r *Result) position(p token.Pos) (string, int) {
	if !p.IsValid() {
		return "", 0
	}
	pos := r.Graph.Fset().Position(p)
	return r.Source.RepoPath(pos.Filename), pos.Line
}

// lineText is the source line at p, trimmed ("" when it cannot be read).
func (r *Result) lineText(p token.Pos) string {
	pos := r.Graph.Fset().Position(p)
	text, err := r.lines.line(pos.Filename, pos.Line)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(text)
}

// literalText is the composite literal whose brace is at p as written,
// when it is written on one line ("" otherwise): the code that makes a
// message a hand-off carries.
func (r *Result) literalText(p token.Pos) string {
	f := r.Graph.File(p)
	if f == nil {
		return ""
	}
	var lit *ast.CompositeLit
	ast.Inspect(f, func(n ast.Node) bool {
		if lit != nil || n == nil || p < n.Pos() || p >= n.End() {
			return false
		}
		if cl, ok := n.(*ast.CompositeLit); ok && cl.Lbrace == p {
			lit = cl
			return false
		}
		return true
	})
	if lit == nil {
		return ""
	}
	fset := r.Graph.Fset()
	start, end := fset.Position(lit.Pos()), fset.Position(lit.End())
	if start.Line != end.Line {
		return ""
	}
	text, err := r.lines.line(start.Filename, start.Line)
	if err != nil || end.Column-1 > len(text) {
		return ""
	}
	return text[start.Column-1 : end.Column-1]
}

func (r *Result) cond(c *feasible.Cond) report.Cond {
	at := c.Pos
	if (c.Passes != "" || c.Fails != "") && c.CheckAt.IsValid() {
		at = c.CheckAt // a check is cited where it is called
	}
	file, line := r.position(at)
	rc := report.Cond{Text: c.Text, File: file, Line: line, Want: c.Want, Class: string(c.Class), Whole: c.Whole, Note: r.pinNote(c), NotEmpty: c.Ranged != "", Case: c.Case,
		Either: c.Made != nil && c.Made.Out && len(c.Made.Past) > 0 && c.Made.Blocked == nil || len(c.Or) > 0, Passes: c.Passes, Fails: c.Fails, Erred: c.Erred, Unloaded: c.Unloaded, Every: c.Every}
	if c.Func != nil {
		rc.Function = callpath.Name(c.Func)
	}
	if rw := c.After; rw != nil {
		fields := ownedFields(rw.Owner, rw.Fields)
		switch {
		case rw.Always:
			rc.After = fmt.Sprintf("of what `%s` (`%s`), a filter called on every run of the way, leaves in %s", rw.Call, r.lineList([]token.Pos{rw.At}), fields)
		case rw.UnderText != "":
			rc.After = fmt.Sprintf("where `%s` (`%s`), a filter called under `%s`, runs: of what it leaves in %s", rw.Call, r.lineList([]token.Pos{rw.At}), rw.UnderText, fields)
		default:
			rc.After = fmt.Sprintf("where `%s` (`%s`), a filter called under branches the analysis does not name as one condition, runs: of what it leaves in %s", rw.Call, r.lineList([]token.Pos{rw.At}), fields)
		}
	}
	if fn := c.PassesFn; fn != nil && fn.Pos().IsValid() {
		file, line := r.position(fn.Pos())
		rc.PassesMade = &report.Loc{File: file, Line: line}
	}
	return rc
}

// because says what decides a verdict, in the engine's words: the
// condition, and for a condition that cannot hold, the value the path
// fixes and where.
func (r *Result) because(c *feasible.Cond) *report.Because {
	if c == nil {
		return nil
	}
	rc := r.cond(c)
	b := &report.Because{Cond: rc, File: rc.File, Line: rc.Line}
	if c.Near != nil {
		near := r.cond(c.Near)
		b.Near = &near
	}
	text := "`" + c.Text + "`"
	if c.Text == "" {
		text = "a condition"
	}
	switch c.Class {
	case feasible.False:
		if c.Why == feasible.Rewritten && c.Rewrite != nil {
			b.Text = r.filteredText(c)
			b.File, b.Line = r.position(c.Rewrite.At)
			break
		}
		if c.Why == "no sender" {
			b.Text = fmt.Sprintf("no sender of the %s makes a request for `%s` to dispatch, and this way is handed none", c.HandOff, callpath.Name(c.Func))
			break
		}
		if c.Why == OtherCase {
			cf, cl := r.position(c.CallAt)
			b.Text = fmt.Sprintf("the %s's message is received by `%s` (%s:%d), and this way's call at %s:%d is in another case of that select: it runs on that case's turn, not on the message's, so the way cannot run", c.HandOff, r.lineText(c.Pos), rc.File, rc.Line, cf, cl)
			break
		}
		if c.Why == "dispatch" {
			b.Text = fmt.Sprintf("%s cannot run `%s` on this path", text, callpath.Name(c.Callee))
			if f, ok := deciding(c); ok && f.Value != "another type" {
				b.Text += fmt.Sprintf(": the value it is called on is a `%s`, which does not have that method", shortType(f.Value))
				b.File, b.Line = r.position(f.At)
			} else {
				b.Text += ": the value it is called on is of another type"
			}
			break
		}
		b.Text = fmt.Sprintf("%s is %v on this path", text, !c.Want)
		if f, ok := deciding(c); ok {
			switch {
			case f.Set != nil && len(f.Set) > 0:
				b.Text += fmt.Sprintf(": `%s` is %s, unset by the literal made here, which sets only %s", f.Name, f.Value, strings.Join(f.Set, ", "))
			case f.Set != nil:
				b.Text += fmt.Sprintf(": `%s` is %s, unset by the literal made here, which sets none of its fields", f.Name, f.Value)
			case f.Handed != nil:
				b.Text += fmt.Sprintf(": `%s` is the request `%s` is handed here, never nil (the framework that calls it allocates each one)", f.Name, report.ShortName(callpath.Name(f.Handed)))
			default:
				b.Text += fmt.Sprintf(": `%s` is %s, fixed here", f.Name, f.Value)
			}
			b.File, b.Line = r.position(f.At)
		}
	case feasible.Excluded:
		b.Refuted = r.reportReasons(c.Refuted)
		b.Text = fmt.Sprintf("%s cannot be %v on this path", text, c.Want)
		if c.Why == "dispatch" {
			// A call through an interface whose value has the callee's
			// method only on ways the path rules out.
			b.Text = fmt.Sprintf("%s cannot run `%s` on this path: the value it is called on is one with that method only where the path cannot be", text, callpath.Name(c.Callee))
		}
		if rs := r.reasons(c.Refuted); rs != "" {
			b.Text += ": " + rs
		} else if c.Why != "" {
			b.Text += fmt.Sprintf(": the path needs `%s` earlier", c.Why)
		}
	case feasible.Gave:
		if c.Why == feasible.Floored && c.Floor != nil {
			b.Text = r.flooredText(c)
			break
		}
		if c.Why == feasible.Carried && c.Carry != nil {
			b.Text = r.carriedText(c)
			break
		}
		if c.Why == feasible.Stilled && c.Still != nil {
			b.Text = r.stilledText(c)
			break
		}
		if c.Why == feasible.Referenced && c.Ref != nil {
			b.Text = r.referencedText(c)
			break
		}
		if c.Why == feasible.ReadBack && c.Back != nil {
			b.Text = r.readBackText(c)
			break
		}
		if c.Why == feasible.Rewritten && c.Rewrite != nil {
			b.Text = r.rewrittenText(c)
			break
		}
		if c.Why == feasible.Bounded {
			b.Text = "not decided: the analysis reached its bound of work on this path before it could show whether what the path checks earlier rules out the rest"
			break
		}
		b.Text = fmt.Sprintf("the analysis could not decide %s: %s", text, c.Why)
	case feasible.State:
		onlyIf := "only if "
		if rc.Either {
			onlyIf = "only if either "
		}
		switch {
		case c.Ranged != "":
			b.Text = onlyIf + text + " is not empty"
		case c.Case:
			b.Text = onlyIf + "the select takes its case " + text
		case c.Erred != "" && c.Want:
			b.Text = onlyIf + "`" + c.Erred + "` returns an error (" + text + unloadedNote(c.Unloaded) + ")"
		case c.Erred != "":
			b.Text = onlyIf + "`" + c.Erred + "` returns an error (not " + text + unloadedNote(c.Unloaded) + ")"
		case c.Want:
			b.Text = onlyIf + text
		default:
			b.Text = onlyIf + "not " + text
		}
		if c.Whole != "" {
			b.Text += " (part of `" + c.Whole + "`)"
		}
		for _, p := range c.Pinned {
			rp := report.Pin{Name: p.Name, Value: p.Value, Fixed: p.Fixed, Because: r.reportReasons(p.Because)}
			if p.Fixed {
				rp.File, rp.Line = r.position(p.At)
			}
			b.Pinned = append(b.Pinned, rp)
		}
		b.Text += rc.Note
	default:
		b.Text = text
	}
	if len(c.Senders) > 0 && b.Text != "" {
		b.Text = fmt.Sprintf("none of the %d requests that the %s's senders make (made at %s) takes this way, whichever is handed to it; for one that gets farthest: %s",
			r.lineCount(c.Senders), c.HandOff, r.lineList(c.Senders), b.Text)
	}
	return b
}

// deciding is the fixed value that decides a false condition: an operand
// the path fixes somewhere (a constant argument, a literal), not a
// constant written in the condition itself.
func deciding(c *feasible.Cond) (feasible.Fixed, bool) {
	for _, f := range c.Fixed {
		if f.At.IsValid() && f.Name != "" && !isLiteral(f.Name) {
			return f, true
		}
	}
	for _, f := range c.Fixed {
		if f.At.IsValid() {
			return f, true
		}
	}
	return feasible.Fixed{}, false
}

func isLiteral(s string) bool {
	if s == "nil" || s == "true" || s == "false" {
		return true
	}
	return s != "" && (s[0] >= '0' && s[0] <= '9' || s[0] == '"' || s[0] == '-')
}

func (r *Result) ways(ws []study.Way) []report.Way {
	var out []report.Way
	for _, w := range ws {
		rw := report.Way{Hops: r.hops(w.Path), Feasible: string(w.Res.Verdict), Because: r.because(w.Res.Because)}
		for _, c := range w.Res.OnlyIfs() {
			rw.OnlyIf = append(rw.OnlyIf, r.cond(&c))
		}
		for _, c := range w.Res.Asks() {
			rw.Asks = append(rw.Asks, r.cond(&c))
		}
		out = append(out, rw)
	}
	return out
}

// reasons says, in one sentence's parts, what rules a condition out (or
// makes it hold): the earlier branches the path takes, what the calls it
// tests returned, what a loop checked of every element, invariants of the
// store and locks that keep a field still. The branches of a call's
// returns (or of a value's alternatives) are named by their lines, not as
// a conjunction: each is what one of the ways the call can return needs.
func (r *Result) reasons(rs []feasible.Reason) string {
	var parts []string
	seen := map[string]bool{}
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	type group struct {
		lead   string // up to the list of lines: "what `f(x)` returned (… at "
		single string // the whole part when the group has one condition
		lines  []token.Pos
		n      int
	}
	var order []string
	groups := map[string]*group{}
	grouped := func(key, lead string, x feasible.Reason, single string) {
		g := groups[key]
		if g == nil {
			g = &group{lead: lead}
			groups[key] = g
			order = append(order, key)
			parts = append(parts, "\x00"+key)
		}
		g.n++
		g.single = single
		if x.Cond != nil {
			g.lines = append(g.lines, x.Cond.Pos)
		} else {
			g.lines = append(g.lines, x.Pos)
		}
	}
	for _, x := range rs {
		switch x.Kind {
		case feasible.ReasonCond:
			if x.Cond != nil {
				add(r.needs(x.Cond, "the path takes "))
			}
		case feasible.ReasonSent:
			if x.Cond != nil {
				add(r.needs(x.Cond, "before the hand-off, the sender's path takes ") + ", a test of the request it hands off, which it does not change after the test")
			} else if x.Pos.IsValid() {
				add("before the hand-off, what the sender's path fixes of the request it hands off (" + r.lineList([]token.Pos{x.Pos}) + ")")
			}
		case feasible.ReasonGuard:
			if len(x.Via) == 0 {
				grouped("alt", "the branches that pick one of the values it reads (", x, "")
				continue
			}
			last := x.Via[len(x.Via)-1]
			single := ""
			if last.Returned != "" && x.Cond != nil {
				single = r.viaText(x.Via) + " that needs " + r.needs(x.Cond, "")
			}
			grouped("ret|"+last.Text, "what `"+last.Text+"` returned (by the branches of its returns the analysis followed, at ", x, single)
		case feasible.ReasonForall:
			lead := "what a loop checks of every element before it returns ("
			key := "all"
			if len(x.Via) > 0 {
				last := x.Via[len(x.Via)-1]
				lead = "what `" + last.Text + "` checks of every element before it returns ("
				key += "|" + last.Text
			}
			grouped(key, lead, x, "")
		case feasible.ReasonValue:
			// A value a function a defer statement runs reads where its
			// maker left it: "left|ar.Err|dispatch".
			if parts := strings.Split(x.Text, "|"); len(parts) == 3 && parts[0] == "left" {
				grouped("left|"+parts[1], "when `"+parts[2]+"` returns, `"+parts[1]+"` holds what one of its writes left there, or, where none ran, what its literal did (", x, "")
			} else if start, ok := strings.CutPrefix(x.Text, "counter|"); ok {
				text := "a loop's counter starts at " + start + " and only grows, and the path fixes its bound"
				if x.Pos.IsValid() {
					text = "a loop's index starts at " + start + " and only grows, and the path fixes the length of what it ranges over (" + r.lineList([]token.Pos{x.Pos}) + ")"
				}
				add(text)
			} else if rest, ok := strings.CutPrefix(x.Text, "least|"); ok {
				// A value the code computes from parts that never let it
				// go below a floor: "least|N|parts" or "least|N|carried".
				n, how, _ := strings.Cut(rest, "|")
				if how == "carried" {
					add("the sum the loop at " + r.lineList([]token.Pos{x.Pos}) + " carries is at least " + n + ": it starts there and each pass adds a value never below 0")
				} else {
					add("the value computed at " + r.lineList([]token.Pos{x.Pos}) + " is at least " + n + ", the sum of its parts' least values (a constant is itself, a length at least 0)")
				}
			} else if rest, ok := strings.CutPrefix(x.Text, "deref|"); ok {
				// A field read through a pointer: "deref|p.Lease|p".
				if sel, from, ok := strings.Cut(rest, "|"); ok {
					add("the way reads `" + sel + "` (" + r.lineList([]token.Pos{x.Pos}) + "), so `" + from + "` is not nil there (a way runs without a panic)")
				}
			} else if start, ok := strings.CutPrefix(x.Text, "sum|"); ok {
				// What a sum a loop carries says of each part it adds.
				text := "the loop at " + r.lineList([]token.Pos{x.Pos}) + " sums, from " + start + ", values never below 0, so no value it adds is above the sum"
				if start != "0" {
					text += " less " + start
				}
				add(text)
			} else if x.Text == "returns" && len(x.Via) > 0 {
				last := x.Via[len(x.Via)-1]
				grouped("val|"+last.Text, "what `"+last.Text+"` returned (its returns at ", x, "")
			}
		case feasible.ReasonInvariant:
			if inv := x.Invariant; inv != nil {
				text := fmt.Sprintf("the store keeps %s", invText(inv))
				if first, ok := strings.CutPrefix(x.Text, "order|"); ok && inv.Grows {
					n, _ := strconv.Atoi(first)
					add(fmt.Sprintf("the store never lets `%s` go down (%s), and the path reads it at %s before it reads it again at %s", inv.A.Name(), r.floorWrites(inv.Writes), r.lineList([]token.Pos{token.Pos(n)}), r.lineList([]token.Pos{x.Pos})))
					break
				}
				if inv.Floor() {
					add(text + " (" + r.floorWrites(inv.Writes) + ")")
					break
				}
				if inv.Lock != nil {
					l := inv.Lock.Name()
					file, line := r.position(x.Pos)
					text += fmt.Sprintf(" whenever `%s` is not held for writing (every write of the two fields keeps it, or is made holding `%s` and restores it before the lock is released), and one of the two cannot change while `%s` is held here (from %s:%d on): every write of it holds `%s`", l, l, l, file, line, l)
				} else {
					text += " (every write of the two fields keeps it)"
				}
				add(text)
			}
		case feasible.ReasonStill:
			if st := x.Still; st != nil && st.Entry {
				first, _ := strconv.Atoi(x.Text)
				add(fmt.Sprintf("`%s` holds the same entry for the key the path looks up at %s and again at %s: %s, and the path, in one such run, makes none between the two lookups",
					st.A.Name(), r.lineList([]token.Pos{token.Pos(first)}), r.lineList([]token.Pos{x.Pos}), r.stillWrites(st, "every write that changes its entries")))
			} else if st := x.Still; st != nil && st.Grows != nil {
				first, _ := strconv.Atoi(x.Text)
				add(fmt.Sprintf("`%s` does not go down between its reads at %s and %s: %s, and the path, in one such run, makes none between them; every other write of it %s",
					st.A.Name(), r.lineList([]token.Pos{token.Pos(first)}), r.lineList([]token.Pos{x.Pos}), r.stillWrites(st, "every write that may lower it"),
					strings.TrimPrefix(r.floorWrites(st.Grows.Writes), "every write of it ")))
			} else if st := x.Still; st != nil && x.Raise != "" {
				at, _ := strconv.Atoi(x.Text)
				add(fmt.Sprintf("`%s` is at least the value `%s` (%s) raised it to, at its read at %s: %s, and the path, in one such run, writes it nowhere between them",
					st.A.Name(), x.Raise, r.lineList([]token.Pos{token.Pos(at)}), r.lineList([]token.Pos{x.Pos}), r.stillWrites(st, "every write of it")))
			} else if st := x.Still; st != nil {
				first, _ := strconv.Atoi(x.Text)
				add(fmt.Sprintf("`%s` does not change between its reads at %s and %s: %s, and the path, in one such run, writes it nowhere between them",
					st.A.Name(), r.lineList([]token.Pos{token.Pos(first)}), r.lineList([]token.Pos{x.Pos}), r.stillWrites(st, "every write of it")))
			}
		case feasible.ReasonLock:
			if a, l, ok := strings.Cut(x.Text, "|"); ok {
				file, line := r.position(x.Pos)
				add(fmt.Sprintf("`%s` is read twice while `%s` is held (from %s:%d on), and every write of `%s` holds `%s`", a, l, file, line, a, l))
			}
		}
	}
	for i, p := range parts {
		if !strings.HasPrefix(p, "\x00") {
			continue
		}
		if call, ok := strings.CutPrefix(p[1:], "val|"); ok && groups["ret|"+call] != nil {
			// The branches of the call's returns name them already.
			parts[i] = ""
			continue
		}
		g := groups[p[1:]]
		if g.n == 1 && g.single != "" {
			parts[i] = g.single
			continue
		}
		parts[i] = g.lead + r.lineList(g.lines) + ")"
	}
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), "; ")
}

// lineCount is how many lines lineList names for ps: a request made
// twice at one line (two senders reach one literal) is one.
func (r *Result) lineCount(ps []token.Pos) int {
	_, lines := r.linesByFile(ps)
	n := 0
	for _, ls := range lines {
		n += len(ls)
	}
	return n
}

// linesByFile are ps's files, in the order first met, and each file's
// lines, each once.
func (r *Result) linesByFile(ps []token.Pos) (files []string, lines map[string][]int) {
	lines = map[string][]int{}
	for _, p := range ps {
		file, line := r.position(p)
		if file == "" {
			continue
		}
		if _, ok := lines[file]; !ok {
			files = append(files, file)
		}
		if !slices.Contains(lines[file], line) {
			lines[file] = append(lines[file], line)
		}
	}
	return files, lines
}

// lineList names positions by file and line, each file once: a file,
// then its lines, the last after "and".
func (r *Result) lineList(ps []token.Pos) string { return r.linesJoined(ps, "and") }

// linesJoined is lineList with conj before the last line of a file, and
// between files ("; " and conj).
func (r *Result) linesJoined(ps []token.Pos, conj string) string {
	files, lines := r.linesByFile(ps)
	var out []string
	for _, f := range files {
		ls := lines[f]
		sort.Ints(ls)
		var nums []string
		for _, l := range ls {
			nums = append(nums, fmt.Sprint(l))
		}
		text := nums[0]
		if len(nums) > 1 {
			text = strings.Join(nums[:len(nums)-1], ", ") + " " + conj + " " + nums[len(nums)-1]
		}
		out = append(out, f+":"+text)
	}
	if conj != "and" && len(out) > 1 {
		return strings.Join(out[:len(out)-1], "; ") + "; " + conj + " " + out[len(out)-1]
	}
	return strings.Join(out, "; ")
}

// needs is condition c with the outcome the path needs: "`a < b`" or
// "not `a < b`", and where it is.
func (r *Result) needs(c *feasible.Cond, lead string) string {
	s := "`" + c.Text + "`"
	switch {
	case c.Ranged != "":
		s += " not empty"
	case c.Case:
		s = "the select taking its case " + s
	case !c.Want:
		s = "not " + s
	}
	if file, line := r.position(c.Pos); file != "" {
		s += fmt.Sprintf(" (%s:%d)", file, line)
	}
	return lead + s
}

// viaText is the calls a reason is about: "`validate(r.Revision)`
// returned nil", through the outer calls when there are several.
func (r *Result) viaText(vs []feasible.Via) string {
	last := vs[len(vs)-1]
	s := "`" + last.Text + "` returned"
	if last.Returned != "" {
		// The return that gives that constant (another return may give
		// the same value from a variable).
		s = "`" + last.Text + "` returned " + last.Returned + " by a `return " + last.Returned + "`"
	}
	if len(vs) > 1 {
		s = "within `" + vs[0].Text + "`, " + s
	}
	return s
}

// floorWrites says how the writes of a floor keep its field at or above
// 0: "every write of it stores a constant not below 0 (…:104, …:315) or
// its own value plus a value not below 0 (…:214)".
func (r *Result) floorWrites(ws []feasible.InvariantWrite) string {
	var whys []string
	at := map[string][]token.Pos{}
	for _, w := range ws {
		if _, ok := at[w.Why]; !ok {
			whys = append(whys, w.Why)
		}
		at[w.Why] = append(at[w.Why], w.Pos)
	}
	var parts []string
	for _, why := range whys {
		parts = append(parts, why+" ("+r.lineList(at[why])+")")
	}
	return "every write of it stores " + joinList(parts, "or")
}

// flooredText says why a way that needs a field below 0 is not decided.
func (r *Result) flooredText(c *feasible.Cond) string {
	inv := c.Floor
	name := inv.A.Name()
	text := fmt.Sprintf("not decided: the way can run only if `%s` is below 0", name)
	if inv.Grows {
		text = fmt.Sprintf("not decided: the way can run only if `%s` went down between two reads of it", name)
		if len(c.Reads) == 2 {
			text = fmt.Sprintf("not decided: the way can run only if `%s` went down between its read at %s and its read at %s", name, r.lineList(c.Reads[:1]), r.lineList(c.Reads[1:]))
		}
		if c.OrBelow {
			text += ", or was below 0 there"
		}
	}
	if n := c.Near; n != nil && n.Text != "" {
		text += " (it needs " + r.nearText(n) + ")"
	}
	if len(inv.Writes) > 0 {
		text += fmt.Sprintf("; every other write of `%s` %s", name, strings.TrimPrefix(r.floorWrites(inv.Writes), "every write of it "))
	}
	if inv.Grows {
		what := "cannot lower it where the way reads it"
		if c.OrBelow {
			what = "cannot lower it where the way reads it, or set it below 0"
		}
		these := "these writes"
		if len(inv.Unbounded) == 1 {
			these = "this write"
		}
		return text + "; the analysis does not show that " + these + " " + what + ": " + r.unboundedWrites(inv.Unbounded, "; ")
	}
	return text + "; the analysis does not bound the value stored by " + r.unboundedWrites(inv.Unbounded, "")
}

// carriedText says why a way that needs a field's read above what its
// writes carry of a field that never goes down is not decided.
func (r *Result) carriedText(c *feasible.Cond) string {
	cr := c.Carry
	if cr.Minus != nil {
		return r.lessText(c)
	}
	a, from := cr.A.Name(), cr.From.Name()
	above, most := carryBounds(cr)
	what := "`" + a + "`"
	if cr.Elem {
		what = "an element of `" + a + "`"
	}
	// Reads are the value's read and the later read of From.
	text := fmt.Sprintf("not decided: the way can run only if %s, read at %s, is %s `%s` read after it at %s", what, r.lineList(c.Reads[:1]), above, from, r.lineList(c.Reads[1:]))
	if c.Sent {
		text = fmt.Sprintf("not decided: the way can run only if the value its sender handed off, %s read at %s, is %s `%s` read after the hand-off at %s", what, r.lineList(c.Reads[:1]), above, from, r.lineList(c.Reads[1:]))
	}
	if n := c.Near; n != nil && n.Text != "" {
		text += " (it needs " + r.nearText(n) + ")"
	}
	var at []string
	for _, w := range cr.Writes {
		file, line := r.position(w.Pos)
		at = append(at, fmt.Sprintf("%s:%d", file, line))
	}
	these, leave := "the writes of `"+a+"` at "+joinList(at, "and")+" store", "a value they leave"
	switch {
	case cr.Elem && len(at) == 1:
		these, leave = "the append to `"+a+"` at "+at[0]+" adds", "an element it adds"
	case cr.Elem:
		these, leave = "the appends to `"+a+"` at "+joinList(at, "and")+" add", "an element they add"
	case len(at) == 1:
		these, leave = "the write of `"+a+"` at "+at[0]+" stores", "a value it leaves"
	}
	text += fmt.Sprintf("; %s %s, and `%s` never goes down", these, most, from) + r.assumedOrder(cr)
	text += fmt.Sprintf(", so %s is never %s a later read of the same struct's `%s`", leave, above, from)
	var more []string
	if len(cr.Others) > 0 {
		var ws []string
		for _, w := range cr.Others {
			file, line := r.position(w.Pos)
			ws = append(ws, fmt.Sprintf("%s:%d (`%s`)", file, line, w.Text))
		}
		kind := "values"
		if cr.Elem {
			kind = "elements"
		}
		more = append(more, fmt.Sprintf("`%s` is also written at %s, with %s it does not follow to a read of `%s`", a, joinList(ws, "and"), kind, from))
	}
	if cr.Unseen {
		m := "code outside the loaded packages may write it"
		if len(cr.Handed) > 0 {
			var ws []string
			for _, w := range cr.Handed {
				file, line := r.position(w.Pos)
				ws = append(ws, fmt.Sprintf("`%s` (%s:%d)", w.Text, file, line))
			}
			m += ", such as the calls " + joinList(ws, "and") + ", which hand it an empty struct to fill"
			if len(cr.Handed) == 1 {
				m = "code outside the loaded packages may write it, such as the call " + ws[0] + ", which hands it an empty struct to fill"
			}
		}
		more = append(more, m)
	}
	if len(more) > 0 {
		return text + "; the analysis does not decide which write left the value read: " + strings.Join(more, ", and ")
	}
	return text + fmt.Sprintf("; the analysis does not decide that the read it carries is of the same struct's `%s`", from)
}

// carryBounds says what a carried read's bound asks of a value ("above",
// "more than 1 above") and what the carrying writes leave ("at most an
// earlier read of `currentRev` plus 1").
func carryBounds(cr *feasible.Carry) (above, most string) {
	above = "above"
	most = fmt.Sprintf("at most an earlier read of `%s`", cr.From.Name())
	switch {
	case cr.Off > 0:
		above = fmt.Sprintf("more than %d above", cr.Off)
		most += fmt.Sprintf(" plus %d", cr.Off)
	case cr.Off < 0:
		above = fmt.Sprintf("less than %d below", -cr.Off)
		most += fmt.Sprintf(" minus %d", -cr.Off)
	}
	return above, most
}

// assumedOrder names, when the carried field's order is assumed, the
// writes the analysis does not show keep it.
func (r *Result) assumedOrder(cr *feasible.Carry) string {
	if len(cr.Order.Unbounded) == 0 {
		return ""
	}
	return " (assumed: the analysis does not show that " + r.unboundedWrites(cr.Order.Unbounded, "") + " keep it so)"
}

// lessText says why a way that needs a value its sender computed as a
// read of a field that never goes down, less another field, above a
// later read of the first is not decided: it can run only with the
// second field below 0.
func (r *Result) lessText(c *feasible.Cond) string {
	cr := c.Carry
	from, minus := cr.From.Name(), cr.Minus.Name()
	above, most := carryBounds(cr)
	text := fmt.Sprintf("not decided: the way can run only if the value its sender handed off, `%s` at %s, is %s `%s` read after the hand-off at %s", cr.Expr, r.lineList(c.Reads[:1]), above, from, r.lineList(c.Reads[1:]))
	if n := c.Near; n != nil && n.Text != "" {
		text += " (it needs " + r.nearText(n) + ")"
	}
	first := "its first operand"
	if cr.First != "" {
		first = "`" + cr.First + "`"
	}
	text += fmt.Sprintf("; %s is %s, and `%s` never goes down", first, most, from) + r.assumedOrder(cr)
	text += fmt.Sprintf(", so the value is %s a later read of the same struct's `%s` only if `%s` is below 0", above, from, minus)
	switch inv := cr.MinusFloor; {
	case inv != nil && len(inv.Unbounded) == 0:
		text += fmt.Sprintf(", and every write of `%s` (%s) keeps it at or above 0", minus, r.writeLines(inv.Writes))
	case inv != nil:
		text += fmt.Sprintf(", which the analysis does not rule out: it does not bound the value stored by %s", r.unboundedWrites(inv.Unbounded, ""))
	case len(cr.MinusWrites) > 0:
		text += fmt.Sprintf(", which the analysis does not rule out: %s may store a value below 0", r.unboundedWrites(cr.MinusWrites, ""))
	default:
		text += fmt.Sprintf(", which the analysis does not rule out: it does not see every write of `%s`", minus)
	}
	return text + fmt.Sprintf("; the analysis does not decide that the read %s returns is of the same struct's `%s`", first, from)
}

// stilledText says why a way that needs a field to change between two
// reads within one run of a serial function is not decided.
func (r *Result) stilledText(c *feasible.Cond) string {
	st := c.Still
	if st.Entry {
		return r.stilledEntryText(c)
	}
	text := fmt.Sprintf("not decided: the way can run only if `%s` changes between its reads at %s and %s", st.A.Name(), r.lineList(c.Reads[:1]), r.lineList(c.Reads[1:]))
	both, between := "reads both", "the two reads"
	if c.Raise != "" {
		text = fmt.Sprintf("not decided: the way can run only if `%s`, at its read at %s, is below the value `%s` (%s) raised it to", st.A.Name(), r.lineList(c.Reads[1:]), c.Raise, r.lineList(c.Reads[:1]))
		both, between = "raises it and reads it", "the raise and the read"
	}
	if n := c.Near; n != nil && n.Text != "" {
		text += " (it needs " + r.nearText(n) + ")"
	}
	text += fmt.Sprintf("; the path %s within one run of `%s`, %s, and writes it nowhere between them", both, report.ShortName(callpath.Name(st.S)), serialRuns(st))
	if len(st.In) > 0 {
		text += fmt.Sprintf(", and the writes of it at %s are made only within such runs", r.writeLines(st.In))
	}
	text += r.beforeWrites(st)
	return text + "; the analysis does not show that " + r.outWrites(st) + " cannot run between " + between
}

// stillWrites says where every write of a still field is made: "every
// write of it (…) is made within a run of `S`, which …", with, where
// some are also reached from the function whose calls return before
// those runs begin, "and every other (…) within such a run or a call of
// `F`, which returns before the runs it prepares begin (the target
// declares it: …)".
func (r *Result) stillWrites(st *feasible.Still, every string) string {
	in := fmt.Sprintf("within a run of `%s`, %s", report.ShortName(callpath.Name(st.S)), serialRuns(st))
	if len(st.Before) == 0 {
		return fmt.Sprintf("%s (%s) is made %s", every, r.writeLines(st.In), in)
	}
	if len(st.In) == 0 {
		return fmt.Sprintf("%s (%s) is made %s, or within %s", every, r.writeLines(st.Before), in, afterCall(st))
	}
	return fmt.Sprintf("%s (%s) is made %s, and every other (%s) within such a run or %s", every, r.writeLines(st.In), in, r.writeLines(st.Before), afterCall(st))
}

// afterCall names the function whose calls return before a serial
// function's runs begin: "a call of `F`, which returns before the runs
// it prepares begin (the target declares it: why)".
func afterCall(st *feasible.Still) string {
	text := fmt.Sprintf("a call of `%s`, which returns before the runs it prepares begin", report.ShortName(callpath.Name(st.After)))
	if st.AfterWhy != "" {
		return text + " (the target declares it: " + st.AfterWhy + ")"
	}
	return text + " (the target declares it)"
}

// beforeWrites says which writes of a still field are made within the
// serial function's runs or before they begin: ", and those at … only
// within such runs or a call of `F`, which …".
func (r *Result) beforeWrites(st *feasible.Still) string {
	if len(st.Before) == 0 {
		return ""
	}
	return fmt.Sprintf(", and those at %s only within such runs or %s", r.writeLines(st.Before), afterCall(st))
}

// stilledEntryText says why a way that needs a map's entry for a key to
// change between two lookups of it within one run of a serial function
// is not decided.
func (r *Result) stilledEntryText(c *feasible.Cond) string {
	st := c.Still
	text := fmt.Sprintf("not decided: the way can run only if `%s`'s entry for the key it looks up at %s", st.A.Name(), r.lineList(c.Reads[1:]))
	if n := c.Near; n != nil && n.Text != "" {
		text += " (it needs " + r.nearText(n) + ")"
	}
	text += fmt.Sprintf(" is not the one found, on the runs that look the same key up first at %s", r.lineList(c.Reads[:1]))
	text += fmt.Sprintf("; the path makes both lookups within one run of `%s`, %s, and changes none of its entries between them", report.ShortName(callpath.Name(st.S)), serialRuns(st))
	if len(st.In) > 0 {
		text += fmt.Sprintf(", and the writes that change its entries (puts, deletes, new maps) at %s are made only within such runs", r.writeLines(st.In))
	}
	text += r.beforeWrites(st)
	var unshown []string
	if len(st.Out) > 0 {
		unshown = append(unshown, r.outWrites(st)+" cannot run between the two lookups")
	}
	if c.Apart {
		unshown = append(unshown, fmt.Sprintf("the two lookups, which reach `%s` through different fields, are of one struct's map", st.A.Name()))
	}
	if len(c.Unnamed) > 0 {
		var at []string
		for _, u := range c.Unnamed {
			file, line := r.position(u.Pos)
			x := fmt.Sprintf("%s:%d", file, line)
			if u.Text != "" {
				x = fmt.Sprintf("`%s` (%s)", u.Text, x)
			}
			at = append(at, x)
		}
		unshown = append(unshown, fmt.Sprintf("`%s` has an entry for the key the way looks up second on its runs where that key is the one %s sets (state the path reads, which the analysis does not follow to where it was put) and no lookup of it came first", st.A.Name(), joinList(at, "or")))
	}
	text += "; the analysis does not show that " + strings.Join(unshown, ", nor that ")
	if len(c.Refuted) > 0 {
		text += "; were the entry one at both lookups, the way could not run: " + r.reasons(c.Refuted)
	}
	return text
}

// outWrites lists the writes of a still field made outside the serial
// function's runs, each with where its ways in leave them.
func (r *Result) outWrites(st *feasible.Still) string {
	var out []string
	for i, w := range st.Out {
		file, line := r.position(w.Pos)
		x := fmt.Sprintf("%s:%d", file, line)
		if w.Text != "" {
			x = fmt.Sprintf("`%s` (%s:%d", w.Text, file, line)
			var from []string
			for _, f := range st.From[i] {
				from = append(from, "`"+report.ShortName(callpath.Name(f))+"`")
			}
			if len(from) > 0 {
				x += ", reached outside those runs through " + joinList(from, "or")
			}
			x += ")"
		}
		out = append(out, x)
	}
	return joinList(out, "and")
}

// serialRuns says how a serial function's runs come: "whose runs come
// one at a time through the scheduled job hand-off, each ending before the
// next begins".
func serialRuns(st *feasible.Still) string {
	if st.By == "" {
		return "whose runs come one at a time, each ending before the next begins"
	}
	return "whose runs come one at a time through the " + st.By + " hand-off, each ending before the next begins"
}

// writeLines lists writes as file:line, joined as a sentence does.
func (r *Result) writeLines(ws []feasible.InvariantWrite) string {
	var at []string
	for _, w := range ws {
		file, line := r.position(w.Pos)
		at = append(at, fmt.Sprintf("%s:%d", file, line))
	}
	return joinList(at, "and")
}

// referencedText says why a way that needs a key missing from a map,
// where the key is a value another map holds, is not decided.
// readBackText says why a way that needs a key missing from a map, the
// key ranged from a map the path filled from what the server holds, is
// not decided.
func (r *Result) readBackText(c *feasible.Cond) string {
	bk := c.Back
	text := fmt.Sprintf("not decided: the way can run only if the map it looks up at %s has no entry for the key", r.lineList(c.Reads[1:]))
	if n := c.Near; n != nil && n.Text != "" {
		text += " (it needs " + r.nearText(n) + ")"
	}
	var fills []string
	for i, f := range bk.Fills {
		fills = append(fills, fmt.Sprintf("`%s` (%s)", f, r.lineList(bk.FillAt[i:i+1])))
	}
	fill := "fills"
	if len(fills) > 1 {
		fill = "fill"
	}
	text += fmt.Sprintf(", a value of `%s` ranged over at %s, a map the path made (%s) and handed to %s, which %s it from what it is given of what the server holds (data read back from storage, such as each stored key's lease): whether that data can name a key the map lacks is not decided",
		bk.Text, r.lineList(c.Reads[:1]), r.lineList([]token.Pos{bk.Made}), joinList(fills, "and"), fill)
	return text
}

// ownedFields names fields fs of the struct type owner names, each
// quoted as code ("`T.F`"), joined with "and".
func ownedFields(owner string, fs []*types.Var) string {
	var names []string
	for _, f := range fs {
		name := f.Name()
		if owner != "" {
			name = owner + "." + name
		}
		names = append(names, "`"+name+"`")
	}
	return joinList(names, "and")
}

func (r *Result) rewrittenText(c *feasible.Cond) string {
	rw := c.Rewrite
	field := strings.Trim(ownedFields(rw.Owner, []*types.Var{rw.Field}), "`")
	// The fields a filter rewrites that the test may read, each named.
	fields := ownedFields(rw.Owner, rw.Fields)
	if len(rw.Fields) == 0 {
		fields = "`" + field + "`"
	}
	at := "`" + r.lineList([]token.Pos{rw.At}) + "`"
	if rw.UnderText != "" {
		at += ", called under `" + rw.UnderText + "` (`" + r.lineList(rw.Under) + "`)"
	}
	test := fmt.Sprintf("`%s` %v", c.Text, c.Want)
	switch {
	case rw.Check != "" && rw.Fails:
		test = "`" + rw.Check + "` to return an error"
	case rw.Check != "":
		test = "`" + rw.Check + "` to return no error"
	}
	filterTest := ""
	if rw.FilterAt.IsValid() {
		filterTest = " (its own test is at `" + r.lineList([]token.Pos{rw.FilterAt}) + "`)"
	}
	var what string
	switch rw.Kind {
	case feasible.KindUnlinked:
		what = fmt.Sprintf("a filter of the %s of what it is handed%s; the element the test reads is not shown to be read from that (it may be read from a struct the filter does not reach, such as one held in an element it keeps), so whether the filter dropped it is not decided", fields, filterTest)
	case feasible.KindEarly:
		what = fmt.Sprintf("a filter of the %s of what it is handed%s, in place; the element the test reads is of the slice as it was read before the call, whose elements the filter may have moved (the ones past what it keeps stay as they were): what the test reads there is not followed", fields, filterTest)
	case feasible.KindRecursive:
		what = fmt.Sprintf("a filter which leaves in the %s of what it is handed no element that makes `%s` %v%s; but `%s`, a function the way runs from the call to the test, calls itself, so the element the test reads may be one of a struct held in an element the filter keeps (a transaction nested in another), which the filter does not reach: whether the way needs the filter not called is not decided", fields, c.Text, c.Want, filterTest, report.ShortName(callpath.Name(rw.Through)))
	case feasible.KindUnnamed:
		what = fmt.Sprintf("a filter which leaves in the %s of what it is handed no element that makes `%s` %v%s, called under branches the analysis does not name as one condition: whether the way can avoid it is not decided", fields, c.Text, c.Want, filterTest)
	case feasible.KindFails:
		what = fmt.Sprintf("a filter of the %s of what it is handed%s: the check then reads what the filter leaves, and whether it fails on that is not decided", fields, filterTest)
	default:
		what = "which rewrites `" + field + "` from what it held, a field the test reads (of that struct or of another of its type): what the call leaves there is not followed"
		if rw.Others {
			what += ", nor what other code the way may run before the test, which may write it too, leaves"
		}
		if rw.Looped {
			what = "which rewrites `" + field + "` from what it held, a field the test reads (of that struct or of another of its type), in a loop with the way's step and not before it on every pass: what the test then reads, the field as it was or what an earlier pass's call left, is not followed"
		}
	}
	return fmt.Sprintf("not decided: the way needs %s (`%s`), and before that test it may call `%s` (%s), %s",
		test, r.lineList([]token.Pos{c.Pos}), rw.Call, at, what)
}

// filteredText says why a way's test of an element cannot hold: a
// filter the way calls on every run, before the test, leaves no element
// with the outcome the test needs.
func (r *Result) filteredText(c *feasible.Cond) string {
	rw := c.Rewrite
	return fmt.Sprintf("`%s` cannot be %v on this path: before that test the way calls `%s` (`%s`) on every run, a filter that leaves in the %s of what it is handed no element that makes it %v (its test at `%s` drops each one that does; it does not reach slices held in the elements it keeps), and the element the test reads is one of those",
		c.Text, c.Want, rw.Call, r.lineList([]token.Pos{rw.At}), ownedFields(rw.Owner, rw.Fields), c.Want, r.lineList([]token.Pos{rw.FilterAt}))
}

func (r *Result) referencedText(c *feasible.Cond) string {
	mr := c.Ref
	a, b := mr.A.Name(), mr.B.Name()
	text := fmt.Sprintf("not decided: the way can run only if `%s` has no entry for the key it looks up at %s", b, r.lineList(c.Reads[1:]))
	if n := c.Near; n != nil && n.Text != "" {
		text += " (it needs " + r.nearText(n) + ")"
	}
	text += fmt.Sprintf(", a value of `%s` read at %s", a, r.lineList(c.Reads[:1]))
	if n := c.NotZero; n != nil {
		text += ", which the way needs non-zero (" + r.nearText(n) + ")"
	}
	var parts []string
	parts = append(parts, "every put into `"+a+"` ("+r.writeLines(mr.Puts)+") puts a value that a branch before it found to be a key of `"+b+"` ("+r.lineList(mr.Guards)+")")
	if mr.Fresh {
		parts = append(parts, "the field `"+a+"` is otherwise only set to new, empty maps (deletes from it add no value)")
	}
	entry := ""
	if c.RefNil {
		parts = append(parts, "every put into `"+b+"` ("+r.writeLines(mr.BPuts)+") stores a value that is not nil")
		entry = ", with an entry that is not nil,"
	}
	text += "; " + joinList(parts, "and")
	text += fmt.Sprintf("; so each value put into `%s` was a key of `%s`%s when that branch tested it; whether it still is one when the way looks it up is not decided", a, b, entry)
	if len(mr.Emptied) > 0 {
		var at []string
		for _, w := range mr.Emptied {
			file, line := r.position(w.Pos)
			at = append(at, fmt.Sprintf("`%s` (%s:%d)", w.Text, file, line))
		}
		which := "which removes every key, gives"
		if len(at) > 1 {
			which = "which remove every key, give"
		}
		text += fmt.Sprintf(" (%s, %s `%s` a new, empty map too)", joinList(at, "and"), which, a)
	}
	if len(mr.Removes) == 0 {
		return text + fmt.Sprintf(": nothing else in the loaded code removes a key from `%s`, but the analysis does not show that both lookups are of one struct's maps", b)
	}
	var rm []string
	for _, w := range mr.Removes {
		file, line := r.position(w.Pos)
		if w.Text != "" {
			rm = append(rm, fmt.Sprintf("`%s` (%s:%d)", w.Text, file, line))
		} else {
			rm = append(rm, fmt.Sprintf("%s:%d", file, line))
		}
	}
	verb := "removes"
	if len(rm) > 1 {
		verb = "remove"
	}
	return text + fmt.Sprintf(": the analysis does not show that %s %s only keys that no value of `%s` names, nor that both lookups are of one struct's maps", joinList(rm, "and"), verb, a)
}

// nearText is what a way needs of condition n, said after "it needs":
// "`a < b`", "not `a < b`", "`x` not empty", with what the condition's
// note adds.
func (r *Result) nearText(n *feasible.Cond) string {
	switch {
	case n.Ranged != "":
		return fmt.Sprintf("`%s` not empty%s", n.Text, r.pinNote(n))
	case n.Case:
		return fmt.Sprintf("the select taking its case `%s`%s", n.Text, r.pinNote(n))
	case n.Want:
		return fmt.Sprintf("`%s`%s", n.Text, r.pinNote(n))
	}
	return fmt.Sprintf("not `%s`%s", n.Text, r.pinNote(n))
}

// unboundedWrites lists writes with what each stores: "`x = <-c`
// (file:line), a value received from a channel, sent only by …", joined
// as a sentence does, or by sep when it is set.
func (r *Result) unboundedWrites(ws []feasible.InvariantWrite, sep string) string {
	var un []string
	for _, w := range ws {
		file, line := r.position(w.Pos)
		s := fmt.Sprintf("%s:%d", file, line)
		if w.Text != "" {
			s = fmt.Sprintf("`%s` (%s)", w.Text, s)
		}
		s += ", " + w.Why
		if len(w.Sends) > 0 {
			var sends []string
			for _, x := range w.Sends {
				file, line := r.position(x.Pos)
				sends = append(sends, fmt.Sprintf("`%s` (%s:%d)", x.Text, file, line))
			}
			s += ", sent only by " + joinList(sends, "and")
		}
		un = append(un, s)
	}
	if sep != "" {
		return strings.Join(un, sep)
	}
	return joinList(un, "and")
}

// joinList joins parts as a sentence does: "a, b and c".
func joinList(parts []string, conj string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " " + conj + " " + parts[len(parts)-1]
}

// invText is an invariant as a comparison of its fields.
func invText(inv *feasible.Invariant) string {
	switch {
	case inv.Floor():
		return fmt.Sprintf("`%s >= 0`", inv.A.Name())
	case inv.Grows:
		return fmt.Sprintf("`%s` never goes down", inv.A.Name())
	case inv.C == 0:
		return fmt.Sprintf("`%s <= %s`", inv.A.Name(), inv.B.Name())
	case inv.C < 0:
		return fmt.Sprintf("`%s < %s`", inv.A.Name(), inv.B.Name())
	}
	return fmt.Sprintf("`%s <= %s + %d`", inv.A.Name(), inv.B.Name(), inv.C)
}

// shortType is a type's name without its package's path.
func shortType(t string) string {
	prefix := ""
	for strings.HasPrefix(t, "*") {
		prefix += "*"
		t = t[1:]
	}
	if i := strings.LastIndex(t, "/"); i >= 0 {
		t = t[i+1:]
	}
	return prefix + t
}

// reportReasons are the reasons as report data, each with its text.
func (r *Result) reportReasons(rs []feasible.Reason) []report.Reason {
	var out []report.Reason
	for _, x := range rs {
		text := r.reasons([]feasible.Reason{x})
		if text == "" {
			continue
		}
		rr := report.Reason{Kind: string(x.Kind), Text: text}
		rr.File, rr.Line = r.position(x.Pos)
		if x.Cond != nil {
			c := r.cond(x.Cond)
			rr.Cond = &c
		}
		for _, v := range x.Via {
			rr.Via = append(rr.Via, v.Text)
		}
		if len(x.Via) > 0 {
			rr.Returned = x.Via[len(x.Via)-1].Returned
		}
		if x.Invariant != nil {
			rr.Invariant = strings.ReplaceAll(invText(x.Invariant), "`", "")
		}
		out = append(out, rr)
	}
	return out
}

// invariants are the store's invariants as report data.
func (r *Result) invariants(invs []*feasible.Invariant) []report.Invariant {
	var out []report.Invariant
	for _, inv := range invs {
		ri := report.Invariant{Relation: strings.ReplaceAll(invText(inv), "`", "")}
		if s := structOf(inv.A); s != "" {
			ri.Struct = s
		}
		if inv.Lock != nil {
			ri.Lock = inv.Lock.Name()
		}
		for _, w := range inv.Writes {
			file, line := r.position(w.Pos)
			fn := ""
			if w.Func != nil {
				fn = callpath.Name(w.Func)
			}
			ri.Writes = append(ri.Writes, report.InvariantWrite{File: file, Line: line, Function: fn, Why: w.Why})
		}
		sort.SliceStable(ri.Writes, func(i, j int) bool {
			a, b := ri.Writes[i], ri.Writes[j]
			if a.File != b.File {
				return a.File < b.File
			}
			return a.Line < b.Line
		})
		out = append(out, ri)
	}
	return out
}

// structOf names the struct type that declares field f: "mvcc.store".
func structOf(f *types.Var) string {
	if f.Pkg() == nil {
		return ""
	}
	scope := f.Pkg().Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		st, ok := tn.Type().Underlying().(*types.Struct)
		if !ok {
			continue
		}
		for i := 0; i < st.NumFields(); i++ {
			if st.Field(i) == f {
				return f.Pkg().Name() + "." + tn.Name()
			}
		}
	}
	return ""
}

// testsText says tests of the code taken one way: "`a > 0` is false
// (file:line) and `b` holds (file:line)".
func (r *Result) testsText(ts []feasible.Test) string { return r.testsJoined(ts, "and") }

// testsJoined is testsText with the tests joined by conj.
func (r *Result) testsJoined(ts []feasible.Test, conj string) string {
	var parts []string
	for _, t := range ts {
		if len(t.Either) > 0 {
			// A join inside the alternative: one of its ways in.
			var alts []string
			for i, a := range t.Either {
				if i == 0 && !a.Asked && a.Passes == "" && !a.NoError {
					// The first as the way's own conditions are worded:
					// "not `x`", "`x`".
					first := "`" + a.Text + "`"
					if !a.Want {
						first = "not " + first
					}
					if file, line := r.position(a.Pos); file != "" {
						first += fmt.Sprintf(" (`%s:%d`)", file, line)
					}
					if len(a.Under) > 0 {
						first += " and " + r.testsJoined(a.Under, "and")
					}
					alts = append(alts, first)
					continue
				}
				alts = append(alts, r.testsJoined([]feasible.Test{a}, "and"))
			}
			parts = append(parts, "(either "+strings.Join(alts, ", or ")+")")
			continue
		}
		how := "holds"
		if !t.Want {
			how = "is false"
		}
		part := fmt.Sprintf("`%s` %s", t.Text, how)
		if t.Asked {
			part = fmt.Sprintf("the request makes `%s` %v", t.Text, t.Want)
		}
		if t.Passes != "" {
			part = fmt.Sprintf("passes `%s`", t.Passes)
		}
		if t.NoError {
			part = fmt.Sprintf("`%s` returns no error", t.Text)
		}
		of := ""
		if t.Of != "" {
			of = fmt.Sprintf(", of the error `%s` returned", t.Of)
		}
		at := t.Pos
		if (t.Passes != "" || t.NoError) && t.CallAt.IsValid() {
			at = t.CallAt // a call is cited where it is made
		}
		if len(t.More) > 0 {
			// One call made at several places, any of which the way may
			// pass: each is named, as one or the other.
			part += fmt.Sprintf(" (`%s`%s)", r.linesJoined(append([]token.Pos{at}, t.More...), "or"), of)
		} else if file, line := r.position(at); file != "" {
			part += fmt.Sprintf(" (`%s:%d`%s)", file, line, of)
		} else if of != "" {
			part += " (" + of[2:] + ")"
		}
		if len(t.Under) > 0 {
			part += " and " + r.underJoined(t.Under)
		}
		parts = append(parts, part)
	}
	return joinList(parts, conj)
}

// underJoined is what an alternative takes besides its last branch, each
// joined by "and" with no comma between, so that the alternative reads
// as one (a comma would end it).
func (r *Result) underJoined(ts []feasible.Test) string {
	var parts []string
	for _, t := range ts {
		parts = append(parts, r.testsJoined([]feasible.Test{t}, "and"))
	}
	return strings.Join(parts, " and ")
}

// pinNote says, for a condition of state, the operands the path leaves
// one value and what the condition then asks of the state: ", where `rev`
// can only be 0 on the runs that take it (…): so only if `0 > curRev`"; "" when it
// has none.
func (r *Result) pinNote(c *feasible.Cond) string {
	if cr := c.Configured; cr != nil && cr.Config != nil {
		// A value a sender computed less a field of the configuration.
		first := "its first operand"
		if cr.First != "" {
			first = "`" + cr.First + "`"
		}
		at := ""
		if len(cr.Writes) > 0 {
			at = " (`" + r.lineList([]token.Pos{cr.Writes[0].Pos}) + "`)"
		}
		file, line := r.position(cr.Config.Pos)
		return fmt.Sprintf(", where the sender handed off `%s`%s: %s is at most an earlier read of `%s`, which never goes down%s, so this holds only with `%s` below 0, the configuration's `%s` (`%s:%d`, in `%s`), which may hold any value (what fills the configuration, a program that makes the server or the parsing of a command line, is not followed)",
			cr.Expr, at, first, cr.From.Name(), r.assumedOrder(cr), cr.Minus.Name(), cr.Config.Text, file, line, report.ShortName(callpath.Name(cr.Config.Func)))
	}
	if d := c.Drop; d != nil {
		// A branch the way needs not taken, so as not to call a filter
		// that leaves no element its later test needs.
		return fmt.Sprintf(" (otherwise `%s`, at `%s`, leaves in the %s of what it is handed no element that makes `%s` %v, its test at `%s` dropping each one that does, though it does not reach slices held in the elements it keeps; the way needs one at `%s`)",
			d.Call, r.lineList([]token.Pos{d.At}), ownedFields(d.Owner, d.Fields), d.Test, d.Want, r.lineList([]token.Pos{d.FilterAt}), r.lineList([]token.Pos{d.TestAt}))
	}
	if len(c.Or) > 0 {
		// A join the way comes into by one of several branches, each with
		// the branches of state it takes from where they part.
		under := ""
		if len(c.Under) > 0 {
			under = " and " + r.underJoined(c.Under)
		}
		return under + ", or else " + r.testsJoined(c.Or, "or")
	}
	if c.Inside != "" {
		return fmt.Sprintf(", in `%s`, whose result the way tests", c.Inside)
	}
	if c.Entry != "" {
		// `ok` of `v, ok := m[k]`: what it asks.
		return fmt.Sprintf(", whether `%s` finds an entry", c.Entry)
	}
	if c.Ranged != "" {
		// A pass of a range loop over a slice or map of state: the loop,
		// named by its line where that is not the condition's.
		if !c.Loop.IsValid() {
			return ", ranged over by a loop whose body the way runs"
		}
		file, line := r.position(c.Loop)
		if cf, cl := r.position(c.Pos); cf != file || cl != line {
			return fmt.Sprintf(", ranged over by the loop at `%s:%d`, whose body the way runs", file, line)
		}
		return ", ranged over by the loop there, whose body the way runs"
	}
	if m := c.Made; m != nil {
		// A branch no step of the way takes: the one under which the
		// value the way calls a method of was made.
		t := m.Type.Pkg().Name() + "." + m.Type.Name()
		if m.Out && len(m.Past) > 0 && m.Blocked != nil {
			// The same way through the wrapper's method, checked beside
			// this one, cannot pass the test.
			b := m.Blocked
			test := r.testsText([]feasible.Test{{Text: b.Text, Pos: b.Pos, Want: b.Want}})
			return fmt.Sprintf(", the branch under which `%s` sets `%s` to a `%s`, whose `%s` cannot lead on to this way (not taken when it last set the field): it leads on only if %s, which cannot hold on the same way through that `%s`",
				report.ShortName(callpath.Name(m.Maker)), m.Field.Name(), t, m.Method, test, m.Method)
		}
		if m.Out && len(m.Past) > 0 {
			thatTest := "that test"
			if len(m.Past) > 1 {
				thatTest = "those tests"
			}
			return fmt.Sprintf(" when `%s` last set `%s`, or else %s in the `%s` the way then calls (under that branch `%s` sets `%s` to a `%s`, whose `%s` leads on to this way only past %s, which the analysis does not decide on this way)",
				report.ShortName(callpath.Name(m.Maker)), m.Field.Name(), r.testsText(m.Past), m.Method,
				report.ShortName(callpath.Name(m.Maker)), m.Field.Name(), t, m.Method, thatTest)
		}
		if m.Out {
			return fmt.Sprintf(", the branch under which `%s` sets `%s` to a `%s`, whose `%s` cannot lead on to this way (not taken when it last set the field)", report.ShortName(callpath.Name(m.Maker)), m.Field.Name(), t, m.Method)
		}
		if m.Kept {
			return fmt.Sprintf(", which keeps that `%s` in the field that holds it (the other way replaces it, or puts in front of it a value whose method does not lead on to it)", t)
		}
		return fmt.Sprintf(", the only branch under which a `%s` is made (by `%s`), whose method this way calls through an interface", t, report.ShortName(m.Maker.String()))
	}
	if len(c.Pinned) == 0 {
		return ""
	}
	var b strings.Builder
	put := c.Text
	for _, p := range c.Pinned {
		if p.Fixed {
			fmt.Fprintf(&b, ", where `%s` is %d on this path", p.Name, p.Value)
			if file, line := r.position(p.At); file != "" {
				fmt.Fprintf(&b, " (fixed at %s:%d)", file, line)
			}
		} else {
			fmt.Fprintf(&b, ", where `%s` can only be %d on the runs that take it", p.Name, p.Value)
			if rs := r.reasons(p.Because); rs != "" {
				b.WriteString(" (" + rs + ")")
			}
		}
		put = substitute(put, p.Name, fmt.Sprint(p.Value))
	}
	if put != c.Text {
		not := ""
		if !c.Want {
			not = "not "
		}
		fmt.Fprintf(&b, ": so only if %s`%s`", not, put)
	}
	return b.String()
}

// substitute puts value for operand name in comparison text ("rev >
// curRev" with rev 0 is "0 > curRev"): name must be a whole operand, the
// first or the last; the text is left as it is otherwise.
func substitute(text, name, value string) string {
	switch {
	case strings.HasPrefix(text, name+" "):
		return value + text[len(name):]
	case strings.HasSuffix(text, " "+name):
		return text[:len(text)-len(name)] + value
	}
	return text
}

// unloadedNote says, after a call whose error a way needs, that none of
// the code it runs is loaded (Cond.Unloaded): "; whether it can fail is
// not known: none of the code it may run is loaded from source (…)".
func unloadedNote(where string) string {
	if where == "" {
		return ""
	}
	return "; " + report.UnloadedText(where)
}
