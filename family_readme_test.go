package compute

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
