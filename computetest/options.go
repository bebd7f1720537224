package computetest

import (
	"net"
	"time"

	"github.com/compute-sdk/compute-go/internal/fake"
)

// DefaultToken is the token a Server accepts unless WithToken says otherwise. It is a fixed, public
// value: the fake guards nothing, and a fixed token keeps examples and curl lines copyable.
const DefaultToken = fake.DefaultToken

// Option configures a Server.
type Option func(*config)

// config is what the options set.
type config struct {
	engine   fake.Config
	inMemory bool
	listener net.Listener
}

// Durations is how long each lifecycle transition takes on the server's clock. The zero value makes
// every transition finish at once: a create responds "creating" and the next read shows "active".
type Durations = fake.Durations

// UniformDurations gives every transition the same duration d.
func UniformDurations(d time.Duration) Durations { return fake.UniformDurations(d) }

// Limits are the account quotas the fake enforces. Zero means unlimited, the default.
type Limits = fake.Limits

// WithToken sets the token the server accepts, in place of DefaultToken.
func WithToken(token string) Option { return func(c *config) { c.engine.Token = token } }

// WithReadOnlyToken registers another token that may read but not write: a POST, PUT, PATCH or
// DELETE made with it is refused with 403 and code 02043.
func WithReadOnlyToken(token string) Option {
	return func(c *config) { c.engine.ReadOnly = append(c.engine.ReadOnly, token) }
}

// WithCatalog replaces the catalogue the server starts with: regions, instance types, images, SSH
// keys, volumes and reservations.
func WithCatalog(cat Catalog) Option {
	return func(c *config) { cp := cat.Clone(); c.engine.Catalog = &cp }
}

// WithDurations sets how long lifecycle transitions take (see Durations).
func WithDurations(d Durations) Option { return func(c *config) { c.engine.Durations = d } }

// WithLimits sets account quotas (see Limits).
func WithLimits(l Limits) Option { return func(c *config) { c.engine.Limits = l } }

// WithRateLimit makes the server enforce the service's rate limit: on average rps requests per
// second per token, with bursts of up to burst requests (burst <= 0 means one second's worth). A
// request over the limit gets a 429 with a Retry-After header and the error body {code: "02009",
// message} and is not processed. rps <= 0 turns the limit off, the default of NewServer.
func WithRateLimit(rps float64, burst int) Option {
	return func(c *config) { c.engine.Rate, c.engine.Burst = rps, burst }
}

// WithClock sets the server's clock, which timestamps and transitions read. The default is time.Now,
// which inside a testing/synctest bubble is the bubble's fake clock. Server.Advance moves any clock
// forward.
func WithClock(now func() time.Time) Option { return func(c *config) { c.engine.Clock = now } }

// WithInMemoryNetwork serves over an in-memory network instead of a loopback socket. Only clients
// from Server.Client, Server.NewClient and Server.HTTPClient reach it, and the whole exchange can run
// inside a testing/synctest bubble (a real socket would stop the bubble's fake clock from advancing).
func WithInMemoryNetwork() Option { return func(c *config) { c.inMemory = true } }

// WithListener serves on l (for example a listener on a fixed port) instead of a fresh loopback
// port. The server closes l when it closes.
func WithListener(l net.Listener) Option { return func(c *config) { c.listener = l } }

// WithSeed seeds the random choices of the server: which requests a probabilistic fault rule hits.
// The default is 1, so a run is repeatable.
func WithSeed(seed uint64) Option { return func(c *config) { c.engine.Seed = seed } }

// WithRequestLogLimit keeps only the last n requests in the log that Requests returns, so that a
// long-running server (compute-fake) does not grow without bound. The default, 0, keeps them all,
// which is what a test wants.
func WithRequestLogLimit(n int) Option { return func(c *config) { c.engine.LogLimit = n } }

// WithControl enables the control endpoint under /_fake/ (see the package documentation), guarded
// by its own token, which must differ from the API token. Without this option /_fake/ paths get
// 404 like any unknown path.
func WithControl(token string) Option { return func(c *config) { c.engine.ControlToken = token } }

// Catalog is what the fake offers besides the resources created through the API (see
// DefaultCatalog). Its JSON form is the format of compute-fake's -catalog file.
type Catalog = fake.Catalog

// Region is a region of the Catalog.
type Region = fake.Region

// InstanceType is an instance type of the Catalog and where it runs.
type InstanceType = fake.InstanceType

// Image is a public image of the Catalog.
type Image = fake.Image

// SSHKey is an SSH key of the Catalog.
type SSHKey = fake.SSHKey

// Volume is a volume of the Catalog. The API shows every volume as created (the service's volume
// statuses have no "available"); Status here only says whether it is attachable.
type Volume = fake.Volume

// Reservation is a reservation of the Catalog: GET /reservations lists it, and an instance create
// or update takes its ID as reservation_id.
type Reservation = fake.Reservation

// The statuses of a catalogue Volume.
const (
	// VolumeAvailable is a volume that can be attached.
	VolumeAvailable = fake.VolumeAvailable
	// VolumeInUse is a volume attached to an instance.
	VolumeInUse = fake.VolumeInUse
	// VolumeLocked is a volume that cannot be attached or detached (02046).
	VolumeLocked = fake.VolumeLocked
)

// DefaultCatalog is the catalogue a Server starts with unless WithCatalog replaces it: the service's
// seven regions (EUC-DE-MUC-1, EUW-GB-MNC-1, EUW-NL-AMS-1, NA-CA-FTS-1, NA-CA-MNZ-1, NA-CA-PRG-1,
// NORD-NO-KRS-1); instance types vcpu-2_memory-4g, vcpu-4_memory-8g and vcpu-8_memory-32g in every
// region and the GPU type vcpu-16_memory-128g_nvidia-h100-1 only in EUC-DE-MUC-1; images of the three
// public types (slugs ubuntu-24.04, debian-12, windows-server-2022 (which vcpu-2_memory-4g cannot
// run), the cloud image ubuntu with versions 22.04 and 24.04 ("ubuntu:24.04"), docker, and
// ubuntu-cuda-12 (only the GPU type runs it)); SSH keys key-laptop and key-ci; five volumes of
// 10 GiB, one locked; and the reservation res-krs-small for two vcpu-2_memory-4g instances in
// NORD-NO-KRS-1.
func DefaultCatalog() Catalog { return fake.DefaultCatalog() }

// ParseCatalog reads a catalogue in its JSON form, the format of compute-fake's -catalog file and
// of its -print-catalog output. It refuses unknown keys and a catalogue that contradicts itself (no
// region; a duplicate id; a type, image or volume in a region it does not list; an image type other
// than base-os, cloud-image or preconfigured; a volume status other than available or locked).
func ParseCatalog(b []byte) (Catalog, error) { return fake.ParseCatalog(b) }
