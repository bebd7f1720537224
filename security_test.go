package compute

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/compute-sdk/compute-go/internal/memnet"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Security: the token never shows in a printed value, an error or a log line (a whole failing and
// retrying sequence included) and never leaves for another host (redirects of every status and
// method); plain-http base URLs; control characters in the token; IDs are escaped into one path
// segment. A hostile server's attacks (token echoed in a response, IDs that could change the route,
// a redirected write) are in hostile_server_test.go.

// TestServicesOptionsAndConfigPrintWithoutToken formats every service, every Option and the config
// each Option produces, and the credential, with %v, %+v and %#v, for both auth headers.
// TestClientPrintsWithoutToken covers the client itself and its transport.
func TestServicesOptionsAndConfigPrintWithoutToken(t *testing.T) {
	t.Parallel()
	options := map[string]Option{
		"WithBaseURL":          WithBaseURL("https://api.example.com"),
		"WithInsecureHTTP":     WithInsecureHTTP(),
		"WithHTTPClient":       WithHTTPClient(&http.Client{Timeout: time.Second}),
		"WithTimeout":          WithTimeout(time.Second),
		"WithUserAgent":        WithUserAgent("tool/1.0"),
		"WithRateLimit":        WithRateLimit(5, 2),
		"WithoutRateLimit":     WithoutRateLimit(),
		"WithRetry":            WithRetry(RetryPolicy{MaxRetries: 2}),
		"WithoutRetries":       WithoutRetries(),
		"WithLogger":           WithLogger(slog.New(slog.DiscardHandler)),
		"WithLegacyAuthHeader": WithLegacyAuthHeader(),
		"WithLimiter":          WithLimiter(newGate(1, 1)),
		"WithObserver":         WithObserver(Observer{Attempt: func(context.Context, Attempt) {}}),
		"WithDebugDump":        WithDebugDump(io.Discard),
	}
	require.ElementsMatch(t, optionConstructors(t), slices.Collect(maps.Keys(options)), "every func returning an Option is formatted here")

	for name, opt := range options {
		var cfg config
		require.NoError(t, opt(&cfg), name)
		requireNoToken(t, fmt.Sprintf("%v %+v %#v %v %+v %#v", opt, opt, opt, cfg, cfg, cfg))
	}
	for _, legacy := range []bool{false, true} {
		opts := []Option{WithBaseURL("https://api.example.com")}
		if legacy {
			opts = append(opts, WithLegacyAuthHeader())
		}
		for _, set := range [][]Option{opts, append(slices.Collect(maps.Values(options)), opts...)} {
			c, err := NewClient(testToken, set...)
			require.NoError(t, err)
			for _, v := range []any{
				c.Instances, *c.Instances, c.Snapshots, *c.Snapshots, c.SecurityGroups, *c.SecurityGroups,
				c.FloatingIPs, *c.FloatingIPs, c.Images, *c.Images,
				c.transport.cred, *c.transport, c.transport.limiter, c.logger,
			} {
				requireNoToken(t, fmt.Sprintf("%v %+v %#v", v, v, v))
			}
		}
	}
}

// optionConstructors lists the exported funcs of the package's non-test files that return an Option.
func optionConstructors(t *testing.T) []string {
	t.Helper()
	files, err := topGoFiles()
	require.NoError(t, err)
	var names []string
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || fn.Type.Results == nil || len(fn.Type.Results.List) != 1 {
				continue
			}
			if id, ok := fn.Type.Results.List[0].Type.(*ast.Ident); ok && id.Name == "Option" {
				names = append(names, fn.Name.Name)
			}
		}
	}
	return names
}

// captureHandler is a slog.Handler that writes every record at every level, its message and all its
// attributes (those added by WithAttrs and groups included, LogValuers resolved) to a buffer.
type captureHandler struct {
	buf    *lockedBuffer
	attrs  []slog.Attr
	prefix string
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q", r.Level, r.Message)
	write := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s%s=%+v", h.prefix, a.Key, a.Value.Resolve().Any())
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	b.WriteByte('\n')
	_, err := io.WriteString(h.buf, b.String())
	return err
}

func (h *captureHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(slices.Clip(h.attrs), attrs...)
	return &c
}

func (h *captureHandler) WithGroup(name string) slog.Handler {
	c := *h
	c.prefix += name + "."
	return &c
}

// TestDebugLogOfAFailingAndRetryingSequenceHasNoToken drives 429s, 5xx, a lost response, attempt
// timeouts and successes through one client, against a server that echoes the credential in every
// X-Request-Id and in its error bodies, and greps everything a debug-level handler received.
func TestDebugLogOfAFailingAndRetryingSequenceHasNoToken(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacy=%v", legacy), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				credential := func(r *http.Request) string { return r.Header.Get("Authorization") + r.Header.Get("X-Auth-Token") }
				echo := func(status int) http.HandlerFunc {
					return func(w http.ResponseWriter, r *http.Request) {
						replyJSON(w, status, map[string]string{"message": "you sent " + credential(r)})
					}
				}
				// The DELETE's 404 after a lost 502 counts as "already deleted" only with the
				// instance's not-found code.
				echoNotFound := func(w http.ResponseWriter, r *http.Request) {
					replyJSON(w, 404, map[string]string{"code": "02008", "message": "you sent " + credential(r)})
				}
				routes := map[string]http.HandlerFunc{
					"GET /compute/v1/instances/i-1": sequence(serveJSON([]byte(`{"instance": {"id": "i-1"}}`)),
						rateLimited("1"), echo(503), func(w http.ResponseWriter, r *http.Request) { hangUp(w) }),
					"POST /compute/v1/instances":       sequence(echo(500), rateLimited("2")),
					"DELETE /compute/v1/instances/i-1": sequence(echoNotFound, echo(502)),
					"GET /compute/v1/instances/slow":   hangUntilGone,
				}
				logs := &lockedBuffer{}
				opts := []Option{defaultRetry(), WithTimeout(3 * time.Second), WithLogger(slog.New(&captureHandler{buf: logs}))}
				if legacy {
					opts = append(opts, WithLegacyAuthHeader())
				}
				c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("X-Request-Id", "req-"+credential(r))
					routes[r.Method+" "+r.URL.Path](w, r)
				}, opts...)

				ctx := context.Background()
				_, err := c.Instances.Get(ctx, "i-1")
				require.NoError(t, err)
				_, err = c.Instances.Create(ctx, &InstanceCreateRequest{Name: "w", Hostname: "w", Type: "t", Region: "r", Image: "i", SSHKeys: []string{"k"}})
				require.ErrorIs(t, err, ErrOutcomeUnknown)
				requireNoToken(t, err.Error())
				require.NoError(t, c.Instances.Delete(ctx, "i-1"))
				_, err = c.Instances.Get(ctx, "slow")
				require.ErrorIs(t, err, context.DeadlineExceeded)
				requireNoToken(t, err.Error())

				require.Equal(t, 4+2+2+5, rec.count())
				out := logs.String()
				for _, want := range []string{
					`DEBUG "compute: attempt"`, `DEBUG "compute: attempt failed"`, `DEBUG "compute: retrying"`,
					"status=429", "status=503", "status=500", "status=404", "attempt=5", "attempt timed out",
					"request_id=req-",
				} {
					assert.Contains(t, out, want, "the log did not see the whole sequence")
				}
				assert.Contains(t, out, "[REDACTED]", "the echoed credential was redacted, not absent")
				requireNoToken(t, out)
			})
		})
	}
}

// TestRedirectToAnotherHostNeverCarriesTheToken follows every redirect status, for a GET and a POST
// (307 and 308 re-send its body), from the base host to another host name, to a subdomain of the base
// host (where net/http itself would forward an Authorization header) and to the base host on another
// port, with both auth headers. Host names are routed to in-memory servers, so nothing resolves.
func TestRedirectToAnotherHostNeverCarriesTheToken(t *testing.T) {
	t.Parallel()
	for _, legacy := range []bool{false, true} {
		for _, status := range []int{301, 302, 303, 307, 308} {
			for _, op := range []operation{opGetInstance, opCreateFloatingIP} {
				for _, target := range []string{"http://evil.example.net/steal", "http://sub.api.example.test/steal", "http://api.example.test:8080/steal"} {
					name := fmt.Sprintf("legacy=%v/%d/%s/%s", legacy, status, op.method, target)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						synctest.Test(t, func(t *testing.T) { checkRedirect(t, legacy, status, op, target) })
					})
				}
			}
		}
	}
}

// twoOrigins returns an http.Client that reaches base at api.example.test:80 and other at every other
// address, both served in memory, so that nothing resolves. Its CheckRedirect prints into *hookSaw
// every request it can reach, as a debugging caller would, including the requests the redirects
// responded to (%+v does not follow those pointers by itself).
func twoOrigins(t *testing.T, base, other http.HandlerFunc, hookSaw *[]string) *http.Client {
	serve := func(h http.HandlerFunc) *memnet.Listener {
		l := memnet.NewListener()
		srv := httptest.NewUnstartedServer(h)
		srv.Listener = l
		srv.Start()
		t.Cleanup(srv.Close)
		return l
	}
	atBase, atOther := serve(base), serve(other)
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == "api.example.test:80" {
			return atBase.Dial(ctx, network, addr)
		}
		return atOther.Dial(ctx, network, addr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		assert.NotNil(t, req.Response, "the hook sees the redirect's response")
		for _, r := range slices.Concat(via, []*http.Request{req}) {
			*hookSaw = append(*hookSaw, fmt.Sprintf("%v %+v", r.Header, r))
			if r.Response != nil && r.Response.Request != nil {
				*hookSaw = append(*hookSaw, fmt.Sprintf("%v %+v", r.Response.Request.Header, r.Response.Request))
			}
		}
		return nil
	}}
}

func checkRedirect(t *testing.T, legacy bool, status int, op operation, target string) {
	var mu sync.Mutex
	var atBase, atOther []http.Header
	var hookSaw []string
	hc := twoOrigins(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		atBase = append(atBase, r.Header.Clone())
		mu.Unlock()
		http.Redirect(w, r, target, status)
	}, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		atOther = append(atOther, r.Header.Clone())
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}, &hookSaw)
	opts := []Option{WithBaseURL("http://api.example.test"), WithInsecureHTTP(), WithHTTPClient(hc), WithoutRateLimit()}
	if legacy {
		opts = append(opts, WithLegacyAuthHeader())
	}
	c, err := NewClient(testToken, opts...)
	require.NoError(t, err)
	t.Cleanup(func() {
		if op.method == http.MethodGet {
			require.NotEmpty(t, hookSaw, "the caller's CheckRedirect ran")
		}
		for _, s := range hookSaw {
			requireNoToken(t, s)
		}
	})
	var body any
	if op.method == http.MethodPost {
		body = map[string]string{"name": "n", "region": "r"}
	}
	err = testCall(context.Background(), c, op, []string{"i-1"}[:strings.Count(op.path, "{")], body)
	mu.Lock()
	defer mu.Unlock()
	if op.method != http.MethodGet {
		// A write is never followed to another origin: the redirect's response makes its outcome
		// unknown, and nothing, token or body, reaches the other host.
		require.ErrorIs(t, err, ErrOutcomeUnknown)
		assert.ErrorContains(t, err, "redirected a write to another origin")
		assert.Len(t, atBase, 1, "never re-sent")
		assert.Empty(t, atOther)
		return
	}
	require.NoError(t, err)
	require.Len(t, atBase, 1)
	assert.Equal(t, !legacy, atBase[0].Get("Authorization") == "Bearer "+testToken, "the base host gets the token")
	assert.Equal(t, legacy, atBase[0].Get("X-Auth-Token") == testToken)
	require.Len(t, atOther, 1, "the redirect was followed")
	assert.Empty(t, atOther[0].Get("Authorization"))
	assert.Empty(t, atOther[0].Get("X-Auth-Token"))
	for name, values := range atOther[0] {
		requireNoToken(t, name+": "+strings.Join(values, ", "))
	}
}

// TestRedirectAwayAndBackCarriesTheTokenOnlyAtTheBase follows base → base → another host → base: the hop
// at the other host has no credential, the hops at the base have it, in both auth modes, and the
// caller's CheckRedirect never sees it, not even on the requests the redirects responded to.
func TestRedirectAwayAndBackCarriesTheTokenOnlyAtTheBase(t *testing.T) {
	t.Parallel()
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacy=%v", legacy), func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				var mu sync.Mutex
				seen := map[string]http.Header{}
				record := func(name string, r *http.Request) {
					mu.Lock()
					defer mu.Unlock()
					seen[name] = r.Header.Clone()
				}
				var hookSaw []string
				hc := twoOrigins(t, func(w http.ResponseWriter, r *http.Request) {
					switch r.URL.Path {
					case "/back":
						record("back", r)
						w.WriteHeader(http.StatusNoContent)
					case "/same":
						record("same", r)
						http.Redirect(w, r, "http://cdn.example.net/hop", http.StatusTemporaryRedirect)
					default:
						record("first", r)
						http.Redirect(w, r, "/same", http.StatusFound)
					}
				}, func(w http.ResponseWriter, r *http.Request) {
					record("other", r)
					http.Redirect(w, r, "http://api.example.test/back", http.StatusTemporaryRedirect)
				}, &hookSaw)
				opts := []Option{WithBaseURL("http://api.example.test"), WithInsecureHTTP(), WithHTTPClient(hc), WithoutRateLimit()}
				name, want := "Authorization", "Bearer "+testToken
				if legacy {
					opts = append(opts, WithLegacyAuthHeader())
					name, want = "X-Auth-Token", testToken
				}
				c, err := NewClient(testToken, opts...)
				require.NoError(t, err)
				require.NoError(t, testCall(context.Background(), c, opGetInstance, []string{"i-1"}, nil))

				mu.Lock()
				defer mu.Unlock()
				require.Len(t, seen, 4)
				assert.Equal(t, want, seen["first"].Get(name))
				assert.Equal(t, want, seen["same"].Get(name), "a redirect within the base origin keeps the credential")
				for k, v := range seen["other"] {
					requireNoToken(t, k+": "+strings.Join(v, ", "))
				}
				assert.Equal(t, want, seen["back"].Get(name), "the base origin gets the credential again")
				require.Len(t, hookSaw, 2*(2+3+4)-3, "three redirects, each with its chain; the first request has no response yet")
				for _, s := range hookSaw {
					requireNoToken(t, s)
				}
			})
		})
	}
}

// TestPlainHTTPOnlyToLoopbackUnlessOptedIn tries base URLs that look local but are not, and some that
// are, in either order of the options.
func TestPlainHTTPOnlyToLoopbackUnlessOptedIn(t *testing.T) {
	t.Parallel()
	for rawURL, loopback := range map[string]bool{
		"http://api.example.com":          false,
		"HTTP://api.example.com":          false,
		"http://localhost.evil.example":   false,
		"http://127.0.0.1.nip.io":         false,
		"http://evil.example/localhost":   false,
		"http://10.0.0.5:8080":            false,
		"http://0.0.0.0":                  false,
		"http://2130706433":               false, // 127.0.0.1 as one number, which some resolvers accept
		"http://127.1":                    false,
		"http://[fe80::1]":                false,
		"http://127.0.0.1":                true,
		"http://127.0.0.2:8080/base":      true,
		"http://localhost:8080":           true,
		"http://api.localhost":            false, // a name under localhost may resolve anywhere
		"http://evil.localhost:8080":      false,
		"http://[::1]:8080":               true,
		"http://[::ffff:127.0.0.1]":       true,
		"https://api.example.com":         true, // not plain http: always accepted
		"https://localhost.evil.example/": true,
	} {
		_, err := NewClient(testToken, WithBaseURL(rawURL))
		if loopback {
			assert.NoError(t, err, rawURL)
		} else {
			assert.ErrorContains(t, err, "in clear", rawURL)
		}
		for _, opts := range [][]Option{{WithBaseURL(rawURL), WithInsecureHTTP()}, {WithInsecureHTTP(), WithBaseURL(rawURL)}} {
			_, err := NewClient(testToken, opts...)
			assert.NoError(t, err, "%s with WithInsecureHTTP", rawURL)
		}
	}
}

// TestPlainHTTPFromTheEnvironmentIsRefused: COMPUTE_API_URL goes through the same check.
func TestPlainHTTPFromTheEnvironmentIsRefused(t *testing.T) {
	t.Setenv(EnvToken, testToken)
	t.Setenv(EnvBaseURL, "http://api.example.com")
	_, err := NewClientFromEnv()
	require.ErrorContains(t, err, "in clear")
	requireNoToken(t, err.Error())
	_, err = NewClientFromEnv(WithInsecureHTTP())
	require.NoError(t, err)
}

// TestTokenWithControlCharactersIsRefused puts each control character (and non-ASCII) at the start,
// in the middle and at the end of the token. NewClient must refuse it without echoing it.
func TestTokenWithControlCharactersIsRefused(t *testing.T) {
	t.Parallel()
	for name, bad := range map[string]string{"CR": "\r", "LF": "\n", "NUL": "\x00", "TAB": "\t", "DEL": "\x7f", "ESC": "\x1b", "non-ASCII": "é"} {
		for where, token := range map[string]string{"start": bad + testToken, "middle": testToken[:5] + bad + testToken[5:], "end": testToken + bad} {
			c, err := NewClient(token, WithBaseURL(localURL))
			assert.Nil(t, c, name)
			if assert.Error(t, err, "%s at the %s", name, where) {
				assert.Contains(t, err.Error(), "control characters", name)
				requireNoToken(t, err.Error())
			}
		}
	}
}

// TestTokenNeverFollowsARedirectToAnotherHost uses two loopback servers on different ports, so the
// redirect leaves the base URL's origin.
func TestTokenNeverFollowsARedirectToAnotherHost(t *testing.T) {
	t.Parallel()
	for _, legacy := range []bool{false, true} {
		var mu sync.Mutex
		var seen http.Header
		other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = r.Header.Clone()
			mu.Unlock()
			w.WriteHeader(204)
		}))
		t.Cleanup(other.Close)
		base := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			assert.NotEmpty(t, r.Header.Get("Authorization")+r.Header.Get("X-Auth-Token"), "the base host gets the token")
			http.Redirect(w, r, other.URL+"/elsewhere", http.StatusTemporaryRedirect)
		}))
		t.Cleanup(base.Close)
		opts := []Option{WithBaseURL(base.URL), WithoutRateLimit()}
		if legacy {
			opts = append(opts, WithLegacyAuthHeader())
		}
		c, err := NewClient(testToken, opts...)
		require.NoError(t, err)
		require.NoError(t, testCall(context.Background(), c, opGetInstance, []string{"i"}, nil))
		mu.Lock()
		require.NotNil(t, seen, "the redirect was followed")
		assert.Empty(t, seen.Get("Authorization"))
		assert.Empty(t, seen.Get("X-Auth-Token"))
		mu.Unlock()
	}
}

func TestClientPrintsWithoutToken(t *testing.T) {
	t.Parallel()
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"))
	require.NoError(t, err)
	for _, s := range []string{
		fmt.Sprintf("%v %+v %#v %s", c, c, c, c),
		fmt.Sprintf("%v %+v %#v", *c, *c, *c),
		fmt.Sprintf("%v %+v %#v", c.Instances, c.FloatingIPs, *c.SecurityGroups),
		fmt.Sprintf("%v %+v %#v", c.transport, c.retrying, c.retrying.HTTPClient),
	} {
		requireNoToken(t, s)
	}
}

// TestTokenNeverLeaks drives failures of every kind, including a proxy that echoes the request's
// headers in its error page, and greps every error string and log line for the token.
func TestTokenNeverLeaks(t *testing.T) {
	t.Parallel()
	var logs lockedBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/compute/v1/instances/echo":
			var b strings.Builder
			_ = r.Header.Write(&b)
			replyRaw(w, 502, "<pre>"+b.String()+"</pre>")
		case "/compute/v1/instances/echo-json":
			replyJSON(w, 401, map[string]string{"code": "02014", "message": "bad token " + r.Header.Get("Authorization")})
		case "/compute/v1/instances/echo-case":
			auth := r.Header.Get("Authorization")
			replyJSON(w, 401, map[string]string{"code": "02014", "message": strings.ToLower(auth) + " " + strings.ToUpper(auth)})
		case "/compute/v1/instances/hangup":
			hangUp(w)
		default:
			replyJSON(w, 403, map[string]string{"code": "01204", "message": "permission denied"})
		}
	}, WithLogger(logger), WithRetry(RetryPolicy{MaxRetries: 1, MinWait: time.Millisecond, MaxWait: time.Millisecond}))
	ctx := context.Background()
	var errs []error
	for _, id := range []string{"echo", "echo-json", "echo-case", "hangup", "forbidden", ""} {
		errs = append(errs, testCall(ctx, c, opGetInstance, []string{id}, nil))
		errs = append(errs, testCall(ctx, c, opCreateSnapshot, []string{id}, createBody))
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	errs = append(errs, testCall(cancelled, c, opGetInstance, []string{"x"}, nil))
	for _, err := range errs {
		require.Error(t, err)
		requireNoToken(t, fmt.Sprintf("%v %+v %#v %s", err, err, err, err.Error()))
	}
	require.NotEmpty(t, logs.String(), "the logger saw the attempts")
	requireNoToken(t, logs.String())
	assert.Contains(t, logs.String(), "attempt=")
}

func TestPathEscaping(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) })
	// IDs that could name another resource ("/", dot segments) are refused instead: see
	// TestHostileIDsThatCouldChangeTheRoute.
	for id, want := range map[string]string{
		"a?b":   "/compute/v1/instances/a%3Fb",
		"a#b":   "/compute/v1/instances/a%23b",
		"a b?c": "/compute/v1/instances/a%20b%3Fc",
		"..x":   "/compute/v1/instances/..x",
		"é":     "/compute/v1/instances/%C3%A9",
	} {
		require.NoError(t, testCall(context.Background(), c, opGetInstance, []string{id}, nil))
		reqs := rec.all()
		assert.Equal(t, want, reqs[len(reqs)-1].Path, id)
		assert.Empty(t, reqs[len(reqs)-1].Query, id)
	}
	err := testCall(context.Background(), c, opListInstanceActions, []string{" "}, nil)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "instance_id", ve.Field)
}

// TestNoFieldHoldsTheToken walks every value reachable from a client by reflection, unexported
// fields included, as a dumper such as go-spew would, and fails if any string holds the token.
// The walk stops at *http.Transport: the default client shares one process-wide transport, whose
// connection buffers hold what other tests' requests wrote to their own servers, and which other
// goroutines write while the walk would read it.
func TestNoFieldHoldsTheToken(t *testing.T) {
	t.Parallel()
	for _, legacy := range []bool{false, true} {
		opts := []Option{WithBaseURL("https://api.example.com")}
		if legacy {
			opts = append(opts, WithLegacyAuthHeader())
		}
		c, err := NewClient(testToken, opts...)
		require.NoError(t, err)
		seen := map[uintptr]bool{}
		strs, transports := 0, 0
		var walk func(v reflect.Value, path string)
		walk = func(v reflect.Value, path string) {
			switch v.Kind() {
			case reflect.Pointer, reflect.Interface:
				if v.IsNil() {
					return
				}
				if v.Kind() == reflect.Pointer {
					if v.Type() == reflect.TypeFor[*http.Transport]() {
						transports++
						return
					}
					if seen[v.Pointer()] {
						return
					}
					seen[v.Pointer()] = true
				}
				walk(v.Elem(), path)
			case reflect.Struct:
				for i := range v.NumField() {
					walk(v.Field(i), path+"."+v.Type().Field(i).Name)
				}
			case reflect.Slice, reflect.Array:
				if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
					require.NotContains(t, string(v.Bytes()), testToken, path)
					return
				}
				for i := range v.Len() {
					walk(v.Index(i), path)
				}
			case reflect.Map:
				for _, k := range v.MapKeys() {
					walk(k, path)
					walk(v.MapIndex(k), path)
				}
			case reflect.String:
				strs++
				require.NotContains(t, v.String(), testToken, "the token is readable at %s", path)
			}
		}
		walk(reflect.ValueOf(c), "Client")
		assert.GreaterOrEqual(t, strs, 3, "the walk reached the client's strings")
		assert.Positive(t, transports, "the walk reached the transport")
	}
}

// TestARefusedIDIsNeverQuoted: an ID refused as input (it could change the route) is named by its
// segment and the byte at fault, never quoted: it can hold anything, the token pasted by mistake.
func TestARefusedIDIsNeverQuoted(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {})
	for _, id := range []string{testToken + "/x", testToken + "%2e", "\n" + testToken} {
		_, err := c.Instances.Get(context.Background(), id)
		requireInvalid(t, err, "instance_id", rec)
		requireNoToken(t, err.Error())
		requireNoToken(t, fmt.Sprintf("%#v", err))
	}
	_, err := c.Instances.WaitForStatus(context.Background(), testToken+"/..", InstanceStatusActive)
	requireInvalid(t, err, "instance_id", rec)
	requireNoToken(t, err.Error())
}

// TestAWriteRedirectedToPlainHTTPIsNotFollowed: a write that the service redirects from https to
// http on its own host is not followed, and no request carries the token over plain http.
func TestAWriteRedirectedToPlainHTTPIsNotFollowed(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var plain []http.Header
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Scheme == "http" {
			mu.Lock()
			plain = append(plain, r.Header.Clone())
			mu.Unlock()
			return &http.Response{StatusCode: 201, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{"instance":{"id":"i-1"}}`)), Request: r}, nil
		}
		h := http.Header{"Location": {"http://api.example.com" + r.URL.Path}}
		return &http.Response{StatusCode: http.StatusTemporaryRedirect, Header: h, Body: http.NoBody, Request: r}, nil
	})
	c, err := NewClient(testToken, WithBaseURL("https://api.example.com"), WithHTTPClient(&http.Client{Transport: rt}))
	require.NoError(t, err)
	_, err = c.Instances.Create(context.Background(), validCreate())
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	_, err = c.Instances.Get(context.Background(), "i-1")
	require.NoError(t, err, "a read may follow, without the token")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, plain, 1, "only the read went to plain http")
	assert.Empty(t, plain[0].Get("Authorization"))
}

// tokenMarshaler is a request body whose encoding fails with an error that quotes the token.
type tokenMarshaler struct{}

func (tokenMarshaler) MarshalJSON() ([]byte, error) {
	return nil, fmt.Errorf("cannot encode the secret %s", testToken)
}

// TestAValidationErrorNeverQuotesTheToken: a value the SDK refuses before sending (an enum, an
// action, a body that cannot be encoded) may be the token, pasted into the wrong field; the
// *ValidationError still names the field and shows the value, with the token (and every run of
// five or more of its characters, in any case, as when a long value is cut) replaced, in its
// text, its fields, what slog writes of it and what the observer's end of the call sees.
func TestAValidationErrorNeverQuotesTheToken(t *testing.T) {
	t.Parallel()
	var observed lockedBuffer
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyRaw(w, http.StatusInternalServerError, "the request should have been refused")
	}, WithObserver(Observer{CallEnd: func(_ context.Context, _ Response, err error) {
		if err != nil {
			_, _ = fmt.Fprintf(&observed, "%v %+v %#v\n", err, err, err)
		}
	}}))
	ctx := context.Background()
	upper := strings.ToUpper(testToken)
	cut := strings.Repeat("x", 50) + testToken // cut at 64 bytes, in the token's middle
	instance := func(billing string) *InstanceCreateRequest {
		req := validCreate()
		req.BillingType = BillingType(billing)
		return req
	}
	rule := func(protocol, direction string) *SecurityGroupCreateRequest {
		return &SecurityGroupCreateRequest{Name: "web", Region: "r1",
			Rules: []SecurityGroupRule{{Protocol: ProtocolTCP, Direction: DirectionIngress}, {Protocol: Protocol(protocol), Direction: Direction(direction)}}}
	}
	cases := []struct {
		name, field string
		call        func() error
	}{
		{"instance billing_type", "billing_type", func() error { _, err := c.Instances.Create(ctx, instance(testToken)); return err }},
		{"instance billing_type in upper case", "billing_type", func() error { _, err := c.Instances.Create(ctx, instance(upper)); return err }},
		{"instance billing_type cut", "billing_type", func() error { _, err := c.Instances.Create(ctx, instance(cut)); return err }},
		{"instance CreateOnce", "billing_type", func() error { _, err := c.Instances.CreateOnce(ctx, instance(testToken)); return err }},
		{"instance action", "action", func() error { return c.Instances.PerformAction(ctx, "ins-1", InstanceAction(testToken)) }},
		{"volume type", "type", func() error {
			_, err := c.Volumes.Create(ctx, &VolumeCreateRequest{Name: "v", Region: "r1", Size: 50, Type: VolumeType(testToken)})
			return err
		}},
		{"volume CreateOnce", "type", func() error {
			_, err := c.Volumes.CreateOnce(ctx, &VolumeCreateRequest{Name: "v", Region: "r1", Size: 50, Type: VolumeType(testToken)})
			return err
		}},
		{"floating IP version", "version", func() error {
			_, err := c.FloatingIPs.Create(ctx, &FloatingIPCreateRequest{Name: "f", Region: "r1", Version: IPVersion(testToken)})
			return err
		}},
		{"floating IP CreateOnce", "version", func() error {
			_, err := c.FloatingIPs.CreateOnce(ctx, &FloatingIPCreateRequest{Name: "f", Region: "r1", Version: IPVersion(testToken)})
			return err
		}},
		{"filesystem type", "type", func() error {
			_, err := c.Filesystems.CreateOnce(ctx, &FilesystemCreateRequest{Name: "f", Region: "r1", Size: 50, Type: FilesystemType(testToken)})
			return err
		}},
		{"snapshot os_type", "os_type", func() error {
			_, err := c.Snapshots.ImportOnce(ctx, &SnapshotImportRequest{Name: "s", Region: "r1", Size: 50, URL: "https://example.com/d.raw", OSType: testToken})
			return err
		}},
		{"security group rule protocol and direction", "rules[1].protocol", func() error {
			_, err := c.SecurityGroups.Create(ctx, rule(testToken, upper))
			return err
		}},
		{"security group update", "rules[1].protocol", func() error {
			req := rule(testToken, cut)
			_, err := c.SecurityGroups.Update(ctx, "sg-1", &SecurityGroupUpdateRequest{Name: req.Name, Rules: req.Rules})
			return err
		}},
		{"raw request body", "body", func() error {
			return c.Do(ctx, RawRequest{Method: http.MethodPost, Path: "/compute/v1/instances", Body: tokenMarshaler{}}, nil)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			requireInvalid(t, err, tc.field, rec)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			if tc.field != "body" { // the encoder's error is cut before the marshaler's text
				assert.Contains(t, ve.Reason, "[REDACTED]", "the value is shown, the token hidden")
			}
			requireNoToken(t, fmt.Sprintf("%v %+v %#v %s", err, err, err, err.Error()))
			requireNoToken(t, fmt.Sprintf("%#v", *ve))
			for _, p := range ve.Problems {
				requireNoToken(t, p.Field+" "+p.Reason)
			}
			var logged strings.Builder
			slog.New(slog.NewTextHandler(&logged, nil)).Info("call", "err", ve)
			requireNoToken(t, logged.String())
			assert.Equal(t, Redactor(testToken)(err.Error()), err.Error(), "no run of the token's characters")
		})
	}
	requireNoToken(t, observed.String())
	assert.Equal(t, Redactor(testToken)(observed.String()), observed.String())
}

// TestEveryCheckOfARequestGoesThroughTheClient: outside the Validate methods themselves, the
// package checks a caller's request only through Client.validate, which scrubs the token from the
// *ValidationError (TestAValidationErrorNeverQuotesTheToken); a method that called Validate itself
// would return the caller's values unscrubbed.
func TestEveryCheckOfARequestGoesThroughTheClient(t *testing.T) {
	t.Parallel()
	files, err := topGoFiles()
	require.NoError(t, err)
	var direct []string
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || fn.Name.Name == "Validate" || fn.Name.Name == "validate" {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Validate" {
						direct = append(direct, fmt.Sprintf("%s (in %s)", fset.Position(call.Pos()), fn.Name.Name))
					}
				}
				return true
			})
		}
	}
	assert.Empty(t, direct, "call c.validate(v), not v.Validate()")
}
