package fake

import (
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEngineImportsOnlyTheStandardLibrary keeps the engine an independent reading of the contract:
// its non-test files import nothing but the standard library, so neither the SDK package nor any of
// its helpers can shape what the fake accepts or sends. (go list -deps shows the same.)
func TestEngineImportsOnlyTheStandardLibrary(t *testing.T) {
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	fset := token.NewFileSet()
	var files int
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		files++
		f, err := parser.ParseFile(fset, name, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			first, _, _ := strings.Cut(path, "/")
			require.NotContains(t, first, ".", "%s imports %s, which is not the standard library", name, path)
		}
	}
	require.Positive(t, files)
}
