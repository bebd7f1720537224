package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	querystring "github.com/google/go-querystring/query"
	"github.com/hashicorp/go-retryablehttp"
)

// validator is a request body or a query that can check itself before it is sent.
type validator interface{ Validate() error }

// request is one call of an operation: the IDs that fill its path, the options encoded as its query
// (by go-querystring, from their url tags) and its JSON body. The query and the body are validated
// before anything is sent; nil means none.
type request struct {
	op    operation
	ids   []string
	query validator
	body  validator
}

// do validates r, sends it through the retrying transport and returns the success response's body.
// A non-2xx response is an *APIError; a failure that leaves a POST's outcome unknown matches
// [ErrOutcomeUnknown]. Every endpoint goes through do.
func (c *Client) do(ctx context.Context, r request) ([]byte, error) {
	if ctx == nil {
		return nil, errNilContext
	}
	path, err := expandPath(r.op.path, r.ids)
	if err != nil {
		return nil, err
	}
	u := c.baseURL + path
	if r.query != nil {
		if err := r.query.Validate(); err != nil {
			return nil, err
		}
		v, err := querystring.Values(r.query)
		if err != nil {
			return nil, fmt.Errorf("compute: %s %s: encoding query: %w", r.op.method, path, err)
		}
		if q := v.Encode(); q != "" {
			u += "?" + q
		}
	}
	// body stays a nil interface without a request body: a nil []byte would still give the request
	// an empty Body, which net/http then probes, with a goroutine and a timer, on every send.
	var body any
	if r.body != nil {
		if err := r.body.Validate(); err != nil {
			return nil, err
		}
		b, err := json.Marshal(r.body)
		if err != nil {
			return nil, fmt.Errorf("compute: %s %s: encoding body: %w", r.op.method, path, err)
		}
		body = b
	}

	st := &callState{op: r.op}
	req, err := retryablehttp.NewRequestWithContext(withCallState(ctx, st), r.op.method, u, body)
	if err != nil {
		return nil, fmt.Errorf("compute: %s %s: %w", r.op.method, path, err)
	}
	req.Header.Set("User-Agent", c.userAgent)
	req.Header.Set("Accept", "application/json")
	if r.op.accept != "" {
		req.Header.Set("Accept", r.op.accept)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	resp, err := c.retrying.Do(req)
	if err != nil {
		return nil, c.failed(st, path, err)
	}
	defer resp.Body.Close()
	// The transport has read the body already (see attemptTransport.RoundTrip).
	data, err := bodyBytes(resp.Body)
	if err != nil {
		return nil, c.failed(st, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := newAPIError(resp, data, r.op.method, path, st.n, &c.transport.cred)
		if r.op.method != http.MethodGet && resp.StatusCode < 500 && st.processed {
			// An earlier attempt may have been processed before its response was lost (a 5xx or a
			// broken connection), so this refusal may be about what that attempt did: a DELETE
			// refused because the instance is now "deleting", an action refused because the
			// instance is already stopping. Only the resource's not-found 404 says for sure that a
			// DELETE's work is done; anything else is an unknown outcome, never a definite failure.
			if r.op.gone(apiErr) {
				return nil, nil
			}
			return nil, fmt.Errorf("%w: %w", ErrOutcomeUnknown, apiErr)
		}
		if !r.op.idempotent && resp.StatusCode >= 500 {
			return nil, fmt.Errorf("%w: %w", ErrOutcomeUnknown, apiErr)
		}
		return nil, apiErr
	}
	return data, nil
}

// failed wraps a call that ended without a response: the transport's error, scrubbed of the token,
// matches [ErrOutcomeUnknown] when the request was a POST that may have been processed, and still
// carries the last *APIError when the context ended while the client waited to retry after it.
func (c *Client) failed(st *callState, path string, err error) error {
	err = redactedError(fmt.Errorf("compute: %s %s: %w", st.op.method, path, err), &c.transport.cred)
	if last := st.last; last != nil {
		apiErr := newAPIError(last.resp, last.body, st.op.method, path, st.n, &c.transport.cred)
		err = fmt.Errorf("%w (after %w)", err, apiErr)
	}
	if !st.op.idempotent && st.processed {
		return fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
	}
	return err
}

// decodeResponse decodes a success response's JSON object into out. A POST's response that cannot
// be read matches [ErrOutcomeUnknown]: the request was processed (a create was billed), so look the
// resource up rather than send it again.
func decodeResponse(op operation, data []byte, out any) error {
	err := decodeObject(data, out)
	if err != nil {
		return unreadable(op, fmt.Errorf("compute: %s %s: decoding the response: %w", op.method, op.path, err))
	}
	return nil
}

// unreadable marks err, a success response that cannot be used, as an unknown outcome for a POST.
func unreadable(op operation, err error) error {
	if !op.idempotent {
		return fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
	}
	return err
}

// fetch sends r and returns the resource of its response, read through the resource's envelope
// (a one-line wrapper struct, or the resource itself for an SSH key).
func fetch[T any](ctx context.Context, c *Client, r request, env envelope[T]) (*T, error) {
	data, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	if err := decodeResponse(r.op, data, env); err != nil {
		return nil, err
	}
	v := env.resource()
	if v == nil {
		return nil, unreadable(r.op, fmt.Errorf("compute: %s %s: the response has no %s", r.op.method, r.op.path, missing(env)))
	}
	if id, ok := idOf(*v); ok && id == "" {
		// Without its id a resource cannot be read, changed or deleted: it is not the resource.
		return nil, unreadable(r.op, fmt.Errorf("compute: %s %s: the response's %s has no id", r.op.method, r.op.path, missing(env)))
	}
	return v, nil
}

// idOf reads the ID field of a resource; ok is false for a type without one.
func idOf(v any) (id string, ok bool) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Struct {
		return "", false
	}
	f := rv.FieldByName("ID")
	if !f.IsValid() || f.Kind() != reflect.String {
		return "", false
	}
	return f.String(), true
}

// missing names what env did not find, for an error: its key, from the wrapper struct's tag, or
// the type of a resource that is its own envelope (an SSH key without an ID).
func missing(env any) string {
	t := reflect.TypeOf(env).Elem()
	if t.Kind() == reflect.Struct && t.NumField() == 1 {
		if key, _, _ := strings.Cut(t.Field(0).Tag.Get("json"), ","); key != "" {
			return fmt.Sprintf("%q object", key)
		}
	}
	return t.Name()
}

// send sends r and discards the response's body: a delete or an action.
func send(ctx context.Context, c *Client, r request) error {
	_, err := c.do(ctx, r)
	return err
}

// expandPath fills tmpl's {name} segments with ids, path-escaped (a space, "?" or "#" cannot end
// the path). An ID that could name another resource is refused with a ValidationError naming the
// segment, before any request (see checkPathID).
func expandPath(tmpl string, ids []string) (string, error) {
	var b strings.Builder
	rest := tmpl
	for _, id := range ids {
		before, after, _ := strings.Cut(rest, "{")
		name, after, ok := strings.Cut(after, "}")
		if !ok {
			return "", fmt.Errorf("compute: internal: %d IDs for path %s", len(ids), tmpl)
		}
		if err := checkPathID(name, id); err != nil {
			return "", err
		}
		b.WriteString(before)
		b.WriteString(url.PathEscape(id))
		rest = after
	}
	if strings.Contains(rest, "{") {
		return "", fmt.Errorf("compute: internal: %d IDs for path %s", len(ids), tmpl)
	}
	b.WriteString(rest)
	return b.String(), nil
}

// checkPathID refuses an ID that could reach another resource than the one it names. Escaped, "/"
// and "\\" are still read as separators by some proxies and servers, "%" is decoded a second time
// by some, "." and ".." are dot segments that a proxy resolves, and control characters end a
// request line for a careless one. The service's IDs are UUIDs, so refusing them costs nothing.
func checkPathID(name, id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return invalid(name, "must not be empty")
	case id == "." || id == "..":
		return invalid(name, "must not be a dot segment (%q)", id)
	case strings.ContainsAny(id, `/\%`):
		return invalid(name, `must not contain "/", "\\" or "%%" (%q)`, id)
	case strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return invalid(name, "must not contain control characters (%q)", id)
	}
	return nil
}

// errNilContext refuses a nil context before any request.
var errNilContext = invalid("ctx", "must not be nil (use context.Background())")

// envelope is the shape of a response that carries one resource: a one-line wrapper struct whose
// tag names the key ({"instance": {...}}), declared beside its resource, or the resource itself
// where the service does not wrap it (an SSH key). resource returns nil when the key was absent.
type envelope[T any] interface{ resource() *T }

// pageBody is the shape of a list response: a struct with the items under the collection's key
// (its tag) and the counts beside them, declared beside its resource.
type pageBody[T any] interface {
	parts() (*items[T], *pageCounts)
}

// pageCounts are the counts every page carries beside its items.
type pageCounts struct {
	TotalCount int `json:"total_count"`
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
}

// items is a page's list of resources. It is decoded one item at a time, so that a page holding
// more items than max is refused as soon as the item past max begins, before it is built: a broken
// or hostile server cannot make a page cost more than max items. present records that the key was
// in the response (a null counts as an empty list; only a missing key is no list).
type items[T any] struct {
	list    []T
	max     int
	present bool
}

// UnmarshalJSON implements json.Unmarshaler.
// A repeated key replaces the list, and a null clears it, as encoding/json does for a slice.
func (l *items[T]) UnmarshalJSON(data []byte) error {
	l.list, l.present = nil, true
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return errors.New("the collection is not a JSON array")
	}
	for dec.More() {
		if len(l.list) >= l.max {
			return fmt.Errorf("the page holds more than the %d items asked for", l.max)
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return err
		}
		l.list = append(l.list, v)
	}
	return nil
}

// decodeObject decodes data, which must be one JSON object, into out, following encoding/json's
// rules for a struct: a key matches case-insensitively, a repeated key is decoded again, a null
// leaves a pointer nil, and anything but white space after the object is an error. Keys the SDK
// does not know are skipped, so that a field the service adds later costs nothing.
func decodeObject(data []byte, out any) error {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return errors.New("the response is not a JSON object")
	}
	return json.Unmarshal(data, out)
}

// OpenAPI returns the service's machine-readable description, the bytes of
// GET /compute/v1/openapi.yaml. It is the one request that asks for YAML rather than JSON.
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	return c.do(ctx, request{op: opOpenAPI})
}
