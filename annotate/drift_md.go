package annotate

import (
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// shortKey shortens the qualified names in a drift key.
func shortKey(k string) string {
	var out []string
	for _, f := range strings.Fields(k) {
		if strings.Contains(f, "/") && !strings.HasPrefix(f, "`") {
			f = report.ShortName(f)
		}
		out = append(out, f)
	}
	return strings.Join(out, " ")
}
