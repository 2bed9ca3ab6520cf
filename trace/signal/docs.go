package signal

import (
	"go/ast"
	"strings"
)

// FieldDoc is a signal field's doc comment, as its declaration has it.
type FieldDoc struct {
	Pos
	Field string // qualified, as the spec names it
	Doc   string // the comment's text, one line
	// At is the comment's first line, where its text is.
	At Pos
}

// fieldDocs reads the doc comments of the spec's signal fields that are
// declared in the loaded packages.
func (r *Result) fieldDocs() {
	for _, name := range r.in.Spec.Fields {
		v := r.fieldOrNil(name)
		if v == nil {
			continue
		}
		path, _ := r.syn.path(v.Pos(), v.Pos()+1)
		for _, n := range path {
			f, ok := n.(*ast.Field)
			if !ok {
				continue
			}
			if f.Doc != nil {
				doc := strings.Join(strings.Fields(f.Doc.Text()), " ")
				at := r.syn.fset.Position(f.Doc.Pos())
				r.Docs = append(r.Docs, FieldDoc{Pos: r.pos(v.Pos(), nil, lineText(r.syn, v.Pos())), Field: name, Doc: doc, At: r.pos(f.Doc.Pos(), nil, strings.TrimSpace(r.lineAt(at)))})
			}
			break
		}
	}
}
