package main

import (
	"bytes"
	"context"
	"testing"
	"testing/synctest"

	compute "github.com/compute-sdk/compute-go"
	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// embedded clears the environment, so that the program uses its embedded fake, and runs f in a
// synctest bubble, where the fake's transitions and the polls take no real time.
func embedded(t *testing.T, f func(t *testing.T)) {
	t.Setenv(compute.EnvBaseURL, "")
	t.Setenv(compute.EnvToken, "")
	synctest.Test(t, f)
}

func TestCleanupKeepsProtectedInstancesWithoutForce(t *testing.T) {
	embedded(t, func(t *testing.T) {
		var out, errOut bytes.Buffer
		require.Equal(t, 0, run(context.Background(), []string{"-prefix", "test-"}, &out, &errOut), errOut.String())
		assert.Contains(t, out.String(), "keep    instance ins-000002 test-vm-protected")
		assert.Contains(t, out.String(), "delete  instance ins-000001 test-vm-1")
		assert.NotContains(t, out.String(), "other-vm")
		assert.Contains(t, out.String(), "deleted 3, kept 1, failed 0")
	})
}

func TestCleanupForceDeletesProtectedInstances(t *testing.T) {
	embedded(t, func(t *testing.T) {
		var out, errOut bytes.Buffer
		require.Equal(t, 0, run(context.Background(), []string{"-prefix", "test-", "-force"}, &out, &errOut), errOut.String())
		assert.Contains(t, out.String(), "delete  instance ins-000002 test-vm-protected")
		assert.Contains(t, out.String(), "deleted 4, kept 0, failed 0")
	})
}

func TestCleanupDryRunAndGuards(t *testing.T) {
	var out, errOut bytes.Buffer
	embedded(t, func(t *testing.T) {
		require.Equal(t, 0, run(context.Background(), []string{"-prefix", "test-", "-dry-run"}, &out, &errOut))
		assert.Contains(t, out.String(), "would delete instance ins-000001")
		assert.Contains(t, out.String(), "deleted 0, kept 1, failed 0")

		assert.Equal(t, 2, run(context.Background(), nil, &out, &errOut), "no prefix")
	})
	srv := computetest.NewServer()
	defer srv.Close()
	t.Setenv(compute.EnvBaseURL, srv.URL)
	t.Setenv(compute.EnvToken, srv.Token)
	assert.Equal(t, 2, run(context.Background(), []string{"-prefix", "x"}, &out, &errOut), "a real service needs -yes")
	assert.Empty(t, srv.Requests())
}
