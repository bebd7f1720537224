package compute

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// WithDebugDump writes each attempt's request and response, headers and body, to w. The credential
// headers are left out, the token is scrubbed, and each body and header value is cut at 4 KiB.
//
// The values of secret fields are hidden too, in the request's body and in the response's, at any
// depth, the JSON staying valid:
//   - password (an instance create's), and any field whose name holds "password", "passphrase",
//     "secret", "token", "private_key" or "credential", in any case: [REDACTED];
//   - startup_script, and the content of each user_data item (scripts and cloud-config files often
//     carry credentials): [REDACTED: N bytes]; an item's type and filename stay;
//   - url (a snapshot import's): its user and password, and each query parameter's value (a signed
//     URL's signature), become [REDACTED]; its scheme, host, path and the parameters' names stay.
//
// A value hidden from the request is hidden wherever the response repeats it as well: in its body's
// text (an error message that quotes it), its headers, its status line. For debugging only: the
// rest of a body is shown as it is.
func WithDebugDump(w io.Writer) Option {
	return func(c *config) error {
		if w == nil {
			return errors.New("compute: WithDebugDump: nil writer")
		}
		c.dump = w
		return nil
	}
}

// dumper writes the exchanges of a client with WithDebugDump, one at a time.
type dumper struct {
	mu sync.Mutex
	w  io.Writer
}

func newDumper(w io.Writer) *dumper {
	if w == nil {
		return nil
	}
	return &dumper{w: w}
}

// maxDumpedRequest bounds what a dump reads of a request's body: far more than any the SDK sends.
const maxDumpedRequest = 1 << 20

// exchange writes req, as sent, and resp with its body; a nil dumper writes nothing.
func (d *dumper) exchange(req *http.Request, resp *http.Response, body []byte, cred *credential) {
	if d == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "> %s %s\n", req.Method, cred.outside(req.URL.String()))
	dumpHeaders(&b, "> ", req.Header, cred, nil)
	var secrets []string
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			sent, _ := io.ReadAll(io.LimitReader(rc, maxDumpedRequest))
			_ = rc.Close()
			var shown string
			shown, secrets = scrubBody(sent)
			fmt.Fprintf(&b, ">\n%s\n", cred.outside(shown))
		}
	}
	fmt.Fprintf(&b, "< %s\n", cred.outside(hideEach(resp.Status, secrets)))
	dumpHeaders(&b, "< ", resp.Header, cred, secrets)
	shown, _ := scrubBody(body)
	fmt.Fprintf(&b, "<\n%s\n\n", cred.outside(hideEach(shown, secrets)))
	d.mu.Lock()
	defer d.mu.Unlock()
	_, _ = io.WriteString(d.w, b.String())
}

// maxDumpHeaders bounds the header lines a dump shows of one message.
const maxDumpHeaders = 64

// dumpHeaders writes h's headers but the credential's, sorted, each name and value scrubbed (of
// the token and of secrets) and cut, the first maxDumpHeaders of them.
func dumpHeaders(b *strings.Builder, prefix string, h http.Header, cred *credential, secrets []string) {
	shown, left := 0, 0
	for _, name := range slices.Sorted(maps.Keys(h)) {
		if name == "Authorization" || name == "X-Auth-Token" {
			continue
		}
		for _, v := range h[name] {
			if shown == maxDumpHeaders {
				left++
				continue
			}
			shown++
			fmt.Fprintf(b, "%s%s: %s\n", prefix, cred.outside(hideEach(name, secrets)), cred.outside(hideEach(v, secrets)))
		}
	}
	if left > 0 {
		fmt.Fprintf(b, "%s(%d more header lines)\n", prefix, left)
	}
}

// minHiddenEcho is the shortest secret whose repetitions elsewhere are hidden: a shorter one would
// hide common words, and tells little.
const minHiddenEcho = 6

// hideEach replaces in s every secret of at least minHiddenEcho bytes, as it is and as JSON
// escapes it, with redactedMark.
func hideEach(s string, secrets []string) string {
	for _, secret := range secrets {
		if len(secret) < minHiddenEcho {
			continue
		}
		s = strings.ReplaceAll(s, secret, redactedMark)
		if quoted := jsonText(secret); quoted != secret {
			s = strings.ReplaceAll(s, quoted, redactedMark)
		}
	}
	return s
}
