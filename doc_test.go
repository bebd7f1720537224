package compute

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEveryExportedIdentifierHasADocComment parses the library's non-test Go files and fails for any
// exported function, method, type, struct field, constant or variable without a doc comment, so
// that `go doc` documents the whole surface.
func TestEveryExportedIdentifierHasADocComment(t *testing.T) {
	t.Parallel()
	var files []string
	require.NoError(t, filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
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
