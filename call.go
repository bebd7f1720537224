package compute

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/go-querystring/query"
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

// call sends op with the IDs filling its path, the query encoded from q (a struct with url tags, or
// nil) and in as JSON body (nil for none), and decodes the JSON answer into out (nil to discard it;
// a *[]byte receives the raw body). Every endpoint goes through call.
func (c *Client) call(ctx context.Context, op operation, ids []string, q, in, out any) error {
	path, err := expandPath(op.path, ids)
	if err != nil {
		return err
	}
	if ctx == nil {
		return errNilContext
	}
	u := c.base.String() + path
	if q != nil {
		v, err := query.Values(q)
		if err != nil {
			return fmt.Errorf("compute: %s %s: encoding query: %w", op.method, path, err)
		}
		if enc := v.Encode(); enc != "" {
			u += "?" + enc
		}
	}
	var body any
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("compute: %s %s: encoding body: %w", op.method, path, err)
		}
		body = b
	}
	st := &callState{idempotent: op.idempotent}
	req, err := retryablehttp.NewRequestWithContext(context.WithValue(ctx, stateKey{}, st), op.method, u, body)
	if err != nil {
		return fmt.Errorf("compute: %s %s: %w", op.method, path, err)
	}
	req.Header.Set("User-Agent", c.userAgent)
	accept := op.accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}

	resp, err := c.http.Do(req)
	if err != nil {
		err = fmt.Errorf("compute: %s %s: %w", op.method, path, err)
		if !op.idempotent && st.inFlight.Load() {
			return fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
		}
		return err
	}
	defer drainAndClose(resp.Body)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := newAPIError(resp, op.method, path, int(st.attempts.Load()), c.transport.cred.redact)
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
	if raw, ok := out.(*[]byte); ok {
		if *raw, err = io.ReadAll(io.LimitReader(resp.Body, maxSuccessBody+1)); err != nil {
			return fmt.Errorf("compute: %s %s: reading answer: %w", op.method, path, err)
		}
		if len(*raw) > maxSuccessBody {
			*raw = nil
			return fmt.Errorf("compute: %s %s: the answer is larger than %d MiB", op.method, path, maxSuccessBody>>20)
		}
		return nil
	}
	answer := io.LimitReader(resp.Body, maxSuccessBody)
	if env, ok := out.(envelope); ok {
		err = env.decode(answer)
	} else {
		err = json.NewDecoder(answer).Decode(out)
	}
	if err != nil {
		return unreadable(op, fmt.Errorf("compute: %s %s: decoding answer (status %d): %w", op.method, path, resp.StatusCode, err))
	}
	return nil
}

// unreadable reports a success answer that could not be read. For a POST the request was processed
// (a create was billed), so the error matches ErrOutcomeUnknown: look the resource up, do not resend.
func unreadable(op operation, err error) error {
	if !op.idempotent {
		return fmt.Errorf("%w: %w", ErrOutcomeUnknown, err)
	}
	return err
}

// expandPath fills the {name} segments of tmpl with ids, path-escaped so that no ID can change the
// route: "/" and "?" are escaped by url.PathEscape, and the dot segments "." and ".." are escaped too.
func expandPath(tmpl string, ids []string) (string, error) {
	var b strings.Builder
	rest := tmpl
	for i := 0; ; i++ {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			if i != len(ids) {
				return "", fmt.Errorf("compute: internal: %d IDs for path %s", len(ids), tmpl)
			}
			b.WriteString(rest)
			return b.String(), nil
		}
		end := strings.IndexByte(rest, '}')
		name := rest[open+1 : end]
		if i >= len(ids) {
			return "", fmt.Errorf("compute: internal: %d IDs for path %s", len(ids), tmpl)
		}
		id := ids[i]
		if strings.TrimSpace(id) == "" {
			return "", invalid(name, "must not be empty")
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
	if err := c.call(ctx, op, ids, nil, body, envelope{key: &out}); err != nil {
		return nil, err
	}
	if out == nil {
		return nil, unreadable(op, fmt.Errorf("compute: %s %s: the answer has no %q object", op.method, op.path, key))
	}
	return out, nil
}

// envelope names the keys of a JSON answer to decode, each into its target; call decodes it in one
// pass and skips every other key, so that a field the service adds later costs nothing.
type envelope map[string]any

// decode reads the JSON object from r into the targets of e, streaming.
func (e envelope) decode(r io.Reader) error {
	dec := json.NewDecoder(r)
	first, firstErr := dec.Token()
	if firstErr != nil && firstErr != io.EOF {
		// A broken read (a cut connection) keeps its cause, so errors.Is can see it.
		return fmt.Errorf("the answer is not a JSON object: %w", firstErr)
	}
	if first != json.Delim('{') {
		return fmt.Errorf("the answer is not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		dst, ok := e[key]
		if !ok {
			dst = &json.RawMessage{}
		}
		if err := dec.Decode(dst); err != nil {
			return fmt.Errorf("decoding %q: %w", key, err)
		}
	}
	_, err := dec.Token()
	return err
}
