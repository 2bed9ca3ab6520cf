package trace

import (
	"fmt"
	"github.com/srctrace/srctrace/trace/sites"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"golang.org/x/tools/go/packages"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/srctrace/srctrace/fixtures"
	"github.com/srctrace/srctrace/trace/callpath"
)

// TestServerWrites: the server's own writes of a request's field are
// those into a struct it was handed (the errors fixture's pinned writes
// the Range request's revision) and the literals it builds (the client's
// Do, in the same program: with the field left zero, every read of it
// is), not its declaring package's own code (the generated decoders).
func TestServerWrites(t *testing.T) {
	pkgs := fixtures.Load(t, "errors")
	g, err := callpath.Build(pkgs)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for v, fns := range serverWrites(g) {
		for _, fn := range fns {
			got[v.Name()] = append(got[v.Name()], callpath.Name(fn))
		}
	}
	const v3rpc = "example.com/etcd/server/v3/v3rpc"
	if !slices.Contains(got["Revision"], v3rpc+".pinned") {
		t.Errorf("the writers of Revision are %v, want %s among them", got["Revision"], v3rpc+".pinned")
	}
	if !slices.Contains(got["Revision"], "example.com/etcd/server/v3/client.(*kv).Do") {
		t.Errorf("the writers of Revision are %v, want the client's literal among them", got["Revision"])
	}
	for _, fn := range got["Revision"] {
		if strings.HasPrefix(fn, "example.com/etcd/server/v3/api/kvpb.") {
			t.Errorf("the writers of Revision are %v: the declaring package's own code is none", got["Revision"])
		}
	}
}

// TestRequestFields: the fields of a request are its own exported ones
// and those of the structs it holds, through pointers, slices and a
// sealed interface (a oneof: only its package's types can implement
// it), with a struct held by value left out as a field but its fields
// in; not through an interface any package may implement.
func TestRequestFields(t *testing.T) {
	const src = `package pb

type TxnRequest struct {
	Compare []*Compare
	Success []*RequestOp
	Lookup  map[string]*Compare
}
type Compare struct{ Key []byte }
type RequestOp struct{ Request isRequestOp_Request }
type isRequestOp_Request interface{ isRequestOp_Request() }
type RequestOp_RequestRange struct{ RequestRange *RangeRequest }
func (*RequestOp_RequestRange) isRequestOp_Request() {}
type RangeRequest struct {
	Key      []byte
	Revision int64
	Opts     Opts
	hidden   int
}
type Opts struct{ Limit int64 }

type Other struct{ Op Open }
type Open interface{ Get() int }
type impl struct{ Y int }
func (impl) Get() int { return 0 }

func Send(r *TxnRequest)  {}
func SendOther(r *Other)  {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "pb.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	pkg, err := new(types.Config).Check("example.com/pb", fset, []*ast.File{f}, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := func(fn string) []string {
		var out []string
		for _, rf := range requestFields(pkg.Scope().Lookup(fn).Type().(*types.Signature)) {
			out = append(out, rf.owner.Name()+"."+rf.v.Name())
		}
		sort.Strings(out)
		return out
	}
	want := []string{"Compare.Key", "Opts.Limit", "RangeRequest.Key", "RangeRequest.Revision", "RequestOp.Request", "RequestOp_RequestRange.RequestRange",
		"TxnRequest.Compare", "TxnRequest.Lookup", "TxnRequest.Success"}
	if got := names("Send"); !slices.Equal(got, want) {
		t.Errorf("the fields of Send's request are %v, want %v", got, want)
	}
	if got := names("SendOther"); !slices.Equal(got, []string{"Other.Op"}) {
		t.Errorf("the fields of SendOther's request are %v, want only Other.Op (Open is an interface any package may implement)", got)
	}
}

// TestMapValue: of a map literal's entry, the value is what the map hands
// out (a wire error the server's error is translated into), the key is not;
// nor is a use outside a map literal.
func TestMapValue(t *testing.T) {
	const src = `package p

import "errors"

var (
	errA = errors.New("a")
	errB = errors.New("b")
	m    = map[error]error{errA: errB}
	s    = []error{errB}
)
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Types: map[ast.Expr]types.TypeAndValue{}}
	if _, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	pkg := &packages.Package{Fset: fset, TypesInfo: info, Syntax: []*ast.File{f}}
	got := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && info.Uses[id] != nil && (id.Name == "errA" || id.Name == "errB") {
			got[fmt.Sprintf("%s:%d", id.Name, fset.Position(id.Pos()).Column)] = mapValue(sites.At(pkg, f, id))
		}
		return true
	})
	want := map[string]bool{"errA:25": false, "errB:31": true, "errB:17": false}
	if !maps.Equal(got, want) {
		t.Errorf("mapValue = %v, want %v", got, want)
	}
}
