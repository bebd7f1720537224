package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	compute "github.com/compute-sdk/compute-go"
)

// describe writes every field of v (a resource of the SDK) for a person: one "Label: value" a
// line in the order of the resource's JSON, nested objects and lists indented under their label.
// Every text from the service is made safe.
func (a *app) describe(v any) string {
	var b strings.Builder
	a.describeStruct(&b, reflect.Indirect(reflect.ValueOf(v)), "")
	return b.String()
}

// field is one line of a description: its label, and its value on the line or the lines under it.
type field struct {
	label string
	value reflect.Value
}

func (a *app) describeStruct(b *strings.Builder, v reflect.Value, indent string) {
	var fields []field
	width := 0
	for i := range v.NumField() {
		f := v.Type().Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		fields = append(fields, field{label: label(tag), value: v.Field(i)})
		width = max(width, len(label(tag)))
	}
	for _, f := range fields {
		a.describeValue(b, f.label, width, f.value, indent)
	}
}

// describeValue writes one labelled value at indent, its label padded to width.
func (a *app) describeValue(b *strings.Builder, lbl string, width int, v reflect.Value, indent string) {
	head := fmt.Sprintf("%s%-*s", indent, width+1, lbl+":")
	if line, ok := a.inline(v); ok {
		fmt.Fprintf(b, "%s %s\n", head, line)
		return
	}
	b.WriteString(strings.TrimRight(head, " ") + "\n")
	v = reflect.Indirect(v)
	switch v.Kind() {
	case reflect.Struct:
		a.describeStruct(b, v, indent+"  ")
	case reflect.Slice:
		for i := range v.Len() {
			item := reflect.Indirect(v.Index(i))
			if line, ok := a.inline(item); ok {
				fmt.Fprintf(b, "%s  - %s\n", indent, line)
				continue
			}
			var sub strings.Builder
			a.describeStruct(&sub, item, indent+"    ")
			text := sub.String()
			fmt.Fprintf(b, "%s  - %s", indent, strings.TrimPrefix(text, indent+"    "))
		}
	case reflect.Map:
		keys := v.MapKeys()
		slices.SortFunc(keys, func(x, y reflect.Value) int { return strings.Compare(x.String(), y.String()) })
		w := 0
		for _, k := range keys {
			w = max(w, len(a.safe(k.String())))
		}
		for _, k := range keys {
			a.describeValue(b, a.safe(k.String()), w, v.MapIndex(k), indent+"  ")
		}
	}
}

var (
	refType     = reflect.TypeFor[compute.Ref]()
	timeType    = reflect.TypeFor[time.Time]()
	rawJSONType = reflect.TypeFor[json.RawMessage]()
)

// inline returns v as the text of one line, or false for a value that takes lines of its own (a
// nested object, a list that is not empty, a map).
func (a *app) inline(v reflect.Value) (string, bool) {
	if v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return "-", true
		}
		v = v.Elem()
	}
	switch {
	case v.Type() == refType:
		r := v.Interface().(compute.Ref)
		switch {
		case r.Name != "" && r.ID != "":
			return a.safe(r.Name) + " (" + a.safe(r.ID) + ")", true
		case r.ID == "" && r.Name == "":
			return "-", true
		}
		return a.safe(r.Name + r.ID), true
	case v.Type() == timeType:
		t := v.Interface().(time.Time)
		if t.IsZero() {
			return "-", true
		}
		return t.UTC().Format(time.RFC3339), true
	case v.Type() == rawJSONType:
		raw := v.Bytes()
		if len(raw) == 0 {
			return "-", true
		}
		var c bytes.Buffer
		if json.Compact(&c, raw) != nil {
			return a.safe(string(raw)), true
		}
		return a.safe(c.String()), true
	}
	switch v.Kind() {
	case reflect.String:
		if v.String() == "" {
			return "-", true
		}
		return a.safe(v.String()), true
	case reflect.Bool:
		if v.Bool() {
			return "yes", true
		}
		return "no", true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return fmt.Sprint(v.Interface()), true
	case reflect.Slice, reflect.Map:
		if v.Len() == 0 {
			return "-", true
		}
	}
	return "", false
}

// acronyms are the words of a JSON key that a label writes in capitals.
var acronyms = map[string]bool{"id": true, "ip": true, "ipv4": true, "ipv6": true, "ssh": true, "dns": true,
	"os": true, "gib": true, "url": true, "cpu": true, "gpu": true, "cidr": true}

// label makes a JSON key a label: "public_ip" is "Public IP", "ssh_keys" is "SSH keys",
// "is_protected" is "Protected".
func label(key string) string {
	words := strings.Split(strings.TrimPrefix(key, "is_"), "_")
	for i, w := range words {
		switch {
		case acronyms[w]:
			words[i] = strings.ToUpper(w)
		case i == 0 && w != "":
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}
