package compute

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// envelope is the shape of a response that carries one resource: a one-line wrapper struct whose
// tag names the key ({"instance": {...}}), declared beside its resource, or the resource itself
// where the service does not wrap it (an SSH key). resource returns nil when the key was absent.
type envelope[T any] interface{ resource() *T }

// pageBody is the shape of a list response: a struct with the items under the collection's key
// (its tag) and the counts beside them, declared beside its resource.
type pageBody[T any] interface {
	parts() (*items[T], *pageCounts)
}

// pageCounts are the counts every page carries beside its items.
type pageCounts struct {
	TotalCount int `json:"total_count"`
	Page       int `json:"page"`
	PerPage    int `json:"per_page"`
}

// items is a page's list of resources. It is decoded one item at a time, so that a page holding
// more items than max is refused as soon as the item past max begins, before it is built: a broken
// or hostile server cannot make a page cost more than max items. present records that the key was
// in the response (a null counts as an empty list; only a missing key is no list).
type items[T any] struct {
	list    []T
	max     int
	present bool
}

// UnmarshalJSON implements json.Unmarshaler.
// A repeated key replaces the list, and a null clears it, as encoding/json does for a slice.
func (l *items[T]) UnmarshalJSON(data []byte) error {
	l.list, l.present = nil, true
	if bytes.Equal(bytes.TrimSpace(data), []byte("null")) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return errors.New("the collection is not a JSON array")
	}
	for dec.More() {
		if len(l.list) >= l.max {
			return fmt.Errorf("the page holds more than the %d items asked for", l.max)
		}
		var v T
		if err := dec.Decode(&v); err != nil {
			return err
		}
		l.list = append(l.list, v)
	}
	return nil
}

// decodeObject decodes data, which must be one JSON object, into out, following encoding/json's
// rules for a struct: a key matches case-insensitively, a repeated key is decoded again, a null
// leaves a pointer nil, and anything but white space after the object is an error. Keys the SDK
// does not know are skipped, so that a field the service adds later costs nothing.
func decodeObject(data []byte, out any) error {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return errors.New("the response is not a JSON object")
	}
	return json.Unmarshal(data, out)
}
