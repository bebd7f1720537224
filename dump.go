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
// headers are left out, the token is scrubbed, and each body and header value is cut at 4 KiB. For
// debugging only: bodies can hold what a log should not.
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

// exchange writes req, as sent, and resp with its body; a nil dumper writes nothing.
func (d *dumper) exchange(req *http.Request, resp *http.Response, body []byte, cred *credential) {
	if d == nil {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "> %s %s\n", req.Method, cred.outside(req.URL.String()))
	dumpHeaders(&b, "> ", req.Header, cred)
	if req.GetBody != nil {
		if rc, err := req.GetBody(); err == nil {
			sent, _ := io.ReadAll(io.LimitReader(rc, maxErrorString+1))
			_ = rc.Close()
			fmt.Fprintf(&b, ">\n%s\n", cred.outside(string(sent)))
		}
	}
	fmt.Fprintf(&b, "< %s\n", cred.outside(resp.Status))
	dumpHeaders(&b, "< ", resp.Header, cred)
	fmt.Fprintf(&b, "<\n%s\n\n", cred.outside(string(body)))
	d.mu.Lock()
	defer d.mu.Unlock()
	_, _ = io.WriteString(d.w, b.String())
}

// maxDumpHeaders bounds the header lines a dump shows of one message.
const maxDumpHeaders = 64

// dumpHeaders writes h's headers but the credential's, sorted, each name and value scrubbed and
// cut, the first maxDumpHeaders of them.
func dumpHeaders(b *strings.Builder, prefix string, h http.Header, cred *credential) {
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
			fmt.Fprintf(b, "%s%s: %s\n", prefix, cred.outside(name), cred.outside(v))
		}
	}
	if left > 0 {
		fmt.Fprintf(b, "%s(%d more header lines)\n", prefix, left)
	}
}
