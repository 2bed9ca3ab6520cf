package annotate

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace/report"
)

var update = flag.Bool("update", false, "rewrite the golden files from the stored reports")

// Reports in testdata/*.json are stored output of the analysis (regenerate
// them with `srctrace errcompacted --format json -o ...`). Each renders to
// the golden file beside it, and back to the same JSON.
func TestGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no stored reports: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			// Stored lab records are named lab-*.json; the others are reports.
			var render func(w *bytes.Buffer, format string) error
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if strings.HasPrefix(filepath.Base(in), "lab-") {
				var lab report.Lab
				if err := dec.Decode(&lab); err != nil {
					t.Fatal(err)
				}
				render = func(w *bytes.Buffer, format string) error { return RenderLab(w, format, &lab) }
			} else {
				var rep report.Report
				if err := dec.Decode(&rep); err != nil {
					t.Fatal(err)
				}
				render = func(w *bytes.Buffer, format string) error { return RenderReport(w, format, &rep) }
			}
			var js bytes.Buffer
			if err := render(&js, "json"); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(data), js.String()); diff != "" {
				t.Errorf("JSON round trip (-stored +rendered):\n%s", diff)
			}
			var md bytes.Buffer
			if err := render(&md, "markdown"); err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(in, ".json") + ".md"
			if *update {
				if err := os.WriteFile(golden, md.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), md.String()); diff != "" {
				t.Errorf("Markdown (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderUnknownFormat(t *testing.T) {
	err := Render(new(bytes.Buffer), "yaml", Output{Data: &report.Report{}})
	if err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("err = %v", err)
	}
}
