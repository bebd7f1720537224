package computetest

import (
	"net"
	"time"
)

// DefaultToken is the token a Server accepts unless WithToken says otherwise. It is a fixed, public
// value: the fake guards nothing, and a fixed token keeps examples and curl lines copyable.
const DefaultToken = "computetest-token"

// Option configures a Server.
type Option func(*config)

// config is what the options set.
type config struct {
	token     string
	readOnly  []string
	catalog   Catalog
	durations Durations
	limits    Limits
	rate      float64
	burst     int
	clock     func() time.Time
	inMemory  bool
	listener  net.Listener
	logLimit  int
	seed      uint64
}

func defaultConfig() config {
	return config{token: DefaultToken, catalog: DefaultCatalog(), clock: time.Now, seed: 1}
}

// Durations is how long each lifecycle transition takes on the server's clock. The zero value makes
// every transition finish at once: a create answers "creating" and the next read shows "active".
type Durations struct {
	// InstanceCreate is creating -> active.
	InstanceCreate time.Duration
	// InstanceStop is stopping -> stopped.
	InstanceStop time.Duration
	// InstanceStart is starting -> active.
	InstanceStart time.Duration
	// InstanceReset is resetting -> active.
	InstanceReset time.Duration
	// InstanceDelete is deleting -> gone (404).
	InstanceDelete time.Duration
	// SecurityGroupCreate is creating -> created.
	SecurityGroupCreate time.Duration
	// FloatingIPCreate is creating -> created; the address is assigned at the end.
	FloatingIPCreate time.Duration
}

// UniformDurations gives every transition the same duration d.
func UniformDurations(d time.Duration) Durations {
	return Durations{
		InstanceCreate: d, InstanceStop: d, InstanceStart: d, InstanceReset: d, InstanceDelete: d,
		SecurityGroupCreate: d, FloatingIPCreate: d,
	}
}

// Limits are the account quotas the fake enforces. Zero means unlimited, the default.
type Limits struct {
	// MaxInstances refuses a create beyond this many instances with code 02010.
	MaxInstances int
	// MaxFloatingIPs refuses a create beyond this many floating IPs with code 02049.
	MaxFloatingIPs int
	// MaxSnapshotsPerInstance refuses a snapshot beyond this many per instance with code 02012.
	MaxSnapshotsPerInstance int
}

// WithToken sets the token the server accepts, in place of DefaultToken.
func WithToken(token string) Option { return func(c *config) { c.token = token } }

// WithReadOnlyToken registers another token that may read but not write: a POST, PUT, PATCH or
// DELETE made with it is refused with 403 and code 02043.
func WithReadOnlyToken(token string) Option {
	return func(c *config) { c.readOnly = append(c.readOnly, token) }
}

// WithCatalog replaces the seeded regions, instance types, images, SSH keys and volumes.
func WithCatalog(cat Catalog) Option { return func(c *config) { c.catalog = cat.clone() } }

// WithDurations sets how long lifecycle transitions take (see Durations).
func WithDurations(d Durations) Option { return func(c *config) { c.durations = d } }

// WithLimits sets account quotas (see Limits).
func WithLimits(l Limits) Option { return func(c *config) { c.limits = l } }

// WithRateLimit makes the server enforce the service's rate limit: on average rps requests per
// second per token, with bursts of up to burst requests (burst <= 0 means one second's worth). A
// request over the limit is answered 429 with a Retry-After header and is not processed. rps <= 0
// turns the limit off, the default of NewServer.
func WithRateLimit(rps float64, burst int) Option {
	return func(c *config) { c.rate, c.burst = rps, burst }
}

// WithClock sets the server's clock, which timestamps and transitions read. The default is time.Now,
// which inside a testing/synctest bubble is the bubble's fake clock. Server.Advance moves any clock
// forward.
func WithClock(now func() time.Time) Option { return func(c *config) { c.clock = now } }

// WithInMemoryNetwork serves over an in-memory network instead of a loopback socket. Only clients
// from Server.Client, Server.NewClient and Server.HTTPClient reach it, and the whole exchange can run
// inside a testing/synctest bubble (a real socket would stop the bubble's fake clock from advancing).
func WithInMemoryNetwork() Option { return func(c *config) { c.inMemory = true } }

// WithSeed seeds the random choices of the server: which requests a probabilistic fault rule hits.
// The default seed is 1, so a run is repeatable.
func WithSeed(seed uint64) Option { return func(c *config) { c.seed = seed } }

// WithRequestLogLimit keeps only the last n requests in the log that Requests returns, so that a
// long-running server (compute-fake) does not grow without bound. The default, 0, keeps them all,
// which is what a test wants.
func WithRequestLogLimit(n int) Option { return func(c *config) { c.logLimit = n } }
