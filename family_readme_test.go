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

// tableEntry is one entry of the operation table: its variable's name and its "METHOD /path".
type tableEntry struct{ name, op string }

// operationTable reads the operation table from the source of operations.go, in the order declared.
func operationTable() ([]tableEntry, error) {
	file, err := parser.ParseFile(token.NewFileSet(), "operations.go", nil, 0)
	if err != nil {
		return nil, err
	}
	var table []tableEntry
	ast.Inspect(file, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || len(vs.Values) != 1 {
			return true
		}
		lit, ok := vs.Values[0].(*ast.CompositeLit)
		if !ok {
			return true
		}
		if id, ok := lit.Type.(*ast.Ident); !ok || id.Name != "operation" {
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
		table = append(table, tableEntry{vs.Names[0].Name, method + " " + path})
		return true
	})
	return table, nil
}

// declaredOperations is "METHOD /path" of every entry of the operation table in operations.go but
// the description document itself (openapi.yaml), each once.
func declaredOperations() ([]string, error) {
	table, err := operationTable()
	if err != nil {
		return nil, err
	}
	var declared []string
	for _, e := range table {
		if e.op != "GET /compute/v1/openapi.yaml" && !slices.Contains(declared, e.op) {
			declared = append(declared, e.op)
		}
	}
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
