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

// TestMethodDocsNameTheirOperation checks that the doc comment of every exported method that sends
// an operation of the table names that operation's method and path ("POST /compute/v1/instances"),
// so that a reader of go doc knows the request without reading the source.
func TestMethodDocsNameTheirOperation(t *testing.T) {
	t.Parallel()
	table, err := operationTable()
	require.NoError(t, err)
	ops := map[string]string{} // opCreateInstance -> "POST /compute/v1/instances"
	for _, e := range table {
		ops[e.name] = e.op
	}
	require.Greater(t, len(ops), 40)

	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		require.NoError(t, err)
		parsed = append(parsed, f)
	}

	checked := 0
	for _, f := range parsed {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !fn.Name.IsExported() || fn.Body == nil {
				continue
			}
			used := map[string]bool{}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && ops[id.Name] != "" {
					used[id.Name] = true
				}
				return true
			})
			doc := fn.Doc.Text()
			for op := range used {
				checked++
				assert.Contains(t, doc, ops[op], "the doc comment of %s names its operation", fn.Name.Name)
			}
		}
	}
	assert.Greater(t, checked, 40, "methods that send an operation")
}
