package engine

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"
)

// The control endpoint lets tests written in any language do over HTTP what Go tests do with the
// Server's methods: inject faults, read the request log, reset the state, move the clock. It lives
// under /_fake/, a path the contract does not use, and is off unless Config.ControlToken is set;
// every control request must carry that token in the X-Fake-Control-Token header. The API's tokens
// do not open it and the control token does not open the API. Control requests are not recorded in
// the request log, not rate limited and never hit by faults.
//
//	POST   /_fake/faults    add a fault rule (see controlRule); 201 with the rule as read
//	DELETE /_fake/faults    remove every fault rule; 204
//	GET    /_fake/requests  the request log: {"requests": [...]}
//	DELETE /_fake/requests  forget the request log; 204
//	POST   /_fake/reset     forget every resource, request, fault rule and rate-limit count; 204
//	POST   /_fake/advance   {"duration": "30s"}: move the clock forward; 204
//	GET    /_fake/catalog   the catalogue as it is now, in the -catalog file format
const controlHeader = "X-Fake-Control-Token"

// controlRule is the JSON form of a fault rule.
type controlRule struct {
	Match struct {
		Method string `json:"method,omitempty"`
		Path   string `json:"path,omitempty"`
	} `json:"match"`
	Times       int          `json:"times,omitempty"`
	Probability float64      `json:"probability,omitempty"`
	Fault       controlFault `json:"fault"`
}

// controlFault is the JSON form of a Fault. Latency is a Go duration string such as "1.5s"; a long
// one ("1h") is a stall that lasts until the client gives up.
type controlFault struct {
	Latency             string `json:"latency,omitempty"`
	Drop                bool   `json:"drop,omitempty"`
	Status              int    `json:"status,omitempty"`
	Code                string `json:"code,omitempty"`
	Message             string `json:"message,omitempty"`
	RetryAfter          string `json:"retry_after,omitempty"`
	Body                string `json:"body,omitempty"`
	ContentType         string `json:"content_type,omitempty"`
	DropAfterProcessing bool   `json:"drop_after_processing,omitempty"`
}

// controlRequest is the JSON form of a Request of the log.
type controlRequest struct {
	Time      stamp               `json:"time"`
	Method    string              `json:"method"`
	Path      string              `json:"path"`
	Query     map[string][]string `json:"query"`
	Body      string              `json:"body"`
	Auth      string              `json:"auth"`
	Status    int                 `json:"status"`
	Fault     bool                `json:"fault"`
	Processed bool                `json:"processed"`
}

// serveControl serves the control endpoint. While it is disabled (no control token), /_fake/ paths
// are like any other unknown path: 404 with 02001.
func (e *Engine) serveControl(w http.ResponseWriter, r *http.Request) {
	if e.cfg.ControlToken == "" {
		writeError(w, notFound(codeInvalidRoute, "invalid route %s %s", r.Method, r.URL.EscapedPath()))
		return
	}
	switch token := r.Header.Get(controlHeader); {
	case token == "":
		writeError(w, fail(http.StatusUnauthorized, codeTokenNotProvided, "the control endpoint needs the %s header", controlHeader))
		return
	case !same(token, e.cfg.ControlToken):
		writeError(w, fail(http.StatusUnauthorized, codeAuthPermissionDenied, "invalid control token"))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return // the client went away mid-body
	}
	status, v, refusal := e.control(r.Method, r.URL.Path, body)
	switch {
	case refusal != nil:
		writeError(w, refusal)
	case v == nil:
		w.WriteHeader(status)
	default:
		b, err := encode(v)
		if err != nil {
			writeError(w, fail(http.StatusInternalServerError, "", "encoding the response: %v", err))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(b)
	}
}

// control runs one control operation.
func (e *Engine) control(method, path string, body []byte) (int, any, *apiError) {
	switch method + " " + path {
	case "POST /_fake/faults":
		return e.controlAddFault(body)
	case "DELETE /_fake/faults":
		e.ClearFaults()
		return http.StatusNoContent, nil, nil
	case "GET /_fake/requests":
		log := e.Requests()
		out := make([]controlRequest, 0, len(log))
		for _, r := range log {
			out = append(out, controlRequest{Time: stamp(r.Time), Method: r.Method, Path: r.Path, Query: r.Query,
				Body: string(r.Body), Auth: r.Auth, Status: r.Status, Fault: r.Fault, Processed: r.Processed})
		}
		return http.StatusOK, map[string]any{"requests": out}, nil
	case "DELETE /_fake/requests":
		e.ResetRequests()
		return http.StatusNoContent, nil, nil
	case "POST /_fake/reset":
		e.Reset()
		return http.StatusNoContent, nil, nil
	case "POST /_fake/advance":
		o, err := parseBody(body, "duration")
		if err != nil {
			return 0, nil, err
		}
		var s string
		if err := o.str("duration", &s); err != nil {
			return 0, nil, err
		}
		d, perr := time.ParseDuration(s)
		if perr != nil || d <= 0 {
			return 0, nil, badRequest(codeBadRequest, "duration must be a positive Go duration such as \"30s\", got %q", s)
		}
		e.Advance(d)
		return http.StatusNoContent, nil, nil
	case "GET /_fake/catalog":
		return http.StatusOK, e.Catalog(), nil
	}
	return 0, nil, notFound(codeInvalidRoute, "invalid control route %s %s", method, path)
}

// controlAddFault reads a fault rule and adds it.
func (e *Engine) controlAddFault(body []byte) (int, any, *apiError) {
	var cr controlRule
	if err := decodeStrict(body, &cr); err != nil {
		return 0, nil, badRequest(codeMalformedRequest, "a fault rule: %v", err)
	}
	f := cr.Fault
	var latency time.Duration
	if f.Latency != "" {
		d, err := time.ParseDuration(f.Latency)
		if err != nil || d < 0 {
			return 0, nil, badRequest(codeBadRequest, "fault.latency must be a Go duration such as \"2s\", got %q", f.Latency)
		}
		latency = d
	}
	switch {
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return 0, nil, badRequest(codeBadRequest, "fault.status must be an error status from 400 to 599, got %d", f.Status)
	case latency == 0 && !f.Drop && f.Status == 0 && !f.DropAfterProcessing:
		return 0, nil, badRequest(codeMissingParameters, "fault needs latency, drop, status or drop_after_processing")
	case cr.Times < 0 || cr.Probability < 0 || cr.Probability > 1:
		return 0, nil, badRequest(codeBadRequest, "times must be 0 or more and probability from 0 to 1")
	}
	rule := Rule{Match: Match{Method: cr.Match.Method, Path: cr.Match.Path}, Times: cr.Times, Probability: cr.Probability,
		Fault: Fault{Latency: latency, Drop: f.Drop, Status: f.Status, Code: f.Code, Message: f.Message,
			RetryAfter: f.RetryAfter, ContentType: f.ContentType, DropAfterProcessing: f.DropAfterProcessing}}
	if f.Body != "" {
		rule.Fault.Body = []byte(f.Body)
	}
	e.Inject(rule)
	return http.StatusCreated, cr, nil
}

// decodeStrict decodes one JSON value into v, refusing unknown keys.
func decodeStrict(b []byte, v any) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
