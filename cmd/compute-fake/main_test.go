package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/compute-sdk/compute-go/internal/fake"
	"github.com/stretchr/testify/require"
)

// apiCall is one request of the curl walk-through in the README's compute-fake section: TestCurlFlowAgainstTheBinary sends these to the built binary, and
// TestDocumentedCurlCommands checks that the document shows exactly these requests.
type apiCall struct {
	method string
	path   string
	body   string // sent with Content-Type: application/json when not empty
	auth   bool   // sent with Authorization: Bearer Zq8Wv3Xj7Lm2Rt9Hk4Pd
	// control is sent with X-Fake-Control-Token: fake-control, to the control endpoint.
	control bool
}

// The walk-through, on a fresh server: IDs are sequential, so the first group, floating IP and
// instance are sg-000001, fip-000001 and ins-000001, which later steps name.
var (
	listImages  = apiCall{"GET", "/compute/v1/images", "", true, false}
	createGroup = apiCall{"POST", "/compute/v1/security-groups",
		`{"name":"ssh","region":"NORD-NO-KRS-1","rules":[{"protocol":"tcp","direction":"ingress","port_range_min":22,"port_range_max":22}]}`, true, false}
	createFloatingIP = apiCall{"POST", "/compute/v1/floating-ips", `{"name":"web-ip","region":"NORD-NO-KRS-1"}`, true, false}
	createInstance   = apiCall{"POST", "/compute/v1/instances",
		`{"name":"web-1","hostname":"web-1","type":"vcpu-2_memory-4g","region":"NORD-NO-KRS-1","image":"ubuntu-24.04","ssh_keys":["key-ci"],"security_groups":["sg-000001"],"floating_ip":"fip-000001"}`, true, false}
	getInstance    = apiCall{"GET", "/compute/v1/instances/ins-000001", "", true, false}
	stopInstance   = apiCall{"POST", "/compute/v1/instances/ins-000001/actions", `{"action":"stop"}`, true, false}
	deleteInstance = apiCall{"DELETE", "/compute/v1/instances/ins-000001", "", true, false}
	withoutToken   = apiCall{"GET", "/compute/v1/images", "", false, false}

	// The control endpoint, with compute-fake started with -control-token fake-control.
	injectStorm = apiCall{"POST", "/_fake/faults", `{"match":{"method":"GET"},"times":2,"fault":{"status":429,"retry_after":"1"}}`, false, true}
	listRules   = apiCall{"GET", "/_fake/faults", "", false, true}
	ruleNever   = apiCall{"POST", "/_fake/faults", `{"match":{"method":"get","path":"http://127.0.0.1:8080/compute/v1/images"},"fault":{"status":503}}`, false, true}
	readLog     = apiCall{"GET", "/_fake/requests", "", false, true}
	resetState  = apiCall{"POST", "/_fake/reset", "", false, true}
	setQuota    = apiCall{"PUT", "/_fake/quotas", `{"floating_ips":1}`, false, true}
	createDB    = apiCall{"POST", "/compute/v1/instances",
		`{"name":"db-1","hostname":"db-1","type":"vcpu-2_memory-4g","region":"NORD-NO-KRS-1","image":"debian-12","ssh_keys":["key-ci"]}`, true, false}
	forceError = apiCall{"PUT", "/_fake/instances/ins-000001/status", `{"status":"error"}`, false, true}
	advance    = apiCall{"POST", "/_fake/advance", `{"duration":"30s"}`, false, true}

	walkThrough = []apiCall{listImages, createGroup, createFloatingIP, createInstance, getInstance,
		stopInstance, deleteInstance, withoutToken, injectStorm, listRules, listImages, listImages, listImages,
		ruleNever, readLog, resetState, setQuota, createFloatingIP, createFloatingIP, createDB, forceError,
		getInstance, advance, getInstance}
)

// docBaseURL is the base URL the document's curl commands use: the default -addr.
const docBaseURL = "http://127.0.0.1:8080"

// TestCurlFlowAgainstTheBinary builds compute-fake, starts it on a free port and runs the documented
// curl walk-through against it with plain net/http, then stops it with SIGINT.
func TestCurlFlowAgainstTheBinary(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("stops the binary with SIGINT, which Windows cannot send")
	}
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go") // go test puts its own GOROOT/bin first on PATH
	if err != nil {
		t.Skipf("no go command to build the binary with: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	bin := filepath.Join(t.TempDir(), "compute-fake")
	build := exec.CommandContext(ctx, goTool, "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	// The child writes straight into our pipe (no copying goroutine in os/exec), so that waiting for
	// it and reading its output do not depend on each other.
	pr, pw, err := os.Pipe()
	require.NoError(t, err)
	defer pr.Close()
	stderr := &lockedBuffer{}
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-speed", "0", "-rate", "0", "-control-token", "fake-control")
	cmd.Stdout, cmd.Stderr = pw, stderr
	require.NoError(t, cmd.Start())
	pw.Close()
	var waitErr error // set before exited is closed
	exited := make(chan struct{})
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default: // the test failed before stopping it
			_ = cmd.Process.Kill()
			<-exited
		}
	})

	// Readiness: the first line of the banner names the URL.
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "compute-fake listening on "); ok {
				urlc <- u
			}
		}
		close(urlc)
	}()
	var base string
	select {
	case u, ok := <-urlc:
		if !ok {
			t.Fatalf("compute-fake printed no URL; stderr:\n%s", stderr)
		}
		base = u
	case <-ctx.Done():
		t.Fatalf("compute-fake did not start; stderr:\n%s", stderr)
	}
	require.True(t, strings.HasPrefix(base, "http://127.0.0.1:"), base)

	hc := &http.Client{Timeout: 5 * time.Second}
	defer hc.CloseIdleConnections()
	call := func(c apiCall) response { return send(ctx, t, hc, base, computetest.DefaultToken, c) }

	// curl .../images
	a := call(listImages)
	require.Equal(t, http.StatusOK, a.status, a.raw)
	images := decodeAs[struct {
		Images []struct {
			Slug string `json:"slug"`
		} `json:"images"`
		TotalCount int `json:"total_count"`
	}](t, a)
	require.Equal(t, len(computetest.DefaultCatalog().Images), images.TotalCount)
	require.Contains(t, fmt.Sprint(images.Images), "ubuntu-24.04")

	// curl -X POST .../security-groups
	a = call(createGroup)
	require.Equal(t, http.StatusCreated, a.status, a.raw)
	group := decodeAs[struct {
		SecurityGroup struct{ ID, Status string } `json:"security_group"`
	}](t, a).SecurityGroup
	require.Equal(t, "sg-000001", group.ID, "the document names the group sg-000001")

	// curl -X POST .../floating-ips
	a = call(createFloatingIP)
	require.Equal(t, http.StatusCreated, a.status, a.raw)
	fip := decodeAs[struct {
		FloatingIP struct {
			ID        string  `json:"id"`
			Status    string  `json:"status"`
			IPAddress *string `json:"ip_address"`
		} `json:"floating_ip"`
	}](t, a).FloatingIP
	require.Equal(t, "fip-000001", fip.ID, "the document names the floating IP fip-000001")
	require.Equal(t, "creating", fip.Status)
	require.Nil(t, fip.IPAddress, "a new floating IP has no address yet")

	// curl -X POST .../instances
	type instanceResponse struct {
		Instance struct {
			ID             string                `json:"id"`
			Status         string                `json:"status"`
			FloatingIP     *struct{ ID string }  `json:"floating_ip"`
			SecurityGroups []struct{ ID string } `json:"security_groups"`
			SSHKeys        []struct{ ID string } `json:"ssh_keys"`
		} `json:"instance"`
	}
	a = call(createInstance)
	require.Equal(t, http.StatusCreated, a.status, a.raw)
	in := decodeAs[instanceResponse](t, a).Instance
	require.Equal(t, "ins-000001", in.ID, "the document names the instance ins-000001")
	require.Equal(t, "creating", in.Status)

	// curl .../instances/ins-000001, until the status is what we wait for. With -speed 0 the first
	// read shows it; the ticker only matters if that ever changes.
	waitFor := func(status string) instanceResponse {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			a := call(getInstance)
			require.Equal(t, http.StatusOK, a.status, a.raw)
			got := decodeAs[instanceResponse](t, a)
			if got.Instance.Status == status {
				return got
			}
			select {
			case <-ctx.Done():
				t.Fatalf("instance still %s, want %s", got.Instance.Status, status)
			case <-tick.C:
			}
		}
	}
	active := waitFor("active").Instance
	require.NotNil(t, active.FloatingIP)
	require.Equal(t, "fip-000001", active.FloatingIP.ID)
	require.Len(t, active.SecurityGroups, 1)
	require.Equal(t, "sg-000001", active.SecurityGroups[0].ID)
	require.Len(t, active.SSHKeys, 1)
	require.Equal(t, "key-ci", active.SSHKeys[0].ID)

	// curl -X POST .../instances/ins-000001/actions -d '{"action":"stop"}'
	a = call(stopInstance)
	require.Equal(t, http.StatusNoContent, a.status, a.raw)
	waitFor("stopped")

	// curl -X DELETE .../instances/ins-000001
	a = call(deleteInstance)
	require.Equal(t, http.StatusNoContent, a.status, a.raw)
	a = call(getInstance)
	require.Equal(t, http.StatusNotFound, a.status, a.raw)
	require.Equal(t, "02008", decodeAs[apiError](t, a).Code)

	// curl -i .../images, without a token
	a = call(withoutToken)
	require.Equal(t, http.StatusUnauthorized, a.status, a.raw)
	require.Equal(t, "02014", decodeAs[apiError](t, a).Code)

	// The control endpoint: a 429 storm on the next two GETs; the rule is listed with its id and
	// the hits it has left, until it is spent.
	a = call(injectStorm)
	require.Equal(t, http.StatusCreated, a.status, a.raw)
	a = call(listRules)
	require.Equal(t, http.StatusOK, a.status, a.raw)
	require.JSONEq(t, `{"faults":[{"id":"rule-1","match":{"method":"GET"},"times":2,"fault":{"status":429,"retry_after":"1"}}]}`, a.raw)
	for range 2 {
		a = call(listImages)
		require.Equal(t, http.StatusTooManyRequests, a.status, a.raw)
		require.Equal(t, "02009", decodeAs[apiError](t, a).Code)
		require.Equal(t, "1", a.header.Get("Retry-After"))
	}
	a = call(listImages)
	require.Equal(t, http.StatusOK, a.status, "the storm is over: %s", a.raw)
	a = call(listRules)
	require.JSONEq(t, `{"faults":[]}`, a.raw, "a spent rule is gone")

	// A rule that could never hit a request (a lower-case method, a URL for a path) is refused,
	// with the problem named, and not added.
	a = call(ruleNever)
	require.Equal(t, http.StatusBadRequest, a.status, a.raw)
	require.Equal(t, "02004", decodeAs[apiError](t, a).Code)
	require.Contains(t, decodeAs[apiError](t, a).Message, `match.method`)
	a = call(listRules)
	require.JSONEq(t, `{"faults":[]}`, a.raw)

	// The request log, then a reset: the instance's ID is free again.
	a = call(readLog)
	require.Equal(t, http.StatusOK, a.status, a.raw)
	require.Contains(t, a.raw, `"path":"/compute/v1/instances/ins-000001/actions"`)
	require.NotContains(t, a.raw, computetest.DefaultToken, "the log never shows the token")
	a = call(resetState)
	require.Equal(t, http.StatusNoContent, a.status, a.raw)

	// A quota of one floating IP: the first create is accepted, the second refused with 02049.
	a = call(setQuota)
	require.Equal(t, http.StatusOK, a.status, a.raw)
	require.Contains(t, a.raw, `"floating_ips":1`)
	a = call(createFloatingIP)
	require.Equal(t, http.StatusCreated, a.status, a.raw)
	require.Contains(t, a.raw, `"id":"fip-000001"`, "IDs start again after a reset")
	a = call(createFloatingIP)
	require.Equal(t, http.StatusBadRequest, a.status, a.raw)
	require.Equal(t, "02049", decodeAs[apiError](t, a).Code)

	// A status the API cannot reach, forced: the instance reads as in error.
	a = call(createDB)
	require.Equal(t, http.StatusCreated, a.status, a.raw)
	a = call(forceError)
	require.Equal(t, http.StatusNoContent, a.status, a.raw)
	a = call(getInstance)
	require.Equal(t, "error", decodeAs[instanceResponse](t, a).Instance.Status)
	a = call(advance)
	require.Equal(t, http.StatusNoContent, a.status, a.raw)
	a = call(getInstance)
	require.Equal(t, "error", decodeAs[instanceResponse](t, a).Instance.Status, "a forced status stays")

	// Ctrl-C.
	hc.CloseIdleConnections()
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	stopping, cancelStopping := context.WithTimeout(ctx, 5*time.Second)
	defer cancelStopping()
	select {
	case <-exited:
		require.NoError(t, waitErr, "compute-fake must exit 0 on SIGINT; stderr:\n%s", stderr)
		require.Equal(t, 0, cmd.ProcessState.ExitCode())
		require.Contains(t, stderr.String(), "shutting down")
	case <-stopping.Done():
		t.Fatalf("compute-fake did not exit within 5s of SIGINT; stderr:\n%s", stderr)
	}
}

// TestDocumentedCurlCommands checks that the README's compute-fake section shows exactly the requests
// TestCurlFlowAgainstTheBinary sends.
func TestDocumentedCurlCommands(t *testing.T) {
	doc := computeFakeSection(t)
	// The same requests in the same order: none missing, none extra.
	require.Equal(t, walkThrough, curlCommands(doc), "the README's curl commands and the test's walk-through")
	require.Contains(t, doc, "TestCurlFlowAgainstTheBinary", "the document says which test runs its commands")
}

// computeFakeSection returns the compute-fake guide (docs/compute-fake.md, once the README's section).
func computeFakeSection(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../docs/compute-fake.md")
	require.NoError(t, err)
	require.Contains(t, string(b), "compute-fake: the fake as a server", "the README's compute-fake section")
	return string(b)
}

// curlCommands reads the curl commands of a document (continued lines joined) as API calls.
func curlCommands(doc string) []apiCall {
	doc = strings.ReplaceAll(doc, "\\\n", " ")
	var out []apiCall
	for line := range strings.Lines(doc) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "curl ") {
			continue
		}
		c := apiCall{method: "GET", auth: strings.Contains(line, `-H "Authorization: Bearer Zq8Wv3Xj7Lm2Rt9Hk4Pd"`),
			control: strings.Contains(line, `-H "X-Fake-Control-Token: fake-control"`)}
		if _, rest, ok := strings.Cut(line, " -d '"); ok {
			c.body, _, _ = strings.Cut(rest, "'")
		}
		fields := strings.Fields(line)
		for i, f := range fields {
			switch {
			case f == "-X" && i+1 < len(fields):
				c.method = fields[i+1]
			case strings.HasPrefix(f, docBaseURL+"/"):
				c.path = strings.TrimPrefix(f, docBaseURL)
			}
		}
		out = append(out, c)
	}
	return out
}

func TestPrintCatalog(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-print-catalog"}, noEnv, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	require.Empty(t, stderr.String())
	require.True(t, json.Valid(stdout.Bytes()), stdout.String())
	want, err := json.Marshal(computetest.DefaultCatalog())
	require.NoError(t, err)
	require.JSONEq(t, string(want), stdout.String())
	require.True(t, strings.HasPrefix(stdout.String(), "{\n  \""), "indented")
}

func TestInvalidFlagsExit2(t *testing.T) {
	for _, args := range [][]string{
		{"-no-such-flag"},
		{"-rate", "fast"},
		{"-rate", "-1"},
		{"-rate", "NaN"},
		{"-rate", "+Inf"},
		{"-burst", "0"},
		{"-burst", "-1"},
		{"-burst", "1.5"},
		{"-burst", "many"},
		{"-allow-hosts", "a.example,,b.example"},
		{"-allow-hosts", "fake.internal:8080"},
		{"-allow-hosts", "http://fake.internal"},
		{"-speed", "2"}, // a duration needs a unit
		{"-speed", "-1s"},
		{"-token", ""},
		{"-read-only-token", computetest.DefaultToken},
		// A control token that opens the API too; the default API token is public.
		{"-control-token", computetest.DefaultToken},
		{"-token", "MySecretTok", "-control-token", "MySecretTok"},
		{"-read-only-token", "MySecretTok", "-control-token", "MySecretTok"},
		{"extra-argument"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			// A context already ended: flags wrongly accepted make run serve and stop at once (exit
			// 0), rather than serve until the test times out.
			ended, cancel := context.WithCancel(context.Background())
			cancel()
			var stdout, stderr bytes.Buffer
			code := run(ended, args, noEnv, &stdout, &stderr)
			require.Equal(t, 2, code)
			require.NotEmpty(t, stderr.String())
			require.Empty(t, stdout.String(), "nothing is served")
			require.NotContains(t, stderr.String(), "MySecretTok")
			usage := strings.Contains(stderr.String(), "Usage: compute-fake") || strings.Contains(stderr.String(), "Run compute-fake -h for usage.\n")
			require.True(t, usage, "the usage, or the line pointing to it: %s", stderr.String())
		})
	}
	// A stray argument ends the flags: what follows is not echoed, as a token may be among it.
	var stray bytes.Buffer
	require.Equal(t, 2, run(context.Background(), []string{"-print-catalog", "false", "-token", "MySecretTok"}, noEnv, io.Discard, &stray))
	require.NotContains(t, stray.String(), "MySecretTok")
	require.Contains(t, stray.String(), "takes no arguments")
	var stderr bytes.Buffer
	run(context.Background(), []string{"-no-such-flag"}, noEnv, io.Discard, &stderr)
	require.Contains(t, stderr.String(), "flag provided but not defined: -no-such-flag")
	require.Contains(t, stderr.String(), "Usage: compute-fake")
}

func TestHelpExits0(t *testing.T) {
	var stderr bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"-h"}, noEnv, io.Discard, &stderr))
	for _, f := range []string{"-addr", "-token", "-read-only-token", "-rate", "-burst", "-speed", "-allow-hosts", "-control-token", "-print-catalog"} {
		require.Contains(t, stderr.String(), f)
	}
}

func TestBannerAndCleanStop(t *testing.T) {
	p := startInProcess(t)
	require.True(t, strings.HasPrefix(p.banner, "compute-fake listening on "+p.url+"\n"), p.banner)
	require.Contains(t, p.banner, "\ntoken: Zq8Wv3Xj7Lm2Rt9Hk4Pd\n")
	require.Contains(t, p.banner, "\nexport COMPUTE_API_URL="+p.url+" COMPUTE_API_TOKEN=Zq8Wv3Xj7Lm2Rt9Hk4Pd\n")
	cat := computetest.DefaultCatalog()
	for _, r := range cat.Regions {
		require.Contains(t, p.banner, r.ID)
	}
	for _, it := range cat.InstanceTypes {
		require.Contains(t, p.banner, it.ID)
	}
	for _, im := range cat.Images {
		require.Contains(t, p.banner, im.Slug)
	}
	for _, k := range cat.SSHKeys {
		require.Contains(t, p.banner, k.ID)
	}
	for _, v := range cat.Volumes {
		require.Contains(t, p.banner, v.ID)
	}
	require.NotEmpty(t, cat.Reservations)
	for _, r := range cat.Reservations {
		require.Contains(t, p.banner, r.ID)
	}

	// The URL serves the API.
	a := send(context.Background(), t, http.DefaultClient, p.url, computetest.DefaultToken, listImages)
	require.Equal(t, http.StatusOK, a.status, a.raw)

	require.Equal(t, 0, p.stop(), "a cancelled context (SIGINT, SIGTERM) is a clean stop")
	require.Contains(t, p.stderr.String(), "shutting down")
	_, err := http.Get(p.url + listImages.path)
	require.Error(t, err, "the listener is closed")
}

func TestPrintBanner(t *testing.T) {
	var b bytes.Buffer
	s := settings{token: "it's secret", readOnly: "viewer", rate: 0, speed: 0}
	require.NoError(t, printBanner(&b, "http://127.0.0.1:9999", s, computetest.DefaultCatalog()))
	out := b.String()
	require.Contains(t, out, "compute-fake listening on http://127.0.0.1:9999\n")
	require.NotContains(t, out, "secret", "a token of the user's choosing is not shown")
	require.NotContains(t, out, "viewer")
	require.Contains(t, out, "read-only token: (the one given, not shown)\n")
	require.Contains(t, out, "rate limit: off\n")
	require.Contains(t, out, "lifecycle transitions: instant\n")
	require.Contains(t, out, "export COMPUTE_API_URL=http://127.0.0.1:9999 COMPUTE_API_TOKEN=<your token>\n")

	b.Reset()
	s = settings{token: computetest.DefaultToken, rate: 10, burst: 1, speed: 2 * time.Second}
	require.NoError(t, printBanner(&b, "http://127.0.0.1:8080", s, computetest.DefaultCatalog()))
	require.Contains(t, b.String(), "rate limit: 10 requests per second per token, burst 1\n")
	require.Contains(t, b.String(), "lifecycle transitions: 2s each\n")
	require.NotContains(t, b.String(), "read-only token")
}

func TestDisplayURL(t *testing.T) {
	all := &net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}
	require.Equal(t, "http://127.0.0.1:8080", displayURL(all))
	lo := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	require.Equal(t, "http://127.0.0.1:8080", displayURL(lo))
}

func TestFlagsReachTheServer(t *testing.T) {
	p := startInProcess(t, "-token", "tok-1", "-read-only-token", "viewer", "-speed", "1h", "-rate", "0",
		"-control-token", "fake-control")
	ctx := context.Background()
	hc := http.DefaultClient

	a := send(ctx, t, hc, p.url, "tok-1", listImages)
	require.Equal(t, http.StatusOK, a.status, a.raw)
	a = send(ctx, t, hc, p.url, computetest.DefaultToken, listImages)
	require.Equal(t, http.StatusUnauthorized, a.status, "-token replaces the default token")

	a = send(ctx, t, hc, p.url, "viewer", listImages)
	require.Equal(t, http.StatusOK, a.status, "the read-only token reads")
	a = send(ctx, t, hc, p.url, "viewer", createFloatingIP)
	require.Equal(t, http.StatusForbidden, a.status, a.raw)
	require.Equal(t, "02043", decodeAs[apiError](t, a).Code)

	for _, c := range []apiCall{createGroup, createFloatingIP, createInstance, getInstance} {
		a = send(ctx, t, hc, p.url, "tok-1", c)
		require.Less(t, a.status, 300, a.raw)
	}
	in := decodeAs[struct {
		Instance struct{ Status string } `json:"instance"`
	}](t, a).Instance
	require.Equal(t, "creating", in.Status, "-speed 1h holds the transition")

	// Distinguishable from the default speed (2s): ten minutes later it is still creating, and it
	// is active once the hour has passed.
	advance := func(d string) {
		t.Helper()
		a := send(ctx, t, hc, p.url, "", apiCall{method: "POST", path: "/_fake/advance", body: `{"duration":"` + d + `"}`, control: true})
		require.Equal(t, http.StatusNoContent, a.status, a.raw)
	}
	status := func() string {
		t.Helper()
		a := send(ctx, t, hc, p.url, "tok-1", getInstance)
		require.Equal(t, http.StatusOK, a.status, a.raw)
		return decodeAs[struct {
			Instance struct{ Status string } `json:"instance"`
		}](t, a).Instance.Status
	}
	advance("10m")
	require.Equal(t, "creating", status(), "-speed 1h: still creating after 10 minutes")
	advance("50m")
	require.Equal(t, "active", status(), "-speed 1h: active after the hour")
}

// A rate of 0.1 has a burst of one request and a refill of 10 s, so the second immediate request is
// refused however slowly the machine runs.
func TestRateLimit(t *testing.T) {
	p := startInProcess(t, "-rate", "0.1")
	ctx := context.Background()
	for i, want := range []int{http.StatusOK, http.StatusTooManyRequests} {
		a := send(ctx, t, http.DefaultClient, p.url, computetest.DefaultToken, listImages)
		require.Equal(t, want, a.status, "request %d: %s", i+1, a.raw)
		if want == http.StatusTooManyRequests {
			secs, err := strconv.Atoi(a.header.Get("Retry-After"))
			require.NoError(t, err, "Retry-After %q", a.header.Get("Retry-After"))
			require.GreaterOrEqual(t, secs, 1)
		}
	}
}

// -burst lets that many immediate requests through before -rate paces them; at a rate of 0.1 the
// refill takes 10 s, so the request after the burst is refused however slowly the machine runs.
func TestBurst(t *testing.T) {
	p := startWithEnv(t, env(map[string]string{envBurst: "2"}), "-rate", "0.1", "-burst", "3")
	require.Contains(t, p.banner, "\nrate limit: 0.1 requests per second per token, burst 3\n")
	ctx := context.Background()
	for i, want := range []int{http.StatusOK, http.StatusOK, http.StatusOK, http.StatusTooManyRequests} {
		a := send(ctx, t, http.DefaultClient, p.url, computetest.DefaultToken, listImages)
		require.Equal(t, want, a.status, "request %d: %s", i+1, a.raw)
	}

	// COMPUTE_FAKE_BURST sets it when the flag is not given.
	p = startWithEnv(t, env(map[string]string{envBurst: "2"}), "-rate", "0.1")
	for i, want := range []int{http.StatusOK, http.StatusOK, http.StatusTooManyRequests} {
		a := send(ctx, t, http.DefaultClient, p.url, computetest.DefaultToken, listImages)
		require.Equal(t, want, a.status, "request %d: %s", i+1, a.raw)
	}
}

// By default the fake plays the service as clients meet it: a burst of one second's worth of the
// rate (10 requests at once at 10 per second; the 11th is refused, and served once its token is
// back, 100 ms later). -burst 1 is the strict service, for pacing tests: a request 50 ms after the
// one before is refused, one 100 ms after it served.
func TestDefaultBurstIsOneSecondsWorth(t *testing.T) {
	serve := func(s settings) (get func() int, advance func(time.Duration)) {
		now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		cfg := engineConfig(s, computetest.DefaultCatalog())
		cfg.Clock = func() time.Time { return now }
		e := fake.New(cfg)
		return func() int {
			req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080"+listImages.path, nil)
			req.Header.Set("Authorization", "Bearer "+computetest.DefaultToken)
			w := httptest.NewRecorder()
			e.ServeHTTP(w, req)
			return w.Code
		}, func(d time.Duration) { now = now.Add(d) }
	}

	s, err := parseFlags(nil, noEnv, io.Discard)
	require.NoError(t, err)
	require.Equal(t, 10, s.burst)
	require.Contains(t, bannerOf(t, s), "rate limit: 10 requests per second per token, burst 10\n")
	get, advance := serve(s)
	for i := range 10 {
		require.Equal(t, http.StatusOK, get(), "request %d of a burst of 10", i+1)
	}
	require.Equal(t, http.StatusTooManyRequests, get(), "the 11th at once")
	advance(100 * time.Millisecond)
	require.Equal(t, http.StatusOK, get(), "100 ms later")

	for args, want := range map[string]int{"-rate 2.5": 2, "-rate 0.1": 1, "-rate 100": 100} {
		s, err := parseFlags(strings.Fields(args), noEnv, io.Discard)
		require.NoError(t, err)
		require.Equal(t, want, s.burst, args)
	}

	s, err = parseFlags([]string{"-burst", "1"}, noEnv, io.Discard)
	require.NoError(t, err)
	require.Contains(t, bannerOf(t, s), "rate limit: 10 requests per second per token, burst 1\n")
	get, advance = serve(s)
	require.Equal(t, http.StatusOK, get())
	advance(50 * time.Millisecond)
	require.Equal(t, http.StatusTooManyRequests, get(), "with -burst 1, a second request 50 ms after the first")
	advance(50 * time.Millisecond)
	require.Equal(t, http.StatusOK, get(), "100 ms after the first")
}

// bannerOf is the banner printed for s.
func bannerOf(t *testing.T, s settings) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, printBanner(&b, "http://127.0.0.1:8080", s, computetest.DefaultCatalog()))
	return b.String()
}

func TestPortInUse(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"-addr", l.Addr().String()}, noEnv, &stdout, &stderr)
	require.Equal(t, 1, code)
	require.Contains(t, stderr.String(), "cannot listen on "+l.Addr().String())
	if runtime.GOOS != "windows" {
		require.Contains(t, stderr.String(), "the port is in use")
	}
	require.Empty(t, stdout.String())
}

// inProcess is run serving in a goroutine.
type inProcess struct {
	url    string
	banner string
	stderr *lockedBuffer
	stop   func() int // cancels run's context and returns its exit status
}

// startInProcess runs run with args on a free loopback port until the test ends (or stop).
func startInProcess(t *testing.T, args ...string) *inProcess {
	t.Helper()
	return startWithEnv(t, noEnv, args...)
}

// startWithEnv is startInProcess with the environment variables getenv reads.
func startWithEnv(t *testing.T, getenv func(string) string, args ...string) *inProcess {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout := &lockedBuffer{wrote: make(chan struct{})}
	p := &inProcess{stderr: &lockedBuffer{}}
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), getenv, stdout, p.stderr) }()

	wait, cancelWait := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelWait()
	select {
	case <-stdout.wrote: // the banner is written in one Write
	case code := <-done:
		cancel()
		t.Fatalf("run returned %d before serving; stderr:\n%s", code, p.stderr)
	case <-wait.Done():
		cancel()
		t.Fatalf("run printed no banner; stderr:\n%s", p.stderr)
	}
	p.banner = stdout.String()
	first, _, _ := strings.Cut(p.banner, "\n")
	p.url, _ = strings.CutPrefix(first, "compute-fake listening on ")

	var once sync.Once
	var code int
	p.stop = func() int {
		once.Do(func() {
			cancel()
			wait, cancelWait := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancelWait()
			select {
			case code = <-done:
			case <-wait.Done():
				t.Errorf("run did not return within 5s of its context's end")
				code = -1
			}
		})
		return code
	}
	t.Cleanup(func() { p.stop() })
	return p
}

// response is an HTTP response, its body read.
type response struct {
	status int
	header http.Header
	raw    string
}

// apiError is the contract's error body.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// send makes c's request against base with plain net/http, as curl would.
func send(ctx context.Context, t *testing.T, hc *http.Client, base, token string, c apiCall) response {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequestWithContext(ctx, c.method, base+c.path, body)
	require.NoError(t, err)
	if c.auth {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if c.control {
		req.Header.Set("X-Fake-Control-Token", "fake-control")
	}
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return response{status: resp.StatusCode, header: resp.Header, raw: string(raw)}
}

// decodeAs decodes a response's JSON body.
func decodeAs[T any](t *testing.T, a response) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(a.raw), &v), a.raw)
	return v
}

// lockedBuffer is a bytes.Buffer safe for concurrent use; wrote, if set, is closed on the first
// Write.
type lockedBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	wrote chan struct{}
	once  sync.Once
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n, err := b.buf.Write(p)
	if b.wrote != nil {
		b.once.Do(func() { close(b.wrote) })
	}
	return n, err
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// noEnv is an environment with no variable set.
func noEnv(string) string { return "" }

// env is an environment of the given variables.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestEnvironmentVariablesReachTheServerAndFlagsWin(t *testing.T) {
	vars := map[string]string{envToken: "env-token", envRate: "0", envSpeed: "1h", envAddr: "127.0.0.1:1"}
	// -addr on the command line (startWithEnv adds -addr 127.0.0.1:0) wins over COMPUTE_FAKE_ADDR.
	p := startWithEnv(t, env(vars), "-speed", "0")
	ctx := context.Background()
	hc := http.DefaultClient
	a := send(ctx, t, hc, p.url, "env-token", listImages)
	require.Equal(t, http.StatusOK, a.status, "COMPUTE_FAKE_TOKEN sets the token: %s", a.raw)
	require.NotContains(t, p.banner, "env-token", "a token of the user's choosing is not shown")
	for _, c := range []apiCall{createGroup, createFloatingIP, createInstance, getInstance} {
		a = send(ctx, t, hc, p.url, "env-token", c)
		require.Less(t, a.status, 300, a.raw)
	}
	in := decodeAs[struct {
		Instance struct{ Status string } `json:"instance"`
	}](t, a).Instance
	require.Equal(t, "active", in.Status, "-speed 0 wins over COMPUTE_FAKE_SPEED=1h")
	for range 20 {
		a = send(ctx, t, hc, p.url, "env-token", listImages)
		require.Equal(t, http.StatusOK, a.status, "COMPUTE_FAKE_RATE=0 turns the limit off")
	}
}

func TestInvalidEnvironmentVariableExits2(t *testing.T) {
	for name, vars := range map[string]map[string]string{
		"rate":  {envRate: "fast"},
		"burst": {envBurst: "2x"},
		"speed": {envSpeed: "2"},
	} {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Equal(t, 2, run(context.Background(), nil, env(vars), &stdout, &stderr))
			for k := range vars {
				require.Contains(t, stderr.String(), k, "the message names the variable")
			}
			require.Empty(t, stdout.String())
		})
	}
	var stderr bytes.Buffer
	require.Equal(t, 2, run(context.Background(), nil, env(map[string]string{envToken: "  ", envControl: "s3cret"}), io.Discard, &stderr))
	require.NotContains(t, stderr.String(), "s3cret")
}

func TestCatalogFile(t *testing.T) {
	dir := t.TempDir()
	custom := `{"regions":[{"id":"LAB-1","name":"Lab"}],
		"instance_types":[{"id":"tiny","vcpus":1,"memory_gib":1,"regions":["LAB-1"]}],
		"placement_options":["AUTO"],
		"images":[{"id":"img-alpine","name":"Alpine","type":"base-os","family":"alpine","slug":"alpine","os_type":"linux","versions":[],"regions":["LAB-1"]}],
		"ssh_keys":[{"id":"key-lab","name":"lab"}],
		"volumes":[]}`
	file := filepath.Join(dir, "catalog.json")
	require.NoError(t, os.WriteFile(file, []byte(custom), 0o600))

	// -print-catalog shows the file's catalogue in the same format, which reads back unchanged.
	var stdout, stderr bytes.Buffer
	require.Equal(t, 0, run(context.Background(), []string{"-catalog", file, "-print-catalog"}, noEnv, &stdout, &stderr), stderr.String())
	cat, err := computetest.ParseCatalog(stdout.Bytes())
	require.NoError(t, err)
	require.Equal(t, "LAB-1", cat.Regions[0].ID)
	require.Equal(t, "2026-01-15T09:00:00Z", cat.Images[0].CreatedAt.Format(time.RFC3339), "an image without timestamps gets the default ones")

	// The default catalogue's own output reads back as the default catalogue.
	stdout.Reset()
	require.Equal(t, 0, run(context.Background(), []string{"-print-catalog"}, noEnv, &stdout, &stderr))
	def, err := computetest.ParseCatalog(stdout.Bytes())
	require.NoError(t, err)
	require.Equal(t, computetest.DefaultCatalog(), def)

	// The server uses it, also through COMPUTE_FAKE_CATALOG.
	p := startWithEnv(t, env(map[string]string{envCatalog: file}), "-speed", "0", "-rate", "0")
	a := send(context.Background(), t, http.DefaultClient, p.url, computetest.DefaultToken, apiCall{"POST", "/compute/v1/instances",
		`{"name":"a","hostname":"a","type":"tiny","region":"LAB-1","image":"alpine","ssh_keys":["key-lab"]}`, true, false})
	require.Equal(t, http.StatusCreated, a.status, a.raw)
	a = send(context.Background(), t, http.DefaultClient, p.url, computetest.DefaultToken, createFloatingIP)
	require.Equal(t, http.StatusBadRequest, a.status, "the default regions are gone: %s", a.raw)

	// A file that is not a catalogue, or contradicts itself, exits 2 with the reason.
	for name, body := range map[string]string{
		"unknown key":    `{"regions":[{"id":"A","name":"a"}],"colour":"red"}`,
		"no regions":     `{"regions":[]}`,
		"unknown region": `{"regions":[{"id":"A","name":"a"}],"instance_types":[{"id":"t","regions":["B"]}]}`,
		"image type":     `{"regions":[{"id":"A","name":"a"}],"images":[{"id":"i","type":"snapshot","regions":["A"]}]}`,
		"negative vcpus": `{"regions":[{"id":"A","name":"a"}],"instance_types":[{"id":"t","vcpus":-1,"regions":["A"]}]}`,
		"not json":       `regions: [A]`,
	} {
		t.Run(name, func(t *testing.T) {
			f := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".json")
			require.NoError(t, os.WriteFile(f, []byte(body), 0o600))
			var stdout, stderr bytes.Buffer
			require.Equal(t, 2, run(context.Background(), []string{"-catalog", f, "-print-catalog"}, noEnv, &stdout, &stderr))
			require.Contains(t, stderr.String(), "-catalog "+f)
			require.Empty(t, stdout.String())
		})
	}
	var stderr2 bytes.Buffer
	require.Equal(t, 2, run(context.Background(), []string{"-catalog", filepath.Join(dir, "missing.json")}, noEnv, io.Discard, &stderr2))
}

// modulePath is the package path the README gives for go install and go run from another module.
const modulePath = "github.com/compute-sdk/compute-go/cmd/compute-fake"

// TestGoRunAndInstallFromAnotherModule does what the README's go install and go run lines do, from a
// module of its own, as a user of another language would: the package path resolves, builds and
// runs. The README's lines end in @latest, which fetches the published version; here a replace
// directive points the module path at this checkout instead, so that the test runs offline.
func TestGoRunAndInstallFromAnotherModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	dir := t.TempDir()
	gomod := "module example.com/ci\n\ngo 1.25\n\nrequire github.com/compute-sdk/compute-go v0.0.0\n\n" +
		"replace github.com/compute-sdk/compute-go => " + root + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o600))

	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	gobin := filepath.Join(dir, "bin")
	goCmd := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, goTool, args...)
		cmd.Dir = dir
		// The test's own environment, as a user's: an empty module cache is filled from the proxy.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod "+os.Getenv("GOFLAGS"), "GOWORK=off", "GOBIN="+gobin)
		return cmd
	}

	out, err := goCmd("run", modulePath, "-print-catalog").Output()
	require.NoError(t, err, "go run %s", modulePath)
	cat, err := computetest.ParseCatalog(out)
	require.NoError(t, err)
	require.Equal(t, computetest.DefaultCatalog(), cat)

	b, err := goCmd("install", modulePath).CombinedOutput()
	require.NoError(t, err, "go install: %s", b)
	out, err = exec.CommandContext(ctx, filepath.Join(gobin, "compute-fake"), "-h").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "COMPUTE_FAKE_TOKEN")
}

// TestLinksNoSDK keeps the binary apart from the SDK: of this module it links its own package and
// the fake's engine (internal/fake and below), not the SDK package nor computetest.
func TestLinksNoSDK(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	require.NoError(t, err)
	var ours []string
	for pkg := range strings.Lines(string(out)) {
		if pkg = strings.TrimSpace(pkg); strings.HasPrefix(pkg, "github.com/compute-sdk/compute-go") {
			ours = append(ours, pkg)
		}
	}
	require.Equal(t, []string{"github.com/compute-sdk/compute-go/internal/fake", modulePath}, ours)
}

// The banner's line of shell sets the variables the SDK reads, named here without importing it.
func TestBannerNamesTheSDKsVariables(t *testing.T) {
	require.Equal(t, compute.EnvBaseURL, envAPIURL)
	require.Equal(t, compute.EnvToken, envAPIToken)
}
