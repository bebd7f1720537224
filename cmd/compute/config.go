package main

import (
	"context"
	"errors"
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

// connect builds the SDK client from the flags and the environment. Every problem is a usage error:
// nothing has been sent yet.
func (a *app) connect() (*compute.Client, error) {
	token, tokenFrom, err := a.token()
	if err != nil {
		return nil, err
	}
	base, baseFrom := a.apiURL, "--api-url"
	if base == "" {
		base, baseFrom = a.getenv(compute.EnvBaseURL), compute.EnvBaseURL
	}
	if base == "" {
		return nil, usagef("no API URL: set %s or pass --api-url", compute.EnvBaseURL)
	}
	opts := []compute.Option{compute.WithBaseURL(base), compute.WithUserAgent("compute-cli/" + cliVersion())}
	if a.rate == 0 {
		opts = append(opts, compute.WithoutRateLimit())
	} else {
		opts = append(opts, compute.WithRateLimit(a.rate, 1))
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
		return nil, usagef("cannot use the token from %s with the URL from %s: %v", tokenFrom, baseFrom, err)
	}
	return c, nil
}

// token returns the API token and where it came from: --token-file, else COMPUTE_API_TOKEN. There is
// no --token flag: a token on the command line ends up in ps and in the shell's history.
func (a *app) token() (token, from string, err error) {
	if a.tokenFile != "" {
		b, err := os.ReadFile(a.tokenFile)
		if err != nil {
			return "", "", usagef("cannot read --token-file: %v", err)
		}
		token = strings.TrimRight(string(b), "\r\n")
		if token == "" {
			return "", "", usagef("--token-file %s is empty", a.tokenFile)
		}
		return token, "--token-file", nil
	}
	if token = a.getenv(compute.EnvToken); token == "" {
		return "", "", usagef("no API token: set %s or pass --token-file", compute.EnvToken)
	}
	return token, compute.EnvToken, nil
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
