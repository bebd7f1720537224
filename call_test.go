package compute

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A request without a body (a GET, a DELETE) reaches the transport with no Body at all, so that
// net/http sends it as it is instead of probing an empty body first; a request with one carries it
// whole, with its length.
func TestOnlyRequestsWithABodyCarryOne(t *testing.T) {
	t.Parallel()
	type seen struct {
		method string
		body   string
		hasIt  bool
		length int64
	}
	var got []seen
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		s := seen{method: r.Method, hasIt: r.Body != nil && r.Body != http.NoBody, length: r.ContentLength}
		if s.hasIt {
			b, err := io.ReadAll(r.Body)
			require.NoError(t, err)
			s.body = string(b)
		}
		got = append(got, s)
		status, body := http.StatusOK, `{"instance":{"id":"i-1","status":"active"}}`
		if r.Method == http.MethodDelete {
			status, body = http.StatusNoContent, ""
		}
		return &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}), WithoutRetries())
	require.NoError(t, err)
	ctx := context.Background()
	_, err = c.Instances.Get(ctx, "i-1")
	require.NoError(t, err)
	require.NoError(t, c.Instances.Delete(ctx, "i-1"))
	_, err = c.Instances.Update(ctx, "i-1", &InstanceUpdateRequest{Name: Ptr("web-2")})
	require.NoError(t, err)

	require.Len(t, got, 3)
	assert.Equal(t, seen{method: "GET"}, got[0])
	assert.Equal(t, seen{method: "DELETE"}, got[1])
	assert.Equal(t, seen{method: "PATCH", body: `{"name":"web-2"}`, hasIt: true, length: 16}, got[2])
}

// expandPath fills each {name} with its ID, escaped, and refuses a template that does not take
// exactly the IDs given (a mistake in the SDK, never sent).
func TestExpandPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tmpl string
		ids  []string
		want string // "" for an error
	}{
		{"/a/{x}/b/{y}", []string{"1", "2"}, "/a/1/b/2"},
		{"/a/{x}", []string{"a b?#"}, "/a/a%20b%3F%23"},
		{"/a", nil, "/a"},
		{"/a/{x}", nil, ""},
		{"/a", []string{"1"}, ""},
		{"/a/{x}/{y}", []string{"1"}, ""},
		{"/a/{x", []string{"1"}, ""},
	} {
		got, err := expandPath(tc.tmpl, tc.ids)
		if tc.want == "" {
			assert.Error(t, err, "%s %q", tc.tmpl, tc.ids)
			continue
		}
		require.NoError(t, err, "%s %q", tc.tmpl, tc.ids)
		assert.Equal(t, tc.want, got)
	}
}

func TestRetriedDeleteAnswered404AfterAPossiblyProcessedAttemptSucceeds(t *testing.T) {
	for name, tc := range map[string]struct {
		first   func(w http.ResponseWriter)
		wantErr error
	}{
		"after a 503":            {func(w http.ResponseWriter) { w.WriteHeader(http.StatusServiceUnavailable) }, nil},
		"after a lost response":  {hangUp, nil},
		"after a 429 it was not": {func(w http.ResponseWriter) { w.WriteHeader(http.StatusTooManyRequests) }, ErrNotFound},
	} {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, rec := newTestClient(t, sequence(func(w http.ResponseWriter, r *http.Request) {
					replyJSON(w, http.StatusNotFound, map[string]string{"code": "02008", "message": "Instance not found"})
				}, func(w http.ResponseWriter, r *http.Request) { tc.first(w) }), defaultRetry())
				err := testCall(context.Background(), c, opDeleteInstance, []string{"i"}, nil)
				assert.Equal(t, 2, rec.count())
				if tc.wantErr == nil {
					assert.NoError(t, err, "the first attempt may have deleted it: the goal is reached")
				} else {
					assert.ErrorIs(t, err, tc.wantErr)
				}
			})
		})
	}
}

// A create responded to with 201 whose body cannot be read was processed: the caller must look it up, not
// send it again.
func TestPOSTWithAnUnreadableSuccessResponseIsOutcomeUnknown(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{"truncated": `{"instance": {"id": "i-`, "no envelope": `{}`} {
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusCreated, body) })
		_, err := c.Instances.Create(context.Background(), &InstanceCreateRequest{Name: "w", Hostname: "w", Type: "t", Region: "r", Image: "i", SSHKeys: []string{"k"}})
		assert.ErrorIs(t, err, ErrOutcomeUnknown, name)
		assert.Equal(t, 1, rec.count(), name)
		_, err = c.Instances.Get(context.Background(), "i-1")
		assert.Error(t, err, name)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a GET is simply retried by the caller: %s", name)
	}
}
