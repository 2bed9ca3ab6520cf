package errcompacted

import (
	"testing"

	"github.com/srctrace/srctrace/trace/report"
)

// TestLimitCitesKeepsSubjects: past the limit, a citation in parentheses
// becomes a reference to a section where the position stays cited, one in
// the sentence's words only a step of a drawn way, and one that begins its
// sentence, its subject, stays.
func TestLimitCitesKeepsSubjects(t *testing.T) {
	at := report.Loc{File: "a.go", Line: 7}
	drawn := report.Loc{File: "b.go", Line: 3}
	para := func(x ...report.Span) report.Block { return report.Block{Para: x} }
	cite := report.Cite
	d := &report.Doc{Sections: []report.Section{
		{ID: "answer", Title: "The answer", Blocks: []report.Block{
			para(report.Plain("It returns ("), cite(at), report.Plain(").")),
			para(report.Plain("It is drawn ("), cite(drawn), report.Plain(").")),
		}},
		{ID: "way", Title: "The way", Blocks: []report.Block{
			{Diagram: &report.Diagram{Nodes: []report.Node{{ID: "s0", Label: "1. the call", Loc: &drawn}}}},
		}},
		{ID: "step6", Title: "Step 6", Blocks: []report.Block{
			para(report.Plain("Then ("), cite(at), report.Plain(").")),
			para(cite(at), report.Plain(" runs in none. "), cite(at), report.Plain(" (`f`) runs in none.")),
			para(report.Plain("It is made at "), cite(at), report.Plain(", and at "), cite(drawn), report.Plain(".")),
		}},
	}}
	limitCites(d, 2)
	s6 := d.Sections[2].Blocks
	// The subjects take the count: the asides refer to where they stay.
	if sp := d.Sections[0].Blocks[0].Para[1]; sp.Loc != nil || sp.Ref != "step6" {
		t.Errorf("an aside past the limit: %+v, want a reference to step 6's section", sp)
	}
	if sp := s6[0].Para[1]; sp.Loc != nil || sp.Text != "cited above" {
		t.Errorf("an aside past the limit in the section that cites it: %+v, want cited above", sp)
	}
	for _, i := range []int{0, 2} {
		if sp := s6[1].Para[i]; sp.Loc == nil {
			t.Errorf("the subject of sentence %d was replaced: %+v", i/2+1, sp)
		}
	}
	if sp := s6[2].Para[1]; sp.Loc == nil {
		t.Errorf("a citation in the sentence's words became %+v; with no drawn step it stays", sp)
	}
	if sp := s6[2].Para[3]; sp.Loc != nil || sp.Text != "eviction step 1" || sp.Ref != "way" {
		t.Errorf("a drawn position in the sentence's words: %+v, want a reference to the eviction's step 1", sp)
	}
}
