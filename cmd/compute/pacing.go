package main

import (
	"errors"
	"path/filepath"
	"runtime"

	compute "github.com/compute-sdk/compute-go"
	ratelimitfile "github.com/compute-sdk/compute-go/ratelimit/file"
)

// envRateDir names the variable that moves the machine-wide pacing's files to another directory, or
// turns that pacing off ("off": each process then paces alone).
const envRateDir = "COMPUTE_RATE_DIR"

// newFileLimiter returns the limiter of package ratelimit/file: the token's budget in a file in dir,
// shared by every process of the user on this machine, and the function that closes it. It paces
// from responses from the budget's first request, so that a command a busy machine holds back
// after its turn draws no 429 from a service that allows no burst, even on a new budget.
func newFileLimiter(token string, rps float64, dir string, warn func(error)) (compute.Limiter, func(), error) {
	lim, err := ratelimitfile.New(token, ratelimitfile.WithRate(rps), ratelimitfile.WithDir(dir), ratelimitfile.WithErrorHandler(warn),
		ratelimitfile.WithResponsePacing())
	if err != nil {
		return nil, nil, err
	}
	return lim, func() { _ = lim.Close() }, nil
}

// rateDir returns the directory of the machine-wide pacing's files: $COMPUTE_RATE_DIR, else
// compute-go/ratelimit in the user's cache directory (as os.UserCacheDir finds it, from a.getenv);
// "" when the pacing is off or there is no cache directory.
func (a *app) rateDir() string {
	if d := a.getenv(envRateDir); d != "" {
		if d == "off" {
			return ""
		}
		return d
	}
	var cache string
	switch runtime.GOOS {
	case "windows":
		cache = a.getenv("LocalAppData")
	case "darwin", "ios":
		if h := a.getenv("HOME"); h != "" {
			cache = filepath.Join(h, "Library", "Caches")
		}
	default:
		cache = a.getenv("XDG_CACHE_HOME")
		if !filepath.IsAbs(cache) {
			cache = ""
			if h := a.getenv("HOME"); h != "" {
				cache = filepath.Join(h, ".cache")
			}
		}
	}
	if cache == "" {
		return ""
	}
	return filepath.Join(cache, "compute-go", "ratelimit")
}

// fileTrouble reports the machine-wide pacing falling back to pacing this process alone (err !=
// nil) and coming back (err == nil); a budget file that was refused and replaced (ErrRefused) is no
// fallback: the processes go on sharing the pace through the new file.
func (a *app) fileTrouble(err error) {
	if errors.Is(err, ratelimitfile.ErrRefused) {
		a.warn("the rate limit shared by this machine's processes starts afresh in a new file, still shared: %v", err)
		return
	}
	if err != nil {
		a.warn("the rate limit shared by this machine's processes is unavailable, pacing this process alone: %v", err)
		return
	}
	a.warn("the rate limit shared by this machine's processes is available again")
}
