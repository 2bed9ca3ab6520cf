package signal

import (
	"go/ast"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Convert is how the client turns the server's error into the one it
// hands the user, for the failing call of the tool's get, compared with
// the watch's error.
type Convert struct {
	// Func is the conversion function; Path the calls from the failing
	// call's implementation to it.
	Func Pos
	Path []Pos
	// Watch is the declaration of the watch's client error, when its
	// initializer is the conversion applied to the read's wire error; Read
	// is that wire error's declaration.
	Watch, Read Pos
	// Made is the composite literal the conversion returns, and
	// Comparable whether its type is comparable: two values it makes from
	// the same error then compare equal.
	Made       Pos
	Comparable bool
}

func (r *Result) convert() {
	sg := r.in.Spec
	if sg.ClientConvert == "" || sg.Tool.Failing == "" || r.Client == nil || r.Read == nil {
		return
	}
	conv, err := r.in.Graph.Func(sg.ClientConvert)
	if err != nil {
		return
	}
	c := &Convert{Func: r.pos(conv.Pos(), conv, callName(conv))}
	// The failing call's implementations and their path to the conversion.
	_, m, err := r.in.Graph.Callable(sg.Tool.Failing)
	if err == nil && m != nil {
		if impl := r.implementation(m); impl != nil {
			if ps := r.in.Graph.Paths(impl, conv, 1); len(ps) > 0 {
				for _, h := range ps[0] {
					c.Path = append(c.Path, Pos{Position: h.Pos, Func: h.Caller, Text: callName(h.Callee)})
				}
			}
		}
	}
	// The watch's error: conv(read's wire error)?
	if obj, _, err := r.in.Graph.Lookup(r.Client.Err.Object); err == nil {
		if v, ok := obj.(*types.Var); ok {
			if call, ok := ast.Unparen(r.initializer(v)).(*ast.CallExpr); ok && len(call.Args) == 1 {
				info := r.syn.info[r.syn.file(call.Pos())]
				if f := calleeObj(info, call.Fun); f != nil && f == conv.Object() {
					if w, ok := r.syn.obj(call.Args[0]).(*types.Var); ok && qualified(w) == r.Read.Wire.Object {
						c.Watch = r.pos(v.Pos(), nil, lineText(r.syn, v.Pos()))
						c.Read = r.pos(w.Pos(), nil, lineText(r.syn, w.Pos()))
					}
				}
			}
		}
	}
	// What the conversion makes.
	if fd, ok := conv.Syntax().(*ast.FuncDecl); ok && fd.Body != nil {
		info := r.syn.info[r.syn.file(fd.Pos())]
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			ret, ok := n.(*ast.ReturnStmt)
			if !ok || len(ret.Results) != 1 || c.Made.Filename != "" {
				return true
			}
			if cl, ok := ast.Unparen(ret.Results[0]).(*ast.CompositeLit); ok {
				c.Made = r.pos(cl.Pos(), conv, r.syn.src(cl))
				c.Comparable = types.Comparable(info.TypeOf(cl))
			}
			return true
		})
	}
	r.Convert = c
}

// implementation finds the concrete method that the loaded program calls
// for interface method m: the first method of that name and signature on
// a type of m's package.
func (r *Result) implementation(m *types.Func) *ssa.Function {
	iface, ok := m.Type().(*types.Signature).Recv().Type().Underlying().(*types.Interface)
	if !ok || m.Pkg() == nil {
		return nil
	}
	sc := m.Pkg().Scope()
	for _, name := range sc.Names() {
		tn, ok := sc.Lookup(name).(*types.TypeName)
		if !ok {
			continue
		}
		for _, t := range []types.Type{tn.Type(), types.NewPointer(tn.Type())} {
			if _, isIface := tn.Type().Underlying().(*types.Interface); isIface || !types.Implements(t, iface) {
				continue
			}
			if sel := r.in.Graph.Prog.MethodSets.MethodSet(t).Lookup(m.Pkg(), m.Name()); sel != nil {
				if fn := r.in.Graph.Prog.MethodValue(sel); fn != nil && fn.Synthetic == "" {
					return fn
				}
			}
		}
	}
	return nil
}

func callName(fn *ssa.Function) string {
	return fn.String()
}
