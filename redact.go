package compute

import (
	"net/url"
	"strings"
)

// credential holds the token in closures, so neither %v nor a reflective dumper can print it.
type credential struct {
	// header returns the header name and value that carry the token.
	header func() (name, value string)
	// redact replaces the token in s, and every run of scrubRun or more of its characters.
	redact func(s string) string
}

func newCredential(token string, legacy bool) credential {
	name, value := "Authorization", "Bearer "+token
	if legacy {
		name, value = "X-Auth-Token", token
	}
	return credential{
		header: func() (string, string) { return name, value },
		redact: scrubber(token),
	}
}

// scrubRun is the shortest run of the token's characters that scrubbing removes: a server may echo
// the token split over lines or cut at an excerpt's end, so each piece is caught.
const scrubRun = 5

// redactedMark replaces what scrubbing removes.
const redactedMark = "[REDACTED]"

// scrubber returns a function that replaces every run of scrubRun or more characters of token in a
// text with redactedMark, in any case: a server may echo it lower- or upper-cased. A token is
// ASCII, so a run never cuts a UTF-8 character.
func scrubber(token string) func(string) string {
	if len(token) < scrubRun {
		return func(s string) string { return strings.ReplaceAll(s, token, redactedMark) }
	}
	runs := make(map[string]struct{}, len(token))
	for i := 0; i+scrubRun <= len(token); i++ {
		runs[strings.ToLower(token[i:i+scrubRun])] = struct{}{}
	}
	return func(s string) string {
		var b strings.Builder
		var run [scrubRun]byte
		copied, maskedTo := 0, 0 // s[:copied] is written; s[:maskedTo] is written or masked
		for i := 0; i+scrubRun <= len(s); i++ {
			for j := range run {
				run[j] = lower(s[i+j])
			}
			if _, ok := runs[string(run[:])]; !ok {
				continue
			}
			if i >= maskedTo { // a new masked span starts: write what came before it
				b.WriteString(s[copied:i])
				b.WriteString(redactedMark)
			}
			maskedTo = i + scrubRun
			copied = maskedTo
		}
		if copied == 0 && maskedTo == 0 {
			return s
		}
		b.WriteString(s[copied:])
		return b.String()
	}
}

// lower is an ASCII letter in lower case, any other byte as it is.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// outside makes s, text from outside the SDK, fit for an error or a log line: scrubbed and cut.
func (c *credential) outside(s string) string {
	return cutString(c.redact(cutRunes(s, 2*maxErrorString)))
}

// shownPath is op's path as errors and logs show it, each ID escaped, scrubbed and cut.
func (c *credential) shownPath(op operation, ids []string) string {
	p, err := fillPath(op.path, ids, func(id string) string { return c.outside(url.PathEscape(id)) })
	if err != nil {
		return op.path
	}
	return p
}

// outsideErr returns err with every error of its chain whose text holds the token or is too long
// replaced: a *url.Error by a scrubbed copy, any other by a scrubbedError. Nothing errors.As can
// reach holds the token; the clean errors of the chain (io.EOF, a *net.OpError) stay reachable.
func (c *credential) outsideErr(err error) error {
	if err == nil || c.clean(err) {
		return err
	}
	if a, ok := err.(accepted); ok {
		return accepted{c.outsideErr(a.error)}
	}
	var inner []error
	for _, e := range unwrap(err) {
		inner = append(inner, c.outsideErr(e))
	}
	if u, ok := err.(*url.Error); ok && len(inner) <= 1 {
		copied := &url.Error{Op: u.Op, URL: c.outside(u.URL)}
		if len(inner) == 1 {
			copied.Err = inner[0]
		}
		if c.clean(copied) {
			return copied
		}
	}
	return &scrubbedError{msg: c.outside(err.Error()), errs: inner}
}

// outsideInvalid returns err as the caller may see it: a *ValidationError, which quotes the
// caller's values (the token may have been pasted into any field), as a copy whose fields and
// reasons are scrubbed, still a *ValidationError; any other error as outsideErr makes it.
func (c *credential) outsideInvalid(err error) error {
	ve, ok := err.(*ValidationError)
	if !ok {
		return c.outsideErr(err)
	}
	scrubbed := &ValidationError{Field: c.redact(ve.Field), Reason: c.redact(ve.Reason)}
	same := scrubbed.Field == ve.Field && scrubbed.Reason == ve.Reason
	if ve.Problems != nil {
		scrubbed.Problems = make([]FieldError, len(ve.Problems))
		for i, p := range ve.Problems {
			scrubbed.Problems[i] = FieldError{Field: c.redact(p.Field), Reason: c.redact(p.Reason)}
			same = same && scrubbed.Problems[i] == p
		}
	}
	if same {
		return err
	}
	return scrubbed
}

// clean reports whether the text of err and of its whole chain is free of the token and short.
func (c *credential) clean(err error) bool {
	s := err.Error()
	if len(s) > maxErrorString || c.redact(s) != s {
		return false
	}
	for _, e := range unwrap(err) {
		if !c.clean(e) {
			return false
		}
	}
	return true
}

// unwrap returns the errors err wraps.
func unwrap(err error) []error {
	switch u := err.(type) {
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	case interface{ Unwrap() error }:
		if e := u.Unwrap(); e != nil {
			return []error{e}
		}
	}
	return nil
}

// scrubbedError stands for an error whose text held the token or was too long.
type scrubbedError struct {
	msg  string
	errs []error
}

func (e *scrubbedError) Error() string { return e.msg }

// Unwrap returns the scrubbed errors the original wrapped, for errors.Is and errors.As.
func (e *scrubbedError) Unwrap() []error { return e.errs }

// Redactor returns a function that hides token in a text as the SDK's own errors and debug dumps
// do: the token, and every run of five or more of its characters in any case, becomes [REDACTED].
// A program that prints text from the service (a name, a status) uses it to keep the token out of
// what it prints. An empty token hides nothing.
func Redactor(token string) func(string) string {
	if token == "" {
		return func(s string) string { return s }
	}
	return scrubber(token)
}
