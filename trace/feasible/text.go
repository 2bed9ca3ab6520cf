package feasible

import (
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"sort"
	"strings"
	"sync"

	"golang.org/x/tools/go/ssa"
)

// texts finds the source text of branch conditions.
type texts struct {
	file func(token.Pos) *ast.File
	fset *token.FileSet
	*files
	conds map[*ssa.If]condText  // condText's answers
	loops map[*ssa.If]token.Pos // loopOf's answers
	// guards are guardReason's conditions, one per branch and outcome:
	// a branch an alternative needs is a reason on every path that
	// evaluates the alternative, and nothing changes such a condition
	// once made.
	guards map[guardKey]*Cond
}

// files are the source files' contents, by name, and the index of each
// file: what the file alone says, shared by a checker and its forks.
type files struct {
	mu    sync.Mutex
	data  map[string][]byte
	index map[*ast.File]*fileIndex
}

// read is the contents of the file named name.
func (fs *files) read(name string) []byte {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	data, ok := fs.data[name]
	if !ok {
		data, _ = os.ReadFile(name)
		fs.data[name] = data
	}
	return data
}

type guardKey struct {
	fn   *ssa.Function
	ifi  *ssa.If
	want bool
}

type condText struct {
	text string
	pos  token.Pos
	flip bool
}

// src is n's source text as written, its runs of white space made one
// space, so that a condition is quoted as the file has it (gofmt's spacing
// differs from types.ExprString's: ai+max, not ai + max).
func (t *texts) src(n ast.Node) string {
	if t.fset != nil {
		p, e := t.fset.Position(n.Pos()), t.fset.Position(n.End())
		data := t.read(p.Filename)
		if p.Filename == e.Filename && p.Offset >= 0 && p.Offset < e.Offset && e.Offset <= len(data) {
			return strings.Join(strings.Fields(string(data[p.Offset:e.Offset])), " ")
		}
	}
	return types.ExprString(n.(ast.Expr))
}

type fileIndex struct {
	exprs map[token.Pos]string // by operator, paren or start position
	conds []condStmt           // if statements and case clauses, by body start
	ifs   []span               // the conditions of if statements
	// operands are a binary expression's operands, by its operator's
	// position.
	operands map[token.Pos][2]string
	// indexes are the index expressions (m[k]), by their bracket.
	indexes map[token.Pos]string
	// ranges are the range loops, their `for` by the start of the
	// expression they range over.
	ranges map[token.Pos]token.Pos
	// sels are the selector expressions (p.f), by the selected name's
	// position (their text is made when asked for: selText).
	sels map[token.Pos]*ast.SelectorExpr
	// comms are the communications of select statements' cases, by the
	// position of their arrow (where SSA puts a select's state).
	comms map[token.Pos]span
}

// span is an expression's extent and text.
type span struct {
	pos, end token.Pos
	text     string
}

// condStmt is a statement whose body runs under a condition.
type condStmt struct {
	body, end token.Pos
	text      string
}

func (t *texts) of(pos token.Pos) *fileIndex {
	f := t.file(pos)
	if f == nil {
		return nil
	}
	return onceIn(&t.mu, &t.index, f, func() *fileIndex { return t.makeIndex(f) })
}

func (t *texts) makeIndex(f *ast.File) *fileIndex {
	ix := &fileIndex{exprs: map[token.Pos]string{}, operands: map[token.Pos][2]string{}, indexes: map[token.Pos]string{}, ranges: map[token.Pos]token.Pos{}, sels: map[token.Pos]*ast.SelectorExpr{}, comms: map[token.Pos]span{}}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CommClause:
			if arrow := commArrow(x.Comm); arrow.IsValid() {
				ix.comms[arrow] = span{pos: x.Comm.Pos(), end: x.Comm.End(), text: t.src(x.Comm)}
			}
		case *ast.RangeStmt:
			ix.ranges[x.X.Pos()] = x.For
		case *ast.IndexExpr:
			ix.indexes[x.Lbrack] = t.src(x)
		case *ast.SelectorExpr:
			ix.sels[x.Sel.Pos()] = x
		case *ast.BinaryExpr:
			ix.exprs[x.OpPos] = t.src(x)
			if _, ok := ix.operands[x.OpPos]; !ok {
				ix.operands[x.OpPos] = [2]string{t.src(x.X), t.src(x.Y)}
			}
		case *ast.UnaryExpr:
			ix.exprs[x.OpPos] = t.src(x)
		case *ast.CallExpr:
			ix.exprs[x.Lparen] = t.src(x)
		case *ast.IfStmt:
			ix.conds = append(ix.conds, condStmt{body: x.Body.Lbrace, end: x.Body.Rbrace, text: t.src(x.Cond)})
			ix.ifs = append(ix.ifs, span{pos: x.Cond.Pos(), end: x.Cond.End(), text: t.src(x.Cond)})
		case *ast.SwitchStmt:
			tag := ""
			if x.Tag != nil {
				tag = t.src(x.Tag)
			}
			for _, st := range x.Body.List {
				cc := st.(*ast.CaseClause)
				var parts []string
				for _, e := range cc.List {
					s := t.src(e)
					if tag != "" {
						s = tag + " == " + s
						ix.exprs[e.Pos()] = s
					}
					parts = append(parts, s)
				}
				if len(parts) > 0 {
					ix.conds = append(ix.conds, condStmt{body: cc.Colon, end: cc.End(), text: strings.Join(parts, " || ")})
				}
			}
		case *ast.TypeSwitchStmt:
			subject := ""
			switch a := x.Assign.(type) {
			case *ast.AssignStmt:
				if ta, ok := a.Rhs[0].(*ast.TypeAssertExpr); ok {
					subject = t.src(ta.X)
				}
			case *ast.ExprStmt:
				if ta, ok := a.X.(*ast.TypeAssertExpr); ok {
					subject = t.src(ta.X)
				}
			}
			for _, st := range x.Body.List {
				cc := st.(*ast.CaseClause)
				var parts []string
				for _, e := range cc.List {
					parts = append(parts, t.src(e))
				}
				if len(parts) > 0 && subject != "" {
					ix.exprs[cc.Case] = subject + " is " + strings.Join(parts, " or ")
				}
			}
		}
		return true
	})
	sort.Slice(ix.conds, func(i, j int) bool { return ix.conds[i].body < ix.conds[j].body })
	return ix
}

// selText is the source text of the selector expression whose selected
// name is at pos, and of what it selects from; ok is false where there
// is none.
func (t *texts) selText(pos token.Pos) (sel, from string, ok bool) {
	if ix := t.of(pos); ix != nil {
		if x, found := ix.sels[pos]; found {
			return t.src(x), t.src(x.X), true
		}
	}
	return "", "", false
}

// callText is the source text of a call.
func (t *texts) callText(c ssa.CallInstruction) string {
	if ix := t.of(c.Pos()); ix != nil {
		return ix.exprs[c.Pos()]
	}
	return ""
}

// condText is the source text of an If's condition, its position, and
// whether the text is true when the If's condition is false (go/ssa
// branches on x, with the successors swapped, for `if !x`).
// commArrow is the position of the arrow of a select case's
// communication: a send's, or a receive's (assigned or not).
func commArrow(s ast.Stmt) token.Pos {
	var x ast.Expr
	switch c := s.(type) {
	case *ast.SendStmt:
		return c.Arrow
	case *ast.ExprStmt:
		x = c.X
	case *ast.AssignStmt:
		if len(c.Rhs) == 1 {
			x = c.Rhs[0]
		}
	}
	if u, ok := ast.Unparen(x).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u.OpPos
	}
	return token.NoPos
}

// commText is the communication of the select case whose arrow is at
// pos, as written, and where it begins.
func (t *texts) commText(pos token.Pos) (string, token.Pos, bool) {
	ix := t.of(pos)
	if ix == nil {
		return "", token.NoPos, false
	}
	c, ok := ix.comms[pos]
	return c.text, c.pos, ok
}

func (t *texts) condText(ifi *ssa.If) (string, token.Pos, bool) {
	if c, ok := t.conds[ifi]; ok {
		return c.text, c.pos, c.flip
	}
	text, pos, flip := t.condText1(ifi)
	if t.conds == nil {
		t.conds = map[*ssa.If]condText{}
	}
	t.conds[ifi] = condText{text, pos, flip}
	return text, pos, flip
}

func (t *texts) condText1(ifi *ssa.If) (string, token.Pos, bool) {
	// The program is built with debug information: the expression the
	// condition was evaluated from is recorded just before the branch.
	blk := ifi.Block()
	if key, over, ok := rangeIndex(ifi); ok {
		return key + " < len(" + t.src(over.Expr) + ")", over.Expr.Pos(), false
	}
	if _, over, ok := rangeMap(ifi); ok {
		return t.src(over.Expr), over.Expr.Pos(), false
	}
	for i := len(blk.Instrs) - 1; i >= 0; i-- {
		if d, ok := blk.Instrs[i].(*ssa.DebugRef); ok && d.X == ifi.Cond {
			return t.src(d.Expr), d.Expr.Pos(), false
		}
	}
	if pos := valuePos(ifi.Cond); pos.IsValid() {
		if ix := t.of(pos); ix != nil {
			if s, ok := ix.exprs[pos]; ok {
				return s, pos, false
			}
		}
	}
	// The innermost conditional statement whose body holds the code of
	// the true (or false) successor.
	for i, succ := range blk.Succs {
		pos := firstPos(succ)
		if !pos.IsValid() {
			continue
		}
		ix := t.of(pos)
		if ix == nil {
			continue
		}
		best := -1
		for k, c := range ix.conds {
			if c.body <= pos && pos <= c.end && (best < 0 || c.body > ix.conds[best].body) {
				best = k
			}
		}
		if best >= 0 {
			return ix.conds[best].text, ix.conds[best].body, i == 1
		}
	}
	return "", token.NoPos, false
}

// whole is the condition of the if statement whose condition holds pos,
// when it is more than text: the branch is one part of it (go/ssa splits
// `a && b` and `a || b` into a branch each).
func (t *texts) whole(pos token.Pos, text string) string {
	if !pos.IsValid() {
		return ""
	}
	ix := t.of(pos)
	if ix == nil {
		return ""
	}
	for _, s := range ix.ifs {
		if s.pos <= pos && pos < s.end {
			if s.text == text || s.text == "!"+text || s.text == "!("+text+")" {
				return "" // the whole, or its negation: the branch says it all
			}
			return s.text
		}
	}
	return ""
}

// lookupOf is the map lookup as written (`m[k]`) whose second result,
// the comma-ok, v is (or is the negation of); "" otherwise.
func (t *texts) lookupOf(v ssa.Value) string {
	for {
		u, ok := v.(*ssa.UnOp)
		if !ok || u.Op != token.NOT {
			break
		}
		v = u.X
	}
	x, ok := v.(*ssa.Extract)
	if !ok || x.Index != 1 {
		return ""
	}
	l, ok := x.Tuple.(*ssa.Lookup)
	if !ok || !l.CommaOk {
		return ""
	}
	if ix := t.of(l.Pos()); ix != nil {
		return ix.indexes[l.Pos()]
	}
	return ""
}

// rangedOver is the slice a range loop's test ifi asks about, as
// written where it is had.
func (t *texts) rangedOver(ifi *ssa.If) (string, bool) {
	if _, over, ok := rangeIndex(ifi); ok {
		return t.src(over.Expr), true
	}
	return "", false
}

// loopOf is where the range loop whose test ifi is begins (its `for`),
// over a slice or a map; NoPos when it is not one.
func (t *texts) loopOf(ifi *ssa.If) token.Pos {
	if at, ok := t.loops[ifi]; ok {
		return at
	}
	at := t.loopOf1(ifi)
	if t.loops == nil {
		t.loops = map[*ssa.If]token.Pos{}
	}
	t.loops[ifi] = at
	return at
}

func (t *texts) loopOf1(ifi *ssa.If) token.Pos {
	var x ssa.Value
	if _, over, ok := rangeIndex(ifi); ok {
		x = over.X
	} else if rg, _, ok := rangeMap(ifi); ok {
		x = rg.X
	} else {
		return token.NoPos
	}
	for _, blk := range ifi.Parent().Blocks {
		for _, ins := range blk.Instrs {
			d, isRef := ins.(*ssa.DebugRef)
			if !isRef || d.X != x {
				continue
			}
			if ix := t.of(d.Expr.Pos()); ix != nil {
				if at, ok := ix.ranges[d.Expr.Pos()]; ok {
					return at
				}
			}
		}
	}
	return token.NoPos
}

// rangeIndex reads the test of a range loop over a slice, `key < len(x)`:
// the name of the key (or "index" where the loop names none) and the
// expression the loop ranges over.
func rangeIndex(ifi *ssa.If) (key string, over *ssa.DebugRef, ok bool) {
	b, isBin := ifi.Cond.(*ssa.BinOp)
	if ifi.Block().Comment != "rangeindex.loop" || !isBin || b.Op != token.LSS {
		return "", nil, false
	}
	n, isCall := b.Y.(*ssa.Call)
	if !isCall || len(n.Call.Args) != 1 {
		return "", nil, false
	}
	key = "index"
	for _, blk := range ifi.Parent().Blocks {
		for _, ins := range blk.Instrs {
			d, isRef := ins.(*ssa.DebugRef)
			if !isRef {
				continue
			}
			if d.X == n.Call.Args[0] && over == nil {
				over = d
			}
			if v, isVar := d.Object().(*types.Var); isVar && d.X == b.X && key == "index" {
				key = v.Name()
			}
		}
	}
	return key, over, over != nil
}

// rangeMap reads the test of a range loop over a map, whether `next`
// found one more entry: the loop's range and the reference to the map
// the loop ranges over, as written.
func rangeMap(ifi *ssa.If) (rg *ssa.Range, over *ssa.DebugRef, ok bool) {
	ex, isEx := ifi.Cond.(*ssa.Extract)
	if ifi.Block().Comment != "rangeiter.loop" || !isEx || ex.Index != 0 {
		return nil, nil, false
	}
	nx, isNext := ex.Tuple.(*ssa.Next)
	if !isNext || nx.IsString {
		return nil, nil, false
	}
	rg, isRange := nx.Iter.(*ssa.Range)
	if !isRange {
		return nil, nil, false
	}
	if _, isMap := rg.X.Type().Underlying().(*types.Map); !isMap {
		return nil, nil, false
	}
	// The reference nearest before the range, of the value it ranges over.
	for _, ins := range rg.Block().Instrs {
		if ins == rg {
			break
		}
		if d, isRef := ins.(*ssa.DebugRef); isRef && d.X == rg.X {
			over = d
		}
	}
	return rg, over, over != nil
}

// valuePos is the position go/ssa records for a condition value: the
// operator of a comparison or negation, the paren of a call.
func valuePos(v ssa.Value) token.Pos {
	switch x := v.(type) {
	case *ssa.BinOp, *ssa.UnOp, *ssa.Call:
		return v.Pos()
	case *ssa.Extract:
		if ta, ok := x.Tuple.(*ssa.TypeAssert); ok {
			return ta.Pos()
		}
		return x.Tuple.Pos()
	}
	return v.Pos()
}

// firstPos is the position of the first instruction of b that has one,
// following blocks that only jump on.
func firstPos(b *ssa.BasicBlock) token.Pos {
	for k := 0; b != nil && k < 8; k++ {
		for _, ins := range b.Instrs {
			if p := ins.Pos(); p.IsValid() {
				return p
			}
		}
		if len(b.Succs) != 1 {
			break
		}
		b = b.Succs[0]
	}
	return token.NoPos
}

// guardCond is the condition of branch ifi of fn with outcome want, made
// once.
func (t *texts) guardCond(fn *ssa.Function, ifi *ssa.If, want bool) *Cond {
	k := guardKey{fn, ifi, want}
	if c, ok := t.guards[k]; ok {
		return c
	}
	text, pos, flip := t.condText(ifi)
	c := &Cond{Func: fn, If: ifi, Text: text, Pos: pos, Want: want != flip}
	if t.guards == nil {
		t.guards = map[guardKey]*Cond{}
	}
	t.guards[k] = c
	return c
}

// mapName is the map a range ranges over, as a name it is had by (the
// variable the path made it in); "" when none is found.
func (t *texts) mapName(rg *ssa.Range) string {
	for _, blk := range rg.Parent().Blocks {
		for _, ins := range blk.Instrs {
			if d, isRef := ins.(*ssa.DebugRef); isRef && d.X == rg.X {
				if id, isIdent := ast.Unparen(d.Expr).(*ast.Ident); isIdent {
					return id.Name
				}
			}
		}
	}
	return ""
}
