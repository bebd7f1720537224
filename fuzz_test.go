package compute

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzExpandPath checks that no ID can change the route: the expanded path always parses back to the
// template's segments with the ID as exactly one segment, and never carries a query or fragment.
func FuzzExpandPath(f *testing.F) {
	for _, seed := range []string{"i-1", "../x", "a?b", "..", ".", "a#b", "%2F", "a/b/c", "\x00", "é", " "} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, id string) {
		p, err := expandPath("/compute/v1/instances/{instance_id}/actions", []string{id})
		if strings.TrimSpace(id) == "" {
			if err == nil {
				t.Fatalf("empty ID %q accepted", id)
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

// FuzzAPIError feeds arbitrary error bodies: the result is always an *APIError with the status and a
// bounded, printable, valid UTF-8 message.
func FuzzAPIError(f *testing.F) {
	for _, seed := range []string{"", `{"code":"02008","message":"x"}`, `{"code":2008}`, "<html>", `{"code":null}`, "\xff\xfe", `{"message":"` + strings.Repeat("a", 600) + `"`} {
		f.Add(seed, 500)
	}
	f.Fuzz(func(t *testing.T, body string, status int) {
		resp := &http.Response{StatusCode: status, Header: http.Header{"Retry-After": {body}}, Body: io.NopCloser(strings.NewReader(body))}
		e := newAPIError(resp, "GET", "/p", 1, nil)
		if e.StatusCode != status {
			t.Fatal("status lost")
		}
		_ = e.Error()
		if e.Code == "" && (!utf8.ValidString(e.Message) || len(e.Message) > maxExcerpt+len("…")) {
			t.Fatalf("excerpt not bounded or not valid UTF-8: %q", e.Message)
		}
		if e.RetryAfter < 0 {
			t.Fatal("negative Retry-After")
		}
	})
}
