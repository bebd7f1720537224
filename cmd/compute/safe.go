package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// escaped reports whether r would act on a terminal rather than show: a control character (C0, DEL,
// C1 such as U+009B, a one-byte CSI), a bidi control that reorders what follows, or a line or
// paragraph separator.
func escaped(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// escape shows every character of s that would act on a terminal as an escape (\n, \t, \x1b,
// \u009b, \u202e), and a byte that is not UTF-8 as \xNN, so that text from the service cannot move
// the cursor, change the title, forge a line or a column, or reorder what follows.
func escape(s string) string {
	if !strings.ContainsFunc(s, escaped) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && escaped(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case escaped(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// safe makes a text from the service fit to print: the token scrubbed, then escaped.
func (a *app) safe(s string) string { return escape(a.redact(s)) }

// redact hides the token (once it is known) in s.
func (a *app) redact(s string) string {
	if a.redactor == nil {
		return s
	}
	return a.redactor(s)
}

// safeLines is safe for a message of several lines that the command itself made: each line is
// made safe, and the newlines between them stay.
func (a *app) safeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = a.safe(l)
	}
	return strings.Join(lines, "\n")
}

// safeJSON makes JSON output fit for a terminal while it decodes to the same data: the token is
// scrubbed, and DEL, C1 characters, bidi controls and separators (which encoding/json leaves raw)
// are written as \u escapes. Outside strings JSON holds only ASCII, so only strings change.
func (a *app) safeJSON(b []byte) []byte {
	s := a.redact(string(b))
	if !strings.ContainsFunc(s, escaped) {
		return []byte(s)
	}
	var out strings.Builder
	for _, r := range s {
		if escaped(r) && r != '\n' {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return []byte(out.String())
}

// safeBytes makes bytes from the service fit to print: raw JSON compacted onto one line and made
// safe as safeJSON does (it decodes to the same data), or any other bytes made safe as text.
func (a *app) safeBytes(b []byte, rawJSON bool) []byte {
	if rawJSON {
		var c bytes.Buffer
		if json.Compact(&c, b) == nil {
			return a.safeJSON(c.Bytes())
		}
	}
	return []byte(a.safe(string(b)))
}

// sanitized returns a deep copy of v (a struct, a pointer to one, ...) whose every string is made
// safe, for the outputs that print fields by name (-o format, describe).
func (a *app) sanitized(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		out := reflect.New(v.Type()).Elem()
		out.SetString(a.safe(v.String()))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if out.Field(i).CanSet() {
				out.Field(i).Set(a.sanitized(v.Field(i)))
			}
		}
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(a.sanitized(v.Elem()))
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			// Bytes a template may print as text: raw JSON from the service (made safe and still
			// JSON, on one line), or any other bytes (made safe as text).
			out := reflect.New(v.Type()).Elem()
			out.SetBytes(a.safeBytes(v.Bytes(), v.Type() == rawJSONType))
			return out
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(a.sanitized(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(a.sanitized(it.Key()), a.sanitized(it.Value()))
		}
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(a.sanitized(v.Elem()))
		return out
	}
	return v
}
