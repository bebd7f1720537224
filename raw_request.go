package compute

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
)

// RawRequest is a request that the SDK has no method for: an endpoint it does not type yet, or a
// field it does not know. [Client.Do] sends it as the SDK's own methods send theirs.
type RawRequest struct {
	// Method is GET, POST, PUT, PATCH or DELETE.
	Method string
	// Path is the request's path under the base URL, as the SDK's methods document theirs, with a
	// {name} segment for each ID: "/compute/v1/instances/{instance_id}/console". Its other segments
	// hold letters, digits and "-._~" only, so a path can never leave the base URL: a URL, an
	// empty or dot segment, an escape, a query or a fragment is refused. Observers see it as the
	// call's path template, so keep IDs out of it; a path holding the API token (or five or more of
	// its characters in a row) is refused.
	Path string
	// IDs fill the path's {name} segments in order, escaped and checked as the SDK's methods check
	// theirs (not empty, no "/", "\", "%", dot segment or control character).
	IDs []string
	// Query is added to the URL, encoded.
	Query url.Values
	// Body is sent encoded as JSON (a json.RawMessage as it is); nil sends no body.
	Body any
	// SendOnce sends the request once at most after it may have reached the service, as a POST
	// always is: set it for a PUT, PATCH or DELETE whose effect adds to the last one (an attach).
	// A 429, which the service did not process, is retried all the same.
	SendOnce bool
	// MaxBody bounds the success response's body, in bytes: 0 is the bound of the SDK's own calls
	// (1 MiB); at most 64 MiB.
	MaxBody int64
}

// maxRawBody bounds [RawRequest.MaxBody]: a response announcing a larger size than it sends costs
// the bound in memory at once.
const maxRawBody = 64 << 20

// Do sends r through the client, with every rule of the SDK's own methods: the rate limiter, the
// retry policy (a 429 is retried for every method; a 5xx or a lost response only for GET, PUT,
// PATCH and DELETE without SendOnce; a POST is never sent again once it may have arrived, and fails
// with [ErrOutcomeUnknown]), the token for the base URL's host only, the observers (operation
// "Do", r.Path as the path template), [CaptureResponse], the debug dump and the bounds on what is
// read. Invalid input is a [*ValidationError] before any request; a non-2xx response is an
// [*APIError]. A DELETE sent again after an attempt that may have arrived succeeds on a 404 only
// where the SDK's own delete of the same route would, on the kind's not-found (see [Gone]); on a
// route the SDK does not have, no 404 proves that, and the refusal matches [ErrOutcomeUnknown].
//
// The success response's body goes to v: nil discards it, a *[]byte gets it as it is, and any other
// pointer gets it decoded from the JSON object it must be; an empty body leaves v unchanged.
func (c *Client) Do(ctx context.Context, r RawRequest, v any) error {
	var redact func(string) string
	if c.transport != nil {
		redact = c.transport.cred.redact
	}
	req, err := r.request(v, redact)
	if err != nil {
		if c.transport != nil {
			err = c.transport.cred.outsideInvalid(err)
		}
		return err
	}
	var read func([]byte) error
	switch out := v.(type) {
	case nil:
	case *[]byte:
		read = func(data []byte) error {
			if len(data) > 0 {
				*out = data
			}
			return nil
		}
	default:
		read = func(data []byte) error {
			if len(bytes.TrimSpace(data)) == 0 {
				return nil
			}
			return c.decodeResponse(req.op, data, v)
		}
	}
	return c.do(ctx, req, read)
}

// request checks r and makes it a call of an operation of its own, outside the operation table.
// redact, when not nil, is the client's scrubbing of its token.
func (r RawRequest) request(v any, redact func(string) string) (request, error) {
	var p problems
	switch r.Method {
	case http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		p.add("method", "must be GET, POST, PUT, PATCH or DELETE")
	}
	if n, ok := checkRawPath(&p, r.Path); ok && redact != nil && redact(r.Path) != r.Path {
		// The template is shown as it is, to observers and in errors and log lines.
		p.add("path", "holds the API token, or five or more of its characters in a row: put such a segment in IDs, which are scrubbed wherever they are shown")
	} else if ok && n != len(r.IDs) {
		p.add("ids", "the path has %d {name} segments but %d IDs are given", n, len(r.IDs))
	}
	var body validator
	if r.Body != nil {
		b, err := json.Marshal(r.Body)
		if err != nil {
			p.add("body", "cannot be encoded as JSON: %s", err.Error())
		}
		body = rawBody(b)
	}
	if r.MaxBody < 0 || r.MaxBody > maxRawBody {
		p.add("max_body", "must be between 0 and %d bytes", maxRawBody)
	}
	if v != nil {
		if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || rv.IsNil() {
			p.add("v", "must be nil or a non-nil pointer, not %T", v)
		}
	}
	if err := p.err(); err != nil {
		return request{}, err
	}
	op := operation{name: "Do", method: r.Method, path: r.Path, idempotent: r.Method != http.MethodPost && !r.SendOnce,
		maxBody: r.MaxBody, discard: v == nil, unknownRoute: true}
	for _, known := range operations {
		if known.method == r.Method && sameRoute(known.path, r.Path) {
			// A route of the table: a DELETE's 404 proves what the SDK's own delete's does.
			op.notFound, op.unknownRoute = known.notFound, false
			break
		}
	}
	req := request{op: op, ids: r.IDs, body: body}
	if len(r.Query) > 0 {
		req.query = rawQuery{Values: rawValues(r.Query)}
	}
	return req, nil
}

// checkRawPath adds the problems of a raw request's path to p, and counts its {name} segments; ok
// is false when it has a problem.
func checkRawPath(p *problems, path string) (n int, ok bool) {
	switch {
	case path == "":
		p.add("path", "is required")
		return 0, false
	case strings.HasPrefix(path, "//") || strings.Contains(path, "://"):
		p.add("path", "must be a path under the base URL, not a URL: the token goes to the client's host only")
		return 0, false
	case path[0] != '/':
		p.add("path", `must start with "/", as in /compute/v1/...`)
		return 0, false
	}
	for i, seg := range strings.Split(path[1:], "/") {
		switch {
		case seg == "":
			p.add("path", "segment %d is empty", i+1)
			return 0, false
		case seg == "." || seg == "..":
			p.add("path", "segment %d is a dot segment", i+1)
			return 0, false
		case strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") && len(seg) > 2 && allIn(seg[1:len(seg)-1], placeholderChars):
			n++
		case !allIn(seg, unreservedChars):
			p.add("path", `segment %d must hold only letters, digits and "-._~", or be a whole {name}: put other text in IDs or Query`, i+1)
			return 0, false
		}
	}
	return n, true
}

// sameRoute reports whether the path templates a and b name one route: the same literal segments,
// and {name} segments at the same places, whatever their names.
func sameRoute(a, b string) bool {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	if len(as) != len(bs) {
		return false
	}
	for i := range as {
		ap, bp := strings.HasPrefix(as[i], "{"), strings.HasPrefix(bs[i], "{")
		if ap != bp || !ap && as[i] != bs[i] {
			return false
		}
	}
	return true
}

// The characters of a raw path's literal segments (RFC 3986's unreserved ones, which no server or
// proxy decodes into anything else) and of its {name} segments' names.
const (
	unreservedChars  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"
	placeholderChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
)

// allIn reports whether every byte of s is one of chars.
func allIn(s, chars string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(chars, rune(s[i])) {
			return false
		}
	}
	return true
}

// rawBody is a raw request's body, encoded already.
type rawBody []byte

func (rawBody) Validate() error { return nil }

// MarshalJSON implements json.Marshaler.
func (b rawBody) MarshalJSON() ([]byte, error) { return b, nil }

// rawQuery carries a raw request's query through go-querystring, which the call path encodes
// queries with: its one field encodes itself.
type rawQuery struct {
	Values rawValues `url:"values"`
}

func (rawQuery) Validate() error { return nil }

// rawValues is a query as given, which adds itself whole whatever its field is named.
type rawValues url.Values

// EncodeValues implements go-querystring's Encoder.
func (q rawValues) EncodeValues(_ string, v *url.Values) error {
	for k, vals := range q {
		for _, val := range vals {
			v.Add(k, val)
		}
	}
	return nil
}
