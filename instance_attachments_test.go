package compute

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of instance_attachments.go: the attach and detach forms of the instance PATCH, and the
// instance's user metadata.

func TestInstanceAttachmentsGolden(t *testing.T) {
	t.Parallel()
	const id = "c1f7a3de-5b2e-4d8a-9f0e-1a2b3c4d5e6f"
	const path = "/compute/v1/instances/" + id
	const volumeID = "5d6e7f80-91a2-4b3c-8d4e-5f6a7b8c9d0e"
	update := func(name, reqFile string, call func(context.Context, *Client) (any, error)) goldenCase {
		return goldenCase{
			name: name, method: "PATCH", path: path, reqFile: reqFile,
			status: http.StatusOK, respFile: "instance_update_response.json", call: call, check: checkInstance,
		}
	}
	runGoldenCases(t, []goldenCase{
		update("instance_attach_volume", "instance_update_attach_volume_request.json",
			func(ctx context.Context, c *Client) (any, error) { return c.Instances.AttachVolume(ctx, id, volumeID) }),
		update("instance_detach_volume", "instance_update_detach_volume_request.json",
			func(ctx context.Context, c *Client) (any, error) { return c.Instances.DetachVolume(ctx, id, volumeID) }),
		update("instance_attach_security_group", "instance_update_attach_security_group_request.json",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Instances.AttachSecurityGroup(ctx, id, "sg-3f9a2c")
			}),
		update("instance_detach_security_group", "instance_update_detach_security_group_request.json",
			func(ctx context.Context, c *Client) (any, error) {
				return c.Instances.DetachSecurityGroup(ctx, id, "sg-3f9a2c")
			}),
		{
			name: "instance_user_metadata", method: "GET", path: path + "/user-metadata",
			status: http.StatusOK, respFile: "instance_user_metadata_response.json",
			call: func(ctx context.Context, c *Client) (any, error) { return c.Instances.UserMetadata(ctx, id) },
			check: func(t *testing.T, result any, respBody []byte) {
				m, ok := result.(UserMetadata)
				require.True(t, ok, "result is %T", result)
				var want map[string]any
				require.NoError(t, json.Unmarshal(respBody, &want))
				require.Len(t, m, len(want))
				for k, v := range want {
					var got any
					require.NoError(t, json.Unmarshal(m[k], &got), k)
					assert.Equal(t, v, got, k)
				}
				assert.JSONEq(t, `72`, string(m["ttl_hours"]))
			},
		},
	})
}

// An attach request changes one list by one ID: both verbs at once, or two lists, are refused.
func TestAttachRequestValidation(t *testing.T) {
	t.Parallel()
	requireValidationFields(t, map[string]validationCase{
		"attach both":     {&attachRequest{Volumes: &attachment{Attach: "a", Detach: "b"}}, "volumes"},
		"attach two keys": {&attachRequest{Volumes: &attachment{Attach: "a"}, SecurityGroups: &attachment{Attach: "b"}}, "request"},
	})
}
