package feasible

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// TestCallers: a call through an interface whose value is one of several
// runs a method only with the values whose type has it: a value of a
// type that embeds the method's receiver but declares its own method is
// not one of them (it would otherwise be bound to the receiver through
// the embedded field). When every one can, or none, the value is left as
// it is.
func TestCallers(t *testing.T) {
	const src = `package p

type Getter interface{ Get(rev int64) error }

type View struct{ Rev int64 }

func (v *View) Get(rev int64) error { return nil }

type Snapshot struct {
	View
	Keys int
}

func (s *Snapshot) Get(rev int64) error { return nil }

func use(g Getter) { g.Get(1) }

func mk() (*View, *Snapshot) { return &View{Rev: 1}, &Snapshot{Keys: 2} }
`
	pkg, _ := buildSource(t, src, ssa.SanityCheckFunctions)
	named := func(name string) types.Type { return pkg.Pkg.Scope().Lookup(name).Type() }
	getter := named("Getter").Underlying().(*types.Interface).Method(0)
	viewGet := pkg.Prog.LookupMethod(types.NewPointer(named("View")), pkg.Pkg, "Get")
	use := pkg.Func("use")
	w := &walk{budget: 100, objects: map[objKey]*object{}}
	fr := &frame{fn: use, p: w, memo: map[ssa.Value]*value{}}
	mk := pkg.Func("mk")
	mkFr := &frame{fn: mk, p: w, memo: map[ssa.Value]*value{}, params: map[*ssa.Parameter]*value{}, free: map[*ssa.FreeVar]*value{}}
	allocs := map[string]*ssa.Alloc{}
	for _, b := range mk.Blocks {
		for _, ins := range b.Instrs {
			if a, ok := ins.(*ssa.Alloc); ok {
				allocs[a.Type().(*types.Pointer).Elem().(*types.Named).Obj().Name()] = a
			}
		}
	}
	obj := func(name string) *value {
		return mkFr.eval(allocs[name])
	}
	alts := func(vs ...*value) *value {
		v := &value{kind: kAlt, key: altKey{frame: 1}}
		for _, x := range vs {
			v.alts = append(v.alts, &alt{val: x})
		}
		return v
	}
	for _, c := range []struct {
		name string
		recv *value
		want int // alternatives kept
	}{
		{"a view or a snapshot: the view only", alts(obj("View"), obj("Snapshot")), 1},
		{"two views: both", alts(obj("View"), obj("View")), 2},
		{"two snapshots: none can, the value is left as it is", alts(obj("Snapshot"), obj("Snapshot")), 2},
		{"one value", obj("View"), -1},
	} {
		got := fr.callers(c.recv, getter, viewGet)
		switch {
		case c.want < 0 && got != c.recv:
			t.Errorf("%s: changed", c.name)
		case c.want >= 0 && len(got.alts) != c.want:
			t.Errorf("%s: %d alternatives kept, want %d", c.name, len(got.alts), c.want)
		}
	}
	// The view it keeps is the view, not the snapshot.
	v := fr.callers(alts(obj("Snapshot"), obj("View")), getter, viewGet)
	if len(v.alts) != 1 || v.alts[0].val.obj.typ != named("View") {
		t.Errorf("kept %v, want the view", v.alts)
	}
}

// buildSource type-checks and builds package p of one file, src.
func buildSource(t *testing.T, src string, mode ssa.BuilderMode) (*ssa.Package, *ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, _, err := ssautil.BuildPackage(&types.Config{Importer: importer.Default()}, fset, types.NewPackage("p", "p"), []*ast.File{f}, mode)
	if err != nil {
		t.Fatal(err)
	}
	return pkg, f
}
