package annotate

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/srctrace/srctrace/trace/check"
	"github.com/srctrace/srctrace/trace/report"
)

// Check reports in testdata/check/*.json are stored output of srctrace
// check --format json (from-v3.6.0-at-v3.7.3: trace/check's notes of etcd
// v3.6.0 checked at v3.7.3 with --from v3.6.0; dirty-checkout: written by
// hand, with a dirty checkout, a problem and a fix). Each renders to the
// text beside it, and back to the same JSON.
func TestCheckGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "check", "*.json"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no stored check reports: %v", err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			var rep check.Report
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&rep); err != nil {
				t.Fatal(err)
			}
			var js, txt bytes.Buffer
			if err := Render(&js, "json", Output{Data: &rep}); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(data), js.String()); diff != "" {
				t.Errorf("JSON round trip (-stored +rendered):\n%s", diff)
			}
			if err := Render(&txt, "text", Output{Data: &rep, Doc: CheckDoc(&rep)}); err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(in, ".json") + ".txt"
			if *update {
				if err := os.WriteFile(golden, txt.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(want), txt.String()); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
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
