package compute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// statusFor gives each code the status a service would plausibly send with it (the contract does
// not say); the sentinel checked is the one of that status.
func statusFor(code ErrorCode) int {
	switch code {
	case CodeInstanceNotFound, CodeSnapshotNotFound, CodeVolumeNotFound, CodeSecurityGroupNotFound,
		CodeSSHKeyNotFound, CodeFloatingIPNotFound, CodeReservationNotFound, CodeBareMetalClusterNotFound,
		CodeInvalidRoute:
		return http.StatusNotFound
	case CodeAuthTokenNotProvided:
		return http.StatusUnauthorized
	case CodePermissionDenied, CodeAuthPermissionDenied, CodeAccountSuspended, CodeAccountBanned,
		CodeAccountDisabled, CodePublicAPIDisabled, CodeAccountNotVerified, CodeDeprecatedRegion:
		return http.StatusForbidden
	case CodeTerminationProtected, CodeSecurityGroupLocked, CodeSnapshotAlreadyInProgress,
		CodeInstanceAlreadyStarted, CodeFloatingIPInUse, CodeSecurityGroupInUse, CodeVolumeInUse:
		return http.StatusConflict
	case CodeOutOfStock:
		return http.StatusServiceUnavailable
	}
	return http.StatusBadRequest
}

func sentinelFor(status int) error {
	return map[int]error{400: ErrBadRequest, 401: ErrUnauthorized, 403: ErrForbidden, 404: ErrNotFound,
		409: ErrConflict, 429: ErrRateLimited, 500: ErrServer, 502: ErrServer, 503: ErrServer}[status]
}

func TestEveryCodeThroughAFakeResponse(t *testing.T) {
	t.Parallel()
	for code := range codeDescriptions {
		t.Run(string(code), func(t *testing.T) {
			t.Parallel()
			status := statusFor(code)
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-Request-Id", "rid-"+string(code))
				replyJSON(w, status, map[string]string{"code": string(code), "message": "msg " + string(code)})
			}, WithoutRetries())
			err := testCall(context.Background(), c, opGetInstance, []string{"i-1"}, nil)
			require.Error(t, err)
			assert.ErrorIs(t, err, code)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, code, apiErr.Code)
			assert.Equal(t, status, apiErr.StatusCode)
			assert.Equal(t, "msg "+string(code), apiErr.Message)
			assert.Equal(t, "rid-"+string(code), apiErr.RequestID)
			assert.Equal(t, "GET", apiErr.Method)
			assert.Equal(t, "/compute/v1/instances/i-1", apiErr.Path)
			assert.ErrorIs(t, err, sentinelFor(status))
			for _, other := range []error{ErrBadRequest, ErrNotFound, ErrConflict, ErrServer, ErrRateLimited} {
				if other != sentinelFor(status) && (other != ErrConflict || !slices.Contains(stateCodes, code)) {
					assert.NotErrorIs(t, err, other)
				}
			}
			other := CodeWeakPassword
			if code == other {
				other = CodeInvalidImage
			}
			assert.NotErrorIs(t, err, other, "only its own code matches")
		})
	}
}

func TestAuthCodesReachTheirSentinels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		code   string
		is     []error
	}{
		{401, "", []error{ErrUnauthorized}},
		{400, "02014", []error{ErrUnauthorized, CodeAuthTokenNotProvided, ErrBadRequest}},
		{401, "01204", []error{ErrUnauthorized, ErrForbidden, CodeAuthPermissionDenied}},
		{403, "02043", []error{ErrForbidden, CodePermissionDenied}},
		{403, "02040", []error{ErrForbidden, CodeAccountSuspended}},
		{403, "02041", []error{ErrForbidden, CodeAccountBanned}},
		{403, "02042", []error{ErrForbidden, CodeAccountDisabled}},
		{403, "02044", []error{ErrForbidden, CodePublicAPIDisabled}},
		{403, "02050", []error{ErrForbidden, CodeAccountNotVerified}},
	} {
		body := `{"message":"no"}`
		if tc.code != "" {
			body = `{"code":"` + tc.code + `","message":"no"}`
		}
		err := error(newAPIError(&http.Response{StatusCode: tc.status, Header: http.Header{}}, []byte(body), "GET", "/p", 1, nil))
		for _, target := range tc.is {
			assert.ErrorIs(t, err, target, "%d %s", tc.status, tc.code)
		}
	}
}

func TestErrorBodiesThatAreNotTheJSONShape(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("x", 3<<20)
	for name, tc := range map[string]struct {
		status  int
		body    string
		message string
	}{
		"html from a proxy":             {502, "<html><body><h1>502 Bad Gateway</h1></body></html>", "<html><body><h1>502 Bad Gateway</h1></body></html>"},
		"empty":                         {500, "", ""},
		"truncated json":                {500, `{"code":"020`, `{"code":"020`},
		"number code":                   {400, `{"code":2001,"message":"x"}`, `{"code":2001,"message":"x"}`},
		"json of other kind":            {404, `["a"]`, `["a"]`},
		"object without the error keys": {500, `{"error":"boom"}`, `{"error":"boom"}`},
		"null code and message":         {500, `{"code":null,"message":null}`, `{"code":null,"message":null}`},
		"control characters":            {500, "line1\nline2\x00", "line1 line2"},
		"huge":                          {500, huge, huge[:maxExcerpt] + "…"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) { replyRaw(w, tc.status, tc.body) }, WithoutRetries())
			err := testCall(context.Background(), c, opGetInstance, []string{"i"}, nil)
			var apiErr *APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Empty(t, apiErr.Code)
			assert.Equal(t, tc.message, apiErr.Message)
			assert.LessOrEqual(t, len(apiErr.Message), maxExcerpt+len("…"))
			assert.ErrorIs(t, err, sentinelFor(tc.status))
		})
	}
}

// An object with a "code" or "message" key is the error shape even when both are empty: the service
// said nothing, and no excerpt of its JSON stands in for a message.
func TestErrorShapeWithEmptyStrings(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{"code":""}`, `{"message":""}`, `{"code":"","message":null}`} {
		e := newAPIError(&http.Response{StatusCode: 500, Header: http.Header{}}, []byte(body), "GET", "/p", 1, nil)
		assert.Empty(t, e.Code, body)
		assert.Empty(t, e.Message, body)
	}
	// A null after a value leaves the value, as encoding/json does for a string.
	e := newAPIError(&http.Response{StatusCode: 404, Header: http.Header{}}, []byte(`{"code":"02008","code":null}`), "GET", "/p", 1, nil)
	assert.Equal(t, CodeInstanceNotFound, e.Code)
}

func TestAPIErrorString(t *testing.T) {
	t.Parallel()
	e := &APIError{StatusCode: 409, Code: CodeTerminationProtected, Message: "protected", Method: "DELETE",
		Path: "/compute/v1/instances/i-1", RequestID: "r-9", Attempts: 1}
	assert.Equal(t, "compute: DELETE /compute/v1/instances/i-1: 409 Conflict: code 02038 (The instance is termination protected): protected [request_id=r-9, attempts=1]", e.Error())
	assert.True(t, errors.Is(e, ErrConflict))
	assert.False(t, errors.Is(e, ErrorCode("")), "an empty code matches nothing")
}

func TestValidationError(t *testing.T) {
	t.Parallel()
	err := invalid("disk_size", "must be at least %d", 80)
	assert.Equal(t, "compute: invalid request: disk_size: must be at least 80", err.Error())
	assert.ErrorIs(t, err, ErrInvalidRequest)
	var ve *ValidationError
	require.ErrorAs(t, fmt.Errorf("wrapped: %w", err), &ve)
	assert.Equal(t, "disk_size", ve.Field)
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	for status, want := range map[int]bool{429: true, 502: true, 503: true, 504: true, 500: false, 403: false, 404: false} {
		e := &APIError{StatusCode: status}
		assert.Equal(t, want, e.Retryable(), "%d", status)
		assert.Equal(t, want, e.Temporary(), "%d: the deprecated name says the same", status)
	}
}

// TestTokenAtTheExcerptCutIsRedacted: a proxy page that echoes the Authorization header with the
// token straddling the excerpt's cut must not leak a prefix of the token.
func TestTokenAtTheExcerptCutIsRedacted(t *testing.T) {
	t.Parallel()
	prefix := strings.Repeat("x", maxExcerpt-len("Authorization: Bearer ")-6)
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "echo "+r.Header.Get("Authorization"))
		replyRaw(w, 502, prefix+"Authorization: "+r.Header.Get("Authorization")+"\n")
	}, WithoutRetries())
	err := testCall(context.Background(), c, opGetInstance, []string{"i"}, nil)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.NotContains(t, err.Error(), testToken[:4])
	assert.Contains(t, apiErr.Message, "[REDAC")
	assert.Equal(t, "echo Bearer [REDACTED]", apiErr.RequestID)
}

// TestJSONEscapedTokenIsRedacted: a service that echoes the token inside a JSON string may escape it
// ("/" as "\/", any character as "\u00XX"); the decoded code and message are scrubbed too.
func TestJSONEscapedTokenIsRedacted(t *testing.T) {
	t.Parallel()
	const token = "abc/def+ghi"
	escaped := `abc\/def\u002bghi`
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyRaw(w, 400, `{"code":"`+escaped+`","message":"bad header Authorization: Bearer `+escaped+`"}`)
	}, WithoutRetries())
	c2, err := NewClient(token, WithBaseURL(c.baseURL), WithHTTPClient(&http.Client{Transport: c.transport.next}), WithoutRetries(), WithoutRateLimit())
	require.NoError(t, err)
	err = testCall(context.Background(), c2, opGetInstance, []string{"i"}, nil)
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)
	assert.NotContains(t, err.Error(), token)
	assert.Equal(t, "bad header Authorization: Bearer [REDACTED]", apiErr.Message)
	assert.Equal(t, ErrorCode("[REDACTED]"), apiErr.Code)
}

// TestInvalidBytesNeverJoinTheTokenBackTogether: a proxy page that echoes the token with an invalid
// byte inside it does not hold the token as bytes, so the byte scrub leaves it; the excerpt must not
// delete the byte and hand the token back whole.
func TestInvalidBytesNeverJoinTheTokenBackTogether(t *testing.T) {
	t.Parallel()
	for _, split := range []string{
		testToken[:5] + "\xff" + testToken[5:],
		testToken[:1] + "\xc3" + testToken[1:],         // a cut two-byte sequence
		testToken[:9] + "\xe2\x82" + testToken[9:],     // a cut three-byte sequence
		testToken[:3] + "\xff\xfe\xfd" + testToken[3:], // a run of invalid bytes
	} {
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyRaw(w, 502, "<html>upstream echoed: Bearer "+split+"</html>")
		}, WithoutRetries())
		err := testCall(context.Background(), c, opGetInstance, []string{"i"}, nil)
		var apiErr *APIError
		require.ErrorAs(t, err, &apiErr)
		assert.NotContains(t, err.Error(), testToken)
		assert.Contains(t, apiErr.Message, "\uFFFD", "the invalid bytes are marked, not dropped")
		assert.True(t, utf8.ValidString(apiErr.Message))
	}
}

func TestExcerptBounds(t *testing.T) {
	t.Parallel()
	for name, body := range map[string]string{
		"replacements grow the text":  strings.Repeat("a\xff", maxExcerpt/2), // 512 bytes, 1,024 once replaced
		"a long run of invalid bytes": strings.Repeat("\xff", 4*maxExcerpt),
		"cut multi-byte character":    strings.Repeat("a", maxExcerpt-1) + "é",
	} {
		got := excerpt([]byte(body))
		assert.True(t, utf8.ValidString(got), name)
		assert.LessOrEqual(t, len(got), maxExcerpt+len("…"), name)
		assert.True(t, strings.HasSuffix(got, "…"), name)
	}
	assert.Equal(t, "a b\uFFFDc", excerpt([]byte("a\x00b\xffc\n")))
}

// TestValidationErrorReportsEveryProblem: a request with five problems reports five, each with its
// field in JSON spelling, in the order of the request's fields; Field and Reason keep naming the
// first, so code written against them still works, and errors.As still finds the error.
func TestValidationErrorReportsEveryProblem(t *testing.T) {
	t.Parallel()
	c, seen := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {})
	_, err := c.Instances.Create(context.Background(), &InstanceCreateRequest{Image: "ubuntu-24.04", SSHKeys: []string{"key-1"}, DiskSize: 10,
		Metadata: &InstanceMetadata{UserData: []UserDataItem{{Content: "#!/bin/sh"}}}})
	var ve *ValidationError
	require.ErrorAs(t, fmt.Errorf("wrapped: %w", err), &ve)
	assert.Equal(t, []FieldError{
		{"name", "is required"}, {"hostname", "is required"}, {"type", "is required"}, {"region", "is required"},
		{"disk_size", "must be at least 80 GiB (or 0 for the default), got 10"},
		{"metadata.user_data[0].type", "is required"},
	}, ve.Problems)
	assert.Equal(t, "name", ve.Field)
	assert.Equal(t, "is required", ve.Reason)
	assert.ErrorIs(t, err, ErrInvalidRequest)
	assert.Contains(t, err.Error(), "compute: invalid request: 6 problems: name: is required; hostname: is required;")
	assert.Zero(t, seen.count(), "nothing is sent")

	for name, tc := range map[string]struct {
		req  interface{ Validate() error }
		want []string
	}{
		"security group create": {&SecurityGroupCreateRequest{Rules: []SecurityGroupRule{{Protocol: "gre", Direction: "in"}}},
			[]string{"name", "region", "rules[0].protocol", "rules[0].direction"}},
		"security group update": {&SecurityGroupUpdateRequest{Name: "default", Rules: []SecurityGroupRule{{Protocol: ProtocolTCP, Direction: DirectionIngress, PortRangeMin: Ptr(-1), PortRangeMax: Ptr(70000)}}},
			[]string{"name", "rules[0].port_range_min", "rules[0].port_range_max"}},
		"floating ip create":  {&FloatingIPCreateRequest{Version: "ipv5"}, []string{"name", "region", "version"}},
		"instance update":     {&InstanceUpdateRequest{Volumes: []string{""}, Name: Ptr(" "), DiskSize: Ptr(1)}, []string{"volumes[0]", "name", "disk_size"}},
		"list options":        {&ListOptions{Page: -1, PerPage: 101}, []string{"page", "per_page"}},
		"volume create":       {&VolumeCreateRequest{Type: "tape"}, []string{"name", "region", "size", "type"}},
		"volume update":       {&VolumeUpdateRequest{Name: Ptr(""), Size: Ptr(0)}, []string{"name", "size"}},
		"filesystem create":   {&FilesystemCreateRequest{Type: "nfs"}, []string{"name", "region", "size", "type"}},
		"snapshot import":     {&SnapshotImportRequest{OSType: "beos"}, []string{"name", "region", "url", "size", "os_type"}},
		"snapshot clone":      {&SnapshotCloneRequest{}, []string{"name", "region"}},
		"ssh key create":      {&SSHKeyCreateRequest{}, []string{"name", "value"}},
		"image list options":  {&ImageListOptions{ListOptions: ListOptions{Page: -1, PerPage: -1}}, []string{"page", "per_page"}},
		"instance create ids": {&InstanceCreateRequest{Name: "a", Hostname: "a", Type: "t", Region: "r", Image: "i", SSHKeys: []string{"", "k", " "}, SecurityGroups: []string{""}}, []string{"ssh_keys[0]", "ssh_keys[2]", "security_groups[0]"}},
	} {
		var ve *ValidationError
		require.ErrorAs(t, tc.req.Validate(), &ve, name)
		var fields []string
		for _, p := range ve.Problems {
			fields = append(fields, p.Field)
		}
		assert.Equal(t, tc.want, fields, name)
	}
}

// TestStateAndQuotaCodesMatchByMeaning: every code of the contract that refuses a request because of
// a resource's state matches ErrConflict, whatever the status the service sends it with, and every
// quota code matches ErrQuotaExceeded; the status sentinels still match by status. The lists are
// written here from the contract's table, apart from the SDK's own.
func TestStateAndQuotaCodesMatchByMeaning(t *testing.T) {
	t.Parallel()
	state := []string{"02011", "02013", "02016", "02022", "02023", "02026", "02027", "02029", "02030", "02031",
		"02032", "02033", "02034", "02037", "02038", "02039", "02046", "02056", "02064", "02065", "02066",
		"02069", "02071"}
	quota := []string{"02010", "02012", "02049", "02073"}
	for code := range codeDescriptions {
		for _, status := range []int{400, 409, 422} {
			e := &APIError{StatusCode: status, Code: code}
			assert.Equal(t, status == 409 || slices.Contains(state, string(code)), errors.Is(e, ErrConflict), "%s with %d", code, status)
			assert.Equal(t, slices.Contains(quota, string(code)), errors.Is(e, ErrQuotaExceeded), "%s with %d", code, status)
			assert.Equal(t, status != 409, errors.Is(e, ErrBadRequest), "%s with %d: the status sentinel stays", code, status)
		}
	}
}

// Each resource's not-found code is a typed constant that errors.Is matches, beside ErrNotFound.
func TestResourceNotFoundAndInUseCodes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		code ErrorCode
		call func(context.Context, *Client) error
	}{
		{CodeSSHKeyNotFound, func(ctx context.Context, c *Client) error { return noErr(c.SSHKeys.Get(ctx, "k-1")) }},
		{CodeVolumeNotFound, func(ctx context.Context, c *Client) error { return noErr(c.Volumes.Get(ctx, "v-1")) }},
		{CodeSnapshotNotFound, func(ctx context.Context, c *Client) error { return noErr(c.Snapshots.Get(ctx, "s-1")) }},
		{CodeSnapshotNotFound, func(ctx context.Context, c *Client) error {
			return noErr(c.Snapshots.Clone(ctx, "s-1", &SnapshotCloneRequest{Name: "c", Region: "r"}))
		}},
		{CodeInstanceNotFound, func(ctx context.Context, c *Client) error { return noErr(c.Instances.UserMetadata(ctx, "i-1")) }},
	}
	for _, tc := range cases {
		t.Run(string(tc.code), func(t *testing.T) {
			t.Parallel()
			c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				replyJSON(w, http.StatusNotFound, map[string]string{"code": string(tc.code), "message": "not found"})
			})
			err := tc.call(context.Background(), c)
			assert.ErrorIs(t, err, tc.code)
			assert.ErrorIs(t, err, ErrNotFound)
			assert.NotErrorIs(t, err, ErrOutcomeUnknown, "a 404 is a known outcome, even for a POST")
		})
	}
	// The relation rules refuse with their own codes.
	for _, code := range []ErrorCode{CodeAttachedVolumeNotDeletable, CodeVolumeInUse} {
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			replyJSON(w, http.StatusConflict, map[string]string{"code": string(code), "message": "attached"})
		})
		assert.ErrorIs(t, c.Volumes.Delete(context.Background(), "v-1"), code)
	}
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyJSON(w, http.StatusConflict, map[string]string{"code": "02016", "message": "in use"})
	})
	assert.ErrorIs(t, c.Snapshots.Delete(context.Background(), "s-1"), CodeSnapshotInUse)
}

// TestValidationErrorTextIsBounded: a request with 300,000 bad IDs, or a value of 4 MiB, makes a
// short error that lists the first problems and says how many more there are; every problem stays
// in Problems. Two problems are both printed.
func TestValidationErrorTextIsBounded(t *testing.T) {
	t.Parallel()
	req := validCreate()
	req.Volumes = make([]string, 300_000)
	err := req.Validate()
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Len(t, ve.Problems, 300_000)
	assert.Less(t, len(err.Error()), 1<<10)
	assert.Contains(t, err.Error(), "300000 problems: volumes[0]: must not be empty;")
	assert.Contains(t, err.Error(), "volumes[9]: must not be empty; and 299990 more")
	assert.NotContains(t, err.Error(), "volumes[10]")

	req = validCreate()
	req.BillingType = BillingType(strings.Repeat("b", 4<<20))
	err = req.Validate()
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 1<<10, "a long value is quoted cut")

	two := &InstanceCreateRequest{Hostname: "h", Type: "t", Region: "r", Image: "i", SSHKeys: []string{"k"}, DiskSize: 10}
	assert.Equal(t, "compute: invalid request: 2 problems: name: is required; disk_size: must be at least 80 GiB (or 0 for the default), got 10",
		two.Validate().Error())
}

// TestAPIErrorLogsAsAttributes: slog's JSON handler writes an *APIError as an object of its fields,
// without the token the service echoed, and with the service's text cut as the error's own is.
func TestAPIErrorLogsAsAttributes(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Request-Id", "rid-1")
		w.Header().Set("Retry-After", "7")
		replyJSON(w, http.StatusConflict, map[string]string{"code": "02038",
			"message": "protected; you sent " + r.Header.Get("Authorization") + strings.Repeat(" and more", 2<<10)})
	}, WithoutRetries())
	err := c.Instances.Delete(context.Background(), "ins-1")
	var apiErr *APIError
	require.ErrorAs(t, err, &apiErr)

	var out strings.Builder
	slog.New(slog.NewJSONHandler(&out, nil)).Error("delete failed", "err", apiErr)
	requireNoToken(t, out.String())
	var line struct {
		Err map[string]any `json:"err"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.String()), &line), out.String())
	msg, _ := line.Err["message"].(string)
	assert.True(t, strings.HasPrefix(msg, "protected; you sent Bearer [REDACTED] and more"), msg)
	assert.LessOrEqual(t, len(msg), maxErrorString)
	delete(line.Err, "message")
	assert.Equal(t, map[string]any{"status": 409.0, "code": "02038", "method": "DELETE",
		"path": "/compute/v1/instances/ins-1", "request_id": "rid-1", "attempts": 1.0, "retry_after": float64(7 * time.Second)}, line.Err)

	// A value built by hand is bounded too, and a nil one logs as nothing rather than panicking.
	out.Reset()
	slog.New(slog.NewJSONHandler(&out, nil)).Error("x", "err", &APIError{StatusCode: 500, Message: strings.Repeat("é", 1<<20)})
	assert.Less(t, out.Len(), 2*maxErrorString)
	assert.True(t, utf8.ValidString(out.String()))
	out.Reset()
	slog.New(slog.NewJSONHandler(&out, nil)).Error("x", "err", (*APIError)(nil))
	assert.Contains(t, out.String(), `"err":null`)
}

// TestValidationErrorLogsAsAttributes: a *ValidationError logs its first field and reason, and
// how many problems there are.
func TestValidationErrorLogsAsAttributes(t *testing.T) {
	t.Parallel()
	err := (&InstanceCreateRequest{Name: "x"}).Validate()
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	var out strings.Builder
	slog.New(slog.NewJSONHandler(&out, nil)).Error("refused", "err", ve)
	var line struct {
		Err map[string]any `json:"err"`
	}
	require.NoError(t, json.Unmarshal([]byte(out.String()), &line), out.String())
	assert.Equal(t, map[string]any{"field": ve.Field, "reason": ve.Reason, "problems": float64(len(ve.Problems))}, line.Err)
	assert.Greater(t, len(ve.Problems), 1)
}
