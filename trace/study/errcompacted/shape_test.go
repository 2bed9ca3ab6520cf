package errcompacted_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/srctrace/srctrace/annotate"
	"github.com/srctrace/srctrace/trace/report"
)

// Limits of the notes a student reads (issue 11): the answer on the first
// screen, the whole in a sitting.
const (
	answerLines = 60
	notesLines  = 450
)

// TestNotesShape: in each stored report of the analysis, the answer is the
// notes' first section, on the first screen of the Markdown; it holds
// every claim the analysis decided, with its verdict; each behaviour the
// exercise runs is drawn in exactly one diagram outside the appendix; and
// the notes stay under their length.
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
			rows := map[string]string{}
			for _, r := range table.Rows {
				rows[plain(r[1].Text)] = plain(r[2].Text)
			}
			for _, c := range rep.Signal.Claims {
				want := "undecided"
				if c.Holds != nil {
					want = map[bool]string{true: "yes", false: "no"}[*c.Holds]
				}
				got, ok := rows["“"+c.Says+"”"]
				switch {
				case !ok:
					t.Errorf("the answer leaves out the claim %q", c.Says)
				case got != want:
					t.Errorf("the answer says %q of %q, the analysis %q", got, c.Says, want)
				}
			}
			if len(table.Rows) != len(rep.Signal.Claims) {
				t.Errorf("the answer has %d rows for %d claims", len(table.Rows), len(rep.Signal.Claims))
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
		})
	}
}

// plain is a text's words, without its markup.
func plain(x report.Text) string {
	var b strings.Builder
	for _, s := range x {
		b.WriteString(s.Text)
	}
	return b.String()
}
