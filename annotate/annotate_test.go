package annotate

import (
	"bytes"
	"flag"
	"strings"
	"testing"

	"github.com/srctrace/srctrace/trace/report"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestRenderUnknownFormat(t *testing.T) {
	err := Render(new(bytes.Buffer), "yaml", Output{Data: &report.Report{}})
	if err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("err = %v", err)
	}
}
