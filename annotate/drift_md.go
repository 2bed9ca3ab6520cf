package annotate

import (
	"fmt"
	"strings"

	"github.com/srctrace/srctrace/trace/report"
)

// md builds Markdown text for the drift table (until the drift is a Doc).
type md struct{ b strings.Builder }

func (m *md) p(format string, args ...any) { fmt.Fprintf(&m.b, format, args...) }

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func short(q string) string { return report.ShortName(q) }
