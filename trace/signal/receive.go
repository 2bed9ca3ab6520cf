package signal

import (
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
)

// Receive is how the client takes a response that cancels a watch for a
// compaction: the cases of its receive loop that branch on the wire
// response, and which of them takes such a response; where the substream
// stops after handing it out; where the user's channel is closed; and
// where the client watches again (resumes).
type Receive struct {
	Loop Pos // the receive loop
	// Cases are the cases of the loop's switch over the response, in order,
	// each with what it does with a compaction cancel.
	Cases []Case
	// Stop is the comparison of a response's error with nil that returns
	// from the substream, in the function that hands responses out.
	Stop Pos
	// Closes are the closes of the user's channel; Close is the loop's call,
	// and its case, of a function that makes one (nil when none does).
	Closes []Pos
	Close  *Resume
	// Resumes are the calls that watch again, each with the case of the
	// loop it is in.
	Resumes []Resume
	// Fragment, when set, is why the wire's fragment flag is false for a
	// compaction cancel: the case that reads it is decided with it.
	Fragment *Fragment
	// Closing is what the loop does when the substream that handed out the
	// cancel has stopped (nil when the analysis does not find it).
	Closing *Closing
}

// Case is one case of a switch.
type Case struct {
	Pos
	// Takes is "takes" when a compaction cancel is taken by this case,
	// "excludes" when the case's condition is false for it, "unknown" when
	// its condition reads what a cancel does not decide (then the cases
	// after it take the response only if it is false).
	Takes string
	// Unknown names what the condition reads that is not decided.
	Unknown string
	// Because are the lines that decide a condition the response alone
	// does not (the fragment flag, from the server's writes of it).
	Because []Pos
}

// Resume is a call that watches again, and the case it is in.
type Resume struct {
	Pos
	Case   string // the select case (or the switch case outside one), as written
	Inner  string // the switch case inside Case, if any
	Callee string // the function called, qualified (for the loop's close)
}

// receive analyses the client's receive loop (Spec.ClientRecv), when the
// spec names it.
func (r *Result) receive() {
	sg := r.in.Spec
	if sg.ClientRecv == "" {
		return
	}
	loop, err := r.in.Graph.Func(sg.ClientRecv)
	if err != nil {
		return
	}
	fd, ok := loop.Syntax().(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return
	}
	rc := &Receive{Loop: r.pos(fd.Pos(), loop, r.syn.src(fd.Name))}
	// A compaction cancel as the wire carries it: canceled, not created,
	// the compaction revision set.
	cancelV, createdV := r.fieldOrNil(sg.Cancel), r.fieldOrNil(sg.Created)
	var compactV *types.Var
	if len(sg.Fields) > 1 {
		compactV = r.fieldOrNil(sg.Fields[1])
	}
	if cancelV == nil || createdV == nil || compactV == nil {
		return
	}
	known := map[*types.Var]tri{cancelV: yes3, createdV: no3, compactV: nonzero3}
	rc.Cases = r.cases(fd, loop, known)
	undecided := false
	for _, c := range rc.Cases {
		undecided = undecided || c.Takes == "unknown"
	}
	if flag := r.fieldOrNil(sg.Fragment); undecided && flag != nil {
		if fr := r.fragment(loop, fd.Body, known); fr != nil {
			rc.Fragment = fr
			known[flag] = no3
			before := rc.Cases
			rc.Cases = r.cases(fd, loop, known)
			why := append([]Pos{fr.Alias}, fr.Writes...)
			why = append(append(append(why, fr.Guards...), fr.NoEvents), fr.Copy)
			for i := range rc.Cases {
				if i < len(before) && before[i].Takes == "unknown" && rc.Cases[i].Takes != "unknown" {
					rc.Cases[i].Because = why
				}
			}
		}
	}
	r.receiveRest(rc, fd, loop)
}

// cases decides the cases of the loop's switch over a response with the
// known fields.
func (r *Result) cases(fd *ast.FuncDecl, loop *ssa.Function, known map[*types.Var]tri) []Case {
	var out []Case
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		sw, ok := n.(*ast.SwitchStmt)
		if !ok || sw.Tag != nil || len(out) > 0 {
			return true
		}
		reads := false
		for _, st := range sw.Body.List {
			for _, e := range st.(*ast.CaseClause).List {
				ast.Inspect(e, func(n ast.Node) bool {
					if x, ok := n.(ast.Expr); ok {
						if v, ok := r.syn.obj(x).(*types.Var); ok && known[v] != 0 {
							reads = true
						}
					}
					return true
				})
			}
		}
		if !reads {
			return true
		}
		taken := false
		for _, st := range sw.Body.List {
			cc := st.(*ast.CaseClause)
			c := Case{Pos: r.pos(cc.Pos(), loop, caseText(r, cc))}
			switch {
			case taken:
				c.Takes = "excludes" // an earlier case takes it
			case len(cc.List) == 0:
				c.Takes, taken = "takes", true
			default:
				v, unknown := r.decide(cc.List, known)
				switch v {
				case yes3:
					c.Takes, taken = "takes", true
				case no3:
					c.Takes = "excludes"
				default:
					c.Takes, c.Unknown = "unknown", unknown
				}
			}
			out = append(out, c)
		}
		return false
	})
	return out
}

// receiveRest finds where the substream stops, where the user's channel is
// closed, what the loop does then, and where the client watches again.
func (r *Result) receiveRest(rc *Receive, fd *ast.FuncDecl, loop *ssa.Function) {
	sg := r.in.Spec
	if sg.ClientServe != "" {
		if serve, err := r.in.Graph.Func(sg.ClientServe); err == nil {
			rc.Stop = r.stopOnErr(serve)
		}
	}
	if sg.ClientOut != "" {
		if out := r.fieldOrNil(sg.ClientOut); out != nil {
			rc.Closes = r.closesOf(out)
			for _, c := range rc.Closes {
				if c.Func == nil {
					continue
				}
				// The call in a case that receives from a channel: the loop
				// closes a substream when the substream says it is done.
				for _, x := range r.callsIn(fd, loop, c.Func) {
					if strings.Contains(x.Case, "<-") {
						x.Callee = callpath.Name(c.Func)
						rc.Close = &x
						break
					}
				}
				if rc.Close != nil {
					break
				}
			}
		}
	}
	if rc.Close != nil {
		rc.Closing = r.closing(fd, loop, rc.Close)
	}
	if sg.ClientResume != "" {
		if res, err := r.in.Graph.Func(sg.ClientResume); err == nil {
			rc.Resumes = r.callsIn(fd, loop, res)
		}
	}
	r.Receive = rc
}

// tri is a value known in part: yes, no, a nonzero number, or unknown.
type tri int

const (
	unknown3 tri = iota
	yes3
	no3
	nonzero3
)

// decide evaluates a case's expressions (joined by ||) with the fields
// known.
func (r *Result) decide(list []ast.Expr, known map[*types.Var]tri) (tri, string) {
	out, why := no3, ""
	for _, e := range list {
		v, w := r.eval3(e, known)
		switch v {
		case yes3:
			return yes3, ""
		case unknown3:
			out, why = unknown3, w
		}
	}
	return out, why
}

func (r *Result) eval3(e ast.Expr, known map[*types.Var]tri) (tri, string) {
	switch x := ast.Unparen(e).(type) {
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			v, w := r.eval3(x.X, known)
			switch v {
			case yes3:
				return no3, ""
			case no3:
				return yes3, ""
			}
			return unknown3, w
		}
	case *ast.BinaryExpr:
		switch x.Op {
		case token.LAND, token.LOR:
			a, wa := r.eval3(x.X, known)
			b, wb := r.eval3(x.Y, known)
			if x.Op == token.LAND {
				switch {
				case a == no3 || b == no3:
					return no3, ""
				case a == yes3 && b == yes3:
					return yes3, ""
				}
			} else {
				switch {
				case a == yes3 || b == yes3:
					return yes3, ""
				case a == no3 && b == no3:
					return no3, ""
				}
			}
			return unknown3, wa + wb
		case token.EQL, token.NEQ:
			side, other := x.X, x.Y
			if _, ok := r.syn.obj(side).(*types.Var); !ok {
				side, other = x.Y, x.X
			}
			v, _ := r.syn.obj(side).(*types.Var)
			info := r.syn.info[r.syn.file(other.Pos())]
			tv, isConst := info.Types[other]
			if v != nil && known[v] == nonzero3 && isConst && tv.Value != nil && constant.Sign(tv.Value) == 0 {
				if x.Op == token.EQL {
					return no3, ""
				}
				return yes3, ""
			}
		}
	}
	if v, ok := r.syn.obj(e).(*types.Var); ok {
		switch known[v] {
		case yes3, no3:
			return known[v], ""
		}
	}
	return unknown3, r.syn.src(e)
}

func caseText(r *Result, cc *ast.CaseClause) string {
	if len(cc.List) == 0 {
		return "default"
	}
	var parts []string
	for _, e := range cc.List {
		parts = append(parts, r.syn.src(e))
	}
	return "case " + strings.Join(parts, ", ")
}

// stopOnErr finds, in fn, a comparison of an Err() call with nil whose
// branch returns.
func (r *Result) stopOnErr(fn *ssa.Function) Pos {
	fd, ok := fn.Syntax().(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return Pos{}
	}
	var at Pos
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		ifs, ok := n.(*ast.IfStmt)
		if !ok || at.Filename != "" {
			return at.Filename == ""
		}
		be, ok := ast.Unparen(ifs.Cond).(*ast.BinaryExpr)
		if !ok || be.Op != token.NEQ || !isNil(be.Y) {
			return true
		}
		call, ok := ast.Unparen(be.X).(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Err" {
			return true
		}
		if len(ifs.Body.List) > 0 {
			if _, ok := ifs.Body.List[0].(*ast.ReturnStmt); ok {
				at = r.pos(be.Pos(), fn, r.syn.src(be))
			}
		}
		return true
	})
	return at
}

// closesOf finds close(x.f) for field f.
func (r *Result) closesOf(f *types.Var) []Pos {
	var out []Pos
	r.syn.inspectAll(func(file *ast.File, info *types.Info, n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		id, ok := ast.Unparen(call.Fun).(*ast.Ident)
		if !ok || id.Name != "close" {
			return true
		}
		if b, ok := info.Uses[id].(*types.Builtin); !ok || b.Name() != "close" {
			return true
		}
		if r.syn.obj(call.Args[0]) == f {
			path, _ := r.syn.path(call.Pos(), call.End())
			out = append(out, r.pos(call.Pos(), r.funcAt(file, path), r.syn.src(call)))
		}
		return true
	})
	sortBy(out, func(a, b Pos) bool { return posLess(a.Position, b.Position) })
	return out
}

// callsIn finds the calls of target in fd, each with its enclosing case.
func (r *Result) callsIn(fd *ast.FuncDecl, fn *ssa.Function, target *ssa.Function) []Resume {
	var out []Resume
	var stack []ast.Node
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		f := calleeObj(r.syn.info[r.syn.file(call.Pos())], call.Fun)
		if f == nil || r.in.Graph.Prog.FuncValue(f) != target && f != target.Object() {
			return true
		}
		res := Resume{Pos: r.pos(call.Pos(), fn, r.syn.src(call))}
		inner := ""
		for i := len(stack) - 1; i >= 0; i-- {
			switch c := stack[i].(type) {
			case *ast.CaseClause:
				if inner == "" {
					inner = caseText(r, c)
				}
				continue
			case *ast.CommClause:
				res.Case = "default"
				if c.Comm != nil {
					res.Case = "case " + r.syn.src(c.Comm)
				}
			default:
				continue
			}
			break
		}
		if res.Case == "" {
			res.Case = inner
		} else {
			res.Inner = inner
		}
		out = append(out, res)
		return true
	})
	return out
}
