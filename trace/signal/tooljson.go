package signal

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"reflect"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
)

// Display is how the tool's watch shows each response it receives, the
// cancel too: the call that displays it (Call, in the loop over the
// channel, not under the cancel's branch), and, for the JSON output format,
// the printer's call of the JSON function (Via), the function (Func), the
// format's name in the tool's printer switch (Format, at Case), and the keys
// encoding/json writes for the response's compaction revision and canceled
// flag (the client's fields, by their json tags or names).
type Display struct {
	Call      Pos
	Via, Func Pos
	// Marshal is the call of encoding/json's Marshal in the JSON
	// function or a function it calls: the line that encodes the
	// response.
	Marshal Pos
	Format  string
	Case    Pos
	// Bound is where the function the case calls names the JSON function
	// (a printer made with it as a value, or a call of it).
	Bound Pos
	Keys  []JSONKey
	// Stream is the os file the JSON function's body writes to ("Stdout"),
	// when it names one.
	Stream string
	// Refused are, for the response the client hands its user on a
	// refusal at open (Refused.Hand), the value of each key, in Keys'
	// order: as the response's literal sets it, or its type's zero value.
	Refused []string
}

// JSONKey is a field of the displayed response (its Go name) and the key
// JSON gives it, with the field's declaration; OmitEmpty when its tag
// leaves out a zero value.
type JSONKey struct {
	Name      string
	Key       string
	At        Pos
	OmitEmpty bool

	v *types.Var
}

// display finds the watch command's display of each response.
func (r *Result) display() {
	sg := r.in.Spec
	t := r.Tool
	if t == nil || t.Watch == nil || t.Watch.Display.Filename == "" || sg.Tool.JSON == "" || len(sg.Fields) < 3 {
		return
	}
	call := t.Watch.Display
	d := &Display{Call: call}
	jsonFn, err := r.in.Graph.Func(sg.Tool.JSON)
	if err != nil || call.Func == nil {
		return
	}
	for _, p := range r.in.Graph.Paths(call.Func, jsonFn, 1) {
		if len(p) < 2 || p[0].Pos.Filename != call.Filename || p[0].Pos.Line != call.Line {
			continue
		}
		last := p[len(p)-1]
		d.Via = Pos{Position: last.Pos, Func: last.Caller, Text: r.lineAt(last.Pos)}
		d.Func = r.pos(jsonFn.Pos(), jsonFn, callpath.Name(jsonFn))
		break
	}
	if d.Via.Filename == "" {
		return
	}
	// It marshals with encoding/json.
	// The functions reached are read in source order, so that the call
	// found is the same on every run.
	var reached []*ssa.Function
	for g := range r.in.Graph.Reachable(jsonFn) {
		reached = append(reached, g)
	}
	sortBy(reached, func(a, b *ssa.Function) bool {
		return a.Pos() < b.Pos() || (a.Pos() == b.Pos() && a.String() < b.String())
	})
	marshals := false
	for _, g := range reached {
		fd, ok := g.Syntax().(*ast.FuncDecl)
		if !ok || fd.Body == nil || marshals {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && !marshals {
				if f := calleeObj(r.syn.info[r.syn.file(call.Pos())], call.Fun); f != nil && f.Pkg() != nil && f.Pkg().Path() == "encoding/json" && f.Name() == "Marshal" {
					marshals = true
					d.Marshal = r.pos(call.Pos(), g, r.lineAt(r.syn.fset.Position(call.Pos())))
				}
			}
			return !marshals
		})
	}
	if !marshals {
		return
	}
	d.Stream = r.jsonStream(jsonFn)
	// The format's name: the case of the tool's printer switch whose
	// constructor refers to the JSON function.
	if sg.Tool.Printers != "" {
		if pf, err := r.in.Graph.Func(sg.Tool.Printers); err == nil {
			d.Format, d.Case, d.Bound = r.formatOf(pf, jsonFn)
		}
	}
	if d.Format == "" {
		return
	}
	// The keys of the response's compaction revision and canceled flag.
	compact := r.fieldOrNil(sg.Fields[len(sg.Fields)-1])
	if compact == nil {
		return
	}
	d.Keys = append(d.Keys, r.jsonKey(compact))
	if c := r.Client; c != nil && len(c.Copies) > 0 {
		if lit := r.literalAt(c.Copies[0].pos); lit != nil {
			wire := r.fieldOrNil(sg.Cancel)
			for _, el := range lit.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok || wire == nil || r.syn.obj(kv.Value) != wire {
					continue
				}
				if v, ok := r.syn.obj(kv.Key).(*types.Var); ok {
					d.Keys = append(d.Keys, r.jsonKey(v))
				}
			}
		}
	}
	d.Refused = r.refusedValues(d.Keys)
	r.Display = d
}

// refusedValues are the values the keys' fields have in the response the
// client hands its user on a refusal at open: as its literal sets them, or
// their type's zero value.
func (r *Result) refusedValues(keys []JSONKey) []string {
	x := r.Refused
	if x == nil || x.Hand.Filename == "" {
		return nil
	}
	lit := r.literalAt(x.Hand.pos)
	if lit == nil {
		return nil
	}
	info := r.syn.info[r.syn.file(lit.Pos())]
	var out []string
	for _, k := range keys {
		val := ""
		for _, el := range lit.Elts {
			kv, ok := el.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			if v, ok := r.syn.obj(kv.Key).(*types.Var); ok && v == k.v {
				if tv, ok := info.Types[kv.Value]; ok && tv.Value != nil {
					val = tv.Value.ExactString()
				} else {
					val = "(" + r.syn.src(kv.Value) + ")"
				}
			}
		}
		if val == "" && k.v != nil {
			val = zeroOf(k.v)
		}
		out = append(out, val)
	}
	return out
}

// zeroOf is the JSON text of the zero value of a field's type.
func zeroOf(obj types.Object) string {
	if obj == nil {
		return ""
	}
	b, ok := obj.Type().Underlying().(*types.Basic)
	switch {
	case !ok:
		return "null"
	case b.Info()&types.IsBoolean != 0:
		return "false"
	case b.Info()&types.IsNumeric != 0:
		return "0"
	case b.Info()&types.IsString != 0:
		return `""`
	}
	return ""
}

// jsonKey is the key encoding/json writes for a struct field.
func (r *Result) jsonKey(v *types.Var) JSONKey {
	k := JSONKey{Name: v.Name(), Key: v.Name(), At: r.pos(v.Pos(), nil, lineText(r.syn, v.Pos())), v: v}
	// The struct's tag for the field.
	path, _ := r.syn.path(v.Pos(), v.Pos()+1)
	for _, n := range path {
		f, ok := n.(*ast.Field)
		if !ok || f.Tag == nil {
			continue
		}
		if tag, err := strconv.Unquote(f.Tag.Value); err == nil {
			name, opts, _ := strings.Cut(reflect.StructTag(tag).Get("json"), ",")
			if name != "" && name != "-" {
				k.Key = name
			}
			k.OmitEmpty = strings.Contains(","+opts+",", ",omitempty,")
		}
		break
	}
	return k
}

// formatOf finds, in the printer switch fn, the string case whose body
// calls a function that refers to target, and where that function does.
func (r *Result) formatOf(fn *ssa.Function, target *ssa.Function) (string, Pos, Pos) {
	fd, ok := fn.Syntax().(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return "", Pos{}, Pos{}
	}
	var name string
	var at, bound Pos
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		cc, ok := n.(*ast.CaseClause)
		if !ok || name != "" || len(cc.List) != 1 {
			return name == ""
		}
		tv, ok := r.syn.info[r.syn.file(cc.Pos())].Types[cc.List[0]]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
			return true
		}
		refers := false
		ast.Inspect(&ast.BlockStmt{List: cc.Body}, func(m ast.Node) bool {
			call, ok := m.(*ast.CallExpr)
			if !ok || refers {
				return !refers
			}
			f := calleeObj(r.syn.info[r.syn.file(call.Pos())], call.Fun)
			if f == nil {
				return true
			}
			if g := r.in.Graph.Prog.FuncValue(f); g != nil {
				if b := r.refersAt(g, target); b.Filename != "" {
					refers, bound = true, b
				}
			}
			return true
		})
		if refers {
			name = constant.StringVal(tv.Value)
			at = r.pos(cc.Pos(), fn, caseText(r, cc))
		}
		return true
	})
	return name, at, bound
}

// refersTo reports whether fn's body names target (calls it or takes it
// as a value).
func (r *Result) refersTo(fn, target *ssa.Function) bool {
	return r.refersAt(fn, target).Filename != ""
}

// refersAt is where fn's body first names target (calls it or takes it as
// a value), with its line.
func (r *Result) refersAt(fn, target *ssa.Function) Pos {
	fd, ok := fn.Syntax().(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return Pos{}
	}
	var at Pos
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && at.Filename == "" {
			if f, ok := r.syn.obj(id).(*types.Func); ok && r.in.Graph.Prog.FuncValue(f) == target {
				at = r.pos(id.Pos(), fn, lineText(r.syn, id.Pos()))
			}
		}
		return at.Filename == ""
	})
	return at
}

// lineAt is the trimmed source line at a position.
func (r *Result) lineAt(p token.Position) string {
	data, ok := r.syn.text[p.Filename]
	if !ok {
		data = readFile(p.Filename)
		r.syn.text[p.Filename] = data
	}
	lines := strings.Split(string(data), "\n")
	if p.Line < 1 || p.Line > len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[p.Line-1])
}

// jsonStream is the os file ("Stdout") the JSON function writes the
// marshalled bytes to: a fmt print of them, to standard output or to an
// os file given directly or by the caller in jsonFn.
func (r *Result) jsonStream(jsonFn *ssa.Function) string {
	stream := ""
	for g := range r.in.Graph.Reachable(jsonFn) {
		fd, ok := g.Syntax().(*ast.FuncDecl)
		if !ok || fd.Body == nil || stream != "" {
			continue
		}
		// b, err := json.Marshal(v)
		var marshalled types.Object
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Rhs) != 1 || len(as.Lhs) == 0 {
				return true
			}
			if call, ok := ast.Unparen(as.Rhs[0]).(*ast.CallExpr); ok {
				if f := calleeObj(r.syn.info[r.syn.file(call.Pos())], call.Fun); f != nil && f.Pkg() != nil && f.Pkg().Path() == "encoding/json" && f.Name() == "Marshal" {
					marshalled = r.syn.obj(as.Lhs[0])
				}
			}
			return true
		})
		if marshalled == nil {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || stream != "" {
				return stream == ""
			}
			f := calleeObj(r.syn.info[r.syn.file(call.Pos())], call.Fun)
			if f == nil || f.Pkg() == nil || f.Pkg().Path() != "fmt" || !mentions(r, call, marshalled) {
				return true
			}
			switch f.Name() {
			case "Print", "Println", "Printf":
				stream = "Stdout"
			case "Fprint", "Fprintln", "Fprintf":
				if len(call.Args) > 0 {
					stream = r.osFile(call.Args[0], g, jsonFn)
				}
			}
			return true
		})
	}
	return stream
}

// mentions reports whether an argument of call names obj.
func mentions(r *Result, call *ast.CallExpr, obj types.Object) bool {
	found := false
	for _, a := range call.Args {
		ast.Inspect(a, func(n ast.Node) bool {
			if e, ok := n.(ast.Expr); ok && r.syn.obj(e) == obj {
				found = true
			}
			return !found
		})
	}
	return found
}

// osFile is the os file (Stdout, Stderr) e denotes in fn: directly, or a
// parameter of fn that caller passes one for.
func (r *Result) osFile(e ast.Expr, fn, caller *ssa.Function) string {
	obj := r.syn.obj(e)
	if v, ok := obj.(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == "os" {
		return v.Name()
	}
	fd, ok := fn.Syntax().(*ast.FuncDecl)
	cfd, ok2 := caller.Syntax().(*ast.FuncDecl)
	if !ok || !ok2 || cfd.Body == nil || fd.Type.Params == nil {
		return ""
	}
	idx, i := -1, 0
	for _, f := range fd.Type.Params.List {
		for _, n := range f.Names {
			if r.syn.obj(n) == obj {
				idx = i
			}
			i++
		}
	}
	if idx < 0 {
		return ""
	}
	out := ""
	ast.Inspect(cfd.Body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || out != "" || len(call.Args) <= idx {
			return out == ""
		}
		if f := calleeObj(r.syn.info[r.syn.file(call.Pos())], call.Fun); f != nil && r.in.Graph.Prog.FuncValue(f) == fn {
			if v, ok := r.syn.obj(call.Args[idx]).(*types.Var); ok && v.Pkg() != nil && v.Pkg().Path() == "os" {
				out = v.Name()
			}
		}
		return true
	})
	return out
}
