package signal

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/srctrace/srctrace/trace/callpath"
)

// Commands reads a command-line tool for any error: its commands as the
// code builds its command tree, the client stubs each command's calls can
// send, and what a command prints, and with which exit status, when one
// of its client calls fails with an error of a given text. It is the
// tool's layer of a study (Tool) made generic: nothing in it is
// particular to one error.
type Commands struct {
	r    *Result
	pkgs map[string]bool // the packages whose functions are inlined
	send *sender
	// lits are, by the scope varLit searches (a package's path, or "*"
	// for every file) and the command type, each variable's first
	// command literal, found in one walk of the scope.
	lits   map[string]map[types.Object]*ast.CompositeLit
	litsMu sync.Mutex
}

// CommandTree names a tool's command tree (see target.Tool).
type CommandTree struct {
	Root, Command, Use, Add string
	Run                     []string
	// Aliases is the command type's field of other names, if it has one.
	Aliases string
}

// Command is one command of the tool that runs a function.
type Command struct {
	// Path is the command's words after the tool's name ("member add");
	// Use its whole usage line.
	Path, Use string
	Run       *ssa.Function
	// At is where the command is made (its literal); UseAt its usage
	// line's field.
	At, UseAt Pos
}

// NewCommands prepares the tool's layer over loaded packages. The
// functions of inline's packages (the tool's own: its commands' and its
// exit function's) are followed into when they are called; other calls
// either fail, as Run is told, or succeed.
func NewCommands(g *callpath.Graph, pkgs []*packages.Package, inline []string) *Commands {
	r := &Result{in: Input{Spec: &Spec{}, Pkgs: pkgs, Graph: g}, syn: newSyntax(g.Fset(), pkgs)}
	c := &Commands{r: r, pkgs: map[string]bool{}}
	for _, p := range inline {
		c.pkgs[p] = true
	}
	c.send = &sender{c: c, memo: map[string]map[*ssa.Function]bool{}, fields: map[*ssa.Function]map[string]constant.Value{}}
	return c
}

// Inline adds a package whose functions are followed into.
func (c *Commands) Inline(pkg string) { c.pkgs[pkg] = true }

// Tree reads the tool's commands from the code that builds its command
// tree: the root command's literal, the commands added to it (a call of
// a function that returns a command literal, whose own added commands
// are its subcommands), recursively. Only commands that run a function
// are returned, sorted by path.
func (c *Commands) Tree(t CommandTree) ([]Command, error) {
	root, err := c.tree(t)
	if err != nil {
		return nil, err
	}
	var out []Command
	var walk func(n *cmdNode)
	walk = func(n *cmdNode) {
		for _, k := range n.kids {
			if k.cmd.Run != nil {
				out = append(out, k.cmd)
			}
			walk(k)
		}
	}
	walk(root)
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// cmdNode is a command of the tree, with its other names and the
// commands added to it, in the order the code adds them.
type cmdNode struct {
	cmd     Command
	name    string
	aliases []string
	kids    []*cmdNode
}

// Resolved is the command a user's words run.
type Resolved struct {
	Command
	// ByPrefix is set when a word is not a command's name or alias but the
	// start of exactly one's, which the library runs when its prefix
	// matching is on.
	ByPrefix bool
}

// Resolve finds the command that typed words (after the tool's name) run,
// as a command library in the manner of cobra finds it: at each level the
// command whose name or alias is the word, else, when prefix is set, the
// only command whose name or an alias begins with it. Found is false when
// no command answers a word.
func (c *Commands) Resolve(t CommandTree, typed string, prefix bool) (Resolved, bool, error) {
	n, err := c.tree(t)
	if err != nil {
		return Resolved{}, false, err
	}
	var out Resolved
	for _, word := range strings.Fields(typed) {
		var next *cmdNode
		var starts []*cmdNode
		for _, k := range n.kids {
			if k.name == word || contains(k.aliases, word) {
				next = k
				break
			}
			begins := strings.HasPrefix(k.name, word)
			for _, a := range k.aliases {
				begins = begins || strings.HasPrefix(a, word)
			}
			if begins {
				starts = append(starts, k)
			}
		}
		if next == nil && prefix && len(starts) == 1 {
			next, out.ByPrefix = starts[0], true
		}
		if next == nil {
			return Resolved{}, false, nil
		}
		n = next
	}
	out.Command = n.cmd
	return out, true, nil
}

// SetTrue finds a store of true in the package-level variable global
// ("pkg/path.Name") in a package-level function of the loaded packages
// (an init function, say) or a function literal in one; the first by
// position when there are several.
func (c *Commands) SetTrue(global string) (Pos, bool) {
	var found Pos
	ok := false
	var fns []*ssa.Function
	for _, p := range c.r.in.Graph.Pkgs {
		if p == nil {
			continue
		}
		for _, m := range p.Members {
			if fn, isFn := m.(*ssa.Function); isFn {
				fns = append(fns, withAnon(fn)...)
			}
		}
	}
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				st, isStore := in.(*ssa.Store)
				if !isStore {
					continue
				}
				g, isGlobal := st.Addr.(*ssa.Global)
				if !isGlobal || g.Pkg == nil || g.Pkg.Pkg.Path()+"."+g.Name() != global {
					continue
				}
				k, isConst := st.Val.(*ssa.Const)
				if !isConst || k.Value == nil || k.Value.Kind() != constant.Bool || !constant.BoolVal(k.Value) {
					continue
				}
				p := c.r.pos(st.Pos(), fn, lineText(c.r.syn, st.Pos()))
				if !ok || p.Filename < found.Filename || (p.Filename == found.Filename && p.Line < found.Line) {
					found, ok = p, true
				}
			}
		}
	}
	return found, ok
}

func (c *Commands) tree(t CommandTree) (*cmdNode, error) {
	obj, _, err := c.r.in.Graph.Lookup(t.Root)
	if err != nil {
		return nil, fmt.Errorf("the tool's root command %s: %w", t.Root, err)
	}
	adds := map[types.Object][]ast.Expr{}
	c.r.syn.inspectAll(func(f *ast.File, info *types.Info, n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != t.Add {
			return true
		}
		if o := c.r.syn.obj(sel.X); o != nil {
			adds[o] = append(adds[o], call.Args...)
		}
		return true
	})
	seen := map[types.Object]bool{}
	var visit func(parent *cmdNode, o types.Object, lit *ast.CompositeLit, path []string, depth int)
	visit = func(parent *cmdNode, o types.Object, lit *ast.CompositeLit, path []string, depth int) {
		if depth > 6 {
			return
		}
		use, run, aliases, useAt := c.commandLit(lit, t)
		n := parent
		if depth > 0 {
			name := strings.Fields(use)
			if len(name) == 0 {
				return
			}
			path = append(append([]string{}, path...), name[0])
			n = &cmdNode{name: name[0], aliases: aliases,
				cmd: Command{Path: strings.Join(path, " "), Use: use, Run: run, At: c.r.pos(lit.Pos(), nil, lineText(c.r.syn, lit.Pos()))}}
			if useAt.IsValid() {
				n.cmd.UseAt = c.r.pos(useAt, nil, lineText(c.r.syn, useAt))
			}
			parent.kids = append(parent.kids, n)
		}
		if o == nil || seen[o] {
			return
		}
		seen[o] = true
		for _, a := range adds[o] {
			child, clit := c.commandOf(a, t)
			if clit != nil {
				visit(n, child, clit, path, depth+1)
			}
		}
	}
	root := c.varLit(obj, t)
	if root == nil {
		return nil, fmt.Errorf("the tool's root command %s is not made by a %s literal", t.Root, t.Command)
	}
	top := &cmdNode{}
	visit(top, obj, root, nil, 0)
	return top, nil
}

// isCommand reports whether a literal makes the library's command type.
func (c *Commands) isCommand(lit *ast.CompositeLit, t CommandTree) bool {
	info := c.r.syn.info[c.r.syn.file(lit.Pos())]
	if info == nil {
		return false
	}
	typ := info.TypeOf(lit)
	if p, ok := typ.(*types.Pointer); ok {
		typ = p.Elem()
	}
	n, ok := typ.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path()+"."+n.Obj().Name() == t.Command
}

// commandLit reads a command literal's usage line and the function it
// runs.
func (c *Commands) commandLit(lit *ast.CompositeLit, t CommandTree) (string, *ssa.Function, []string, token.Pos) {
	info := c.r.syn.info[c.r.syn.file(lit.Pos())]
	use := ""
	var run *ssa.Function
	var aliases []string
	var useAt token.Pos
	for _, el := range lit.Elts {
		kv, ok := el.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		key, ok := kv.Key.(*ast.Ident)
		if !ok {
			continue
		}
		switch {
		case key.Name == t.Use:
			if tv, ok := info.Types[kv.Value]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
				use, useAt = constant.StringVal(tv.Value), kv.Pos()
			}
		case contains(t.Run, key.Name) && run == nil:
			run = c.funcOf(kv.Value)
		case t.Aliases != "" && key.Name == t.Aliases:
			if l, ok := ast.Unparen(kv.Value).(*ast.CompositeLit); ok {
				for _, e := range l.Elts {
					if tv, ok := info.Types[e]; ok && tv.Value != nil && tv.Value.Kind() == constant.String {
						aliases = append(aliases, constant.StringVal(tv.Value))
					}
				}
			}
		}
	}
	return use, run, aliases, useAt
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// funcOf is the function a function-valued expression names: a declared
// function, or a function literal.
func (c *Commands) funcOf(e ast.Expr) *ssa.Function {
	switch x := ast.Unparen(e).(type) {
	case *ast.FuncLit:
		path, f := c.r.syn.path(x.Pos(), x.End())
		if parent := c.r.funcAt(f, path[1:]); parent != nil {
			for _, a := range withAnon(parent) {
				if a.Syntax() == x {
					return a
				}
			}
		}
	default:
		if fn, ok := c.r.syn.obj(x).(*types.Func); ok {
			return c.r.in.Graph.Prog.FuncValue(fn)
		}
	}
	return nil
}

func withAnon(fn *ssa.Function) []*ssa.Function {
	out := []*ssa.Function{fn}
	for _, a := range fn.AnonFuncs {
		out = append(out, withAnon(a)...)
	}
	return out
}

// varLit is the command literal a variable is initialised or assigned
// with.
func (c *Commands) varLit(o types.Object, t CommandTree) *ast.CompositeLit {
	scope := "*"
	if !o.Exported() && o.Pkg() != nil {
		scope = o.Pkg().Path()
	}
	key := scope + "|" + t.Command
	c.litsMu.Lock()
	defer c.litsMu.Unlock()
	idx, ok := c.lits[key]
	if !ok {
		idx = map[types.Object]*ast.CompositeLit{}
		first := func(obj types.Object, e ast.Expr) {
			if obj == nil || idx[obj] != nil {
				return
			}
			if l := c.litOf(e, t); l != nil {
				idx[obj] = l
			}
		}
		c.r.syn.inspectIn(o, func(f *ast.File, info *types.Info, n ast.Node) bool {
			switch x := n.(type) {
			case *ast.ValueSpec:
				for i, name := range x.Names {
					if i < len(x.Values) {
						first(info.Defs[name], x.Values[i])
					}
				}
			case *ast.AssignStmt:
				if len(x.Lhs) == len(x.Rhs) {
					for i, l := range x.Lhs {
						first(c.r.syn.obj(l), x.Rhs[i])
					}
				}
			}
			return true
		})
		if c.lits == nil {
			c.lits = map[string]map[types.Object]*ast.CompositeLit{}
		}
		c.lits[key] = idx
	}
	return idx[o]
}

// litOf is the command literal an expression is (or points to).
func (c *Commands) litOf(e ast.Expr, t CommandTree) *ast.CompositeLit {
	e = ast.Unparen(e)
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
		e = ast.Unparen(u.X)
	}
	if lit, ok := e.(*ast.CompositeLit); ok && c.isCommand(lit, t) {
		return lit
	}
	return nil
}

// commandOf is the command an argument of Add is: a literal, a variable,
// or a call of a function that returns one (a local it made, or a
// literal); with the object its own subcommands are added to.
func (c *Commands) commandOf(e ast.Expr, t CommandTree) (types.Object, *ast.CompositeLit) {
	if lit := c.litOf(e, t); lit != nil {
		return nil, lit
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident, *ast.SelectorExpr:
		if v, ok := c.r.syn.obj(x).(*types.Var); ok {
			return v, c.varLit(v, t)
		}
	case *ast.CallExpr:
		fn, ok := c.r.syn.obj(x.Fun).(*types.Func)
		if !ok {
			return nil, nil
		}
		sf := c.r.in.Graph.Prog.FuncValue(fn)
		if sf == nil {
			return nil, nil
		}
		fd, ok := sf.Syntax().(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			return nil, nil
		}
		var obj types.Object
		var lit *ast.CompositeLit
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if _, ok := n.(*ast.FuncLit); ok {
				return false
			}
			ret, ok := n.(*ast.ReturnStmt)
			if !ok || len(ret.Results) != 1 || lit != nil {
				return lit == nil
			}
			if l := c.litOf(ret.Results[0], t); l != nil {
				lit = l
				return false
			}
			if v, ok := c.r.syn.obj(ret.Results[0]).(*types.Var); ok {
				obj, lit = v, c.varLit(v, t)
			}
			return false
		})
		return obj, lit
	}
	return nil, nil
}

// Run evaluates what fn (a command's function) prints, and its exit
// status, when the calls fails names return an error of text errText and
// every other call succeeds. Conditions the evaluation does not decide are
// taken as false and listed in Assumed.
func (c *Commands) Run(fn *ssa.Function, fails func(fn *ssa.Function, call *ast.CallExpr, f *types.Func) bool, errText string) *ToolRun {
	in := &interp{r: c.r, fails: fails, failErr: errText, pkgs: c.pkgs}
	return in.exec(fn)
}

// Exit evaluates what fn (the tool's exit function) prints for an error
// of text errText passed as its error parameter.
func (c *Commands) Exit(fn *ssa.Function, errText string) *ToolRun {
	fd, ok := fn.Syntax().(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return nil
	}
	in := &interp{r: c.r, pkgs: c.pkgs}
	in.run = &ToolRun{Func: c.r.pos(fd.Pos(), fn, fd.Name.Name)}
	in.env = map[types.Object]value{}
	for _, field := range fd.Type.Params.List {
		for _, name := range field.Names {
			if o := c.r.syn.obj(name); o != nil && callpath.IsError(o.Type()) {
				in.env[o] = value{kind: vError, s: errText}
			}
		}
	}
	in.block(fd.Body.List, fn)
	return in.run
}

// Inlined reports whether the functions of f's package are followed into
// (a call of one fails only where a call inside it does).
func (c *Commands) Inlined(f *types.Func) bool {
	sig, _ := f.Type().(*types.Signature)
	return f.Pkg() != nil && c.pkgs[f.Pkg().Path()] && sig != nil && sig.Recv() == nil
}

// Sends returns the stubs (of stubs) that a call of fn can send in the
// goroutine that calls it; with async, also in the goroutines it starts
// (a stream a client opens in a goroutine of its own).
func (c *Commands) Sends(fn *ssa.Function, stubs map[*ssa.Function]bool, async bool) map[*ssa.Function]bool {
	c.send.stubs, c.send.async = stubs, async
	defer func() { c.send.async = false }()
	return c.send.walk(fn, nil, 0)
}

// SendsAt returns the stubs (of stubs) that one call in fn's code can
// send.
func (c *Commands) SendsAt(fn *ssa.Function, call *ast.CallExpr, stubs map[*ssa.Function]bool) map[*ssa.Function]bool {
	c.send.stubs = stubs
	out := map[*ssa.Function]bool{}
	c.send.call(fn, call, nil, 0, out)
	return out
}

// sender finds the stubs a function can send: it follows the calls a
// function makes in its own goroutine (not those of its go statements),
// and where a caller passes a value that a function made with a constant
// field into a callee that switches on that field, only that case.
type sender struct {
	c      *Commands
	stubs  map[*ssa.Function]bool
	memo   map[string]map[*ssa.Function]bool
	busy   map[string]bool
	fields map[*ssa.Function]map[string]constant.Value
	sites  map[*ssa.Function]map[token.Pos][]ssa.CallInstruction
	async  bool
}

// known is what a callee's parameters are known to hold: constant fields.
type known map[*types.Var]map[string]constant.Value

func (k known) key() string {
	var parts []string
	for v, fs := range k {
		for f, c := range fs {
			parts = append(parts, fmt.Sprintf("%p.%s=%s", v, f, c.ExactString()))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

const sendDepth = 16

func (s *sender) walk(fn *ssa.Function, k known, depth int) map[*ssa.Function]bool {
	if s.stubs[fn] {
		return map[*ssa.Function]bool{fn: true}
	}
	key := fmt.Sprintf("%p|%s|%p|%v", fn, k.key(), s.stubs, s.async)
	if m, ok := s.memo[key]; ok {
		return m
	}
	if s.busy == nil {
		s.busy = map[string]bool{}
	}
	if depth > sendDepth || s.busy[key] {
		return nil
	}
	s.busy[key] = true
	defer delete(s.busy, key)
	out := map[*ssa.Function]bool{}
	var body *ast.BlockStmt
	switch x := fn.Syntax().(type) {
	case *ast.FuncDecl:
		body = x.Body
	case *ast.FuncLit:
		body = x.Body
	}
	if body == nil {
		// No syntax (a wrapper): its calls, as the graph has them.
		for _, e := range s.c.r.in.Graph.Out(fn) {
			if _, isGo := e.Site.(*ssa.Go); isGo && !s.async {
				continue
			}
			for st := range s.walk(e.Callee.Func, nil, depth+1) {
				out[st] = true
			}
		}
		s.memo[key] = out
		return out
	}
	s.stmts(fn, body, k, depth, out)
	s.memo[key] = out
	return out
}

// stmts walks a body: its calls, not its go statements nor its function
// literals (a literal runs when it is called, as a call of its own), and
// of a switch on a known field only the case of its constant.
func (s *sender) stmts(fn *ssa.Function, body ast.Node, k known, depth int, out map[*ssa.Function]bool) {
	ast.Inspect(body, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.GoStmt:
			if s.async {
				s.callAt(fn, x.Call, x.Go, k, depth, out)
			}
			return false
		case *ast.FuncLit:
			return false
		case *ast.SwitchStmt:
			if c, ok := s.knownTag(x.Tag, k); ok {
				if x.Init != nil {
					s.stmts(fn, x.Init, k, depth, out)
				}
				s.stmts(fn, s.chosen(x, c), k, depth, out)
				return false
			}
		case *ast.CallExpr:
			s.call(fn, x, k, depth, out)
		}
		return true
	})
}

// knownTag is the constant a switch's tag X.f has, when X is a parameter
// whose field f is known.
func (s *sender) knownTag(tag ast.Expr, k known) (constant.Value, bool) {
	sel, ok := ast.Unparen(tag).(*ast.SelectorExpr)
	if !ok || k == nil {
		return nil, false
	}
	v, ok := s.c.r.syn.obj(sel.X).(*types.Var)
	if !ok {
		return nil, false
	}
	c, ok := k[v][sel.Sel.Name]
	return c, ok
}

// chosen is the clause of a switch that a constant tag selects (its
// default when no case names it).
func (s *sender) chosen(sw *ast.SwitchStmt, c constant.Value) ast.Node {
	info := s.c.r.syn.info[s.c.r.syn.file(sw.Pos())]
	var def ast.Node = &ast.BlockStmt{}
	for _, st := range sw.Body.List {
		cc := st.(*ast.CaseClause)
		if cc.List == nil {
			def = &ast.BlockStmt{List: cc.Body}
			continue
		}
		for _, e := range cc.List {
			if tv, ok := info.Types[e]; ok && tv.Value != nil && constant.Compare(tv.Value, token.EQL, c) {
				return &ast.BlockStmt{List: cc.Body}
			}
		}
	}
	return def
}

// call follows one call of fn's code into its callees.
func (s *sender) call(fn *ssa.Function, x *ast.CallExpr, k known, depth int, out map[*ssa.Function]bool) {
	s.callAt(fn, x, x.Lparen, k, depth, out)
}

// callAt follows the call instructions at pos (a call's parenthesis, a go
// statement's keyword) into their callees.
func (s *sender) callAt(fn *ssa.Function, x *ast.CallExpr, pos token.Pos, k known, depth int, out map[*ssa.Function]bool) {
	for _, ins := range s.sitesAt(fn, pos) {
		if _, isGo := ins.(*ssa.Go); isGo && !s.async {
			continue
		}
		for _, e := range s.c.r.in.Graph.EdgesAt(ins) {
			callee := e.Callee.Func
			var k2 known
			recv := 0
			if callee.Signature.Recv() != nil {
				recv = 1
			}
			for i, a := range x.Args {
				fs := s.madeWith(a)
				if len(fs) == 0 || i+recv >= len(callee.Params) {
					continue
				}
				if v, ok := callee.Params[i+recv].Object().(*types.Var); ok {
					if k2 == nil {
						k2 = known{}
					}
					k2[v] = fs
				}
			}
			for st := range s.walk(callee, k2, depth+1) {
				out[st] = true
			}
		}
	}
}

// sitesAt are fn's call instructions whose call is at lparen.
func (s *sender) sitesAt(fn *ssa.Function, lparen token.Pos) []ssa.CallInstruction {
	if s.sites == nil {
		s.sites = map[*ssa.Function]map[token.Pos][]ssa.CallInstruction{}
	}
	m, ok := s.sites[fn]
	if !ok {
		m = map[token.Pos][]ssa.CallInstruction{}
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				if c, ok := ins.(ssa.CallInstruction); ok {
					m[c.Pos()] = append(m[c.Pos()], c)
				}
			}
		}
		s.sites[fn] = m
	}
	return m[lparen]
}

// madeWith is what an argument is known to hold: the constant fields of
// the value a function returns, when the argument is a call of one that
// returns a literal (or a local made by one) with constant fields.
func (s *sender) madeWith(a ast.Expr) map[string]constant.Value {
	call, ok := ast.Unparen(a).(*ast.CallExpr)
	if !ok {
		return nil
	}
	f, ok := s.c.r.syn.obj(call.Fun).(*types.Func)
	if !ok {
		return nil
	}
	fn := s.c.r.in.Graph.Prog.FuncValue(f)
	if fn == nil {
		return nil
	}
	if fs, ok := s.fields[fn]; ok {
		return fs
	}
	s.fields[fn] = nil
	fd, ok := fn.Syntax().(*ast.FuncDecl)
	if !ok || fd.Body == nil {
		return nil
	}
	info := s.c.r.syn.info[s.c.r.syn.file(fd.Pos())]
	var got map[string]constant.Value
	first := true
	litFields := func(e ast.Expr) map[string]constant.Value {
		e = ast.Unparen(e)
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = u.X
		}
		lit, ok := e.(*ast.CompositeLit)
		if !ok {
			return nil
		}
		fs := map[string]constant.Value{}
		for _, el := range lit.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if id, ok := kv.Key.(*ast.Ident); ok {
					if tv, ok := info.Types[kv.Value]; ok && tv.Value != nil {
						fs[id.Name] = tv.Value
					}
				}
			}
		}
		return fs
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		ret, ok := n.(*ast.ReturnStmt)
		if !ok || len(ret.Results) != 1 {
			return true
		}
		fs := litFields(ret.Results[0])
		if fs == nil {
			if v, ok := s.c.r.syn.obj(ret.Results[0]).(*types.Var); ok {
				fs = s.localLit(fd.Body, v, litFields)
			}
		}
		if first {
			got, first = fs, false
		} else {
			got = intersect(got, fs)
		}
		return true
	})
	s.fields[fn] = got
	return got
}

// localLit is the constant fields of the literal a local variable is
// defined with, when no other statement of the body assigns to it or to
// one of those fields.
func (s *sender) localLit(body *ast.BlockStmt, v *types.Var, litFields func(ast.Expr) map[string]constant.Value) map[string]constant.Value {
	var fs map[string]constant.Value
	ok := true
	ast.Inspect(body, func(n ast.Node) bool {
		as, isAssign := n.(*ast.AssignStmt)
		if !isAssign {
			return true
		}
		for i, l := range as.Lhs {
			if s.c.r.syn.obj(l) == v && len(as.Lhs) == len(as.Rhs) {
				if fs != nil || as.Tok != token.DEFINE {
					ok = false
				}
				fs = litFields(as.Rhs[i])
			}
			if sel, isSel := ast.Unparen(l).(*ast.SelectorExpr); isSel && s.c.r.syn.obj(sel.X) == v {
				if fs != nil {
					delete(fs, sel.Sel.Name)
				}
			}
		}
		return true
	})
	if !ok {
		return nil
	}
	return fs
}

func intersect(a, b map[string]constant.Value) map[string]constant.Value {
	out := map[string]constant.Value{}
	for k, v := range a {
		if w, ok := b[k]; ok && constant.Compare(v, token.EQL, w) {
			out[k] = v
		}
	}
	return out
}

// Retry reads the client's retrying of a failed unary call (see Retry):
// retry makes the interceptor, log is the logger method it reports a
// failed attempt with, safe decides whether an error is tried again.
func (c *Commands) Retry(retry, log, safe string) *Retry {
	r := *c.r
	r.in.Spec = &Spec{ClientRetry: retry, ClientLog: log, ClientSafeRetry: safe}
	r.Retry = nil
	r.retry()
	return r.Retry
}

// Reaches reports whether fn reaches a function named name by calls.
func (c *Commands) Reaches(fn *ssa.Function, name string) bool {
	target, err := c.r.in.Graph.Func(name)
	if err != nil {
		return false
	}
	return c.r.in.Graph.Reachable(fn)[target]
}

// Pos converts a position of the program.
func (c *Commands) Pos(p token.Pos, fn *ssa.Function) Pos {
	return c.r.pos(p, fn, lineText(c.r.syn, p))
}
