package compute

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMethodDocsNameTheirOperation checks that the doc comment of the method that sends each
// operation of the table names that operation's method and path ("POST /compute/v1/instances"),
// so that a reader of go doc knows the request without reading the source. The one operation that
// several methods send, the instance's attach and detach PATCH, is checked on each of them.
func TestMethodDocsNameTheirOperation(t *testing.T) {
	t.Parallel()
	docs := map[string]string{} // "Instances.Get" -> its doc comment
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments)
		require.NoError(t, err)
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !fn.Name.IsExported() {
				continue
			}
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if id, ok := recv.(*ast.Ident); ok {
				svc := strings.TrimSuffix(id.Name, "Service")
				if svc == "Client" {
					docs[fn.Name.Name] = fn.Doc.Text()
				} else {
					docs[svc+"."+fn.Name.Name] = fn.Doc.Text()
				}
			}
		}
	}
	senders := map[string][]string{
		"Instances.Attach": {"Instances.AttachVolume", "Instances.DetachVolume", "Instances.AttachSecurityGroup", "Instances.DetachSecurityGroup"},
	}
	require.Greater(t, len(operations), 40)
	for _, op := range operations {
		methods := senders[op.name]
		if methods == nil {
			methods = []string{op.name}
		}
		for _, m := range methods {
			doc, ok := docs[m]
			if assert.True(t, ok, "operation %s names method %s, which exists", op.path, m) {
				assert.Contains(t, doc, op.method+" "+op.path, "the doc comment of %s names its operation", m)
			}
		}
	}
}
