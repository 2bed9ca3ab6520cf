package cite

import (
	"bytes"
	"regexp"
	"sort"
	"strings"
)

// Marker says, in the notes, which release their line numbers are of. It
// is an HTML comment on a line of its own, so that it survives every
// Markdown renderer (which hides it) and every copy of the Markdown source:
//
//	<!-- srctrace: etcd v3.7.3 source=module -->
//
// The words are the target ("etcd"), the release (as srctrace names the
// source: a tag, or git describe output for a checkout) and attributes
// key=value; srctrace writes "source" (module or dir). A marker holds
// for the notes from its line to the next marker, and for what comes
// before the first.
type Marker struct {
	NotesLine int
	Target    string
	Release   string
	Attrs     [][2]string
	// ReleaseAt are the byte offsets of the release in the notes line.
	ReleaseAt [2]int
}

// NewMarker makes a marker; attrs are key, value pairs.
func NewMarker(target, release string, attrs ...string) Marker {
	m := Marker{Target: target, Release: release}
	for i := 0; i+1 < len(attrs); i += 2 {
		m.Attrs = append(m.Attrs, [2]string{attrs[i], attrs[i+1]})
	}
	return m
}

// String is the marker's line.
func (m Marker) String() string {
	var b strings.Builder
	b.WriteString("<!-- srctrace: " + m.Target + " " + m.Release)
	for _, a := range m.Attrs {
		b.WriteString(" " + a[0] + "=" + a[1])
	}
	b.WriteString(" -->")
	return b.String()
}

// Attr returns the value of attribute key, or "".
func (m Marker) Attr(key string) string {
	for _, a := range m.Attrs {
		if a[0] == key {
			return a[1]
		}
	}
	return ""
}

var markerRE = regexp.MustCompile(`^[ \t]*<!--[ \t]*srctrace:[ \t]*(\S+)[ \t]+(\S+)((?:[ \t]+[A-Za-z_][A-Za-z0-9_-]*=\S*)*)[ \t]*-->[ \t]*$`)

// Markers finds the markers in data, in order.
func Markers(data []byte) []Marker {
	var out []Marker
	n := 0
	for len(data) > 0 {
		n++
		i := bytes.IndexByte(data, '\n')
		var line []byte
		if i < 0 {
			line, data = data, nil
		} else {
			line, data = data[:i], data[i+1:]
		}
		if !bytes.Contains(line, []byte("srctrace:")) {
			continue
		}
		l := strings.TrimSuffix(string(line), "\r")
		m := markerRE.FindStringSubmatchIndex(l)
		if m == nil {
			continue
		}
		mk := Marker{NotesLine: n, Target: l[m[2]:m[3]], Release: l[m[4]:m[5]], ReleaseAt: [2]int{m[4], m[5]}}
		for _, kv := range strings.Fields(l[m[6]:m[7]]) {
			k, v, _ := strings.Cut(kv, "=")
			mk.Attrs = append(mk.Attrs, [2]string{k, v})
		}
		out = append(out, mk)
	}
	return out
}

// MarkerAt returns the marker that holds for notes line n, if any; ms
// are in the order of the notes, as Markers returns them.
func MarkerAt(ms []Marker, n int) (Marker, bool) {
	if len(ms) == 0 {
		return Marker{}, false
	}
	// The last marker at or before n; the first for what precedes it.
	i := sort.Search(len(ms), func(i int) bool { return ms[i].NotesLine > n }) - 1
	if i < 0 {
		i = 0
	}
	return ms[i], true
}
