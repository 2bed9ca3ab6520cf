package roots

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strconv"
	"strings"
)

// grpcPath is the import path of the gRPC library whose generated code
// ReadNetwork reads.
const grpcPath = "google.golang.org/grpc"

// Network is the gRPC methods that the generated code of some packages
// declares: the hop from a client's call of a method to the server
// handler registered for the same method name.
type Network struct {
	Methods []Method // sorted by FullName
}

// Method is one gRPC method as generated code declares it.
type Method struct {
	// FullName is the method's name on the wire ("/etcdserverpb.KV/Range"),
	// Service and Name its parts.
	FullName, Service, Name string
	// Stream is set for a streaming method.
	Stream bool
	// Server is the qualified server interface that serves the method
	// ("go.etcd.io/etcd/api/v3/etcdserverpb.KVServer", the service
	// description's HandlerType); Handler the qualified function the
	// description registers for it ("…/etcdserverpb._KV_Range_Handler").
	Server, Handler string
	// Stubs are the qualified client functions that send it
	// ("…/etcdserverpb.(*kVClient).Range").
	Stubs []string
	// File and Line are where the service description names the method.
	File string
	Line int
}

// Package is a package whose files ReadNetwork reads.
type Package struct {
	Path  string
	Files []string // absolute
}

// ReadNetwork reads the generated files (those marked "Code generated …
// DO NOT EDIT.") of pkgs for gRPC service descriptions (grpc.ServiceDesc
// literals: the service name, its server interface, and each method's or
// stream's name and handler) and client stubs (methods that pass a method
// name to Invoke or NewStream, as a string literal or a constant of the
// package). Files that mention neither are not parsed.
func ReadNetwork(pkgs []Package) (*Network, error) {
	fset := token.NewFileSet()
	byName := map[string]*Method{}
	get := func(full string) *Method {
		m := byName[full]
		if m == nil {
			m = &Method{FullName: full}
			m.Service, m.Name = splitMethod(full)
			byName[full] = m
		}
		return m
	}
	for _, p := range pkgs {
		var files []*ast.File
		for _, name := range p.Files {
			src, err := os.ReadFile(name)
			if err != nil {
				return nil, err
			}
			if !bytes.Contains(src, []byte("ServiceDesc")) && !bytes.Contains(src, []byte("Invoke(")) && !bytes.Contains(src, []byte("NewStream(")) {
				continue
			}
			f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				return nil, err
			}
			if ast.IsGenerated(f) && grpcName(f) != "" {
				files = append(files, f)
			}
		}
		consts := stringConsts(files)
		for _, f := range files {
			g := grpcName(f)
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.CompositeLit:
					if isSel(x.Type, g, "ServiceDesc") {
						serviceDesc(fset, p.Path, x, consts, get)
						return false
					}
				case *ast.FuncDecl:
					if x.Recv != nil && x.Body != nil {
						for _, full := range sent(x.Body, consts) {
							m := get(full)
							m.Stubs = appendNew(m.Stubs, p.Path+"."+recvName(x)+"."+x.Name.Name)
						}
					}
					return false
				}
				return true
			})
		}
	}
	n := &Network{}
	for _, m := range byName {
		sort.Strings(m.Stubs)
		n.Methods = append(n.Methods, *m)
	}
	sort.Slice(n.Methods, func(i, j int) bool { return n.Methods[i].FullName < n.Methods[j].FullName })
	return n, nil
}

// Method returns the method of a full name.
func (n *Network) Method(full string) (Method, bool) {
	i := sort.Search(len(n.Methods), func(i int) bool { return n.Methods[i].FullName >= full })
	if i < len(n.Methods) && n.Methods[i].FullName == full {
		return n.Methods[i], true
	}
	return Method{}, false
}

// Sent returns the methods that a client function sends (a qualified
// name, as Stubs lists them).
func (n *Network) Sent(stub string) []Method {
	var out []Method
	for _, m := range n.Methods {
		for _, s := range m.Stubs {
			if s == stub {
				out = append(out, m)
			}
		}
	}
	return out
}

// Of returns the method that a gRPC root serves: the method of its
// service interface's description with its name.
func (n *Network) Of(r Root) (Method, bool) {
	if r.Kind != GRPC || r.Iface == "" {
		return Method{}, false
	}
	for _, m := range n.Methods {
		if m.Server == r.Iface && m.Name == r.Func.Name() {
			return m, true
		}
	}
	return Method{}, false
}

// Serving returns the roots that serve a client's call of the method of
// full name: the methods of that name of the types registered for its
// server interface. None when no loaded code serves it.
func (n *Network) Serving(rs []Root, full string) []Root {
	m, ok := n.Method(full)
	if !ok {
		return nil
	}
	var out []Root
	for _, r := range rs {
		if r.Kind == GRPC && r.Iface == m.Server && r.Func.Name() == m.Name {
			out = append(out, r)
		}
	}
	return out
}

// serviceDesc reads one grpc.ServiceDesc literal.
func serviceDesc(fset *token.FileSet, pkg string, lit *ast.CompositeLit, consts map[string]string, get func(string) *Method) {
	var service, server string
	var methods []*ast.CompositeLit
	var streams []*ast.CompositeLit
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			continue
		}
		switch key(kv) {
		case "ServiceName":
			service, _ = stringValue(kv.Value, consts)
		case "HandlerType":
			// (*KVServer)(nil)
			if c, ok := kv.Value.(*ast.CallExpr); ok {
				if p, ok := c.Fun.(*ast.ParenExpr); ok {
					if st, ok := p.X.(*ast.StarExpr); ok {
						if id, ok := st.X.(*ast.Ident); ok {
							server = pkg + "." + id.Name
						}
					}
				}
			}
		case "Methods", "Streams":
			if cl, ok := kv.Value.(*ast.CompositeLit); ok {
				for _, el := range cl.Elts {
					if m, ok := el.(*ast.CompositeLit); ok {
						if key(kv) == "Methods" {
							methods = append(methods, m)
						} else {
							streams = append(streams, m)
						}
					}
				}
			}
		}
	}
	if service == "" {
		return
	}
	for i, list := range [][]*ast.CompositeLit{methods, streams} {
		field := []string{"MethodName", "StreamName"}[i]
		for _, m := range list {
			var name, handler string
			var at token.Pos
			for _, e := range m.Elts {
				kv, ok := e.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				switch key(kv) {
				case field:
					name, _ = stringValue(kv.Value, consts)
					at = kv.Pos()
				case "Handler":
					if id, ok := kv.Value.(*ast.Ident); ok {
						handler = pkg + "." + id.Name
					}
				}
			}
			if name == "" {
				continue
			}
			x := get("/" + service + "/" + name)
			x.Stream = i == 1
			x.Server, x.Handler = server, handler
			pos := fset.Position(at)
			x.File, x.Line = pos.Filename, pos.Line
		}
	}
}

// sent are the full method names a function body passes to Invoke or
// NewStream.
func sent(body *ast.BlockStmt, consts map[string]string) []string {
	var out []string
	ast.Inspect(body, func(n ast.Node) bool {
		c, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := c.Fun.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Invoke" && sel.Sel.Name != "NewStream") {
			return true
		}
		for _, a := range c.Args {
			if s, ok := stringValue(a, consts); ok && strings.HasPrefix(s, "/") && strings.Count(s, "/") == 2 {
				out = appendNew(out, s)
			}
		}
		return true
	})
	return out
}

// stringConsts are the package-level string constants of files.
func stringConsts(files []*ast.File) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, sp := range gd.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if s, ok := stringValue(vs.Values[i], nil); ok {
							out[n.Name] = s
						}
					}
				}
			}
		}
	}
	return out
}

func stringValue(e ast.Expr, consts map[string]string) (string, bool) {
	switch x := e.(type) {
	case *ast.BasicLit:
		if x.Kind == token.STRING {
			s, err := strconv.Unquote(x.Value)
			return s, err == nil
		}
	case *ast.Ident:
		s, ok := consts[x.Name]
		return s, ok
	}
	return "", false
}

func key(kv *ast.KeyValueExpr) string {
	if id, ok := kv.Key.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// grpcName is the name by which f imports the gRPC library, or "".
func grpcName(f *ast.File) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == grpcPath {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return "grpc"
		}
	}
	return ""
}

func isSel(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}

// recvName is a method's receiver as a qualified name writes it: "T" or
// "(*T)".
func recvName(fd *ast.FuncDecl) string {
	t := fd.Recv.List[0].Type
	star := false
	if s, ok := t.(*ast.StarExpr); ok {
		star, t = true, s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	name := ""
	if id, ok := t.(*ast.Ident); ok {
		name = id.Name
	}
	if star {
		return "(*" + name + ")"
	}
	return name
}

func splitMethod(full string) (service, name string) {
	parts := strings.Split(strings.TrimPrefix(full, "/"), "/")
	if len(parts) != 2 {
		return "", full
	}
	return parts[0], parts[1]
}

func appendNew(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
