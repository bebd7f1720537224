// Command compute-fake serves the stateful fake of the Compute API (the engine behind package
// computetest) as a standalone HTTP server, so that Terraform providers, curl, and clients written
// in other languages can be tested against it without the real service. It does not link the SDK.
//
// Install it, or run it without installing, from any directory:
//
//	go install github.com/compute-sdk/compute-go/cmd/compute-fake@latest
//	go run github.com/compute-sdk/compute-go/cmd/compute-fake@latest -speed 0
//
// Usage:
//
//	compute-fake [-addr 127.0.0.1:8080] [-token Zq8Wv3Xj7Lm2Rt9Hk4Pd] [-read-only-token TOKEN]
//	             [-rate 10] [-burst N] [-speed 2s] [-catalog FILE] [-allow-hosts NAMES]
//	             [-control-token TOKEN]
//	compute-fake [-catalog FILE] -print-catalog
//	compute-fake -version
//
// The flags, each with the environment variable read when the flag is not given (a flag wins over
// its variable):
//
//	-addr             COMPUTE_FAKE_ADDR: the address to listen on; "127.0.0.1:0" picks a free
//	                  port (default 127.0.0.1:8080)
//	-token            COMPUTE_FAKE_TOKEN: the token the fake accepts (default Zq8Wv3Xj7Lm2Rt9Hk4Pd)
//	-read-only-token  COMPUTE_FAKE_READ_ONLY_TOKEN: a second token that may read but not write
//	                  (writes get 403, code 02043)
//	-rate             COMPUTE_FAKE_RATE: requests per second per token, as the service enforces
//	                  (429 with Retry-After beyond it); 0 turns the limit off (default 10)
//	-burst            COMPUTE_FAKE_BURST: how many requests a token may send at once before -rate
//	                  paces them (default: one second's worth, the rate rounded down, at least 1,
//	                  as clients meet the service); -burst 1 is the strict service for pacing
//	                  tests, refusing a request sooner than 1/rate after the one before
//	-speed            COMPUTE_FAKE_SPEED: how long each lifecycle transition takes (creating ->
//	                  active, stopping -> stopped, ...); 0 makes them instant (default 2s)
//	-catalog          COMPUTE_FAKE_CATALOG: a JSON file whose catalogue (regions, instance types,
//	                  images, SSH keys, volumes) replaces the default one, at most 1 MiB;
//	                  -print-catalog shows the format
//	-allow-hosts      COMPUTE_FAKE_ALLOW_HOSTS: host names, separated by commas, answered besides
//	                  loopback ones (localhost, 127.0.0.1, [::1]) when listening on loopback, or *
//	                  for any; other Host headers get 421, so that a web page cannot reach the fake
//	                  through DNS rebinding. Each name is matched whole: example.com admits neither
//	                  evilexample.com nor api.example.com
//	-control-token    COMPUTE_FAKE_CONTROL_TOKEN: enables the control endpoint under /_fake/ (faults,
//	                  the request log, forced statuses, quotas, the clock, reset), guarded by this
//	                  token in the X-Fake-Control-Token header; off when empty (the default)
//	-print-catalog    print the catalogue (the default, or -catalog's) as JSON and exit
//
// On start it prints its URL, its token, a line of shell to paste
// (export COMPUTE_API_URL=... COMPUTE_API_TOKEN=..., the variables compute.NewClientFromEnv reads)
// and a summary of the catalogue. It stops cleanly on SIGINT or SIGTERM. The state lives in memory
// and is gone when it stops; resource IDs are sequential (ins-000001, sg-000001, fip-000001, ...), so
// a fresh server gives the same IDs every time.
//
// For example:
//
//	go run ./cmd/compute-fake -speed 0 &
//	curl -H "Authorization: Bearer Zq8Wv3Xj7Lm2Rt9Hk4Pd" http://127.0.0.1:8080/compute/v1/images
//
// The fake implements every operation of the API; see package computetest for its behaviour where
// the API's documents are silent, and docs/compute-fake.md for the control endpoint.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/compute-sdk/compute-go/internal/fake"
)

// The environment variables compute.NewClientFromEnv reads, which the banner sets (the command
// does not import the SDK; a test holds the names to the SDK's).
const (
	envAPIURL   = "COMPUTE_API_URL"
	envAPIToken = "COMPUTE_API_TOKEN"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// After the first signal, a second one kills the process the default way, in case shutting
	// down hangs on a client that never finishes its request.
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// settings are the command line's choices.
type settings struct {
	addr         string
	token        string
	readOnly     string
	rate         float64
	burst        int
	speed        time.Duration
	catalogFile  string
	control      string
	allowHosts   string
	hosts        []string // allowHosts, parsed
	printCatalog bool
	printVersion bool
}

// requestLogLimit and requestLogBytes bound the fake's request log (GET /_fake/requests), which a
// long-running server would otherwise fill with every request it ever received.
const (
	requestLogLimit = 1000
	requestLogBytes = 16 << 20
)

// run is the whole program: it parses args (and the environment variables getenv reads), serves
// until ctx is done and returns the exit status: 0 after a clean stop (or -print-catalog, or -h), 1
// when it cannot listen, 2 for invalid flags, variables or catalogue file.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	s, err := parseFlags(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return 2
	}
	if s.printVersion {
		fmt.Fprintln(stdout, "compute-fake", buildVersion())
		return 0
	}
	cat := fake.DefaultCatalog()
	if s.catalogFile != "" {
		var err error
		if cat, err = readCatalog(s.catalogFile); err != nil {
			fmt.Fprintf(stderr, "compute-fake: -catalog %s: %v\nRun compute-fake -print-catalog for the format.\n", s.catalogFile, err)
			return 2
		}
	}
	if s.printCatalog {
		if err := printCatalog(stdout, cat); err != nil {
			fmt.Fprintf(stderr, "compute-fake: printing the catalogue: %v\n", err)
			return 1
		}
		return 0
	}

	l, err := net.Listen("tcp", s.addr)
	if err != nil {
		fmt.Fprintf(stderr, "compute-fake: cannot listen on %s: %v\n", s.addr, err)
		if errors.Is(err, syscall.EADDRINUSE) {
			fmt.Fprintf(stderr, "compute-fake: the port is in use (another compute-fake?); choose another with -addr, or -addr 127.0.0.1:0 for any free port\n")
		}
		return 1
	}
	e := fake.New(engineConfig(s, cat))
	srv := &http.Server{Handler: guardHosts(e, l.Addr(), s.hosts), ReadHeaderTimeout: 30 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }() // it closes l when it returns

	if tcp, ok := l.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		fmt.Fprintf(stderr, "compute-fake: warning: listening on %s, beyond this machine; the fake guards nothing, and its default token is public\n", l.Addr())
	}
	if err := printBanner(stdout, displayURL(l.Addr()), s, e.Catalog()); err != nil {
		fmt.Fprintf(stderr, "compute-fake: printing the start-up banner: %v\n", err)
	}

	<-ctx.Done()
	fmt.Fprintln(stderr, "compute-fake: shutting down")
	// Shutdown closes the listener and waits for the requests in flight; one that an injected
	// stall holds past the grace period is cut off.
	grace, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if srv.Shutdown(grace) != nil {
		_ = srv.Close()
	}
	<-served
	return 0
}

// engineConfig is the fake's configuration for the command line's settings.
func engineConfig(s settings, cat fake.Catalog) fake.Config {
	cfg := fake.Config{Token: s.token, Rate: s.rate, Burst: s.burst, Durations: fake.UniformDurations(s.speed),
		LogLimit: requestLogLimit, LogBytes: requestLogBytes, Catalog: &cat, ControlToken: s.control}
	if s.readOnly != "" {
		cfg.ReadOnly = []string{s.readOnly}
	}
	return cfg
}

// Environment variables read for flags that are not given.
const (
	envAddr     = "COMPUTE_FAKE_ADDR"
	envToken    = "COMPUTE_FAKE_TOKEN"
	envReadOnly = "COMPUTE_FAKE_READ_ONLY_TOKEN"
	envRate     = "COMPUTE_FAKE_RATE"
	envBurst    = "COMPUTE_FAKE_BURST"
	envSpeed    = "COMPUTE_FAKE_SPEED"
	envCatalog  = "COMPUTE_FAKE_CATALOG"
	envControl  = "COMPUTE_FAKE_CONTROL_TOKEN"
	envHosts    = "COMPUTE_FAKE_ALLOW_HOSTS"
)

// parseFlags reads the command line, after the environment variables getenv reads: a variable sets
// a flag's value, a flag given on the command line wins. Errors are reported on stderr: the flag
// package's own (with the usage) or a check of the values, naming the variable when the value came
// from one (never showing a token). A request for help returns flag.ErrHelp.
func parseFlags(args []string, getenv func(string) string, stderr io.Writer) (settings, error) {
	var s settings
	fs := flag.NewFlagSet("compute-fake", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&s.addr, "addr", "127.0.0.1:8080", `address to listen on; "127.0.0.1:0" picks a free port (`+envAddr+`)`)
	fs.StringVar(&s.token, "token", fake.DefaultToken, "the token the fake accepts, in Authorization: Bearer <token> ("+envToken+")")
	fs.StringVar(&s.readOnly, "read-only-token", "", "an optional second token that may read but not write: 403, code 02043 ("+envReadOnly+")")
	fs.Float64Var(&s.rate, "rate", 10, "requests per second per token; beyond it 429 with Retry-After; 0 turns the limit off ("+envRate+")")
	fs.IntVar(&s.burst, "burst", 0, "how many requests a token may send at once before -rate paces them (default: one second's worth, -rate rounded down, at least 1); 1 is strict, allowing none sooner than 1/rate after the one before ("+envBurst+")")
	fs.DurationVar(&s.speed, "speed", 2*time.Second, "how long each lifecycle transition takes (creating -> active, ...); 0 is instant ("+envSpeed+")")
	fs.StringVar(&s.catalogFile, "catalog", "", "a JSON catalogue file replacing the default catalogue; -print-catalog shows the format ("+envCatalog+")")
	fs.StringVar(&s.allowHosts, "allow-hosts", "", "host names, separated by commas, answered besides loopback ones when listening on loopback, each matched whole (not its subdomains); * for any ("+envHosts+")")
	fs.StringVar(&s.control, "control-token", "", "enables the control endpoint under /_fake/ with this token in X-Fake-Control-Token ("+envControl+")")
	fs.BoolVar(&s.printCatalog, "print-catalog", false, "print the catalogue as JSON and exit")
	fs.BoolVar(&s.printVersion, "version", false, "print the version and exit")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: compute-fake [flags]\n\n"+
			"Serves a stateful in-memory fake of the Compute API over HTTP.\n"+
			"Each flag but -print-catalog can also be set by the environment variable named in its\n"+
			"description; the flag wins. Stop it with Ctrl-C.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	bad := func(format string, a ...any) (settings, error) {
		err := fmt.Errorf(format, a...)
		fmt.Fprintf(stderr, "compute-fake: %v\nRun compute-fake -h for usage.\n", err)
		return s, err
	}
	for _, v := range []struct{ flag, env string }{
		{"addr", envAddr}, {"token", envToken}, {"read-only-token", envReadOnly}, {"rate", envRate},
		{"burst", envBurst}, {"speed", envSpeed}, {"catalog", envCatalog}, {"allow-hosts", envHosts}, {"control-token", envControl},
	} {
		value := getenv(v.env)
		if value == "" {
			continue
		}
		if err := fs.Set(v.flag, value); err != nil {
			if strings.Contains(v.flag, "token") {
				return bad("%s: invalid value", v.env)
			}
			return bad("%s=%q: %v", v.env, value, err)
		}
	}
	if err := fs.Parse(args); err != nil {
		return s, err
	}
	burstGiven := false
	fs.Visit(func(f *flag.Flag) { burstGiven = burstGiven || f.Name == "burst" })
	switch {
	case fs.NArg() > 0:
		// Not echoed: a token written after a stray argument would be among them.
		return bad("compute-fake takes no arguments, got %d after the flags (a flag's value goes as -flag=value)", len(fs.Args()))
	case strings.TrimSpace(s.token) == "":
		return bad("-token must not be empty")
	case s.readOnly != "" && s.readOnly == s.token:
		return bad("-read-only-token must differ from -token")
	case s.control != "" && (s.control == s.token || s.control == s.readOnly):
		return bad("-control-token must differ from -token and -read-only-token")
	case !(s.rate >= 0) || math.IsInf(s.rate, 1): // NaN fails every comparison
		return bad("-rate must be 0 (no limit) or a positive number, got %g", s.rate)
	case burstGiven && s.burst < 1:
		return bad("-burst must be 1 or more, got %d", s.burst)
	case s.speed < 0:
		return bad("-speed must be 0 (instant) or more, got %s", s.speed)
	}
	if !burstGiven {
		s.burst = defaultBurst(s.rate)
	}
	hosts, err := parseHosts(s.allowHosts)
	if err != nil {
		return bad("%v", err)
	}
	s.hosts = hosts
	return s, nil
}

// defaultBurst is one second's worth of rate, at least 1: what a client that sends without pacing
// meets of the service, which counts its rate per second.
func defaultBurst(rate float64) int {
	if rate >= math.MaxInt32 {
		return math.MaxInt32
	}
	return max(1, int(rate))
}

// printCatalog writes the catalogue as indented JSON.
func printCatalog(w io.Writer, cat fake.Catalog) error {
	b, err := json.MarshalIndent(cat, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// displayURL is the URL to show: the server's, except that an address listening on every interface
// (":8080", "0.0.0.0:8080") is shown as the loopback address, which reaches it from this machine.
func displayURL(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return "http://" + addr.String()
	}
	return "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
}

// printBanner writes what a user needs to point a client at the fake: its URL (first, on a line of
// its own beginning "compute-fake listening on ", which a script can wait for), its tokens, its
// settings, a line of shell setting the variables compute.NewClientFromEnv reads, and a summary of
// the catalogue. It writes everything in one Write, so that a reader sees the banner whole.
func printBanner(w io.Writer, url string, s settings, cat fake.Catalog) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "compute-fake listening on %s\n", url)
	// Only the default token, which is public, is shown: a token of the user's choosing stays out
	// of the output, which may end up in a CI log.
	token := "(the one given, not shown)"
	if s.token == fake.DefaultToken {
		token = s.token
	}
	fmt.Fprintf(&b, "token: %s\n", token)
	if s.readOnly != "" {
		fmt.Fprintf(&b, "read-only token: (the one given, not shown)\n")
	}
	if s.control != "" {
		fmt.Fprintf(&b, "control endpoint: %s/_fake/ (X-Fake-Control-Token: the one given, not shown)\n", url)
	}
	if s.rate > 0 {
		fmt.Fprintf(&b, "rate limit: %g requests per second per token, burst %d\n", s.rate, s.burst)
	} else {
		fmt.Fprintf(&b, "rate limit: off\n")
	}
	if s.speed > 0 {
		fmt.Fprintf(&b, "lifecycle transitions: %s each\n", s.speed)
	} else {
		fmt.Fprintf(&b, "lifecycle transitions: instant\n")
	}
	if s.token == fake.DefaultToken {
		fmt.Fprintf(&b, "export %s=%s %s=%s\n", envAPIURL, shellQuote(url), envAPIToken, shellQuote(s.token))
	} else {
		fmt.Fprintf(&b, "export %s=%s %s=<your token>\n", envAPIURL, shellQuote(url), envAPIToken)
	}

	everywhere := func(regions []string) string {
		if len(regions) == len(cat.Regions) && len(regions) > 1 {
			return "all regions"
		}
		return strings.Join(regions, ", ")
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nregions:\n")
	for _, r := range cat.Regions {
		fmt.Fprintf(tw, "  %s\t%s\n", r.ID, r.Name)
	}
	fmt.Fprintf(tw, "instance types:\n")
	for _, t := range cat.InstanceTypes {
		line := fmt.Sprintf("  %s\t%d vCPU\t%d GiB\t%s", t.ID, t.VCPUs, t.MemoryGiB, everywhere(t.Regions))
		if len(t.UnsupportedImages) > 0 {
			line += "\tcannot run " + strings.Join(t.UnsupportedImages, ", ")
		}
		fmt.Fprintln(tw, line)
	}
	fmt.Fprintf(tw, "images (slug, id, type):\n")
	for _, im := range cat.Images {
		slug := im.Slug
		if slug == "" {
			slug = "-"
		}
		line := fmt.Sprintf("  %s\t%s\t%s", slug, im.ID, im.Type)
		if len(im.Versions) > 0 {
			line += "\tversions " + strings.Join(im.Versions, ", ")
		}
		fmt.Fprintln(tw, line)
	}
	fmt.Fprintf(tw, "ssh keys:\n")
	for _, k := range cat.SSHKeys {
		fmt.Fprintf(tw, "  %s\t%s\n", k.ID, k.Name)
	}
	fmt.Fprintf(tw, "volumes (id, region; the API shows them created):\n")
	for _, v := range cat.Volumes {
		note := ""
		if v.Status == fake.VolumeLocked {
			note = "\tlocked: cannot be attached or detached"
		}
		fmt.Fprintf(tw, "  %s\t%s%s\n", v.ID, v.Region, note)
	}
	fmt.Fprintf(tw, "reservations (id, flavor, region, capacity):\n")
	for _, r := range cat.Reservations {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\n", r.ID, r.FlavorName, r.Region, r.Capacity)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(cat.PlacementOptions) > 0 {
		fmt.Fprintf(&b, "placement options: %s\n", strings.Join(cat.PlacementOptions, ", "))
	}
	fmt.Fprintf(&b, "\nIDs are sequential from 000001 (ins-, sg-, fip-, snap-, key-, vol-, fs-). Stop with Ctrl-C.\n")
	_, err := w.Write(b.Bytes())
	return err
}

// shellQuote quotes s for a POSIX shell unless it needs no quoting.
func shellQuote(s string) string {
	safe := s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,:/@%+=", r))
	}) < 0
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
