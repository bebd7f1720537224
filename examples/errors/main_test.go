package main

import (
	"bytes"
	"context"
	"testing"
	"testing/synctest"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestErrorsOnTheEmbeddedFake(t *testing.T) {
	t.Setenv(compute.EnvBaseURL, "")
	t.Setenv(compute.EnvToken, "")
	// In a bubble, the embedded fake's transitions and the polls take no real time.
	synctest.Test(t, func(t *testing.T) {
		var out, errOut bytes.Buffer
		require.Equal(t, 0, run(context.Background(), &out, &errOut), errOut.String())
		want := "get a missing instance:\n    not found: status 404, code 02008 (Instance not found)\n" +
			"create with a short password:\n    refused before sending: field \"password\" must be at least 16 characters, got 5\n" +
			"delete a protected instance:\n    termination protected: unprotect it first (IsProtected: compute.Ptr(false))\n" +
			"create whose response is lost:\n    outcome unknown: it may have happened; look it up before trying again\n"
		assert.Contains(t, out.String(), want)
	})
}
