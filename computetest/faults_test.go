package computetest_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var instancesPath = computetest.Match{Method: http.MethodPost, Path: "/compute/v1/instances"}

func TestFaultFailNext(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	ctx := context.Background()

	srv.FailNext(2, instancesPath, computetest.Fault{
		Status: http.StatusBadRequest, Code: compute.CodeOutOfStock, Message: "out of stock",
	})
	for range 2 {
		_, err := c.Instances.Create(ctx, newInstanceRequest())
		apiErr := requireAPIError(t, err, http.StatusBadRequest, compute.CodeOutOfStock)
		assert.Equal(t, "out of stock", apiErr.Message)
		assert.NotEmpty(t, apiErr.RequestID)
		require.ErrorIs(t, err, compute.CodeOutOfStock)
	}
	// A request the rule does not match is untouched.
	_, err := c.Instances.List(ctx, nil)
	require.NoError(t, err)
	// The rule is spent.
	in, err := c.Instances.Create(ctx, newInstanceRequest())
	require.NoError(t, err)

	reqs := srv.Requests()
	require.Len(t, reqs, 4)
	for i, r := range reqs[:2] {
		assert.True(t, r.Fault, "request %d", i)
		assert.False(t, r.Processed, "request %d: a failed request is not processed", i)
		assert.Equal(t, http.StatusBadRequest, r.Status)
		assert.Equal(t, "/compute/v1/instances", r.Path)
		assert.JSONEq(t, `{"name":"web-1","hostname":"web-1","type":"vcpu-2_memory-4g","region":"NORD-NO-KRS-1",
			"image":"img-ubuntu-2404","ssh_keys":["key-laptop"]}`, string(r.Body))
	}
	for i, r := range reqs[2:] {
		assert.False(t, r.Fault, "request %d", i+2)
		assert.True(t, r.Processed, "request %d", i+2)
	}
	assert.Equal(t, http.StatusCreated, reqs[3].Status)

	page, err := c.Instances.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 1, "the failed creates created nothing")
	assert.Equal(t, in.ID, page.Items[0].ID)

	// A 5xx on a POST is an unknown outcome for the SDK, though the fake did not process it.
	srv.FailNext(1, instancesPath, computetest.Fault{Status: http.StatusInternalServerError, Code: "09999", Message: "boom"})
	_, err = c.Instances.Create(ctx, newInstanceRequest())
	require.ErrorIs(t, err, compute.ErrOutcomeUnknown)
	requireAPIError(t, err, http.StatusInternalServerError, "09999")
	last := srv.Requests()[len(srv.Requests())-1]
	assert.False(t, last.Processed)

	// FailNext with n <= 0 adds nothing.
	srv.FailNext(0, computetest.Match{}, computetest.Fault{Status: http.StatusTeapot})
	_, err = c.Instances.List(ctx, nil)
	require.NoError(t, err)
}

func TestFaultRetryAfterAndMatchPattern(t *testing.T) {
	t.Parallel()
	// In a bubble: the SDK honours the Retry-After of 7 s before its next request.
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		c := srv.Client(compute.WithoutRetries())
		ctx := context.Background()
		in := activeInstance(t, c)

		// A path pattern with a wildcard segment; the other routes are untouched.
		srv.FailNext(1, computetest.Match{Path: "/compute/v1/instances/*/actions"}, computetest.Fault{
			Status: http.StatusTooManyRequests, RetryAfter: "7", Message: "slow down",
		})
		_, err := c.Instances.Get(ctx, in.ID)
		require.NoError(t, err)
		_, err = c.Instances.Actions(ctx, in.ID)
		apiErr := requireAPIError(t, err, http.StatusTooManyRequests, compute.CodeNotAllowed)
		assert.Equal(t, "slow down", apiErr.Message)
		assert.Equal(t, 7*time.Second, apiErr.RetryAfter)
		require.ErrorIs(t, err, compute.ErrRateLimited)
		_, err = c.Instances.Actions(ctx, in.ID)
		require.NoError(t, err)
		reqs := srv.Requests()
		require.Len(t, reqs, 5)
		assert.Equal(t, []bool{false, false, false, true, false},
			[]bool{reqs[0].Fault, reqs[1].Fault, reqs[2].Fault, reqs[3].Fault, reqs[4].Fault})
	})
}

func TestFaultLatency(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		c := srv.Client()
		ctx := context.Background()

		srv.Inject(computetest.Rule{Match: computetest.Match{Method: http.MethodGet}, Times: 1,
			Fault: computetest.Fault{Latency: 5 * time.Second}})
		start := time.Now()
		_, err := c.Instances.List(ctx, nil)
		require.NoError(t, err, "latency alone delays, then processes")
		assert.Equal(t, 5*time.Second, time.Since(start))
		reqs := srv.Requests()
		require.Len(t, reqs, 1)
		assert.True(t, reqs[0].Fault)
		assert.True(t, reqs[0].Processed)
		assert.Equal(t, http.StatusOK, reqs[0].Status)

		// Latency beyond the client's per-attempt timeout: the SDK gives up, the server stops waiting.
		srv.Inject(computetest.Rule{Match: computetest.Match{Method: http.MethodGet}, Times: 1,
			Fault: computetest.Fault{Latency: time.Minute}})
		short := srv.Client(compute.WithTimeout(2*time.Second), compute.WithoutRetries())
		start = time.Now()
		_, err = short.Instances.List(ctx, nil)
		require.Error(t, err)
		assert.Equal(t, 2*time.Second, time.Since(start))
		synctest.Wait()
		last := srv.Requests()[1]
		assert.False(t, last.Processed, "abandoned during the latency")
		assert.Zero(t, last.Status)

		start = time.Now()
		_, err = c.Instances.List(ctx, nil)
		require.NoError(t, err)
		assert.Zero(t, time.Since(start), "spent rules no longer delay")
	})
}

func TestFaultDropIsRetriedForGET(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		c := srv.Client()
		ctx := context.Background()
		in := createInstance(t, c)

		srv.FailNext(1, computetest.Match{Method: http.MethodGet}, computetest.Fault{Drop: true})
		srv.ResetRequests()
		got, err := c.Instances.Get(ctx, in.ID)
		require.NoError(t, err, "the SDK retries an idempotent GET after a dropped connection")
		assert.Equal(t, in.ID, got.ID)

		reqs := srv.Requests()
		require.Len(t, reqs, 2)
		assert.True(t, reqs[0].Fault)
		assert.False(t, reqs[0].Processed)
		assert.Zero(t, reqs[0].Status, "no response")
		assert.False(t, reqs[1].Fault)
		assert.True(t, reqs[1].Processed)
		assert.Equal(t, http.StatusOK, reqs[1].Status)
	})
}

func TestFaultDropAfterProcessing(t *testing.T) {
	t.Parallel()
	srv, c := newFake(t)
	ctx := context.Background()

	srv.FailNext(1, instancesPath, computetest.Fault{DropAfterProcessing: true})
	_, err := c.Instances.Create(ctx, newInstanceRequest())
	require.Error(t, err)
	require.ErrorIs(t, err, compute.ErrOutcomeUnknown)
	var apiErr *compute.APIError
	assert.False(t, errors.As(err, &apiErr), "no response arrived")

	reqs := srv.Requests()
	require.Len(t, reqs, 1, "a POST is never re-sent")
	assert.True(t, reqs[0].Fault)
	assert.True(t, reqs[0].Processed, "the request took effect")
	assert.Zero(t, reqs[0].Status)

	page, err := c.Instances.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 1, "the instance exists although the client never heard of it")
	assert.Equal(t, "web-1", page.Items[0].Name)
}

func TestFaultProbabilityRepeatableWithSeed(t *testing.T) {
	t.Parallel()
	pattern := func(seed uint64) []bool {
		srv := computetest.NewServer(computetest.WithSeed(seed))
		defer srv.Close()
		srv.Inject(computetest.Rule{Match: computetest.Match{Method: http.MethodGet}, Probability: 0.5,
			Fault: computetest.Fault{Status: http.StatusInternalServerError, Code: "09999", Message: "flaky"}})
		var hits []bool
		for range 40 {
			a := rawAuthed(t, srv, http.MethodGet, "/compute/v1/instances", nil)
			hits = append(hits, a.Status == http.StatusInternalServerError)
		}
		for i, r := range srv.Requests() {
			require.Equal(t, hits[i], r.Fault, "request %d", i)
			require.Equal(t, !hits[i], r.Processed, "request %d", i)
		}
		return hits
	}
	first := pattern(42)
	assert.Equal(t, first, pattern(42), "the same seed hits the same requests")
	n := 0
	for _, h := range first {
		if h {
			n++
		}
	}
	assert.Greater(t, n, 5, "some requests are hit")
	assert.Less(t, n, 35, "some are not")
	assert.NotEqual(t, first, pattern(7), "another seed, another pattern")
}

func TestFaultClearFaults(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client(compute.WithoutRetries())
	ctx := context.Background()

	srv.Inject(computetest.Rule{Fault: computetest.Fault{Status: http.StatusServiceUnavailable, Code: "09999", Message: "down"}})
	srv.Inject(computetest.Rule{Match: computetest.Match{Method: http.MethodGet}, Fault: computetest.Fault{Status: http.StatusTeapot}})
	for range 3 {
		_, err := c.Instances.List(ctx, nil)
		requireAPIError(t, err, http.StatusServiceUnavailable, "09999")
	}
	srv.ClearFaults()
	_, err := c.Instances.List(ctx, nil)
	require.NoError(t, err)
	for _, r := range srv.Requests()[:3] {
		assert.True(t, r.Fault)
	}
	assert.False(t, srv.Requests()[3].Fault)
}

func TestFaultRawBody(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client(compute.WithoutRetries())
	ctx := context.Background()

	page := []byte("<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>")
	srv.FailNext(1, computetest.Match{Method: http.MethodGet, Path: "/compute/v1/floating-ips"}, computetest.Fault{
		Status: http.StatusBadGateway, Body: page, RetryAfter: "3",
	})
	_, err := c.FloatingIPs.List(ctx, nil)
	apiErr := requireAPIError(t, err, http.StatusBadGateway, "")
	assert.Contains(t, apiErr.Message, "502 Bad Gateway")
	assert.Equal(t, 3*time.Second, apiErr.RetryAfter)
	require.ErrorIs(t, err, compute.ErrServer)

	// The raw response is the page verbatim, as text/html.
	srv.FailNext(1, computetest.Match{Method: http.MethodGet}, computetest.Fault{Status: http.StatusInternalServerError, Body: page})
	a := rawAuthed(t, srv, http.MethodGet, "/compute/v1/images", nil)
	assert.Equal(t, http.StatusInternalServerError, a.Status)
	assert.Equal(t, page, a.Body)
	assert.Equal(t, "text/html", a.Header.Get("Content-Type"))

	// A truncated JSON document with its own content type.
	srv.FailNext(1, computetest.Match{Method: http.MethodGet}, computetest.Fault{
		Status: http.StatusInternalServerError, Body: []byte(`{"code": "020`), ContentType: "application/json",
	})
	_, err = c.Images.List(ctx, nil)
	apiErr = requireAPIError(t, err, http.StatusInternalServerError, "")
	assert.Contains(t, apiErr.Message, `{"code": "020`)
}

// Authentication comes before faults: a fault never hits a request without a valid token.
func TestFaultAfterAuthentication(t *testing.T) {
	t.Parallel()
	srv := computetest.NewServer()
	defer srv.Close()
	srv.FailNext(1, computetest.Match{}, computetest.Fault{Status: http.StatusTeapot})

	raw(t, srv, http.MethodGet, "/compute/v1/instances", nil, nil).requireError(t, http.StatusUnauthorized, compute.CodeAuthTokenNotProvided)
	a := rawAuthed(t, srv, http.MethodGet, "/compute/v1/instances", nil)
	assert.Equal(t, http.StatusTeapot, a.Status, "the rule was still there for the authenticated request")
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	assert.False(t, reqs[0].Fault)
	assert.True(t, reqs[1].Fault)
}

func TestRateLimitRefusesBurst(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithRateLimit(5, 5))
		defer srv.Close()

		// Fake time stands still between the requests, so the burst is exactly 5.
		body := map[string]any{"name": "ip", "region": "NORD-NO-KRS-1"}
		var statuses []int
		for range 8 {
			a := rawAuthed(t, srv, http.MethodPost, "/compute/v1/floating-ips", body)
			statuses = append(statuses, a.Status)
			if a.Status == http.StatusTooManyRequests {
				assert.Equal(t, "1", a.Header.Get("Retry-After"))
				assert.Contains(t, string(a.Body), "too many requests")
			}
		}
		assert.Equal(t, []int{201, 201, 201, 201, 201, 429, 429, 429}, statuses)
		reqs := srv.Requests()
		for i, r := range reqs {
			assert.Equal(t, i < 5, r.Processed, "request %d", i)
		}
		list := rawAuthed(t, srv, http.MethodGet, "/compute/v1/floating-ips", nil)
		assert.Equal(t, http.StatusTooManyRequests, list.Status, "reads count too")

		// The refused creates created nothing; after a second, a token is back.
		time.Sleep(time.Second)
		list = rawAuthed(t, srv, http.MethodGet, "/compute/v1/floating-ips", nil)
		require.Equal(t, http.StatusOK, list.Status)
		assert.Equal(t, float64(5), list.object(t)["total_count"])

		// The limit is per token: a missing token is refused by authentication, not the limiter.
		raw(t, srv, http.MethodGet, "/compute/v1/floating-ips", nil, nil).requireError(t, http.StatusUnauthorized, compute.CodeAuthTokenNotProvided)
	})
}

func TestRateLimitSDKClientStaysUnder(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := computetest.NewServer(computetest.WithInMemoryNetwork(), computetest.WithRateLimit(5, 5))
		defer srv.Close()
		c := srv.Client()
		ctx := context.Background()

		start := time.Now()
		for i := range 20 {
			if i%2 == 0 {
				_, err := c.FloatingIPs.Create(ctx, &compute.FloatingIPCreateRequest{Name: "ip", Region: "NORD-NO-KRS-1"})
				require.NoError(t, err)
			} else {
				_, err := c.FloatingIPs.List(ctx, nil)
				require.NoError(t, err)
			}
		}
		elapsed := time.Since(start)
		reqs := srv.Requests()
		require.Len(t, reqs, 20, "no retries")
		for i, r := range reqs {
			assert.NotEqual(t, http.StatusTooManyRequests, r.Status, "request %d", i)
			assert.True(t, r.Processed, "request %d", i)
		}
		// 20 requests at 5 a second, the first at once: 19 intervals of 200 ms, plus the SDK's
		// headroom of 0.3% (WithRateLimit), each with the margin of 1.5% its limiter leaves after
		// a write with a burst of one (the client's).
		spaced := 203609 * time.Microsecond // 200.6 ms and 1.5% more
		assert.Equal(t, (19 * spaced).Round(100*time.Microsecond), elapsed.Round(100*time.Microsecond))
	})
}

func TestRequestLogLimitKeepsTheLastRequests(t *testing.T) {
	srv := computetest.NewServer(computetest.WithRequestLogLimit(3))
	defer srv.Close()
	c := srv.Client()
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		_, err := c.Instances.Get(context.Background(), id)
		require.Error(t, err)
	}
	var paths []string
	for _, r := range srv.Requests() {
		paths = append(paths, r.Path)
	}
	assert.Equal(t, []string{"/compute/v1/instances/c", "/compute/v1/instances/d", "/compute/v1/instances/e"}, paths)
}
