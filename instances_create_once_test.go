package compute

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onceServer holds instances; a POST stores one (when store is set) and then drops the connection
// without a response, as a proxy that times out after the service processed the create.
type onceServer struct {
	mu        sync.Mutex
	instances []Instance
	posts     int
	store     bool
}

func (s *onceServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Method {
	case http.MethodGet:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"instances": s.instances, "total_count": len(s.instances), "page": 1, "per_page": 100})
	case http.MethodPost:
		s.posts++
		var req InstanceCreateRequest
		_ = json.NewDecoder(r.Body).Decode(&req)
		if s.store {
			s.instances = append(s.instances, Instance{ID: "ins-lost", Name: req.Name, Status: InstanceStatusCreating})
		}
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			_ = conn.Close()
		}
	}
}

// counts reads the server's counters under its lock.
func (s *onceServer) counts() (posts, instances int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.posts, len(s.instances)
}

func newOnceClient(t *testing.T, s *onceServer) *Client {
	t.Helper()
	srv := httptest.NewServer(s)
	t.Cleanup(srv.Close)
	c, err := NewClient("tok", WithBaseURL(srv.URL), WithoutRateLimit())
	require.NoError(t, err)
	return c
}

// TestCreateOnceAdoptsTheInstanceOfALostResponse: the create was processed but its response lost;
// CreateOnce returns the instance it made and never sends a second create, now or when called again.
func TestCreateOnceAdoptsTheInstanceOfALostResponse(t *testing.T) {
	t.Parallel()
	s := &onceServer{store: true}
	c := newOnceClient(t, s)
	req := validCreate()

	inst, err := c.Instances.CreateOnce(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "ins-lost", inst.ID)
	posts, _ := s.counts()
	assert.Equal(t, 1, posts)

	again, err := c.Instances.CreateOnce(context.Background(), req)
	require.NoError(t, err)
	assert.Equal(t, "ins-lost", again.ID, "a second call adopts it")
	posts, instances := s.counts()
	assert.Equal(t, 1, posts, "and sends no create")
	assert.Equal(t, 1, instances)
}

// TestCreateOnceWhenNothingWasCreated: a lost create that the service never processed leaves no
// instance; CreateOnce says so, still as ErrOutcomeUnknown, and does not send it again itself.
func TestCreateOnceWhenNothingWasCreated(t *testing.T) {
	t.Parallel()
	s := &onceServer{}
	c := newOnceClient(t, s)
	_, err := c.Instances.CreateOnce(context.Background(), validCreate())
	require.ErrorIs(t, err, ErrOutcomeUnknown)
	assert.Contains(t, err.Error(), "calling CreateOnce again is safe")
	posts, _ := s.counts()
	assert.Equal(t, 1, posts)
}

// TestCreateOnceRefusesAnAmbiguousName: with two instances of the name, it cannot choose, and
// creates nothing.
func TestCreateOnceRefusesAnAmbiguousName(t *testing.T) {
	t.Parallel()
	req := validCreate()
	s := &onceServer{instances: []Instance{{ID: "a", Name: req.Name}, {ID: "b", Name: req.Name}}}
	c := newOnceClient(t, s)
	_, err := c.Instances.CreateOnce(context.Background(), req)
	require.ErrorIs(t, err, ErrConflict)
	posts, _ := s.counts()
	assert.Zero(t, posts)

	_, err = c.Instances.CreateOnce(context.Background(), &InstanceCreateRequest{})
	require.ErrorIs(t, err, ErrInvalidRequest, "validated before any lookup")
}
