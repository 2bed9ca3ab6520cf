package report

import (
	"regexp"
	"strings"
)

// ShortName drops the import path of a qualified name but keeps its last
// element, or its last two when the last is a major version:
// "mvcc.(*store).Compact", "client/v3.(*WatchResponse).Err".
func ShortName(q string) string {
	head := q
	if i := strings.Index(q, "("); i >= 0 {
		head = q[:i]
	}
	cut := strings.LastIndex(head, "/")
	if cut > 0 && majorRE.MatchString(head[cut+1:]) {
		if prev := strings.LastIndex(head[:cut], "/"); prev >= 0 {
			cut = prev
		}
	}
	return q[cut+1:]
}

var majorRE = regexp.MustCompile(`^v[0-9]+\.`)
