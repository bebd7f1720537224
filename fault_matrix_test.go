package compute

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// matrixRetry makes every wait of the fault matrix exact: two retries (three attempts at most) and a
// computed wait of exactly 5 s, since MinWait equals MaxWait; a Retry-After below 5 s is honoured
// as given.
var matrixRetry = RetryPolicy{MaxRetries: 2, MinWait: 5 * time.Second, MaxWait: 5 * time.Second}

// faultCase is one row of the fault matrix: a fault the server or the network shows on every attempt,
// one call of one method, and what the SDK must do about it.
type faultCase struct {
	// name is "<fault>/<method>".
	name string
	// method selects the call: GET is Instances.Get, POST Instances.Create, DELETE Instances.Delete.
	method string
	// serve responds to every attempt. Leave it nil and set connect to fault the network instead.
	serve http.HandlerFunc
	// connect makes each connection to a server that responds 201 {} (see clientWithDialer).
	connect func(ctx context.Context, n int32, dial func() (net.Conn, error)) (net.Conn, error)
	// opts are added to the matrix's client options.
	opts []Option
	// cancelAfter cancels the call's context after that much (fake) time; zero never cancels.
	cancelAfter time.Duration

	// attempts is how many requests reached the server; dials, with connect, how many connections
	// were tried.
	attempts, dials int
	// waited is the fake time the call took.
	waited time.Duration
	// is lists errors the returned error must match; none (and status 0) means success.
	is []error
	// unknown is whether the error must match ErrOutcomeUnknown.
	unknown bool
	// status is the StatusCode of the *APIError the error must carry (its Attempts must equal
	// attempts); zero means the error must carry none.
	status int
	// check, when set, inspects the error further.
	check func(t *testing.T, err error)
}

// TestFaultMatrix drives one call through each fault and pins down what the SDK does: attempts,
// error and time waited. The retries guide's fault table (docs/retries.md) describes the same rows, one to one.
func TestFaultMatrix(t *testing.T) {
	t.Parallel()
	hugeGET, hugePOST := &hugeErrorBody{}, &hugeErrorBody{}
	cases := []faultCase{
		{name: "429 Retry-After seconds/GET", method: "GET", serve: rateLimited("3"),
			attempts: 3, waited: 6 * time.Second, is: []error{ErrRateLimited}, status: 429, check: retryAfter(3 * time.Second)},
		{name: "429 Retry-After seconds/POST", method: "POST", serve: rateLimited("3"),
			attempts: 3, waited: 6 * time.Second, is: []error{ErrRateLimited}, status: 429, check: retryAfter(3 * time.Second)},
		{name: "429 Retry-After HTTP-date/GET", method: "GET", serve: rateLimitedUntil(4 * time.Second),
			attempts: 3, waited: 8 * time.Second, is: []error{ErrRateLimited}, status: 429, check: retryAfter(4 * time.Second)},
		{name: "429 Retry-After HTTP-date/POST", method: "POST", serve: rateLimitedUntil(4 * time.Second),
			attempts: 3, waited: 8 * time.Second, is: []error{ErrRateLimited}, status: 429, check: retryAfter(4 * time.Second)},
		{name: "429 Retry-After missing/GET", method: "GET", serve: withStatus(429),
			attempts: 3, waited: 10 * time.Second, is: []error{ErrRateLimited}, status: 429, check: retryAfter(0)},
		{name: "429 Retry-After missing/POST", method: "POST", serve: withStatus(429),
			attempts: 3, waited: 10 * time.Second, is: []error{ErrRateLimited}, status: 429, check: retryAfter(0)},
		{name: "429 Retry-After garbage/GET", method: "GET", serve: rateLimited("soon, maybe"),
			attempts: 3, waited: 10 * time.Second, is: []error{ErrRateLimited}, status: 429, check: retryAfter(0)},
		{name: "429 Retry-After garbage/POST", method: "POST", serve: rateLimited("soon, maybe"),
			attempts: 3, waited: 10 * time.Second, is: []error{ErrRateLimited}, status: 429, check: retryAfter(0)},

		{name: "500/GET", method: "GET", serve: jsonError(500),
			attempts: 3, waited: 10 * time.Second, is: []error{ErrServer}, status: 500, check: jsonMessage},
		{name: "500/POST", method: "POST", serve: jsonError(500),
			attempts: 1, is: []error{ErrServer}, unknown: true, status: 500, check: jsonMessage},
		{name: "502/GET", method: "GET", serve: jsonError(502),
			attempts: 3, waited: 10 * time.Second, is: []error{ErrServer}, status: 502, check: jsonMessage},
		{name: "502/POST", method: "POST", serve: jsonError(502),
			attempts: 1, is: []error{ErrServer}, unknown: true, status: 502, check: jsonMessage},
		{name: "503/GET", method: "GET", serve: jsonError(503),
			attempts: 3, waited: 10 * time.Second, is: []error{ErrServer}, status: 503, check: jsonMessage},
		{name: "503/POST", method: "POST", serve: jsonError(503),
			attempts: 1, is: []error{ErrServer}, unknown: true, status: 503, check: jsonMessage},
		{name: "504/GET", method: "GET", serve: jsonError(504),
			attempts: 3, waited: 10 * time.Second, is: []error{ErrServer}, status: 504, check: jsonMessage},
		{name: "504/POST", method: "POST", serve: jsonError(504),
			attempts: 1, is: []error{ErrServer}, unknown: true, status: 504, check: jsonMessage},

		{name: "connection refused/GET", method: "GET", connect: refuseDial,
			attempts: 0, dials: 3, waited: 10 * time.Second, is: []error{syscall.ECONNREFUSED}, check: dialError},
		{name: "connection refused/POST", method: "POST", connect: refuseDial,
			attempts: 0, dials: 3, waited: 10 * time.Second, is: []error{syscall.ECONNREFUSED}, check: dialError},
		{name: "connection reset after the request was written/GET", method: "GET", connect: resetAfterWrite,
			attempts: 3, dials: 3, waited: 10 * time.Second, is: []error{syscall.ECONNRESET}},
		{name: "connection reset after the request was written/POST", method: "POST", connect: resetAfterWrite,
			attempts: 1, dials: 1, is: []error{syscall.ECONNRESET}, unknown: true},
		{name: "server closes before the response/GET", method: "GET", serve: func(w http.ResponseWriter, r *http.Request) { hangUp(w) },
			attempts: 3, waited: 10 * time.Second, is: []error{io.EOF}},
		{name: "server closes before the response/POST", method: "POST", serve: func(w http.ResponseWriter, r *http.Request) { hangUp(w) },
			attempts: 1, is: []error{io.EOF}, unknown: true},
		{name: "response truncated mid-JSON/GET", method: "GET", serve: truncatedResponse,
			attempts: 3, waited: 10 * time.Second, is: []error{io.ErrUnexpectedEOF}, check: errorSays("reading the response (status 200)")},
		{name: "response truncated mid-JSON/POST", method: "POST", serve: truncatedResponse,
			attempts: 1, is: []error{io.ErrUnexpectedEOF}, unknown: true, check: errorSays("reading the response (status 201)")},

		{name: "HTML error page/GET", method: "GET", serve: htmlErrorPage,
			attempts: 3, waited: 10 * time.Second, is: []error{ErrServer}, status: 502, check: htmlExcerpt},
		{name: "HTML error page/POST", method: "POST", serve: htmlErrorPage,
			attempts: 1, is: []error{ErrServer}, unknown: true, status: 502, check: htmlExcerpt},
		{name: "empty body with 503/GET", method: "GET", serve: withStatus(503),
			attempts: 3, waited: 10 * time.Second, is: []error{ErrServer}, status: 503, check: emptyMessage},
		{name: "empty body with 503/POST", method: "POST", serve: withStatus(503),
			attempts: 1, is: []error{ErrServer}, unknown: true, status: 503, check: emptyMessage},
		{name: "1 GiB error body/GET", method: "GET", serve: hugeGET.serve,
			attempts: 3, waited: 10 * time.Second, is: []error{ErrServer}, status: 503, check: hugeGET.check},
		{name: "1 GiB error body/POST", method: "POST", serve: hugePOST.serve,
			attempts: 1, is: []error{ErrServer}, unknown: true, status: 503, check: hugePOST.check},
		{name: "success body not JSON/GET", method: "GET", serve: notJSONResponse,
			attempts: 1, check: errorSays("decoding the response: the response is not a JSON object")},
		{name: "success body not JSON/POST", method: "POST", serve: notJSONResponse,
			attempts: 1, unknown: true, check: errorSays("decoding the response: the response is not a JSON object")},

		{name: "slow server past the per-attempt timeout/GET", method: "GET", serve: hangUntilGone, opts: []Option{WithTimeout(2 * time.Second)},
			attempts: 3, waited: 3*2*time.Second + 2*5*time.Second, is: []error{context.DeadlineExceeded}, check: errorSays("attempt timed out after 2s")},
		{name: "slow server past the per-attempt timeout/POST", method: "POST", serve: hangUntilGone, opts: []Option{WithTimeout(2 * time.Second)},
			attempts: 1, waited: 2 * time.Second, is: []error{context.DeadlineExceeded}, unknown: true, check: errorSays("attempt timed out after 2s")},
		{name: "context cancelled during the request/GET", method: "GET", serve: hangUntilGone, cancelAfter: time.Second,
			attempts: 1, waited: time.Second, is: []error{context.Canceled}},
		{name: "context cancelled during the request/POST", method: "POST", serve: hangUntilGone, cancelAfter: time.Second,
			attempts: 1, waited: time.Second, is: []error{context.Canceled}, unknown: true},
		{name: "context cancelled during a backoff wait after 503/GET", method: "GET", serve: jsonError(503), cancelAfter: time.Second,
			attempts: 1, waited: time.Second, is: []error{context.Canceled, ErrServer}, status: 503},
		{name: "context cancelled during a backoff wait after 429/POST", method: "POST", serve: withStatus(429), cancelAfter: time.Second,
			attempts: 1, waited: time.Second, is: []error{context.Canceled, ErrRateLimited}, status: 429},

		{name: "503 then 404/DELETE", method: "DELETE", serve: sequence(instanceNotFound, withStatus(503)),
			attempts: 2, waited: 5 * time.Second},
	}
	t.Run("the README's table states these rows", func(t *testing.T) {
		readme, err := os.ReadFile("docs/retries.md") // the README's table, now in the retries guide
		require.NoError(t, err)
		rows := regexp.MustCompile("(?m)^\\| `TestFaultMatrix/([^`]+)` \\| (.*) \\|$").FindAllStringSubmatch(string(readme), -1)
		var inReadme, inTest []string
		for _, m := range rows {
			inReadme = append(inReadme, m[1])
		}
		for _, tc := range cases {
			inTest = append(inTest, strings.ReplaceAll(tc.name, " ", "_"))
		}
		require.Equal(t, inTest, inReadme, "the README's reliability table and the fault matrix, row by row")
		for i, tc := range cases {
			checkReadmeRow(t, tc, strings.Split(rows[i][2], " | "))
		}
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) { runFaultCase(t, tc) })
		})
	}
}

// runFaultCase runs one row of the matrix inside a synctest bubble.
func runFaultCase(t *testing.T, tc faultCase) {
	opts := append([]Option{WithRetry(matrixRetry), WithoutRateLimit()}, tc.opts...)
	var c *Client
	var attempts, dials func() int
	if tc.connect != nil {
		var hits, dialed *atomic.Int32
		c, hits, dialed = clientWithDialer(t, tc.connect, opts...)
		attempts = func() int { return int(hits.Load()) }
		dials = func() int { return int(dialed.Load()) }
	} else {
		var rec *recorder
		c, rec = newTestClient(t, tc.serve, opts...)
		attempts = rec.count
	}
	ctx := context.Background()
	if tc.cancelAfter > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		time.AfterFunc(tc.cancelAfter, cancel)
	}

	start := time.Now()
	var err error
	switch tc.method {
	case http.MethodGet:
		_, err = c.Instances.Get(ctx, "i-1")
	case http.MethodPost:
		_, err = c.Instances.Create(ctx, &InstanceCreateRequest{Name: "web-1", Hostname: "web-1", Type: "t", Region: "r", Image: "i", SSHKeys: []string{"k"}})
	case http.MethodDelete:
		err = c.Instances.Delete(ctx, "i-1")
	default:
		t.Fatalf("no call for method %s", tc.method)
	}
	waited := time.Since(start)

	assert.Equal(t, tc.attempts, attempts(), "attempts the server saw")
	if dials != nil {
		assert.Equal(t, tc.dials, dials(), "dials")
	}
	assert.Equal(t, tc.waited, waited, "time waited")
	if tc.is == nil && tc.status == 0 && tc.check == nil {
		require.NoError(t, err)
		return
	}
	require.Error(t, err)
	requireNoToken(t, err.Error())
	for _, target := range tc.is {
		assert.ErrorIs(t, err, target)
	}
	assert.Equal(t, tc.unknown, errors.Is(err, ErrOutcomeUnknown), "errors.Is(err, ErrOutcomeUnknown): %v", err)
	var apiErr *APIError
	if tc.status == 0 {
		assert.False(t, errors.As(err, &apiErr), "no response was an error response, so no *APIError: %v", err)
	} else if assert.ErrorAs(t, err, &apiErr) {
		assert.Equal(t, tc.status, apiErr.StatusCode)
		assert.Equal(t, tc.attempts, apiErr.Attempts)
	}
	if tc.check != nil {
		tc.check(t, err)
	}
}

// rateLimitedUntil responds 429 with a Retry-After HTTP date d after now.
func rateLimitedUntil(d time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		rateLimited(time.Now().Add(d).UTC().Format(http.TimeFormat))(w, r)
	}
}

// jsonError responds status with the contract's error shape, without a code as a 5xx has none.
func jsonError(status int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, status, map[string]string{"message": http.StatusText(status)})
	}
}

// successStatus is the status a success response of r's method has: 201 for a create, else 200.
func successStatus(r *http.Request) int {
	if r.Method == http.MethodPost {
		return http.StatusCreated
	}
	return http.StatusOK
}

// truncatedResponse announces an instance response, sends half of it and closes the connection.
func truncatedResponse(w http.ResponseWriter, r *http.Request) {
	const body = `{"instance": {"id": "i-1", "name": "web-1", "status": "active"}}`
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(successStatus(r))
	_, _ = io.WriteString(w, body[:len(body)/2])
	_ = http.NewResponseController(w).Flush()
	hangUp(w)
}

// notJSONResponse is a success whose body is plain text.
func notJSONResponse(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	replyRaw(w, successStatus(r), "OK")
}

// nginx502 is the error page a proxy in front of the service sends.
const nginx502 = "<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body>\n<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n"

func htmlErrorPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html")
	replyRaw(w, http.StatusBadGateway, nginx502)
}

// refuseDial fails every dial as a closed port does.
func refuseDial(context.Context, int32, func() (net.Conn, error)) (net.Conn, error) {
	return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
}

// resetAfterWrite connects, and turns the response into a connection reset: the server has read the
// whole request (and counted it) before it responds.
func resetAfterWrite(_ context.Context, _ int32, dial func() (net.Conn, error)) (net.Conn, error) {
	conn, err := dial()
	if err != nil {
		return nil, err
	}
	return resetConn{conn}, nil
}

// resetConn reports ECONNRESET instead of the first bytes the server sends.
type resetConn struct{ net.Conn }

func (c resetConn) Read(p []byte) (int, error) {
	if _, err := c.Conn.Read(p); err != nil {
		return 0, err
	}
	return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
}

// hugeErrorBody serves a 503 announcing a 1 GiB body, generated as it is written, and counts how
// much of it the server managed to write before the client hung up.
type hugeErrorBody struct{ served atomic.Int64 }

func (h *hugeErrorBody) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain")
	w.Header().Set("Content-Length", strconv.Itoa(1<<30))
	w.WriteHeader(http.StatusServiceUnavailable)
	n, _ := io.Copy(w, io.LimitReader(endlessReader('x'), 1<<30))
	h.served.Add(n)
}

// check asserts that the SDK read a bounded part of the body, and kept a bounded excerpt.
func (h *hugeErrorBody) check(t *testing.T, err error) {
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, strings.Repeat("x", maxExcerpt)+"…", apiErr.Message)
	assert.Less(t, h.served.Load(), int64(2<<20), "the server wrote more than 2 MiB: the error body was not read with a bound")
}

// endlessReader yields its byte forever.
type endlessReader byte

func (b endlessReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func retryAfter(want time.Duration) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, want, apiErr.RetryAfter)
	}
}

// jsonMessage checks that the message of jsonError's body was read.
func jsonMessage(t *testing.T, err error) {
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Empty(t, apiErr.Code)
	assert.Equal(t, http.StatusText(apiErr.StatusCode), apiErr.Message)
}

func errorSays(want string) func(*testing.T, error) {
	return func(t *testing.T, err error) { assert.ErrorContains(t, err, want) }
}

func dialError(t *testing.T, err error) {
	var op *net.OpError
	require.ErrorAs(t, err, &op)
	assert.Equal(t, "dial", op.Op)
}

func htmlExcerpt(t *testing.T, err error) {
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Empty(t, apiErr.Code)
	assert.Equal(t, excerpt([]byte(nginx502)), apiErr.Message)
	assert.True(t, strings.HasPrefix(apiErr.Message, "<!DOCTYPE html> <html> <head><title>502 Bad Gateway</title>"), apiErr.Message)
}

func emptyMessage(t *testing.T, err error) {
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Empty(t, apiErr.Code)
	assert.Empty(t, apiErr.Message)
}

// errorNames are how the README's table names the errors a fault case matches.
var errorNames = map[error]string{
	ErrRateLimited: "`ErrRateLimited`", ErrServer: "`ErrServer`", io.EOF: "`io.EOF`",
	io.ErrUnexpectedEOF: "`io.ErrUnexpectedEOF`", context.Canceled: "`context.Canceled`",
	context.DeadlineExceeded: "`context.DeadlineExceeded`", syscall.ECONNRESET: "`syscall.ECONNRESET`",
	syscall.ECONNREFUSED: "`syscall.ECONNREFUSED`",
}

// checkReadmeRow compares the README's cells for one case (Fault, Method, Attempts, Error, Time
// waited) with the case: the method, the leading number of attempts (and dials), every error the
// case matches, whether it is an unknown outcome, the *APIError's status and attempts, and the time
// waited.
func checkReadmeRow(t *testing.T, tc faultCase, cells []string) {
	t.Helper()
	require.Len(t, cells, 5, "%s: the README row's cells", tc.name)
	method, attempts, errCell, waited := cells[1], cells[2], cells[3], cells[4]
	assert.Equal(t, tc.method, method, "%s: Method", tc.name)
	assert.Regexp(t, "^"+strconv.Itoa(tc.attempts)+`( |$)`, attempts, "%s: Attempts", tc.name)
	if tc.attempts == 0 && tc.dials > 0 {
		assert.Contains(t, attempts, strconv.Itoa(tc.dials)+" dials", "%s: Attempts names the dials", tc.name)
	}
	for _, e := range tc.is {
		assert.Contains(t, errCell, errorNames[e], "%s: Error names %v", tc.name, e)
	}
	named := strings.Count(errCell, "`ErrOutcomeUnknown`") - strings.Count(errCell, "not `ErrOutcomeUnknown`")
	assert.Equal(t, tc.unknown, named > 0, "%s: Error says ErrOutcomeUnknown only for an unknown outcome", tc.name)
	if tc.status != 0 {
		assert.Contains(t, errCell, fmt.Sprintf("*APIError{StatusCode: %d, Attempts: %d", tc.status, tc.attempts), "%s: Error's *APIError", tc.name)
	} else if len(tc.is) > 0 {
		assert.NotContains(t, errCell, "*APIError{", "%s: no *APIError", tc.name)
	}
	if tc.waited == 0 {
		assert.Equal(t, "0", waited, "%s: Time waited", tc.name)
	} else {
		assert.Regexp(t, fmt.Sprintf(`^%g s( |$)`, tc.waited.Seconds()), waited, "%s: Time waited", tc.name)
	}
}

// TestFamilyCreatesAreNeverResent: every create of the rest of the compute family is a POST sent once: a response that is lost (the
// connection closes after the request), a 5xx, or a 201 whose body cannot be read all leave the
// outcome unknown, and nothing is sent again. The attach and detach forms of the instance update
// follow the same rule, since a repeat is not harmless ("already attached").
func TestFamilyCreatesAreNeverResent(t *testing.T) {
	t.Parallel()
	creates := map[string]func(context.Context, *Client) error{}
	for _, op := range familyOperations() {
		if !op.idempotent {
			creates[op.name] = op.call
		}
	}
	require.Len(t, creates, 9)
	faults := map[string]http.HandlerFunc{
		"connection closed after the request": func(w http.ResponseWriter, r *http.Request) { hangUp(w) },
		"503":                                 withStatus(http.StatusServiceUnavailable),
		"201 cut off":                         func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusCreated, `{"volume": {"id": "v-`) },
		"201 without the key":                 func(w http.ResponseWriter, r *http.Request) { replyRaw(w, http.StatusCreated, `{}`) },
	}
	for name, call := range creates {
		for fault, serve := range faults {
			t.Run(name+"/"+fault, func(t *testing.T) {
				t.Parallel()
				c, rec := newTestClient(t, serve, WithRetry(RetryPolicy{MaxRetries: 3, MinWait: 1, MaxWait: 1}))
				err := call(context.Background(), c)
				require.ErrorIs(t, err, ErrOutcomeUnknown)
				assert.Equal(t, 1, rec.count(), "a POST that may have been processed is never re-sent")
				reqs := rec.all()
				assert.Contains(t, []string{http.MethodPost, http.MethodPatch}, reqs[0].Method)
			})
		}
	}
}
