package compute

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"

	querystring "github.com/google/go-querystring/query"
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

// TestRefusalAfterAPossiblyProcessedAttempt: once an attempt of a DELETE may have been processed (its
// response was a 503 or was lost), the retry's 404 with the instance's not-found code is success, the
// work done, and any other refusal (a 400 as the instance is now deleting, an invalid route's 404, a
// proxy's HTML 404) is an unknown outcome, the refusal still there to read. After a 429, which the
// service did not process, the same 404 is a plain ErrNotFound.
func TestRefusalAfterAPossiblyProcessedAttempt(t *testing.T) {
	t.Parallel()
	lost := func(w http.ResponseWriter, r *http.Request) { hangUp(w) }
	for name, tc := range map[string]struct {
		first, then http.HandlerFunc
		// want is nil for success; ErrOutcomeUnknown also requires the refusal's *APIError.
		want error
	}{
		"404 with the instance's not-found code after a 503":           {withStatus(http.StatusServiceUnavailable), instanceNotFound, nil},
		"404 with the instance's not-found code after a lost response": {lost, instanceNotFound, nil},
		"404 with the instance's not-found code after a 429":           {withStatus(http.StatusTooManyRequests), instanceNotFound, ErrNotFound},
		"refused as deleting after a lost response": {lost, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, 400, map[string]string{"code": "02069", "message": "Only running or stopped instances can be deleted"})
		}, ErrOutcomeUnknown},
		"404 invalid route after a lost response": {lost, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, 404, map[string]string{"code": "02001", "message": "Invalid route"})
		}, ErrOutcomeUnknown},
		"HTML 404 from a proxy after a lost response": {lost, func(w http.ResponseWriter, r *http.Request) {
			replyRaw(w, 404, "<html>Not Found</html>")
		}, ErrOutcomeUnknown},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				c, rec := newTestClient(t, sequence(tc.then, tc.first), defaultRetry())
				err := c.Instances.Delete(context.Background(), "i-1")
				assert.Equal(t, 2, rec.count())
				switch tc.want {
				case nil:
					require.NoError(t, err, "the first attempt may have deleted it: the goal is reached")
				case ErrOutcomeUnknown:
					require.ErrorIs(t, err, ErrOutcomeUnknown, "a refusal after a possibly processed attempt")
					var apiErr *APIError
					require.ErrorAs(t, err, &apiErr, "the refusal is still there to read")
				default:
					require.ErrorIs(t, err, tc.want)
					assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a 429 was not processed")
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
			id := tc.wantID
			if id == "" {
				id = "i-1"
			}
			inst, err := responding(t, http.StatusOK, tc.body).Instances.Get(context.Background(), id)
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

// Every list method's options reach the server as the query the contract names, encoded by
// go-querystring from the option types' url tags: the server's own parser reads them back.
func TestListQueriesAsTheServerReadsThem(t *testing.T) {
	t.Parallel()
	opts := &ListOptions{Page: 3, PerPage: 25}
	paged := url.Values{"page": {"3"}, "per_page": {"25"}}
	for _, tc := range []struct {
		name string
		call func(*Client) error
		want url.Values
	}{
		{"Instances.List", func(c *Client) error { _, err := c.Instances.List(context.Background(), opts); return err }, paged},
		{"SecurityGroups.List", func(c *Client) error { _, err := c.SecurityGroups.List(context.Background(), opts); return err }, paged},
		{"FloatingIPs.List", func(c *Client) error { _, err := c.FloatingIPs.List(context.Background(), opts); return err }, paged},
		{"Snapshots.ListByInstance", func(c *Client) error {
			_, err := c.Snapshots.ListByInstance(context.Background(), "i-1", opts)
			return err
		}, paged},
		{"Images.List", func(c *Client) error {
			_, err := c.Images.List(context.Background(), &ImageListOptions{Type: "a b&c", ListOptions: *opts})
			return err
		}, url.Values{"page": {"3"}, "per_page": {"25"}, "type": {"a b&c"}}},
		{"Images.List by type only", func(c *Client) error {
			_, err := c.Images.List(context.Background(), &ImageListOptions{Type: ImageTypeSnapshot})
			return err
		}, url.Values{"type": {"snapshot"}}},
		{"SSHKeys.List", func(c *Client) error { _, err := c.SSHKeys.List(context.Background(), opts); return err }, paged},
		{"Volumes.List", func(c *Client) error { _, err := c.Volumes.List(context.Background(), opts); return err }, paged},
		{"Filesystems.List", func(c *Client) error { _, err := c.Filesystems.List(context.Background(), opts); return err }, paged},
		{"Snapshots.List", func(c *Client) error { _, err := c.Snapshots.List(context.Background(), opts); return err }, paged},
		{"Availability.Instances", func(c *Client) error {
			_, err := c.Availability.Instances(context.Background(), "NORD-NO-KRS-1", &AvailabilityOptions{Placement: "a b&c"})
			return err
		}, url.Values{"placement": {"a b&c"}}},
		{"Instances.List without options", func(c *Client) error { _, err := c.Instances.List(context.Background(), nil); return err }, url.Values{}},
		{"Images.List without options", func(c *Client) error { _, err := c.Images.List(context.Background(), nil); return err }, url.Values{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got url.Values
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				got = r.URL.Query()
				replyRaw(w, 200, universalResponse)
			})
			require.NoError(t, tc.call(c))
			assert.Equal(t, tc.want, got)
		})
	}
}

// BenchmarkListQueryEncoding: what go-querystring costs to encode a list's options, against the
// hand-written writer it replaced (kept here only as the baseline), in the same run. A List call
// costs about a millisecond (BenchmarkListInstances), so the difference is what one List pays.
func BenchmarkListQueryEncoding(b *testing.B) {
	opts := &ImageListOptions{Type: ImageTypeBaseOS, ListOptions: ListOptions{Page: 3, PerPage: 100}}
	b.Run("impl=go-querystring", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v, err := querystring.Values(opts)
			if err != nil {
				b.Fatal(err)
			}
			_ = v.Encode()
		}
	})
	b.Run("impl=hand-written", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			v := url.Values{}
			if opts.Type != "" {
				v.Set("type", string(opts.Type))
			}
			if opts.Page != 0 {
				v.Set("page", strconv.Itoa(opts.Page))
			}
			if opts.PerPage != 0 {
				v.Set("per_page", strconv.Itoa(opts.PerPage))
			}
			_ = v.Encode()
		}
	})
}

func TestOpenAPI(t *testing.T) {
	t.Parallel()
	doc := "openapi: 3.0.0\ninfo:\n  title: Compute\n"
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/yaml")
		replyRaw(w, 200, doc)
	})
	got, err := c.OpenAPI(context.Background())
	require.NoError(t, err)
	assert.Equal(t, doc, string(got))
	r := rec.all()[0]
	assert.Equal(t, "GET", r.Method)
	assert.Equal(t, "/compute/v1/openapi.yaml", r.Path)
	assert.Contains(t, r.Header.Get("Accept"), "application/yaml")
}

func TestNilContextIsRefusedNotAPanic(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, newStatusServer("active").handle)
	var nilCtx context.Context
	_, err := c.Instances.WaitForStatus(nilCtx, "i-1", InstanceStatusActive)
	requireInvalid(t, err, "ctx", rec)
	_, err = c.Instances.Get(nilCtx, "i-1")
	requireInvalid(t, err, "ctx", rec)
	yielded := 0
	for _, err := range c.Instances.All(nilCtx, nil) {
		requireInvalid(t, err, "ctx", rec)
		yielded++
	}
	assert.Equal(t, 1, yielded, "the walk yields the refusal once, then ends")
}
