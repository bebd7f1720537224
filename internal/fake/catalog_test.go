package fake

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A catalogue of 1 MiB whose one image, with an ID of 600 KB, names 500 regions the catalogue
// does not list has 500 problems, each about that ID: the first is reported, with their count,
// its quoted ID cut, and reading it costs a bounded memory, not one copy of the ID per problem.
func TestCatalogProblemsAreBounded(t *testing.T) {
	id := strings.Repeat("i", 600<<10)
	regions := make([]string, 500)
	for i := range regions {
		regions[i] = "R"
	}
	b, err := json.Marshal(map[string]any{"regions": []map[string]string{{"id": "A", "name": "a"}},
		"images": []map[string]any{{"id": id, "type": "base-os", "regions": regions}}})
	require.NoError(t, err)
	require.Less(t, len(b), 1<<20)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err = ParseCatalog(b)
	runtime.ReadMemStats(&after)
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, `names region "R", which the catalogue does not list`)
	assert.Contains(t, msg, "and 499 more problems")
	assert.Less(t, len(msg), 1<<10, "the quoted ID is cut")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "bytes allocated reading the catalogue")
}

// The reason a catalogue is not read quotes a long key or value cut.
func TestCatalogDecodeErrorIsCut(t *testing.T) {
	_, err := ParseCatalog([]byte(`{"regions":[{"id":"A","name":"a"}],"` + strings.Repeat("k", 600<<10) + `":1}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a catalogue")
	assert.Less(t, len(err.Error()), 1<<10)
}
