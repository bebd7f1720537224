package compute

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

// Version is the SDK's version, sent in the User-Agent as compute-go/<Version>.
const Version = "0.2.0"

// Environment variables read by [NewClientFromEnv].
const (
	EnvToken   = "COMPUTE_API_TOKEN" // the API token
	EnvBaseURL = "COMPUTE_API_URL"   // the base URL, such as https://api.example.com
)

// Defaults applied by [NewClient].
const (
	DefaultTimeout   = 30 * time.Second // bounds each attempt (see WithTimeout)
	DefaultRateLimit = 10               // the contract's rate, in requests per second
	DefaultRateBurst = 1                // no burst above the steady rate
)

// Client talks to the Compute API. It is immutable and safe for concurrent use; all its callers
// share one rate limiter. Build it with [NewClient] or [NewClientFromEnv].
type Client struct {
	baseURL   string
	userAgent string
	retrying  *retryablehttp.Client
	transport *attemptTransport
	logger    *slog.Logger
	observer  Observer // the options' observers joined; the zero Observer when none
	// maxWalkPages bounds a walk whose pages report no total_count.
	maxWalkPages int

	Instances      *InstancesService      // instances, their actions and waits
	Snapshots      *SnapshotsService      // an instance's snapshots and the account's collection
	SecurityGroups *SecurityGroupsService // security groups
	FloatingIPs    *FloatingIPsService    // floating IPs
	Images         *ImagesService         // images
	SSHKeys        *SSHKeysService        // SSH keys
	Volumes        *VolumesService        // volumes
	Filesystems    *FilesystemsService    // filesystems
	Quotas         *QuotasService         // the account's quotas
	Reservations   *ReservationsService   // the account's reservations
	Availability   *AvailabilityService   // instance availability per region
}

// Option configures a [Client]. An Option that gets bad input makes NewClient return its error.
type Option func(*config) error

// config collects the options before the client is built.
type config struct {
	baseURL      string
	httpClient   *http.Client
	timeout      time.Duration
	userAgent    string
	rps          float64
	burst        int
	noRateLimit  bool
	retry        RetryPolicy
	logger       *slog.Logger
	legacyAuth   bool
	insecureHTTP bool
	limiter      Limiter
	observers    []Observer
	dump         io.Writer
}

// NewClient returns a client that authenticates with token, a non-empty printable ASCII string
// that neither starts nor ends with a space (a server would not see it as sent). A base URL is
// required ([WithBaseURL]); there is no built-in host.
func NewClient(token string, opts ...Option) (*Client, error) {
	switch {
	case !validHeaderValue(token):
		return nil, errors.New("compute: the API token contains control characters or non-ASCII bytes")
	case strings.TrimSpace(token) == "":
		return nil, errors.New("compute: the API token is empty")
	case strings.TrimSpace(token) != token:
		return nil, errors.New("compute: the API token starts or ends with white space")
	}
	cfg := config{
		timeout: DefaultTimeout,
		rps:     DefaultRateLimit,
		burst:   DefaultRateBurst,
		retry:   DefaultRetryPolicy(),
		logger:  slog.New(slog.DiscardHandler),
	}
	for _, opt := range opts {
		if opt == nil {
			continue
		}
		if err := opt(&cfg); err != nil {
			return nil, err
		}
	}
	if cfg.baseURL == "" {
		return nil, fmt.Errorf("compute: no base URL: pass compute.WithBaseURL or set %s", EnvBaseURL)
	}
	base, err := parseBaseURL(cfg.baseURL, cfg.insecureHTTP)
	if err != nil {
		return nil, err
	}

	limiter := cfg.limiter
	if limiter == nil {
		rps := cfg.rps
		if cfg.noRateLimit {
			rps = 0
		}
		limiter = newGate(rps, cfg.burst)
	}
	hc := &http.Client{}
	if cfg.httpClient != nil {
		copied := *cfg.httpClient
		hc = &copied
	}
	hc.CheckRedirect = sameOriginWrites(base, hc.CheckRedirect)
	next := hc.Transport
	if next == nil {
		next = sharedTransport()
	}
	at := &attemptTransport{
		next:    next,
		limiter: limiter,
		cred:    newCredential(token, cfg.legacyAuth),
		scheme:  base.Scheme,
		host:    base.Host,
		timeout: cfg.timeout,
		logger:  cfg.logger,
		dump:    newDumper(cfg.dump),
		load:    &clientLoad{},
	}
	hc.Transport = at
	observer := joinObservers(cfg.observers)
	at.request = observer.Request
	r := &retrier{policy: cfg.retry, limiter: at.limiter, logger: cfg.logger, observer: observer, cred: &at.cred, host: base.Host}
	ua := "compute-go/" + Version
	if cfg.userAgent != "" {
		ua += " " + cfg.userAgent
	}
	c := &Client{
		baseURL:   base.String(),
		userAgent: ua,
		transport: at,
		logger:    cfg.logger,
		observer:  observer,

		maxWalkPages: defaultMaxWalkPages,
		retrying: &retryablehttp.Client{
			HTTPClient:   hc,
			RetryWaitMin: cfg.retry.MinWait,
			RetryWaitMax: cfg.retry.MaxWait,
			RetryMax:     cfg.retry.MaxRetries,
			CheckRetry:   r.checkRetry,
			Backoff:      r.backoff,
			// A hook of each attempt, which logs the retries: the wait's hook has no context.
			RequestLogHook: r.logRetry,
			ErrorHandler:   r.errorHandler,
		},
	}
	c.Instances = &InstancesService{c: c}
	c.Instances.polls = newPoller(c, "instances", c.Instances.List)
	c.Instances.finds = newFinder(c, "instance", c.Instances.List)
	c.Snapshots = &SnapshotsService{c: c}
	c.Snapshots.polls = newPoller(c, "snapshots", c.Snapshots.List)
	c.Snapshots.finds = newFinder(c, "snapshot", c.Snapshots.List)
	c.SecurityGroups = &SecurityGroupsService{c: c}
	c.SecurityGroups.polls = newPoller(c, "security-groups", c.SecurityGroups.List)
	c.SecurityGroups.finds = newFinder(c, "security group", c.SecurityGroups.List)
	c.FloatingIPs = &FloatingIPsService{c: c}
	c.FloatingIPs.polls = newPoller(c, "floating-ips", c.FloatingIPs.List)
	c.FloatingIPs.finds = newFinder(c, "floating IP", c.FloatingIPs.List)
	c.Images = &ImagesService{c}
	c.SSHKeys = &SSHKeysService{c: c}
	c.SSHKeys.polls = newPoller(c, "ssh-keys", c.SSHKeys.List)
	c.SSHKeys.finds = newFinder(c, "SSH key", c.SSHKeys.List)
	c.Volumes = &VolumesService{c: c}
	c.Volumes.polls = newPoller(c, "volumes", c.Volumes.List)
	c.Volumes.finds = newFinder(c, "volume", c.Volumes.List)
	c.Filesystems = &FilesystemsService{c: c}
	c.Filesystems.polls = newPoller(c, "filesystems", c.Filesystems.List)
	c.Filesystems.finds = newFinder(c, "filesystem", c.Filesystems.List)
	c.Quotas = &QuotasService{c}
	c.Reservations = &ReservationsService{c}
	c.Availability = &AvailabilityService{c}
	return c, nil
}

// NewClientFromEnv is [NewClient] with the token from COMPUTE_API_TOKEN and the base URL from
// COMPUTE_API_URL, which a [WithBaseURL] among opts overrides.
func NewClientFromEnv(opts ...Option) (*Client, error) {
	token := os.Getenv(EnvToken)
	if token == "" {
		return nil, fmt.Errorf("compute: %s is not set", EnvToken)
	}
	if u := os.Getenv(EnvBaseURL); u != "" {
		opts = append([]Option{WithBaseURL(u)}, opts...)
	}
	return NewClient(token, opts...)
}

// String describes the client without its credential.
func (c *Client) String() string { return "compute.Client{" + c.baseURL + "}" }

// WithBaseURL sets the service's base URL, such as "https://api.example.com", to which request
// paths (/compute/v1/...) are appended; a trailing /compute/v1 is dropped, and any other path is
// kept as a prefix. A plain-http URL is refused unless its host is loopback or [WithInsecureHTTP]
// is given.
func WithBaseURL(rawURL string) Option {
	return func(c *config) error {
		if rawURL == "" {
			return errors.New("compute: WithBaseURL: empty URL")
		}
		c.baseURL = rawURL
		return nil
	}
}

// WithInsecureHTTP allows a plain-http base URL on a non-loopback host (a test network, say).
func WithInsecureHTTP() Option {
	return func(c *config) error { c.insecureHTTP = true; return nil }
}

// WithHTTPClient sends requests through a copy of hc: its transport, redirect policy, cookie jar
// and timeout are used, and hc itself is never modified. A nil hc is an error.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *config) error {
		if hc == nil {
			return errors.New("compute: WithHTTPClient: nil *http.Client")
		}
		c.httpClient = hc
		return nil
	}
}

// WithTimeout bounds each attempt, the response's body included (30 seconds by default); each
// retry gets a fresh timeout. Bound the whole call with the context.
func WithTimeout(d time.Duration) Option {
	return func(c *config) error {
		if d <= 0 {
			return fmt.Errorf("compute: WithTimeout: %s is not positive", d)
		}
		c.timeout = d
		return nil
	}
}

// WithUserAgent appends product (such as "my-tool/1.2") to the User-Agent "compute-go/<Version>".
func WithUserAgent(product string) Option {
	return func(c *config) error {
		if product == "" || !validHeaderValue(product) {
			return errors.New("compute: WithUserAgent: empty or containing control characters")
		}
		c.userAgent = product
		return nil
	}
}

// WithRateLimit sets the client-side limit, rps attempts per second with bursts of burst (default
// 10 and 1), paced as [NewLimiter] describes. Processes that share a token share its rate: give
// each a part of it, or share one limiter ([WithLimiter]; module
// github.com/compute-sdk/compute-go/ratelimit/redis has one on Redis).
func WithRateLimit(rps float64, burst int) Option {
	return func(c *config) error {
		if !(rps > 0) || burst < 1 {
			return fmt.Errorf("compute: WithRateLimit: rps must be > 0 and burst >= 1, got %v and %d", rps, burst)
		}
		c.rps, c.burst, c.noRateLimit = rps, burst, false
		return nil
	}
}

// WithoutRateLimit turns the client-side limiter off; a 429 still pauses the client's requests.
func WithoutRateLimit() Option {
	return func(c *config) error { c.noRateLimit = true; return nil }
}

// WithRetry sets the retry policy; zero fields take their defaults (see [DefaultRetryPolicy]).
func WithRetry(p RetryPolicy) Option {
	return func(c *config) error {
		if p.MaxRetries < 0 || p.MinWait < 0 || p.MaxWait < 0 {
			return errors.New("compute: WithRetry: negative field")
		}
		d := DefaultRetryPolicy()
		if p.MaxRetries == 0 {
			p.MaxRetries = d.MaxRetries
		}
		if p.MinWait == 0 {
			p.MinWait = d.MinWait
		}
		if p.MaxWait == 0 {
			p.MaxWait = max(d.MaxWait, p.MinWait)
		}
		if p.MaxWait < p.MinWait {
			return fmt.Errorf("compute: WithRetry: MaxWait %s is below MinWait %s", p.MaxWait, p.MinWait)
		}
		c.retry = p
		return nil
	}
}

// WithoutRetries sends every request once; a 429 comes back as an error.
func WithoutRetries() Option {
	return func(c *config) error {
		c.retry.MaxRetries = 0
		return nil
	}
}

// WithLogger logs one debug line per attempt (method, path, attempt, status, duration, request ID)
// and one per retry wait. Headers and bodies are never logged, so neither is the token.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("compute: WithLogger: nil logger")
		}
		c.logger = l
		return nil
	}
}

// WithLegacyAuthHeader sends the token in the deprecated X-Auth-Token header instead of
// Authorization: Bearer.
func WithLegacyAuthHeader() Option {
	return func(c *config) error { c.legacyAuth = true; return nil }
}

func parseBaseURL(raw string, insecure bool) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("compute: WithBaseURL: %w", err)
	}
	if u.Scheme != "https" && u.Scheme != "http" || u.Host == "" {
		return nil, fmt.Errorf("compute: WithBaseURL: %q is not an absolute http(s) URL", raw)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("compute: WithBaseURL: the URL must not carry credentials, a query or a fragment")
	}
	if u.Scheme == "http" && !insecure && !isLoopback(u.Hostname()) {
		return nil, fmt.Errorf("compute: WithBaseURL: plain http to %s would send the token in clear; use https, or WithInsecureHTTP", u.Host)
	}
	// Every request path has the API's prefix, so a base URL that ends with it is cut back.
	prefix := strings.TrimRight(u.EscapedPath(), "/")
	prefix = strings.TrimRight(strings.TrimSuffix(prefix, apiPrefix), "/")
	if u.Path, err = url.PathUnescape(prefix); err != nil {
		return nil, fmt.Errorf("compute: WithBaseURL: %w", err)
	}
	u.RawPath = prefix
	return u, nil
}

// apiPrefix begins every path of the operation table.
const apiPrefix = "/compute/v1"

// sharedTransport is the connection pool of every client without its own transport, so that a
// client per tenant or request does not keep a pool each. It is a clone of net/http's default, so
// that changes to that one elsewhere in the program do not reach it.
var sharedTransport = sync.OnceValue(func() http.RoundTripper {
	return http.DefaultTransport.(*http.Transport).Clone()
})

// isLoopback accepts a loopback IP literal and the exact name localhost; any other name
// ("api.localhost" included) may resolve anywhere.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// validHeaderValue accepts printable ASCII only (no tab, which servers may strip or split on).
func validHeaderValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b >= 0x7f {
			return false
		}
	}
	return true
}

// Limiter paces a client's requests: every attempt, retries included, waits in Wait, and every 429
// is reported to Throttled. It must be safe for concurrent use. Pass one with [WithLimiter];
// [NewLimiter] returns the default one.
type Limiter interface {
	// Wait blocks until one attempt may be sent, or until ctx ends (it returns ctx's error); it may
	// fail early when the wait would outlast ctx's deadline. The client calls the done it returns,
	// if not nil, once the attempt's response has arrived (not when the attempt got no response).
	Wait(ctx context.Context) (done func(), err error)
	// Throttled reports a 429 and the wait it asked for (its Retry-After, capped, or the backoff),
	// whether or not the request is then retried.
	Throttled(ctx context.Context, wait time.Duration)
}

// WithLimiter paces the client's requests with l, which may be shared by several clients or
// processes; [WithRateLimit] and [WithoutRateLimit] then have no effect.
func WithLimiter(l Limiter) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("compute: WithLimiter: nil Limiter")
		}
		c.limiter = l
		return nil
	}
}
