package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSentence(t *testing.T) {
	a, b := Loc{File: "a.go", Line: 1}, Loc{File: "b.go", Line: 2}
	got := Sentence("decided by `x < y` ({0}); then {1}, and {7} stays {text}", []Loc{a, b})
	want := Text{Plain("decided by "), CodeSpan("x < y"), Plain(" ("), Cite(a), Plain("); then "), Cite(b), Plain(", and {7} stays {text}")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := Sentence("an `unclosed quote", nil); len(got) != 1 || got[0].Text != "an `unclosed quote" {
		t.Errorf("unclosed: %+v", got)
	}
}
