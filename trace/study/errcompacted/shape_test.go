package errcompacted_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/srctrace/srctrace/annotate"
	"github.com/srctrace/srctrace/trace"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study/errcompacted"
)

// Limits of the notes a student reads (issue 11): the answer on the first
// screen, the whole in a sitting.
const (
	// The answer's first screen: the prediction in one sentence and its
	// items, the timing, the claims and the corrected citation, which
	// issue 19's review lengthened with the lines that put each watch in
	// its set and pace the sync loop (6 at v3.7.3, 8 at v3.6.0), and the
	// fresh review after it with the client's log, conversion and close
	// on the way to what etcdctl prints (3 more), and the review after
	// that with what a pass does to a behind watcher's progress and its
	// moves to synced (4 more) and the timing by hand in the prediction.
	answerLines = 78
	notesLines  = 450
)

// TestNotesShape: in each stored report of the analysis, the answer is the
// notes' first section, on the first screen of the Markdown; it answers the
// exercise's prediction first, then gives the timing by hand, the claims
// (every claim the analysis decided, with its outcome) and the corrected
// citation; its sentences are short; each behaviour the exercise runs is
// drawn in exactly one diagram outside the appendix; no position is cited
// more than six times; the lessons are the exercise's; every mark of a
// table is in its legend; and the notes stay under their length.
func TestNotesShape(t *testing.T) {
	for _, in := range stored(t) {
		if strings.HasPrefix(filepath.Base(in), "lab-") {
			continue
		}
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var rep report.Report
			if err := json.Unmarshal(data, &rep); err != nil {
				t.Fatal(err)
			}
			checkShape(t, &rep)
		})
	}
}

// TestNotesShapeReleases: the notes of v3.6.0 and v3.7.3, composed from a
// fresh analysis, keep the same shape.
func TestNotesShapeReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("loads real etcd releases")
	}
	for _, v := range []string{"v3.6.0", "v3.7.3"} {
		t.Run(v, func(t *testing.T) {
			res, err := trace.Run(context.Background(), trace.Options{Study: errcompacted.Study, Version: v})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := res.Report()
			if err != nil {
				t.Fatal(err)
			}
			rep.Notes = errcompacted.Notes(rep)
			checkShape(t, rep)
			// The sync loop's eviction sends the compaction revision as a
			// field (watcher_group.go:257 at v3.7.3, :253 at v3.6.0), and
			// its response carries no events: no way across it reaches
			// a use. Its replay of a watcher's events does, across the
			// watch channel: the send loop reads each event's previous
			// value for a watch that asked for it (watch.go:450-452 at
			// v3.7.3), at a revision the compaction may have passed.
			var md bytes.Buffer
			if err := annotate.RenderDoc(&md, "markdown", rep.Notes, rep.Etcd); err != nil {
				t.Fatal(err)
			}
			lesson := ""
			for _, l := range strings.Split(md.String(), "\n") {
				if strings.HasPrefix(l, "- From `sync-loop` to [read step 11](#read): no call path, only a way across the watch channel:") {
					lesson = l
				}
			}
			if !strings.Contains(lesson, "then across it at") || !strings.Contains(lesson, "`needPrevKV`") || strings.Contains(lesson, "watch eviction") {
				t.Errorf("the sync loop's lesson = %q, want a way across the watch channel that needs needPrevKV, and none across the eviction", lesson)
			}
		})
	}
}

func checkShape(t *testing.T, r *report.Report) {
	t.Helper()
	rep := *r
	{
		{
			d := rep.Notes
			if d == nil || len(d.Sections) == 0 {
				t.Fatal("no notes")
			}
			answer := d.Sections[0]
			if answer.ID != "answer" || answer.Appendix {
				t.Fatalf("the first section is %q (appendix %v), want the answer", answer.ID, answer.Appendix)
			}

			// Every claim, with its verdict, in the answer's table.
			var table *report.Table
			for _, b := range answer.Blocks {
				if b.Table != nil {
					table = b.Table
				}
			}
			if table == nil {
				t.Fatal("the answer has no table of claims")
			}
			if rep.Signal == nil || len(rep.Signal.Claims) == 0 {
				t.Fatal("the report has no claims")
			}
			// A row holds the claims decided by the same fact, each quoted.
			rows := map[string]string{}
			for _, r := range table.Rows {
				for _, says := range strings.SplitAfter(plain(r[1].Text), "” ") {
					rows[strings.TrimSpace(says)] = plain(r[2].Text)
				}
				// A claim that holds in part says which part holds and
				// which does not, as the legend promises.
				if why := plain(r[3].Text); plain(r[2].Text) == report.OutcomePartly &&
					(!strings.Contains(why, "Holds: ") || !strings.Contains(why, "Does not hold: ")) {
					t.Errorf("a claim held in part does not say which part holds and which does not: %q", why)
				}
			}
			for _, c := range rep.Signal.Claims {
				want := c.Outcome
				got, ok := rows["“"+c.Says+"”"]
				switch {
				case !ok:
					t.Errorf("the answer leaves out the claim %q", c.Says)
				case got != want:
					t.Errorf("the answer says %q of %q, the analysis %q", got, c.Says, want)
				}
			}
			if len(rows) != len(rep.Signal.Claims) {
				t.Errorf("the answer quotes %d claims for %d", len(rows), len(rep.Signal.Claims))
			}

			// Each behaviour the exercise runs, drawn once.
			var drawn []string
			var walk func([]report.Section)
			walk = func(ss []report.Section) {
				for _, s := range ss {
					if s.Appendix {
						continue
					}
					for _, b := range s.Blocks {
						if b.Diagram != nil {
							drawn = append(drawn, s.ID)
						}
					}
					walk(s.Sections)
				}
			}
			walk(d.Sections)
			var exercise []report.Behaviour
			for _, b := range rep.Behaviours {
				if !b.Probe {
					exercise = append(exercise, b)
				}
			}
			// The eviction's way, with the reopen's differences marked in
			// it, and the read's: one diagram each.
			if want := []string{"way", "read"}; strings.Join(drawn, ",") != strings.Join(want, ",") {
				t.Errorf("diagrams in sections %q, want %q (for %d behaviours)", drawn, want, len(exercise))
			}
			// Every watch is accepted, the evicted one too: the create
			// response is a step of the one way, not a difference of the
			// reopen's, and the way's lead says the reopen takes it.
			var created, reopen bool
			for _, s := range d.Sections {
				for _, b := range s.Blocks {
					if s.ID == "way" && b.Diagram != nil {
						for _, n := range b.Diagram.Nodes {
							created = created || n.Kind == "create"
						}
					}
					if s.ID == "way" && b.Para != nil {
						for _, sp := range b.Para {
							reopen = reopen || sp.Ref == "reopen"
						}
					}
				}
			}
			if !created || !reopen {
				t.Errorf("the eviction's way: a create step %v, a reference to the reopen %v", created, reopen)
			}

			// Lengths, in the Markdown a student reads.
			var md bytes.Buffer
			if err := annotate.RenderDoc(&md, "markdown", d, rep.Etcd); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(md.String(), "\n")
			end := len(lines)
			for i, l := range lines {
				if i > 0 && strings.HasPrefix(l, "## ") && !strings.Contains(l, `id="answer"`) {
					end = i
					break
				}
			}
			if end > answerLines {
				t.Errorf("the answer ends at line %d of the Markdown, past the first screen (%d)", end, answerLines)
			}
			limit := notesLines
			if rep.Lab != nil || rep.Observe != nil {
				// The lab's captures and coverage's marks come on top.
				limit += 100
			}
			if len(lines) > limit {
				t.Errorf("the notes are %d lines, over %d", len(lines), limit)
			}
			t.Logf("answer: %d lines; notes: %d lines", end, len(lines))

			answerFirst(t, &rep)
			shortSentences(t, answer, maxWords)
			for _, s := range body(d) {
				shortSentences(t, s, maxWords)
			}
			citedAtMost(t, md.String(), maxCitesPerPosition)
			ownLessons(t, &rep)
			legends(t, d)
			if rep.Observe == nil && strings.Contains(md.String(), "--observe") {
				t.Errorf("the notes of a run without coverage mention --observe")
			}
			codeAsCode(t, md.String())
			declarationsMarked(t, &rep)
			oneStepPerLine(t, d)
			readLink(t, &rep)
		}
	}
}

// Readability limits of the notes (issue 19).
const (
	maxWords            = 45 // words in a sentence of the answer
	maxCitesPerPosition = 6  // citations of one file:line in the notes
)

// answerFirst: the answer's first screen holds, in this order, the
// exercise's prediction answered in its own terms (the sets verdict's
// facts, in items), the timing by hand (a paragraph, or the prediction's
// last item), the claims table and the corrected citation.
func answerFirst(t *testing.T, rep *report.Report) {
	t.Helper()
	var sets, byHand, prediction *report.Fact
	for _, v := range rep.Signal.Verdicts {
		for i, f := range v.Facts {
			switch {
			case v.ID == "sets" && f.Key == errcompacted.FactPrediction:
				prediction = &v.Facts[i]
			case v.ID == "sets" && sets == nil && f.Key != errcompacted.FactSetWords: // its words go with the prediction
				sets = &v.Facts[i]
			case v.ID == "replay" && f.Key == errcompacted.FactByHand:
				byHand = &v.Facts[i]
			}
		}
	}
	if sets == nil || byHand == nil || prediction == nil {
		t.Fatalf("the analysis gives no prediction (%v, in one sentence %v) or no timing by hand (%v)", sets != nil, prediction != nil, byHand != nil)
	}
	answer := rep.Notes.Sections[0]
	// The answer opens with the prediction, one sentence, before any
	// detail: the first block's first sentence after its label.
	if len(answer.Blocks) == 0 || answer.Blocks[0].Para == nil {
		t.Fatal("the answer does not open with a paragraph")
	}
	opening := sentences(plain(answer.Blocks[0].Para))
	want := plain(report.Sentence(prediction.Text, prediction.Lines))
	if len(opening) < 2 || opening[1] != want || len(sentences(want)) != 1 {
		t.Errorf("the answer opens with %q, want its label, then the prediction in one sentence: %q", opening, want)
	}
	at := map[string]int{}
	for i, b := range answer.Blocks {
		hand := plain(report.Sentence(byHand.Text, byHand.Lines))[:20]
		switch {
		case b.List != nil && len(b.List.Items) > 0 && strings.HasPrefix(plain(b.List.Items[0]), plain(report.Sentence(sets.Text, sets.Lines))[:20]):
			at["prediction"] = i + 1
			if last := b.List.Items[len(b.List.Items)-1]; len(b.List.Items) > 1 && strings.Contains(plain(last), hand) {
				at["timing"] = i + 1
			}
		case b.Para != nil && strings.Contains(plain(b.Para), hand):
			at["timing"] = i + 1
		case b.Table != nil:
			at["claims"] = i + 1
		case b.Code != nil:
			at["citation"] = i + 1
		}
	}
	order := []string{"prediction", "timing", "claims", "citation"}
	for i, k := range order {
		if at[k] == 0 {
			t.Errorf("the answer has no %s", k)
		} else if i > 0 && at[order[i-1]] > at[k] {
			t.Errorf("the answer's %s comes before its %s", k, order[i-1])
		}
	}
}

// sentences splits text into sentences: at a full stop, a question or
// exclamation mark followed by a space and a capital letter, a digit, a
// quote or a bracket. A word in lower case after a full stop ("…). etcdctl
// prints") does not start a sentence a reader sees: it is counted with the
// one before.
func sentences(s string) []string {
	var out []string
	start := 0
	r := []rune(s)
	for i := 0; i < len(r); i++ {
		if (r[i] == '.' || r[i] == '?' || r[i] == '!') && i+2 < len(r) && r[i+1] == ' ' && (unicode.IsUpper(r[i+2]) || unicode.IsDigit(r[i+2]) || strings.ContainsRune("\"“`[(", r[i+2])) {
			out = append(out, string(r[start:i+1]))
			start = i + 2
		}
	}
	if start < len(r) {
		out = append(out, string(r[start:]))
	}
	return out
}

// shortSentences: no sentence of the section, in paragraphs, lists and
// table cells, is longer than max words (a citation is one word).
func shortSentences(t *testing.T, s report.Section, max int) {
	t.Helper()
	check := func(x report.Text) {
		for _, sn := range sentences(plainCited(x)) {
			if n := len(strings.Fields(sn)); n > max {
				t.Errorf("a sentence of %d words in %q: %q", n, s.Title, sn)
			}
		}
	}
	for _, b := range s.Blocks {
		switch {
		case b.Para != nil:
			check(b.Para)
		case b.List != nil:
			for _, it := range b.List.Items {
				check(it)
			}
		case b.Table != nil:
			for _, row := range b.Table.Rows {
				for _, c := range row {
					check(c.Text)
				}
			}
		}
	}
}

// plainCited is plain with each citation as one word, and code in
// backticks, so that a sentence that begins with code starts one.
func plainCited(x report.Text) string {
	var b strings.Builder
	for _, s := range x {
		switch {
		case s.Loc != nil && s.Text == "":
			fmt.Fprintf(&b, "%s:%d", s.Loc.File, s.Loc.Line)
		case s.Code:
			b.WriteString("`" + s.Text + "`")
		default:
			b.WriteString(s.Text)
		}
	}
	return b.String()
}

// body are the sections of the notes after the answer, outside the
// appendix, each with its subsections: where a student reads how the
// behaviours come about (the way, why the behind watcher dies, the reopen,
// the client's part, the read, the comparisons that decide); and, of the
// appendix, how long the replay lasts, which the answer refers to.
func body(d *report.Doc) []report.Section {
	var out []report.Section
	var walk func([]report.Section)
	walk = func(ss []report.Section) {
		for _, s := range ss {
			if s.Appendix && s.ID != "replay" {
				continue
			}
			out = append(out, s)
			walk(s.Sections)
		}
	}
	walk(d.Sections[1:])
	return out
}

var position = regexp.MustCompile(`[A-Za-z0-9_./-]+\.go:[0-9]+`)

// citedAtMost: no file:line is written more than max times in the notes
// as a student reads them (the Markdown, diagrams and code included).
func citedAtMost(t *testing.T, md string, max int) {
	t.Helper()
	n := map[string]int{}
	for _, m := range position.FindAllString(md, -1) {
		n[m]++
	}
	for p, c := range n {
		if c > max {
			t.Errorf("%s is cited %d times, over %d", p, c, max)
		}
	}
}

// ownLessons: the matrix's lessons are for the cells of the exercise's own
// entries only.
func ownLessons(t *testing.T, rep *report.Report) {
	t.Helper()
	own := map[string]bool{}
	for _, b := range rep.Behaviours {
		if !b.Probe {
			for _, e := range b.Entries {
				own[e] = true
			}
		}
	}
	for _, s := range rep.Notes.Sections {
		if s.ID != "uses" {
			continue
		}
		for _, b := range s.Blocks {
			if b.List == nil {
				continue
			}
			for _, it := range b.List.Items {
				for _, sp := range it {
					if sp.Code && !own[sp.Text] && !strings.Contains(sp.Text, "(") {
						t.Errorf("a lesson for %q, which is no entry of the exercise's behaviours: %q", sp.Text, plain(it))
					}
					if sp.Loc != nil || (!sp.Code && strings.Contains(sp.Text, " to ")) {
						break // the entries come first, up to " to "
					}
				}
			}
		}
	}
}

// legends: every mark a table shows (a coloured cell, or a cell of signs
// only) is explained in a paragraph of the table's section. The lab's
// record is left out: it is rendered by the lab's own code.
func legends(t *testing.T, d *report.Doc) {
	t.Helper()
	var walk func([]report.Section)
	walk = func(ss []report.Section) {
		for _, s := range ss {
			if s.ID == "lab" {
				continue
			}
			var legend strings.Builder
			for _, b := range s.Blocks {
				if b.Para != nil {
					legend.WriteString(" " + plain(b.Para) + " ")
				}
			}
			words := map[string]bool{}
			for _, w := range strings.FieldsFunc(legend.String(), func(r rune) bool {
				return unicode.IsSpace(r) || strings.ContainsRune(",;:().“”\"", r)
			}) {
				words[w] = true
			}
			for _, b := range s.Blocks {
				if b.Table == nil {
					continue
				}
				for _, row := range b.Table.Rows {
					for _, c := range row {
						text := strings.TrimSpace(plain(c.Text))
						signs := strings.IndexFunc(text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0
						if text == "" || (c.Class == "" && !signs) {
							continue
						}
						for _, w := range strings.Fields(text) {
							if !words[w] {
								t.Errorf("section %q: the table's mark %q (%q) is not in its legend", s.Title, w, text)
							}
						}
					}
				}
			}
			walk(s.Sections)
		}
	}
	walk(d.Sections)
}

// plain is a text's words, without its markup.
func plain(x report.Text) string {
	var b strings.Builder
	for _, s := range x {
		b.WriteString(s.Text)
	}
	return b.String()
}

// codeAsCode: no character of code is escaped in the Markdown's prose: a
// condition such as `creq.StartRevision < 0` is written as code, never
// with an HTML entity outside a code span.
func codeAsCode(t *testing.T, md string) {
	t.Helper()
	fenced := false
	for i, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		parts := strings.Split(l, "`")
		for j := 0; j < len(parts); j += 2 { // outside code spans
			for _, e := range []string{"&lt;", "&gt;", "&amp;", "&#"} {
				if strings.Contains(parts[j], e) {
					t.Errorf("line %d writes %s outside code: %q", i+1, e, l)
				}
			}
		}
	}
}

// declarationsMarked: in the matrix, a use at package level (a
// declaration, or a value in a package variable's initializer) is marked
// in every column, as runs from no entry or as the value a drawn way looks
// up, never left blank as if no path led there.
func declarationsMarked(t *testing.T, rep *report.Report) {
	t.Helper()
	for _, s := range rep.Notes.Sections {
		if s.ID != "uses" {
			continue
		}
		for _, b := range s.Blocks {
			if b.Table == nil {
				continue
			}
			for i, row := range b.Table.Rows {
				if i >= len(rep.Sites) {
					break
				}
				st := rep.Sites[i]
				if st.Function != "" && !st.Init {
					continue
				}
				for c, cell := range row[1:] {
					if strings.TrimSpace(plain(cell.Text)) == "" {
						t.Errorf("the declaration %s:%d is blank in column %d", st.File, st.Line, c+1)
					}
				}
			}
		}
	}
}

// oneStepPerLine: no two consecutive steps of a drawn way cite one line;
// such steps are one step.
func oneStepPerLine(t *testing.T, d *report.Doc) {
	t.Helper()
	var walk func([]report.Section)
	walk = func(ss []report.Section) {
		for _, s := range ss {
			for _, b := range s.Blocks {
				if b.Diagram == nil {
					continue
				}
				ns := b.Diagram.Nodes
				for i := 1; i < len(ns); i++ {
					if ns[i].Loc != nil && ns[i-1].Loc != nil && *ns[i].Loc == *ns[i-1].Loc {
						t.Errorf("section %q: steps %q and %q cite one line", s.ID, ns[i-1].Label, ns[i].Label)
					}
				}
			}
			walk(s.Sections)
		}
	}
	walk(d.Sections)
}

// readLink: the client's part says the get's error is the read's wire
// error, and refers to that error's line as the read's own step (the step
// of the read's way at the line), not the eviction's step at the same line.
func readLink(t *testing.T, rep *report.Report) {
	t.Helper()
	c := rep.Signal.Convert
	if c == nil || c.Read == nil {
		t.Fatal("the report has no read's wire error at the client")
	}
	want := ""
	for _, s := range rep.Notes.Sections {
		for _, b := range s.Blocks {
			if s.ID != "read" || b.Diagram == nil {
				continue
			}
			for _, n := range b.Diagram.Nodes {
				if n.Loc != nil && n.Loc.File == c.Read.File && n.Loc.Line == c.Read.Line {
					want = "read step " + n.Label[:strings.Index(n.Label, ".")]
				}
			}
		}
	}
	if want == "" {
		t.Fatalf("the read's way has no step at %s:%d", c.Read.File, c.Read.Line)
	}
	found := false
	var walk func([]report.Section)
	walk = func(ss []report.Section) {
		for _, s := range ss {
			for _, b := range s.Blocks {
				if s.ID != "client" || b.Para == nil || !strings.Contains(plain(b.Para), "the read's wire error") {
					continue
				}
				// The first reference or citation after the words.
				after := false
				for _, sp := range b.Para {
					if strings.Contains(sp.Text, "the read's wire error") && sp.Loc == nil && sp.Ref == "" {
						after = true
						continue
					}
					if !after || (sp.Loc == nil && sp.Ref == "") {
						continue
					}
					found = true
					if sp.Ref != "read" || sp.Text != want {
						t.Errorf("the read's wire error refers to %q (%s, %v), want %q of the read's way", sp.Text, sp.Ref, sp.Loc, want)
					}
					break
				}
			}
			walk(s.Sections)
		}
	}
	walk(rep.Notes.Sections)
	if !found {
		t.Error("the client's part does not refer to the read's wire error")
	}
}
