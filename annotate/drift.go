package annotate

import (
	"fmt"
	"io"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// RenderDrift writes a drift table in format.
func RenderDrift(w io.Writer, format string, d *report.Drift) error {
	switch format {
	case "markdown", "md":
		return DriftMarkdown(w, d)
	case "json":
		return jsonTo(w, d)
	default:
		return fmt.Errorf("unknown format %q: want one of markdown, json", format)
	}
}

// DriftMarkdown writes the drift table.
func DriftMarkdown(w io.Writer, d *report.Drift) error {
	m := &md{}
	m.p("# Drift of the %s study across etcd %s\n\n", d.Study, strings.Join(d.Releases, ", "))
	counts := map[string]int{}
	for _, r := range d.Rows {
		counts[r.Change]++
	}
	m.p("%d entries, sites and hops: %d same, %d moved, %d vanished, %d appeared, %d changed.\n\n",
		len(d.Rows), counts["same"], counts["moved"], counts["vanished"], counts["appeared"], counts["changed"])
	m.p("| kind | what | %s | change |\n|---|---|%s---|\n", strings.Join(d.Releases, " | "), strings.Repeat("---|", len(d.Releases)))
	for _, r := range d.Rows {
		var cells []string
		for _, a := range r.At {
			if a == "" {
				cells = append(cells, "—")
			} else {
				cells = append(cells, "`"+a+"`")
			}
		}
		change := r.Change
		if change != "same" {
			change = "**" + change + "**"
		}
		m.p("| %s | %s | %s | %s |\n", r.Kind, mdEscape(shortKey(r.Key)), strings.Join(cells, " | "), change)
	}
	_, err := io.WriteString(w, m.b.String())
	return err
}

// shortKey shortens the qualified names in a drift key.
func shortKey(k string) string {
	var out []string
	for _, f := range strings.Fields(k) {
		if strings.Contains(f, "/") && !strings.HasPrefix(f, "`") {
			f = short(f)
		}
		out = append(out, f)
	}
	return strings.Join(out, " ")
}
