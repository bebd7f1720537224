package compute

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
)

// scrubBody returns a body as a dump shows it, with the secret fields' values hidden, and those
// values. A JSON body is shown compact, its keys in their order; one that stops being JSON part
// way (a body cut short) is shown up to there. Any other body is shown as it is.
func scrubBody(body []byte) (string, []string) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' && trimmed[0] != '[' {
		return string(body), nil
	}
	s := &jsonScrubber{dec: json.NewDecoder(bytes.NewReader(trimmed))}
	s.dec.UseNumber()
	if err := s.run(); err != nil {
		s.out.WriteString(" (the rest is not shown: not valid JSON)")
	}
	return s.out.String(), s.secrets
}

// jsonScrubber copies a JSON document token by token, replacing the secret fields' values.
type jsonScrubber struct {
	dec     *json.Decoder
	out     strings.Builder
	stack   []jsonFrame
	secrets []string
}

// jsonFrame is an object or array being copied.
type jsonFrame struct {
	object  bool
	wantKey bool   // an object's next token is a key, or its end
	n       int    // the members written so far
	under   string // the key whose value it is, that of the enclosing frame for an array's element
}

func (s *jsonScrubber) top() *jsonFrame {
	if len(s.stack) == 0 {
		return nil
	}
	return &s.stack[len(s.stack)-1]
}

// run copies the document, and returns the error that stopped it before its end.
func (s *jsonScrubber) run() error {
	for {
		tok, err := s.dec.Token()
		if err == io.EOF && len(s.stack) > 0 {
			return io.ErrUnexpectedEOF
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		f := s.top()
		if f != nil && f.object && f.wantKey {
			if d, ok := tok.(json.Delim); ok { // '}': the object ends
				s.out.WriteRune(rune(d))
				s.pop()
				continue
			}
			key, _ := tok.(string)
			if f.n > 0 {
				s.out.WriteByte(',')
			}
			s.out.WriteString(jsonQuote(key))
			s.out.WriteByte(':')
			f.wantKey = false
			if hide := s.secretRule(key); hide != nil {
				var raw json.RawMessage
				if err := s.dec.Decode(&raw); err != nil {
					return err
				}
				s.out.WriteString(hide(s, raw))
				s.ended()
				continue
			}
			f.under = key
			continue
		}
		if f != nil && !f.object && f.n > 0 {
			if d, ok := tok.(json.Delim); !ok || d != ']' {
				s.out.WriteByte(',')
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			s.out.WriteRune(rune(v))
			if v == '{' || v == '[' {
				under := ""
				if f != nil {
					under = f.under
				}
				s.stack = append(s.stack, jsonFrame{object: v == '{', wantKey: v == '{', under: under})
			} else {
				s.pop()
			}
		case string:
			s.out.WriteString(jsonQuote(v))
			s.ended()
		case json.Number:
			s.out.WriteString(v.String())
			s.ended()
		case bool:
			fmt.Fprint(&s.out, v)
			s.ended()
		case nil:
			s.out.WriteString("null")
			s.ended()
		}
	}
}

// pop ends the innermost object or array, which is a value of the one around it.
func (s *jsonScrubber) pop() {
	s.stack = s.stack[:len(s.stack)-1]
	s.ended()
}

// ended notes that a value of the innermost frame was written.
func (s *jsonScrubber) ended() {
	if f := s.top(); f != nil {
		f.n++
		f.wantKey = f.object
	}
}

// secretWords mark a field as secret when its name holds one, in any case.
var secretWords = []string{"password", "passphrase", "secret", "token", "private_key", "credential"}

// secretRule returns how to show the value of the field key of the innermost object, nil to show
// it as it is.
func (s *jsonScrubber) secretRule(key string) func(*jsonScrubber, json.RawMessage) string {
	lower := strings.ToLower(key)
	switch {
	case slices.ContainsFunc(secretWords, func(w string) bool { return strings.Contains(lower, w) }):
		return hideValue
	case lower == "startup_script":
		return hideSized
	case lower == "content" && slices.ContainsFunc(s.stack, func(f jsonFrame) bool { return f.under == "user_data" }):
		return hideSized
	case lower == "url":
		return hideURLCredentials
	}
	return nil
}

// hideValue shows a secret as redactedMark (null stays null).
func hideValue(s *jsonScrubber, raw json.RawMessage) string {
	if string(raw) == "null" {
		return "null"
	}
	var str string
	if json.Unmarshal(raw, &str) == nil {
		s.secrets = append(s.secrets, str)
	}
	return jsonQuote(redactedMark)
}

// hideSized shows a secret text as "[REDACTED: N bytes]".
func hideSized(s *jsonScrubber, raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) != nil {
		return hideValue(s, raw)
	}
	s.secrets = append(s.secrets, str)
	return jsonQuote(fmt.Sprintf("[REDACTED: %d bytes]", len(str)))
}

// hideURLCredentials shows a URL without its user information and its query's values.
func hideURLCredentials(s *jsonScrubber, raw json.RawMessage) string {
	var str string
	if json.Unmarshal(raw, &str) != nil {
		return string(raw)
	}
	u, err := url.Parse(str)
	if err != nil {
		if strings.ContainsAny(str, "@?#") {
			return hideValue(s, raw)
		}
		return jsonQuote(str)
	}
	var b strings.Builder
	if u.Scheme != "" {
		b.WriteString(u.Scheme + ":")
	}
	if u.Host != "" || u.User != nil {
		b.WriteString("//")
	}
	if u.User != nil {
		s.secrets = append(s.secrets, u.User.Username())
		if p, ok := u.User.Password(); ok {
			s.secrets = append(s.secrets, p)
		}
		b.WriteString(redactedMark + "@")
	}
	b.WriteString(u.Host)
	b.WriteString(u.EscapedPath())
	if u.RawQuery != "" {
		b.WriteByte('?')
		for i, part := range strings.Split(u.RawQuery, "&") {
			if i > 0 {
				b.WriteByte('&')
			}
			name, value, _ := strings.Cut(part, "=")
			b.WriteString(name + "=" + redactedMark)
			if v, err := url.QueryUnescape(value); err == nil {
				s.secrets = append(s.secrets, v)
			}
			s.secrets = append(s.secrets, value)
		}
	}
	if u.Fragment != "" {
		b.WriteString("#" + redactedMark)
	}
	return jsonQuote(b.String())
}

// jsonQuote is s as a JSON string, without HTML escaping.
func jsonQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	q := jsonQuote(s)
	return q[1 : len(q)-1]
}
