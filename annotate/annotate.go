// Package annotate renders srctrace reports: Markdown study notes for
// people and JSON for programs. Both are rendered from the same
// report.Report value; JSON is the master copy, and Markdown rendered from
// JSON read back is the same as Markdown rendered from the analysis.
//
// annotate does no analysis: everything it prints is in the report.
package annotate

import (
	"fmt"
	"io"

	"github.com/srctrace/srctrace/trace/report"
)

// Render writes rep to w in format.
func Render(w io.Writer, format string, rep *report.Report) error {
	switch format {
	case "markdown", "md":
		return Markdown(w, rep)
	case "json":
		return JSON(w, rep)
	default:
		return fmt.Errorf("unknown format %q: want one of markdown, json", format)
	}
}
