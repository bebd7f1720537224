package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// epoch is the fake's clock in the golden tests, so that timestamps are the same on every run.
var epoch = time.Date(2026, 1, 15, 9, 0, 0, 0, time.UTC)

// cli runs the command line in-process against a computetest server, as a user's shell would run
// the binary: its own stdout, stderr and environment, and an exit code.
type cli struct {
	t   *testing.T
	srv *computetest.Server
	env map[string]string
	// tty makes stderr a terminal: progress and notes show.
	tty bool
	// pace keeps the client-side limiter (--rate); off by default so that tests do not wait for it.
	pace bool
	// transport, when set, wraps the transport that reaches the fake.
	transport func(http.RoundTripper) http.RoundTripper
	// hc, when set, replaces the fake's HTTP client (a hostile server's own).
	hc *http.Client
	// maxWhole, when set, replaces maxWholeBytes.
	maxWhole int
	// stdout, when set, also receives what the command writes on stdout as it writes it.
	stdout io.Writer
	// fileLimiter turns the machine-wide pacing through a file on, as main has it (off by default,
	// so that tests write nothing in a cache directory).
	fileLimiter bool
	// redis replaces the limiter factory of COMPUTE_REDIS_URL.
	redis func(rawURL, token string, rps float64, warn func(error)) (compute.Limiter, func(), error)
}

// result is what one run left.
type result struct {
	stdout, stderr string
	code           int
}

// newCLI starts a fake with a fixed clock (unless opts give another) and points the environment at it.
func newCLI(t *testing.T, opts ...computetest.Option) *cli {
	t.Helper()
	srv := computetest.NewServer(append([]computetest.Option{computetest.WithClock(func() time.Time { return epoch })}, opts...)...)
	t.Cleanup(srv.Close)
	return &cli{t: t, srv: srv, env: map[string]string{
		compute.EnvBaseURL: srv.URL,
		compute.EnvToken:   srv.Token,
	}}
}

// sdk is a client of the same fake, to set a scene up.
func (c *cli) sdk() *compute.Client { return c.srv.Client() }

// run runs one command line and checks that the token shows nowhere in what it wrote.
func (c *cli) run(args ...string) result {
	return c.runContext(context.Background(), args...)
}

func (c *cli) runContext(ctx context.Context, args ...string) result {
	c.t.Helper()
	var stdout, stderr lockedBuffer
	hc := *c.srv.HTTPClient() // the server's own client is shared: change a copy
	if c.hc != nil {
		hc = *c.hc
	}
	if c.transport != nil {
		hc.Transport = c.transport(hc.Transport)
	}
	var out io.Writer = &stdout
	if c.stdout != nil {
		out = io.MultiWriter(&stdout, c.stdout)
	}
	a := &app{
		stdout:     out,
		maxWhole:   c.maxWhole,
		stderr:     &stderr,
		getenv:     func(k string) string { return c.env[k] },
		stderrTTY:  c.tty,
		httpClient: &hc,
		newClient: func(token string, opts ...compute.Option) (*compute.Client, error) {
			if !c.pace {
				opts = append(opts, compute.WithoutRateLimit())
			}
			return compute.NewClient(token, opts...)
		},
		newRedisLimiter: newRedisLimiter,
	}
	if c.redis != nil {
		a.newRedisLimiter = c.redis
	}
	if c.fileLimiter {
		a.newFileLimiter = newFileLimiter
	}
	code := a.run(ctx, args)
	r := result{stdout: stdout.String(), stderr: stderr.String(), code: code}
	for _, secret := range []string{c.srv.Token, c.env[compute.EnvToken]} {
		if secret != "" {
			assert.NotContains(c.t, r.stdout+r.stderr, secret, "the token must never be printed")
		}
	}
	return r
}

// requests lists what the fake received since the last reset, as "METHOD /path?query".
func (c *cli) requests() []string {
	var out []string
	for _, r := range c.srv.Requests() {
		line := r.Method + " " + r.Path
		if len(r.Query) > 0 {
			line += "?" + r.Query.Encode()
		}
		out = append(out, line)
	}
	return out
}

// bodies lists the bodies of the requests that had one.
func (c *cli) bodies() []string {
	var out []string
	for _, r := range c.srv.Requests() {
		if len(r.Body) > 0 {
			out = append(out, string(r.Body))
		}
	}
	return out
}

// lockedBuffer is a bytes.Buffer that a wait's callbacks and the command may write at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// golden compares got with testdata/golden/name, or rewrites the file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to write %s", path)
	assert.Equal(t, string(want), got, "golden file %s (go test -update rewrites it)", path)
}

// roundTrip checks that JSON output decodes into the SDK type of v (a pointer) and encodes back to
// the same bytes, so that a program can read it with the SDK's own types.
func roundTrip(t *testing.T, out string, v any) {
	t.Helper()
	var generic any
	require.NoError(t, json.Unmarshal([]byte(out), &generic), "the output is JSON")
	typed := reflect.New(reflect.TypeOf(v).Elem()).Interface()
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	require.NoError(t, dec.Decode(typed))
	back, err := json.MarshalIndent(typed, "", "  ")
	require.NoError(t, err)
	assert.Equal(t, out, string(back)+"\n", "the JSON output round-trips through %T", typed)
}

// publicKey returns an ed25519 public key in the authorized_keys form, made of seed bytes.
func publicKey(seed byte) string {
	var b []byte
	put := func(p []byte) {
		b = binary.BigEndian.AppendUint32(b, uint32(len(p)))
		b = append(b, p...)
	}
	put([]byte("ssh-ed25519"))
	put(bytes.Repeat([]byte{seed}, 32))
	return "ssh-ed25519 " + base64.StdEncoding.EncodeToString(b) + " test@example"
}

// writeFile writes a file in a test's temporary directory and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// The scenes the command tests start from, made with the SDK on the same fake.

const region = compute.RegionNORDNOKRS1

func mkInstance(t *testing.T, c *compute.Client) *compute.Instance {
	t.Helper()
	ctx := context.Background()
	inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{
		Name: "web-1", Hostname: "web-1", Type: "vcpu-2_memory-4g", Region: region,
		Image: "ubuntu-24.04", SSHKeys: []string{"key-ci"},
		Metadata: &compute.InstanceMetadata{StartupScript: "#!/bin/sh\necho hello\n"},
	})
	require.NoError(t, err)
	inst, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
	require.NoError(t, err)
	return inst
}

func mkGroup(t *testing.T, c *compute.Client) *compute.SecurityGroup {
	t.Helper()
	g, err := c.SecurityGroups.Create(context.Background(), &compute.SecurityGroupCreateRequest{
		Name: "ssh", Region: region, Description: "SSH in",
		Rules: []compute.SecurityGroupRule{{Protocol: compute.ProtocolTCP, Direction: compute.DirectionIngress,
			PortRangeMin: compute.Ptr(22), PortRangeMax: compute.Ptr(22)}},
	})
	require.NoError(t, err)
	return g
}

func mkFloatingIP(t *testing.T, c *compute.Client) *compute.FloatingIP {
	t.Helper()
	f, err := c.FloatingIPs.Create(context.Background(), &compute.FloatingIPCreateRequest{Name: "web-ip", Region: region})
	require.NoError(t, err)
	return f
}

func mkVolume(t *testing.T, c *compute.Client) *compute.Volume {
	t.Helper()
	v, err := c.Volumes.Create(context.Background(), &compute.VolumeCreateRequest{Name: "data", Region: region, Size: 50})
	require.NoError(t, err)
	return v
}

func mkFilesystem(t *testing.T, c *compute.Client) *compute.Filesystem {
	t.Helper()
	f, err := c.Filesystems.Create(context.Background(), &compute.FilesystemCreateRequest{Name: "shared", Region: region, Size: 100})
	require.NoError(t, err)
	return f
}

func mkSSHKey(t *testing.T, c *compute.Client) *compute.SSHKey {
	t.Helper()
	k, err := c.SSHKeys.Create(context.Background(), &compute.SSHKeyCreateRequest{Name: "deploy", Value: publicKey(7)})
	require.NoError(t, err)
	return k
}

func mkSnapshot(t *testing.T, c *compute.Client) *compute.Snapshot {
	t.Helper()
	inst := mkInstance(t, c)
	s, err := c.Snapshots.Create(context.Background(), inst.ID, &compute.SnapshotCreateRequest{Name: "web-1-snap"})
	require.NoError(t, err)
	return s
}
