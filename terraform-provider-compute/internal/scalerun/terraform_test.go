package main

import (
	"context"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// alive reports whether the process pid runs (and is not a zombie).
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// startStandIn starts sh as terraform would be: a process that starts a child (as terraform starts
// its provider) and waits.
func startStandIn(t *testing.T) (*tfProcess, int) {
	t.Helper()
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	p, err := startTerraform("/bin/sh", t.TempDir(), os.Environ(), "-c", "sleep 60 & echo started; wait")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.killGroup(); <-p.done })
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if kids := childrenOf(p.cmd.Process.Pid); len(kids) == 1 && strings.Contains(p.out.String(), "started") {
			return p, kids[0]
		}
	}
	t.Fatal("the stand-in's child did not start within 10 s")
	return nil, 0
}

func TestCrashKillsTerraformAndItsProviderByPID(t *testing.T) {
	p, child := startStandIn(t)
	killed := p.crash()
	if !slices.Equal(killed, []int{child}) {
		t.Fatalf("crash killed the children %v, want %v", killed, []int{child})
	}
	r := p.wait(context.Background(), time.Minute)
	if r.code != -1 {
		t.Errorf("the stand-in's exit status = %d, want -1 (killed by a signal)", r.code)
	}
	if r.errors() != 1 {
		t.Errorf("a killed command counts %d errors, want 1", r.errors())
	}
	for deadline := time.Now().Add(10 * time.Second); alive(child); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the child %d still runs 10 s after the crash", child)
		}
	}
}

func TestACommandPastItsBoundOrInterruptedIsKilledWithWhatItStarted(t *testing.T) {
	for _, interrupt := range []bool{false, true} {
		p, child := startStandIn(t)
		ctx, cancel := context.WithCancel(context.Background())
		bound := time.Hour
		if interrupt {
			cancel()
		} else {
			bound = 10 * time.Millisecond
		}
		r := p.wait(ctx, bound)
		cancel()
		if !r.killed {
			t.Errorf("interrupt %v: not reported killed", interrupt)
		}
		for deadline := time.Now().Add(10 * time.Second); alive(child); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("interrupt %v: the child %d still runs 10 s after", interrupt, child)
			}
		}
	}
}

func TestParentPIDReadsAStatLineWhoseNameHoldsSpacesAndParentheses(t *testing.T) {
	ppid, ok := parentPID("4242 (terraform-provider (x) y) S 4100 4242 4100 0 -1")
	if !ok || ppid != 4100 {
		t.Fatalf("parentPID = %d, %v; want 4100", ppid, ok)
	}
	if _, ok := parentPID("garbage"); ok {
		t.Fatal("a line without a name parsed")
	}
	if got, ok := parentPID(mustRead(t, "/proc/self/stat")); !ok || got != os.Getppid() {
		t.Fatalf("parentPID(/proc/self/stat) = %d, %v; want %d", got, ok, os.Getppid())
	}
}

func mustRead(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	return string(b)
}

func TestTheOutputTellsErrorsAndTheirFirstDetail(t *testing.T) {
	out := `compute_instance.web[3]: Creating...

Error: Cannot create the instance

  with compute_instance.web[3],
  on main.tf line 20, in resource "compute_instance" "web":
  20: resource "compute_instance" "web" {

compute: POST /compute/v1/instances: 429 Too Many Requests
(02009)

Error: Cannot create the instance

  with compute_instance.web[4],
`
	r := tfResult{code: 1, out: out}
	if r.errors() != 2 {
		t.Errorf("errors = %d, want 2", r.errors())
	}
	want := "Error: Cannot create the instance: compute: POST /compute/v1/instances: 429 Too Many Requests (02009)"
	if got := r.firstError(); got != want {
		t.Errorf("firstError = %q\nwant         %q", got, want)
	}
	ok := tfResult{out: "a\n\nApply complete! Resources: 3 added, 0 changed, 0 destroyed.\n\n"}
	if ok.errors() != 0 || ok.firstError() != "" {
		t.Errorf("a clean apply: %d errors, %q", ok.errors(), ok.firstError())
	}
	if got := ok.tail(1); !slices.Equal(got, []string{"Apply complete! Resources: 3 added, 0 changed, 0 destroyed."}) {
		t.Errorf("tail = %q", got)
	}
}

func TestTerraformsEnvironmentDropsTheCallersSettings(t *testing.T) {
	t.Setenv("COMPUTE_API_TOKEN", "secret")
	t.Setenv("COMPUTE_REDIS_URL", "redis://elsewhere")
	t.Setenv("GENESISCLOUD_TOKEN", "secret")
	t.Setenv("TF_CLI_CONFIG_FILE", "/elsewhere")
	t.Setenv("TF_CLI_ARGS_apply", "-parallelism=1")
	env := tfEnv("/run/cli.tfrc", "COMPUTE_API_TOKEN=fake")
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if (k == "COMPUTE_API_TOKEN" && v != "fake") || k == "COMPUTE_REDIS_URL" || k == "GENESISCLOUD_TOKEN" ||
			(k == "TF_CLI_CONFIG_FILE" && v != "/run/cli.tfrc") || k == "TF_CLI_ARGS_apply" {
			t.Errorf("the environment holds %s", kv)
		}
	}
	for _, want := range []string{"TF_CLI_CONFIG_FILE=/run/cli.tfrc", "TF_IN_AUTOMATION=1", "TF_INPUT=0", "CHECKPOINT_DISABLE=1", "COMPUTE_API_TOKEN=fake"} {
		if !slices.Contains(env, want) {
			t.Errorf("the environment lacks %s", want)
		}
	}
}
