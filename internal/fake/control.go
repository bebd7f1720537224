package fake

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// This file holds what tests control: the engine's methods for Go tests (at the end), and the
// control endpoint, through which tests in any language do the same and more (control.yaml).

// controlHeader carries the control token on every control request. The endpoint is off unless
// Config.ControlToken is set; the API's tokens do not open it, nor it the API. Its requests are not
// logged, rate limited or faulted.
const controlHeader = "X-Fake-Control-Token"

// controlRoutes are the control endpoint's operations, under /_fake/.
var controlRoutes = []route{
	{"POST", "faults", 201, "", ctl(addFault)},
	{"GET", "faults", 200, "faults", ctl(listFaults)},
	{"DELETE", "faults", 204, "", action((*Engine).clearFaults)},
	{"DELETE", "faults/{}", 204, "", ctl(removeFault)},
	{"GET", "requests", 200, "requests", ctl(listRequests)},
	{"DELETE", "requests", 204, "", action((*Engine).clearLog)},
	{"PUT", "{}/{}/status", 204, "", ctl(forceStatus)},
	{"GET", "quotas", 200, "", ctl(getQuotas)},
	{"PUT", "quotas", 200, "", ctl(setQuotas)},
	{"POST", "advance", 204, "", ctl(advance)},
	{"POST", "reset", 204, "", action((*Engine).reset)},
	{"GET", "catalog", 200, "", ctl(catalog)},
	{"GET", "openapi.yaml", 200, "", yamlDocument(controlDocument)},
}

//go:embed control.yaml
var controlDocument []byte

// serveControl serves the control endpoint. While it is disabled (no control token), /_fake/ paths
// are like any other unknown path: 404 with 02001.
func (e *Engine) serveControl(w http.ResponseWriter, r *http.Request) {
	body, err := readBody(r)
	if err != nil {
		return // the client went away mid-body
	}
	rt, ids, refusal := findRoute(controlRoutes, controlPrefix, r.Method, r.URL.EscapedPath())
	switch token := r.Header.Get(controlHeader); {
	case e.cfg.ControlToken == "":
		refusal = notFound(codeInvalidRoute, "invalid route %s %s", r.Method, r.URL.EscapedPath())
	case token == "":
		refusal = fail(http.StatusUnauthorized, codeTokenNotProvided, "the control endpoint needs the %s header", controlHeader)
	case !same(token, e.cfg.ControlToken):
		refusal = fail(http.StatusUnauthorized, codeAuthPermissionDenied, "invalid control token")
	}
	var doc document
	if refusal == nil {
		e.mu.Lock()
		doc, refusal = rt.respond(e, call{ids: ids, query: r.URL.Query()}, body)
		e.mu.Unlock()
	}
	write(w, rt.status, doc, refusal)
}

// controlRule is the JSON form of a fault rule, as POST /_fake/faults reads it and as the fake
// shows it, with its id and, in times, the hits it has left.
type controlRule struct {
	ID    string `json:"id,omitempty"`
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

// rule is the Rule the JSON form describes, or why it is refused: a rule that could never hit a
// request (see Match.problem), or that does nothing, is 400.
func (r *controlRule) rule() (Rule, *Error) {
	f := r.Fault
	latency, err := time.ParseDuration(cmp.Or(f.Latency, "0s"))
	m := Match{Method: r.Match.Method, Path: r.Match.Path}
	switch problem := m.problem(); {
	case r.ID != "":
		return Rule{}, badRequest(codeBadRequest, "id is the fake's to give")
	case err != nil || latency < 0:
		return Rule{}, badRequest(codeBadRequest, "fault.latency must be a Go duration such as \"2s\", got %q", f.Latency)
	case problem != "":
		return Rule{}, badRequest(codeBadRequest, "the rule could never hit a request: %s", problem)
	case f.Status != 0 && (f.Status < 400 || f.Status > 599):
		return Rule{}, badRequest(codeBadRequest, "fault.status must be an error status from 400 to 599, got %d", f.Status)
	case latency == 0 && !f.Drop && f.Status == 0 && !f.DropAfterProcessing:
		return Rule{}, badRequest(codeMissingParameters, "fault needs latency, drop, status or drop_after_processing")
	case r.Times < 0 || r.Probability < 0 || r.Probability > 1:
		return Rule{}, badRequest(codeBadRequest, "times must be 0 or more and probability from 0 to 1")
	case strings.ContainsFunc(f.RetryAfter+f.ContentType, func(c rune) bool { return c < ' ' || c == 0x7f }):
		return Rule{}, badRequest(codeBadRequest, "fault.retry_after and fault.content_type are header values: no control characters")
	}
	rule := Rule{Match: m, Times: r.Times, Probability: r.Probability, Fault: Fault{Latency: latency, Drop: f.Drop,
		Status: f.Status, Code: f.Code, Message: f.Message, RetryAfter: f.RetryAfter, ContentType: f.ContentType,
		DropAfterProcessing: f.DropAfterProcessing}}
	if f.Body != "" {
		rule.Fault.Body = []byte(f.Body)
	}
	return rule, nil
}

// json is the rule in its JSON form. The caller holds e.mu.
func (r *faultRule) json() controlRule {
	f := r.Fault
	c := controlRule{ID: r.id, Times: max(r.Times, 0), Probability: r.Probability, Fault: controlFault{Drop: f.Drop,
		Status: f.Status, Code: f.Code, Message: f.Message, RetryAfter: f.RetryAfter, Body: string(f.Body),
		ContentType: f.ContentType, DropAfterProcessing: f.DropAfterProcessing}}
	if f.Latency > 0 {
		c.Fault.Latency = f.Latency.String()
	}
	c.Match.Method, c.Match.Path = r.Match.Method, r.Match.Path
	return c
}

func addFault(e *Engine, _ call, r *controlRule) (controlRule, *Error) {
	rule, err := r.rule()
	if err != nil {
		return controlRule{}, err
	}
	return e.inject(rule).json(), nil
}

// listFaults shows the rules in the order they are tried.
func listFaults(e *Engine, _ call, _ *none) ([]controlRule, *Error) {
	out := []controlRule{}
	for _, r := range e.rules {
		out = append(out, r.json())
	}
	return out, nil
}

func removeFault(e *Engine, c call, _ *none) (none, *Error) {
	n := len(e.rules)
	if e.rules = slices.DeleteFunc(e.rules, func(r *faultRule) bool { return r.id == c.ids[0] }); len(e.rules) == n {
		return none{}, notFound(codeBadRequest, "fault rule %q not found", c.ids[0])
	}
	return none{}, nil
}

// Request is one request as the server received it, for assertions in tests.
type Request struct {
	// Time is when the server received it, on the server's clock.
	Time time.Time
	// Method is the HTTP method.
	Method string
	// Path is the path exactly as sent, escaped (an ID "a/b" shows as "a%2Fb").
	Path string
	// Query is the parsed query string.
	Query url.Values
	// Body is the request body as received.
	Body []byte
	// Auth is how the request authenticated: "bearer", "x-auth-token", or "" when it carried no
	// token. The token itself is not recorded.
	Auth string
	// Header is the request's header without Authorization and X-Auth-Token.
	Header http.Header
	// Status is the status of the response, 0 if the connection was dropped without a response.
	Status int
	// Fault says the request was hit by an injected fault.
	Fault bool
	// Processed says the request took effect on the server's state (or, for a read, was served
	// from it). A request refused by authentication, the rate limit or a fault is not processed.
	Processed bool
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

func listRequests(e *Engine, _ call, _ *none) ([]controlRequest, *Error) {
	out := []controlRequest{}
	for _, r := range e.log {
		out = append(out, controlRequest{Time: stamp(r.Time), Method: r.Method, Path: r.Path, Query: r.Query,
			Body: string(r.Body), Auth: r.Auth, Status: r.Status, Fault: r.Fault, Processed: r.Processed})
	}
	return out, nil
}

// statusChange is the body of PUT /_fake/{collection}/{id}/status.
type statusChange struct {
	Status string `json:"status" fake:"required"`
}

// forceStatus is SetInstanceStatus for every kind with a status (see store.force).
func forceStatus(e *Engine, c call, r *statusChange) (none, *Error) {
	s, now := e.state()
	for _, k := range s.kinds {
		if k.spec().collection == c.ids[0] {
			return none{}, k.force(c.ids[1], r.Status, now)
		}
	}
	return none{}, notFound(codeInvalidRoute, "invalid control route: no resources are called %q", c.ids[0])
}

// getQuotas shows the account's quotas by key, 0 meaning none.
func getQuotas(e *Engine, _ call, _ *none) (map[string]int, *Error) {
	return e.s.limits.values(), nil
}

func (l *Limits) values() map[string]int {
	out := map[string]int{}
	for key, n := range l.byKey() {
		out[key] = *n
	}
	return out
}

// quotaSet is the body of PUT /_fake/quotas: quotas by key, each 0 (none) or more; a key left out
// means none.
type quotaSet struct{ values map[string]json.RawMessage }

func (q *quotaSet) decodeJSON(_ string, raw json.RawMessage) *Error {
	if json.Unmarshal(raw, &q.values) != nil || q.values == nil {
		return malformed("the body must be a JSON object")
	}
	return nil
}

// setQuotas replaces the account's quotas until the next reset. A create past a quota is refused
// from then on; what exists already stays.
func setQuotas(e *Engine, _ call, q *quotaSet) (map[string]int, *Error) {
	var l Limits
	fields := l.byKey()
	for _, key := range slices.Sorted(maps.Keys(q.values)) {
		dst, ok := fields[key]
		if !ok {
			return nil, malformed("unknown quota %q; the quotas are %s", key, strings.Join(slices.Sorted(maps.Keys(fields)), ", "))
		}
		n, ok := parseInteger(q.values[key])
		if !ok || n < 0 {
			return nil, badRequest(codeBadRequest, "%s must be an integer, 0 (no quota) or more", key)
		}
		*dst = n
	}
	e.s.limits = l
	return l.values(), nil
}

// advanceBy is the body of POST /_fake/advance.
type advanceBy struct {
	Duration string `json:"duration" fake:"required"`
}

func advance(e *Engine, _ call, r *advanceBy) (none, *Error) {
	d, err := time.ParseDuration(r.Duration)
	switch {
	case err != nil || d <= 0:
		return none{}, badRequest(codeBadRequest, "duration must be a positive Go duration such as \"30s\", got %q", r.Duration)
	case d > math.MaxInt64-e.offset:
		return none{}, badRequest(codeBadRequest, "duration %q would move the clock past what it holds (292 years ahead in all)", r.Duration)
	}
	e.advance(d)
	return none{}, nil
}

func catalog(e *Engine, _ call, _ *none) (Catalog, *Error) { return e.liveCatalog(), nil }

// Reset forgets every resource, request, fault rule, quota set since and rate-limit count: the
// engine is as New made it, except that the clock keeps what Advance added.
func (e *Engine) Reset() { e.locked(e.reset) }

// Advance moves the engine's clock forward by d, completing the transitions due by then. It works
// with any clock, real or fake. A negative d is ignored, and the clock goes at most 292 years ahead in
// all.
func (e *Engine) Advance(d time.Duration) { e.locked(func() { e.advance(d) }) }

// advance is Advance for a caller that holds e.mu.
func (e *Engine) advance(d time.Duration) {
	e.offset += min(max(d, 0), math.MaxInt64-e.offset)
	e.state()
}

// Catalog returns the catalogue as it is now: its SSH keys and volumes are the account's as the API
// has left them (created and deleted ones included, volume statuses as attachments made them).
func (e *Engine) Catalog() (c Catalog) {
	e.locked(func() { c = e.liveCatalog() })
	return c
}

// SetInstanceStatus forces an instance into a status, cancelling any transition in progress, so that
// a test can reach states the API cannot (error, pending_payment) or hold one (creating). It reports
// whether the instance exists.
func (e *Engine) SetInstanceStatus(id, status string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, now := e.state()
	in, ok := s.instances.find(id)
	if ok {
		s.instances.put(in, status, now)
	}
	return ok
}

// liveCatalog is Engine.Catalog, for a caller that holds e.mu.
func (e *Engine) liveCatalog() Catalog {
	s, _ := e.state()
	out := s.catalog.Clone()
	out.SSHKeys = []SSHKey{}
	for i := range s.sshKeys.len() {
		k := s.sshKeys.at(i)
		out.SSHKeys = append(out.SSHKeys, SSHKey{ID: k.ID, Name: k.Name})
	}
	out.Volumes = []Volume{}
	for i := range s.volumes.len() {
		v := s.volumes.at(i)
		status := VolumeAvailable
		switch {
		case v.locked:
			status = VolumeLocked
		case s.holder("volume", v.ID) != "":
			status = VolumeInUse
		case v.Status != storageCreated:
			status = v.Status
		}
		out.Volumes = append(out.Volumes, Volume{ID: v.ID, Name: v.Name, Region: v.Region, Status: status})
	}
	return out
}

// Requests returns a copy of every request received so far, in order of arrival.
func (e *Engine) Requests() []Request {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]Request, len(e.log))
	for i, r := range e.log {
		out[i] = *r
		out[i].Header = r.Header.Clone()
		out[i].Query = url.Values(http.Header(r.Query).Clone()) // both are a map[string][]string
		out[i].Body = slices.Clone(r.Body)
	}
	return out
}

// ResetRequests forgets the requests received so far.
func (e *Engine) ResetRequests() { e.locked(e.clearLog) }

// Inject adds a fault rule. Rules are tried in the order they were added; the first that hits a request
// decides its fault. Authentication and rate limiting happen before faults, so a fault never hits a
// request the service would have refused anyway. It returns the rule's identifier, "rule-1" for
// the first.
func (e *Engine) Inject(r Rule) (id string) {
	e.locked(func() { id = e.inject(r).id })
	return id
}

// inject adds a fault rule. The caller holds e.mu.
func (e *Engine) inject(r Rule) *faultRule {
	e.ruleSeq++
	rule := &faultRule{Rule: r, id: fmt.Sprintf("rule-%d", e.ruleSeq)}
	e.rules = append(e.rules, rule)
	return rule
}

// FailNext makes the next n requests that match m fail with f. It is Inject with Times: n.
func (e *Engine) FailNext(n int, m Match, f Fault) {
	if n <= 0 {
		return
	}
	e.Inject(Rule{Match: m, Times: n, Fault: f})
}

// ClearFaults removes every fault rule.
func (e *Engine) ClearFaults() { e.locked(e.clearFaults) }

// clearFaults removes every fault rule. The caller holds e.mu.
func (e *Engine) clearFaults() { e.rules = nil }

// locked runs f with e.mu held.
func (e *Engine) locked(f func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	f()
}
