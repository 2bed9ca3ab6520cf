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

// Literal splits off the suffix go/ssa gives the functions it makes: a
// func literal is named after the function it is in with $1, $2, … (nested
// ones $1$1), a method value with $bound, a method expression with $thunk.
// It returns the function written in the source and what the suffix made
// of it ("", "func literal", "method value", "method expression").
func Literal(q string) (base, kind string) {
	i := strings.Index(q, "$")
	if i < 0 {
		return q, ""
	}
	switch suffix := q[i+1:]; {
	case strings.HasPrefix(suffix, "bound"):
		return q[:i], "method value"
	case strings.HasPrefix(suffix, "thunk"):
		return q[:i], "method expression"
	default:
		return q[:i], "func literal"
	}
}
