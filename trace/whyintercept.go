package trace

import (
	"go/types"
	"slices"
	"sort"
	"strings"

	"github.com/srctrace/srctrace/trace/callpath"
	"github.com/srctrace/srctrace/trace/feasible"
	"github.com/srctrace/srctrace/trace/report"
	"github.com/srctrace/srctrace/trace/study"
	"golang.org/x/tools/go/ssa"
)

// grpcPkg is the gRPC library's package: its server options install a
// server's interceptors.
const grpcPkg = "google.golang.org/grpc"

// interceptors are the server interceptors among w's roots that the
// loaded code builds a gRPC server with, each with the returns by which
// it refuses a call before it calls the handler it is handed, and the
// way to each: what a call must not meet before any gRPC root's handler
// runs. One is installed when the function that
// makes it (the function itself, or the function whose literal it is)
// is called, or referred to, in a function that also calls one of the
// gRPC library's options that install interceptors (its name ends in
// Interceptor): the option the server is made with.
func (w *whyRun) interceptors() []report.Interceptor {
	var out []report.Interceptor
	for _, x := range w.Roots {
		stream, ok := serverInterceptor(x)
		if !ok {
			continue
		}
		at, ok := w.installed(x.Func, stream)
		if !ok {
			continue
		}
		handler := handlerParam(x.Func)
		if handler == nil {
			continue
		}
		var calls []ssa.CallInstruction
		for _, b := range x.Func.Blocks {
			for _, ins := range b.Instrs {
				if c, ok := ins.(ssa.CallInstruction); ok && c.Common().Value == handler {
					calls = append(calls, c)
				}
			}
		}
		if len(calls) == 0 {
			continue
		}
		pos := w.Graph.Fset().Position(x.Func.Pos())
		hfile, hline := w.position(calls[0].Pos())
		ifile, iline := w.position(at.Pos())
		ic := report.Interceptor{
			Name: callpath.Name(x.Func), File: w.Source.RepoPath(pos.Filename), Line: pos.Line, Stream: stream,
			Installed: report.Loc{File: ifile, Line: iline},
			Handler:   report.Loc{File: hfile, Line: hline},
			Refuses:   []report.Refused{},
		}
		// Each return that no call of the handler comes before: the call
		// ends there, refused, on the runs its way can take.
		for _, b := range x.Func.Blocks {
			if len(b.Instrs) == 0 || b == x.Func.Recover {
				continue
			}
			ret, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
			if !ok || slices.ContainsFunc(calls, func(c ssa.CallInstruction) bool { return feasible.MayRunBefore(c, ret) }) {
				continue
			}
			res, _ := w.Feas.Check(feasible.Path{Root: x.Func, Target: ret, ArgsNonNil: x.Kind.ArgsNonNil()})
			if res.Verdict == feasible.No {
				continue
			}
			file, line := w.position(ret.Pos())
			ic.Refuses = append(ic.Refuses, report.Refused{At: report.Loc{File: file, Line: line}, Way: w.ways([]study.Way{{Res: res}})[0]})
		}
		out = append(out, ic)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Stream != b.Stream {
			return !a.Stream
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
	return out
}

// installed is where the loaded code builds a gRPC server's option with
// interceptor fn (see interceptors): a stream method's interceptor by an
// option for streams (its name holds Stream), a unary method's by one
// that is not.
func (w *whyRun) installed(fn *ssa.Function, stream bool) (ssa.CallInstruction, bool) {
	maker := fn
	if fn.Parent() != nil {
		maker = fn.Parent()
	}
	node := w.Graph.CG.Nodes[maker]
	var callers []*ssa.Function
	if node != nil {
		for _, e := range node.In {
			callers = append(callers, e.Caller.Func)
		}
	}
	if maker == fn {
		// A function given by name: the functions that refer to it.
		for f := range w.Graph.Funcs {
			if refersTo(f, fn) {
				callers = append(callers, f)
			}
		}
	}
	sort.Slice(callers, func(i, j int) bool { return callers[i].Pos() < callers[j].Pos() })
	for _, c := range callers {
		for _, b := range c.Blocks {
			for _, ins := range b.Instrs {
				call, ok := ins.(ssa.CallInstruction)
				if !ok {
					continue
				}
				if sc := call.Common().StaticCallee(); sc != nil && sc.Pkg != nil && sc.Pkg.Pkg.Path() == grpcPkg && strings.HasSuffix(sc.Name(), "Interceptor") && strings.Contains(sc.Name(), "Stream") == stream {
					return call, true
				}
			}
		}
	}
	return nil, false
}

// refersTo reports whether f's code uses function g as a value.
func refersTo(f, g *ssa.Function) bool {
	for _, b := range f.Blocks {
		for _, ins := range b.Instrs {
			for _, op := range ins.Operands(nil) {
				if op != nil && *op == g {
					if c, ok := ins.(ssa.CallInstruction); ok && c.Common().Value == g {
						continue // a call of it, not a use as a value
					}
					return true
				}
			}
		}
	}
	return false
}

// handlerParam is the parameter of interceptor fn that gRPC hands the
// method's handler in (a UnaryHandler or a StreamHandler of the gRPC
// library), nil when it has none.
func handlerParam(fn *ssa.Function) *ssa.Parameter {
	for _, p := range fn.Params {
		n, ok := p.Type().(*types.Named)
		if !ok || n.Obj().Pkg() == nil || !strings.HasPrefix(n.Obj().Pkg().Path(), grpcPkg) {
			continue
		}
		if name := n.Obj().Name(); name == "UnaryHandler" || name == "StreamHandler" {
			return p
		}
	}
	return nil
}
