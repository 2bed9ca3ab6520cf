package errtext

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"testing"
)

// read writes sources (path -> source) into a temporary directory and
// parses them, as one package each.
func read(t *testing.T, spec Spec, srcs map[string]string) *Catalog {
	t.Helper()
	fset := token.NewFileSet()
	dir := t.TempDir()
	var ps []Package
	for path, src := range srcs {
		name := filepath.Join(dir, filepath.FromSlash(path), "x.go")
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, Package{Path: path, Name: f.Name.Name, Files: []*ast.File{f}})
	}
	return Read(fset, ps, spec)
}

const exitSrc = `package exit

import (
	"fmt"
	"os"
)

func WithError(code int, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", "Error", err)
	os.Exit(code)
}
`

const errSrc = `package e

import (
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const prefix = "store: "

var (
	ErrGone   = errors.New(prefix + "gone away")
	ErrWrap   = fmt.Errorf("%w: and more", ErrGone)
	ErrFmt    = fmt.Errorf("store: %d left", 3)
	ErrStatus = status.Errorf(codes.NotFound, "store: %s", "missing key")
	ErrOther  = newErr()
	ErrEOF    = errors.New("EOF")
	NotAnError = 3
)

func newErr() error { return nil }
`

func TestRead(t *testing.T) {
	c := read(t, Spec{}, map[string]string{"example.com/e": errSrc, "example.com/exit": exitSrc})
	for _, tc := range []struct {
		name, kind, text, code, of string
	}{
		{"example.com/e.ErrGone", "errors.New", "store: gone away", "", ""},
		{"example.com/e.ErrWrap", "fmt.Errorf", "store: gone away: and more", "", "example.com/e.ErrGone"},
		{"example.com/e.ErrFmt", "fmt.Errorf", "store: 3 left", "", ""},
		{"example.com/e.ErrStatus", "status", "store: missing key", "NotFound", ""},
	} {
		o := c.Object(tc.name)
		if o == nil {
			t.Errorf("no %s", tc.name)
			continue
		}
		if got := []string{string(o.Kind), o.Text, o.Code, o.Of}; got[0] != tc.kind || got[1] != tc.text || got[2] != tc.code || got[3] != tc.of {
			t.Errorf("%s = %q, want %q", tc.name, got, []string{tc.kind, tc.text, tc.code, tc.of})
		}
	}
	// Made otherwise: not an error the syntax shows, unless asked for.
	if c.Object("example.com/e.ErrOther") != nil || c.Object("example.com/e.NotAnError") != nil {
		t.Error("ErrOther or NotAnError is listed")
	}
	if o := c.Var("example.com/e.ErrOther"); o == nil || o.Kind != Unknown || o.Expr != "newErr()" {
		t.Errorf("Var(ErrOther) = %+v", o)
	}
	f, ok := c.ExitForm("example.com/exit.WithError", "tool")
	if !ok || f.Prefix != "Error: " || f.Suffix != "" {
		t.Errorf("ExitForm = %+v, %v", f, ok)
	}
}

func TestMatch(t *testing.T) {
	c := read(t, Spec{}, map[string]string{"example.com/e": errSrc})
	forms := append(GRPCForms(), Form{Prefix: "Error: ", By: "tool"})
	for _, tc := range []struct {
		text, stripped, code string
		want                 []string // object how
	}{
		// Forms nest: the tool's around gRPC's.
		{"Error: rpc error: code = NotFound desc = store: missing key", "store: missing key", "NotFound", []string{"example.com/e.ErrStatus exact"}},
		// Another code names nothing.
		{"rpc error: code = Internal desc = store: missing key", "store: missing key", "Internal", nil},
		// A text that holds a whole message (but not one too short to say
		// anything, EOF).
		{"  'reading: store: gone away, EOF'  ", "reading: store: gone away, EOF", "", []string{"example.com/e.ErrGone within"}},
		// A part of messages.
		{"left", "left", "", []string{"example.com/e.ErrFmt part"}},
		{"STORE: GONE AWAY", "STORE: GONE AWAY", "", []string{"example.com/e.ErrGone exact"}},
	} {
		r := c.Match(tc.text, forms)
		var got []string
		for _, m := range r.Matches {
			got = append(got, m.Object.Name+" "+string(m.How))
		}
		if r.Stripped != tc.stripped || r.Code != tc.code || len(got) != len(tc.want) {
			t.Errorf("Match(%q) = %q %q %v, want %q %q %v", tc.text, r.Stripped, r.Code, got, tc.stripped, tc.code, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("Match(%q) = %v, want %v", tc.text, got, tc.want)
			}
		}
	}
	if got := c.Closest("store: gnoe away", 1); len(got) != 1 || got[0] != "store: gone away" {
		t.Errorf("Closest = %v", got)
	}
}

func TestGRPCForms(t *testing.T) {
	forms := GRPCForms()
	if len(forms) == 0 {
		t.Fatal("no gRPC forms")
	}
	for _, f := range forms {
		if f.Code == "" || f.By != "grpc" || f.Prefix == "" {
			t.Errorf("form %+v", f)
		}
		if got := StatusText(f.Code, "x"); got != f.Prefix+"x"+f.Suffix {
			t.Errorf("StatusText(%s) = %q, form %q…%q", f.Code, got, f.Prefix, f.Suffix)
		}
	}
	if NonStatusCode() == "" {
		t.Error("no code for an error that is no status")
	}
}
