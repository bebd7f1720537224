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

// request is one call of an operation: the IDs that fill its path, the options encoded as its query
// (by go-querystring, from their url tags) and its JSON body. The query and the body are validated
// before anything is sent; nil means none.
type request struct {
	op    operation
	ids   []string
	query validator
	body  validator
}

// do validates r, sends it through the retrying transport and hands the success response's body
// to read (nil drops it), whose error is the call's. A non-2xx response is an *APIError; a failure
// that leaves a POST's outcome unknown matches [ErrOutcomeUnknown]. Every endpoint goes through do,
// which tells the client's observer and the context's captured Response (see [CaptureResponse]) how
// the call went, reading included.
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
		if next := c.observer.CallStart(ctx, c.call(r.op)); next != nil {
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
		RequestID: c.transport.cred.outside(st.requestID), Attempts: st.n, Duration: time.Since(start), LimiterWait: st.limiterWait}
	if captured != nil {
		*captured = resp
	}
	if c.observer.CallEnd != nil {
		c.observer.CallEnd(ctx, resp, err)
	}
	return err
}

// call describes op for an observer.
func (c *Client) call(op operation) Call {
	return Call{Operation: op.name, Method: op.method, Path: op.path, Host: c.transport.host}
}

// send is do's work: the request built, validated, sent and its response turned into bytes or an
// error.
func (c *Client) send(ctx context.Context, r request, st *callState) ([]byte, error) {
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
			return nil, fmt.Errorf("compute: %s %s: encoding query: %w", r.op.method, r.op.path, err)
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
			return nil, fmt.Errorf("compute: %s %s: encoding body: %w", r.op.method, r.op.path, err)
		}
		body = b
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
	// The transport has read the body already (see attemptTransport.RoundTrip).
	data, err := bodyBytes(resp.Body)
	if err != nil {
		return nil, c.failed(st, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := newAPIError(resp, data, r.op.method, c.transport.cred.shownPath(r.op, r.ids), st.n, &c.transport.cred)
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
func (c *Client) failed(st *callState, err error) error {
	path := c.transport.cred.shownPath(st.op, st.ids)
	err = fmt.Errorf("compute: %s %s: %w", st.op.method, path, c.transport.cred.outsideErr(err))
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
// resource up rather than send it again. The decoder's error can quote the response (a value that
// does not parse), so it is scrubbed and cut like any text from the server.
func (c *Client) decodeResponse(op operation, data []byte, out any) error {
	err := decodeObject(data, out)
	if err != nil {
		err = c.transport.cred.outsideErr(err)
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
			// A response about another resource than the one asked for is a broken or hostile
			// server's: acting on it could change or delete the wrong resource.
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
	return c.do(ctx, r, nil)
}

// expandPath fills tmpl's {name} segments with ids, path-escaped (a space, "?" or "#" cannot end
// the path). An ID that could name another resource is refused with a ValidationError naming the
// segment, before any request (see checkPathID).
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

// checkPathID refuses an ID that could reach another resource than the one it names. Escaped, "/"
// and "\\" are still read as separators by some proxies and servers, "%" is decoded a second time
// by some, "." and ".." are dot segments that a proxy resolves, and control characters end a
// request line for a careless one. The service's IDs are UUIDs, so refusing them costs nothing.
// The reason never quotes the ID, which can hold anything (a secret pasted by mistake).
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

// envelope is the shape of a response that carries one resource: a one-line wrapper struct whose
// tag names the key ({"instance": {...}}), declared beside its resource, or the resource itself
// where the service does not wrap it (an SSH key). resource returns nil when the key was absent.
type envelope[T any] interface{ resource() *T }

// pageBody is the shape of a list response: a struct with the items under the collection's key
// (its tag) and the counts beside them, declared beside its resource.
type pageBody[T any] interface {
	parts() (*[]T, *pageCounts)
}

// pageCounts are the counts every page carries beside its items.
type pageCounts struct {
	TotalCount int `json:"total_count"`
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
}

// decodeObject decodes data, which must be one JSON object, into out, following encoding/json's
// rules for a struct: a key matches case-insensitively, a repeated key is decoded again, a null
// leaves a pointer nil, and anything but white space after the object is an error. Keys the SDK
// does not know are skipped, so that a field the service adds later costs nothing.
//
// Before anything is built, a response whose arrays (or maps) hold so many items that decoding
// them could cost more than maxDecodeCost times its size (plus decodeAllowance) is refused: a
// thousand empty objects are a few kilobytes of JSON and could be a thousand instances in memory.
// A real response spells its items out, so it stays far below that bound.
func decodeObject(data []byte, out any) error {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return errors.New("the response is not a JSON object")
	}
	elemCost, mapCost := costs(reflect.TypeOf(out))
	bound := maxDecodeCost*len(data) + decodeAllowance
	// An item takes two bytes of JSON at least ("0,"): a body too short to hold enough items to
	// pass the bound is not scanned.
	if len(data)/2*max(elemCost, mapCost) > bound {
		elems, members := measure(data)
		if elems*elemCost+members*mapCost > bound {
			return fmt.Errorf("the response holds %d items in %d bytes, more than a real response could", elems+members, len(data))
		}
	}
	return json.Unmarshal(data, out)
}

// The bound of decodeObject: what decoding a response may cost, as a multiple of its size, plus an
// allowance that a page of 100 items costs at most, however short their JSON.
const (
	maxDecodeCost   = 8
	decodeAllowance = 128 << 10
)

// measure counts, in one pass over the JSON text data, the elements of every array and the members
// of every object, at any depth. It does not validate data (json.Unmarshal, which comes after it,
// does); on valid JSON the counts are exact.
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

// costs is, for a response decoded into a value of type t, the most memory one array element can
// cost (twice the largest slice element of t, since a slice grows by doubling) and one object
// member (a map entry, when t has a map; else nothing: a struct's fields are already counted).
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

// mapEntryCost is what one member of a JSON object decoded into a map costs at most, besides the
// bytes of its key and value: the entry and the map's own growth.
const mapEntryCost = 96

// OpenAPI returns the service's machine-readable description, the bytes of
// GET /compute/v1/openapi.yaml. It is the one request that asks for YAML rather than JSON.
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	var doc []byte
	err := c.do(ctx, request{op: opOpenAPI}, func(data []byte) error { doc = data; return nil })
	return doc, err
}
