package compute

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDebugDumpHasNoTokenAndIsBounded: a server that echoes the credential into a header and a
// long body still leaves no trace of the token in the dump, which shows the request's body, the
// response's headers and body, never the credential headers, and stays short.
func TestDebugDumpHasNoTokenAndIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var dump lockedBuffer
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			echo := r.Header.Get("Authorization")
			w.Header().Set("X-Echo", echo)
			w.Header().Set(strings.TrimPrefix(echo, "Bearer "), "a header named as the token")
			for i := range 2000 {
				w.Header().Set(fmt.Sprintf("X-Many-%04d", i), "many")
			}
			w.Header().Set("X-Long", strings.Repeat("h", 100<<10))
			replyJSON(w, http.StatusBadRequest, map[string]string{"code": "02004",
				"message": echo + strings.Repeat(" padding", 8<<10) + echo})
		}, WithDebugDump(&dump), WithoutRetries())
		_, err := c.Instances.Create(context.Background(), validCreate())
		require.ErrorIs(t, err, ErrBadRequest)
		out := dump.String()
		assert.Contains(t, out, "> POST http://")
		assert.Contains(t, out, `"name":"web-1"`, "the request's body")
		assert.Contains(t, out, "> Content-Type: application/json")
		assert.Contains(t, out, "< 400 Bad Request")
		assert.Contains(t, out, "< X-Echo: Bearer [REDACTED]")
		assert.Contains(t, out, `"code":"02004"`)
		assert.NotContains(t, out, "Authorization")
		requireNoToken(t, out)
		for i := 0; i+scrubRun <= len(testToken); i++ {
			assert.NotContains(t, out, testToken[i:i+scrubRun])
		}
		assert.Less(t, len(out), 16<<10, "each body and header value is cut, and the header lines")
		assert.Contains(t, out, "more header lines)")
	})
}

// TestDebugDumpScrubsTheRequestBody: a request body that holds the token (a startup script that
// logs in with it) is dumped scrubbed.
func TestDebugDumpScrubsTheRequestBody(t *testing.T) {
	var dump lockedBuffer
	c, _ := newTestClient(t, echoInstance(t), WithDebugDump(&dump), WithoutRateLimit())
	req := validCreate()
	req.Metadata = &InstanceMetadata{StartupScript: "#!/bin/sh\ncompute login --token " + testToken + "\n"}
	_, err := c.Instances.Create(context.Background(), req)
	require.NoError(t, err)
	out := dump.String()
	assert.Contains(t, out, "compute login --token [REDACTED]")
	requireNoToken(t, out)
}

// A token in the status line's reason phrase is scrubbed too.
func TestDebugDumpScrubsTheStatusLine(t *testing.T) {
	var dump lockedBuffer
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		body := `{"code":"02004","message":"no"}`
		fmt.Fprintf(buf, "HTTP/1.1 400 %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
			strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), len(body), body)
		_ = buf.Flush()
	}, WithDebugDump(&dump), WithoutRetries())
	_, err := c.Instances.Get(context.Background(), "i-1")
	require.ErrorIs(t, err, ErrBadRequest)
	assert.Contains(t, dump.String(), "< 400 [REDACTED]")
	requireNoToken(t, dump.String())
}

// TestNoDumpWithoutTheOption: a client without WithDebugDump writes nothing anywhere.
func TestNoDumpWithoutTheOption(t *testing.T) {
	c, _ := newTestClient(t, echoInstance(t))
	assert.Nil(t, c.transport.dump)
	_, err := c.Instances.Get(context.Background(), "i-1")
	require.NoError(t, err)
	_, err = NewClient(testToken, WithBaseURL("https://api.example.com"), WithDebugDump(nil))
	require.Error(t, err)
}
