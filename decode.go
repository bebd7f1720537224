package compute

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
)

// maxEnvelopeKeys is the most keys an envelope names: a page's items, total_count, page, per_page.
const maxEnvelopeKeys = 4

// envelope names the keys of a JSON answer to decode, each into its target (a non-nil pointer).
// Every other key is skipped, so that a field the service adds later costs nothing.
//
// The answer is decoded in one pass by encoding/json into a struct type built once per set of keys
// and target types, whose fields are the targets' types, so it follows encoding/json's rules for a
// struct exactly, the rules that already apply inside every resource:
//   - a key matches case-insensitively ("Instance" fills the "instance" target);
//   - a key that appears twice, in any spelling, is decoded twice into the same target;
//   - a null sets a pointer or slice target to nil and leaves a number unchanged;
//   - anything but white space after the object is an error.
//
// Before this one-pass decode the envelope matched keys exactly. encoding/json's rule was chosen
// with it, because no answer of the contract differs by case and every peer SDK decodes its
// envelopes this way.
type envelope struct {
	keys    [maxEnvelopeKeys]string
	targets [maxEnvelopeKeys]any
	n       int
}

// envelopeOf returns the envelope of one key and its target.
func envelopeOf(key string, target any) *envelope {
	e := &envelope{n: 1}
	e.keys[0], e.targets[0] = key, target
	return e
}

// pageEnvelope is the envelope of a list answer: the items under key and the three counts.
func pageEnvelope(key string, items any, total, page, perPage *int) *envelope {
	return &envelope{
		keys:    [maxEnvelopeKeys]string{key, "total_count", "page", "per_page"},
		targets: [maxEnvelopeKeys]any{items, total, page, perPage},
		n:       4,
	}
}

// envelopeShape identifies an envelope's struct type: its keys and its targets' types.
type envelopeShape struct {
	keys  [maxEnvelopeKeys]string
	types [maxEnvelopeKeys]reflect.Type
}

// envelopeTypes caches the struct type of each shape; an SDK has a dozen of them.
var envelopeTypes struct {
	sync.RWMutex
	m map[envelopeShape]reflect.Type
}

// structType returns the struct type with one field per key, of the type its target points to,
// tagged with the key.
func (e *envelope) structType() reflect.Type {
	shape := envelopeShape{keys: e.keys}
	for i := range e.n {
		shape.types[i] = reflect.TypeOf(e.targets[i]).Elem()
	}
	envelopeTypes.RLock()
	t, ok := envelopeTypes.m[shape]
	envelopeTypes.RUnlock()
	if ok {
		return t
	}
	fields := make([]reflect.StructField, e.n)
	for i := range fields {
		fields[i] = reflect.StructField{
			Name: fmt.Sprintf("F%d", i),
			Type: shape.types[i],
			Tag:  reflect.StructTag(`json:"` + e.keys[i] + `"`),
		}
	}
	t = reflect.StructOf(fields)
	envelopeTypes.Lock()
	defer envelopeTypes.Unlock()
	if envelopeTypes.m == nil {
		envelopeTypes.m = make(map[envelopeShape]reflect.Type)
	}
	envelopeTypes.m[shape] = t
	return t
}

// decode reads the JSON object in data into the targets of e: each target's value is copied into
// its field, the struct is decoded, and each field is copied back, which is decoding into the
// targets themselves (the values are slice headers, pointers and numbers, so the copies are cheap).
func (e *envelope) decode(data []byte) error {
	if !isObject(data) {
		return errors.New("the answer is not a JSON object")
	}
	v := reflect.New(e.structType())
	s := v.Elem()
	for i := range e.n {
		s.Field(i).Set(reflect.ValueOf(e.targets[i]).Elem())
	}
	err := json.Unmarshal(data, v.Interface())
	for i := range e.n {
		reflect.ValueOf(e.targets[i]).Elem().Set(s.Field(i))
	}
	return err
}

// isObject reports whether data starts, after white space, with the opening brace of a JSON object.
func isObject(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '{'
}

// answerBuffers recycles the buffers that success answers are read into: a walk over thousands of
// pages then reads every page into the same few buffers. Buffers that grew past maxPooledAnswer
// (an answer far larger than a page of 100 instances) are left to the garbage collector.
var answerBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledAnswer = 1 << 20

// borrowAnswer takes an empty buffer from the pool; releaseAnswer hands it back.
func borrowAnswer() *bytes.Buffer {
	buf := answerBuffers.Get().(*bytes.Buffer)
	buf.Reset()
	return buf
}

// readAnswer reads body, at most limit bytes, into a pooled buffer. The caller hands the buffer back
// with releaseAnswer once it has decoded it; decoding copies every string out of the buffer, so
// nothing decoded keeps it alive. On an error the buffer is already released and nil is returned.
func readAnswer(body io.Reader, limit int64) (*bytes.Buffer, error) {
	buf := borrowAnswer()
	err := readAtMost(buf, body, limit+1)
	if err == nil && int64(buf.Len()) > limit {
		err = fmt.Errorf("the answer is larger than %d MiB", limit>>20)
	}
	if err != nil {
		releaseAnswer(buf)
		return nil, err
	}
	return buf, nil
}

// readAtMost appends r to buf until its end or until buf holds n bytes. It is io.LimitedReader and
// bytes.Buffer.ReadFrom in one loop, without their allocation.
func readAtMost(buf *bytes.Buffer, r io.Reader, n int64) error {
	for int64(buf.Len()) < n {
		if buf.Available() < 512 {
			buf.Grow(512)
		}
		p := buf.AvailableBuffer()
		p = p[:min(int64(cap(p)), n-int64(buf.Len()))]
		m, err := r.Read(p)
		buf.Write(p[:m])
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// releaseAnswer returns a buffer of borrowAnswer or readAnswer to the pool.
func releaseAnswer(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledAnswer {
		answerBuffers.Put(buf)
	}
}
