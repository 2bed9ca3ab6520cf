package annotate

import (
	"encoding/json"
	"io"

	"github.com/srctrace/srctrace/trace/report"
)

// JSON writes rep as indented JSON with a final newline.
func JSON(w io.Writer, rep *report.Report) error { return jsonTo(w, rep) }

func jsonTo(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
