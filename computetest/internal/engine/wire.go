package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// The error codes the fake sends, from the contract's table.
const (
	codeAuthPermissionDenied           = "01204"
	codeInvalidRoute                   = "02001"
	codeMalformedRequest               = "02002"
	codeMissingParameters              = "02003"
	codeBadRequest                     = "02004"
	codeInvalidImage                   = "02006"
	codeInstanceNotFound               = "02008"
	codeNotAllowed                     = "02009"
	codeMaxQuotaReached                = "02010"
	codeSnapshotQuotaReached           = "02012"
	codeDeleteRequiresActive           = "02013"
	codeTokenNotProvided               = "02014"
	codeSnapshotNotFound               = "02015"
	codeWeakPassword                   = "02018"
	codeInstanceConfigNotAllowed       = "02020"
	codeVolumeNotFound                 = "02021"
	codeUpdateRequiresActive           = "02023"
	codeSecurityGroupNotFound          = "02025"
	codeSecurityGroupUsedByInstances   = "02027"
	codeInvalidRules                   = "02028"
	codeInstanceAlreadyStarted         = "02029"
	codeVolumeAttachFailed             = "02032"
	codeVolumeDetachFailed             = "02033"
	codeImageIncompatible              = "02035"
	codeSnapshotRequiresActive         = "02037"
	codeTerminationProtected           = "02038"
	codeInstanceCannotStart            = "02039"
	codePermissionDenied               = "02043"
	codeVolumeLocked                   = "02046"
	codeSSHKeyNotFound                 = "02047"
	codeStaticPublicIPQuotaReached     = "02049"
	codeRegionsMismatch                = "02051"
	codeInvalidPlacementOption         = "02052"
	codeFloatingIPNotFound             = "02055"
	codeVolumeAlreadyAttached          = "02056"
	codeInsufficientDiskSize           = "02063"
	codeFloatingIPInUse                = "02064"
	codeDeleteRequiresRunningOrStopped = "02069"
	codeFloatingIPVersionUnavailable   = "02075"
	codeReservationNotFound            = "02067"
	codeInvalidSSHKey                  = "02005"
	codeSnapshotInUse                  = "02016"
	codeAttachedVolumeNotDeletable     = "02022"
	codeSSHKeyImproperlyFormatted      = "02048"
	codeProvidedPrivateKey             = "02053"
	codeVolumeTypeUnavailable          = "02054"
	codeFilesystemResizeInvalid        = "02068"
)

// stamp is a timestamp as the contract shows them: RFC 3339 in UTC with exactly three fraction
// digits ("2026-01-15T09:00:00.000Z"). time.Time alone would drop trailing zeros.
type stamp time.Time

// MarshalJSON writes the timestamp in the contract's form.
func (t stamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format("2006-01-02T15:04:05.000Z") + `"`), nil
}

// UnmarshalJSON reads an RFC 3339 timestamp (a catalogue file carries them).
func (t *stamp) UnmarshalJSON(b []byte) error {
	var tt time.Time
	if err := json.Unmarshal(b, &tt); err != nil {
		return err
	}
	*t = stamp(tt)
	return nil
}

// nullString is a string shown as JSON null while it is empty.
type nullString string

// MarshalJSON writes null for the empty string.
func (s nullString) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte("null"), nil
	}
	return marshal(string(s))
}

// Ref is a reference to another resource, shown as {id, name}.
type Ref struct {
	// ID is the referenced resource's identifier.
	ID string `json:"id"`
	// Name is the referenced resource's name.
	Name string `json:"name"`
}

// apiError is a refusal: the status and the contract's {code, message} body.
type apiError struct {
	status     int
	code       string
	message    string
	retryAfter string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.code, e.message) }

func fail(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

// The status each kind of refusal gets. The contract does not give the status per code; it lists 400,
// 401, 403, 404 and 429 among its statuses and no 409, so a refused state change is a 400.
func badRequest(code, format string, args ...any) *apiError {
	return fail(http.StatusBadRequest, code, format, args...)
}

func notFound(code, format string, args ...any) *apiError {
	return fail(http.StatusNotFound, code, format, args...)
}

func missing(field string) *apiError {
	return badRequest(codeMissingParameters, "%s is required", field)
}

// marshal is json.Marshal without HTML escaping, so that a string comes back byte for byte as it
// was sent ("<" stays "<").
func marshal(v any) ([]byte, error) {
	b, err := encode(v)
	return bytes.TrimSuffix(b, []byte("\n")), err
}

// encode is v as a JSON document ending in a newline, without HTML escaping.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeError writes the contract's error body.
func writeError(w http.ResponseWriter, e *apiError) {
	if e.retryAfter != "" {
		w.Header().Set("Retry-After", e.retryAfter)
	}
	body, _ := encode(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{e.code, e.message})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.status)
	_, _ = w.Write(body)
}

// object is a JSON object of a request body, by key, with its keys checked against a list.
type object struct {
	where string // "" for the body, "metadata" or "rules[2]" for a nested object
	m     map[string]json.RawMessage
}

// parseBody reads a request body that must be one JSON object with only the allowed keys. Keys are
// matched exactly (encoding/json would match "NAME" to name); an unknown key is refused with 02002,
// stricter than the service, so that a misspelt field fails in tests.
func parseBody(raw []byte, allowed ...string) (object, *apiError) {
	if len(raw) > maxBody {
		return object{}, badRequest(codeMalformedRequest, "the body is larger than %d bytes", maxBody)
	}
	return parseObject("", raw, allowed...)
}

func parseObject(where string, raw []byte, allowed ...string) (object, *apiError) {
	o := object{where: where}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&o.m); err != nil || o.m == nil {
		if where == "" {
			return o, badRequest(codeMalformedRequest, "the body must be a JSON object")
		}
		return o, badRequest(codeMalformedRequest, "%s must be a JSON object", where)
	}
	if dec.More() {
		return o, badRequest(codeMalformedRequest, "the body must be a single JSON object")
	}
	for k := range o.m {
		if !slices.Contains(allowed, k) {
			return o, badRequest(codeMalformedRequest, "unknown field %q", o.name(k))
		}
	}
	return o, nil
}

// name is the key's full name for a message.
func (o object) name(k string) string {
	if o.where == "" {
		return k
	}
	return o.where + "." + k
}

// present reports whether the key is in the object, null or not.
func (o object) present(k string) bool {
	_, ok := o.m[k]
	return ok
}

// has reports whether the key is in the object with a value other than null.
func (o object) has(k string) bool {
	raw, ok := o.m[k]
	return ok && string(bytes.TrimSpace(raw)) != "null"
}

// typeError is a value of the wrong JSON type.
func (o object) typeError(k, want string) *apiError {
	return badRequest(codeMalformedRequest, "%s must be a JSON %s", o.name(k), want)
}

// str reads a string; an absent or null key leaves *dst unchanged.
func (o object) str(k string, dst *string) *apiError {
	if !o.has(k) {
		return nil
	}
	if json.Unmarshal(o.m[k], dst) != nil {
		return o.typeError(k, "string")
	}
	return nil
}

// strs reads an array of strings; an absent or null key leaves *dst unchanged. An empty array gives
// an empty, non-nil slice.
func (o object) strs(k string, dst *[]string) *apiError {
	if !o.has(k) {
		return nil
	}
	var v []string
	if json.Unmarshal(o.m[k], &v) != nil || v == nil {
		return o.typeError(k, "array of strings")
	}
	*dst = v
	return nil
}

// boolean reads a boolean; an absent or null key leaves *dst unchanged.
func (o object) boolean(k string, dst *bool) *apiError {
	if !o.has(k) {
		return nil
	}
	if json.Unmarshal(o.m[k], dst) != nil {
		return o.typeError(k, "boolean")
	}
	return nil
}

// integer reads a JSON integer (80, not 80.5 nor "80"); an absent or null key leaves *dst unchanged.
func (o object) integer(k string, dst *int) *apiError {
	if !o.has(k) {
		return nil
	}
	n, ok := parseInteger(o.m[k])
	if !ok {
		return o.typeError(k, "integer")
	}
	*dst = n
	return nil
}

// parseInteger reads a JSON number without fraction or exponent that fits an int.
func parseInteger(raw json.RawMessage) (int, bool) {
	s := strings.TrimSpace(string(raw))
	if s == "" || strings.ContainsAny(s, ".eE\"") {
		return 0, false
	}
	var n int
	if json.Unmarshal([]byte(s), &n) != nil {
		return 0, false
	}
	return n, true
}

// child reads a nested object with its own allowed keys.
func (o object) child(k string, allowed ...string) (object, *apiError) {
	return parseObject(o.name(k), o.m[k], allowed...)
}

// array reads an array of raw values.
func (o object) array(k string) ([]json.RawMessage, *apiError) {
	var v []json.RawMessage
	if json.Unmarshal(o.m[k], &v) != nil || v == nil {
		return nil, o.typeError(k, "array")
	}
	return v, nil
}

// readRename reads the body of an update that may only rename (an SSH key, a snapshot): set is
// false when the body has no name, and an empty name is 02004.
func readRename(body []byte) (name string, set bool, err *apiError) {
	o, err := parseBody(body, "name")
	if err != nil {
		return "", false, err
	}
	if err := o.str("name", &name); err != nil {
		return "", false, err
	}
	if !o.has("name") {
		return "", false, nil
	}
	if strings.TrimSpace(name) == "" {
		return "", false, badRequest(codeBadRequest, "name must not be empty")
	}
	return name, true, nil
}
