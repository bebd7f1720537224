package compute

import (
	"net/url"
	"strings"
)

// credential holds the token in closures: no field of any value holds it, so neither %v nor a
// reflective dumper (go-spew, a debugger's pretty-printer) can print it.
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

// scrubRun is the longest run of the token's characters that scrubbing leaves in a text. A server
// can echo the token split over lines, with tabs or spaces inside it, or cut at an excerpt's end;
// removing every run of this length catches each piece but the shortest, which says nothing.
const scrubRun = 5

// redactedMark replaces what scrubbing removes.
const redactedMark = "[REDACTED]"

// scrubber returns a function that replaces, in a text, every run of scrubRun or more characters
// that also occurs in token (the whole token included) with redactedMark. A token is ASCII
// (NewClient refuses any other byte), so a matched run never cuts a UTF-8 character.
func scrubber(token string) func(string) string {
	if len(token) < scrubRun {
		return func(s string) string { return strings.ReplaceAll(s, token, redactedMark) }
	}
	runs := make(map[string]struct{}, len(token))
	for i := 0; i+scrubRun <= len(token); i++ {
		runs[token[i:i+scrubRun]] = struct{}{}
	}
	return func(s string) string {
		var b strings.Builder
		copied, maskedTo := 0, 0 // s[:copied] is written; s[:maskedTo] is written or masked
		for i := 0; i+scrubRun <= len(s); i++ {
			if _, ok := runs[s[i:i+scrubRun]]; !ok {
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

// outside returns s, text from outside the SDK (the server, the network, a caller's ID), fit for an
// error or a log line: the token scrubbed, and cut to maxErrorString bytes.
func (c *credential) outside(s string) string {
	return cutString(c.redact(cutRunes(s, 2*maxErrorString)))
}

// shownPath is op's path with ids as errors and logs show it: the path's words are the SDK's and
// stay as they are; each ID is the caller's, escaped, then scrubbed and cut like text from outside.
func (c *credential) shownPath(op operation, ids []string) string {
	p, err := fillPath(op.path, ids, func(id string) string { return c.outside(url.PathEscape(id)) })
	if err != nil {
		return op.path
	}
	return p
}

// outsideErr returns err, an error built from what the server or the network sent (a transport
// error, a decoding error), with every error of its chain whose text holds the token or is longer
// than maxErrorString replaced: a *url.Error by a copy whose URL is scrubbed, any other by an error
// of the scrubbed, cut text that unwraps to the rest of the chain, replaced the same way. So neither
// the text of err nor anything errors.As can reach in it holds the token; the errors of the chain
// that are clean (context.DeadlineExceeded, io.EOF, a *net.OpError) stay reachable.
func (c *credential) outsideErr(err error) error {
	if err == nil || c.clean(err) {
		return err
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

// clean reports whether the text of err and of every error in its chain is free of the token and
// short.
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

// scrubbedError stands for an error whose text held the token or was too long: its text scrubbed
// and cut, and the errors it wrapped, scrubbed the same way.
type scrubbedError struct {
	msg  string
	errs []error
}

func (e *scrubbedError) Error() string { return e.msg }

// Unwrap returns the scrubbed errors the original wrapped, for errors.Is and errors.As.
func (e *scrubbedError) Unwrap() []error { return e.errs }
