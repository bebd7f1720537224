package fake

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"
)

// stamp is a timestamp as the API shows them: RFC 3339 in UTC with exactly three fraction digits
// ("2026-01-15T09:00:00.000Z"). time.Time alone would drop trailing zeros.
type stamp time.Time

// MarshalJSON writes the timestamp in the API's form.
func (t stamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format("2006-01-02T15:04:05.000Z") + `"`), nil
}

// nullString is a string shown as JSON null while it is empty.
type nullString string

// MarshalJSON writes null for the empty string, and otherwise the string without HTML escaping, so
// that it comes back byte for byte as it was sent ("<" stays "<").
func (s nullString) MarshalJSON() ([]byte, error) {
	if s == "" {
		return []byte("null"), nil
	}
	b, err := encode(string(s))
	return bytes.TrimSuffix(b, []byte("\n")), err
}

// Ref is a reference to another resource, shown as {id, name}.
type Ref struct {
	// ID is the referenced resource's identifier.
	ID string `json:"id"`
	// Name is the referenced resource's name.
	Name string `json:"name"`
}

func hasRef(refs []Ref, id string) bool {
	return slices.ContainsFunc(refs, func(r Ref) bool { return r.ID == id })
}

func refIDs(refs []Ref) []string {
	ids := make([]string, 0, len(refs))
	for _, r := range refs {
		ids = append(ids, r.ID)
	}
	return ids
}

// document is a response body already encoded, sent as it is.
type document struct {
	contentType string
	body        []byte
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

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
