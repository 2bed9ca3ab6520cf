package errtext

import (
	"fmt"
	"go/ast"
	"sort"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Form is how a layer shows an error's text: Prefix, the text, Suffix.
type Form struct {
	Prefix, Suffix string
	// Code is the gRPC code a status form names.
	Code string
	// By is who makes the form: "grpc", or the tool's name.
	By string
}

// marker is a message no error has, to find where a layer puts one.
const marker = "\x00srctrace\x00"

// GRPCForms are gRPC's status forms, one per code, as gRPC's own status
// package makes them (status.Error(code, msg).Error()).
func GRPCForms() []Form {
	var out []Form
	for c := codes.OK + 1; c <= codes.Unauthenticated; c++ {
		if f, ok := FormOf(status.Error(c, marker).Error(), marker, "grpc"); ok {
			f.Code = c.String()
			out = append(out, f)
		}
	}
	return out
}

// StatusText is what a status error of code and message prints, as
// gRPC's status package makes it.
func StatusText(code, msg string) string {
	for c := codes.OK; c <= codes.Unauthenticated; c++ {
		if c.String() == code {
			return status.Error(c, msg).Error()
		}
	}
	return ""
}

// Marker is the message to print through a layer to find its form.
func Marker() string { return marker }

// FormOf makes the form of a layer from what it printed for an error whose
// text is marker: what comes before and after it.
func FormOf(printed, marker, by string) (Form, bool) {
	i := strings.Index(printed, marker)
	if i < 0 {
		return Form{}, false
	}
	return Form{Prefix: printed[:i], Suffix: strings.TrimRight(printed[i+len(marker):], "\n"), By: by}, true
}

// How says how a text matched an object.
type How string

// The ways a text matches.
const (
	Exact      How = "exact"      // the text is the object's message
	Within     How = "within"     // the text contains the whole message
	Part       How = "part"       // the text is a part of the message
	Translated How = "translated" // a server error a translation map turns into a match
)

// Match is one object a text names.
type Match struct {
	Object *Object
	How    How
	// Via is, for a translated match, the matched wire error.
	Via string
}

// Result is what a text matches.
type Result struct {
	// Stripped is the text with the layers' forms taken off; Forms says
	// which (By), outermost first; Code is the gRPC code a status form
	// named.
	Stripped string
	Forms    []string
	Code     string
	Matches  []Match
}

// minWithin is the shortest message a longer text is said to contain:
// shorter ones ("EOF") are in too many texts to say anything.
const minWithin = 12

// minPart is the shortest part of a message that is looked for.
const minPart = 4

// Match finds the objects whose message text is: the same once the
// forms are taken off, or a text that contains the whole message, or a
// part of messages, in that order of preference (only the first that
// finds any is kept); then the server errors translated into those. A
// gRPC form's code keeps only objects the wire carries with that code.
func (c *Catalog) Match(text string, forms []Form) Result {
	r := Result{Stripped: strings.TrimSpace(text)}
	for changed := true; changed; {
		changed = false
		s := strings.Trim(r.Stripped, "\"'` \t\r\n")
		for _, f := range forms {
			if f.Prefix == "" && f.Suffix == "" {
				continue
			}
			if strings.HasPrefix(s, f.Prefix) && strings.HasSuffix(s[len(f.Prefix):], f.Suffix) && len(s) > len(f.Prefix)+len(f.Suffix) {
				s = strings.TrimSpace(s[len(f.Prefix) : len(s)-len(f.Suffix)])
				r.Forms = append(r.Forms, f.By)
				if f.Code != "" && r.Code == "" {
					r.Code = f.Code
				}
				changed = true
				break
			}
		}
		r.Stripped = s
	}
	known := func(o *Object) bool {
		if !o.Known() {
			return false
		}
		return r.Code == "" || c.WireCode(o) == r.Code
	}
	low := strings.ToLower(r.Stripped)
	for _, how := range []How{Exact, Within, Part} {
		for _, o := range c.Objects {
			if !known(o) {
				continue
			}
			msg := strings.ToLower(o.Text)
			ok := false
			switch how {
			case Exact:
				ok = msg == low
			case Within:
				ok = len(msg) >= minWithin && strings.Contains(low, msg)
			case Part:
				ok = len(low) >= minPart && strings.Contains(msg, low)
			}
			if ok {
				r.Matches = append(r.Matches, Match{Object: o, How: how})
			}
		}
		if len(r.Matches) > 0 {
			break
		}
	}
	have := map[string]bool{}
	for _, m := range r.Matches {
		have[m.Object.Name] = true
	}
	n := len(r.Matches)
	for _, m := range r.Matches[:n] {
		for _, t := range c.Into(m.Object.Name) {
			if have[t.From] {
				continue
			}
			if o := c.byName[t.From]; o != nil {
				have[t.From] = true
				r.Matches = append(r.Matches, Match{Object: o, How: Translated, Via: m.Object.Name})
			}
		}
	}
	return r
}

// WireCode is the gRPC code an object is carried with on the wire: its
// own (a status, or the status a client value is made from), its
// translation's, or what a translate function returns for an error no
// map holds ("" when none is known). A translation into a value that is
// no status (a client value whose type has no GRPCStatus method) is sent
// with the code gRPC gives any other error.
func (c *Catalog) WireCode(o *Object) string {
	r := c.Resolve(o)
	if r == nil {
		return ""
	}
	if r.Code != "" {
		return r.Code
	}
	if t, ok := c.From(r.Name); ok {
		if to := c.Resolve(c.byName[t.To]); to != nil {
			if !c.IsStatus(to) {
				return NonStatusCode()
			}
			return to.Code
		}
	}
	if len(c.Defaults) > 0 && r.Kind != Unknown {
		return c.Defaults[0].Code
	}
	return ""
}

// IsStatus reports whether a value is a gRPC status when a server sends
// it: a status, or a client value the conversion passed through, or one
// whose made type has a GRPCStatus method.
func (c *Catalog) IsStatus(o *Object) bool {
	o = c.Resolve(o)
	switch {
	case o == nil:
		return false
	case o.Kind == Status:
		return true
	case o.Kind == Client && o.Made == "":
		return true
	case o.Kind == Client:
		pkg, name, ok := splitQualified(o.Made)
		return ok && c.ev.pkgs[pkg] != nil && c.ev.pkgs[pkg].methods[name]["GRPCStatus"]
	}
	return false
}

// NonStatusCode is the code gRPC sends for an error that is no status, as
// gRPC's status package gives it.
func NonStatusCode() string {
	return status.Convert(errNoStatus{}).Code().String()
}

type errNoStatus struct{}

func (errNoStatus) Error() string { return marker }

// Closest returns up to n messages nearest to text, by edit distance of
// the text with the message, or with the part of it as long as the text.
func (c *Catalog) Closest(text string, n int) []string {
	low := strings.ToLower(strings.TrimSpace(text))
	type cand struct {
		s string
		d int
	}
	seen := map[string]bool{}
	var cs []cand
	for _, o := range c.Objects {
		if !o.Known() || seen[o.Text] {
			continue
		}
		seen[o.Text] = true
		msg := strings.ToLower(o.Text)
		d := editDistance(low, msg)
		if len(msg) > len(low) {
			// The nearest window of the message as long as the text.
			for i := 0; i+len(low) <= len(msg); i++ {
				if w := editDistance(low, msg[i:i+len(low)]) + 1; w < d {
					d = w
				}
			}
		}
		if d <= max(3, len(low)/2) {
			cs = append(cs, cand{o.Text, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].s < cs[j].s
	})
	var out []string
	for i := 0; i < len(cs) && i < n; i++ {
		out = append(out, cs[i].s)
	}
	return out
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// ExitForm reads the form a tool's exit function prints an error in: a
// call of fmt.Fprintln or fmt.Fprintf whose operands are constants and
// the function's error parameter.
func (c *Catalog) ExitForm(q, by string) (Form, bool) {
	ev := c.ev
	pkg, fd, f := ev.funcDecl(q)
	if fd == nil {
		return Form{}, false
	}
	errParam := map[string]bool{}
	for _, fl := range fd.Type.Params.List {
		if id, ok := fl.Type.(*ast.Ident); ok && id.Name == "error" {
			for _, n := range fl.Names {
				errParam[n.Name] = true
			}
		}
	}
	var form Form
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		path, name, ok := ev.ref(pkg, f, call.Fun)
		if !ok || path != fmtPkg || (name != "Fprintln" && name != "Fprintf") || len(call.Args) < 2 {
			return true
		}
		var ops []any
		has := false
		for _, a := range call.Args[1:] {
			if id, ok := ast.Unparen(a).(*ast.Ident); ok && errParam[id.Name] {
				ops, has = append(ops, marker), true
				continue
			}
			v := ev.expr(pkg, f, a)
			if v == nil || !v.isStr {
				return true
			}
			ops = append(ops, v.str)
		}
		if !has {
			return true
		}
		printed := ""
		if name == "Fprintln" {
			printed = fmt.Sprintln(ops...)
		} else {
			format, ok := ops[0].(string)
			if !ok || format == marker {
				return true
			}
			printed = fmt.Sprintf(format, ops[1:]...)
		}
		form, found = FormOf(printed, marker, by)
		return !found
	})
	return form, found
}
