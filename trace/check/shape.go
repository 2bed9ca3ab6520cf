package check

import (
	"go/ast"
	"go/parser"
	"strings"
	"sync"
)

// holds reports whether a normalized source line holds the code the notes
// quote (norm is the code normalized): as text, or, for a call written
// with its parameters' names, `Lessor.Attach(id, items)`, as the call or
// declaration of that function with those names in that order
// (`func (le *lessor) Attach(id LeaseID, items []LeaseItem) error {`):
// notes write a function so, not as the line writes it.
func holds(line, norm, code string) bool {
	if norm == "" {
		return false
	}
	if strings.Contains(line, norm) {
		return true
	}
	sh, ok := callShapeOf(code)
	if !ok {
		return false
	}
	at := 0
	for {
		i := wordAt(line[at:], sh.name)
		if i < 0 {
			return false
		}
		rest := strings.TrimLeft(line[at+i+len(sh.name):], " ")
		if strings.HasPrefix(rest, "(") && argsInOrder(rest, sh.args) {
			return true
		}
		at += i + len(sh.name)
	}
}

// callShape is a call as notes write one: a function's name and the names
// of its arguments.
type callShape struct {
	name string
	args []string
}

var shapes sync.Map // code -> callShape, or false

// callShapeOf reads code as a call whose arguments are all names.
func callShapeOf(code string) (callShape, bool) {
	if v, ok := shapes.Load(code); ok {
		sh, ok := v.(callShape)
		return sh, ok
	}
	sh, ok := parseCallShape(code)
	if ok {
		shapes.Store(code, sh)
	} else {
		shapes.Store(code, false)
	}
	return sh, ok
}

func parseCallShape(code string) (callShape, bool) {
	if !strings.Contains(code, "(") {
		return callShape{}, false
	}
	e, err := parser.ParseExpr(code)
	if err != nil {
		return callShape{}, false
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) == 0 {
		return callShape{}, false
	}
	var sh callShape
	switch f := call.Fun.(type) {
	case *ast.Ident:
		sh.name = f.Name
	case *ast.SelectorExpr:
		sh.name = f.Sel.Name
	default:
		return callShape{}, false
	}
	for _, a := range call.Args {
		id, ok := a.(*ast.Ident)
		if !ok {
			return callShape{}, false
		}
		sh.args = append(sh.args, id.Name)
	}
	return sh, true
}

// wordAt returns where w is in s as a whole word, or -1.
func wordAt(s, w string) int {
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return -1
		}
		a, b := i+j, i+j+len(w)
		if (a == 0 || !isIdentByte(s[a-1])) && (b == len(s) || !isIdentByte(s[b])) {
			return a
		}
		i = a + 1
	}
	return -1
}

// argsInOrder reports whether s (from the call's parenthesis on) names
// args as words, in order.
func argsInOrder(s string, args []string) bool {
	for _, a := range args {
		i := wordAt(s, a)
		if i < 0 {
			return false
		}
		s = s[i+len(a):]
	}
	return true
}
