package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// goldenCase is one operation's golden test: the exact request it must send, and a contract-shaped
// response it must decode.
type goldenCase struct {
	// name names the subtest, after the operation ("instance_create").
	name string
	// method, path and query are what the server must see (path escaped, query encoded).
	method, path, query string
	// reqFile is the testdata file holding the expected JSON body; "" means no body may be sent.
	reqFile string
	// status and respFile are the response; respFile "" responses an empty body.
	status   int
	respFile string
	// call performs the operation and returns its result (nil for none).
	call func(ctx context.Context, c *Client) (any, error)
	// check, when set, verifies the result against the decoded response file.
	check func(t *testing.T, result any, respBody []byte)
}

// runGolden runs gc against a test server and asserts the request byte for byte (JSON-equal body).
func runGolden(t *testing.T, gc goldenCase) {
	t.Helper()
	var respBody []byte
	if gc.respFile != "" {
		respBody = golden(t, gc.respFile)
	}
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if respBody == nil {
			w.WriteHeader(gc.status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(gc.status)
		_, _ = w.Write(respBody)
	})
	result, err := gc.call(context.Background(), c)
	require.NoError(t, err)
	reqs := rec.all()
	require.Len(t, reqs, 1)
	got := reqs[0]
	require.Equal(t, gc.method, got.Method)
	require.Equal(t, gc.path, got.Path)
	require.Equal(t, gc.query, got.Query)
	goldenSeen.Store(got.Method+" "+got.Path, true)
	require.Equal(t, "application/json", got.Header.Get("Accept"))
	if gc.reqFile == "" {
		require.Empty(t, got.Body, "no body expected")
		require.Empty(t, got.Header.Get("Content-Type"))
	} else {
		require.Equal(t, "application/json", got.Header.Get("Content-Type"))
		require.JSONEq(t, string(golden(t, gc.reqFile)), string(got.Body))
	}
	if gc.check != nil {
		gc.check(t, result, respBody)
	}
}

// runGoldenCases runs each case as a parallel subtest.
func runGoldenCases(t *testing.T, cases []goldenCase) {
	t.Helper()
	for _, gc := range cases {
		t.Run(gc.name, func(t *testing.T) {
			t.Parallel()
			runGolden(t, gc)
		})
	}
}

// serveJSON responds to every request with body as a 200 JSON response.
func serveJSON(body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}
}

// envelopeItem returns the object under key in a golden response; for a list response (an array under
// key) it returns the first element.
func envelopeItem(t *testing.T, respBody []byte, key string) []byte {
	t.Helper()
	var env map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(respBody, &env))
	raw, ok := env[key]
	require.True(t, ok, "golden response has no %q", key)
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		var items []json.RawMessage
		require.NoError(t, json.Unmarshal(raw, &items))
		require.NotEmpty(t, items)
		return items[0]
	}
	return raw
}

// requireFullyMapped decodes obj strictly into a T and fails when a JSON key of obj has no field in T
// (an unmapped key), when a field of T has no key in obj, or when a field decodes to its zero value
// (a key silently not mapped). Golden responses therefore give every field a non-zero value; fields
// named in zeroOK (Go names) may stay zero (a golden null). It returns the decoded value.
func requireFullyMapped[T any](t *testing.T, obj []byte, zeroOK ...string) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(&v), "a JSON key of the golden response is not mapped to a field")
	var keys map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(obj, &keys))
	rv := reflect.ValueOf(v)
	require.Equal(t, rv.NumField(), len(keys), "the type has %d fields, the golden object %d keys", rv.NumField(), len(keys))
	for i := 0; i < rv.NumField(); i++ {
		f := rv.Type().Field(i)
		if !f.IsExported() || slices.Contains(zeroOK, f.Name) {
			continue
		}
		require.False(t, rv.Field(i).IsZero(), "field %s decoded to its zero value: is its JSON key mapped?", f.Name)
	}
	return v
}
