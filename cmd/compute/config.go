package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	ratelimit "github.com/compute-sdk/compute-go/ratelimit/redis"
	goredis "github.com/redis/go-redis/v9"
)

// envRedisURL names the variable that shares the rate limit through Redis, such as
// redis://127.0.0.1:6379/0: every process with the same token and Redis holds one budget.
const envRedisURL = "COMPUTE_REDIS_URL"

// connect builds the SDK client from the flags, the environment and the context in use, reading a
// --token-file within ctx. Every problem is a usage error: nothing has been sent yet.
func (a *app) connect(ctx context.Context) (*compute.Client, error) {
	cfg, err := a.activeContext()
	if err != nil {
		return nil, err
	}
	token, tokenFrom, err := a.token(ctx, cfg)
	if err != nil {
		return nil, err
	}
	base, baseFrom := a.baseURL(cfg)
	if base == "" {
		return nil, usagef("no API URL: set %s, pass --api-url, or create a context (compute context create)", compute.EnvBaseURL)
	}
	opts := a.clientOptions(base)
	if a.rate == 0 {
		opts = append(opts, compute.WithoutRateLimit())
	} else {
		opts = append(opts, compute.WithRateLimit(a.rate, 1))
	}
	if a.debug {
		opts = append(opts, compute.WithDebugDump(debugWriter{a}))
	}
	if redisURL := a.getenv(envRedisURL); redisURL != "" {
		if a.rate == 0 {
			return nil, usagef("--rate 0 turns pacing off, which the limiter shared through %s cannot do", envRedisURL)
		}
		lim, closeFn, err := a.newRedisLimiter(redisURL, token, a.rate, a.redisTrouble)
		if err != nil {
			return nil, usagef("invalid %s: %v", envRedisURL, err)
		}
		a.closers = append(a.closers, closeFn)
		opts = append(opts, compute.WithLimiter(lim))
	}
	c, err := a.newClient(token, opts...)
	if err != nil {
		// The SDK's errors never hold the token.
		return nil, usagef("cannot use the token from %s with the URL from %s: %s", tokenFrom, baseFrom, cliWords(err))
	}
	a.redactor = compute.Redactor(token)
	return c, nil
}

// clientOptions are the SDK options of the API at base that every client of a run shares.
func (a *app) clientOptions(base string) []compute.Option {
	opts := []compute.Option{compute.WithBaseURL(base), compute.WithUserAgent("compute-cli/" + cliVersion()),
		compute.WithHTTPClient(a.sameOriginClient(base))}
	if a.insecureHTTP {
		opts = append(opts, compute.WithInsecureHTTP())
	}
	return opts
}

// cliWords rewrites the SDK's advice into the flags of the command line.
func cliWords(err error) string {
	return strings.ReplaceAll(err.Error(), "use https, or WithInsecureHTTP", "use https, or pass --insecure-http for a development address")
}

// baseURL returns the API's base URL and where it came from: --api-url, a --context, the
// environment, or the current context.
func (a *app) baseURL(cfg *configContext) (base, from string) {
	switch {
	case a.apiURL != "":
		return a.apiURL, "--api-url"
	case cfg != nil && a.contextName != "":
		return cfg.APIURL, "--context " + cfg.Name
	case a.getenv(compute.EnvBaseURL) != "":
		return a.getenv(compute.EnvBaseURL), compute.EnvBaseURL
	case cfg != nil:
		return cfg.APIURL, "the context " + cfg.Name
	}
	return "", ""
}

// token returns the API token and where it came from: --token-file, a --context, the environment,
// or the current context. There is no --token flag: a token on the command line ends up in ps and
// in the shell's history.
func (a *app) token(ctx context.Context, cfg *configContext) (token, from string, err error) {
	if a.tokenFile == "" && cfg != nil && (a.contextName != "" || a.getenv(compute.EnvToken) == "") {
		from = "the context " + cfg.Name
		if a.contextName != "" {
			from = "--context " + cfg.Name
		}
		return cfg.Token, from, nil
	}
	token, from, err = a.flagOrEnvToken(ctx)
	if err == nil && token == "" {
		err = usagef("no API token: set %s, pass --token-file, or create a context (compute context create); there is no --token flag, as a token on the command line shows in ps and the shell's history", compute.EnvToken)
	}
	return token, from, err
}

// flagOrEnvToken returns the token of --token-file, else of COMPUTE_API_TOKEN ("" when neither).
func (a *app) flagOrEnvToken(ctx context.Context) (token, from string, err error) {
	if a.tokenFile != "" {
		b, err := readBounded(ctx, a.tokenFile, maxTokenFile)
		if err != nil {
			return "", "", a.fileError("token-file", err, "which no token is")
		}
		token = strings.TrimRight(string(b), "\r\n")
		if token == "" {
			return "", "", usagef("--token-file %s is empty", a.tokenFile)
		}
		return token, "--token-file", nil
	}
	return a.getenv(compute.EnvToken), compute.EnvToken, nil
}

// debugWriter writes the SDK's debug dump (the token already scrubbed) on stderr, made safe.
type debugWriter struct{ a *app }

func (d debugWriter) Write(p []byte) (int, error) {
	_, err := io.WriteString(d.a.stderr, d.a.safeLines(string(p)))
	return len(p), err
}

// maxTokenFile bounds what --token-file reads: a token is far shorter, and a path given by mistake
// (a log, /dev/zero) is refused rather than read whole.
const maxTokenFile = 4 << 10

// readBounded reads the file at path, refusing one longer than limit bytes without reading past it
// (a *tooLongError). A file that blocks (a FIFO nobody writes to) is given up when ctx ends: the
// read goes on in the background, and the process ends without it.
func readBounded(ctx context.Context, path string, limit int64) ([]byte, error) {
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := readBoundedNow(path, limit)
		done <- read{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readBoundedNow is readBounded, however long the file takes.
func readBoundedNow(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &tooLongError{path: path, limit: limit}
	}
	return b, nil
}

// tooLongError is a file longer than what reads it takes.
type tooLongError struct {
	path  string
	limit int64
}

func (e *tooLongError) Error() string {
	return fmt.Sprintf("%s is longer than %s", e.path, sizeText(e.limit))
}

// sizeText writes a bound in bytes as README.md states it: "64 KiB", "1 MiB", "100 bytes".
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// fileError words the failure of reading the file a flag (--token-file) names, for a usage error:
// a --timeout that passed first is named, as is a file past the bound.
func (a *app) fileError(flag string, err error, why string) error {
	if errors.Is(err, context.DeadlineExceeded) && a.timeout > 0 {
		return usagef("cannot read --%s within --timeout %s (a FIFO nobody writes to?)", flag, a.timeout)
	}
	var long *tooLongError
	if errors.As(err, &long) && why != "" {
		return usagef("cannot read --%s: %v, %s", flag, err, why)
	}
	return usagef("cannot read --%s: %v", flag, err)
}

// sameOriginClient returns the HTTP client the SDK sends through: a.httpClient's (or a new one)
// that follows a redirect only within the origin of base. A redirect elsewhere comes back as the
// 3xx it is: what another host answers (a 404, say) says nothing about the service's resources,
// and the token never goes there.
func (a *app) sameOriginClient(base string) *http.Client {
	hc := &http.Client{}
	if a.httpClient != nil {
		copied := *a.httpClient
		hc = &copied
	}
	origin, err := url.Parse(base)
	if err != nil {
		return hc // the SDK refuses the URL itself
	}
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !strings.EqualFold(req.URL.Scheme, origin.Scheme) || !strings.EqualFold(req.URL.Host, origin.Host) {
			return http.ErrUseLastResponse
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return hc
}

// redisTrouble reports the Redis limiter falling back to pacing this process alone (err != nil)
// and coming back (err == nil).
func (a *app) redisTrouble(err error) {
	if err != nil {
		a.warn("the rate limit shared through Redis is unavailable, pacing this process alone: %v", err)
		return
	}
	a.warn("the rate limit shared through Redis is available again")
}

// quietRedis silences the Redis client's own log lines (a failed dial, again and again while Redis
// is down): the command says once itself that the shared rate limit is unavailable.
type quietRedis struct{}

func (quietRedis) Printf(context.Context, string, ...any) {}

// newRedisLimiter returns the limiter of package ratelimit/redis on the Redis that rawURL names, and
// the function that closes its connections.
func newRedisLimiter(rawURL, token string, rps float64, warn func(error)) (compute.Limiter, func(), error) {
	opt, err := goredis.ParseURL(rawURL)
	if err != nil {
		// A *url.Error quotes the whole URL, which may hold Redis's password.
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, nil, err
	}
	goredis.SetLogger(quietRedis{})
	rdb := goredis.NewClient(opt)
	lim, err := ratelimit.New(rdb, token, ratelimit.WithRate(rps), ratelimit.WithErrorHandler(warn))
	if err != nil {
		_ = rdb.Close()
		return nil, nil, err
	}
	return lim, func() { _ = rdb.Close() }, nil
}
