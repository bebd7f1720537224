package compute

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkFloatingIP compares the SDK's result with the golden response's floating IP.
func checkFloatingIP(zeroOK ...string) func(t *testing.T, result any, respBody []byte) {
	return func(t *testing.T, result any, respBody []byte) {
		want := requireFullyMapped[FloatingIP](t, envelopeItem(t, respBody, "floating_ip"), zeroOK...)
		require.Equal(t, &want, result)
	}
}

func TestFloatingIPGolden(t *testing.T) {
	t.Parallel()
	cases := []goldenCase{
		{
			name:   "floating_ip_create",
			method: "POST", path: "/compute/v1/floating-ips",
			reqFile: "floating_ip_create_request.json",
			status:  http.StatusCreated, respFile: "floating_ip_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.FloatingIPs.Create(ctx, &FloatingIPCreateRequest{
					Name: "web-ip", Description: "Public entry of the web tier", Region: "eu-west-1",
				})
			},
			// The contract's create response: status creating, no address yet, unattached.
			check: func(t *testing.T, result any, respBody []byte) {
				checkFloatingIP("IPAddress", "Instance")(t, result, respBody)
				ip := result.(*FloatingIP)
				assert.Equal(t, FloatingIPStatusCreating, ip.Status)
				assert.Empty(t, ip.IPAddress)
				assert.Nil(t, ip.Instance)
			},
		},
		{
			name:   "floating_ip_get",
			method: "GET", path: "/compute/v1/floating-ips/fip-5c1d9e",
			status: http.StatusOK, respFile: "floating_ip_get_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.FloatingIPs.Get(ctx, "fip-5c1d9e")
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkFloatingIP()(t, result, respBody)
				ip := result.(*FloatingIP)
				assert.Equal(t, &Ref{ID: "i-8b2f41", Name: "web-1"}, ip.Instance)
				assert.Equal(t, time.Date(2024, 5, 1, 10, 22, 31, 456e6, time.UTC), ip.UpdatedAt)
			},
		},
		{
			name:   "floating_ip_list",
			method: "GET", path: "/compute/v1/floating-ips", query: "",
			status: http.StatusOK, respFile: "floating_ip_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.FloatingIPs.List(ctx, nil)
			},
			check: func(t *testing.T, result any, respBody []byte) {
				p := result.(*Page[FloatingIP])
				require.Len(t, p.Items, 2)
				assert.Equal(t, requireFullyMapped[FloatingIP](t, envelopeItem(t, respBody, "floating_ips")), p.Items[0])
				assert.Equal(t, "fip-a04b33", p.Items[1].ID)
				assert.Empty(t, p.Items[1].IPAddress, "a null ip_address decodes to empty")
				assert.Nil(t, p.Items[1].Instance, "a null instance decodes to nil")
				assert.Equal(t, 2, p.TotalCount)
				assert.Equal(t, 1, p.Page)
				assert.Equal(t, 50, p.PerPage)
			},
		},
		{
			name:   "floating_ip_list_page",
			method: "GET", path: "/compute/v1/floating-ips", query: "page=3&per_page=100",
			status: http.StatusOK, respFile: "floating_ip_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.FloatingIPs.List(ctx, &ListOptions{Page: 3, PerPage: 100})
			},
		},
		{
			name:   "floating_ip_update",
			method: "PATCH", path: "/compute/v1/floating-ips/fip-5c1d9e",
			reqFile: "floating_ip_update_request.json",
			status:  http.StatusOK, respFile: "floating_ip_update_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.FloatingIPs.Update(ctx, "fip-5c1d9e", &FloatingIPUpdateRequest{Name: Ptr("web-ip-2"), Description: Ptr("")})
			},
			check: checkFloatingIP("Description"),
		},
		{
			name:   "floating_ip_update_description_only",
			method: "PATCH", path: "/compute/v1/floating-ips/fip-5c1d9e",
			reqFile: "floating_ip_update_description_only_request.json",
			status:  http.StatusOK, respFile: "floating_ip_get_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.FloatingIPs.Update(ctx, "fip-5c1d9e", &FloatingIPUpdateRequest{Description: Ptr("Public entry of the web tier")})
			},
			check: checkFloatingIP(),
		},
		{
			name:   "floating_ip_delete",
			method: "DELETE", path: "/compute/v1/floating-ips/fip-5c1d9e",
			status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.FloatingIPs.Delete(ctx, "fip-5c1d9e")
			},
		},
	}
	runGoldenCases(t, cases)
}

func TestFloatingIPCreateDefaultsVersionOnACopy(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, serveJSON(golden(t, "floating_ip_create_response.json")))
	req := &FloatingIPCreateRequest{Name: "web-ip", Region: "eu-west-1"}
	_, err := c.FloatingIPs.Create(context.Background(), req)
	require.NoError(t, err)
	require.JSONEq(t, `{"name":"web-ip","region":"eu-west-1","version":"ipv4"}`, string(rec.all()[0].Body))
	assert.Equal(t, &FloatingIPCreateRequest{Name: "web-ip", Region: "eu-west-1"}, req, "the caller's request is never changed")
}

func TestFloatingIPCreateIPv6IsLeftToTheService(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, http.StatusBadRequest, map[string]string{"code": "02075", "message": "Floating IP version unavailable"})
	})
	_, err := c.FloatingIPs.Create(context.Background(), &FloatingIPCreateRequest{Name: "v6", Region: "eu-west-1", Version: IPVersionIPv6})
	require.ErrorIs(t, err, CodeFloatingIPVersionUnavailable)
	require.ErrorIs(t, err, ErrBadRequest)
	require.Equal(t, 1, rec.count())
	assert.JSONEq(t, `{"name":"v6","region":"eu-west-1","version":"ipv6"}`, string(rec.all()[0].Body))
}

func TestFloatingIPUnknownValuesRoundTrip(t *testing.T) {
	t.Parallel()
	in := `{"id":"fip-1","name":"n","description":"d","ip_address":"2001:db8::1","is_public":false,` +
		`"version":"ipv7","region":"eu-west-1","status":"attaching","instance":{"id":"i-1","name":"web-1"},` +
		`"created_at":"2024-05-01T10:20:30.123Z","updated_at":"2024-05-01T10:20:31.001Z"}`
	var ip FloatingIP
	require.NoError(t, json.Unmarshal([]byte(in), &ip))
	assert.Equal(t, IPVersion("ipv7"), ip.Version)
	assert.Equal(t, FloatingIPStatus("attaching"), ip.Status)
	out, err := json.Marshal(ip)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))
}

func TestFloatingIPValidation(t *testing.T) {
	t.Parallel()
	create := func(req *FloatingIPCreateRequest) func(context.Context, *Client) error {
		return func(ctx context.Context, c *Client) error {
			_, err := c.FloatingIPs.Create(ctx, req)
			return err
		}
	}
	update := func(id string, req *FloatingIPUpdateRequest) func(context.Context, *Client) error {
		return func(ctx context.Context, c *Client) error {
			_, err := c.FloatingIPs.Update(ctx, id, req)
			return err
		}
	}
	runRefused(t, []refusedCase{
		{"create nil request", "request", create(nil)},
		{"create empty name", "name", create(&FloatingIPCreateRequest{Region: "eu-west-1"})},
		{"create blank name", "name", create(&FloatingIPCreateRequest{Name: "\t", Region: "eu-west-1"})},
		{"create empty region", "region", create(&FloatingIPCreateRequest{Name: "ip"})},
		{"create version ipv5", "version", create(&FloatingIPCreateRequest{Name: "ip", Region: "eu-west-1", Version: "ipv5"})},
		{"create version IPv4", "version", create(&FloatingIPCreateRequest{Name: "ip", Region: "eu-west-1", Version: "IPv4"})},
		{"update nil request", "request", update("fip-1", nil)},
		{"update no field", "request", update("fip-1", &FloatingIPUpdateRequest{})},
		{"update empty name", "name", update("fip-1", &FloatingIPUpdateRequest{Name: Ptr("")})},
		{"update blank name", "name", update("fip-1", &FloatingIPUpdateRequest{Name: Ptr(" "), Description: Ptr("d")})},
		{"update empty id", "floating_ip_id", update("", &FloatingIPUpdateRequest{Name: Ptr("ip")})},
		{"get empty id", "floating_ip_id", func(ctx context.Context, c *Client) error {
			_, err := c.FloatingIPs.Get(ctx, "")
			return err
		}},
		{"delete empty id", "floating_ip_id", func(ctx context.Context, c *Client) error {
			return c.FloatingIPs.Delete(ctx, "")
		}},
		{"wait empty id", "floating_ip_id", func(ctx context.Context, c *Client) error {
			_, err := c.FloatingIPs.WaitForStatus(ctx, "", FloatingIPStatusCreated)
			return err
		}},
		{"wait callback of another type", "on_update", func(ctx context.Context, c *Client) error {
			_, err := c.FloatingIPs.WaitForStatus(ctx, "fip-1", FloatingIPStatusCreated, OnUpdate(func(*SecurityGroup) {}))
			return err
		}},
		{"list per_page 101", "per_page", func(ctx context.Context, c *Client) error {
			_, err := c.FloatingIPs.List(ctx, &ListOptions{PerPage: 101})
			return err
		}},
	})
}

func TestFloatingIPUpdateSendsOnlyWhatIsSet(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		req  FloatingIPUpdateRequest
		want string
	}{
		{FloatingIPUpdateRequest{Name: Ptr("a")}, `{"name":"a"}`},
		{FloatingIPUpdateRequest{Description: Ptr("")}, `{"description":""}`},
		{FloatingIPUpdateRequest{Name: Ptr("a"), Description: Ptr("b")}, `{"name":"a","description":"b"}`},
	} {
		require.NoError(t, tc.req.Validate())
		b, err := json.Marshal(tc.req)
		require.NoError(t, err)
		assert.JSONEq(t, tc.want, string(b))
	}
}

func TestFloatingIPIDIsPathEscaped(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	require.NoError(t, c.FloatingIPs.Delete(context.Background(), "..x?y"))
	require.NoError(t, c.FloatingIPs.Delete(context.Background(), "a b#c"))
	reqs := rec.all()
	require.Len(t, reqs, 2)
	assert.Equal(t, "/compute/v1/floating-ips/..x%3Fy", reqs[0].Path)
	assert.Equal(t, "/compute/v1/floating-ips/a%20b%23c", reqs[1].Path)
}

func TestFloatingIPAllStopsWhenTheLoopBreaks(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		item := map[string]any{"id": "fip-" + strconv.Itoa(page), "status": "created"}
		replyJSON(w, http.StatusOK, map[string]any{"floating_ips": []any{item}, "total_count": 3, "page": page, "per_page": 1})
	})
	var got []string
	for ip, err := range c.FloatingIPs.All(context.Background(), &ListOptions{PerPage: 1}) {
		require.NoError(t, err)
		got = append(got, ip.ID)
		if len(got) == 2 {
			break
		}
	}
	assert.Equal(t, []string{"fip-1", "fip-2"}, got)
	assert.Equal(t, 2, rec.count(), "no page is fetched after the loop breaks")
}

// fipResponse is a get response for a floating IP; an empty address is sent as null.
func fipResponse(status FloatingIPStatus, address string) map[string]any {
	var addr any
	if address != "" {
		addr = address
	}
	return map[string]any{"floating_ip": map[string]any{
		"id": "fip-1", "name": "web-ip", "description": "", "ip_address": addr, "is_public": true,
		"version": "ipv4", "region": "eu-west-1", "status": status, "instance": nil,
		"created_at": "2024-05-01T10:20:30.123Z", "updated_at": "2024-05-01T10:20:30.123Z",
	}}
}

func TestFloatingIPWaitForCreatedReturnsTheAddress(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var gets atomic.Int32
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			if gets.Add(1) == 1 {
				replyJSON(w, http.StatusOK, fipResponse(FloatingIPStatusCreating, ""))
				return
			}
			replyJSON(w, http.StatusOK, fipResponse(FloatingIPStatusCreated, "203.0.113.10"))
		})
		var seen []string
		start := time.Now()
		ip, err := c.FloatingIPs.WaitForStatus(context.Background(), "fip-1", FloatingIPStatusCreated,
			OnUpdate(func(ip *FloatingIP) { seen = append(seen, string(ip.Status)+" "+ip.IPAddress) }))
		require.NoError(t, err)
		assert.Equal(t, "203.0.113.10", ip.IPAddress)
		assert.Equal(t, FloatingIPStatusCreated, ip.Status)
		assert.Equal(t, []string{"creating ", "created 203.0.113.10"}, seen)
		reqs := rec.all()
		require.Len(t, reqs, 2)
		for _, r := range reqs {
			assert.Equal(t, "GET", r.Method)
			assert.Equal(t, "/compute/v1/floating-ips/fip-1", r.Path)
		}
		elapsed := time.Since(start)
		assert.GreaterOrEqual(t, elapsed, DefaultPollMin, "the second poll waits")
		assert.Less(t, elapsed, DefaultPollMax)
	})
}

func TestFloatingIPWaitEndsAtOnceOnNotFound(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, http.StatusNotFound, map[string]string{"code": "02055", "message": "Floating IP not found"})
		})
		_, err := c.FloatingIPs.WaitForStatus(context.Background(), "fip-1", FloatingIPStatusCreated)
		require.ErrorIs(t, err, ErrNotFound)
		require.ErrorIs(t, err, CodeFloatingIPNotFound)
		assert.Equal(t, 1, rec.count())
	})
}
