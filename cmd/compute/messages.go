package main

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"

	compute "github.com/compute-sdk/compute-go"
	"github.com/spf13/cobra"
)

// unknownCommand matches cobra's error for a verb or a kind it does not know.
var unknownCommand = regexp.MustCompile(`^unknown command "([^"]*)" for "([^"]*)"`)

// didYouMean adds to err, when it is cobra's "unknown command" error, the lines that name the
// commands whose names are close to the mistyped one.
func didYouMean(root *cobra.Command, err error) error {
	m := unknownCommand.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	cmd := root
	for _, name := range strings.Fields(m[2])[1:] {
		sub, _, ferr := cmd.Find([]string{name})
		if ferr != nil || sub == cmd {
			return err
		}
		cmd = sub
	}
	if cmd.SuggestionsMinimumDistance <= 0 {
		cmd.SuggestionsMinimumDistance = 2
	}
	suggestions := cmd.SuggestionsFor(m[1])
	if len(suggestions) == 0 {
		return err
	}
	lines := []string{"", "Did you mean this?"}
	for _, s := range suggestions {
		lines = append(lines, "    "+s)
	}
	return withLines(err, lines...)
}

// linesError is an error followed by lines of its own that the command wrote (a hint, suggestions,
// further problems of a request): the error's text is one line, and each of these is another.
type linesError struct {
	err   error
	lines []string
}

func (e *linesError) Error() string { return e.err.Error() }

func (e *linesError) Unwrap() error { return e.err }

// withLines returns err followed by lines.
func withLines(err error, lines ...string) error { return &linesError{err: err, lines: lines} }

// errorLines returns what stderr shows of err: its text on one line, "compute: " once at its head,
// with what failed first and the HTTP detail after it, made safe as a whole (so that no text from
// the service, an ID or a message holding a newline say, can forge a line); then the lines of a
// *linesError, each made safe alone.
func (a *app) errorLines(err error) []string {
	out := []string{"compute: " + a.safe(errorText(err))}
	var le *linesError
	if errors.As(err, &le) {
		for _, l := range le.lines {
			out = append(out, a.safe(l))
		}
	}
	return out
}

// sdkPrefix is the "compute: " that heads each error of the SDK, however deep it is nested.
var sdkPrefix = regexp.MustCompile(`(^|: |; |\()compute: `)

// requestHead is "GET /compute/v1/instances: " as the SDK heads the error of a request.
var requestHead = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE) (/[^\s:]*): `)

// errorText words err for a person: each *compute.APIError as the service's message first and its
// code, status, request and request ID after it; the request the SDK names at the head of other
// errors moved to the end; no nested "compute: ".
func errorText(err error) string {
	text := err.Error()
	for _, ae := range apiErrors(err) {
		text = strings.Replace(text, ae.Error(), apiText(ae), 1)
	}
	text = sdkPrefix.ReplaceAllString(text, "$1")
	var requests []string
	text = requestHead.ReplaceAllStringFunc(text, func(m string) string {
		requests = append(requests, strings.TrimSuffix(m, ": "))
		return ""
	})
	if len(requests) > 0 {
		text += " (" + strings.Join(slices.Compact(requests), ", ") + ")"
	}
	return text
}

// apiText words an error of the service: "volume "x" not found (code 02021, Volume not found;
// HTTP 404 Not Found from GET /compute/v1/volumes/x; request req-1; 1 attempt)".
func apiText(ae *compute.APIError) string {
	status := fmt.Sprintf("%d %s", ae.StatusCode, http.StatusText(ae.StatusCode))
	msg := cmp.Or(ae.Message, status)
	var detail []string
	if ae.Code != "" {
		code := "code " + string(ae.Code)
		if d := ae.Code.Description(); d != "" {
			code += ", " + d
		}
		detail = append(detail, code)
	}
	detail = append(detail, fmt.Sprintf("HTTP %s from %s %s", status, ae.Method, ae.Path))
	if ae.RequestID != "" {
		detail = append(detail, "request "+ae.RequestID)
	}
	attempts := fmt.Sprintf("%d attempts", ae.Attempts)
	if ae.Attempts == 1 {
		attempts = "1 attempt"
	}
	detail = append(detail, attempts)
	return msg + " (" + strings.Join(detail, "; ") + ")"
}

// apiErrors returns every *compute.APIError in err's chain.
func apiErrors(err error) []*compute.APIError {
	var out []*compute.APIError
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if ae, ok := e.(*compute.APIError); ok {
			out = append(out, ae)
		}
		switch u := e.(type) {
		case interface{ Unwrap() []error }:
			for _, inner := range u.Unwrap() {
				walk(inner)
			}
		case interface{ Unwrap() error }:
			walk(u.Unwrap())
		}
	}
	walk(err)
	return out
}

// noTokenFlag explains the refusal of --token.
func noTokenFlag(err error) error {
	if strings.Contains(err.Error(), "unknown flag: --token") && !strings.Contains(err.Error(), "--token-") {
		return usagef("%v: there is no --token flag, as a token on the command line shows in ps and in the shell's history; use --token-file, %s, or a context (compute context create)", err, compute.EnvToken)
	}
	return &usageError{msg: err.Error()}
}

// hints adds to err what the user can do about it: --force for an instance that termination
// protection keeps; which token the service refused.
func (a *app) hints(cmd *cobra.Command, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, compute.ErrUnauthorized) {
		if a.contextUsed != "" {
			return withLines(err, fmt.Sprintf("hint: the service refused the token of the context %s: replace it with compute context create %s --force --token-file FILE", a.contextUsed, a.contextUsed))
		}
		return withLines(err, "hint: the service refused the token from "+tokenSource(a))
	}
	if errors.Is(err, compute.CodeTerminationProtected) && cmd.Flags().Lookup("force") != nil && !cmd.Flags().Changed("force") {
		return withLines(err, "hint: termination protection keeps it: pass --force to turn the protection off and delete it")
	}
	return err
}

// reasonInFlags rewrites the request fields a reason names ("give ssh_keys or password") into the
// command's flags ("give --ssh-key or --password-file").
func reasonInFlags(cmd *cobra.Command, reason string) string {
	for field, flag := range fieldFlags {
		if cmd.Flags().Lookup(flag) == nil || !strings.Contains(reason, field) {
			continue
		}
		reason = regexp.MustCompile(`\b`+regexp.QuoteMeta(field)+`\b`).ReplaceAllString(reason, "--"+flag)
	}
	return reason
}

// tokenSource names where the token of a run without a context came from.
func tokenSource(a *app) string {
	if a.tokenFile != "" {
		return "--token-file"
	}
	return compute.EnvToken
}

// urlSource names where the URL of a run without a context came from.
func urlSource(a *app) string {
	if a.apiURL != "" {
		return "--api-url"
	}
	return compute.EnvBaseURL
}
