package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzExpandPath checks that no ID can change the route: an ID that could ("/", "\\", "%", a dot
// segment, a control character, nothing) is refused, and any other expands to a path that parses
// back to the template's segments with the ID as exactly one segment, never carrying a query or
// fragment.
func FuzzExpandPath(f *testing.F) {
	for _, seed := range []string{"i-1", "../x", "a?b", "..", ".", "a#b", "%2F", "a/b/c", "\x00", "é", " "} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, id string) {
		p, err := expandPath("/compute/v1/instances/{instance_id}/actions", []string{id})
		refused := strings.TrimSpace(id) == "" || id == "." || id == ".." || strings.ContainsAny(id, `/\%`) ||
			strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f })
		if refused {
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != "instance_id" {
				t.Fatalf("ID %q accepted or refused without naming instance_id: %v", id, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("ID %q refused: %v", id, err)
		}
		u, err := url.Parse("https://h" + p)
		if err != nil {
			t.Fatalf("ID %q gave an unparsable path %q: %v", id, p, err)
		}
		if u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
			t.Fatalf("ID %q leaked into the query or fragment: %q", id, p)
		}
		segs := strings.Split(u.EscapedPath(), "/")
		if len(segs) != 6 || segs[5] != "actions" {
			t.Fatalf("ID %q changed the route: %q", id, p)
		}
		got, err := url.PathUnescape(segs[4])
		if err != nil || got != id {
			t.Fatalf("ID %q came back as %q (%v)", id, got, err)
		}
		if segs[4] == "." || segs[4] == ".." {
			t.Fatalf("ID %q left a dot segment", id)
		}
	})
}

// FuzzAPIError feeds arbitrary error bodies (and the same text as X-Request-Id): the result is always
// an *APIError with the status and a bounded, printable, valid UTF-8 message, and never the token.
func FuzzAPIError(f *testing.F) {
	for _, seed := range []string{"", `{"code":"02008","message":"x"}`, `{"code":2008}`, "<html>", `{"code":null}`, "\xff\xfe", `{"message":"` + strings.Repeat("a", 600) + `"`,
		"Bearer " + testToken[:5] + "\xff" + testToken[5:], `{"message":"` + testToken[:3] + `\u002d` + testToken[4:] + `"}`, testToken[:3] + "\x00" + testToken[3:]} {
		f.Add(seed, 500)
	}
	cred := newCredential(testToken, false)
	f.Fuzz(func(t *testing.T, body string, status int) {
		resp := &http.Response{StatusCode: status, Header: http.Header{"Retry-After": {body}, "X-Request-Id": {body}}}
		e := newAPIError(resp, []byte(body), "GET", "/p", 1, &cred)
		if e.StatusCode != status {
			t.Fatal("status lost")
		}
		if msg := e.Error(); strings.Contains(msg, testToken) {
			t.Fatalf("the token is in the error: %q", msg)
		}
		if e.Code == "" && (!utf8.ValidString(e.Message) || len(e.Message) > maxExcerpt+len("…")) {
			t.Fatalf("excerpt not bounded or not valid UTF-8: %q", e.Message)
		}
		if e.RetryAfter < 0 {
			t.Fatal("negative Retry-After")
		}
	})
}

// fuzzResource feeds arbitrary responses to one call that decodes a single resource under key. The
// call never panics and returns a resource or an error, never both nor neither; an error is never an
// *APIError (the status was a success) and matches ErrOutcomeUnknown exactly when the call is a POST;
// a decoded resource, encoded again under key, decodes through the same path to the same JSON.
func fuzzResource[T any](f *testing.F, key string, post bool, call func(*Client) (*T, error)) {
	status := http.StatusOK
	if post {
		status = http.StatusCreated
	}
	f.Fuzz(func(t *testing.T, body string) {
		got, err := call(responding(t, status, body))
		if (got == nil) == (err == nil) {
			t.Fatalf("resource %v with error %v", got, err)
		}
		if err != nil {
			var apiErr *APIError
			if errors.As(err, &apiErr) {
				t.Fatalf("a %d response gave an *APIError: %v", status, err)
			}
			if errors.Is(err, ErrOutcomeUnknown) != post {
				t.Fatalf("errors.Is(err, ErrOutcomeUnknown) = %v for a POST = %v: %v", !post, post, err)
			}
			return
		}
		first, err := json.Marshal(map[string]*T{key: got})
		if err != nil {
			t.Fatalf("the decoded %s does not encode: %v", key, err)
		}
		back, err := call(responding(t, status, string(first)))
		if err != nil {
			t.Fatalf("the re-encoded %s does not decode: %v\n%s", key, err, first)
		}
		second, _ := json.Marshal(map[string]*T{key: back})
		if !bytes.Equal(first, second) {
			t.Fatalf("the %s changed in a round trip:\n%s\n%s", key, first, second)
		}
	})
}

// FuzzDecodeInstance decodes arbitrary responses to Instances.Get.
func FuzzDecodeInstance(f *testing.F) {
	fuzzResource(f, "instance", false, func(c *Client) (*Instance, error) {
		return c.Instances.Get(context.Background(), "i-1")
	})
}

// FuzzDecodeSnapshot decodes arbitrary responses to Snapshots.Create, the one call that returns a
// single snapshot.
func FuzzDecodeSnapshot(f *testing.F) {
	fuzzResource(f, "snapshot", true, func(c *Client) (*Snapshot, error) {
		return c.Snapshots.Create(context.Background(), "i-1", &SnapshotCreateRequest{Name: "s"})
	})
}

// FuzzDecodeSecurityGroup decodes arbitrary responses to SecurityGroups.Get.
func FuzzDecodeSecurityGroup(f *testing.F) {
	fuzzResource(f, "security_group", false, func(c *Client) (*SecurityGroup, error) {
		return c.SecurityGroups.Get(context.Background(), "sg-1")
	})
}

// FuzzDecodeFloatingIP decodes arbitrary responses to FloatingIPs.Get.
func FuzzDecodeFloatingIP(f *testing.F) {
	fuzzResource(f, "floating_ip", false, func(c *Client) (*FloatingIP, error) {
		return c.FloatingIPs.Get(context.Background(), "fip-1")
	})
}

// fuzzPage feeds arbitrary responses to one list call whose items sit under key. The call never panics
// and returns a page or an error, never both nor neither, and never an *APIError. When the response is
// one JSON object, the page holds what encoding/json decodes from it into a struct with the same keys
// (the envelope's documented rules: keys match case-insensitively, a repeated key is decoded again,
// a null clears a slice and leaves a number). HasNext agrees with page*per_page < total_count in
// exact arithmetic (math/big), whatever the size of the counts, and every item survives a round trip through the same path.
func fuzzPage[T any](f *testing.F, key string, list func(*Client) (*Page[T], error)) {
	f.Fuzz(func(t *testing.T, body string) {
		p, err := list(responding(t, http.StatusOK, body))
		if (p == nil) == (err == nil) {
			t.Fatalf("page %v with error %v", p, err)
		}
		if err != nil {
			var apiErr *APIError
			if errors.As(err, &apiErr) {
				t.Fatalf("a 200 response gave an *APIError: %v", err)
			}
			return
		}
		// The rule, in exact arithmetic: pages follow when the items up to the end of this page,
		// page·per_page, are fewer than total_count.
		seen := new(big.Int).Mul(big.NewInt(int64(p.Page)), big.NewInt(int64(p.PerPage)))
		more := p.PerPage > 0 && p.Page > 0 && seen.Cmp(big.NewInt(int64(p.TotalCount))) < 0
		if p.HasNext() != more {
			t.Fatalf("HasNext() = %v for page %d, per_page %d, total_count %d", p.HasNext(), p.Page, p.PerPage, p.TotalCount)
		}
		var keys map[string]json.RawMessage
		if json.Unmarshal([]byte(body), &keys) == nil {
			// The reference: encoding/json decoding the same object into a struct with the same keys.
			ref := reflect.New(reflect.StructOf([]reflect.StructField{
				{Name: "Items", Type: reflect.TypeFor[[]json.RawMessage](), Tag: reflect.StructTag(`json:"` + key + `"`)},
				{Name: "TotalCount", Type: reflect.TypeFor[int](), Tag: `json:"total_count"`},
				{Name: "Page", Type: reflect.TypeFor[int](), Tag: `json:"page"`},
				{Name: "PerPage", Type: reflect.TypeFor[int](), Tag: `json:"per_page"`},
			}))
			if err := json.Unmarshal([]byte(body), ref.Interface()); err != nil {
				t.Fatalf("the envelope decoded a response encoding/json refuses: %v", err)
			}
			r := ref.Elem()
			got := []int{len(p.Items), p.TotalCount, p.Page, p.PerPage}
			want := []int{r.Field(0).Len(), int(r.Field(1).Int()), int(r.Field(2).Int()), int(r.Field(3).Int())}
			if !slices.Equal(got, want) {
				t.Fatalf("page {items, total_count, page, per_page} = %v, the response says %v", got, want)
			}
		}
		first, err := json.Marshal(map[string]any{key: p.Items, "total_count": p.TotalCount, "page": p.Page, "per_page": p.PerPage})
		if err != nil {
			t.Fatalf("the decoded page does not encode: %v", err)
		}
		back, err := list(responding(t, http.StatusOK, string(first)))
		if err != nil {
			t.Fatalf("the re-encoded page does not decode: %v\n%s", err, first)
		}
		second, _ := json.Marshal(map[string]any{key: back.Items, "total_count": back.TotalCount, "page": back.Page, "per_page": back.PerPage})
		if !bytes.Equal(first, second) {
			t.Fatalf("the page changed in a round trip:\n%s\n%s", first, second)
		}
	})
}

// FuzzDecodeImage decodes arbitrary responses to Images.List: images only come in pages.
func FuzzDecodeImage(f *testing.F) {
	fuzzPage(f, "images", func(c *Client) (*Page[Image], error) { return c.Images.List(context.Background(), nil) })
}

// FuzzDecodePage decodes arbitrary page envelopes through Instances.List.
func FuzzDecodePage(f *testing.F) {
	fuzzPage(f, "instances", func(c *Client) (*Page[Instance], error) { return c.Instances.List(context.Background(), nil) })
}

// FuzzParseRetryAfter checks that a Retry-After, in seconds or as an HTTP date, never gives a
// negative wait nor one above the 24 h cap, and that a number of seconds is taken as it is.
func FuzzParseRetryAfter(f *testing.F) {
	f.Fuzz(func(t *testing.T, v string, nowUnix int64) {
		now := time.Unix(nowUnix, 0)
		d := parseRetryAfter(v, now)
		if d < 0 || d > 24*time.Hour {
			t.Fatalf("Retry-After %q at %v gave %v", v, now, d)
		}
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			want := time.Duration(min(max(n, 0), 86400)) * time.Second
			if d != want {
				t.Fatalf("Retry-After %q gave %v, want %v", v, d, want)
			}
		}
		if d != parseRetryAfter(v, now) {
			t.Fatalf("Retry-After %q is not read the same twice", v)
		}
	})
}

// FuzzValidateRequests decodes arbitrary JSON into every request type and validates it, with
// arbitrary page options besides. Validate never panics, never changes the request, gives the same
// response twice, and an error is always a *ValidationError matching ErrInvalidRequest whose Field
// names, in JSON spelling, a field present in the request ("rules[2].port_range_min"), or is
// "request" for the request as a whole.
func FuzzValidateRequests(f *testing.F) {
	f.Fuzz(func(t *testing.T, body []byte, page, perPage int) {
		list := ListOptions{Page: page, PerPage: perPage}
		reqs := []validator{&list, &ImageListOptions{ListOptions: list}}
		for _, req := range []validator{
			&InstanceCreateRequest{}, &InstanceUpdateRequest{},
			&SecurityGroupCreateRequest{}, &SecurityGroupUpdateRequest{},
			&FloatingIPCreateRequest{}, &FloatingIPUpdateRequest{},
			&SnapshotCreateRequest{},
		} {
			_ = json.Unmarshal(body, req) // a partly decoded request is validated too
			reqs = append(reqs, req)
		}
		for _, req := range reqs {
			before, _ := json.Marshal(req)
			err := req.Validate()
			if again := req.Validate(); fmt.Sprint(again) != fmt.Sprint(err) {
				t.Fatalf("%T: Validate gave %v, then %v", req, err, again)
			}
			if after, _ := json.Marshal(req); !bytes.Equal(before, after) {
				t.Fatalf("%T: Validate changed the request:\n%s\n%s", req, before, after)
			}
			if err == nil {
				continue
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("%T: %v is not a *ValidationError", req, err)
			}
			if ve.Field == "" || ve.Reason == "" || (ve.Field != "request" && !namesField(reflect.ValueOf(req), ve.Field)) {
				t.Fatalf("%T: field %q is not a JSON spelling of one of its fields (%v)", req, ve.Field, err)
			}
		}
	})
}

// namesField reports whether path names a field present in v: dot-separated names from the fields'
// json tags (url tags for query options), each optionally indexed within the slice's length.
func namesField(v reflect.Value, path string) bool {
	for _, seg := range strings.Split(path, ".") {
		name, index, indexed := strings.Cut(seg, "[")
		for v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return false
			}
			v = v.Elem()
		}
		if v = fieldByTag(v, name); !v.IsValid() {
			return false
		}
		if indexed {
			i, err := strconv.Atoi(strings.TrimSuffix(index, "]"))
			if !strings.HasSuffix(index, "]") || err != nil || v.Kind() != reflect.Slice || i < 0 || i >= v.Len() {
				return false
			}
			v = v.Index(i)
		}
	}
	return true
}

// fieldByTag returns the field of struct v whose json (or url) tag names name, looking into embedded
// structs; the zero Value when there is none.
func fieldByTag(v reflect.Value, name string) reflect.Value {
	if v.Kind() != reflect.Struct || name == "" {
		return reflect.Value{}
	}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		if f.Anonymous {
			if found := fieldByTag(v.Field(i), name); found.IsValid() {
				return found
			}
			continue
		}
		for _, tag := range []string{"json", "url"} {
			if n, _, _ := strings.Cut(f.Tag.Get(tag), ","); n == name {
				return v.Field(i)
			}
		}
	}
	return reflect.Value{}
}

// FuzzDecodeVolume decodes arbitrary responses to Volumes.Create, a wrapped resource behind a POST.
func FuzzDecodeVolume(f *testing.F) {
	f.Add(string(golden(f, "volume_create_response.json")))
	f.Add(string(golden(f, "volume_get_response.json")))
	fuzzResource(f, "volume", true, func(c *Client) (*Volume, error) {
		return c.Volumes.Create(context.Background(), &VolumeCreateRequest{Name: "v", Region: "r", Size: 1})
	})
}

// FuzzDecodeSSHKey decodes arbitrary responses to SSHKeys.Get, the one resource that is not
// wrapped. The call returns a key or an error, never both nor neither; a key always has an ID; an
// error is never an *APIError (the status was a success); a decoded key, encoded again, decodes to
// the same JSON.
func FuzzDecodeSSHKey(f *testing.F) {
	f.Add(string(golden(f, "ssh_key_response.json")))
	f.Add(`{"id": "k-1", "value": "ssh-ed25519 AAAA\u00e9"}`)
	f.Add(`{"ssh_key": {"id": "k-1"}}`)
	f.Fuzz(func(t *testing.T, body string) {
		got, err := responding(t, http.StatusOK, body).SSHKeys.Get(context.Background(), "k-1")
		if (got == nil) == (err == nil) {
			t.Fatalf("key %v with error %v", got, err)
		}
		if err != nil {
			var apiErr *APIError
			if errors.As(err, &apiErr) {
				t.Fatalf("a 200 response gave an *APIError: %v", err)
			}
			return
		}
		if got.ID == "" {
			t.Fatalf("a key without an ID was returned from %q", body)
		}
		first, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("the decoded key does not encode: %v", err)
		}
		back, err := responding(t, http.StatusOK, string(first)).SSHKeys.Get(context.Background(), "k-1")
		if err != nil {
			t.Fatalf("the re-encoded key does not decode: %v\n%s", err, first)
		}
		second, _ := json.Marshal(back)
		if !bytes.Equal(first, second) {
			t.Fatalf("the key changed in a round trip:\n%s\n%s", first, second)
		}
	})
}
