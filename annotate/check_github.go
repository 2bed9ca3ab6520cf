package annotate

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/srctrace/srctrace/trace/check"
)

// githubLevel is the workflow command for each status that needs
// attention: errors for what is wrong, warnings for what --fix or a
// person can settle, notices for what could not be checked.
var githubLevel = map[string]string{
	string(check.Missing):    "error",
	string(check.Mismatch):   "error",
	string(check.Moved):      "warning",
	string(check.Drifted):    "warning",
	string(check.Ambiguous):  "warning",
	string(check.Unanchored): "notice",
	string(check.Unresolved): "notice",
}

// checkGitHub writes a check report as GitHub Actions workflow commands:
// one annotation per citation that needs attention and per problem, on
// its notes line and columns, then a line of totals.
func checkGitHub(w io.Writer, rep *check.Report) error {
	var b strings.Builder
	for _, s := range rep.Notes {
		for _, i := range s.Attention {
			c := rep.Citations[i]
			props := []string{"file=" + ghProperty(filepath.ToSlash(c.Notes)), fmt.Sprintf("line=%d", c.NotesLine)}
			if c.Column > 0 {
				props = append(props, fmt.Sprintf("col=%d", c.Column), fmt.Sprintf("endColumn=%d", c.EndColumn))
			}
			props = append(props, "title="+ghProperty("srctrace check: "+c.Status))
			msg := c.Citation + ": " + c.Status
			if l := nowLoc(c); l != nil {
				msg += fmt.Sprintf(" -> %s:%d", l.File, l.Line)
			}
			if c.Message != "" {
				msg += " (" + c.Message + ")"
			}
			fmt.Fprintf(&b, "::%s %s::%s\n", githubLevel[c.Status], strings.Join(props, ","), ghData(msg))
		}
	}
	for _, p := range rep.Problems {
		props := []string{"file=" + ghProperty(filepath.ToSlash(p.Notes))}
		if p.NotesLine > 0 {
			props = append(props, fmt.Sprintf("line=%d", p.NotesLine))
		}
		props = append(props, "title="+ghProperty("srctrace check: notes problem"))
		fmt.Fprintf(&b, "::warning %s::%s\n", strings.Join(props, ","), ghData(p.Message))
	}
	total := map[string]int{}
	for _, s := range rep.Notes {
		for k, v := range s.Counts {
			total[k] += v
		}
	}
	fmt.Fprintf(&b, "srctrace check: %s in %s against %s %s: %s\n", plural(len(rep.Citations), "citation"), plural(len(rep.Notes), "notes file"), rep.Target, rep.Release, counts(total))
	_, err := io.WriteString(w, b.String())
	return err
}

// ghData escapes a workflow command's message: %, CR and LF.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghProperty escapes a workflow command's property value: also : and ,.
func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
