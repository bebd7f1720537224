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

// envContext names the variable that selects a context, as --context does.
const envContext = "COMPUTE_CONTEXT"

// connect builds the SDK client from the flags, the environment and the context in use, reading a
// --token-file within ctx. Every problem is a usage error: nothing has been sent yet.
func (a *app) connect(ctx context.Context) (*compute.Client, error) {
	base, token, err := a.credentials(ctx)
	if err != nil {
		return nil, err
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
	opts = append(opts, compute.WithObserver(a.observer()))
	// The pace of the token: shared through Redis by several machines, else through a file by the
	// processes of this one, else (COMPUTE_RATE_DIR=off, no cache directory) this process's alone.
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
	} else if dir := a.rateDir(); dir != "" && a.rate != 0 && a.newFileLimiter != nil {
		lim, closeFn, err := a.newFileLimiter(token, a.rate, dir, a.fileTrouble)
		if err != nil {
			return nil, usagef("invalid %s %q: %v", envRateDir, dir, err)
		}
		a.closers = append(a.closers, closeFn)
		opts = append(opts, compute.WithLimiter(lim))
	}
	c, err := a.newClient(token, opts...)
	if err != nil {
		// The SDK's errors never hold the token.
		return nil, usagef("cannot use %s: %s", a.from, cliWords(err))
	}
	a.redactor = compute.Redactor(token)
	return c, nil
}

// clientOptions are the SDK options of the API at base that every client of a run shares.
func (a *app) clientOptions(base string) []compute.Option {
	opts := []compute.Option{compute.WithBaseURL(base), compute.WithUserAgent("compute-cli/" + userAgentVersion()),
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

// credentials returns the API's base URL and the token, from one place: a context (--context, else
// COMPUTE_CONTEXT, else the current one), or the flags and the environment (--api-url over
// COMPUTE_API_URL, --token-file over COMPUTE_API_TOKEN). A token goes only to the URL it came with:
// a URL from the flags or the environment beside a context's token, or a token beside a context's
// URL, is refused, so that an .envrc's loopback URL never receives a saved production token. It
// sets a.from, which names where they came from.
func (a *app) credentials(ctx context.Context) (base, token string, err error) {
	name, nameFrom := a.contextName, "--context"
	if name == "" && a.getenv(envContext) != "" {
		name, nameFrom = a.getenv(envContext), envContext
	}
	urlFrom, tokenFrom := "", ""
	switch {
	case a.apiURL != "":
		urlFrom = "--api-url is given"
	case a.getenv(compute.EnvBaseURL) != "" && a.contextName == "":
		urlFrom = compute.EnvBaseURL + " is set"
	}
	switch {
	case a.tokenFile != "":
		tokenFrom = "--token-file is given"
	case a.getenv(compute.EnvToken) != "" && a.contextName == "":
		tokenFrom = compute.EnvToken + " is set"
	}
	if name == "" && (urlFrom != "" || tokenFrom != "") {
		// The flags and the environment, which need no context unless one of the two is missing.
		base = cmpOrEnv(a.apiURL, a.getenv(compute.EnvBaseURL))
		token, _, err = a.flagOrEnvToken(ctx)
		if err != nil || (base != "" && token != "") {
			a.from = fmt.Sprintf("the token from %s with the URL from %s", tokenSource(a), urlSource(a))
			return base, token, err
		}
	}
	cfg, err := a.activeContext(name, nameFrom)
	switch {
	case err != nil:
		return "", "", err
	case cfg == nil && base == "":
		return "", "", usagef("no API URL: set %s, pass --api-url, or create a context (compute context create)", compute.EnvBaseURL)
	case cfg == nil:
		return "", "", usagef("no API token: set %s, pass --token-file, or create a context (compute context create); there is no --token flag, as a token on the command line shows in ps and the shell's history", compute.EnvToken)
	case urlFrom != "":
		return "", "", usagef("%s, but the token would come from the context %s, whose token goes only to its own URL: give the token with it (%s or --token-file), or drop it to use the context", urlFrom, cfg.Name, compute.EnvToken)
	case tokenFrom != "":
		return "", "", usagef("%s, but the URL would come from the context %s, and a token goes only to the URL given with it: give the URL too (%s or --api-url), or drop it to use the context", tokenFrom, cfg.Name, compute.EnvBaseURL)
	}
	a.from, a.contextUsed = "the URL and the token of the context "+cfg.Name, cfg.Name
	return cfg.APIURL, cfg.Token, nil
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
// the function that leaves its budget (so that the other processes take this one's share at once)
// and closes its connections.
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
	return lim, func() { _ = lim.Close(); _ = rdb.Close() }, nil
}
