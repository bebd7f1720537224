package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-querystring/query"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queryOf returns the query part of the URL call would send for q.
func queryOf(t *testing.T, q any) string {
	t.Helper()
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com/base"))
	require.NoError(t, err)
	u, path, err := c.requestURL(opListImages, nil, q)
	require.NoError(t, err)
	require.Equal(t, "/compute/v1/images", path)
	rest, _ := strings.CutPrefix(u, "https://api.example.com/base/compute/v1/images")
	q2, _ := strings.CutPrefix(rest, "?")
	require.Equal(t, rest == "", q2 == "", "a query starts with one '?' and an empty one has none: %q", u)
	return q2
}

// encodedByQuerystring is what go-querystring makes of q, the reference for the hand-written writers.
func encodedByQuerystring(t *testing.T, q any) string {
	t.Helper()
	v, err := query.Values(q)
	require.NoError(t, err)
	return v.Encode()
}

// The query types of the hot paths write their own parameters; each must encode exactly what
// go-querystring makes of its url tags, for every value, so that the tags stay the one truth.
func TestQueryWritersMatchQuerystring(t *testing.T) {
	t.Parallel()
	ints := []int{0, 1, 2, 9, 10, 99, 100, 101, -1, math.MaxInt, math.MinInt}
	types := []ImageType{"", ImageTypeSnapshot, ImageTypeCloudImage, "a b&c=d", "é/?#%", "+"}
	for _, page := range ints {
		for _, perPage := range ints {
			lo := &ListOptions{Page: page, PerPage: perPage}
			assert.Equal(t, encodedByQuerystring(t, lo), queryOf(t, lo), "%+v", *lo)
			for _, typ := range types {
				io := &ImageListOptions{Type: typ, ListOptions: *lo}
				assert.Equal(t, encodedByQuerystring(t, io), queryOf(t, io), "%+v", *io)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		io := &ImageListOptions{Type: ImageType(randomString(rng)), ListOptions: ListOptions{Page: rng.IntN(1000) - 10, PerPage: rng.IntN(200)}}
		require.Equal(t, encodedByQuerystring(t, io), queryOf(t, io), "%+v", *io)
	}
	assert.Empty(t, queryOf(t, (*ListOptions)(nil)))
	assert.Empty(t, queryOf(t, (*ImageListOptions)(nil)))
	assert.Empty(t, queryOf(t, nil))

	// Any other query type goes through go-querystring.
	other := &struct {
		Name string `url:"name"`
		Tags []string
	}{Name: "a b", Tags: []string{"x", "y"}}
	assert.Equal(t, "Tags=x&Tags=y&name=a+b", queryOf(t, other))
}

// randomString draws a short string of ASCII and non-ASCII runes, reserved characters included.
func randomString(rng *rand.Rand) string {
	const alphabet = "aZ09 -_.~!*'();:@&=+$,/?#[]%\"é日\x00\x7f"
	runes := []rune(alphabet)
	var b strings.Builder
	for range rng.IntN(8) {
		b.WriteRune(runes[rng.IntN(len(runes))])
	}
	return b.String()
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
		{name: "null under the key", body: `{"instance":null}`, wantErr: `the answer has no "instance" object`},
		{name: "the key is missing", body: `{"instances":[]}`, wantErr: `the answer has no "instance" object`},
		{name: "an empty body", body: ``, wantErr: "the answer is not a JSON object"},
		{name: "a top-level null", body: `null`, wantErr: "the answer is not a JSON object"},
		{name: "a top-level array", body: `[{"instance":{}}]`, wantErr: "the answer is not a JSON object"},
		{name: "an HTML page", body: `<html>ok</html>`, wantErr: "the answer is not a JSON object"},
		{name: "a truncated object", body: `{"instance":{"id":"a"`, wantErr: "unexpected end of JSON input"},
		{name: "trailing data", body: `{"instance":{"id":"a"}} {}`, wantErr: "after top-level value"},
		{name: "a wrong type under the key", body: `{"instance":"a"}`, wantErr: "cannot unmarshal string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			inst, err := answering(t, http.StatusOK, tc.body).Instances.Get(context.Background(), "i-1")
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
	p, err := answering(t, http.StatusOK, `{"instances":[{"id":"a"},{"id":"b"}],"total_count":7,"page":null,"PER_PAGE":2}`).
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
	p, err := answering(t, http.StatusOK, `{"instances":null,"Instances":[{"id":"a"}],"total_count":null,"total_count":5}`).
		Instances.List(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, p.Items, 1)
	assert.Equal(t, "a", p.Items[0].ID)
	assert.Equal(t, 5, p.TotalCount)
}

// Answers are read into pooled buffers: nothing decoded from one answer may change when the buffer
// is reused for the next.
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

func TestReadAnswerBounds(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("x", 3000)
	buf, err := readAnswer(strings.NewReader(body), 3000)
	require.NoError(t, err, "an answer of exactly the limit is read")
	assert.Equal(t, body, buf.String())
	releaseAnswer(buf)

	_, err = readAnswer(strings.NewReader(body+"y"), 3000)
	require.ErrorContains(t, err, "the answer is larger than")

	// Short reads are gathered; a broken read keeps its cause.
	buf, err = readAnswer(iotest.OneByteReader(strings.NewReader(body)), 1<<20)
	require.NoError(t, err)
	assert.Equal(t, body, buf.String())
	releaseAnswer(buf)
	_, err = readAnswer(iotest.TimeoutReader(strings.NewReader(body)), 1<<20)
	assert.ErrorIs(t, err, iotest.ErrTimeout)

	// readAtMost stops at n bytes whatever the reader offers.
	var b bytes.Buffer
	require.NoError(t, readAtMost(&b, strings.NewReader(body), 1000))
	assert.Equal(t, 1000, b.Len())
}

// A success answer that cannot be read whole (the connection breaks in the middle) is an error that
// keeps the cause, never a half-decoded resource.
func TestBrokenAnswerKeepsItsCause(t *testing.T) {
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
	assert.Contains(t, err.Error(), "reading answer (status 200)")
}

// Every request shares the client's header values; a transport that adds to a header (which
// RoundTrippers should not, but some do) must not change what the next request carries.
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
	assert.Equal(t, []string{"Bearer " + testToken}, value)
	assert.Equal(t, []string{"application/json"}, c.headers.acceptJSON)
}

// The call's state is found through every context net/http and the SDK derive from the request's,
// and the caller's values stay visible through it.
func TestCallStateIsTheRequestContext(t *testing.T) {
	t.Parallel()
	type userKey struct{}
	ctx := context.WithValue(context.Background(), userKey{}, "v")
	var sawState, sawValue bool
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sawState = stateOf(r.Context()) != nil
		sawValue = r.Context().Value(userKey{}) == "v"
		return &http.Response{StatusCode: http.StatusNoContent, Header: http.Header{}, Body: http.NoBody, Request: r}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}))
	require.NoError(t, err)
	require.NoError(t, c.Instances.Delete(ctx, "i-1"))
	assert.True(t, sawState, "the transport finds the call's state")
	assert.True(t, sawValue, "the caller's context values are kept")
	assert.Nil(t, stateOf(context.Background()))
}

// The envelope's struct type is built once per set of keys and target types. reflect.StructOf
// would hand back the same type anyway, but only after building its fields, so the cache shows as
// a lookup that allocates nothing.
func TestEnvelopeTypesAreCached(t *testing.T) {
	a := pageEnvelope("things", new([]json.RawMessage), new(int), new(int), new(int))
	b := pageEnvelope("things", new([]json.RawMessage), new(int), new(int), new(int))
	assert.Same(t, a.structType(), b.structType())
	assert.NotEqual(t, a.structType(), envelopeOf("things", new(json.RawMessage)).structType())
	assert.Zero(t, testing.AllocsPerRun(100, func() { _ = b.structType() }), "a known shape is looked up, not built")
}
