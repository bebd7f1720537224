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
	"sync"
	"time"

	querystring "github.com/google/go-querystring/query"
	"github.com/hashicorp/go-retryablehttp"
)

// validator is a request body or a query that can check itself before it is sent.
type validator interface{ Validate() error }

// validate checks v before any request. Every check of a caller's request goes through it, so that
// the *ValidationError, which quotes the caller's values, never holds the token.
func (c *Client) validate(v validator) error {
	err := v.Validate()
	if err == nil || c.transport == nil {
		return err
	}
	return c.transport.cred.outsideInvalid(err)
}

// request is one call of an operation: the IDs of its path, its query (from url tags) and its JSON
// body, both validated before sending; nil means none.
type request struct {
	op    operation
	ids   []string
	query validator
	body  validator
}

// do sends r and hands the success response's body to read (nil drops it), whose error is the
// call's. Every endpoint goes through it; it tells the observer and a captured Response
// ([CaptureResponse]) how the call went, reading included.
func (c *Client) do(ctx context.Context, r request, read func(data []byte) error) error {
	if ctx == nil {
		return errNilContext
	}
	st := &callState{op: r.op, ids: r.ids}
	captured, _ := ctx.Value(responseKey{}).(*Response)
	observed := captured != nil || c.observer.CallStart != nil || c.observer.CallEnd != nil
	var start time.Time
	if observed {
		start = time.Now()
	}
	if c.observer.CallStart != nil {
		if next := c.observer.CallStart(ctx, r.op.call(c.transport.host)); next != nil {
			ctx = next
		}
	}
	data, err := c.send(ctx, r, st)
	if err == nil && read != nil {
		err = read(data)
	}
	if !observed {
		return err
	}
	resp := Response{Operation: r.op.name, Method: r.op.method, Path: r.op.path, StatusCode: st.status,
		RequestID: c.transport.cred.outside(st.requestID), Attempts: st.n, Duration: time.Since(start), LimiterWait: st.limiterWait,
		Gone: provesGone(ctx, err)}
	if captured != nil {
		*captured = resp
	}
	if c.observer.CallEnd != nil {
		c.observer.CallEnd(ctx, resp, err)
	}
	return err
}

// send builds, validates and sends r, and turns its response into bytes or an error.
func (c *Client) send(ctx context.Context, r request, st *callState) ([]byte, error) {
	path, err := expandPath(r.op.path, r.ids)
	if err != nil {
		return nil, err
	}
	u := c.baseURL + path
	if r.query != nil {
		if err := c.validate(r.query); err != nil {
			return nil, err
		}
		v, err := querystring.Values(r.query)
		if err != nil {
			return nil, fmt.Errorf("compute: %s %s: encoding query: %w", r.op.method, r.op.path, err)
		}
		if q := v.Encode(); q != "" {
			u += "?" + q
		}
	}
	// A nil interface, not a nil []byte, which would give the request an empty Body that net/http
	// probes with a goroutine and a timer.
	var body any
	if r.body != nil {
		if err := c.validate(r.body); err != nil {
			return nil, err
		}
		b, err := json.Marshal(r.body)
		if err != nil {
			return nil, fmt.Errorf("compute: %s %s: encoding body: %w", r.op.method, r.op.path, err)
		}
		body, st.body = b, b
	}

	req, err := retryablehttp.NewRequestWithContext(withCallState(ctx, st), r.op.method, u, body)
	if err != nil {
		return nil, fmt.Errorf("compute: %s %s: %w", r.op.method, c.transport.cred.shownPath(r.op, r.ids), c.transport.cred.outsideErr(err))
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
		return nil, c.failed(st, err)
	}
	defer resp.Body.Close()
	// The transport has read the body already.
	data, err := bodyBytes(resp.Body)
	if err != nil {
		return nil, c.failed(st, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := newAPIError(resp, data, r.op.method, c.transport.cred.shownPath(r.op, r.ids), st.n, &c.transport.cred)
		hideSecrets(apiErr, st.body)
		if r.op.method != http.MethodGet && resp.StatusCode < 500 && st.processed {
			// An earlier attempt may have been processed, so this refusal may be about it (a DELETE
			// refused as the instance is now "deleting"). Only the resource's not-found 404 says a
			// DELETE's work is done; anything else is an unknown outcome.
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

// failed wraps the error of a call that ended without a response, scrubbed, with the last
// *APIError if any, matching [ErrOutcomeUnknown] for a POST that may have been processed.
func (c *Client) failed(st *callState, err error) error {
	path := c.transport.cred.shownPath(st.op, st.ids)
	err = fmt.Errorf("compute: %s %s: %w", st.op.method, path, c.transport.cred.outsideErr(err))
	if last := st.last; last != nil {
		apiErr := newAPIError(last.resp, last.body, st.op.method, path, st.n, &c.transport.cred)
		hideSecrets(apiErr, st.body)
		err = fmt.Errorf("%w (after %w)", err, apiErr)
	}
	if !st.op.idempotent && st.processed {
		return fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
	}
	return err
}

// hideSecrets hides in e's message the values of the secret fields of the request's body (a
// password, a startup script: see [WithDebugDump]) that the service quoted, as the debug dump hides
// them: an error is logged and shown where a password must not be.
func hideSecrets(e *APIError, body []byte) {
	if e.Message == "" || len(body) == 0 {
		return
	}
	if _, secrets := scrubBody(body); len(secrets) > 0 {
		e.Message = hideEach(e.Message, secrets)
	}
}

// decodeResponse decodes a success response into out. A POST's unreadable response matches
// [ErrOutcomeUnknown]. The decoder's error can quote the response, so it is scrubbed.
func (c *Client) decodeResponse(op operation, data []byte, out any) error {
	err := decodeObject(data, out)
	if err != nil {
		err = c.transport.cred.outsideErr(err)
		return unreadable(op, fmt.Errorf("compute: %s %s: decoding the response: %w", op.method, op.path, err))
	}
	return nil
}

// accepted marks the failure of a call whose request the service answered with a success status,
// whatever went wrong after: a create that failed so was processed all the same. Its text is its
// error's.
type accepted struct{ error }

func (e accepted) Unwrap() error { return e.error }

// unreadable marks err, a success response that cannot be used, as accepted, and as an unknown
// outcome for a POST.
func unreadable(op operation, err error) error {
	err = accepted{err}
	if !op.idempotent {
		return fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
	}
	return err
}

// fetch sends r and returns the resource of its response, read through its envelope.
func fetch[T any](ctx context.Context, c *Client, r request, env envelope[T]) (*T, error) {
	var v *T
	err := c.do(ctx, r, func(data []byte) error {
		if err := c.decodeResponse(r.op, data, env); err != nil {
			return err
		}
		if v = env.resource(); v == nil {
			return unreadable(r.op, fmt.Errorf("compute: %s %s: the response has no %s", r.op.method, r.op.path, missing(env)))
		}
		id, ok := stringField(*v, "ID")
		switch {
		case !ok:
		case id == "":
			// Without its id a resource cannot be read, changed or deleted: it is not the resource.
			return unreadable(r.op, fmt.Errorf("compute: %s %s: the response's %s has no id", r.op.method, r.op.path, missing(env)))
		case r.op.names() && id != r.ids[len(r.ids)-1], r.op.copies && id == r.ids[len(r.ids)-1]:
			// Acting on a response about another resource could change or delete the wrong one.
			return unreadable(r.op, fmt.Errorf("compute: %s %s: the response's %s has id %q, not the one asked for",
				r.op.method, c.transport.cred.shownPath(r.op, r.ids), missing(env), c.transport.cred.outside(id)))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// missing names what env did not find, for an error: its JSON key, or its type.
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
	return c.do(ctx, r, nil)
}

// expandPath fills tmpl's {name} segments with ids, path-escaped, after checkPathID.
func expandPath(tmpl string, ids []string) (string, error) {
	return fillPath(tmpl, ids, url.PathEscape)
}

// fillPath fills tmpl's {name} segments with fill(id) for each of ids, after checkPathID.
func fillPath(tmpl string, ids []string, fill func(string) string) (string, error) {
	var b strings.Builder
	n := len(tmpl)
	for _, id := range ids {
		n += len(id)
	}
	b.Grow(n) // one allocation, unless an ID needs escaping
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
		b.WriteString(fill(id))
		rest = after
	}
	if strings.Contains(rest, "{") {
		return "", fmt.Errorf("compute: internal: %d IDs for path %s", len(ids), tmpl)
	}
	b.WriteString(rest)
	return b.String(), nil
}

// checkPathID refuses an ID that could reach another resource: some proxies read an escaped "/" or
// "\\" as a separator, decode "%" twice or resolve "." and "..", and control characters end a
// request line. The service's IDs are UUIDs. The reason never quotes the ID (it may be a secret).
func checkPathID(name, id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return invalid(name, "must not be empty")
	case id == "." || id == "..":
		return invalid(name, "must not be a dot segment")
	case strings.ContainsAny(id, `/\%`):
		return invalid(name, `must not contain "/", "\\" or "%%" (at byte %d)`, strings.IndexAny(id, `/\%`))
	case strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return invalid(name, "must not contain control characters (at byte %d)", strings.IndexFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }))
	}
	return nil
}

// errNilContext refuses a nil context before any request.
var errNilContext = invalid("ctx", "must not be nil (use context.Background())")

// envelope is the shape of a response that carries one resource: a wrapper struct
// ({"instance": {...}}) or the resource itself (an SSH key). resource is nil when it is absent.
type envelope[T any] interface{ resource() *T }

// pageBody is the shape of a list response: the items under the collection's key, and the counts.
type pageBody[T any] interface {
	parts() (*[]T, *pageCounts)
}

// pageCounts are the counts every page carries beside its items.
type pageCounts struct {
	TotalCount int `json:"total_count"`
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
}

// decodeObject decodes data, which must be one JSON object, into out. A response whose items would
// cost more than maxDecodeCost times its size (plus decodeAllowance) to decode is refused first: a
// few kilobytes of empty objects could be thousands of instances in memory.
func decodeObject(data []byte, out any) error {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return errors.New("the response is not a JSON object")
	}
	elemCost, mapCost := costs(reflect.TypeOf(out))
	bound := maxDecodeCost*len(data) + decodeAllowance
	// An item takes two bytes at least ("0,"): a body too short to pass the bound is not scanned.
	if len(data)/2*max(elemCost, mapCost) > bound {
		elems, members := measure(data)
		if elems*elemCost+members*mapCost > bound {
			return fmt.Errorf("the response holds %d items in %d bytes, more than a real response could", elems+members, len(data))
		}
	}
	return json.Unmarshal(data, out)
}

// The bound of decodeObject, as a multiple of the response's size, plus an allowance for a page of
// 100 items, however short their JSON.
const (
	maxDecodeCost   = 8
	decodeAllowance = 128 << 10
)

// measure counts, in one pass, the elements of every array and the members of every object in
// data, at any depth. It does not validate data; on valid JSON the counts are exact.
func measure(data []byte) (elems, members int) {
	var open []byte // the containers the scan is in, '[' or '{'
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			for { // to the closing quote: one not escaped by an odd number of backslashes
				j := bytes.IndexByte(data[i+1:], '"')
				if j < 0 {
					return elems, members
				}
				i += j + 1
				k := i - 1
				for k > 0 && data[k] == '\\' {
					k--
				}
				if (i-1-k)%2 == 0 {
					break
				}
			}
		case '[', '{':
			open = append(open, c)
			j := i + 1
			for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
				j++
			}
			if j < len(data) && data[j] != ']' && data[j] != '}' { // not empty: its first item
				elems, members = count(c, elems, members)
			}
		case ']', '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		case ',':
			if len(open) > 0 {
				elems, members = count(open[len(open)-1], elems, members)
			}
		}
	}
	return elems, members
}

// count adds one item to the elements of an array ('[') or the members of an object.
func count(container byte, elems, members int) (int, int) {
	if container == '[' {
		return elems + 1, members
	}
	return elems, members + 1
}

// costs is the most memory one array element (twice the largest slice element, as slices double)
// and one object member (a map entry, if t has a map) of a value of type t can cost.
func costs(t reflect.Type) (elem, member int) {
	if c, ok := costCache.Load(t); ok {
		return c.([2]int)[0], c.([2]int)[1]
	}
	var c [2]int
	addCosts(t, map[reflect.Type]bool{}, &c)
	costCache.Store(t, c)
	return c[0], c[1]
}

// costCache holds costs' result per type.
var costCache sync.Map

// addCosts raises c to the costs of t's slices and maps, at any depth.
func addCosts(t reflect.Type, seen map[reflect.Type]bool, c *[2]int) {
	if seen[t] {
		return
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Pointer:
		addCosts(t.Elem(), seen, c)
	case reflect.Struct:
		for i := range t.NumField() {
			addCosts(t.Field(i).Type, seen, c)
		}
	case reflect.Slice, reflect.Array:
		c[0] = max(c[0], 2*int(t.Elem().Size()))
		addCosts(t.Elem(), seen, c)
	case reflect.Map, reflect.Interface:
		c[1] = max(c[1], mapEntryCost)
		if t.Kind() == reflect.Map {
			addCosts(t.Elem(), seen, c)
		}
	}
}

// mapEntryCost is what one map entry costs at most besides its key and value.
const mapEntryCost = 96

// OpenAPI returns the service's machine-readable description: GET /compute/v1/openapi.yaml.
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	var doc []byte
	err := c.do(ctx, request{op: opOpenAPI}, func(data []byte) error { doc = data; return nil })
	return doc, err
}
