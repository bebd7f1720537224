package computetest_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/compute-sdk/compute-go/computetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestForgottenInMemoryNetworkFailsAtOnce: inside a testing/synctest bubble, a server on a loopback
// socket would hang the test until the binary's timeout; NewServer fails at once instead, naming
// the option to add, and the same test with the option works.
func TestForgottenInMemoryNetworkFailsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var msg any
		func() {
			defer func() { msg = recover() }()
			srv := computetest.NewServer()
			srv.Close()
		}()
		require.NotNil(t, msg, "NewServer on a socket inside a bubble must fail")
		assert.Contains(t, msg, "computetest.WithInMemoryNetwork()")

		srv := computetest.NewServer(computetest.WithInMemoryNetwork())
		defer srv.Close()
		_, err := srv.Client().Images.List(context.Background(), nil)
		require.NoError(t, err)
	})
}
