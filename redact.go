package compute

import "strings"

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

// redactedError returns err with the token scrubbed from its text, keeping its chain for errors.Is
// and errors.As. Transport errors can quote a URL or a header line the server sent back.
func redactedError(err error, cred *credential) error {
	msg := err.Error()
	if clean := cred.redact(msg); clean != msg {
		return &scrubbedError{msg: clean, err: err}
	}
	return err
}

// scrubbedError is an error whose text had the token removed; Unwrap keeps the original chain.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }

// Unwrap returns the errors that the original error wrapped, so that errors.Is and errors.As still
// see them.
func (e *scrubbedError) Unwrap() []error {
	switch u := e.err.(type) {
	case interface{ Unwrap() []error }:
		return u.Unwrap()
	case interface{ Unwrap() error }:
		return []error{u.Unwrap()}
	}
	return nil
}
