package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
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
// logs in with it) is dumped without it: the script is hidden whole.
func TestDebugDumpScrubsTheRequestBody(t *testing.T) {
	var dump lockedBuffer
	c, _ := newTestClient(t, echoInstance(t), WithDebugDump(&dump), WithoutRateLimit())
	req := validCreate()
	req.Metadata = &InstanceMetadata{StartupScript: "#!/bin/sh\ncompute login --token " + testToken + "\n"}
	_, err := c.Instances.Create(context.Background(), req)
	require.NoError(t, err)
	out := dump.String()
	assert.NotContains(t, out, "compute login")
	assert.Contains(t, out, `"startup_script":"[REDACTED: 52 bytes]"`)
	requireNoToken(t, out)
}

// The secrets of a create (the password, the startup script, user data's content) are not in the
// dump, neither in the request's body nor where the service echoes them: in the response's body,
// at any depth, in its error message, in a header. The rest stays readable, and each body valid
// JSON.
func TestDebugDumpScrubsSecretFields(t *testing.T) {
	const (
		password = "Correct-Horse-Battery-9"
		script   = "#!/bin/sh\necho db-pass=hunter2hunter2 > /etc/app.conf\n"
		content  = "#cloud-config\nchpasswd: {list: 'root:S3cr3tRootPw'}\n"
	)
	var dump lockedBuffer
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		var sent map[string]any
		_ = json.NewDecoder(r.Body).Decode(&sent)
		w.Header().Set("X-Echo", "weak: "+password)
		replyJSON(w, http.StatusBadRequest, map[string]any{"code": "02018",
			"message": "weak password " + password, "details": map[string]any{"request": sent,
				"nested": []any{map[string]any{"Password": password, "user_password": 987654321}}}})
	}, WithDebugDump(&dump), WithoutRetries())
	req := validCreate()
	req.SSHKeys = nil
	req.Password = password
	req.Metadata = &InstanceMetadata{StartupScript: script,
		UserData: []UserDataItem{{Type: "cloud-config", Filename: "init.yaml", Content: content}}}
	_, err := c.Instances.Create(context.Background(), req)
	require.ErrorIs(t, err, ErrBadRequest)
	out := dump.String()
	for _, secret := range []string{password, "hunter2", "S3cr3tRootPw", "987654321"} {
		assert.NotContains(t, out, secret)
	}
	assert.Contains(t, out, `"password":"[REDACTED]"`)
	assert.Contains(t, out, `"name":"web-1"`)
	assert.Contains(t, out, `"filename":"init.yaml"`)
	assert.Contains(t, out, `"type":"cloud-config"`)
	assert.Contains(t, out, `"message":"weak password [REDACTED]"`)
	assert.Contains(t, out, "< X-Echo: weak: [REDACTED]")
	for _, body := range dumpedBodies(out) {
		assert.True(t, json.Valid([]byte(body)), "not JSON: %s", body)
	}
}

// A snapshot import's URL keeps its scheme, host and path in the dump; its credentials (user and
// password, the query's signature) are hidden.
func TestDebugDumpScrubsTheImportURLsCredentials(t *testing.T) {
	var dump lockedBuffer
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, http.StatusBadRequest, map[string]string{"code": "02004", "message": "no"})
	}, WithDebugDump(&dump), WithoutRetries())
	_, err := c.Snapshots.Import(context.Background(), &SnapshotImportRequest{Name: "disk", Region: "eu-west-1", Size: 10,
		URL: "https://deploy:Tr0ub4dor-and-3@images.example.com/disks/base.raw.zst?X-Amz-Credential=AKIAEXAMPLE123&X-Amz-Signature=c0ffee5ea1ed"})
	require.ErrorIs(t, err, ErrBadRequest)
	out := dump.String()
	for _, secret := range []string{"Tr0ub4dor", "deploy:", "AKIAEXAMPLE123", "c0ffee5ea1ed"} {
		assert.NotContains(t, out, secret)
	}
	assert.Contains(t, out, `"url":"https://[REDACTED]@images.example.com/disks/base.raw.zst?X-Amz-Credential=[REDACTED]&X-Amz-Signature=[REDACTED]"`)
}

// The scrubbing of a body: secret fields at any depth, whatever their value's type; the rest as
// it was, compact and valid; a body cut short shown up to the cut, and said so; one that is not
// JSON as it is.
func TestScrubBody(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":{"b":[{"c":{"password":"p4ssw0rd-x"}}]}}`:                                        `{"a":{"b":[{"c":{"password":"[REDACTED]"}}]}}`,
		`[{"Admin_Password":1234567},{"api_token":{"x":"y"}}]`:                                 `[{"Admin_Password":"[REDACTED]"},{"api_token":"[REDACTED]"}]`,
		`{"password":null,"secret_key":"","name":"<&>"}`:                                       `{"password":null,"secret_key":"[REDACTED]","name":"<&>"}`,
		`{"metadata":{"startup_script":"echo hi","user_data":[{"type":"t","content":"abc"}]}}`: `{"metadata":{"startup_script":"[REDACTED: 7 bytes]","user_data":[{"type":"t","content":"[REDACTED: 3 bytes]"}]}}`,
		`{"content":"kept: not user data","n":[1,2.5,true,null,[],{}]}`:                        `{"content":"kept: not user data","n":[1,2.5,true,null,[],{}]}`,
		`{"url":"https://images.example.com/a.raw"}`:                                           `{"url":"https://images.example.com/a.raw"}`,
		`{"user_data":[[{"content":"deep"}]]}`:                                                 `{"user_data":[[{"content":"[REDACTED: 4 bytes]"}]]}`,
		` {"a" : [ 1 , 2 ] } `:                                                                 `{"a":[1,2]}`,
	} {
		got, _ := scrubBody([]byte(in))
		assert.Equal(t, want, got, in)
		assert.True(t, json.Valid([]byte(got)), got)
	}
	got, _ := scrubBody([]byte(`{"name":"web","password":"p4ssw0rd-and-mo`))
	assert.Equal(t, `{"name":"web","password": (the rest is not shown: not valid JSON)`, got)
	got, _ = scrubBody([]byte(`{"name":"web","ids":[1,2`))
	assert.Equal(t, `{"name":"web","ids":[1,2 (the rest is not shown: not valid JSON)`, got)
	got, _ = scrubBody([]byte("<html>502 Bad Gateway</html>"))
	assert.Equal(t, "<html>502 Bad Gateway</html>", got)
	_, secrets := scrubBody([]byte(`{"password":"p4ssw0rd-x","metadata":{"startup_script":"echo hi"}}`))
	assert.Equal(t, []string{"p4ssw0rd-x", "echo hi"}, secrets)
}

// dumpedBodies are the bodies of a dump: the lines after a lone ">" or "<" line.
func dumpedBodies(dump string) []string {
	var bodies []string
	lines := strings.Split(dump, "\n")
	for i, l := range lines {
		if (l == ">" || l == "<") && i+1 < len(lines) && lines[i+1] != "" {
			bodies = append(bodies, lines[i+1])
		}
	}
	return bodies
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

// TestAnErrorHidesTheSecretsOfItsRequest: a service that quotes the create's password (or its
// startup script) in its error message does not put it in the *APIError, its text, what slog
// writes of it, or the Observer's view of the call's end: it is hidden as the debug dump hides it.
func TestAnErrorHidesTheSecretsOfItsRequest(t *testing.T) {
	const (
		password = "Correct-Horse-Battery-9"
		script   = "#!/bin/sh\necho db-pass=hunter2hunter2\n"
	)
	var ended []error
	var mu sync.Mutex
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, http.StatusBadRequest, map[string]any{"code": "02018",
			"message": "weak password " + password + " for script " + script})
	}, WithoutRetries(), WithObserver(Observer{CallEnd: func(_ context.Context, _ Response, err error) {
		mu.Lock()
		defer mu.Unlock()
		ended = append(ended, err)
	}}))
	req := validCreate()
	req.SSHKeys = nil
	req.Password = password
	req.Metadata = &InstanceMetadata{StartupScript: script}
	_, err := c.Instances.Create(context.Background(), req)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, CodeWeakPassword, apiErr.Code)
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Error("create failed", "err", apiErr)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, ended, 1)
	for _, text := range []string{err.Error(), apiErr.Message, logged.String(), ended[0].Error()} {
		assert.NotContains(t, text, password)
		assert.NotContains(t, text, "hunter2hunter2")
		assert.Contains(t, text, "weak password [REDACTED]")
	}
}
