package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var createWeb2 = []string{"instance", "create", "--name", "web-2", "--type", "vcpu-2_memory-4g", "--region", region,
	"--image", "ubuntu-24.04", "--ssh-key", "key-ci"}

// Every exit code of the table, each from a real failure of the fake (or, for the ones that need
// time to pass, of the fake in a synctest bubble, where retries and settle times take no real time).
func TestExitCodes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		opts   []computetest.Option
		setup  func(t *testing.T, h *cli)
		args   []string
		code   int
		stderr string
	}{
		{name: "usage: an unknown flag", args: []string{"instance", "list", "--colour"},
			code: exitUsage, stderr: "unknown flag: --colour"},
		{name: "usage: a required flag", args: []string{"volume", "create", "--name", "x"},
			code: exitUsage, stderr: `required flag(s) "region", "size" not set`},
		{name: "usage: a value the SDK refuses", args: append(createWeb2, "--disk-size", "40"),
			code: exitUsage, stderr: "invalid --disk-size: must be at least 80"},
		{name: "usage: an empty ID", args: []string{"instance", "get", ""},
			code: exitUsage, stderr: "INSTANCE_ID is empty"},
		{name: "usage: an ID that would change the path", args: []string{"instance", "wait", "../quotas", "--deleted"},
			code: exitUsage, stderr: "invalid INSTANCE_ID"},
		{name: "not found: neither an ID nor a name", args: []string{"instance", "get", "../quotas"},
			code: exitNotFound, stderr: `no instance has the ID or the name "../quotas"`},
		{name: "not found: neither an ID nor a name, in an attach", args: []string{"instance", "attach-volume", "../quotas", "vol-data-1"},
			code: exitNotFound, stderr: `no instance has the ID or the name "../quotas"`},
		{name: "not found", args: []string{"instance", "get", "ins-404"},
			code: exitNotFound, stderr: "404 Not Found"},
		{name: "conflict: termination protected", setup: func(t *testing.T, h *cli) { instanceProtected(t, h.sdk()) },
			args: []string{"instance", "delete", "ins-000001"}, code: exitConflict, stderr: "02038"},
		{name: "conflict: a name two instances share", setup: func(t *testing.T, h *cli) {
			for range 2 {
				_, err := h.sdk().Instances.Create(context.Background(), &compute.InstanceCreateRequest{Name: "web-2", Hostname: "web-2",
					Type: "vcpu-2_memory-4g", Region: region, Image: "ubuntu-24.04", SSHKeys: []string{"key-ci"}})
				require.NoError(t, err)
			}
		}, args: createWeb2, code: exitConflict, stderr: "several have the name"},
		{name: "quota", opts: []computetest.Option{computetest.WithLimits(computetest.Limits{MaxFloatingIPs: 1})},
			setup: func(t *testing.T, h *cli) { mkFloatingIP(t, h.sdk()) },
			args:  []string{"floating-ip", "create", "--name", "second", "--region", region}, code: exitQuota, stderr: "02049"},
		{name: "outcome unknown: a stop whose response is lost", setup: func(t *testing.T, h *cli) {
			instanceActive(t, h.sdk())
			h.srv.FailNext(1, computetest.Match{Method: http.MethodPost, Path: "/compute/v1/instances/*/actions"},
				computetest.Fault{DropAfterProcessing: true})
		}, args: []string{"instance", "stop", "ins-000001"}, code: exitOutcomeUnknown, stderr: "outcome unknown"},
		{name: "validation: an image the service does not have", args: []string{"instance", "create", "--name", "web-2",
			"--type", "vcpu-2_memory-4g", "--region", region, "--image", "no-such-image", "--ssh-key", "key-ci"},
			code: exitInvalid, stderr: "02006"},
		{name: "other: a write with a read-only token", opts: []computetest.Option{computetest.WithReadOnlyToken("read-only-token")},
			setup: func(t *testing.T, h *cli) { h.env[compute.EnvToken] = "read-only-token" },
			args:  []string{"volume", "create", "--name", "x", "--region", region, "--size", "1"}, code: exitOther, stderr: "403"},
		{name: "other: a wait that meets a failure status", setup: func(t *testing.T, h *cli) {
			instanceActive(t, h.sdk())
			h.srv.SetInstanceStatus("ins-000001", compute.InstanceStatusError)
		}, args: []string{"instance", "wait", "ins-000001"}, code: exitOther, stderr: `last status "error"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newCLI(t, tc.opts...)
			if tc.setup != nil {
				tc.setup(t, h)
			}
			h.srv.ResetRequests()
			r := h.run(tc.args...)
			assert.Equal(t, tc.code, r.code, "stderr: %s", r.stderr)
			assert.Contains(t, r.stderr, tc.stderr)
			assert.Empty(t, r.stdout, "a failure prints no result")
			if tc.code == exitUsage {
				assert.Empty(t, h.requests(), "a usage error sends nothing")
				assert.Contains(t, r.stderr, "--help' for usage.")
			}
		})
	}
}

// The exit codes that need time: a 429 that outlasts the retries, a 5xx that does, a create that
// was lost and made nothing (the settle time is 30 s), --timeout, and an interrupt.
func TestExitCodesOverTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		fault  computetest.Rule
		args   []string
		ctx    func() (context.Context, context.CancelFunc)
		code   int
		stderr string
	}{
		{name: "rate limited", fault: computetest.Rule{Match: computetest.Match{Method: http.MethodGet},
			Fault: computetest.Fault{Status: http.StatusTooManyRequests, RetryAfter: "2"}},
			args: []string{"instance", "list"}, code: exitRateLimited, stderr: "429"},
		{name: "other: a 503 after the retries", fault: computetest.Rule{Match: computetest.Match{Method: http.MethodGet},
			Fault: computetest.Fault{Status: http.StatusServiceUnavailable}},
			args: []string{"volume", "list"}, code: exitOther, stderr: "503"},
		{name: "not created", fault: computetest.Rule{Match: computetest.Match{Method: http.MethodPost}, Times: 3,
			Fault: computetest.Fault{Drop: true}},
			args: createWeb2, code: exitNotCreated, stderr: "no instance was created"},
		{name: "other: --timeout", fault: computetest.Rule{Match: computetest.Match{Method: http.MethodGet},
			Fault: computetest.Fault{Latency: time.Hour}},
			args: []string{"instance", "list", "--timeout", "90s"}, code: exitOther, stderr: "deadline exceeded"},
		{name: "interrupted", fault: computetest.Rule{Match: computetest.Match{Method: http.MethodGet},
			Fault: computetest.Fault{Latency: time.Hour}},
			ctx: func() (context.Context, context.CancelFunc) {
				ctx, cancel := context.WithCancel(context.Background())
				time.AfterFunc(time.Minute, cancel)
				return ctx, cancel
			},
			args: []string{"instance", "list"}, code: exitInterrupted, stderr: "context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				h := newCLI(t, computetest.WithInMemoryNetwork())
				h.srv.Inject(tc.fault)
				ctx, cancel := context.WithCancel(context.Background())
				if tc.ctx != nil {
					ctx, cancel = tc.ctx()
				}
				defer cancel()
				start := time.Now()
				r := h.runContext(ctx, tc.args...)
				assert.Equal(t, tc.code, r.code, "stderr: %s", r.stderr)
				assert.Contains(t, r.stderr, tc.stderr)
				assert.Empty(t, r.stdout)
				t.Logf("%s: %s of fake time", tc.name, time.Since(start))
			})
		})
	}
}

// A create lost before the service made anything is sent again (twice at most) rather than ending
// with exit code 9: one instance, printed, exit 0.
func TestLostCreateIsSentAgain(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := newCLI(t, computetest.WithInMemoryNetwork())
		h.srv.Inject(computetest.Rule{Match: computetest.Match{Method: http.MethodPost}, Times: 2, Fault: computetest.Fault{Drop: true}})
		r := h.run(append(createWeb2, "-o", "id")...)
		require.Equal(t, exitOK, r.code, r.stderr)
		assert.Equal(t, "ins-000001\n", r.stdout)
		all, err := h.sdk().Instances.FindByName(context.Background(), "web-2")
		require.NoError(t, err)
		assert.Len(t, all, 1, "one instance")
	})
}

// exitCode's order: the most telling sentinel wins when an error matches several.
func TestExitCodeOrder(t *testing.T) {
	t.Parallel()
	conflict := &compute.APIError{StatusCode: http.StatusBadRequest, Code: compute.CodeTerminationProtected}
	quota := &compute.APIError{StatusCode: http.StatusBadRequest, Code: compute.CodeMaxQuotaReached}
	for _, tc := range []struct {
		err  error
		code int
	}{
		{nil, exitOK},
		{errors.New("boom"), exitOther},
		{usagef("bad"), exitUsage},
		{&compute.ValidationError{Field: "name", Reason: "is required"}, exitUsage},
		{fmt.Errorf("%w: %w", compute.ErrOutcomeUnknown, &compute.APIError{StatusCode: http.StatusBadGateway}), exitOutcomeUnknown},
		{fmt.Errorf("%w: %w", compute.ErrOutcomeUnknown, conflict), exitOutcomeUnknown},
		{fmt.Errorf("lost: %w", compute.ErrNotCreated), exitNotCreated},
		{&compute.APIError{StatusCode: http.StatusTooManyRequests}, exitRateLimited},
		{quota, exitQuota},
		{conflict, exitConflict},
		{&compute.NameError{Kind: "instance", Name: "x"}, exitConflict},
		{&compute.APIError{StatusCode: http.StatusNotFound}, exitNotFound},
		{&compute.APIError{StatusCode: http.StatusBadRequest, Code: compute.CodeInvalidImage}, exitInvalid},
		{&compute.APIError{StatusCode: http.StatusForbidden}, exitOther},
		{&compute.APIError{StatusCode: http.StatusInternalServerError}, exitOther},
		{fmt.Errorf("wait: %w", context.DeadlineExceeded), exitOther},
		{fmt.Errorf("wait: %w", context.Canceled), exitInterrupted},
	} {
		assert.Equal(t, tc.code, exitCode(tc.err), "%v", tc.err)
	}
}
