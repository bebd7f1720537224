package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	querystring "github.com/google/go-querystring/query"
	"github.com/hashicorp/go-retryablehttp"
)

// operation is one endpoint of the contract, declared once in operations.go: retries, logs and
// errors all read the same fact.
type operation struct {
	method string
	// path is a template whose {name} segments are filled, in order, with path-escaped IDs; an empty
	// ID is refused with a ValidationError naming the segment ("instance_id").
	path string
	// idempotent operations are retried on 502/503/504 and network errors; the others never are,
	// once they may have reached the service.
	idempotent bool
	// accept overrides the Accept header (application/json by default).
	accept string
}

// maxSuccessBody bounds a successful answer (the largest is a page of 100 instances).
const maxSuccessBody = 64 << 20

// call sends op with the IDs filling its path, the query encoded from q (a *ListOptions, an
// *ImageListOptions, another struct with url tags, or nil) and in as JSON body (nil for none), and
// decodes the JSON answer into out: nil discards it, an *envelope fills its targets, a *[]byte
// receives the raw body. Every endpoint goes through call.
func (c *Client) call(ctx context.Context, op operation, ids []string, q, in, out any) error {
	u, path, err := c.requestURL(op, ids, q)
	if err != nil {
		return err
	}
	if ctx == nil {
		return errNilContext
	}
	var body any
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("compute: %s %s: encoding body: %w", op.method, path, err)
		}
		body = b
	}
	st := &callState{Context: ctx, idempotent: op.idempotent}
	req, err := retryablehttp.NewRequestWithContext(st, op.method, u, body)
	if err != nil {
		return fmt.Errorf("compute: %s %s: %w", op.method, path, err)
	}
	// The header values are built once per client and shared, read-only, by every request. The
	// credential is not among them: attemptTransport adds it to each attempt for the base origin.
	h := req.Header
	h["User-Agent"] = c.headers.userAgent
	h["Accept"] = c.headers.acceptJSON
	if op.accept != "" {
		h["Accept"] = []string{op.accept}
	}
	if in != nil {
		h["Content-Type"] = c.headers.contentJSON
	}

	resp, err := c.http.Do(req)
	if err != nil {
		err = fmt.Errorf("compute: %s %s: %w", op.method, path, err)
		if !op.idempotent && st.inFlight.Load() {
			return fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
		}
		return err
	}
	// Whatever is left of the answer (all of it when nobody reads it, a little past newAPIError's
	// bound) is drained a little so that the connection can be reused.
	defer drainAndClose(resp.Body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := newAPIError(resp, op.method, path, int(st.attempts.Load()), &c.transport.cred)
		if op.method == http.MethodDelete && resp.StatusCode == http.StatusNotFound && st.retriedUnknown.Load() {
			// An earlier attempt of this DELETE may have been processed before its answer was lost
			// (a 5xx or a broken connection): the resource is gone, which is what the caller asked.
			return nil
		}
		if !op.idempotent && resp.StatusCode >= 500 {
			return fmt.Errorf("%w: %w", ErrOutcomeUnknown, apiErr)
		}
		return apiErr
	}
	if out == nil {
		return nil
	}
	buf, err := readAnswer(resp.Body, maxSuccessBody)
	if err != nil {
		return unreadable(op, fmt.Errorf("compute: %s %s: reading answer (status %d): %w", op.method, path, resp.StatusCode, err))
	}
	defer releaseAnswer(buf)
	switch out := out.(type) {
	case *[]byte:
		*out = bytes.Clone(buf.Bytes())
	case *envelope:
		err = out.decode(buf.Bytes())
	default:
		err = fmt.Errorf("compute: internal: cannot decode into %T", out)
	}
	if err != nil {
		return unreadable(op, fmt.Errorf("compute: %s %s: decoding answer (status %d): %w", op.method, path, resp.StatusCode, err))
	}
	return nil
}

// requestURL returns the request's URL (base URL, expanded path, query) and its path alone, which
// errors and logs name; the path is a part of the URL's string, not a copy.
func (c *Client) requestURL(op operation, ids []string, q any) (u, path string, err error) {
	var b strings.Builder
	size := len(c.baseURL) + len(op.path)
	for _, id := range ids {
		size += len(id)
	}
	if q != nil {
		size += 32
	}
	b.Grow(size)
	b.WriteString(c.baseURL)
	if err := appendPath(&b, op.path, ids); err != nil {
		return "", "", err
	}
	end := b.Len()
	// The query types of the hot paths (every page of every walk) write their own parameters, which
	// costs no reflection; TestQueryWritersMatchQuerystring holds each to exactly what go-querystring
	// encodes from the type's url tags. Any other query type goes through go-querystring.
	qb := queryBuilder{b: &b}
	switch q := q.(type) {
	case nil:
	case *ListOptions:
		q.writeQuery(&qb)
	case *ImageListOptions:
		q.writeQuery(&qb)
	default:
		v, err := querystring.Values(q)
		if err != nil {
			return "", "", fmt.Errorf("compute: %s %s: encoding query: %w", op.method, b.String()[len(c.baseURL):end], err)
		}
		if enc := v.Encode(); enc != "" {
			b.WriteByte('?')
			b.WriteString(enc)
		}
	}
	u = b.String()
	return u, u[len(c.baseURL):end], nil
}

// queryBuilder appends "?k=v&k=v" to a URL under construction, in the order of the calls, which
// must be the order of the keys (url.Values.Encode sorts them).
type queryBuilder struct {
	b *strings.Builder
	n int
}

// add appends key=value, with value query-escaped.
func (q *queryBuilder) add(key, value string) {
	q.key(key)
	q.b.WriteString(url.QueryEscape(value))
}

// addInt appends key=n.
func (q *queryBuilder) addInt(key string, n int) {
	var digits [20]byte
	q.key(key)
	q.b.Write(strconv.AppendInt(digits[:0], int64(n), 10))
}

// key appends the separator and "key=".
func (q *queryBuilder) key(key string) {
	if q.n == 0 {
		q.b.WriteByte('?')
	} else {
		q.b.WriteByte('&')
	}
	q.n++
	q.b.WriteString(key)
	q.b.WriteByte('=')
}

// unreadable reports a success answer that could not be read. For a POST the request was processed
// (a create was billed), so the error matches ErrOutcomeUnknown: look the resource up, do not resend.
func unreadable(op operation, err error) error {
	if !op.idempotent {
		return fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
	}
	return err
}

// appendPath writes tmpl to b with its {name} segments filled with ids, path-escaped so that no ID
// can change the route: "/" and "?" are escaped by url.PathEscape, and the dot segments "." and ".."
// are escaped too. An empty ID is refused with a ValidationError naming the segment.
func appendPath(b *strings.Builder, tmpl string, ids []string) error {
	rest := tmpl
	for i := 0; ; i++ {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			if i != len(ids) {
				return fmt.Errorf("compute: internal: %d IDs for path %s", len(ids), tmpl)
			}
			b.WriteString(rest)
			return nil
		}
		end := strings.IndexByte(rest, '}')
		name := rest[open+1 : end]
		if i >= len(ids) {
			return fmt.Errorf("compute: internal: %d IDs for path %s", len(ids), tmpl)
		}
		id := ids[i]
		if strings.TrimSpace(id) == "" {
			return invalid(name, "must not be empty")
		}
		b.WriteString(rest[:open])
		if id == "." || id == ".." {
			b.WriteString(strings.ReplaceAll(id, ".", "%2E"))
		} else {
			b.WriteString(url.PathEscape(id))
		}
		rest = rest[end+1:]
	}
}

// errNilContext refuses a nil context before any request.
var errNilContext = invalid("ctx", "must not be nil (use context.Background())")

// validator is a request that can check itself before being sent.
type validator interface{ Validate() error }

// fetch sends op and returns the object under key in the answer's envelope ({"instance": {...}}).
func fetch[T any](ctx context.Context, c *Client, op operation, ids []string, key string, in validator) (*T, error) {
	var body any
	if in != nil {
		if err := in.Validate(); err != nil {
			return nil, err
		}
		body = in
	}
	var out *T
	if err := c.call(ctx, op, ids, nil, body, envelopeOf(key, &out)); err != nil {
		return nil, err
	}
	if out == nil {
		return nil, unreadable(op, fmt.Errorf("compute: %s %s: the answer has no %q object", op.method, op.path, key))
	}
	return out, nil
}
