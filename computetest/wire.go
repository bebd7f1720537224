package computetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"reflect"
	"strings"
	"time"

	compute "github.com/compute-sdk/compute-go"
)

// msTime encodes a timestamp the way the contract shows them: UTC with exactly three fraction
// digits ("2026-01-15T09:00:00.000Z"). time.Time alone would drop trailing zeros.
type msTime time.Time

func (t msTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format("2006-01-02T15:04:05.000Z") + `"`), nil
}

// The wire shapes embed the SDK's types, so the fake and the SDK read one definition of each field;
// a shallower field of the same JSON name replaces the embedded one where the wire differs.
type (
	wireInstance struct {
		compute.Instance
		PrivateIP *string `json:"private_ip"`
		PublicIP  *string `json:"public_ip"`
		CreatedAt msTime  `json:"created_at"`
		UpdatedAt msTime  `json:"updated_at"`
	}
	wireFloatingIP struct {
		compute.FloatingIP
		IPAddress *string `json:"ip_address"`
		CreatedAt msTime  `json:"created_at"`
		UpdatedAt msTime  `json:"updated_at"`
	}
	// wireSecurityGroup shows status only where the contract's examples do (create and update).
	wireSecurityGroup struct {
		compute.SecurityGroup
		Status    compute.SecurityGroupStatus `json:"status,omitzero"`
		CreatedAt msTime                      `json:"created_at"`
	}
	wireSnapshot struct {
		compute.Snapshot
		CreatedAt msTime `json:"created_at"`
		UpdatedAt msTime `json:"updated_at"`
	}
	wireImage struct {
		compute.Image
		CreatedAt msTime `json:"created_at"`
		UpdatedAt msTime `json:"updated_at"`
	}
)

// nullable is s, or nil (JSON null) when s is empty.
func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// apiError is a refusal: the status and the contract's {code, message} body.
type apiError struct {
	status     int
	code       compute.ErrorCode
	message    string
	retryAfter string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.code, e.message) }

func fail(status int, code compute.ErrorCode, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

// The status each kind of refusal gets. The contract does not give the status per code; it lists 400,
// 401, 403, 404 and 429 among its statuses and no 409, so a refused state change is a 400.
func badRequest(code compute.ErrorCode, format string, args ...any) *apiError {
	return fail(http.StatusBadRequest, code, format, args...)
}

func notFound(code compute.ErrorCode, format string, args ...any) *apiError {
	return fail(http.StatusNotFound, code, format, args...)
}

func missing(field string) *apiError {
	return badRequest(compute.CodeMissingParameters, "%s is required", field)
}

// encode is v as a JSON document.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeError answers with the contract's error body.
func writeError(w http.ResponseWriter, e *apiError) {
	if e.retryAfter != "" {
		w.Header().Set("Retry-After", e.retryAfter)
	}
	body, _ := json.Marshal(struct {
		Code    compute.ErrorCode `json:"code,omitempty"` // none for a 429: the contract names no code
		Message string            `json:"message"`
	}{e.code, e.message})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_, _ = w.Write(append(body, '\n'))
}

// maxBody bounds what the fake reads of a request body; a 64 KiB startup script fits many times.
const maxBody = 4 << 20

// decode reads a JSON object body into v, refusing unknown fields (the fake is stricter than the
// service so that a misspelt field in a client fails in tests), and returns the top-level keys that
// were present, so a handler can tell a missing field from a zero one.
func decode(r *http.Request, v any) (map[string]bool, *apiError) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, badRequest(compute.CodeMalformedRequest, "reading the body: %v", err)
	}
	if len(raw) > maxBody {
		return nil, badRequest(compute.CodeMalformedRequest, "the body is larger than %d bytes", maxBody)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil || keys == nil {
		return nil, badRequest(compute.CodeMalformedRequest, "the body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return nil, badRequest(compute.CodeMalformedRequest, "%s must be a JSON %s", typeErr.Field, typeErr.Type)
		}
		return nil, badRequest(compute.CodeMalformedRequest, "malformed body: %v", err)
	}
	allowed := jsonKeys(reflect.TypeOf(v))
	present := make(map[string]bool, len(keys))
	for k, raw := range keys {
		// encoding/json matches names without regard to case, so "SSH_KEYS" would fill ssh_keys
		// unseen by the checks that read present; only the exact spelling is accepted.
		if !allowed[k] {
			return nil, badRequest(compute.CodeMalformedRequest, "unknown field %q", k)
		}
		present[k] = string(raw) != "null"
	}
	return present, nil
}

// jsonKeys is the set of JSON names of a struct type's fields, those of embedded structs included.
func jsonKeys(t reflect.Type) map[string]bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	keys := map[string]bool{}
	if t.Kind() != reflect.Struct {
		return keys
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "":
			maps.Copy(keys, jsonKeys(f.Type))
		case name != "":
			keys[name] = true
		case f.IsExported():
			keys[f.Name] = true
		}
	}
	return keys
}
