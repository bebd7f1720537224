package compute

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The envelope decodes as encoding/json does into a struct with the same keys: the documented
// choice, the same rules as inside every resource.
func TestEnvelopeFollowsEncodingJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, body string
		wantID     string // "" when no instance is expected
		wantErr    string
	}{
		{name: "exact key", body: `{"instance":{"id":"a"}}`, wantID: "a"},
		{name: "keys the SDK does not know are skipped", body: `{"meta":{"x":[1,{"y":null}]},"instance":{"id":"a"},"links":[]}`, wantID: "a"},
		{name: "a key differing only in case matches, as in encoding/json", body: `{"Instance":{"id":"a"}}`, wantID: "a"},
		{name: "every spelling fills the same target, the last one last", body: `{"instance":{"id":"a"},"INSTANCE":{"id":"b"}}`, wantID: "b"},
		{name: "a repeated key: the last value is merged in", body: `{"instance":{"id":"a"},"instance":{"id":"b"}}`, wantID: "b"},
		{name: "leading white space", body: " \r\n\t{\"instance\":{\"id\":\"a\"}}", wantID: "a"},
		{name: "null under the key", body: `{"instance":null}`, wantErr: `the response has no "instance" object`},
		{name: "the key is missing", body: `{"instances":[]}`, wantErr: `the response has no "instance" object`},
		{name: "an empty body", body: ``, wantErr: "the response is not a JSON object"},
		{name: "a top-level null", body: `null`, wantErr: "the response is not a JSON object"},
		{name: "a top-level array", body: `[{"instance":{}}]`, wantErr: "the response is not a JSON object"},
		{name: "an HTML page", body: `<html>ok</html>`, wantErr: "the response is not a JSON object"},
		{name: "a truncated object", body: `{"instance":{"id":"a"`, wantErr: "unexpected end of JSON input"},
		{name: "trailing data", body: `{"instance":{"id":"a"}} {}`, wantErr: "after top-level value"},
		{name: "a wrong type under the key", body: `{"instance":"a"}`, wantErr: "cannot unmarshal string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			inst, err := responding(t, http.StatusOK, tc.body).Instances.Get(context.Background(), "i-1")
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Nil(t, inst)
				assert.Contains(t, err.Error(), tc.wantErr)
				assert.Contains(t, err.Error(), "compute: GET /compute/v1/instances/")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantID, inst.ID)
		})
	}
}

// A page's counts decode beside its items, and a null count leaves zero.
func TestPageEnvelopeCounts(t *testing.T) {
	t.Parallel()
	p, err := responding(t, http.StatusOK, `{"instances":[{"id":"a"},{"id":"b"}],"total_count":7,"page":null,"PER_PAGE":2}`).
		Instances.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, p.Items, 2)
	assert.Equal(t, 7, p.TotalCount)
	assert.Equal(t, 0, p.Page)
	assert.Equal(t, 2, p.PerPage)
}

// A null under a key followed by the same key again (in any spelling) still fills the target:
// the envelope decodes exactly as encoding/json does into a struct of the targets' types.
func TestEnvelopeNullThenRepeatedKey(t *testing.T) {
	t.Parallel()
	p, err := responding(t, http.StatusOK, `{"instances":null,"Instances":[{"id":"a"}],"total_count":null,"total_count":5}`).
		Instances.List(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, p.Items, 1)
	assert.Equal(t, "a", p.Items[0].ID)
	assert.Equal(t, 5, p.TotalCount)
}

// Nothing decoded from one response changes when the client reads the next.
func TestDecodedValuesOutliveTheirBuffer(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/compute/v1/instances/")
		replyRaw(w, http.StatusOK, `{"instance":{"id":"`+id+`","name":"`+strings.Repeat(id, 50)+`","ssh_keys":[{"id":"`+id+`","name":"`+id+`"}]}}`)
	})
	var got []*Instance
	for _, id := range []string{"aaaa", "bbbb", "cccc", "dddd"} {
		inst, err := c.Instances.Get(context.Background(), id)
		require.NoError(t, err)
		got = append(got, inst)
	}
	for i, id := range []string{"aaaa", "bbbb", "cccc", "dddd"} {
		assert.Equal(t, id, got[i].ID)
		assert.Equal(t, strings.Repeat(id, 50), got[i].Name)
		assert.Equal(t, []Ref{{ID: id, Name: id}}, got[i].SSHKeys)
	}
}

// A success response of exactly the operation's bound is read; one byte more is an error. Short
// reads are gathered, and a broken read keeps its cause.
func TestResponseBodyBounds(t *testing.T) {
	t.Parallel()
	op := operation{method: "GET", maxBody: 3000}
	body := strings.Repeat("x", 3000)
	respond := func(status int, r io.Reader) *http.Response {
		return &http.Response{StatusCode: status, Body: io.NopCloser(r)}
	}
	got, err := readBody(respond(200, strings.NewReader(body)), op)
	require.NoError(t, err, "a response of exactly the bound is read")
	assert.Equal(t, body, string(got))

	_, err = readBody(respond(200, strings.NewReader(body+"y")), op)
	require.ErrorIs(t, err, errTooLarge)

	got, err = readBody(respond(200, iotest.OneByteReader(strings.NewReader(body))), op)
	require.NoError(t, err)
	assert.Equal(t, body, string(got))
	_, err = readBody(respond(200, iotest.TimeoutReader(strings.NewReader(body))), op)
	assert.ErrorIs(t, err, iotest.ErrTimeout)

	// An error response is cut at maxErrorBody, never refused: its status is what matters.
	got, err = readBody(respond(503, strings.NewReader(strings.Repeat("e", maxErrorBody+10))), op)
	require.NoError(t, err)
	assert.Len(t, got, maxErrorBody)
}

// A success response that cannot be read whole (the connection breaks in the middle) is an error
// that keeps the cause, never a half-decoded resource.
func TestBrokenResponseKeepsItsCause(t *testing.T) {
	t.Parallel()
	broken := errors.New("connection reset by peer")
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{
			StatusCode: http.StatusOK, Header: http.Header{},
			Body:    io.NopCloser(io.MultiReader(strings.NewReader(`{"instance":{"id":"a",`), iotest.ErrReader(broken))),
			Request: r,
		}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}), WithoutRetries())
	require.NoError(t, err)
	inst, err := c.Instances.Get(context.Background(), "i-1")
	assert.Nil(t, inst)
	require.ErrorIs(t, err, broken)
	assert.Contains(t, err.Error(), "reading the response (status 200)")
}

// A transport that adds to a request's headers (which RoundTrippers should not, but some do) must
// not change what the next request carries.
func TestSharedHeaderValuesStayUnchanged(t *testing.T) {
	t.Parallel()
	var seen [][]string
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		seen = append(seen, append([]string(nil), r.Header.Values("User-Agent")...))
		r.Header.Add("User-Agent", "added-by-transport")
		r.Header.Add("Accept", "text/plain")
		r.Header.Add("Authorization", "Basic x")
		return &http.Response{StatusCode: http.StatusNoContent, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}), WithUserAgent("app/1"))
	require.NoError(t, err)
	for range 3 {
		require.NoError(t, c.Instances.Delete(context.Background(), "i-1"))
	}
	require.Len(t, seen, 3)
	for _, ua := range seen {
		assert.Equal(t, []string{"compute-go/" + Version + " app/1"}, ua)
	}
	name, value := c.transport.cred.header()
	assert.Equal(t, "Authorization", name)
	assert.Equal(t, "Bearer "+testToken, value)
}

// The caller's context values reach the transport under the SDK.
func TestCallerContextValuesReachTheTransport(t *testing.T) {
	t.Parallel()
	type userKey struct{}
	ctx := context.WithValue(context.Background(), userKey{}, "v")
	var sawValue bool
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sawValue = r.Context().Value(userKey{}) == "v"
		return &http.Response{StatusCode: http.StatusNoContent, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}))
	require.NoError(t, err)
	require.NoError(t, c.Instances.Delete(ctx, "i-1"))
	assert.True(t, sawValue, "the caller's context values are kept")
}
