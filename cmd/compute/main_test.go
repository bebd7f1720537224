package main

import (
	"os"
	"testing"
)

// envAsMain makes the test binary run as the compute command itself, for the tests that drive it
// as a process (on a pseudo-terminal, from a shell's completion).
const envAsMain = "COMPUTE_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(envAsMain) == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}
