package fake

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type sampleItem struct {
	Kind  string  `json:"kind" fake:"required"`
	Label *string `json:"label" fake:"required"`
}

type sampleNested struct {
	Note  string       `json:"note"`
	Items []sampleItem `json:"items"`
}

type sampleRequest struct {
	Name    string        `json:"name" fake:"required"`
	Size    int           `json:"size"`
	Tags    []string      `json:"tags"`
	On      *bool         `json:"on"`
	Share   float64       `json:"share"`
	Nested  *sampleNested `json:"nested"`
	Refused refusedKey    `json:"refused"`
}

func (r *sampleRequest) check() *Error {
	if r.Size > 100 {
		return badRequest(codeBadRequest, "size is at most 100")
	}
	return nil
}

func TestDecodeBody(t *testing.T) {
	for body, want := range map[string]string{
		`{"name":"a","size":80}`:                                    "",
		`{"name":"a","tags":[],"on":null}`:                          "",
		`{"name":"a","nested":{"items":[{"kind":"k","label":""}]}}`: "",
		`{"Name":"a"}`:                     `02002 unknown field "Name"`,
		`{"name":"a","nested":{"nope":1}}`: `02002 unknown field "nested.nope"`,
		`{"name":"a","nested":{"items":[{"kind":"k","label":"x","x":1}]}}`: `02002 unknown field "nested.items[0].x"`,
		`{"name":7}`:                                     `02002 name must be a JSON string`,
		`{"name":"a","size":80.5}`:                       `02002 size must be a JSON integer`,
		`{"name":"a","size":8e1}`:                        `02002 size must be a JSON integer`,
		`{"name":"a","size":"80"}`:                       `02002 size must be a JSON integer`,
		`{"name":"a","tags":"x"}`:                        `02002 tags must be a JSON array of strings`,
		`{"name":"a","tags":[1]}`:                        `02002 tags must be a JSON array of strings`,
		`{"name":"a","on":"yes"}`:                        `02002 on must be a JSON boolean`,
		`{"name":"a","share":"x"}`:                       `02002 share must be a JSON number`,
		`{"name":"a","nested":[]}`:                       `02002 nested must be a JSON object`,
		`{"name":"a","nested":{"items":{}}}`:             `02002 nested.items must be a JSON array`,
		`{}`:                                             `02003 name is required`,
		`{"name":null}`:                                  `02003 name is required`,
		`{"name":"  "}`:                                  `02003 name is required`,
		`{"name":"a","nested":{"items":[{"kind":"k"}]}}`: `02003 nested.items[0].label is required`,
		`{"size":"x"}`:                                   `02002 size must be a JSON integer`,
		`{"name":"a","size":101}`:                        `02004 size is at most 100`,
		`{"name":"a","refused":null}`:                    `02004 refused is not accepted in an update`,
		`[]`:                                             `02002 the body must be a JSON object`,
		`null`:                                           `02002 the body must be a JSON object`,
		``:                                               `02002 the body must be a JSON object`,
		`{"name":"a"} {"name":"b"}`:                      `02002 the body must be a single JSON object`,
		`{"name":"a"`:                                    `02002 the body must be a JSON object`,
	} {
		var r sampleRequest
		err := decodeBody([]byte(body), &r)
		if want == "" {
			assert.Nil(t, err, body)
			continue
		}
		if assert.NotNil(t, err, body) {
			assert.Equal(t, want, err.code+" "+err.message, body)
		}
	}
	assert.Equal(t, "02002 the body is larger than 4194304 bytes",
		func() string {
			err := decodeBody([]byte(strings.Repeat(" ", maxBody+1)), &sampleRequest{})
			return err.code + " " + err.message
		}())
}

func TestDecodeBodyFillsTheStruct(t *testing.T) {
	var r sampleRequest
	require.Nil(t, decodeBody([]byte(`{"name":"a","size":3,"tags":[],"on":false,"nested":{"items":[{"kind":"k","label":"l"}]}}`), &r))
	on, label := false, "l"
	assert.Equal(t, sampleRequest{Name: "a", Size: 3, Tags: []string{}, On: &on,
		Nested: &sampleNested{Items: []sampleItem{{Kind: "k", Label: &label}}}}, r)

	r = sampleRequest{}
	require.Nil(t, decodeBody([]byte(`{"name":"a","tags":null,"on":null,"nested":null}`), &r))
	assert.Equal(t, sampleRequest{Name: "a"}, r, "null is as good as left out")
}
