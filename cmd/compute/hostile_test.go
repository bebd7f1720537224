package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// hostileToken is the token the CLI sends to a hostile server, which echoes it back.
const hostileToken = "Zq8Wv3Xj7Lm2Rt9Hk4Pd"

// evil is a name that would act on a terminal printed raw: an OSC title change, a screen clear,
// CR, a one-byte CSI (U+009B), a tab and a newline (a forged column and row), DEL, a bidi override.
const evil = "web\x1b]0;pwned\x07\x1b[2J\rX\u009b31m\tfake-col\nfake-row\x7f\u202eevil"

// evilShown is evil as the CLI shows it.
const evilShown = `web\x1b]0;pwned\x07\x1b[2J\rX\u009b31m\tfake-col\nfake-row\x7f\u202eevil`

// hostileCLI points a CLI at a server of the test's own on loopback, with hostileToken.
func hostileCLI(t *testing.T, handler http.Handler) *cli {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	h := newCLI(t)
	h.env = map[string]string{compute.EnvBaseURL: srv.URL, compute.EnvToken: hostileToken}
	h.hc = srv.Client()
	return h
}

// hostileInstance is an instance of the hostile server.
func hostileInstance(id, name string, status compute.InstanceStatus) compute.Instance {
	return compute.Instance{ID: id, Name: name, Hostname: "h", Type: "vcpu-2_memory-4g", Region: region,
		Image: compute.Ref{ID: "img-1", Name: "ubuntu-24.04"}, Status: status, CreatedAt: epoch, UpdatedAt: epoch}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// listOf answers every list of instances with items, in one page.
func listOf(items ...compute.Instance) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"instances": items, "total_count": len(items), "page": 1, "per_page": 100})
	}
}

// noEscapes fails when s holds a character that acts on a terminal (a newline but at a line's end).
func noEscapes(t *testing.T, s string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		assert.False(t, strings.ContainsFunc(line, escaped), "a raw control character reaches the terminal: %q", line)
	}
}

// 1. Names, statuses, types and IDs from the service show escaped in a table, -o name and -o id:
// they forge no row and no column, and move nothing on the terminal.
func TestHostileTextIsEscaped(t *testing.T) {
	t.Parallel()
	inst := hostileInstance("ins-1"+evil, evil, compute.InstanceStatus("active"+evil))
	inst.Type = evil
	list := listOf(inst, hostileInstance("ins-2", "web-2", "active"))
	h := hostileCLI(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/compute/v1/instances" {
			list(w, r)
			return
		}
		one := inst
		one.ID = "ins-1"
		writeJSON(w, http.StatusOK, map[string]any{"instance": one})
	}))

	r := h.run("instance", "list", "-o", "name")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, evilShown+"\nweb-2\n", r.stdout)

	r = h.run("instance", "list", "-o", "id")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, "ins-1"+evilShown+"\nins-2\n", r.stdout)

	r = h.run("instance", "list")
	require.Equal(t, exitOK, r.code, r.stderr)
	noEscapes(t, r.stdout)
	rows := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	require.Len(t, rows, 3, "a header and two rows:\n%s", r.stdout)
	assert.Contains(t, rows[1], "active"+evilShown)

	r = h.run("instance", "list", "-o", "format={{.Name}}|{{.Type}}")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Equal(t, evilShown+"|"+evilShown+"\nweb-2|vcpu-2_memory-4g\n", r.stdout, "-o format= gets the fields made safe")

	r = h.run("instance", "describe", "ins-1")
	require.Equal(t, exitOK, r.code, r.stderr)
	noEscapes(t, r.stdout)
	assert.Contains(t, r.stdout, "\nName:             "+evilShown+"\n")

	r = h.run("__complete", "instance", "get", "")
	require.Equal(t, exitOK, r.code, r.stderr)
	noEscapes(t, strings.ReplaceAll(r.stdout, "\t", " ")) // a tab parts a completion from its description
	assert.Contains(t, r.stdout, evilShown+"\tins-1"+evilShown+"\n", "completion offers the name made safe")
}

// 2. An error's JSON code and message show escaped on stderr, on the error's one line.
func TestHostileErrorIsEscaped(t *testing.T) {
	t.Parallel()
	h := hostileCLI(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]string{"code": "02008\x1b[2J", "message": "gone " + evil})
	}))
	r := h.run("instance", "get", "ins-1")
	assert.Equal(t, exitNotFound, r.code)
	noEscapes(t, r.stderr)
	assert.Contains(t, r.stderr, "gone "+evilShown)
	assert.Contains(t, r.stderr, `02008\x1b[2J`)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "the error is one line: %q", r.stderr)
}

// 3. On a terminal, the progress of a wait shows an echoed status escaped and without the token.
func TestHostileProgressIsEscapedAndScrubbed(t *testing.T) {
	t.Parallel()
	var polls atomic.Int32
	h := hostileCLI(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		status := compute.InstanceStatus("creating " + r.Header.Get("Authorization") + "\x1b]0;x\x07")
		if polls.Add(1) > 1 {
			status = compute.InstanceStatusActive
		}
		writeJSON(w, http.StatusOK, map[string]any{"instance": hostileInstance("ins-1", "web-1", status)})
	}))
	h.tty = true
	r := h.run("instance", "wait", "ins-1", "-o", "id", "--poll-interval", "200ms")
	require.Equal(t, exitOK, r.code, r.stderr)
	noEscapes(t, strings.ReplaceAll(r.stderr, "\r\x1b[K", "")) // the progress's own rewrite of its line
	assert.Contains(t, r.stderr, `instance ins-1: creating Bearer [REDACTED]\x1b]0;x\x07 (`)
	assert.NotContains(t, r.stderr, hostileToken[:8])
}

// 4. A create that was answered (201, with an ID no later request can use) and whose --wait then
// fails never exits 2, which says nothing was sent: it exits 10, the ID already printed.
func TestHostileCreatedThenWaitFails(t *testing.T) {
	t.Parallel()
	h := hostileCLI(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			writeJSON(w, http.StatusCreated, map[string]any{"instance": hostileInstance("ins/7", "web-2", "creating")})
		default:
			listOf()(w, r)
		}
	}))
	r := h.run(append(createWeb2, "--wait", "-o", "id")...)
	assert.Equal(t, exitCreatedWaitFailed, r.code, r.stderr)
	assert.Equal(t, "ins/7\n", r.stdout)
	assert.Contains(t, r.stderr, "instance ins/7 was created, but the wait for active failed")

	r = h.run(append(createWeb2, "--wait", "-o", "json")...)
	assert.Equal(t, exitCreatedWaitFailed, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"id": "ins/7"`, "the created resource is printed as the create returned it")
}

// endless answers every page of the instance list with a full page, and a total that never ends.
func endless(w http.ResponseWriter, r *http.Request) {
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(page, 1)
	items := make([]compute.Instance, 100)
	for i := range items {
		n := (page-1)*100 + i
		items[i] = hostileInstance(fmt.Sprintf("ins-%d", n), fmt.Sprintf("web-%d", n), "active")
	}
	writeJSON(w, http.StatusOK, map[string]any{"instances": items, "total_count": 1 << 40, "page": page, "per_page": 100})
}

// stopAfter is a stdout that cancels the run once it has seen n lines.
type stopAfter struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelFunc
}

func (s *stopAfter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n -= strings.Count(string(p), "\n")
	if s.n <= 0 {
		s.cancel()
	}
	return len(p), nil
}

// 5. A list that never ends prints as it reads (a table after its first page, one ID or JSON
// object a line at once), and a whole-list format stops at its bound with a clear error.
func TestHostileEndlessList(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"table", "id", "name", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			h := hostileCLI(t, http.HandlerFunc(endless))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			h.stdout = &stopAfter{n: 250, cancel: cancel}
			r := h.runContext(ctx, "instance", "list", "-o", format)
			assert.Equal(t, exitInterrupted, r.code, "the list ends only when the test stops it: %s", r.stderr)
			assert.ErrorIs(t, ctx.Err(), context.Canceled, "stopped by the test, not by the bound")
			assert.GreaterOrEqual(t, strings.Count(r.stdout, "\n"), 250, "printed as it read")
		})
	}
	for _, format := range []string{"json", "yaml"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			h := hostileCLI(t, http.HandlerFunc(endless))
			h.maxWhole = 100_000
			r := h.run("instance", "list", "-o", format)
			assert.Equal(t, exitOther, r.code)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, "the list is longer than 100000 bytes of JSON, more than -o "+format+" holds at once; -o jsonl")
		})
	}
}

// 10. -o json, -o yaml and --sort hold a list whole up to a bound in bytes, not in items: a service
// whose items are large (an 8 KiB name each) stops them near the bound, however few items it took.
func TestHostileWholeListBoundInBytes(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("n", 8<<10)
	for _, args := range [][]string{{"-o", "json"}, {"-o", "yaml"}, {"--sort", "name"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			var served atomic.Int64
			h := hostileCLI(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if served.Load() > 64<<20 {
					writeJSON(w, http.StatusBadRequest, map[string]string{"code": "02001", "message": "the test's own bound"})
					return
				}
				page, _ := strconv.Atoi(r.URL.Query().Get("page"))
				page = max(page, 1)
				items := make([]compute.Instance, 100)
				for i := range items {
					items[i] = hostileInstance(fmt.Sprintf("ins-%d-%d", page, i), big, "active")
				}
				b, _ := json.Marshal(map[string]any{"instances": items, "total_count": 1 << 30, "page": page, "per_page": 100})
				served.Add(int64(len(b)))
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write(b)
			}))
			h.maxWhole = 4 << 20
			r := h.run(append([]string{"instance", "list"}, args...)...)
			assert.Equal(t, exitOther, r.code, r.stderr)
			assert.Empty(t, r.stdout)
			assert.Contains(t, r.stderr, "the list is longer than 4194304 bytes of JSON")
			assert.Less(t, served.Load(), int64(6<<20), "the command stopped reading near its bound")
		})
	}
}

// 6. -o yaml prints what -o json prints, whatever characters the strings hold; -o json is exact.
func TestHostileYAMLMatchesJSON(t *testing.T) {
	t.Parallel()
	h := hostileCLI(t, listOf(hostileInstance("ins-1", evil, "active"), hostileInstance("ins-2", "\u0085\u2028\u2066x", "active")))
	js := h.run("instance", "list", "-o", "json")
	require.Equal(t, exitOK, js.code, js.stderr)
	noEscapes(t, js.stdout)
	var fromJSON []compute.Instance
	require.NoError(t, json.Unmarshal([]byte(js.stdout), &fromJSON))
	assert.Equal(t, evil, fromJSON[0].Name, "JSON is exact")
	assert.Equal(t, "\u0085\u2028\u2066x", fromJSON[1].Name, "JSON is exact")

	ym := h.run("instance", "list", "-o", "yaml")
	require.Equal(t, exitOK, ym.code, ym.stderr)
	noEscapes(t, ym.stdout)
	var a, b any
	require.NoError(t, json.Unmarshal([]byte(js.stdout), &a))
	require.NoError(t, yaml.Unmarshal([]byte(ym.stdout), &b))
	assert.Equal(t, normalize(t, a), normalize(t, b))
}

// 7a. A GET redirected to another origin is not followed: what that host answers (a 404) is not
// taken for the service's "no such resource", and the request never reaches it.
func TestHostileCrossOriginRedirect(t *testing.T) {
	t.Parallel()
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		http.NotFound(w, r)
	}))
	t.Cleanup(other.Close)
	h := hostileCLI(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusFound)
	}))
	r := h.run("instance", "get", "ins-1")
	assert.Equal(t, exitOther, r.code, r.stderr)
	assert.Contains(t, r.stderr, "302 Found")
	assert.Contains(t, r.stderr, "redirect to another host")
	assert.Zero(t, reached.Load(), "the other origin got no request")
}

// 7b. --token-file is read up to a bound: a huge file is refused, not read whole (nor a device
// such as /dev/zero, which readBounded stops reading at the same bound).
func TestTokenFileBound(t *testing.T) {
	t.Parallel()
	h := newCLI(t)
	big := writeFile(t, "token", strings.Repeat("a", 10<<20))
	r := h.run("instance", "list", "--token-file", big)
	assert.Equal(t, exitUsage, r.code)
	assert.Contains(t, r.stderr, "is longer than 4 KiB, which no token is")
	assert.Empty(t, h.srv.Requests())
}

// 8. -o format= shows a raw JSON field (a reservation's metadata) as it shows any other text from
// the service: the token it echoes scrubbed, C1 and bidi controls escaped; and each resource's
// template prints one line, whatever the template makes of the fields.
func TestHostileTemplateRawJSON(t *testing.T) {
	t.Parallel()
	h := hostileCLI(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		// Raw in JSON strings: C1 (U+009B, a one-byte CSI) and a bidi override are valid as they are.
		fmt.Fprintf(w, `{"reservations":[{"id":"res-1","flavor_name":"f","region":"r","quota":{"capacity":1,"used":0},`+
			`"metadata":{"note":"%s `+"\u009b31m \u202eevil"+`","n":1,"spread":{"a": 1,`+"\n\t"+`"b": [2, 3]}}}]}`, r.Header.Get("Authorization"))
	}))
	for _, tmpl := range []string{`{{printf "%s" .Metadata.note}}`, `{{.Metadata}}`, `{{range $k, $v := .Metadata}}{{$k}}={{printf "%s" $v}} {{end}}`,
		`{{.ID}}{{"\n"}}forged`} {
		r := h.run("reservation", "list", "-o", "format="+tmpl)
		require.Equal(t, exitOK, r.code, r.stderr)
		noEscapes(t, r.stdout)
		assert.NotContains(t, r.stdout, hostileToken[:8], tmpl)
		assert.Equal(t, 1, strings.Count(r.stdout, "\n"), "one line a resource: %q", r.stdout)
	}
	r := h.run("reservation", "list", "-o", `format={{printf "%s" .Metadata.note}}`)
	assert.Equal(t, `"Bearer [REDACTED] \u009b31m \u202eevil"`+"\n", r.stdout, "the raw JSON made safe, still JSON")
	r = h.run("reservation", "list", "-o", `format={{printf "%s" .Metadata.spread}}`)
	assert.Equal(t, `{"a":1,"b":[2,3]}`+"\n", r.stdout, "raw JSON spread over lines printed compact, on one line")
}

// newlineID is an ID from the service holding a newline, which would forge a line on stderr.
const newlineID = "ins-1\ncompute: forged line"

// 9. An ID from the service that holds a newline forges no line on stderr in any error: a name
// several resources share (exit 11), a name a create cannot adopt (exit 4), a create whose wait
// fails (exit 10).
func TestHostileIDsInErrors(t *testing.T) {
	t.Parallel()
	oneLine := func(t *testing.T, r result) {
		t.Helper()
		noEscapes(t, r.stderr)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "the error is one line: %q", r.stderr)
		assert.Contains(t, r.stderr, `ins-1\ncompute: forged line`)
	}
	t.Run("ambiguous", func(t *testing.T) {
		t.Parallel()
		list := listOf(hostileInstance(newlineID, "web", "active"), hostileInstance("ins-2", "web", "active"))
		h := hostileCLI(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/compute/v1/instances" {
				list(w, r)
				return
			}
			writeJSON(w, http.StatusNotFound, map[string]string{"code": "02008", "message": "not found"})
		}))
		r := h.run("instance", "get", "web")
		assert.Equal(t, exitAmbiguous, r.code, r.stderr)
		oneLine(t, r)
	})
	t.Run("cannot adopt", func(t *testing.T) {
		t.Parallel()
		other := hostileInstance(newlineID, "web-2", "active")
		other.Region = "EUC-DE-MUC-1"
		h := hostileCLI(t, listOf(other))
		r := h.run(createWeb2...)
		assert.Equal(t, exitConflict, r.code, r.stderr)
		oneLine(t, r)
	})
	t.Run("created, wait failed", func(t *testing.T) {
		t.Parallel()
		h := hostileCLI(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.Method == http.MethodPost:
				writeJSON(w, http.StatusCreated, map[string]any{"instance": hostileInstance(newlineID, "web-2", "creating")})
			case r.URL.Path == "/compute/v1/instances":
				listOf()(w, r)
			default:
				writeJSON(w, http.StatusOK, map[string]any{"instance": hostileInstance(newlineID, "web-2", "error")})
			}
		}))
		r := h.run(append(createWeb2, "--wait", "-o", "json")...)
		assert.Equal(t, exitCreatedWaitFailed, r.code, r.stderr)
		oneLine(t, r)
	})
}

// 11. Every file a flag names is read up to a bound that README.md states, and /dev/zero is refused
// at that bound instead of read whole; nothing is sent.
func TestFlagFilesAreBounded(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	h := newCLI(t)
	create := []string{"instance", "create", "--name", "x", "--type", "vcpu-2_memory-4g", "--region", region, "--image", "ubuntu-24.04"}
	for _, tc := range []struct {
		args  []string
		bound string
	}{
		{append(slices.Clone(create), "--password-file", "/dev/zero"), "--password-file: /dev/zero is longer than 4 KiB"},
		{append(slices.Clone(create), "--ssh-key", "key-ci", "--startup-script-file", "/dev/zero"), "--startup-script-file: /dev/zero is longer than 64 KiB"},
		{append(slices.Clone(create), "--ssh-key", "key-ci", "--user-data", "text/plain=/dev/zero"), "--user-data: /dev/zero is longer than 64 KiB"},
		{[]string{"ssh-key", "create", "--name", "k", "--public-key-file", "/dev/zero"}, "--public-key-file: /dev/zero is longer than 16 KiB"},
	} {
		h.srv.ResetRequests()
		r := h.run(tc.args...)
		assert.Equal(t, exitUsage, r.code, "%v: %s", tc.args, r.stderr)
		assert.Contains(t, r.stderr, tc.bound)
		assert.Empty(t, h.requests(), "nothing is sent")
	}
}

// 12. A FIFO nobody writes to, given as --token-file, does not hold the command past --timeout.
func TestTokenFileWithinTimeout(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "token")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	t.Cleanup(func() {
		// A writer that comes and goes lets the reader still blocked in open(2) return.
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
	})
	h := newCLI(t)
	done := make(chan result, 1)
	go func() { done <- h.run("instance", "list", "--token-file", fifo, "--timeout", "100ms") }()
	select {
	case r := <-done:
		assert.Equal(t, exitUsage, r.code, r.stderr)
		assert.Contains(t, r.stderr, "cannot read --token-file within --timeout 100ms")
		assert.Empty(t, h.requests())
	case <-time.After(20 * time.Second):
		t.Fatal("the command still waits for the FIFO 20 s after its --timeout of 100ms")
	}
}
