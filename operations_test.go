package compute

import (
	"context"
	"errors"
	"iter"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// opCase is one public operation, called with valid input (call) and with input it must refuse
// before sending (invalid, naming field).
type opCase struct {
	name       string
	idempotent bool
	call       func(context.Context, *Client) error
	invalid    func(context.Context, *Client) error
	field      string
}

// firstErr drains a sequence and returns its first error.
func firstErr[T any](seq iter.Seq2[T, error]) error {
	for _, err := range seq {
		if err != nil {
			return err
		}
	}
	return nil
}

func allOperations() []opCase {
	inst := &InstanceCreateRequest{Name: "web", Hostname: "web", Type: "t1", Region: "r1", Image: "ubuntu-24.04", SSHKeys: []string{"k1"}}
	badPage := &ListOptions{PerPage: 101}
	return append([]opCase{
		{"Instances.Create", false,
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.Create(ctx, inst)) },
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.Create(ctx, &InstanceCreateRequest{Name: "web", Hostname: "web", Type: "t1", Region: "r1", SSHKeys: []string{"k"}}))
			}, "image"},
		{"Instances.Get", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.Get(ctx, "i-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.Get(ctx, "")) }, "instance_id"},
		{"Instances.List", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.List(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.List(ctx, badPage)) }, "per_page"},
		{"Instances.All", true,
			func(ctx context.Context, c *Client) error { return firstErr(c.Instances.All(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return firstErr(c.Instances.All(ctx, badPage)) }, "per_page"},
		{"Instances.Update", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.Update(ctx, "i-1", &InstanceUpdateRequest{Name: Ptr("web-2")}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.Update(ctx, "i-1", &InstanceUpdateRequest{DiskSize: Ptr(40)}))
			}, "disk_size"},
		{"Instances.Delete", true,
			func(ctx context.Context, c *Client) error { return c.Instances.Delete(ctx, "i-1") },
			func(ctx context.Context, c *Client) error { return c.Instances.Delete(ctx, "") }, "instance_id"},
		{"Instances.Actions", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.Actions(ctx, "i-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.Instances.Actions(ctx, "")) }, "instance_id"},
		{"Instances.PerformAction", false,
			func(ctx context.Context, c *Client) error { return c.Instances.PerformAction(ctx, "i-1", ActionReset) },
			func(ctx context.Context, c *Client) error { return c.Instances.PerformAction(ctx, "i-1", "reboot") }, "action"},
		{"Instances.Start", false,
			func(ctx context.Context, c *Client) error { return c.Instances.Start(ctx, "i-1") },
			func(ctx context.Context, c *Client) error { return c.Instances.Start(ctx, "") }, "instance_id"},
		{"Instances.Stop", false,
			func(ctx context.Context, c *Client) error { return c.Instances.Stop(ctx, "i-1") },
			func(ctx context.Context, c *Client) error { return c.Instances.Stop(ctx, "") }, "instance_id"},
		{"Instances.Reset", false,
			func(ctx context.Context, c *Client) error { return c.Instances.Reset(ctx, "i-1") },
			func(ctx context.Context, c *Client) error { return c.Instances.Reset(ctx, "") }, "instance_id"},
		{"Instances.WaitForStatus", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.WaitForStatus(ctx, "i-1", InstanceStatusActive))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Instances.WaitForStatus(ctx, "", InstanceStatusActive))
			}, "instance_id"},
		{"Snapshots.Create", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Snapshots.Create(ctx, "i-1", &SnapshotCreateRequest{Name: "nightly"}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Snapshots.Create(ctx, "i-1", &SnapshotCreateRequest{}))
			}, "name"},
		{"Snapshots.ListByInstance", true,
			func(ctx context.Context, c *Client) error { return noErr(c.Snapshots.ListByInstance(ctx, "i-1", nil)) },
			func(ctx context.Context, c *Client) error { return noErr(c.Snapshots.ListByInstance(ctx, "", nil)) }, "instance_id"},
		{"Snapshots.AllByInstance", true,
			func(ctx context.Context, c *Client) error {
				return firstErr(c.Snapshots.AllByInstance(ctx, "i-1", nil))
			},
			func(ctx context.Context, c *Client) error {
				return firstErr(c.Snapshots.AllByInstance(ctx, "i-1", badPage))
			}, "per_page"},
		{"SecurityGroups.Create", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.SecurityGroups.Create(ctx, &SecurityGroupCreateRequest{Name: "web", Region: "r1"}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.SecurityGroups.Create(ctx, &SecurityGroupCreateRequest{Name: "default", Region: "r1"}))
			}, "name"},
		{"SecurityGroups.Get", true,
			func(ctx context.Context, c *Client) error { return noErr(c.SecurityGroups.Get(ctx, "sg-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.SecurityGroups.Get(ctx, "")) }, "security_group_id"},
		{"SecurityGroups.List", true,
			func(ctx context.Context, c *Client) error { return noErr(c.SecurityGroups.List(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return noErr(c.SecurityGroups.List(ctx, badPage)) }, "per_page"},
		{"SecurityGroups.All", true,
			func(ctx context.Context, c *Client) error { return firstErr(c.SecurityGroups.All(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return firstErr(c.SecurityGroups.All(ctx, badPage)) }, "per_page"},
		{"SecurityGroups.Update", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.SecurityGroups.Update(ctx, "sg-1", &SecurityGroupUpdateRequest{Name: "web"}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.SecurityGroups.Update(ctx, "sg-1", &SecurityGroupUpdateRequest{Name: "web",
					Rules: []SecurityGroupRule{{Protocol: "gre", Direction: DirectionIngress}}}))
			}, "rules[0].protocol"},
		{"SecurityGroups.Delete", true,
			func(ctx context.Context, c *Client) error { return c.SecurityGroups.Delete(ctx, "sg-1") },
			func(ctx context.Context, c *Client) error { return c.SecurityGroups.Delete(ctx, "") }, "security_group_id"},
		{"SecurityGroups.WaitForStatus", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.SecurityGroups.WaitForStatus(ctx, "sg-1", SecurityGroupStatusCreated))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.SecurityGroups.WaitForStatus(ctx, "", SecurityGroupStatusCreated))
			}, "security_group_id"},
		{"FloatingIPs.Create", false,
			func(ctx context.Context, c *Client) error {
				return noErr(c.FloatingIPs.Create(ctx, &FloatingIPCreateRequest{Name: "ip", Region: "r1"}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.FloatingIPs.Create(ctx, &FloatingIPCreateRequest{Name: "ip", Region: "r1", Version: "ipv5"}))
			}, "version"},
		{"FloatingIPs.Get", true,
			func(ctx context.Context, c *Client) error { return noErr(c.FloatingIPs.Get(ctx, "f-1")) },
			func(ctx context.Context, c *Client) error { return noErr(c.FloatingIPs.Get(ctx, "")) }, "floating_ip_id"},
		{"FloatingIPs.List", true,
			func(ctx context.Context, c *Client) error { return noErr(c.FloatingIPs.List(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return noErr(c.FloatingIPs.List(ctx, badPage)) }, "per_page"},
		{"FloatingIPs.All", true,
			func(ctx context.Context, c *Client) error { return firstErr(c.FloatingIPs.All(ctx, nil)) },
			func(ctx context.Context, c *Client) error { return firstErr(c.FloatingIPs.All(ctx, badPage)) }, "per_page"},
		{"FloatingIPs.Update", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.FloatingIPs.Update(ctx, "f-1", &FloatingIPUpdateRequest{Description: Ptr("")}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.FloatingIPs.Update(ctx, "f-1", &FloatingIPUpdateRequest{}))
			}, "request"},
		{"FloatingIPs.Delete", true,
			func(ctx context.Context, c *Client) error { return c.FloatingIPs.Delete(ctx, "f-1") },
			func(ctx context.Context, c *Client) error { return c.FloatingIPs.Delete(ctx, "") }, "floating_ip_id"},
		{"FloatingIPs.WaitForStatus", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.FloatingIPs.WaitForStatus(ctx, "f-1", FloatingIPStatusCreated))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.FloatingIPs.WaitForStatus(ctx, "", FloatingIPStatusCreated))
			}, "floating_ip_id"},
		{"Images.List", true,
			func(ctx context.Context, c *Client) error {
				return noErr(c.Images.List(ctx, &ImageListOptions{Type: ImageTypeBaseOS}))
			},
			func(ctx context.Context, c *Client) error {
				return noErr(c.Images.List(ctx, &ImageListOptions{ListOptions: ListOptions{Page: -1}}))
			}, "page"},
		{"Images.All", true,
			func(ctx context.Context, c *Client) error { return firstErr(c.Images.All(ctx, nil)) },
			func(ctx context.Context, c *Client) error {
				return firstErr(c.Images.All(ctx, &ImageListOptions{ListOptions: *badPage}))
			}, "per_page"},
		{"OpenAPI", true,
			func(ctx context.Context, c *Client) error { return noErr(c.OpenAPI(ctx)) },
			nil, ""},
	}, familyOperations()...)
}

// TestEveryOperationThroughTheSharedFailureCases walks every public operation through: refused input
// (no request), a 404, a 429 then success, a non-JSON 500, and a context cancelled before the call.
func TestEveryOperationThroughTheSharedFailureCases(t *testing.T) {
	t.Parallel()
	for _, op := range allOperations() {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			t.Run("validation error without a request", func(t *testing.T) {
				if op.invalid == nil {
					t.Skip("the operation takes no input")
				}
				c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { replyRaw(w, 200, universalResponse) })
				err := op.invalid(context.Background(), c)
				var ve *ValidationError
				require.ErrorAs(t, err, &ve)
				assert.Equal(t, op.field, ve.Field)
				assert.ErrorIs(t, err, ErrInvalidRequest)
				assert.Zero(t, rec.count(), "no request may be sent")
			})
			t.Run("404 is ErrNotFound", func(t *testing.T) {
				c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
					replyJSON(w, 404, map[string]string{"code": "02008", "message": "Instance not found"})
				})
				err := op.call(context.Background(), c)
				assert.ErrorIs(t, err, ErrNotFound)
				assert.ErrorIs(t, err, CodeInstanceNotFound)
				assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a 404 is a known outcome")
				requireNoToken(t, err.Error())
				assert.Equal(t, 1, rec.count())
			})
			t.Run("429 then success", func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					c, rec := newTestClient(t, sequence(serveJSON([]byte(universalResponse)), rateLimited("3")), WithRetry(DefaultRetryPolicy()))
					// A fake-time deadline turns a waiter that never matches into a failure, not a hang.
					ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
					defer cancel()
					start := time.Now()
					require.NoError(t, op.call(ctx, c))
					assert.Equal(t, 2, rec.count())
					assert.Equal(t, 3*time.Second, time.Since(start))
				})
			})
			t.Run("non-JSON 500", func(t *testing.T) {
				c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "text/html")
					replyRaw(w, 500, "<html>Internal Server Error</html>")
				})
				err := op.call(context.Background(), c)
				var apiErr *APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, 500, apiErr.StatusCode)
				assert.Equal(t, "<html>Internal Server Error</html>", apiErr.Message)
				assert.ErrorIs(t, err, ErrServer)
				assert.Equal(t, !op.idempotent, errors.Is(err, ErrOutcomeUnknown), "only a POST's 5xx leaves the outcome unknown")
				want := 1
				if op.idempotent {
					want = 5
				}
				assert.Equal(t, want, rec.count(), "a 500 is retried like a 502-504 for an idempotent operation, never for a POST")
				requireNoToken(t, err.Error())
			})
			t.Run("cancelled context", func(t *testing.T) {
				c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { replyRaw(w, 200, universalResponse) })
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				err := op.call(ctx, c)
				assert.ErrorIs(t, err, context.Canceled)
				assert.NotErrorIs(t, err, ErrOutcomeUnknown, "nothing was sent")
				assert.Zero(t, rec.count())
			})
		})
	}
}
