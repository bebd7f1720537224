package fake

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Helpers shared by the package's tests.

// testControlToken opens the control endpoint of the engines the tests make.
const testControlToken = "test-control"

// newEngine is an engine with the control endpoint on and cfg's other settings.
func newEngine(cfg Config) *Engine {
	cfg.ControlToken = testControlToken
	return New(cfg)
}

// send sends one request to e without the network, with the API token, or the control token for a
// path under /_fake/, and returns the status and the body.
func send(t *testing.T, e *Engine, method, path, body string) (int, string) {
	t.Helper()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	if strings.HasPrefix(path, controlPrefix) {
		r.Header.Set(controlHeader, testControlToken)
	} else {
		r.Header.Set("Authorization", "Bearer "+DefaultToken)
	}
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	return w.Code, w.Body.String()
}

// ok sends a request that must succeed with status want and decodes its JSON body, if any.
func ok(t *testing.T, e *Engine, want int, method, path, body string) map[string]any {
	t.Helper()
	status, got := send(t, e, method, path, body)
	require.Equal(t, want, status, "%s %s: %s", method, path, got)
	var m map[string]any
	if got != "" {
		require.NoError(t, json.Unmarshal([]byte(got), &m), got)
	}
	return m
}

// refused sends a request that must be refused with status and code, and returns the message.
func refused(t *testing.T, e *Engine, status int, code, method, path, body string) string {
	t.Helper()
	got, raw := send(t, e, method, path, body)
	require.Equal(t, status, got, "%s %s: %s", method, path, raw)
	var m struct{ Code, Message string }
	require.NoError(t, json.Unmarshal([]byte(raw), &m), raw)
	require.Equal(t, code, m.Code, "%s %s: %s", method, path, raw)
	return m.Message
}

// An instance create the default catalogue accepts.
const instanceBodyJSON = `{"name":"web","hostname":"web","type":"vcpu-2_memory-4g","region":"NORD-NO-KRS-1",` +
	`"image":"ubuntu-24.04","ssh_keys":["key-ci"]}`
