package compute

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webRules is a valid rule list with a rule of every shape: a single port, a range, and null ports.
func webRules() []SecurityGroupRule {
	return []SecurityGroupRule{
		{Protocol: ProtocolTCP, Direction: DirectionIngress, PortRangeMin: Ptr(22), PortRangeMax: Ptr(22)},
		{Protocol: ProtocolTCP, Direction: DirectionIngress, PortRangeMin: Ptr(80), PortRangeMax: Ptr(443)},
		{Protocol: ProtocolICMP, Direction: DirectionIngress},
		{Protocol: ProtocolAll, Direction: DirectionEgress},
	}
}

// checkSecurityGroup compares the SDK's result with the golden response's security group.
func checkSecurityGroup(zeroOK ...string) func(t *testing.T, result any, respBody []byte) {
	return func(t *testing.T, result any, respBody []byte) {
		want := requireFullyMapped[SecurityGroup](t, envelopeItem(t, respBody, "security_group"), zeroOK...)
		require.Equal(t, &want, result)
	}
}

func TestSecurityGroupGolden(t *testing.T) {
	t.Parallel()
	cases := []goldenCase{
		{
			name:   "security_group_create",
			method: "POST", path: "/compute/v1/security-groups",
			reqFile: "security_group_create_request.json",
			status:  http.StatusCreated, respFile: "security_group_create_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SecurityGroups.Create(ctx, &SecurityGroupCreateRequest{
					Name: "web", Description: "HTTP and SSH from anywhere", Region: "eu-west-1", Rules: webRules(),
				})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				checkSecurityGroup()(t, result, respBody)
				sg := result.(*SecurityGroup)
				assert.Equal(t, SecurityGroupStatusCreating, sg.Status)
				assert.Equal(t, webRules(), sg.Rules, "null ports decode to nil")
				assert.Equal(t, time.Date(2024, 5, 1, 10, 20, 30, 123e6, time.UTC), sg.CreatedAt)
			},
		},
		{
			name:   "security_group_create_no_rules",
			method: "POST", path: "/compute/v1/security-groups",
			reqFile: "security_group_create_no_rules_request.json",
			status:  http.StatusCreated, respFile: "security_group_create_no_rules_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SecurityGroups.Create(ctx, &SecurityGroupCreateRequest{Name: "empty", Region: "eu-west-1"})
			},
			check: checkSecurityGroup("Description"),
		},
		{
			name:   "security_group_get",
			method: "GET", path: "/compute/v1/security-groups/sg-3f9a2c",
			status: http.StatusOK, respFile: "security_group_get_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SecurityGroups.Get(ctx, "sg-3f9a2c")
			},
			check: checkSecurityGroup(),
		},
		{
			name:   "security_group_list",
			method: "GET", path: "/compute/v1/security-groups", query: "page=2&per_page=10",
			status: http.StatusOK, respFile: "security_group_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SecurityGroups.List(ctx, &ListOptions{Page: 2, PerPage: 10})
			},
			check: func(t *testing.T, result any, respBody []byte) {
				p := result.(*Page[SecurityGroup])
				require.Len(t, p.Items, 2)
				assert.Equal(t, requireFullyMapped[SecurityGroup](t, envelopeItem(t, respBody, "security_groups")), p.Items[0])
				assert.Equal(t, "sg-77d0e4", p.Items[1].ID)
				assert.Equal(t, 12, p.TotalCount)
				assert.Equal(t, 2, p.Page)
				assert.Equal(t, 10, p.PerPage)
				assert.False(t, p.HasNext())
			},
		},
		{
			name:   "security_group_list_default_page",
			method: "GET", path: "/compute/v1/security-groups", query: "",
			status: http.StatusOK, respFile: "security_group_list_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SecurityGroups.List(ctx, nil)
			},
		},
		{
			name:   "security_group_update",
			method: "PUT", path: "/compute/v1/security-groups/sg-3f9a2c",
			reqFile: "security_group_update_request.json",
			status:  http.StatusOK, respFile: "security_group_update_response.json",
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.SecurityGroups.Update(ctx, "sg-3f9a2c", &SecurityGroupUpdateRequest{
					Name:        "web-v2",
					Description: "HTTPS only",
					Rules: []SecurityGroupRule{
						{Protocol: ProtocolTCP, Direction: DirectionIngress, PortRangeMin: Ptr(443), PortRangeMax: Ptr(443)},
						{Protocol: ProtocolUDP, Direction: DirectionEgress},
					},
				})
			},
			check: checkSecurityGroup(),
		},
		{
			name:   "security_group_delete",
			method: "DELETE", path: "/compute/v1/security-groups/sg-3f9a2c",
			status: http.StatusNoContent,
			call: func(ctx context.Context, c *Client) (any, error) {
				return nil, c.SecurityGroups.Delete(ctx, "sg-3f9a2c")
			},
		},
	}
	runGoldenCases(t, cases)
}

func TestSecurityGroupNilRulesAreSentAsEmptyList(t *testing.T) {
	t.Parallel()
	for name, v := range map[string]any{
		"create":         SecurityGroupCreateRequest{Name: "a", Region: "r"},
		"create pointer": &SecurityGroupCreateRequest{Name: "a", Region: "r"},
		"update":         SecurityGroupUpdateRequest{Name: "a"},
		"update pointer": &SecurityGroupUpdateRequest{Name: "a"},
	} {
		b, err := json.Marshal(v)
		require.NoError(t, err, name)
		var got map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &got), name)
		assert.Equal(t, "[]", string(got["rules"]), name)
	}

	t.Run("update replaces every rule with none and clears the description", func(t *testing.T) {
		t.Parallel()
		c, rec := newTestClient(t, serveJSON(golden(t, "security_group_get_response.json")))
		req := &SecurityGroupUpdateRequest{Name: "web"}
		_, err := c.SecurityGroups.Update(context.Background(), "sg-3f9a2c", req)
		require.NoError(t, err)
		require.JSONEq(t, `{"name":"web","description":"","rules":[]}`, string(rec.all()[0].Body))
		assert.Nil(t, req.Rules, "the caller's request is never changed")
	})
}

func TestSecurityGroupRuleNullPortsAreSentNotOmitted(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(SecurityGroupRule{Protocol: ProtocolICMP, Direction: DirectionIngress})
	require.NoError(t, err)
	assert.JSONEq(t, `{"protocol":"icmp","direction":"ingress","port_range_min":null,"port_range_max":null}`, string(b))

	b, err = json.Marshal(SecurityGroupRule{Protocol: ProtocolTCP, Direction: DirectionEgress, PortRangeMin: Ptr(0), PortRangeMax: Ptr(0)})
	require.NoError(t, err)
	assert.JSONEq(t, `{"protocol":"tcp","direction":"egress","port_range_min":0,"port_range_max":0}`, string(b), "port 0 is a port, not null")
}

func TestSecurityGroupResponseWithoutStatusDecodes(t *testing.T) {
	t.Parallel()
	// The contract's get and list examples show no status.
	sg := `{"id":"sg-1","name":"web","description":"d","region":"eu-west-1",` +
		`"rules":[{"protocol":"tcp","direction":"ingress","port_range_min":22,"port_range_max":22}],` +
		`"created_at":"2024-05-01T10:20:30.123Z"}`
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/compute/v1/security-groups" {
			replyRaw(w, http.StatusOK, `{"security_groups":[`+sg+`],"total_count":1,"page":1,"per_page":50}`)
			return
		}
		replyRaw(w, http.StatusOK, `{"security_group":`+sg+`}`)
	})
	got, err := c.SecurityGroups.Get(context.Background(), "sg-1")
	require.NoError(t, err)
	want := &SecurityGroup{
		ID: "sg-1", Name: "web", Description: "d", Region: "eu-west-1",
		Rules:     []SecurityGroupRule{{Protocol: ProtocolTCP, Direction: DirectionIngress, PortRangeMin: Ptr(22), PortRangeMax: Ptr(22)}},
		CreatedAt: time.Date(2024, 5, 1, 10, 20, 30, 123e6, time.UTC),
	}
	assert.Equal(t, want, got)

	page, err := c.SecurityGroups.List(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, *want, page.Items[0])
}

func TestSecurityGroupUnknownValuesRoundTrip(t *testing.T) {
	t.Parallel()
	in := `{"id":"sg-1","name":"web","description":"d","region":"eu-west-1","status":"locked",` +
		`"rules":[{"protocol":"gre","direction":"both","port_range_min":null,"port_range_max":null}],` +
		`"is_internal":false,"created_at":"2024-05-01T10:20:30.123Z","updated_at":"2024-05-02T10:20:30.123Z"}`
	var sg SecurityGroup
	require.NoError(t, json.Unmarshal([]byte(in), &sg))
	assert.Equal(t, SecurityGroupStatus("locked"), sg.Status)
	assert.Equal(t, Protocol("gre"), sg.Rules[0].Protocol)
	assert.Equal(t, Direction("both"), sg.Rules[0].Direction)
	out, err := json.Marshal(sg)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))
}

func TestSecurityGroupValidRulesPass(t *testing.T) {
	t.Parallel()
	req := &SecurityGroupCreateRequest{Name: "web", Region: "eu-west-1", Rules: []SecurityGroupRule{
		{Protocol: ProtocolTCP, Direction: DirectionIngress, PortRangeMin: Ptr(0), PortRangeMax: Ptr(65535)},
		{Protocol: ProtocolUDP, Direction: DirectionEgress, PortRangeMin: Ptr(53), PortRangeMax: Ptr(53)},
		{Protocol: ProtocolTCP, Direction: DirectionIngress, PortRangeMin: Ptr(8080)},
		{Protocol: ProtocolICMP, Direction: DirectionIngress},
	}}
	require.NoError(t, req.Validate())
	require.NoError(t, (&SecurityGroupCreateRequest{Name: "default-web", Region: "r"}).Validate(), "only the exact reserved names are refused")
	require.NoError(t, (&SecurityGroupUpdateRequest{Name: "web", Rules: req.Rules}).Validate())
}

func TestSecurityGroupValidation(t *testing.T) {
	t.Parallel()
	create := func(req *SecurityGroupCreateRequest) func(context.Context, *Client) error {
		return func(ctx context.Context, c *Client) error {
			_, err := c.SecurityGroups.Create(ctx, req)
			return err
		}
	}
	update := func(id string, req *SecurityGroupUpdateRequest) func(context.Context, *Client) error {
		return func(ctx context.Context, c *Client) error {
			_, err := c.SecurityGroups.Update(ctx, id, req)
			return err
		}
	}
	// withRule returns a valid create request whose second rule is r.
	withRule := func(r SecurityGroupRule) *SecurityGroupCreateRequest {
		return &SecurityGroupCreateRequest{Name: "web", Region: "eu-west-1", Rules: []SecurityGroupRule{webRules()[0], r}}
	}
	tcp := func(lo, hi *int) SecurityGroupRule {
		return SecurityGroupRule{Protocol: ProtocolTCP, Direction: DirectionIngress, PortRangeMin: lo, PortRangeMax: hi}
	}
	runRefused(t, []refusedCase{
		{"create nil request", "request", create(nil)},
		{"create empty name", "name", create(&SecurityGroupCreateRequest{Region: "eu-west-1"})},
		{"create blank name", "name", create(&SecurityGroupCreateRequest{Name: "  ", Region: "eu-west-1"})},
		{"create reserved default", "name", create(&SecurityGroupCreateRequest{Name: "default", Region: "eu-west-1"})},
		{"create reserved Standard", "name", create(&SecurityGroupCreateRequest{Name: "Standard", Region: "eu-west-1"})},
		{"create reserved padded DEFAULT", "name", create(&SecurityGroupCreateRequest{Name: " DEFAULT ", Region: "eu-west-1"})},
		{"create empty region", "region", create(&SecurityGroupCreateRequest{Name: "web"})},
		{"protocol gre", "rules[1].protocol", create(withRule(SecurityGroupRule{Protocol: "gre", Direction: DirectionIngress}))},
		{"protocol empty", "rules[1].protocol", create(withRule(SecurityGroupRule{Direction: DirectionIngress}))},
		{"protocol upper case", "rules[1].protocol", create(withRule(SecurityGroupRule{Protocol: "TCP", Direction: DirectionIngress}))},
		{"direction sideways", "rules[1].direction", create(withRule(SecurityGroupRule{Protocol: ProtocolTCP, Direction: "sideways"}))},
		{"direction empty", "rules[1].direction", create(withRule(SecurityGroupRule{Protocol: ProtocolTCP}))},
		{"port max 70000", "rules[1].port_range_max", create(withRule(tcp(Ptr(1), Ptr(70000))))},
		{"port min 70000", "rules[1].port_range_min", create(withRule(tcp(Ptr(70000), nil)))},
		{"port min -1", "rules[1].port_range_min", create(withRule(tcp(Ptr(-1), Ptr(10))))},
		{"port max -1", "rules[1].port_range_max", create(withRule(tcp(nil, Ptr(-1))))},
		{"port min above max", "rules[1].port_range_min", create(withRule(tcp(Ptr(443), Ptr(80))))},
		{"update nil request", "request", update("sg-1", nil)},
		{"update empty name", "name", update("sg-1", &SecurityGroupUpdateRequest{})},
		{"update reserved default", "name", update("sg-1", &SecurityGroupUpdateRequest{Name: "default"})},
		{"update reserved Standard", "name", update("sg-1", &SecurityGroupUpdateRequest{Name: "Standard"})},
		{"update protocol gre", "rules[0].protocol", update("sg-1", &SecurityGroupUpdateRequest{Name: "web", Rules: []SecurityGroupRule{{Protocol: "gre", Direction: DirectionIngress}}})},
		{"update port min above max", "rules[0].port_range_min", update("sg-1", &SecurityGroupUpdateRequest{Name: "web", Rules: []SecurityGroupRule{tcp(Ptr(2), Ptr(1))}})},
		{"update empty id", "security_group_id", update("", &SecurityGroupUpdateRequest{Name: "web"})},
		{"get empty id", "security_group_id", func(ctx context.Context, c *Client) error {
			_, err := c.SecurityGroups.Get(ctx, "")
			return err
		}},
		{"get blank id", "security_group_id", func(ctx context.Context, c *Client) error {
			_, err := c.SecurityGroups.Get(ctx, " ")
			return err
		}},
		{"delete empty id", "security_group_id", func(ctx context.Context, c *Client) error {
			return c.SecurityGroups.Delete(ctx, "")
		}},
		{"wait empty id", "security_group_id", func(ctx context.Context, c *Client) error {
			_, err := c.SecurityGroups.WaitForStatus(ctx, "", SecurityGroupStatusCreated)
			return err
		}},
		{"wait empty target", "status", func(ctx context.Context, c *Client) error {
			_, err := c.SecurityGroups.WaitForStatus(ctx, "sg-1", "")
			return err
		}},
		{"list per_page 101", "per_page", func(ctx context.Context, c *Client) error {
			_, err := c.SecurityGroups.List(ctx, &ListOptions{PerPage: 101})
			return err
		}},
		{"all page -1", "page", func(ctx context.Context, c *Client) error {
			for _, err := range c.SecurityGroups.All(ctx, &ListOptions{Page: -1}) {
				return err
			}
			return nil
		}},
	})
}

func TestSecurityGroupReservedNameReason(t *testing.T) {
	t.Parallel()
	err := (&SecurityGroupCreateRequest{Name: "Standard", Region: "r"}).Validate()
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Contains(t, ve.Reason, "reserved")
}

func TestSecurityGroupIDIsPathEscaped(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	_, err := c.SecurityGroups.Get(context.Background(), "..x")
	require.Error(t, err, "an empty response has no security_group object")
	require.NoError(t, c.SecurityGroups.Delete(context.Background(), "a b?c"))
	require.NoError(t, c.SecurityGroups.Delete(context.Background(), "#"))
	reqs := rec.all()
	require.Len(t, reqs, 3)
	assert.Equal(t, "/compute/v1/security-groups/..x", reqs[0].Path)
	assert.Equal(t, "/compute/v1/security-groups/a%20b%3Fc", reqs[1].Path)
	assert.Empty(t, reqs[1].Query)
	assert.Equal(t, "/compute/v1/security-groups/%23", reqs[2].Path)
}

func TestSecurityGroupAllWalksEveryPage(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		ids := map[int][]string{1: {"sg-1", "sg-2"}, 2: {"sg-3"}}[page]
		items := []map[string]any{}
		for _, id := range ids {
			items = append(items, map[string]any{"id": id, "name": id, "status": "created", "rules": []any{}})
		}
		replyJSON(w, http.StatusOK, map[string]any{"security_groups": items, "total_count": 3, "page": page, "per_page": 2})
	})
	opts := &ListOptions{PerPage: 2}
	var got []string
	for sg, err := range c.SecurityGroups.All(context.Background(), opts) {
		require.NoError(t, err)
		got = append(got, sg.ID)
	}
	assert.Equal(t, []string{"sg-1", "sg-2", "sg-3"}, got)
	reqs := rec.all()
	require.Len(t, reqs, 2)
	assert.Equal(t, "page=1&per_page=2", reqs[0].Query)
	assert.Equal(t, "page=2&per_page=2", reqs[1].Query)
	assert.Equal(t, &ListOptions{PerPage: 2}, opts, "the caller's options are never changed")
}

func TestSecurityGroupCreateServerErrorIsOutcomeUnknown(t *testing.T) {
	t.Parallel()
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, http.StatusServiceUnavailable, map[string]string{"code": "02004", "message": "busy"})
	})
	_, err := c.SecurityGroups.Create(context.Background(), &SecurityGroupCreateRequest{Name: "web", Region: "eu-west-1"})
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	assert.Equal(t, 1, rec.count(), "a POST is never re-sent")
}

// The contract's get response carries no status; the wait reads it as the settled "created".
func TestSecurityGroupWaitForCreatedEndsOnAResponseWithoutStatus(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyRaw(w, http.StatusOK, `{"security_group":{"id":"sg-1","name":"web","region":"r1","rules":[]}}`)
		})
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		sg, err := c.SecurityGroups.WaitForStatus(ctx, "sg-1", SecurityGroupStatusCreated)
		require.NoError(t, err)
		assert.Equal(t, SecurityGroupStatus(""), sg.Status, "the group is returned as received")
		assert.Equal(t, 1, rec.count())
	})
}

// TestSecurityGroupCreateOnceComparesEveryFieldOfEveryRule: CreateOnce adopts a group only when it
// holds the request's rules exactly, in any order: a rule that differs in its protocol, its
// direction, its lowest or its highest port, or a port that is null (all ports) where the request
// says 0, is another firewall; so are a rule more or a rule less, a repeated rule included.
func TestSecurityGroupCreateOnceComparesEveryFieldOfEveryRule(t *testing.T) {
	rule := func(proto Protocol, dir Direction, lo, hi *int) SecurityGroupRule {
		return SecurityGroupRule{Protocol: proto, Direction: dir, PortRangeMin: lo, PortRangeMax: hi}
	}
	ssh := rule(ProtocolTCP, DirectionIngress, Ptr(22), Ptr(22))
	web := rule(ProtocolTCP, DirectionIngress, Ptr(80), Ptr(443))
	out := rule(ProtocolAll, DirectionEgress, nil, nil)
	asked := []SecurityGroupRule{ssh, web, out}
	cases := map[string]struct {
		held  []SecurityGroupRule
		adopt bool
	}{
		"the same rules":                  {[]SecurityGroupRule{ssh, web, out}, true},
		"the same rules in another order": {[]SecurityGroupRule{out, ssh, web}, true},
		"another protocol":                {[]SecurityGroupRule{rule(ProtocolUDP, DirectionIngress, Ptr(22), Ptr(22)), web, out}, false},
		"another direction":               {[]SecurityGroupRule{rule(ProtocolTCP, DirectionEgress, Ptr(22), Ptr(22)), web, out}, false},
		"another lowest port":             {[]SecurityGroupRule{rule(ProtocolTCP, DirectionIngress, Ptr(21), Ptr(22)), web, out}, false},
		"another highest port":            {[]SecurityGroupRule{rule(ProtocolTCP, DirectionIngress, Ptr(22), Ptr(65535)), web, out}, false},
		"all ports where 22 was asked":    {[]SecurityGroupRule{rule(ProtocolTCP, DirectionIngress, nil, nil), web, out}, false},
		"lowest port null, not 22":        {[]SecurityGroupRule{rule(ProtocolTCP, DirectionIngress, nil, Ptr(22)), web, out}, false},
		"highest port null, not 22":       {[]SecurityGroupRule{rule(ProtocolTCP, DirectionIngress, Ptr(22), nil), web, out}, false},
		"port 0, not null":                {[]SecurityGroupRule{ssh, web, rule(ProtocolAll, DirectionEgress, Ptr(0), Ptr(0))}, false},
		"a rule less":                     {[]SecurityGroupRule{ssh, web}, false},
		"a rule more":                     {[]SecurityGroupRule{ssh, web, out, rule(ProtocolICMP, DirectionIngress, nil, nil)}, false},
		"a rule twice, another missing":   {[]SecurityGroupRule{ssh, ssh, out}, false},
		"no rules":                        {[]SecurityGroupRule{}, false},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodPost {
						replyRaw(w, http.StatusInternalServerError, "no create expected")
						return
					}
					replyJSON(w, http.StatusOK, map[string]any{"security_groups": []any{map[string]any{
						"id": "sg-1", "name": "web", "region": "NORD-NO-KRS-1", "status": "created", "rules": tc.held,
					}}, "total_count": 1, "page": 1, "per_page": 100})
				}, WithoutRateLimit())
				v, err := c.SecurityGroups.CreateOnce(context.Background(), &SecurityGroupCreateRequest{
					Name: "web", Region: "NORD-NO-KRS-1", Rules: asked})
				if tc.adopt {
					require.NoError(t, err)
					assert.Equal(t, "sg-1", v.ID)
				} else {
					var nameErr *NameError
					require.ErrorAs(t, err, &nameErr)
					assert.Contains(t, nameErr.Reason, "holds other rules")
				}
				for _, r := range rec.all() {
					assert.Equal(t, http.MethodGet, r.Method, "nothing created")
				}
			})
		})
	}
}
