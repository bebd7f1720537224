package compute

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInstancesGolden(t *testing.T) {
	t.Parallel()
	const id = "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f"
	const path = "/compute/v1/instances/" + id
	update := func(file string, req *InstanceUpdateRequest) goldenCase {
		return goldenCase{
			name: file, method: "PATCH", path: path,
			reqFile: file + "_request.json", status: http.StatusOK, respFile: "instance_update_response.json",
			call:  func(ctx context.Context, c *Client) (any, error) { return c.Instances.Update(ctx, id, req) },
			check: checkInstance,
		}
	}
	action := func(name string, a InstanceAction, do func(ctx context.Context, c *Client) error) goldenCase {
		return goldenCase{
			name: name, method: "POST", path: path + "/actions",
			reqFile: "instance_action_" + string(a) + "_request.json", status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, do(ctx, c) },
		}
	}
	cases := []goldenCase{
		{
			name: "instance_create", method: "POST", path: "/compute/v1/instances",
			reqFile: "instance_create_request.json", status: http.StatusCreated, respFile: "instance_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Instances.Create(ctx, &InstanceCreateRequest{
					Name: "web-1", Hostname: "web-1", Type: "n1.large", Region: "eu-west-1",
					PlacementOption: "AUTO", Image: "ubuntu-24.04:20240501", FloatingIP: "fip-8e2d4c6a",
					SSHKeys: []string{"key-1a2b3c"}, Volumes: []string{"vol-7a8b9c"}, SecurityGroups: []string{"sg-4d5e6f"},
					IsProtected: true, DiskSize: 100,
					Metadata: &InstanceMetadata{
						StartupScript: "#!/bin/bash\napt-get update\n",
						UserData: []UserDataItem{
							{Type: "text/cloud-config", Filename: "init.yaml", Content: "#cloud-config\npackages: [nginx]\n"},
							{Type: "text/x-shellscript", Content: "#!/bin/sh\necho hi\n"},
						},
					},
				})
			},
			check: checkInstance,
		},
		{
			// A password instead of keys, defaults left out, and an empty non-nil security group
			// list sent as [] (an instance without security groups).
			name: "instance_create_password", method: "POST", path: "/compute/v1/instances",
			reqFile: "instance_create_password_request.json", status: http.StatusCreated, respFile: "instance_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Instances.Create(ctx, &InstanceCreateRequest{
					Name: "db-1", Hostname: "db-1", Type: "n1.medium", Region: "eu-west-1", Image: "img-3b7c9d21",
					Password: "correct-horse-battery-staple", SecurityGroups: []string{},
				})
			},
			check: checkInstance,
		},
		{
			name: "instance_create_billing", method: "POST", path: "/compute/v1/instances",
			reqFile: "instance_create_billing_request.json", status: http.StatusCreated, respFile: "instance_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Instances.Create(ctx, &InstanceCreateRequest{
					Name: "train-1", Hostname: "train-1", Type: "n3-H100x8", Region: RegionNACAMNZ1, Image: "ubuntu-24.04",
					SSHKeys:     []string{"9b2e4f6a-1c3d-4e5f-8a7b-0c1d2e3f4a5b"},
					BillingType: BillingTypeReserved, DestroyOnShutdown: true, PublicIPv6: true,
					ReservationID: "rsv-8f7e6d5c", ReuseLongTermSubscription: "sub-2025-0042",
				})
			},
			check: checkInstance,
		},
		{
			name: "instance_get", method: "GET", path: path,
			status: http.StatusOK, respFile: "instance_get_response.json",
			call:  func(ctx context.Context, c *Client) (any, error) { return c.Instances.Get(ctx, id) },
			check: checkInstance,
		},
		{
			name: "instance_list", method: "GET", path: "/compute/v1/instances", query: "page=2&per_page=10",
			status: http.StatusOK, respFile: "instance_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Instances.List(ctx, &ListOptions{Page: 2, PerPage: 10})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				want := requireFullyMapped[Instance](t, envelopeItem(t, respBody, "instances"))
				p := result.(*Page[Instance])
				require.Len(t, p.Items, 2)
				require.Equal(t, want, p.Items[0])
				assert.Equal(t, "web-2", p.Items[1].Name)
				assert.Nil(t, p.Items[1].FloatingIP)
				assert.Empty(t, p.Items[1].PublicIP)
				assert.Equal(t, InstanceStatusStopped, p.Items[1].Status)
				assert.Equal(t, 12, p.TotalCount)
				assert.Equal(t, 2, p.Page)
				assert.Equal(t, 10, p.PerPage)
			},
		},
		{
			name: "instance_list_defaults", method: "GET", path: "/compute/v1/instances", query: "",
			status: http.StatusOK, respFile: "instance_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Instances.List(ctx, nil) },
		},
		update("instance_update_security_groups", &InstanceUpdateRequest{SecurityGroups: []string{"sg-4d5e6f", "sg-9a8b7c"}}),
		update("instance_update_clear_security_groups", &InstanceUpdateRequest{SecurityGroups: []string{}}),
		update("instance_update_volumes", &InstanceUpdateRequest{Volumes: []string{"vol-7a8b9c", "vol-1d2e3f"}}),
		update("instance_update_detach_volumes", &InstanceUpdateRequest{Volumes: []string{}}),
		update("instance_update_details", &InstanceUpdateRequest{Name: Ptr("web-1-renamed"), IsProtected: Ptr(false), DiskSize: Ptr(160)}),
		update("instance_update_combined", &InstanceUpdateRequest{
			SecurityGroups: []string{"sg-4d5e6f"}, Volumes: []string{},
			Name: Ptr("web-1-renamed"), IsProtected: Ptr(true), DiskSize: Ptr(160),
		}),
		update("instance_update_reservation", &InstanceUpdateRequest{ReservationID: Ptr("rsv-8f7e6d5c")}),
		{
			name: "instance_delete", method: "DELETE", path: path, status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) { return nil, c.Instances.Delete(ctx, id) },
		},
		{
			name: "instance_actions", method: "GET", path: path + "/actions",
			status: http.StatusOK, respFile: "instance_actions_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Instances.Actions(ctx, id) },
			check: func(t *testing.T, result any, _ []byte) {
				require.Equal(t, []InstanceAction{ActionStop, ActionReset}, result)
			},
		},
	}
	for _, a := range []InstanceAction{ActionStart, ActionStop, ActionReset} {
		cases = append(cases, action("instance_perform_action_"+string(a), a, func(ctx context.Context, c *Client) error {
			return c.Instances.PerformAction(ctx, id, a)
		}))
	}
	for a, do := range map[InstanceAction]func(*InstancesService, context.Context, string) error{
		ActionStart: (*InstancesService).Start, ActionStop: (*InstancesService).Stop, ActionReset: (*InstancesService).Reset,
	} {
		cases = append(cases, action("instance_"+string(a), a, func(ctx context.Context, c *Client) error {
			return do(c.Instances, ctx, id)
		}))
	}
	runGoldenCases(t, cases)
}

func TestInstanceNullsDecode(t *testing.T) {
	t.Parallel()
	respBody := golden(t, "instance_get_nulls_response.json")
	c, _ := newTestClient(t, serveJSON(respBody))
	inst, err := c.Instances.Get(context.Background(), "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f")
	require.NoError(t, err)
	assert.Nil(t, inst.FloatingIP)
	assert.Empty(t, inst.PublicIP)
	assert.Empty(t, inst.PrivateIP)
	assert.Equal(t, InstanceStatusCreating, inst.Status)
	assert.Equal(t, "web-1", inst.Name)
}

// An Instance re-encodes to the contract's shape, every key included: no omitempty drops a false, a
// zero or a null.
func TestInstanceJSONRoundTrip(t *testing.T) {
	t.Parallel()
	obj := envelopeItem(t, golden(t, "instance_get_response.json"), "instance")
	inst := requireFullyMapped[Instance](t, obj)
	out, err := json.Marshal(inst)
	require.NoError(t, err)
	// Compared decoded: a timestamp such as ".250Z" re-encodes as ".25Z".
	require.Equal(t, inst, requireFullyMapped[Instance](t, out))

	out, err = json.Marshal(Instance{})
	require.NoError(t, err)
	for _, key := range []string{`"is_protected":false`, `"floating_ip":null`, `"disk_size":0`, `"public_ip":""`} {
		assert.Contains(t, string(out), key)
	}
}

// The service has changed its status set over time: an unknown value must survive a decode and an
// encode unchanged, for statuses and actions alike.
func TestInstanceUnknownValuesRoundTrip(t *testing.T) {
	t.Parallel()
	var inst Instance
	require.NoError(t, json.Unmarshal([]byte(`{"id":"i-1","status":"shutoff"}`), &inst))
	assert.Equal(t, InstanceStatus("shutoff"), inst.Status)
	out, err := json.Marshal(inst)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"status":"shutoff"`)

	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, http.StatusOK, map[string]any{"actions": []string{"start", "rebuild"}})
	})
	actions, err := c.Instances.Actions(context.Background(), "i-1")
	require.NoError(t, err)
	assert.Equal(t, []InstanceAction{ActionStart, "rebuild"}, actions)
	out, err = json.Marshal(actions)
	require.NoError(t, err)
	assert.JSONEq(t, `["start","rebuild"]`, string(out))
}

func TestInstanceActionsEmptyAndMissing(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "empty") {
			replyJSON(w, http.StatusOK, map[string]any{"actions": []string{}})
			return
		}
		replyJSON(w, http.StatusOK, map[string]any{})
	})
	actions, err := c.Instances.Actions(context.Background(), "empty")
	require.NoError(t, err)
	assert.NotNil(t, actions)
	assert.Empty(t, actions)

	_, err = c.Instances.Actions(context.Background(), "missing")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "actions")
}

func TestInstanceGetEscapesID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{
		"a?b": "/compute/v1/instances/a%3Fb",
		"a#b": "/compute/v1/instances/a%23b",
		"a b": "/compute/v1/instances/a%20b",
	} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			c, rec := newTestClient(t, echoInstance(t))
			inst, err := c.Instances.Get(context.Background(), id)
			require.NoError(t, err)
			assert.Equal(t, id, inst.ID)
			reqs := rec.all()
			require.Len(t, reqs, 1)
			assert.Equal(t, want, reqs[0].Path)
			assert.Empty(t, reqs[0].Query)
		})
	}
}

func TestInstanceNotFound(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, http.StatusNotFound, map[string]string{"code": "02008", "message": "Instance not found"})
	})
	inst, err := c.Instances.Get(context.Background(), "i-gone")
	require.Error(t, err)
	assert.Nil(t, inst)
	assert.ErrorIs(t, err, ErrNotFound)
	assert.ErrorIs(t, err, CodeInstanceNotFound)
	assert.Equal(t, 1, rec.count())
}

func TestInstanceCreateValidation(t *testing.T) {
	t.Parallel()
	const secret = "s3cret-but-short"
	cases := []struct {
		name   string
		mutate func(r *InstanceCreateRequest)
		field  string
	}{
		{"name required", func(r *InstanceCreateRequest) { r.Name = "" }, "name"},
		{"name blank", func(r *InstanceCreateRequest) { r.Name = "  " }, "name"},
		{"hostname required", func(r *InstanceCreateRequest) { r.Hostname = "" }, "hostname"},
		{"type required", func(r *InstanceCreateRequest) { r.Type = "" }, "type"},
		{"region required", func(r *InstanceCreateRequest) { r.Region = "" }, "region"},
		{"image required", func(r *InstanceCreateRequest) { r.Image = "" }, "image"},
		{"neither keys nor password", func(r *InstanceCreateRequest) { r.SSHKeys = nil }, "ssh_keys"},
		{"empty keys and no password", func(r *InstanceCreateRequest) { r.SSHKeys = []string{} }, "ssh_keys"},
		{"keys and password", func(r *InstanceCreateRequest) { r.Password = "correct-horse-battery-staple" }, "password"},
		{"empty keys and password", func(r *InstanceCreateRequest) {
			r.SSHKeys, r.Password = []string{}, "correct-horse-battery-staple"
		}, "password"},
		{"password too short", func(r *InstanceCreateRequest) { r.SSHKeys, r.Password = nil, "s3cret-15-chars" }, "password"},
		// 15 characters, 30 bytes: the rule counts characters.
		{"password short in characters", func(r *InstanceCreateRequest) { r.SSHKeys, r.Password = nil, strings.Repeat("é", 15) }, "password"},
		{"disk below minimum", func(r *InstanceCreateRequest) { r.DiskSize = 79 }, "disk_size"},
		{"disk negative", func(r *InstanceCreateRequest) { r.DiskSize = -1 }, "disk_size"},
		{"empty ssh key id", func(r *InstanceCreateRequest) { r.SSHKeys = []string{"key-1", ""} }, "ssh_keys[1]"},
		{"empty volume id", func(r *InstanceCreateRequest) { r.Volumes = []string{" "} }, "volumes[0]"},
		{"empty security group id", func(r *InstanceCreateRequest) { r.SecurityGroups = []string{"sg-1", "sg-2", ""} }, "security_groups[2]"},
		{"startup script too large", func(r *InstanceCreateRequest) {
			r.Metadata = &InstanceMetadata{StartupScript: strings.Repeat("#", MaxStartupScriptSize+1)}
		}, "metadata.startup_script"},
		{"user data without type", func(r *InstanceCreateRequest) {
			r.Metadata = &InstanceMetadata{UserData: []UserDataItem{{Type: "text/plain", Content: "x"}, {Content: "x"}}}
		}, "metadata.user_data[1].type"},
		{"user data without content", func(r *InstanceCreateRequest) {
			r.Metadata = &InstanceMetadata{UserData: []UserDataItem{{Type: "text/cloud-config", Filename: "a.yaml"}}}
		}, "metadata.user_data[0].content"},
		{"billing type", func(r *InstanceCreateRequest) { r.BillingType = "yearly" }, "billing_type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
			req := validCreate()
			tc.mutate(req)
			inst, err := c.Instances.Create(context.Background(), req)
			assert.Nil(t, inst)
			requireInvalid(t, err, tc.field, rec)
			assert.NotContains(t, err.Error(), secret)
			assert.NotContains(t, err.Error(), "correct-horse")
			assert.NotContains(t, err.Error(), "###")
		})
	}
	t.Run("nil request", func(t *testing.T) {
		t.Parallel()
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
		_, err := c.Instances.Create(context.Background(), nil)
		requireInvalid(t, err, "request", rec)
	})
}

func TestInstanceCreateValidationAccepts(t *testing.T) {
	t.Parallel()
	cases := map[string]func(r *InstanceCreateRequest){
		"defaults":       func(r *InstanceCreateRequest) {},
		"password of 16": func(r *InstanceCreateRequest) { r.SSHKeys, r.Password = nil, strings.Repeat("p", 16) },
		"disk size 80":   func(r *InstanceCreateRequest) { r.DiskSize = 80 },
		"startup script of 64 KiB": func(r *InstanceCreateRequest) {
			r.Metadata = &InstanceMetadata{StartupScript: strings.Repeat("#", 64<<10)}
		},
		"no security groups": func(r *InstanceCreateRequest) { r.SecurityGroups = []string{} },
	}
	for _, b := range []BillingType{BillingTypeOnDemand, BillingTypePrepaidMonthly, BillingTypePrepaid3Month,
		BillingTypePrepaid6Month, BillingTypePrepaid12Month, BillingTypeReserved} {
		cases["billing type "+string(b)] = func(r *InstanceCreateRequest) { r.BillingType = b }
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			req := validCreate()
			mutate(req)
			require.NoError(t, req.Validate())
		})
	}
}

func TestInstanceUpdateValidation(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		req   *InstanceUpdateRequest
		field string
	}{
		{"nil request", nil, "request"},
		{"nothing to change", &InstanceUpdateRequest{}, "request"},
		{"empty name", &InstanceUpdateRequest{Name: Ptr("")}, "name"},
		{"disk below minimum", &InstanceUpdateRequest{DiskSize: Ptr(40)}, "disk_size"},
		{"disk zero", &InstanceUpdateRequest{DiskSize: Ptr(0)}, "disk_size"},
		{"empty security group id", &InstanceUpdateRequest{SecurityGroups: []string{"sg-1", ""}}, "security_groups[1]"},
		{"empty volume id", &InstanceUpdateRequest{Volumes: []string{""}}, "volumes[0]"},
		{"empty reservation id", &InstanceUpdateRequest{ReservationID: Ptr("")}, "reservation_id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
			inst, err := c.Instances.Update(context.Background(), "i-1", tc.req)
			assert.Nil(t, inst)
			requireInvalid(t, err, tc.field, rec)
		})
	}
}

func TestInstanceEmptyIDs(t *testing.T) {
	t.Parallel()
	cases := map[string]func(ctx context.Context, c *Client, id string) error{
		"Get": func(ctx context.Context, c *Client, id string) error { _, err := c.Instances.Get(ctx, id); return err },
		"Update": func(ctx context.Context, c *Client, id string) error {
			_, err := c.Instances.Update(ctx, id, &InstanceUpdateRequest{Name: Ptr("x")})
			return err
		},
		"Delete": func(ctx context.Context, c *Client, id string) error { return c.Instances.Delete(ctx, id) },
		"Actions": func(ctx context.Context, c *Client, id string) error {
			_, err := c.Instances.Actions(ctx, id)
			return err
		},
		"PerformAction": func(ctx context.Context, c *Client, id string) error {
			return c.Instances.PerformAction(ctx, id, ActionStop)
		},
		"Start": func(ctx context.Context, c *Client, id string) error { return c.Instances.Start(ctx, id) },
		"WaitForStatus": func(ctx context.Context, c *Client, id string) error {
			_, err := c.Instances.WaitForStatus(ctx, id, InstanceStatusActive)
			return err
		},
		"Snapshots.Create": func(ctx context.Context, c *Client, id string) error {
			_, err := c.Snapshots.Create(ctx, id, &SnapshotCreateRequest{Name: "s"})
			return err
		},
		"Snapshots.ListByInstance": func(ctx context.Context, c *Client, id string) error {
			_, err := c.Snapshots.ListByInstance(ctx, id, nil)
			return err
		},
		"Snapshots.AllByInstance": func(ctx context.Context, c *Client, id string) error {
			for _, err := range c.Snapshots.AllByInstance(ctx, id, nil) {
				return err
			}
			return nil
		},
	}
	for name, call := range cases {
		for _, id := range []string{"", " "} {
			t.Run(name+"/"+strings.ReplaceAll(id, " ", "blank"), func(t *testing.T) {
				t.Parallel()
				c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
				requireInvalid(t, call(context.Background(), c, id), "instance_id", rec)
			})
		}
	}
}

func TestInstancePerformActionUnknown(t *testing.T) {
	t.Parallel()
	for _, action := range []InstanceAction{"reboot", "", "START"} {
		t.Run(string(action), func(t *testing.T) {
			t.Parallel()
			c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
			requireInvalid(t, c.Instances.PerformAction(context.Background(), "i-1", action), "action", rec)
		})
	}
}

func TestInstanceListValidation(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	_, err := c.Instances.List(context.Background(), &ListOptions{PerPage: 101})
	requireInvalid(t, err, "per_page", rec)
	yielded := 0
	for _, err := range c.Instances.All(context.Background(), &ListOptions{Page: -1}) {
		requireInvalid(t, err, "page", rec)
		yielded++
	}
	assert.Equal(t, 1, yielded, "the walk yields the refusal once, then ends")
}

// All walks the pages lazily and stops when total_count is reached.
func TestInstancesAll(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		page := r.URL.Query().Get("page")
		items := []map[string]any{{"id": "i-" + page + "a"}, {"id": "i-" + page + "b"}}
		if page == "2" {
			items = items[:1]
		}
		n := map[string]int{"1": 1, "2": 2}[page]
		replyJSON(w, http.StatusOK, map[string]any{"instances": items, "total_count": 3, "page": n, "per_page": 2})
	})
	var ids []string
	for inst, err := range c.Instances.All(context.Background(), &ListOptions{PerPage: 2}) {
		require.NoError(t, err)
		ids = append(ids, inst.ID)
	}
	assert.Equal(t, []string{"i-1a", "i-1b", "i-2a"}, ids)
	reqs := rec.all()
	require.Len(t, reqs, 2)
	assert.Equal(t, "page=1&per_page=2", reqs[0].Query)
	assert.Equal(t, "page=2&per_page=2", reqs[1].Query)
}

func TestInstanceWaitForDeletion(t *testing.T) {
	t.Parallel()
	t.Run("deleting, a 503, then 404 is success", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := newStatusServer("deleting", "503", "deleting", "404")
			c, rec := newTestClient(t, srv.handle)
			var seen []InstanceStatus
			err := c.Instances.WaitForDeletion(boundedCtx(t), "i-1",
				OnUpdate(func(i *Instance) { seen = append(seen, i.Status) }))
			require.NoError(t, err)
			assert.Equal(t, 4, rec.count())
			assert.Equal(t, []InstanceStatus{"deleting", "deleting"}, seen, "the 404 is not a poll result")
		})
	})
	t.Run("a 404 that is not 02008 ends it with that error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				replyJSON(w, http.StatusNotFound, map[string]string{"code": "02001", "message": "Invalid route"})
			})
			err := c.Instances.WaitForDeletion(boundedCtx(t), "i-1")
			require.ErrorIs(t, err, CodeInvalidRoute)
			assert.Equal(t, 1, rec.count())
		})
	})
	t.Run("a proxy's 404 without a code proves nothing: it is polled through", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := newStatusServer("html404", "deleting", "html404", "404")
			c, rec := newTestClient(t, srv.handle)
			require.NoError(t, c.Instances.WaitForDeletion(boundedCtx(t), "i-1"))
			assert.Equal(t, 4, rec.count(), "only the 404 with the instance's code ended the wait")
		})
	})
	t.Run("a proxy's 404 for ever is not success", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _ := newTestClient(t, newStatusServer("html404").handle)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := c.Instances.WaitForDeletion(ctx, "i-1")
			var we *WaitError
			require.ErrorAs(t, err, &we)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.ErrorIs(t, we.LastErr, ErrNotFound, "the last poll's 404 is told")
		})
	})
	t.Run("a 403 ends it at once", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, rec := newTestClient(t, newStatusServer("deleting", "403").handle)
			err := c.Instances.WaitForDeletion(boundedCtx(t), "i-1")
			require.ErrorIs(t, err, ErrForbidden)
			assert.Equal(t, 2, rec.count())
		})
	})
	t.Run("the deadline names the last status", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			c, _ := newTestClient(t, newStatusServer("deleting").handle)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := c.Instances.WaitForDeletion(ctx, "i-1")
			var we *WaitError
			require.ErrorAs(t, err, &we)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.Equal(t, "deleting", we.LastStatus)
			assert.Equal(t, "deleted", we.Target)
		})
	})
	t.Run("an empty ID is refused without a request", func(t *testing.T) {
		c, rec := newTestClient(t, newStatusServer("404").handle)
		var ve *ValidationError
		require.ErrorAs(t, c.Instances.WaitForDeletion(context.Background(), " "), &ve)
		assert.Equal(t, "instance_id", ve.Field)
		assert.Zero(t, rec.count())
	})
}
