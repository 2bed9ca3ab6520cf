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
	"strings"

	"github.com/srctrace/srctrace/trace/check"
	"github.com/srctrace/srctrace/trace/report"
)

// Output is what a command renders: its data, which JSON writes as it is
// (the master copy), and the document composed from that data, which
// Markdown, HTML and text render.
type Output struct {
	Data any
	Doc  *report.Doc
	Etcd report.Etcd
}

// Render writes out to w in format: the one switch over every output.
func Render(w io.Writer, format string, out Output) error {
	switch format {
	case "json":
		return jsonTo(w, out.Data)
	case "sarif", "github":
		rep, ok := out.Data.(*check.Report)
		if !ok {
			return fmt.Errorf("rendering %s: only srctrace check writes %s", format, format)
		}
		if format == "sarif" {
			return checkSARIF(w, rep)
		}
		return checkGitHub(w, rep)
	case "markdown", "md", "html", "text":
		if out.Doc == nil {
			return fmt.Errorf("rendering %s: there is no document to render", format)
		}
		return RenderDoc(w, format, out.Doc, out.Etcd)
	}
	return fmt.Errorf("unknown format %q: want one of json, %s (sarif and github for check)", format, strings.Join(DocFormats, ", "))
}
