package feasible

import (
	"go/constant"

	"golang.org/x/tools/go/ssa"
)

// neverNil reports whether package-level variable g is never nil once
// its package is initialised: every store to it, in the whole program,
// stores a value made there (a composite literal, an error made by a
// function that returns one it makes, as errors.New does).
func (c *Checker) neverNil(g *ssa.Global) bool {
	if c.globals == nil {
		c.globals = map[*ssa.Global][]*ssa.Store{}
		for fn := range c.g.CG.Nodes {
			if fn == nil {
				continue
			}
			for _, b := range fn.Blocks {
				for _, ins := range b.Instrs {
					if st, ok := ins.(*ssa.Store); ok {
						if gl, ok := st.Addr.(*ssa.Global); ok {
							c.globals[gl] = append(c.globals[gl], st)
						}
					}
				}
			}
		}
		c.nonNil = map[*ssa.Global]bool{}
	}
	if v, ok := c.nonNil[g]; ok {
		return v
	}
	c.nonNil[g] = false // while deciding: a cycle is not known
	sts := c.globals[g]
	ok := len(sts) > 0
	for _, st := range sts {
		w := &walk{c: c, objects: map[*ssa.Alloc]*object{}, terms: map[string]termInfo{}, reads: map[readKey][]string{}, readFields: map[string][]readKey{}, holds: map[string][]holding{}, inlined: map[inlineKey]*frame{}, tframes: map[tfKey]*frame{}, budget: 200}
		fr := w.newFrame(st.Parent(), nil, nil)
		fr.root, fr.rootState = true, true
		if call, ok := st.Val.(*ssa.Call); ok && madeByLibrary(call) {
			continue
		}
		if !made(fr.eval(st.Val), 0) {
			ok = false
			break
		}
	}
	c.nonNil[g] = ok
	return ok
}

// Library functions whose bodies are not loaded (their packages are read
// from export data) but whose contract is that they return an error they
// make: errors.New and fmt.Errorf always; gRPC's status.Error and
// status.Errorf for any code but OK (0).
var (
	makesError     = map[string]bool{"errors.New": true, "fmt.Errorf": true}
	makesErrorCode = map[string]bool{"google.golang.org/grpc/status.Error": true, "google.golang.org/grpc/status.Errorf": true}
)

// madeByLibrary reports whether call returns an error it makes, by the
// library's contract.
func madeByLibrary(call *ssa.Call) bool {
	fn := call.Call.StaticCallee()
	if fn == nil {
		return false
	}
	name := fn.RelString(nil)
	if makesError[name] {
		return true
	}
	if makesErrorCode[name] && len(call.Call.Args) > 0 {
		if k, ok := call.Call.Args[0].(*ssa.Const); ok && k.Value != nil {
			if n, ok := constant.Int64Val(k.Value); ok && n != 0 {
				return true
			}
		}
	}
	return false
}

// made reports whether every way v can be is a value made on the way
// (not nil).
func made(v *value, depth int) bool {
	switch v.kind {
	case kObj, kNonNil:
		return true
	case kAlt:
		if depth > 4 {
			return false
		}
		for _, a := range v.alts {
			if !made(a.value(), depth+1) {
				return false
			}
		}
		return len(v.alts) > 0
	}
	return false
}
