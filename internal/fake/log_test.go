package fake

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// emptyHeaders is a request without a token whose header is 1 MiB of header lines with empty
// values: one name repeated, or each line a name of its own.
func emptyHeaders(distinct bool) string {
	var b strings.Builder
	b.WriteString("GET /compute/v1/images HTTP/1.1\r\nHost: fake\r\n")
	for i := 0; b.Len() < 1<<20-64; i++ {
		if distinct {
			b.WriteString("A" + strconv.Itoa(i) + ":\r\n")
		} else {
			b.WriteString("A:\r\n")
		}
	}
	b.WriteString("\r\n")
	return b.String()
}

// parsed reads raw as net/http's server does.
func parsed(t testing.TB, raw string) *http.Request {
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
	require.NoError(t, err)
	return r
}

// heapInUse is the heap's live bytes, after collecting what is garbage.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// 80 unauthenticated requests, each 1 MiB of empty header values (72 of one name repeated, then 8
// of a name a line, which cost the most: each is alone in the log), keep the log within its budget
// in memory, not only in bytes of names and values: each header and query parameter kept counts
// what it costs. The log still keeps what fits.
func TestTheLogBudgetCountsWhatEachHeaderCosts(t *testing.T) {
	const budget = 16 << 20 // compute-fake's
	// Parsed once each: the engine copies what it keeps of a request.
	forms := []*http.Request{parsed(t, emptyHeaders(false)), parsed(t, emptyHeaders(true))}
	before := heapInUse()
	e := newEngine(Config{LogLimit: 1000, LogBytes: budget})
	for i, r := range forms {
		for range []int{72, 8}[i] {
			w := httptest.NewRecorder()
			e.ServeHTTP(w, r)
			require.Equal(t, http.StatusUnauthorized, w.Code)
		}
		grown := heapInUse() - before
		t.Logf("the log holds %d requests, %d bytes by its count; the heap grew %d bytes", len(e.Requests()), e.logSize, grown)
		assert.LessOrEqual(t, grown, int64(budget+budget/8), "the heap the log holds, against its budget of %d", budget)
		if r == forms[0] {
			assert.Greater(t, len(e.Requests()), 1, "requests of one header name repeated fit several at a time")
		}
	}
	runtime.KeepAlive(e)
}

// What a request's header and query cost by the log's count is at least what the heap holds for them:
// each form of a 1 MiB header, and a query of 10,000 parameters, held 4 times over.
func TestTheLogCountsNoLessThanTheHeapHolds(t *testing.T) {
	var b strings.Builder
	for i := range 9_999 {
		b.WriteString("p" + strconv.Itoa(i) + "&")
	}
	forms := map[string]string{"one name": emptyHeaders(false), "distinct names": emptyHeaders(true),
		"a long query": "GET /compute/v1/images?" + b.String() + "p HTTP/1.1\r\nHost: fake\r\n\r\n"}
	for name, raw := range forms {
		const n = 4
		entries := make([]*Request, n)
		r := parsed(t, raw)
		before := heapInUse()
		for i := range entries {
			entries[i] = &Request{Path: r.URL.EscapedPath(), Query: r.URL.Query(), Header: r.Header.Clone()}
		}
		held := (heapInUse() - before) / n
		counted := loggedSize(entries[0])
		runtime.KeepAlive(entries)
		t.Logf("%s: the heap holds %d bytes a request, the log counts %d", name, held, counted)
		assert.GreaterOrEqual(t, int64(counted), held, name)
	}
}
