package annotate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/owenrumney/go-sarif/v3/pkg/report/v210/sarif"

	"github.com/srctrace/srctrace/trace/check"
	"github.com/srctrace/srctrace/trace/report"
)

// Check reports in testdata/check/*.json are stored output of srctrace
// check --format json (from-v3.6.0-at-v3.7.3: trace/check's notes of etcd
// v3.6.0 checked at v3.7.3 with --from v3.6.0; dirty-checkout: written by
// hand, with a dirty checkout, a problem and a fix; links-history: written
// by hand, links checked at a tag, a branch and a commit of a checkout's
// history, one unresolved, after a --fix). Each renders to the text,
// Markdown, HTML, SARIF and GitHub annotations beside it, and back to the
// same JSON.
func TestCheckGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "check", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no stored check reports: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			rep := readCheckReport(t, in)
			data, _ := os.ReadFile(in)
			var js bytes.Buffer
			if err := Render(&js, "json", Output{Data: rep}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(data), js.String()); diff != "" {
				t.Errorf("JSON round trip (-stored +rendered):\n%s", diff)
			}
			for format, ext := range map[string]string{"text": ".txt", "markdown": ".md", "html": ".html", "sarif": ".sarif", "github": ".github"} {
				var out bytes.Buffer
				if err := Render(&out, format, CheckOutput(rep)); err != nil {
					t.Fatal(err)
				}
				golden := strings.TrimSuffix(in, ".json") + ext
				if *update {
					if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(string(want), out.String()); diff != "" {
					t.Errorf("%s (-want +got):\n%s", format, diff)
				}
			}
		})
	}
}

func readCheckReport(t *testing.T, file string) *check.Report {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var rep check.Report
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}

// TestCheckSARIF: the SARIF of every stored report is valid SARIF 2.1.0
// (the OASIS schema, as go-sarif carries it) and has what the standard
// requires and code scanning reads: the version and schema, a run whose
// tool driver has a name, and results with a rule, a message and a
// location in the notes at a line; the same count as the report's
// citations that need attention and problems.
func TestCheckSARIF(t *testing.T) {
	inputs, _ := filepath.Glob(filepath.Join("testdata", "check", "*.json"))
	for _, in := range inputs {
		rep := readCheckReport(t, in)
		var out bytes.Buffer
		if err := Render(&out, "sarif", CheckOutput(rep)); err != nil {
			t.Fatal(err)
		}
		log, err := sarif.FromBytes(out.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if err := log.Validate(); err != nil {
			t.Errorf("%s: not valid SARIF 2.1.0: %v", in, err)
		}
		var raw struct {
			Version string `json:"version"`
			Schema  string `json:"$schema"`
			Runs    []struct {
				Tool struct {
					Driver struct {
						Name  string `json:"name"`
						Rules []struct {
							ID string `json:"id"`
						} `json:"rules"`
					} `json:"driver"`
				} `json:"tool"`
				Results []struct {
					RuleID  string `json:"ruleId"`
					Level   string `json:"level"`
					Message struct {
						Text string `json:"text"`
					} `json:"message"`
					Locations []struct {
						PhysicalLocation struct {
							ArtifactLocation struct {
								URI string `json:"uri"`
							} `json:"artifactLocation"`
							Region struct {
								StartLine int `json:"startLine"`
							} `json:"region"`
						} `json:"physicalLocation"`
					} `json:"locations"`
				} `json:"results"`
			} `json:"runs"`
		}
		if err := json.Unmarshal(out.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		if raw.Version != "2.1.0" || !strings.Contains(raw.Schema, "sarif-schema-2.1.0") || len(raw.Runs) != 1 || raw.Runs[0].Tool.Driver.Name != "srctrace" {
			t.Fatalf("%s: version %q schema %q, %d runs", in, raw.Version, raw.Schema, len(raw.Runs))
		}
		want := len(rep.Problems)
		for _, s := range rep.Notes {
			want += len(s.Attention)
		}
		res := raw.Runs[0].Results
		if len(res) != want {
			t.Errorf("%s: %d results, want %d", in, len(res), want)
		}
		rules := map[string]bool{}
		for _, r := range raw.Runs[0].Tool.Driver.Rules {
			rules[r.ID] = true
		}
		for _, r := range res {
			if !rules[r.RuleID] || r.Message.Text == "" || r.Level == "" || len(r.Locations) != 1 || r.Locations[0].PhysicalLocation.ArtifactLocation.URI == "" {
				t.Errorf("%s: result %+v", in, r)
			}
		}
	}
}

// TestCheckGitHub: workflow commands escape what would end or split them.
func TestCheckGitHub(t *testing.T) {
	rep := &check.Report{Release: "v3.7.3", Target: "etcd", Citations: []check.Citation{{Notes: "a,b:c.md", NotesLine: 3, Column: 2, EndColumn: 9,
		Citation: "x.go:1", Status: "missing", Message: "100% wrong\nreally"}},
		Notes: []check.Summary{{Notes: "a,b:c.md", Counts: map[string]int{"missing": 1}, Attention: []int{0}}}}
	var out bytes.Buffer
	if err := Render(&out, "github", CheckOutput(rep)); err != nil {
		t.Fatal(err)
	}
	want := "::error file=a%2Cb%3Ac.md,line=3,col=2,endColumn=9,title=srctrace check%3A missing::x.go:1: missing (100%25 wrong%0Areally)\n" +
		"srctrace check: 1 citation in 1 notes file against etcd v3.7.3: 0 ok, 1 missing\n"
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := Render(&out, "sarif", Output{Data: "not a check"}); err == nil {
		t.Error("sarif of something that is not a check report")
	}
}

// TestMarker: a document's marker is written after the title, as it is.
func TestMarker(t *testing.T) {
	var md bytes.Buffer
	d := &report.Doc{Title: "T", Marker: "<!-- srctrace: etcd v3.7.3 source=module -->"}
	if err := RenderDoc(&md, "markdown", d, report.Etcd{}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.String(), "# T\n\n<!-- srctrace: etcd v3.7.3 source=module -->\n") {
		t.Errorf("header:\n%s", md.String())
	}
	d.Marker = "<!-- a -- b -->"
	if err := RenderDoc(&md, "markdown", d, report.Etcd{}); err == nil {
		t.Error("a marker that is no single HTML comment was rendered")
	}
}
