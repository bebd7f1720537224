package fake

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// maxBody bounds what the fake reads of a request body; a 64 KiB startup script fits many times.
const maxBody = 4 << 20

// none is the request of an operation that reads no body, and the result of one that sends none.
type none struct{}

// fieldDecoder is a request field that reads its own JSON value (a union, a list whose refusals
// have their own code). It is called for any key present, null included.
type fieldDecoder interface {
	decodeJSON(name string, raw json.RawMessage) *Error
}

// checker is a request with rules of its own beyond its fields' types and required keys, checked
// once it is decoded.
type checker interface {
	check() *Error
}

// decodeBody is the fake's one decoder: it reads a request body into req, a pointer to one of the
// fake's request structs. The body must be one JSON object whose keys are exactly the struct's json
// tags, matched as spelt (encoding/json would take "NAME" for "name"): an unknown key, a value of
// the wrong JSON type, or a body that is not one object is 02002, stricter than the service, so that
// a misspelt field fails in tests. A field tagged fake:"required" that is missing, null or (a string)
// blank is 02003; a string pointer tagged fake:"nonblank" that is given blank is 02004. A key sent as
// null counts as left out: a pointer field stays nil, so that nil means "not given". Then req's own
// check runs, if it has one. A request type that decodes itself (a fieldDecoder) reads the whole
// body instead; none reads nothing.
func decodeBody(raw []byte, req any) *Error {
	if _, noBody := req.(*none); noBody {
		return nil
	}
	if len(raw) > maxBody {
		return malformed("the body is larger than %d bytes", maxBody)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	var first json.RawMessage
	if dec.Decode(&first) != nil {
		return malformed("the body must be a JSON object")
	}
	if dec.More() {
		return malformed("the body must be a single JSON object")
	}
	if fd, ok := req.(fieldDecoder); ok {
		return fd.decodeJSON("", first)
	}
	return decodeObject("", first, reflect.ValueOf(req).Elem())
}

// decodeObject reads a JSON object into the struct v, in four passes, so that the refusal a body
// gets does not depend on the order of its keys: unknown keys, then the types of plain values, then
// required keys, then nested objects and fields that decode themselves; then non-blank keys and v's
// check.
func decodeObject(where string, raw json.RawMessage, v reflect.Value) *Error {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return malformed("%s must be a JSON object", cmp.Or(where, "the body"))
	}
	t := v.Type()
	known := map[string]bool{}
	for i := range t.NumField() {
		known[jsonName(t.Field(i))] = true
	}
	for k := range m {
		if !known[k] {
			return malformed("unknown field %q", join(where, k))
		}
	}
	if err := decodeFields(where, m, v, false); err != nil {
		return err
	}
	for i := range t.NumField() {
		f := t.Field(i)
		raw, present := m[jsonName(f)]
		blank := f.Type.Kind() == reflect.String && strings.TrimSpace(v.Field(i).String()) == ""
		if f.Tag.Get("fake") == "required" && (!present || isNull(raw) || blank) {
			return missing(join(where, jsonName(f)))
		}
	}
	if err := decodeFields(where, m, v, true); err != nil {
		return err
	}
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		if f.Tag.Get("fake") == "nonblank" && !fv.IsNil() && strings.TrimSpace(fv.Elem().String()) == "" {
			return badRequest(codeBadRequest, "%s must not be empty", join(where, jsonName(f)))
		}
	}
	if c, ok := v.Addr().Interface().(checker); ok {
		return c.check()
	}
	return nil
}

// decodeFields reads the plain values of an object's fields, or (nested) its objects, lists of
// objects and fields that decode themselves.
func decodeFields(where string, m map[string]json.RawMessage, v reflect.Value, nested bool) *Error {
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		raw, present := m[jsonName(f)]
		if fd, ok := fv.Addr().Interface().(fieldDecoder); ok {
			if nested && present {
				if err := fd.decodeJSON(join(where, jsonName(f)), raw); err != nil {
					return err
				}
			}
			continue
		}
		if isNested(f.Type) != nested || !present || isNull(raw) {
			continue
		}
		if err := decodeValue(join(where, jsonName(f)), raw, fv); err != nil {
			return err
		}
	}
	return nil
}

// decodeValue reads one JSON value into v: a string, bool, int, float64 or []string, a struct, a
// slice of structs, or a pointer to one of these.
func decodeValue(name string, raw json.RawMessage, v reflect.Value) *Error {
	switch t := v.Type(); {
	case t.Kind() == reflect.Pointer:
		p := reflect.New(t.Elem())
		if err := decodeValue(name, raw, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
	case t.Kind() == reflect.Struct:
		return decodeObject(name, raw, v)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil || items == nil {
			return typeError(name, "array")
		}
		v.Set(reflect.MakeSlice(t, len(items), len(items)))
		for i, item := range items {
			if err := decodeValue(fmt.Sprintf("%s[%d]", name, i), item, v.Index(i)); err != nil {
				return err
			}
		}
	case json.Unmarshal(raw, v.Addr().Interface()) != nil: // 80.5, 8e1 and "80" are not an int
		return typeError(name, jsonTypes[t.String()])
	}
	return nil
}

// jsonTypes names the JSON type of each Go type the decoder reads plain values into.
var jsonTypes = map[string]string{"string": "string", "bool": "boolean", "int": "integer", "float64": "number",
	"[]string": "array of strings"}

// parseInteger reads a JSON number without fraction or exponent that fits an int (80, not 80.5,
// 8e1 nor "80").
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

// isNested reports whether a field's values are read in the last pass: objects and lists of them.
func isNested(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

func typeError(name, want string) *Error { return malformed("%s must be a JSON %s", name, want) }

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// join is a key's full name for a message: "metadata.startup_script".
func join(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}

// setGiven sets *dst to the value an update gave, and leaves it when v is nil (not given).
func setGiven[T any](dst, v *T) {
	if v != nil {
		*dst = *v
	}
}

// refusedKey is a key an update may not carry: sending it, whatever its value, is 02004.
type refusedKey struct{}

func (refusedKey) decodeJSON(name string, _ json.RawMessage) *Error {
	return badRequest(codeBadRequest, "%s is not accepted in an update", name)
}

// call is one request as a handler sees it, besides its body.
type call struct {
	ids   []string // the path parameters, unescaped, in order
	query url.Values
	now   time.Time
}

// page is one page of a list, its items in their wire form.
type page struct {
	items                  []any
	total, number, perPage int
}

// pageOf is the page the query asks for of total items, item(i) being the i-th, turning only the
// page's items into their wire form. per_page is 1 to 100 (default 50), page at least 1 (default
// 1): anything else is 02004. A page past the end is empty, with the true total_count.
func pageOf(c call, total int, item func(i int) any) (page, *Error) {
	p := page{total: total, number: 1, perPage: 50}
	if v := c.query.Get("per_page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return page{}, badRequest(codeBadRequest, "per_page must be an integer from 1 to 100, got %q", v)
		}
		p.perPage = n
	}
	if v := c.query.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return page{}, badRequest(codeBadRequest, "page must be a positive integer, got %q", v)
		}
		p.number = n
	}
	start := total
	if p.number-1 < total/p.perPage+1 { // else (p.number-1)*p.perPage is past the end, or overflows
		start = min((p.number-1)*p.perPage, total)
	}
	p.items = make([]any, 0, min(p.perPage, total-start))
	for i := start; i < min(start+p.perPage, total); i++ {
		p.items = append(p.items, item(i))
	}
	return p, nil
}
