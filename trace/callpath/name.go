package callpath

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Name is fn's qualified name in the form the studies use:
// "pkg/path.F", "pkg/path.(*T).M", "pkg/path.T.M", and "pkg/path.F$1" for
// a function literal inside F.
func Name(fn *ssa.Function) string {
	if fn.Parent() != nil {
		root := fn
		for root.Parent() != nil {
			root = root.Parent()
		}
		// fn.Name() is the root's name followed by $1, $1$2 ...
		return Name(root) + strings.TrimPrefix(fn.Name(), root.Name())
	}
	pkg := ""
	if fn.Pkg != nil {
		pkg = fn.Pkg.Pkg.Path() + "."
	} else if o := fn.Object(); o != nil && o.Pkg() != nil {
		pkg = o.Pkg().Path() + "."
	}
	return qualify(pkg, fn.Signature.Recv(), fn.Name())
}

// FuncName is a declared function's name in Name's form, from its
// object: for code read as syntax, with no SSA function.
func FuncName(f *types.Func) string {
	pkg := ""
	if f.Pkg() != nil {
		pkg = f.Pkg().Path() + "."
	}
	return qualify(pkg, f.Type().(*types.Signature).Recv(), f.Name())
}

// qualify names a function of package prefix pkg ("pkg/path.") with
// receiver recv (nil for none) and name: a method by its receiver's type.
func qualify(pkg string, recv *types.Var, name string) string {
	if recv == nil {
		return pkg + name
	}
	t := recv.Type()
	star := ""
	if p, ok := t.(*types.Pointer); ok {
		star, t = "*", p.Elem()
	}
	tn := types.TypeString(t, func(*types.Package) string { return "" })
	if n, ok := t.(*types.Named); ok {
		tn = n.Obj().Name()
		if n.Obj().Pkg() != nil {
			pkg = n.Obj().Pkg().Path() + "."
		}
	}
	if star != "" {
		return pkg + "(*" + tn + ")." + name
	}
	return pkg + tn + "." + name
}
