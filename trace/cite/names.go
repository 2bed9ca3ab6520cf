package cite

import (
	"go/token"
	"regexp"
	"strings"
	"unicode"
)

// Name is a Go name as notes write it: mvcc.(*watcherGroup).chooseAll,
// pkg.Func, pkg.T.field, (*T).M, rangeKeys, or with an import path,
// go.etcd.io/etcd/server/v3/storage/mvcc.ErrCompacted. A closure's $1 and
// a call's () are dropped.
type Name struct {
	// Path is the import path (or repository folder) written before the
	// name, or "".
	Path string
	// Parts are the dotted identifiers after it: [mvcc watcherGroup
	// chooseAll], [T M], [rangeKeys].
	Parts []string
	// Recv says Parts[len-2] was written as a receiver, (*T) or (T).
	Recv bool
	Raw  string
}

// Qualified reports whether the name says its package (a first part, or
// an import path): only such names are symbol citations.
func (n Name) Qualified() bool {
	return n.Path != "" || len(n.Parts) >= 2 && !(n.Recv && len(n.Parts) == 2)
}

// Last is the name's final identifier: the function, method, field or
// other object named.
func (n Name) Last() string { return n.Parts[len(n.Parts)-1] }

var (
	closureRE = regexp.MustCompile(`(\$\d+)+$`)
	identRE   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	pathRE2   = regexp.MustCompile(`^[A-Za-z0-9_.~-]+(?:/[A-Za-z0-9_.~-]+)*$`)
)

// ParseName reads s as a Go name.
func ParseName(s string) (Name, bool) {
	n := Name{Raw: s}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "()")
	s = closureRE.ReplaceAllString(s, "")
	if s == "" {
		return Name{}, false
	}
	if i := strings.LastIndex(s, "/"); i >= 0 {
		j := strings.Index(s[i:], ".")
		if j < 0 {
			return Name{}, false
		}
		n.Path, s = s[:i+j], s[i+j+1:]
		if !pathRE2.MatchString(n.Path) || strings.Contains(n.Path, "(") {
			return Name{}, false
		}
	}
	recvAt := -1
	for s != "" {
		var seg string
		if strings.HasPrefix(s, "(") {
			end := strings.Index(s, ")")
			if end < 0 || recvAt >= 0 {
				return Name{}, false
			}
			seg, s = strings.TrimPrefix(s[1:end], "*"), s[end+1:]
			if !strings.HasPrefix(s, ".") {
				return Name{}, false
			}
			recvAt = len(n.Parts)
		} else {
			end := strings.IndexByte(s, '.')
			if end < 0 {
				end = len(s)
			}
			seg, s = s[:end], s[end:]
		}
		if !identRE.MatchString(seg) {
			return Name{}, false
		}
		n.Parts = append(n.Parts, seg)
		if s != "" {
			if s[0] != '.' || len(s) == 1 {
				return Name{}, false
			}
			s = s[1:]
		}
	}
	if len(n.Parts) == 0 || recvAt >= 0 && recvAt != len(n.Parts)-2 {
		return Name{}, false
	}
	n.Recv = recvAt >= 0
	// A keyword is no name: `return`, and `wal.go` is a file.
	for _, p := range n.Parts {
		if token.IsKeyword(p) {
			return Name{}, false
		}
	}
	if isFileName(n) {
		return Name{}, false
	}
	return n, true
}

// fileExts are the extensions that make pkg.ext a file name, not a Go
// name: `rpc.proto`, `README.md` (`wal.go` has a keyword already).
var fileExts = map[string]bool{"proto": true, "md": true, "sh": true, "bash": true, "yaml": true, "yml": true, "json": true,
	"toml": true, "txt": true, "mod": true, "sum": true, "py": true, "c": true, "h": true, "s": true, "mk": true, "txtar": true}

func isFileName(n Name) bool {
	return !n.Recv && len(n.Parts) >= 2 && fileExts[n.Parts[len(n.Parts)-1]]
}

// nameTokRE finds what could be a Go name in prose or a code block's line.
var nameTokRE = regexp.MustCompile(`(?:[A-Za-z0-9_.~-]+(?:/[A-Za-z0-9_.~-]+)+\.)?(?:[A-Za-z_][A-Za-z0-9_]*\.)?(?:\(\*?[A-Za-z_][A-Za-z0-9_]*\)\.)?[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\$\d+)*`)

// namesIn returns the names in text that are written as code: with a
// receiver or a package, with an underscore, or in camel case (rangeKeys).
// Plain words are not names.
func namesIn(text string) []Name {
	var out []Name
	// A name has no white space in it: only the words that could hold one
	// are matched.
	for _, word := range strings.Fields(text) {
		if !looksLikeCode(word) {
			continue
		}
		out = appendNames(out, word)
	}
	return out
}

func appendNames(out []Name, text string) []Name {
	for _, tok := range nameTokRE.FindAllString(text, -1) {
		if !looksLikeCode(tok) {
			continue
		}
		if n, ok := ParseName(tok); ok {
			out = append(out, n)
		}
	}
	return out
}

func looksLikeCode(tok string) bool {
	if strings.ContainsAny(tok, "(._$") {
		return true
	}
	prevLower := false
	for _, r := range tok {
		if unicode.IsUpper(r) && prevLower {
			return true
		}
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	return false
}
