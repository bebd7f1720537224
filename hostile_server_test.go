package compute

// What can a broken, misconfigured or hostile server do to a caller? Each test below is one
// guarantee of docs/safety.md, "Safety against a bad server": memory stays bounded, nothing
// that is not the resource reads as success, secrets stay home, and every loop ends.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// empty first page while total_count says there are items.
func TestHostileResponsesThatAreNotTheResource(t *testing.T) {
	t.Parallel()
	_, err := responding(t, 200, `{"instance":{"name":"web-1","status":"active"}}`).Instances.Get(context.Background(), "i-1")
	require.ErrorContains(t, err, "no id")
	assert.False(t, errors.Is(err, ErrOutcomeUnknown))

	_, err = responding(t, 201, `{"instance":{"name":"web-1"}}`).Instances.Create(context.Background(), validCreate())
	require.ErrorIs(t, err, ErrOutcomeUnknown, "the instance may exist")

	_, err = responding(t, 200, `{"total_count":0,"page":1,"per_page":50}`).Instances.List(context.Background(), nil)
	require.ErrorContains(t, err, `no "instances" list`)

	_, err = responding(t, 200, `{"instances":[],"total_count":12,"page":1,"per_page":50}`).Instances.List(context.Background(), nil)
	require.ErrorContains(t, err, "empty first page")

	for _, err := range responding(t, 200, `{"instances":[{"id":"a"},{"name":"b"}],"total_count":2}`).Instances.All(context.Background(), nil) {
		if err != nil {
			require.ErrorContains(t, err, "no id")
			return
		}
	}
	t.Fatal("a page item without an id was yielded without an error")
}

// walkAll collects a walk, with a bound on its pages so that a broken walker fails the test rather
// than loop until the test binary times out.
func walkAll(t *testing.T, c *Client, opts *ListOptions, rec *recorder) ([]string, error) {
	t.Helper()
	var ids []string
	for inst, err := range c.Instances.All(context.Background(), opts) {
		if err != nil {
			return ids, err
		}
		ids = append(ids, inst.ID)
		require.Less(t, rec.count(), 200, "the walk did not end")
	}
	return ids, nil
}

// a walk ends with an error on an item it already yielded, whatever the page.
func TestHostileWalkThatRepeatsAnItem(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		// A service that ignores page and shuffles: page 2 holds page 1's items in another order.
		items := []map[string]string{{"id": "a"}, {"id": "b"}}
		if r.URL.Query().Get("page") == "2" {
			items = []map[string]string{{"id": "c"}, {"id": "a"}}
		}
		replyJSON(w, 200, map[string]any{"instances": items, "total_count": 6})
	})
	ids, err := walkAll(t, c, &ListOptions{PerPage: 2}, rec)
	require.ErrorContains(t, err, `"a" again`)
	assert.Equal(t, []string{"a", "b", "c"}, ids)
}

// full pages of new items forever end at a bound derived from total_count, and at a
// cap when total_count is absent.
func TestHostileWalkThatNeverRunsOut(t *testing.T) {
	t.Parallel()
	for _, total := range []int{5, 0} {
		t.Run(fmt.Sprintf("total_count=%d", total), func(t *testing.T) {
			t.Parallel()
			var n atomic.Int64
			c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				items := []map[string]string{{"id": fmt.Sprint(n.Add(1))}, {"id": fmt.Sprint(n.Add(1))}}
				body := map[string]any{"instances": items}
				if total > 0 {
					body["total_count"] = total
				}
				replyJSON(w, 200, body)
			})
			c.maxWalkPages = 50
			_, err := walkAll(t, c, &ListOptions{PerPage: 2}, rec)
			require.ErrorContains(t, err, "stopping the walk")
			if total > 0 {
				assert.LessOrEqual(t, rec.count(), 4, "bounded by total_count")
			} else {
				assert.Equal(t, 50, rec.count(), "bounded by the cap")
			}
		})
	}
}

// a total_count contradicted by a full page does not end the walk silently.
func TestHostileWalkWithATotalCountTooSmall(t *testing.T) {
	t.Parallel()
	all := []string{"a", "b", "c", "d", "e"}
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		page := 1
		_, _ = fmt.Sscan(r.URL.Query().Get("page"), &page)
		var items []map[string]string
		for _, id := range all[min((page-1)*2, len(all)):min(page*2, len(all))] {
			items = append(items, map[string]string{"id": id})
		}
		replyJSON(w, 200, map[string]any{"instances": items, "total_count": 3, "page": page, "per_page": 2})
	})
	ids, err := walkAll(t, c, &ListOptions{PerPage: 2}, rec)
	require.NoError(t, err)
	assert.Equal(t, all, ids, "the walk went on to the short page")
}

// A write never follows a redirect to another origin, and its body never reaches it.
func TestHostileRedirectOfAWriteToAnotherOrigin(t *testing.T) {
	t.Parallel()
	for _, status := range []int{301, 302, 303, 307, 308} {
		for _, op := range []operation{opCreateInstance, opUpdateInstance, opDeleteInstance} {
			t.Run(fmt.Sprintf("%d/%s", status, op.method), func(t *testing.T) {
				t.Parallel()
				synctest.Test(t, func(t *testing.T) {
					var other atomic.Int32
					var hookSaw []string
					hc := twoOrigins(t, func(w http.ResponseWriter, r *http.Request) {
						http.Redirect(w, r, "http://evil.example.net/steal", status)
					}, func(w http.ResponseWriter, r *http.Request) {
						other.Add(1)
						replyJSON(w, 201, map[string]any{"instance": map[string]string{"id": "evil"}})
					}, &hookSaw)
					c, err := NewClient(testToken, WithBaseURL("http://api.example.test"), WithInsecureHTTP(), WithHTTPClient(hc), WithoutRateLimit())
					require.NoError(t, err)
					body := map[string]string{"password": "a-secret-password-123", "name": "n"}
					if op.method == http.MethodDelete {
						body = nil
					}
					err = testCall(context.Background(), c, op, []string{"i-1"}[:strings.Count(op.path, "{")], body)
					require.Error(t, err, "a redirected write is an error")
					assert.ErrorContains(t, err, "redirect")
					assert.Equal(t, op.method == http.MethodPost, errors.Is(err, ErrOutcomeUnknown), "%v", err)
					assert.Zero(t, other.Load(), "nothing reached the other origin")
				})
			})
		}
	}
}

// Strings an error takes from a response are cut, so that a server cannot make an error or a log
// line megabytes long.
func TestHostileLongStringsAreCutInErrors(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("m", 60<<10)
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", strings.Repeat("r", 60<<10))
		replyJSON(w, http.StatusBadRequest, map[string]string{"code": strings.Repeat("9", 60<<10), "message": long})
	})
	_, err := c.Instances.Get(context.Background(), "i-1")
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.LessOrEqual(t, len(apiErr.Message), maxErrorString)
	assert.LessOrEqual(t, len(apiErr.RequestID), maxErrorString)
	assert.LessOrEqual(t, len(apiErr.Code), maxErrorString)
	assert.Less(t, len(err.Error()), 4*maxErrorString)
}

// A wait whose context has no deadline still ends, after the documented maximum.
func TestHostileWaitWithoutADeadlineEnds(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, 200, map[string]any{"instance": map[string]string{"id": "i-1", "status": "creating"}})
		})
		start := time.Now()
		_, err := c.Instances.WaitForStatus(context.Background(), "i-1", InstanceStatusActive)
		var werr *WaitError
		require.ErrorAs(t, err, &werr)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.ErrorContains(t, err, "default maximum")
		assert.Equal(t, DefaultMaxWait, time.Since(start).Round(time.Minute))
	})
}

// Clients made per tenant or per request share one transport, so they do not each
// keep connections (and their goroutines) open.
func TestHostileManyClientsShareConnections(t *testing.T) {
	t.Parallel()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, 200, map[string]any{"instance": map[string]string{"id": "i-1"}})
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	for range 50 {
		c, err := NewClient(testToken, WithBaseURL(srv.URL), WithoutRateLimit())
		require.NoError(t, err)
		_, err = c.Instances.Get(context.Background(), "i-1")
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, conns.Load(), int32(2), "50 clients one after another reuse the shared pool")
}

func allocatedBy(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func repeatReader(prefix, item string, n int, suffix string) io.Reader {
	items := io.LimitReader(&cycle{s: item + ","}, int64(n*(len(item)+1)-1))
	return io.MultiReader(strings.NewReader(prefix), items, strings.NewReader(suffix))
}

type cycle struct {
	s string
	i int
}

func (c *cycle) Read(p []byte) (int, error) {
	for n := range p {
		p[n] = c.s[c.i]
		c.i = (c.i + 1) % len(c.s)
	}
	return len(p), nil
}

func TestHostilePageWithMoreItemsThanAskedFor(t *testing.T) {
	t.Parallel()
	c := responding(t, http.StatusOK, `{"instances":[{"id":"a"},{"id":"b"},{"id":"c"}],"total_count":3,"page":1,"per_page":2}`)
	p, err := c.Instances.List(context.Background(), &ListOptions{PerPage: 2})
	assert.Nil(t, p)
	require.ErrorContains(t, err, "more than the 2 items asked for")

	c = responding(t, http.StatusOK, `{"instances":[`+strings.Repeat(`{},`, 100)+`{}]}`)
	_, err = c.Instances.List(context.Background(), nil)
	require.ErrorContains(t, err, "more than the 100 items asked for", "no page holds more than the contract's maximum")
}

func TestHostileHugePageCostsLittleMemory(t *testing.T) {
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, Request: r,
			Body: io.NopCloser(repeatReader(`{"instances":[`, `{}`, 10_000_000, `],"total_count":10000000}`))}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}), WithoutRetries())
	require.NoError(t, err)
	var listErr error
	alloc := allocatedBy(func() { _, listErr = c.Instances.List(context.Background(), nil) })
	require.Error(t, listErr)
	assert.Less(t, alloc, uint64(8<<20), "a 30 MB page allocated %d MiB", alloc>>20)
}

func gzipBomb(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(http.StatusOK)
		zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
		_, _ = io.Copy(zw, repeatReader(`{"instances":[`, `{"id":"x"}`, n/11, `]}`))
		_ = zw.Close()
	}
}

func TestHostileGzipBombIsBoundedAfterDecompression(t *testing.T) {
	c, rec := newTestClient(t, gzipBomb(64<<20), WithoutRetries())
	var wg sync.WaitGroup
	errs := make([]error, 8)
	alloc := allocatedBy(func() {
		for i := range errs {
			wg.Go(func() { _, errs[i] = c.Instances.List(context.Background(), nil) })
		}
		wg.Wait()
	})
	for _, err := range errs {
		require.ErrorIs(t, err, errTooLarge)
	}
	assert.Equal(t, 8, rec.count())
	assert.Less(t, alloc, uint64(64<<20), "8 calls allocated %d MiB for 512 MiB of decompressed responses", alloc>>20)
}

func TestHostileTokenInEveryLayersText(t *testing.T) {
	t.Parallel()
	t.Run("redirect Location in a transport error", func(t *testing.T) {
		t.Parallel()
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/"+testToken, http.StatusFound)
		}, WithoutRetries())
		_, err := c.Instances.Get(context.Background(), "i-1")
		require.Error(t, err)
		requireNoToken(t, err.Error())
	})
	t.Run("malformed MIME header", func(t *testing.T) {
		t.Parallel()
		c := rawServer(t, "HTTP/1.1 200 OK\r\nX-Echo "+testToken+"\r\n\r\n")
		_, err := c.Instances.Get(context.Background(), "i-1")
		require.Error(t, err)
		requireNoToken(t, err.Error())
	})
	t.Run("the debug log's path", func(t *testing.T) {
		t.Parallel()
		// newTestClient fails the test when its debug log holds the token.
		c, _ := newTestClient(t, instanceNotFound)
		_, err := c.Instances.Get(context.Background(), "x"+testToken)
		require.Error(t, err)
		requireNoToken(t, err.Error())
	})
}

func rawServer(t *testing.T, raw string) *Client {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				_, _ = http.ReadRequest(bufio.NewReader(conn))
				_, _ = io.WriteString(conn, raw)
			}()
		}
	}()
	c, err := NewClient(testToken, WithBaseURL("http://"+l.Addr().String()), WithoutRetries())
	require.NoError(t, err)
	return c
}

func TestHostileSplitTokenInAnExcerpt(t *testing.T) {
	t.Parallel()
	for _, token := range []string{testToken, "tok SECRET 7f3a9c1e2b"} {
		for _, body := range []string{
			"<html>" + token[:7] + "\n" + token[7:] + "</html>",
			"<pre>" + token[:4] + "\t" + token[4:11] + "\r\n" + token[11:] + "</pre>",
			strings.ReplaceAll(token, " ", "\t"),
			strings.Join(strings.Split(token, ""), " "),
		} {
			cred := newCredential(token, false)
			e := newAPIError(&http.Response{StatusCode: 502, Header: http.Header{}}, []byte(body), "GET", "/p", 1, &cred)
			msg := e.Error()
			for i := 0; i+5 <= len(token); i++ {
				assert.NotContains(t, msg, token[i:i+5], "a run of the token survived in %q", msg)
			}
		}
	}
}

func TestHostilePlainHTTPToLocalhostNames(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080", "http://127.3.4.5"} {
		_, err := NewClient(testToken, WithBaseURL(u))
		assert.NoError(t, err, u)
	}
	for _, u := range []string{"http://api.localhost:8080", "http://evil.localhost", "http://localhost.example.com", "http://10.0.0.1"} {
		_, err := NewClient(testToken, WithBaseURL(u))
		assert.Error(t, err, u)
	}
}

func TestHostileIDsThatCouldChangeTheRoute(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, instanceNotFound)
	for _, id := range []string{"a/b", `a\b`, ".", "..", "../i-2", "a/../b", "i-1\n", "i\x00", "i\x7f", "%2F..%2F"} {
		_, err := c.Instances.Get(context.Background(), id)
		var verr *ValidationError
		require.ErrorAs(t, err, &verr, "%q", id)
		assert.Equal(t, "instance_id", verr.Field)
	}
	assert.Zero(t, rec.count(), "nothing was sent")
}

// BenchmarkHostileBytesPerResponse reports the heap bytes one List costs for a legitimate page of
// 100 instances (the largest response of the contract), and for two hostile responses measured in
// the same run: a 30 MB page of ten million {} and a gzip body that decompresses to 64 MiB. The
// ratios to the legitimate page are the guarantee: a hostile response costs a small multiple of a
// real one, not what its size claims.
func BenchmarkHostileBytesPerResponse(b *testing.B) {
	legit := pageOf100Instances(b)
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	_, _ = io.Copy(zw, repeatReader(`{"instances":[`, `{"id":"x"}`, (64<<20)/11, `]}`))
	require.NoError(b, zw.Close())
	bodies := map[string]func() io.Reader{
		"legit":     func() io.Reader { return bytes.NewReader(legit) },
		"huge-page": func() io.Reader { return repeatReader(`{"instances":[`, `{}`, 10_000_000, `],"total_count":10000000}`) },
		"gzip-bomb": func() io.Reader { return bytes.NewReader(bomb.Bytes()) },
	}
	perResponse := map[string]float64{}
	for _, name := range []string{"legit", "huge-page", "gzip-bomb"} {
		body := bodies[name]
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			h := http.Header{"Content-Type": {"application/json"}}
			var rc io.ReadCloser = io.NopCloser(body())
			if name == "gzip-bomb" {
				// What net/http's transparent gzip would hand over, decompressed.
				zr, err := gzip.NewReader(body())
				if err != nil {
					return nil, err
				}
				rc = zr
			}
			return &http.Response{StatusCode: 200, Header: h, Request: r, Body: rc}, nil
		})
		c, err := NewClient(testToken, WithBaseURL("https://api.example.com"),
			WithHTTPClient(&http.Client{Transport: rt}), WithoutRetries(), WithoutRateLimit())
		require.NoError(b, err)
		ctx := context.Background()
		_, err = c.Instances.List(ctx, &ListOptions{PerPage: 100})
		require.Equal(b, name == "legit", err == nil, "%s: %v", name, err)
		n := 0
		alloc := allocatedBy(func() {
			for range b.N {
				_, _ = c.Instances.List(ctx, &ListOptions{PerPage: 100})
				n++
			}
		})
		perResponse[name] = float64(alloc) / float64(n)
	}
	b.ReportMetric(perResponse["legit"], "legit-B/response")
	b.ReportMetric(perResponse["huge-page"], "huge-page-B/response")
	b.ReportMetric(perResponse["gzip-bomb"], "gzip-bomb-B/response")
	b.ReportMetric(perResponse["huge-page"]/perResponse["legit"], "huge/legit")
	b.ReportMetric(perResponse["gzip-bomb"]/perResponse["legit"], "bomb/legit")
}

// pageOf100Instances returns a page of 100 distinct instances, copies of the golden one.
func pageOf100Instances(tb testing.TB) []byte {
	var env struct {
		Instance map[string]any `json:"instance"`
	}
	require.NoError(tb, json.Unmarshal(golden(tb, "instance_get_response.json"), &env))
	items := make([]map[string]any, 100)
	for i := range items {
		items[i] = maps.Clone(env.Instance)
		items[i]["id"] = fmt.Sprintf("%08x-5b2e-4d8a-9f0e-1a2b3c4d5e6f", i)
	}
	page, err := json.Marshal(map[string]any{"instances": items, "total_count": 100, "page": 1, "per_page": 100})
	require.NoError(tb, err)
	return page
}

// requireNoTokenReachable fails when the token shows in err's text or in anything errors.As can
// reach from it: every error of its chain, printed with its fields (%#v), a *url.Error's URL
// included.
func requireNoTokenReachable(t *testing.T, err error) {
	t.Helper()
	var walk func(e error)
	walk = func(e error) {
		if e == nil {
			return
		}
		requireNoToken(t, e.Error())
		requireNoToken(t, fmt.Sprintf("%#v", e))
		var u *url.Error
		if errors.As(e, &u) {
			requireNoToken(t, u.URL)
		}
		switch x := e.(type) {
		case interface{ Unwrap() []error }:
			for _, inner := range x.Unwrap() {
				walk(inner)
			}
		case interface{ Unwrap() error }:
			walk(x.Unwrap())
		}
	}
	walk(err)
}

// TestHostileTokenIsNotReachableFromAnError: what errors.As reaches from an error holds no token
// either: the *url.Error of a redirect to a Location with the token, a header that net/http cannot
// parse, a timestamp or a number that does not decode, a waiter's status, an item repeated in a
// walk or found by CreateOnce.
func TestHostileTokenIsNotReachableFromAnError(t *testing.T) {
	t.Parallel()
	t.Run("the URL of a redirect", func(t *testing.T) {
		t.Parallel()
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://127.0.0.1:1/"+testToken, http.StatusFound)
		}, WithoutRetries())
		_, err := c.Instances.Get(context.Background(), "i-1")
		var u *url.Error
		require.ErrorAs(t, err, &u, "the *url.Error stays reachable, scrubbed")
		requireNoTokenReachable(t, err)
	})
	t.Run("a header net/http cannot parse", func(t *testing.T) {
		t.Parallel()
		_, err := rawServer(t, "HTTP/1.1 200 OK\r\nX-Echo "+testToken+"\r\n\r\n").Instances.Get(context.Background(), "i-1")
		require.Error(t, err)
		requireNoTokenReachable(t, err)
	})
	t.Run("a timestamp that does not decode", func(t *testing.T) {
		t.Parallel()
		_, err := responding(t, 200, `{"instance":{"id":"i-1","created_at":"`+testToken+`"}}`).Instances.Get(context.Background(), "i-1")
		require.ErrorContains(t, err, "decoding the response")
		requireNoTokenReachable(t, err)
	})
	t.Run("a waiter's status", func(t *testing.T) {
		t.Parallel()
		c := responding(t, 200, `{"instance":{"id":"i-1","status":"error `+testToken+`"}}`)
		_, err := c.Instances.WaitForStatus(context.Background(), "i-1", InstanceStatusActive,
			WithMaxWait(time.Millisecond), WithPollInterval(time.Millisecond, time.Millisecond))
		var werr *WaitError
		require.ErrorAs(t, err, &werr)
		requireNoToken(t, werr.LastStatus)
		requireNoTokenReachable(t, err)
	})
	t.Run("an item repeated in a walk", func(t *testing.T) {
		t.Parallel()
		c := responding(t, 200, `{"instances":[{"id":"`+testToken+`"},{"id":"`+testToken+`"}],"total_count":2}`)
		err := firstErr(c.Instances.All(context.Background(), nil))
		require.ErrorContains(t, err, "again")
		requireNoTokenReachable(t, err)
	})
	t.Run("resources found by CreateOnce", func(t *testing.T) {
		t.Parallel()
		c := responding(t, 200, `{"instances":[{"id":"a`+testToken+`","name":"web-1"},{"id":"b`+testToken+`","name":"web-1"}],"total_count":2}`)
		_, err := c.Instances.CreateOnce(context.Background(), validCreate())
		var nameErr *NameError
		require.ErrorAs(t, err, &nameErr)
		requireNoTokenReachable(t, err)
	})
}

// TestHostileNumberThatDoesNotDecodeHoldsNoToken: a token of digits echoed into a number field
// that overflows its type is scrubbed from the decoding error, which also stays short.
func TestHostileNumberThatDoesNotDecodeHoldsNoToken(t *testing.T) {
	t.Parallel()
	const digits = "98765432109876543210"
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		body := `{"instance":{"id":"i-1","disk_size":` + digits + strings.Repeat("1", 900<<10) + `}}`
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	})
	c, err := NewClient(digits, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}), WithoutRetries())
	require.NoError(t, err)
	_, err = c.Instances.Get(context.Background(), "i-1")
	require.ErrorContains(t, err, "decoding the response")
	assert.NotContains(t, err.Error(), digits[:8])
	assert.NotContains(t, fmt.Sprintf("%#v", err), digits[:8])
	assert.Less(t, len(err.Error()), 2*maxErrorString, "the number is cut")
}

// TestHostileWalkGuardMemoryIsBounded: a walk's guard against repeated items keeps fixed-size
// hashes of at most maxSeen IDs, so a walk of long IDs holds little memory however far it goes.
func TestHostileWalkGuardMemoryIsBounded(t *testing.T) {
	const pages, idLen = 150, 10 << 10
	n := 0
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		var b strings.Builder
		b.WriteString(`{"instances":[`)
		for i := range 100 {
			if i > 0 {
				b.WriteByte(',')
			}
			n++
			fmt.Fprintf(&b, `{"id":"%09d%s"}`, n, strings.Repeat("x", idLen))
		}
		b.WriteString(`]}`)
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(b.String())), Request: r}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}),
		WithoutRetries(), WithoutRateLimit())
	require.NoError(t, err)
	var ms runtime.MemStats
	seen := 0
	for _, err := range c.Instances.All(context.Background(), &ListOptions{PerPage: 100}) {
		require.NoError(t, err)
		if seen++; seen == pages*100 {
			runtime.GC() // while the walk, and what it holds, is live
			runtime.ReadMemStats(&ms)
			break
		}
	}
	require.Equal(t, pages*100, seen, "the walk went on for every page")
	assert.Less(t, ms.HeapAlloc, uint64(64<<20), "%d MiB held after %d pages of 10 KiB IDs (150 MiB of IDs)", ms.HeapAlloc>>20, pages)
}

// TestHostileNonPageResponsesAreBounded: a response that is not a page (quotas, reservations,
// availability, an instance with its volumes, images' versions, actions, user metadata) full of
// tiny items is refused before it is built: it costs a small multiple of its size, never what its
// items would.
func TestHostileNonPageResponsesAreBounded(t *testing.T) {
	const n = 900 << 10 / 3 // items of a body just under the 1 MiB bound
	for name, tc := range map[string]struct {
		body string
		call func(*Client) error
	}{
		"quotas":       {`{"quotas":[` + strings.Repeat(`{},`, n) + `{}]}`, func(c *Client) error { return noErr(c.Quotas.List(context.Background())) }},
		"reservations": {`{"reservations":[` + strings.Repeat(`{},`, n) + `{}]}`, func(c *Client) error { return noErr(c.Reservations.List(context.Background())) }},
		"availability": {`{"availability":{"instance_types":[` + strings.Repeat(`{},`, n) + `{}]}}`, func(c *Client) error {
			return noErr(c.Availability.Instances(context.Background(), "r1", nil))
		}},
		"an instance's volumes": {`{"instance":{"id":"i-1","volumes":[` + strings.Repeat(`{},`, n) + `{}]}}`, func(c *Client) error {
			return noErr(c.Instances.Get(context.Background(), "i-1"))
		}},
		"images' versions": {`{"images":[{"id":"a","versions":[` + strings.Repeat(`"",`, n) + `""]}]}`, func(c *Client) error {
			return noErr(c.Images.List(context.Background(), nil))
		}},
		"actions":       {`{"actions":[` + strings.Repeat(`"",`, n) + `""]}`, func(c *Client) error { return noErr(c.Instances.Actions(context.Background(), "i-1")) }},
		"user metadata": {`{` + strings.Repeat(`"":0,`, n/2) + `"x":0}`, func(c *Client) error { return noErr(c.Instances.UserMetadata(context.Background(), "i-1")) }},
	} {
		t.Run(name, func(t *testing.T) {
			c := responding(t, 200, tc.body)
			var err error
			alloc := allocatedBy(func() { err = tc.call(c) })
			require.ErrorContains(t, err, "more than a real response could")
			assert.Less(t, alloc, uint64(6<<20), "%s: %d MiB for a %d KiB body", name, alloc>>20, len(tc.body)>>10)
		})
	}
}

// TestHostileStringsAreCutWhereverTheyGo: a 2 MiB request ID in a debug log line, a 1 MiB header
// net/http cannot parse, a long status in a wait's error, a long repeated ID in a walk's error.
func TestHostileStringsAreCutWhereverTheyGo(t *testing.T) {
	long := strings.Repeat("r", 2<<20)
	t.Run("a request ID in a log line", func(t *testing.T) {
		var log lockedBuffer
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("X-Request-Id", long)
			instanceNotFound(w, r)
		}, WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
		_, err := c.Instances.Get(context.Background(), "i-1")
		require.Error(t, err)
		assert.Less(t, len(log.String()), 3*maxErrorString)
		assert.Less(t, len(err.Error()), 2*maxErrorString)
	})
	t.Run("a header net/http cannot parse", func(t *testing.T) {
		_, err := rawServer(t, "HTTP/1.1 200 OK\r\nX-Bad "+strings.Repeat("h", 1<<20)+"\r\n\r\n").Instances.Get(context.Background(), "i-1")
		require.Error(t, err)
		assert.Less(t, len(err.Error()), 2*maxErrorString)
	})
	t.Run("a wait's status", func(t *testing.T) {
		c := responding(t, 200, `{"instance":{"id":"i-1","status":"`+long[:900<<10]+`"}}`)
		_, err := c.Instances.WaitForStatus(context.Background(), "i-1", InstanceStatusActive,
			WithMaxWait(time.Millisecond), WithPollInterval(time.Millisecond, time.Millisecond))
		require.Error(t, err)
		assert.Less(t, len(err.Error()), 2*maxErrorString)
	})
	t.Run("a repeated ID", func(t *testing.T) {
		id := long[:400<<10]
		c := responding(t, 200, `{"instances":[{"id":"`+id+`"},{"id":"`+id+`"}]}`)
		err := firstErr(c.Instances.All(context.Background(), nil))
		require.ErrorContains(t, err, "again")
		assert.Less(t, len(err.Error()), 2*maxErrorString)
	})
}

// TestHostileDeleteWithAnEndlessBody: every delete and the instance action, answered 200, 202 or
// 204 with an endless body, succeed without reading it: the service said yes.
func TestHostileDeleteWithAnEndlessBody(t *testing.T) {
	// Not parallel: allocatedBy counts the whole process's allocations.
	var status int
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(repeatReader("", "x", 1<<62, "")), Request: r}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}), WithoutRetries())
	require.NoError(t, err)
	calls := map[string]func(context.Context) error{
		"Instances.Delete":        func(ctx context.Context) error { return c.Instances.Delete(ctx, "i-1") },
		"Instances.PerformAction": func(ctx context.Context) error { return c.Instances.Start(ctx, "i-1") },
		"SecurityGroups.Delete":   func(ctx context.Context) error { return c.SecurityGroups.Delete(ctx, "sg-1") },
		"FloatingIPs.Delete":      func(ctx context.Context) error { return c.FloatingIPs.Delete(ctx, "fip-1") },
		"SSHKeys.Delete":          func(ctx context.Context) error { return c.SSHKeys.Delete(ctx, "key-1") },
		"Volumes.Delete":          func(ctx context.Context) error { return c.Volumes.Delete(ctx, "vol-1") },
		"Filesystems.Delete":      func(ctx context.Context) error { return c.Filesystems.Delete(ctx, "fs-1") },
		"Snapshots.Delete":        func(ctx context.Context) error { return c.Snapshots.Delete(ctx, "s-1") },
	}
	for _, op := range operations {
		if op.method == http.MethodDelete {
			assert.Contains(t, calls, op.name, "every delete is tried")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(calls)) {
		for _, status = range []int{200, 202, 204} {
			var callErr error
			alloc := allocatedBy(func() { callErr = calls[name](context.Background()) })
			require.NoError(t, callErr, "%s answered %d", name, status)
			assert.Less(t, alloc, uint64(1<<20), "%s answered %d", name, status)
		}
	}
}

// TestHostileResponseAboutAnotherResource: a Get, an Update or a wait answered with another
// resource, or a clone answered with its own source, is an error, not that resource.
func TestHostileResponseAboutAnotherResource(t *testing.T) {
	t.Parallel()
	other := responding(t, 200, `{"instance":{"id":"i-2","status":"active"},"snapshot":{"id":"s-1","status":"created"}}`)
	ctx := context.Background()
	_, err := other.Instances.Get(ctx, "i-1")
	require.ErrorContains(t, err, `has id "i-2", not the one asked for`)
	_, err = other.Instances.Update(ctx, "i-1", &InstanceUpdateRequest{Name: Ptr("x")})
	require.ErrorContains(t, err, `has id "i-2"`)
	_, err = other.Instances.WaitForStatus(ctx, "i-1", InstanceStatusActive)
	require.ErrorContains(t, err, `has id "i-2"`)
	_, err = other.Snapshots.Clone(ctx, "s-1", &SnapshotCloneRequest{Name: "c", Region: "r"})
	require.ErrorContains(t, err, `has id "s-1"`)
	require.ErrorIs(t, err, ErrOutcomeUnknown, "the clone may have been made")
}
