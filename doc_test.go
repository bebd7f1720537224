package compute

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The docs, part of them: every exported identifier has a doc comment, each method's names its
// operation, and the operations table of docs/operations.md is the operation table. readme_test.go
// (package compute_test, as it runs computetest) builds and runs the code of the README and the
// guides; example_test.go holds the examples.

// TestEveryExportedIdentifierHasADocComment parses the library's non-test Go files and fails for any
// exported function, method, type, struct field, constant or variable without a doc comment, so
// that `go doc` documents the whole surface.
func TestEveryExportedIdentifierHasADocComment(t *testing.T) {
	t.Parallel()
	var files []string
	require.NoError(t, walkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "examples" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			files = append(files, path)
		}
		return nil
	}))
	require.NotEmpty(t, files)
	fset := token.NewFileSet()
	var missing []string
	report := func(pos token.Pos, what string) {
		missing = append(missing, fset.Position(pos).String()+": "+what)
	}
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || (d.Recv != nil && !exportedReceiver(d.Recv)) {
					continue
				}
				if d.Doc == nil {
					report(d.Pos(), "func "+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						if s.Doc == nil && d.Doc == nil {
							report(s.Pos(), "type "+s.Name.Name)
						}
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, field := range st.Fields.List {
								for _, name := range field.Names {
									if name.IsExported() && field.Doc == nil && field.Comment == nil {
										report(name.Pos(), "field "+s.Name.Name+"."+name.Name)
									}
								}
							}
						}
					case *ast.ValueSpec:
						for _, name := range s.Names {
							// A lone spec may rely on its declaration's comment; in a group each needs its own.
							lone := len(d.Specs) == 1 && d.Doc != nil
							if name.IsExported() && s.Doc == nil && s.Comment == nil && !lone {
								report(name.Pos(), "value "+name.Name)
							}
						}
					}
				}
			}
		}
	}
	assert.Empty(t, missing, "exported identifiers without a doc comment")
}

func exportedReceiver(recv *ast.FieldList) bool {
	typ := recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.IndexExpr:
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return true
		}
	}
}

// TestMethodDocsNameTheirOperation checks that the doc comment of the method that sends each
// operation of the table names that operation's method and path ("POST /compute/v1/instances"),
// so that a reader of go doc knows the request without reading the source. The one operation that
// several methods send, the instance's attach and detach PATCH, is checked on each of them.
func TestMethodDocsNameTheirOperation(t *testing.T) {
	t.Parallel()
	docs := map[string]string{} // "Instances.Get" -> its doc comment
	files, err := topGoFiles()
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

// The operations table (docs/operations.md) has one row per operation of the contract, 45 in all, and names
// exactly the method and path of every entry of the operation table in operation.go (the
// description document itself, openapi.yaml, aside).
func TestReadmeOperationsTableMatchesTheOperationTable(t *testing.T) {
	t.Parallel()
	declared, err := declaredOperations()
	require.NoError(t, err)

	readme, err := os.ReadFile("docs/operations.md")
	require.NoError(t, err)
	var rows []string
	for _, m := range regexp.MustCompile("(?m)^\\| (\\d+) \\| ([A-Z]+) \\| `([^`]+)` \\| .+ \\|$").FindAllSubmatch(readme, -1) {
		assert.Equal(t, strconv.Itoa(len(rows)+1), string(m[1]), "rows are numbered in order")
		rows = append(rows, string(m[2])+" "+string(m[3]))
	}
	require.Len(t, rows, 45)
	slices.Sort(declared)
	sorted := slices.Sorted(slices.Values(rows))
	assert.Equal(t, declared, sorted)
	assert.Equal(t, sorted, slices.Compact(slices.Clone(sorted)), "no operation is listed twice")
}
