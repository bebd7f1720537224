package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	compute "github.com/compute-sdk/compute-go"
)

// fakePackage is compute-fake's package, built when -fake is not given.
const fakePackage = "github.com/compute-sdk/compute-go/cmd/compute-fake"

// controlHeader carries compute-fake's control token.
const controlHeader = "X-Fake-Control-Token"

// fakeServer is a compute-fake of the run's own on a free loopback port, with its control endpoint.
type fakeServer struct {
	cmd          *exec.Cmd
	exited       chan struct{}
	url          string
	token        string
	controlToken string
	rate         float64
	hc           *http.Client
}

// startFake starts the compute-fake at bin on a free loopback port, with the account's rate, burst
// and transitions, a token and a control token of its own, and returns once it listens.
func startFake(bin string, s settings, stderr io.Writer) (*fakeServer, error) {
	f := &fakeServer{token: randomHex(), controlToken: randomHex(), rate: s.rate, hc: &http.Client{Timeout: 30 * time.Second},
		exited: make(chan struct{})}
	f.cmd = exec.Command(bin, "-addr", "127.0.0.1:0", "-rate", strconv.FormatFloat(s.rate, 'g', -1, 64),
		"-burst", strconv.Itoa(s.burst), "-speed", s.transition.String())
	// The tokens go through the environment, so that no process listing shows them.
	f.cmd.Env = append(os.Environ(), "COMPUTE_FAKE_TOKEN="+f.token, "COMPUTE_FAKE_CONTROL_TOKEN="+f.controlToken)
	f.cmd.Stderr = stderr
	out, err := f.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := f.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = f.cmd.Wait(); close(f.exited) }()
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "compute-fake listening on "); ok {
				listening <- u
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case f.url = <-listening:
		return f, nil
	case <-f.exited:
		return nil, errors.New("compute-fake exited before it listened")
	case <-time.After(30 * time.Second):
		f.stop()
		return nil, errors.New("compute-fake did not say where it listens within 30 s")
	}
}

// stop stops the fake, killing it if it takes more than 10 s.
func (f *fakeServer) stop() {
	_ = f.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-f.exited:
	case <-time.After(10 * time.Second):
		_ = f.cmd.Process.Kill()
		<-f.exited
	}
}

// control sends a request to the fake's control endpoint, with body as JSON when not nil, and
// decodes the answer into out when not nil.
func (f *fakeServer) control(method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, f.url+path, r)
	if err != nil {
		return err
	}
	req.Header.Set(controlHeader, f.controlToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %.200s", method, path, resp.Status, b)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return nil
}

// faultRule is a rule of the fake's POST /_fake/faults.
type faultRule struct {
	Match       faultMatch `json:"match"`
	Times       int        `json:"times,omitempty"`
	Probability float64    `json:"probability,omitempty"`
	Fault       struct {
		DropAfterProcessing bool `json:"drop_after_processing"`
	} `json:"fault"`
}

type faultMatch struct {
	Method string `json:"method"`
	Path   string `json:"path"`
}

// loseCreateResponses makes the fake process instance creates and drop their responses: the first
// one, so that every run loses one however few instances it makes, then each with probability
// share.
func (f *fakeServer) loseCreateResponses(share float64) error {
	first := faultRule{Match: faultMatch{http.MethodPost, apiPrefix + "instances"}, Times: 1}
	first.Fault.DropAfterProcessing = true
	if err := f.control(http.MethodPost, "/_fake/faults", first, nil); err != nil {
		return err
	}
	if share <= 0 {
		return nil
	}
	rest := first
	rest.Times, rest.Probability = 0, share
	return f.control(http.MethodPost, "/_fake/faults", rest, nil)
}

// clearFaults removes every fault rule.
func (f *fakeServer) clearFaults() error {
	return f.control(http.MethodDelete, "/_fake/faults", nil, nil)
}

// instances counts the instances the fake holds: those named web-*, and all of them. Its requests
// go through a client paced at the account's rate, and show in the fake's log.
func (f *fakeServer) instances(ctx context.Context) (web, all int, err error) {
	c, err := compute.NewClient(f.token, compute.WithBaseURL(f.url), compute.WithRateLimit(f.rate, 1))
	if err != nil {
		return 0, 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	for inst, err := range c.Instances.All(ctx, &compute.ListOptions{PerPage: compute.MaxPerPage}) {
		if err != nil {
			return web, all, err
		}
		all++
		if strings.HasPrefix(inst.Name, "web-") {
			web++
		}
	}
	return web, all, nil
}

// buildFake builds compute-fake into dir.
func buildFake(dir string, stderr io.Writer) (string, error) {
	path := dir + "/compute-fake"
	build := exec.Command("go", "build", "-o", path, fakePackage)
	build.Stdout, build.Stderr = stderr, stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building %s (or pass -fake): %w", fakePackage, err)
	}
	return path, nil
}

// randomHex is 32 random hex digits: a token.
func randomHex() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
