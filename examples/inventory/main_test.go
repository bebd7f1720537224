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

func TestInventoryOnTheEmbeddedFake(t *testing.T) {
	t.Setenv(compute.EnvBaseURL, "")
	t.Setenv(compute.EnvToken, "")
	// In a bubble, the embedded fake's transitions and the polls take no real time.
	synctest.Test(t, func(t *testing.T) {
		var out, errOut bytes.Buffer
		require.Equal(t, 0, run(context.Background(), &out, &errOut), errOut.String())
		for _, row := range []string{"instance        ins-000001  web-1", "instance        ins-000003  db-1",
			"floating-ip     fip-000001  front", "on ins-000001", "security-group  sg-000002   db"} {
			assert.Contains(t, out.String(), row)
		}
	})
}

// Against a service, it only reads, and walks every page.
func TestInventoryOnlyReadsAService(t *testing.T) {
	srv := computetest.NewServer()
	defer srv.Close()
	c := srv.Client()
	for range 150 {
		_, err := c.SecurityGroups.Create(context.Background(), &compute.SecurityGroupCreateRequest{Name: "g", Region: "NORD-NO-KRS-1"})
		require.NoError(t, err)
	}
	srv.ResetRequests()
	t.Setenv(compute.EnvBaseURL, srv.URL)
	t.Setenv(compute.EnvToken, srv.Token)
	var out, errOut bytes.Buffer
	require.Equal(t, 0, run(context.Background(), &out, &errOut), errOut.String())
	assert.Equal(t, 150, bytes.Count(out.Bytes(), []byte("security-group  sg-")))
	for _, r := range srv.Requests() {
		assert.Equal(t, "GET", r.Method)
	}
}
