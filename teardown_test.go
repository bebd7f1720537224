package compute

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeleteAndWaitTriesAgainAfterAnUnknownOutcome: the delete's first attempt meets a 503, its
// retry a proxy's 404 page: the outcome is unknown, so DeleteAndWait sends the delete again, as its
// doc says, and only the instance's own not-found ends it.
func TestDeleteAndWaitTriesAgainAfterAnUnknownOutcome(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var deletes, gets int
		c, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			if r.Method == http.MethodGet {
				gets++
				instanceNotFound(w, r)
				return
			}
			switch deletes++; deletes {
			case 1:
				replyJSON(w, http.StatusServiceUnavailable, map[string]string{"code": "02004", "message": "busy"})
			case 2:
				replyRaw(w, http.StatusNotFound, "<html>404 Not Found</html>")
			default:
				w.WriteHeader(http.StatusNoContent)
			}
		}, WithoutRateLimit())
		require.NoError(t, c.Instances.DeleteAndWait(boundedCtx(t), "i-1"))
		mu.Lock()
		defer mu.Unlock()
		assert.Equal(t, 3, deletes, "the delete was sent again after the proxy's 404")
		assert.Equal(t, 1, gets, "then its GET's 404 proved it gone")
	})
}

// TestWaitAllRefusesANilWait: a nil wait is refused with a *ValidationError, not a panic on one of
// WaitAll's goroutines, which no caller could recover.
func TestWaitAllRefusesANilWait(t *testing.T) {
	err := WaitAll(context.Background(), []string{"a", "b"}, nil)
	requireInvalid(t, err, "wait", &recorder{})
}

// TestWaitAllRaisesAWaitsPanicInItsCaller: a wait that panics (an OnUpdate callback's bug, an
// Observer's) panics in WaitAll's caller, where it can be recovered, once every wait has returned,
// instead of ending the program from a goroutine of WaitAll's.
func TestWaitAllRaisesAWaitsPanicInItsCaller(t *testing.T) {
	var other sync.WaitGroup
	other.Add(1)
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		_ = WaitAll(context.Background(), []string{"a", "b"}, func(ctx context.Context, id string) error {
			if id == "a" {
				panic("callback bug")
			}
			other.Done()
			return nil
		})
	}()
	assert.Equal(t, "callback bug", recovered)
	other.Wait() // the other wait ran to its end
}
