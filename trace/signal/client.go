package signal

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"os"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
)

func readFile(name string) []byte {
	data, _ := os.ReadFile(name)
	return data
}

func (r *Result) errorTextDepth(v *types.Var, depth int) ErrorText {
	et := ErrorText{Object: qualified(v)}
	if v.Pkg() == nil || depth > 6 {
		return et
	}
	et.Chain = []Pos{r.pos(v.Pos(), nil, lineText(r.syn, v.Pos()))}
	e := r.initializer(v)
	if e == nil {
		return et
	}
	sub := r.exprTextDepth(e, depth+1)
	et.Text, et.Code = sub.Text, sub.Code
	et.Chain = append(et.Chain, sub.Chain...)
	return et
}

func qualified(o types.Object) string {
	if o.Pkg() == nil {
		return o.Name()
	}
	return o.Pkg().Path() + "." + o.Name()
}

// exprText evaluates the text of an error expression.
func (r *Result) exprText(e ast.Expr) ErrorText { return r.exprTextDepth(e, 0) }

func (r *Result) exprTextDepth(e ast.Expr, depth int) ErrorText {
	var et ErrorText
	f := r.syn.file(e.Pos())
	if f == nil || depth > 6 {
		return et
	}
	info := r.syn.info[f]
	if tv, ok := info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
		et.Text = constant.StringVal(tv.Value)
		return et
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident, *ast.SelectorExpr:
		if v, ok := r.syn.obj(x).(*types.Var); ok && !v.IsField() {
			return r.errorTextDepth(v, depth)
		}
	case *ast.CallExpr:
		// X.Error() is the text of X.
		if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" && len(x.Args) == 0 {
			return r.exprTextDepth(sel.X, depth+1)
		}
		for _, a := range x.Args {
			if c, ok := r.syn.obj(a).(*types.Const); ok && c.Pkg() != nil && c.Pkg().Path() == "google.golang.org/grpc/codes" {
				et.Code = c.Name()
				continue
			}
			sub := r.exprTextDepth(a, depth+1)
			if sub.Text != "" && et.Text == "" {
				et.Text = sub.Text
				if sub.Code != "" {
					et.Code = sub.Code
				}
				et.Chain = append(et.Chain, sub.Chain...)
			}
		}
	}
	return et
}

// client analyses the client's error method: the case that reads the
// signal field and what it returns.
func (r *Result) client() {
	sg := r.in.Spec
	fn, err := r.in.Graph.Func(sg.ClientErr)
	if err != nil {
		return
	}
	fd, ok := fn.Syntax().(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return
	}
	signal := map[*types.Var]bool{}
	for _, f := range sg.Fields {
		if v := r.fieldOrNil(f); v != nil {
			signal[v] = true
		}
	}
	c := &Client{Method: r.pos(fd.Pos(), fn, r.syn.src(fd.Name))}
	var before []string
	found := false
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if found {
			return false
		}
		cc, ok := n.(*ast.CaseClause)
		if !ok {
			return true
		}
		reads := false
		for _, e := range cc.List {
			ast.Inspect(e, func(n ast.Node) bool {
				if ex, ok := n.(ast.Expr); ok {
					if v, ok := r.syn.obj(ex).(*types.Var); ok && signal[v] {
						reads = true
					}
				}
				return true
			})
		}
		if !reads {
			for _, e := range cc.List {
				before = append(before, r.syn.src(e))
			}
			return false
		}
		found = true
		c.Case = r.pos(cc.Pos(), fn, lineText(r.syn, cc.Pos()))
		for _, st := range cc.Body {
			if ret, ok := st.(*ast.ReturnStmt); ok && len(ret.Results) > 0 {
				c.Return = r.pos(ret.Pos(), fn, r.syn.src(ret))
				c.Err = r.exprText(ret.Results[0])
			}
		}
		return false
	})
	if !found {
		return
	}
	c.Before = before
	if len(sg.Fields) > 0 {
		c.Copies = r.writesOf(sg.Fields[len(sg.Fields)-1])
	}
	if buf := r.fieldOrNil(sg.ClientBuffer); buf != nil {
		r.syn.inspectAll(func(f *ast.File, info *types.Info, n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok {
				return true
			}
			for i, l := range as.Lhs {
				if r.syn.obj(l) == buf && i < len(as.Rhs) {
					if call, ok := as.Rhs[i].(*ast.CallExpr); ok {
						if id, ok := call.Fun.(*ast.Ident); ok && id.Name == "append" {
							path, _ := r.syn.path(as.Pos(), as.End())
							c.Buffer = append(c.Buffer, r.pos(as.Pos(), r.funcAt(f, path), r.syn.src(as)))
						}
					}
				}
			}
			return true
		})
	}
	r.Client = c
}

// readPath finds the map that translates the sentinel into a wire error,
// where it is indexed, and where the read entry calls the indexing code.
func (r *Result) readPath(fns []*ssa.Function) {
	var mapVar *types.Var
	rp := &ReadPath{}
	r.syn.inspectAll(func(f *ast.File, info *types.Info, n ast.Node) bool {
		kv, ok := n.(*ast.KeyValueExpr)
		if !ok || mapVar != nil || r.syn.obj(kv.Key) != r.in.Sentinel {
			return true
		}
		path, _ := r.syn.path(kv.Pos(), kv.End())
		for _, p := range path {
			if vs, ok := p.(*ast.ValueSpec); ok && len(vs.Names) > 0 {
				if v, ok := info.Defs[vs.Names[0]].(*types.Var); ok {
					if _, isMap := v.Type().Underlying().(*types.Map); isMap {
						mapVar = v
						rp.Map = r.pos(v.Pos(), nil, lineText(r.syn, v.Pos()))
						rp.Key = r.pos(kv.Pos(), nil, r.syn.src(kv))
						rp.Wire = r.exprText(kv.Value)
					}
				}
			}
		}
		return true
	})
	if mapVar == nil {
		return
	}
	indexers := map[*ssa.Function]bool{}
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				lk, ok := ins.(*ssa.Lookup)
				if !ok {
					continue
				}
				if ld, ok := lk.X.(*ssa.UnOp); ok && ld.Op == token.MUL {
					if g, ok := ld.X.(*ssa.Global); ok && g.Object() == mapVar {
						indexers[fn] = true
						rp.Indexed = append(rp.Indexed, r.pos(lk.Pos(), fn, lineText(r.syn, lk.Pos())))
					}
				}
			}
		}
	}
	if entry := r.in.Entries[r.in.Spec.Read]; entry != nil {
		for _, e := range r.in.Graph.Out(entry) {
			if indexers[e.Callee.Func] {
				p := r.in.Graph.CallPos(e.Site)
				rp.Called = append(rp.Called, Pos{Position: p, Func: entry, Text: callpath.Name(e.Callee.Func)})
			}
		}
	}
	r.Read = rp
}

// ErrorUses classifies what the caller does with the error a call returns.
func (r *Result) ErrorUses(call ssa.CallInstruction) (uses []string, dropped bool) {
	v := call.Value()
	if v == nil {
		return nil, false
	}
	var errv []ssa.Value
	if _, ok := v.Type().(*types.Tuple); ok {
		for _, ref := range *v.Referrers() {
			if ex, ok := ref.(*ssa.Extract); ok && callpath.IsError(ex.Type()) {
				errv = append(errv, ex)
			}
		}
	} else if callpath.IsError(v.Type()) {
		errv = append(errv, v)
	}
	if len(errv) == 0 {
		return nil, false
	}
	dropped = true
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			uses = append(uses, s)
		}
	}
	for _, ev := range errv {
		for _, ref := range *ev.Referrers() {
			switch x := ref.(type) {
			case *ssa.DebugRef:
				continue // debug information, not a use
			case *ssa.BinOp:
				add("compared with nil")
			case *ssa.Return:
				add("returned")
				dropped = false
			case ssa.CallInstruction:
				name := "a call"
				if c := x.Common().StaticCallee(); c != nil {
					name = callpath.Name(c)
				}
				add("passed to " + name)
				dropped = false
			case *ssa.Store:
				add("stored")
				dropped = false
			default:
				add("used")
				dropped = false
			}
		}
	}
	if len(uses) == 0 {
		uses = []string{"not used at all"}
	}
	return uses, dropped
}
