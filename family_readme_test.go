package compute

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// declaredOperations is "METHOD /path" of every entry of the operation table in operations.go but
// the description document itself (openapi.yaml), read from the source.
func declaredOperations() ([]string, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "operations.go", nil, 0)
	if err != nil {
		return nil, err
	}
	var declared []string
	ast.Inspect(file, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok || lit.Type == nil || lit.Type.(*ast.Ident).Name != "operation" {
			return true
		}
		var method, path string
		for _, e := range lit.Elts {
			kv := e.(*ast.KeyValueExpr)
			if v, ok := kv.Value.(*ast.BasicLit); ok {
				s, _ := strconv.Unquote(v.Value)
				switch kv.Key.(*ast.Ident).Name {
				case "method":
					method = s
				case "path":
					path = s
				}
			}
		}
		if op := method + " " + path; path != "/compute/v1/openapi.yaml" && !slices.Contains(declared, op) {
			declared = append(declared, op)
		}
		return true
	})
	return declared, nil
}

// The README's operations table has one row per operation of the contract, 45 in all, and names
// exactly the method and path of every entry of the operation table in operations.go (the
// description document itself, openapi.yaml, aside).
func TestReadmeOperationsTableMatchesTheOperationTable(t *testing.T) {
	t.Parallel()
	declared, err := declaredOperations()
	require.NoError(t, err)

	readme, err := os.ReadFile("README.md")
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
