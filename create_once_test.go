package compute

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// onceServer is a service of one collection whose creates are always lost: a POST is processed when
// store is set (the item joins the collection) and then its connection is dropped without a
// response, as a proxy that times out after the service did the work. A new item shows in the list
// only from the lag-th list after its create on, as on a service whose list lags.
type onceServer struct {
	key   string         // the collection's key in a page ("instances")
	extra map[string]any // what a created item has beyond its request's fields

	mu      sync.Mutex
	items   []map[string]any
	pending []map[string]any // created, not listed yet
	lag     int              // lists left before pending items show
	store   bool             // a create is processed
	short   bool             // total_count says one item less than the list holds
	long    bool             // total_count says one item more than the list holds
	cut     bool             // a create is answered 201, its body cut short
	empty   bool             // a create is answered 201 with {}
	bigPage bool             // a page says per_page is twice what was asked for
	noPage2 bool             // page 2 comes empty, whatever total_count says
	after   func(page int)   // runs after a list's page is served, under the lock
	lists   int
	posts   int
}

// listedFields are the request fields that a created item keeps: those that the resources of the
// API show as they were given.
var listedFields = []string{"name", "region", "type", "size", "value", "version"}

func (s *onceServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Method == http.MethodPost {
		s.posts++
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		if s.store {
			item := map[string]any{"id": fmt.Sprintf("new-%d", s.posts), "status": "creating"}
			for _, k := range listedFields {
				if v, ok := body[k]; ok {
					item[k] = v
				}
			}
			for k, v := range s.extra {
				item[k] = v
			}
			s.pending = append(s.pending, item)
		}
		if s.empty {
			replyJSON(w, http.StatusCreated, map[string]any{})
			return
		}
		if s.cut {
			w.Header().Set("Content-Length", "500")
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"` + strings.TrimSuffix(s.key, "s") + `": {"id": "new`))
			w.(http.Flusher).Flush()
		}
		panic(http.ErrAbortHandler) // the connection closes: no response, or a cut one
	}
	s.lists++
	if s.lag > 0 && len(s.pending) > 0 {
		s.lag--
	} else {
		s.items, s.pending = append(s.items, s.pending...), nil
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	perPage, _ := strconv.Atoi(r.URL.Query().Get("per_page"))
	from, to := min((page-1)*perPage, len(s.items)), min(page*perPage, len(s.items))
	total := len(s.items)
	if s.short {
		total--
	}
	if s.long {
		total++
	}
	items := s.items[from:to]
	if s.noPage2 && page == 2 {
		items = nil
	}
	if s.bigPage {
		perPage *= 2
	}
	replyJSON(w, http.StatusOK, map[string]any{s.key: items, "total_count": total, "page": page, "per_page": perPage})
	if s.after != nil {
		s.after(page)
	}
}

// others fills the list with n resources of the kind named "other", a full page for n of
// MaxPerPage.
func (s *onceServer) others(k onceKind, n int) {
	for i := range n {
		s.items = append(s.items, k.item(fmt.Sprintf("x%d", i), "other"))
	}
}

// counts reads the server's counters under its lock.
func (s *onceServer) counts() (posts, lists int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.posts, s.lists
}

// onceKind is one kind's CreateOnce, driven by name.
type onceKind struct {
	name  string
	key   string
	extra map[string]any
	// create calls the kind's CreateOnce for a resource named name, in region (for the kinds that
	// have one), and returns its ID.
	create func(ctx context.Context, c *Client, name string, opts ...OnceOption) (string, error)
	// find calls the kind's FindByName and returns the IDs found.
	find func(ctx context.Context, c *Client, name string) ([]string, error)
}

const (
	onceRegion    = "NORD-NO-KRS-1"
	onceSize      = 50
	oncePublicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGm2b0m6XfL1cJ8g0QkQ5h1rT2yJ8eYk0pS3nV4wX5zA me@laptop"
)

// onceKinds are every kind that has a CreateOnce.
var onceKinds = []onceKind{
	{"instance", "instances", nil,
		func(ctx context.Context, c *Client, name string, opts ...OnceOption) (string, error) {
			req := validCreate()
			req.Name, req.Region = name, onceRegion
			return idOrErr(c.Instances.CreateOnce(ctx, req, opts...))
		},
		func(ctx context.Context, c *Client, name string) ([]string, error) {
			return idsOf(c.Instances.FindByName(ctx, name))
		}},
	{"SSH key", "ssh_keys", nil,
		func(ctx context.Context, c *Client, name string, opts ...OnceOption) (string, error) {
			return idOrErr(c.SSHKeys.CreateOnce(ctx, &SSHKeyCreateRequest{Name: name, Value: oncePublicKey}, opts...))
		},
		func(ctx context.Context, c *Client, name string) ([]string, error) {
			return idsOf(c.SSHKeys.FindByName(ctx, name))
		}},
	{"security group", "security_groups", nil,
		func(ctx context.Context, c *Client, name string, opts ...OnceOption) (string, error) {
			req := &SecurityGroupCreateRequest{Name: name, Region: onceRegion, Rules: []SecurityGroupRule{}}
			return idOrErr(c.SecurityGroups.CreateOnce(ctx, req, opts...))
		},
		func(ctx context.Context, c *Client, name string) ([]string, error) {
			return idsOf(c.SecurityGroups.FindByName(ctx, name))
		}},
	{"floating IP", "floating_ips", nil,
		func(ctx context.Context, c *Client, name string, opts ...OnceOption) (string, error) {
			return idOrErr(c.FloatingIPs.CreateOnce(ctx, &FloatingIPCreateRequest{Name: name, Region: onceRegion}, opts...))
		},
		func(ctx context.Context, c *Client, name string) ([]string, error) {
			return idsOf(c.FloatingIPs.FindByName(ctx, name))
		}},
	{"volume", "volumes", nil,
		func(ctx context.Context, c *Client, name string, opts ...OnceOption) (string, error) {
			req := &VolumeCreateRequest{Name: name, Region: onceRegion, Size: onceSize, Type: VolumeTypeSSD}
			return idOrErr(c.Volumes.CreateOnce(ctx, req, opts...))
		},
		func(ctx context.Context, c *Client, name string) ([]string, error) {
			return idsOf(c.Volumes.FindByName(ctx, name))
		}},
	{"filesystem", "filesystems", nil,
		func(ctx context.Context, c *Client, name string, opts ...OnceOption) (string, error) {
			req := &FilesystemCreateRequest{Name: name, Region: onceRegion, Size: onceSize}
			return idOrErr(c.Filesystems.CreateOnce(ctx, req, opts...))
		},
		func(ctx context.Context, c *Client, name string) ([]string, error) {
			return idsOf(c.Filesystems.FindByName(ctx, name))
		}},
	{"snapshot of an instance", "snapshots", map[string]any{"source_instance_id": "ins-1"},
		func(ctx context.Context, c *Client, name string, opts ...OnceOption) (string, error) {
			return idOrErr(c.Snapshots.CreateOnce(ctx, "ins-1", &SnapshotCreateRequest{Name: name}, opts...))
		},
		func(ctx context.Context, c *Client, name string) ([]string, error) {
			return idsOf(c.Snapshots.FindByName(ctx, name))
		}},
	{"snapshot clone", "snapshots", map[string]any{"source_snapshot_id": "snap-1"},
		func(ctx context.Context, c *Client, name string, opts ...OnceOption) (string, error) {
			return idOrErr(c.Snapshots.CloneOnce(ctx, "snap-1", &SnapshotCloneRequest{Name: name, Region: onceRegion}, opts...))
		},
		func(ctx context.Context, c *Client, name string) ([]string, error) {
			return idsOf(c.Snapshots.FindByName(ctx, name))
		}},
	{"snapshot import", "snapshots", nil,
		func(ctx context.Context, c *Client, name string, opts ...OnceOption) (string, error) {
			req := &SnapshotImportRequest{Name: name, Region: onceRegion, Size: onceSize, URL: "https://example.com/disk.raw"}
			return idOrErr(c.Snapshots.ImportOnce(ctx, req, opts...))
		},
		func(ctx context.Context, c *Client, name string) ([]string, error) {
			return idsOf(c.Snapshots.FindByName(ctx, name))
		}},
}

func idOrErr[T any](v *T, err error) (string, error) {
	if err != nil {
		return "", err
	}
	id, _ := stringField(*v, "ID")
	return id, nil
}

func idsOf[T any](vs []T, err error) ([]string, error) {
	var ids []string
	for _, v := range vs {
		id, _ := stringField(v, "ID")
		ids = append(ids, id)
	}
	return ids, err
}

// forEachKind runs f for every kind in a synctest bubble, with a client of a fresh onceServer.
func forEachKind(t *testing.T, f func(t *testing.T, k onceKind, s *onceServer, c *Client)) {
	for _, k := range onceKinds {
		t.Run(k.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &onceServer{key: k.key, extra: k.extra}
				c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
				f(t, k, s, c)
			})
		})
	}
}

// item is an existing resource of the kind: named name, matching what the kind's create asks for.
func (k onceKind) item(id, name string) map[string]any {
	item := map[string]any{"id": id, "name": name, "region": onceRegion, "size": onceSize, "status": "created"}
	switch k.key {
	case "ssh_keys":
		item["value"] = oncePublicKey
	case "instances":
		item["type"] = validCreate().Type
	case "volumes":
		item["type"] = string(VolumeTypeSSD)
	}
	for key, v := range k.extra {
		item[key] = v
	}
	return item
}

// TestCreateOnceAdoptsALostCreate: the create was processed and its response lost; CreateOnce
// returns what it made and never sends a second create, now or when called again.
func TestCreateOnceAdoptsALostCreate(t *testing.T) {
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		s.store = true
		id, err := k.create(context.Background(), c, "web-1")
		require.NoError(t, err)
		assert.Equal(t, "new-1", id)
		id, err = k.create(context.Background(), c, "web-1")
		require.NoError(t, err)
		assert.Equal(t, "new-1", id, "a second call adopts it")
		posts, _ := s.counts()
		assert.Equal(t, 1, posts, "one create in all")
		ids, err := k.find(context.Background(), c, "web-1")
		require.NoError(t, err)
		assert.Equal(t, []string{"new-1"}, ids)
	})
}

// TestCreateOnceWaitsForALaggingList: the list shows the lost create's resource only a few lists
// later; CreateOnce keeps looking within the settle time and adopts it, with one create.
func TestCreateOnceWaitsForALaggingList(t *testing.T) {
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		s.store, s.lag = true, 3
		start := time.Now()
		id, err := k.create(context.Background(), c, "web-1")
		require.NoError(t, err)
		assert.Equal(t, "new-1", id)
		posts, lists := s.counts()
		assert.Equal(t, 1, posts)
		assert.Equal(t, 5, lists, "the lookup before, then four after the create")
		assert.Less(t, time.Since(start), DefaultSettleTime)
	})
}

// TestCreateOnceReportsNothingCreated: a lost create that was never processed leaves nothing; after
// the settle time CreateOnce says so with ErrNotCreated, which is not ErrOutcomeUnknown, and sends
// the create again only when asked to.
func TestCreateOnceReportsNothingCreated(t *testing.T) {
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		start := time.Now()
		_, err := k.create(context.Background(), c, "web-1")
		require.ErrorIs(t, err, ErrNotCreated)
		assert.NotErrorIs(t, err, ErrOutcomeUnknown)
		assert.Contains(t, err.Error(), "creating it again is safe")
		assert.GreaterOrEqual(t, time.Since(start), DefaultSettleTime, "not before the settle time")
		posts, _ := s.counts()
		assert.Equal(t, 1, posts)

		_, err = k.create(context.Background(), c, "web-1", WithSettleTime(5*time.Second), RetryNotCreated(1))
		require.ErrorIs(t, err, ErrNotCreated)
		posts, _ = s.counts()
		assert.Equal(t, 3, posts, "sent again once more when asked")

		s.mu.Lock()
		s.store = true
		s.mu.Unlock()
		id, err := k.create(context.Background(), c, "web-1", RetryNotCreated(1))
		require.NoError(t, err)
		assert.Equal(t, "new-4", id)
	})
}

// TestCreateOnceNeverCallsAnAcceptedCreateNotCreated: the service answered the create 201 and the
// body was cut; its resource does not show by the name (a service that changed it, say). That is
// not "nothing was created": the error matches ErrOutcomeUnknown, and RetryNotCreated sends
// nothing more.
func TestCreateOnceNeverCallsAnAcceptedCreateNotCreated(t *testing.T) {
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		s.cut = true
		_, err := k.create(context.Background(), c, "web-1", WithSettleTime(5*time.Second), RetryNotCreated(2))
		require.ErrorIs(t, err, ErrOutcomeUnknown)
		assert.NotErrorIs(t, err, ErrNotCreated)
		assert.Contains(t, err.Error(), "status 201")
		assert.Contains(t, err.Error(), "the service accepted the create")
		posts, _ := s.counts()
		assert.Equal(t, 1, posts)
	})
}

// TestCreateOnceNeverCallsAnEmptyCreatedNotCreated: a create answered 201 with {} was accepted as
// surely as one whose body was cut: never "not created", never sent again.
func TestCreateOnceNeverCallsAnEmptyCreatedNotCreated(t *testing.T) {
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		s.empty = true
		_, err := k.create(context.Background(), c, "web-1", WithSettleTime(5*time.Second), RetryNotCreated(2))
		require.ErrorIs(t, err, ErrOutcomeUnknown)
		assert.NotErrorIs(t, err, ErrNotCreated)
		assert.Contains(t, err.Error(), "the service accepted the create")
		posts, _ := s.counts()
		assert.Equal(t, 1, posts)
	})
}

// TestCreateOnceRefusesAnAmbiguousName: two resources with the name already decide it: CreateOnce
// reads no further page and creates nothing.
func TestCreateOnceRefusesAnAmbiguousName(t *testing.T) {
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		s.items = []map[string]any{k.item("a", "web-1"), k.item("b", "web-1")}
		s.others(k, 300*MaxPerPage)
		_, err := k.create(context.Background(), c, "web-1")
		var nameErr *NameError
		require.ErrorAs(t, err, &nameErr)
		assert.ErrorIs(t, err, ErrConflict)
		assert.Equal(t, []string{"a", "b"}, nameErr.IDs)
		posts, lists := s.counts()
		assert.Zero(t, posts)
		assert.Equal(t, 1, lists, "two matches on the first page end the lookup")
	})
}

// TestCreateOnceAdoptsOnlyAMatch: a resource with the name that is going away, or that is not what
// the request would make, is not adopted; nothing is created. A longer name is another name.
func TestCreateOnceAdoptsOnlyAMatch(t *testing.T) {
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		deleting := k.item("a", "web-1")
		deleting["status"] = "deleting"
		if k.key == "ssh_keys" {
			deleting["value"] = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH4x9Jk2Q7v5Zp1cW3mN8bR6tY0uE2oI4aS6dF8gH0jK other"
		}
		s.items = []map[string]any{deleting, k.item("b", "web-10")}
		_, err := k.create(context.Background(), c, "web-1")
		var nameErr *NameError
		require.ErrorAs(t, err, &nameErr)
		assert.Equal(t, []string{"a"}, nameErr.IDs, "web-10 is not web-1")

		if k.key != "ssh_keys" {
			elsewhere := k.item("c", "web-2")
			elsewhere["region"] = "EUC-DE-MUC-1"
			if k.extra["source_instance_id"] != nil {
				elsewhere["source_instance_id"] = "ins-2"
			}
			s.mu.Lock()
			s.items = append(s.items, elsewhere)
			s.mu.Unlock()
			_, err = k.create(context.Background(), c, "web-2")
			if k.extra["source_instance_id"] != nil {
				require.ErrorContains(t, err, `of instance "ins-2", not of the one asked for`, "the instance's list itself is refused")
			} else {
				require.ErrorAs(t, err, &nameErr)
				assert.Contains(t, nameErr.Reason, "region EUC-DE-MUC-1")
			}
		}
		posts, _ := s.counts()
		assert.Zero(t, posts)
	})
}

// TestCreateOnceRefusesWhatTheRequestWouldNotMake: a resource with the name that is in error, or
// differs from the request in what the kind compares (an instance's type, a volume's type and size,
// a filesystem's size, a floating IP's version, an SSH key's public key), is reported with the
// reason, and nothing is created. Every kind has at least one such case.
func TestCreateOnceRefusesWhatTheRequestWouldNotMake(t *testing.T) {
	type change struct {
		field  string
		value  any
		reason string
	}
	changes := map[string][]change{
		"instance":    {{"type", "vcpu-64_memory-256g", "is of type vcpu-64_memory-256g, not n1.large"}},
		"volume":      {{"type", "hdd", "is hdd, not ssd"}, {"size", 99, "holds 99 GiB, not 50"}},
		"filesystem":  {{"size", 99, "holds 99 GiB, not 50"}},
		"floating IP": {{"version", "ipv6", "is ipv6, not ipv4"}},
		"SSH key":     {{"value", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH4x9Jk2Q7v5Zp1cW3mN8bR6tY0uE2oI4aS6dF8gH0jK other", "holds another public key"}},
		"security group": {{"rules", []map[string]any{{"protocol": "tcp", "direction": "ingress", "port_range_min": 22, "port_range_max": 22}},
			"holds other rules"}},
		"snapshot clone": {
			{"source_snapshot_id", "snap-9", "is not a copy of snap-1"},
			{"source_snapshot_id", nil, "is not a copy of snap-1"}, // imported, or a source the service does not say
			{"region", "EUC-DE-MUC-1", "is in region EUC-DE-MUC-1"},
		},
		"snapshot import": {
			{"size", 10, "holds 10 GiB, not 50"},
			{"source_instance_id", "ins-1", "was not imported"},
			{"source_snapshot_id", "snap-1", "was not imported"},
		},
	}
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		cases := changes[k.name]
		if k.key != "ssh_keys" {
			cases = append(cases, change{"status", "error", "is error"})
		}
		require.NotEmpty(t, cases)
		for i, ch := range cases {
			name := fmt.Sprintf("web-%d", i)
			item := k.item(fmt.Sprintf("id-%d", i), name)
			item[ch.field] = ch.value
			s.mu.Lock()
			s.items = append(s.items, item)
			s.mu.Unlock()
			_, err := k.create(context.Background(), c, name)
			var nameErr *NameError
			require.ErrorAs(t, err, &nameErr, "%s %v", ch.field, ch.value)
			assert.Contains(t, nameErr.Reason, ch.reason)
		}
		posts, _ := s.counts()
		assert.Zero(t, posts)
	})
}

// TestCloneOnceNeverAdoptsItsSource: cloning a snapshot under its own name finds the source itself,
// and a snapshot taken of an instance with the name is no copy either: neither is adopted, nothing
// is created.
func TestCloneOnceNeverAdoptsItsSource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &onceServer{key: "snapshots"}
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		source := map[string]any{"id": "snap-1", "name": "golden", "region": onceRegion, "size": 50, "status": "created"}
		taken := map[string]any{"id": "snap-2", "name": "nightly", "region": onceRegion, "size": 50, "status": "created",
			"source_instance_id": "ins-1"}
		s.items = []map[string]any{source, taken}
		for name, reason := range map[string]string{"golden": "is the snapshot to copy", "nightly": "is not a copy of snap-1"} {
			_, err := c.Snapshots.CloneOnce(context.Background(), "snap-1", &SnapshotCloneRequest{Name: name, Region: onceRegion})
			var nameErr *NameError
			require.ErrorAs(t, err, &nameErr, name)
			assert.Contains(t, nameErr.Reason, reason)
		}
		posts, _ := s.counts()
		assert.Zero(t, posts)
	})
}

// TestInstanceCreateOnceKeepsItsProtection: a request for a protected instance does not adopt an
// unprotected one; an unprotected request adopts a protected one (the service protects long-term
// billed instances on its own).
func TestInstanceCreateOnceKeepsItsProtection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := onceKinds[0]
		s := &onceServer{key: k.key}
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		open, guarded := k.item("i-1", "open"), k.item("i-2", "guarded")
		open["is_protected"], guarded["is_protected"] = false, true
		s.items = []map[string]any{open, guarded}
		req := validCreate()
		req.Name, req.Region, req.IsProtected = "open", onceRegion, true
		_, err := c.Instances.CreateOnce(context.Background(), req)
		var nameErr *NameError
		require.ErrorAs(t, err, &nameErr)
		assert.Contains(t, nameErr.Reason, "is not termination protected")
		req.Name, req.IsProtected = "guarded", false
		v, err := c.Instances.CreateOnce(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, "i-2", v.ID)
		posts, _ := s.counts()
		assert.Zero(t, posts)
	})
}

// TestCreateOnceLookupIsBounded: a list that serves full pages of other resources forever, with a
// total_count of one page, ends the lookup after that page and one more with an error; nothing is
// created.
func TestCreateOnceLookupIsBounded(t *testing.T) {
	var n atomic.Int64
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		items := make([]map[string]any, MaxPerPage)
		for i := range items {
			items[i] = map[string]any{"id": fmt.Sprint(n.Add(1)), "name": "other"}
		}
		replyJSON(w, http.StatusOK, map[string]any{"instances": items, "total_count": 5})
	}, WithoutRateLimit())
	_, err := c.Instances.CreateOnce(context.Background(), validCreate())
	require.ErrorContains(t, err, "stopping the walk")
	assert.Equal(t, 2, rec.count(), "total_count's page and one more, then no create")
}

// TestCreateOnceReadsPastAShortTotalCount: the resource is the first of a second page whose
// total_count says the list ends with the first; the lookup reads to the short page and adopts it.
func TestCreateOnceReadsPastAShortTotalCount(t *testing.T) {
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		s.others(k, MaxPerPage)
		s.items = append(s.items, k.item("mine", "web-1"))
		s.short = true
		id, err := k.create(context.Background(), c, "web-1")
		require.NoError(t, err)
		assert.Equal(t, "mine", id)
		posts, _ := s.counts()
		assert.Zero(t, posts)
	})
}

// TestCreateOnceReadsPastAPageThatClaimsMore: a page holding the 100 items asked for but saying
// per_page 200 is full all the same: the lookup reads the next page, where the name is.
func TestCreateOnceReadsPastAPageThatClaimsMore(t *testing.T) {
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		s.others(k, MaxPerPage)
		s.items = append(s.items, k.item("mine", "web-1"))
		s.bigPage = true
		id, err := k.create(context.Background(), c, "web-1")
		require.NoError(t, err)
		assert.Equal(t, "mine", id)
		posts, _ := s.counts()
		assert.Zero(t, posts)
	})
}

// TestCreateOnceWalksAgainWhenTheListShifts: another job deletes a resource of page 1 while the
// lookup reads it, which moves the one with the name from page 2 onto page 1, already read. The
// pages disagree (total_count changed), so the lookup walks again, finds it and creates nothing.
func TestCreateOnceWalksAgainWhenTheListShifts(t *testing.T) {
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		s.others(k, MaxPerPage)
		s.items = append(s.items, k.item("mine", "web-1"))
		s.after = func(page int) {
			if page == 1 && s.lists == 1 {
				s.items = s.items[1:] // x0 deleted
			}
		}
		id, err := k.create(context.Background(), c, "web-1")
		require.NoError(t, err)
		assert.Equal(t, "mine", id)
		posts, _ := s.counts()
		assert.Zero(t, posts)
	})
}

// TestCreateOnceIsUnsureWhenThePagesDisagree: after a lost create, every lookup's page 2 comes empty
// though total_count says it holds more: the resource may be there, unseen. That is not "nothing
// was created": the error matches ErrOutcomeUnknown, and RetryNotCreated sends nothing more.
func TestCreateOnceIsUnsureWhenThePagesDisagree(t *testing.T) {
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		s.others(k, MaxPerPage)
		s.store, s.noPage2 = true, true
		_, err := k.create(context.Background(), c, "web-1", WithSettleTime(5*time.Second), RetryNotCreated(1))
		require.ErrorIs(t, err, ErrOutcomeUnknown)
		assert.NotErrorIs(t, err, ErrNotCreated)
		assert.Contains(t, err.Error(), "pages disagreed")
		posts, _ := s.counts()
		assert.Equal(t, 1, posts)
	})
}

// TestCreateOnceValidatesFirst: a bad request is refused before any lookup, and a nil one is an
// error, not a panic.
func TestCreateOnceValidatesFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {})
		ctx := context.Background()
		_, err := c.Instances.CreateOnce(ctx, nil)
		require.ErrorIs(t, err, ErrInvalidRequest)
		_, err = c.Instances.CreateOnce(ctx, &InstanceCreateRequest{})
		require.ErrorIs(t, err, ErrInvalidRequest)
		_, err = c.SSHKeys.CreateOnce(ctx, nil)
		require.ErrorIs(t, err, ErrInvalidRequest)
		_, err = c.Snapshots.CreateOnce(ctx, "a/b", &SnapshotCreateRequest{Name: "s"})
		require.ErrorIs(t, err, ErrInvalidRequest)
		_, err = c.Instances.CreateOnce(ctx, validCreate(), WithSettleTime(0))
		require.ErrorIs(t, err, ErrInvalidRequest)
		assert.Zero(t, rec.count())
	})
}

// TestAdoptOnlyOwnCreatesBesideWhatWasThere: with AdoptOnlyOwn, a matching resource that already has
// the name is not adopted: the create is sent (once), and what it made is returned.
func TestAdoptOnlyOwnCreatesBesideWhatWasThere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{names: []string{"other", "web-1"}}
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		req := validCreate()
		req.Name = "web-1"
		v, err := c.Instances.CreateOnce(context.Background(), req, AdoptOnlyOwn())
		require.NoError(t, err)
		assert.Equal(t, "i-3", v.ID, "the new one, not the colleague's i-2")
		assert.Equal(t, 1, s.posts)
		v, err = c.Instances.CreateOnce(context.Background(), req)
		require.ErrorIs(t, err, ErrConflict, "without the option, two with the name are refused")
		assert.Nil(t, v)
	})
}

// TestAdoptOnlyOwnAdoptsOnlyWhatItsCreateMade: with AdoptOnlyOwn and a lost create, the lookup after
// it finds the resource that was there and the one the create made: the new one is adopted (not a
// "several have the name" refusal); a lost create that made nothing is ErrNotCreated, the old one
// never adopted. A new one that does not match is refused.
func TestAdoptOnlyOwnAdoptsOnlyWhatItsCreateMade(t *testing.T) {
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		s.items = []map[string]any{k.item("theirs", "web-1")}
		s.store = true
		id, err := k.create(context.Background(), c, "web-1", AdoptOnlyOwn())
		require.NoError(t, err)
		assert.Equal(t, "new-1", id)

		s.mu.Lock()
		s.store = false
		s.mu.Unlock()
		_, err = k.create(context.Background(), c, "web-2", AdoptOnlyOwn()) // nothing has it
		require.ErrorIs(t, err, ErrNotCreated)
		s.mu.Lock()
		s.items = append(s.items, k.item("theirs-3", "web-3"))
		s.mu.Unlock()
		_, err = k.create(context.Background(), c, "web-3", AdoptOnlyOwn(), WithSettleTime(5*time.Second))
		require.ErrorIs(t, err, ErrNotCreated, "the resource that was there is not what the create made")
		posts, _ := s.counts()
		assert.Equal(t, 3, posts)

		s.mu.Lock()
		s.store = true
		s.extra = map[string]any{"status": "error"}
		if k.key == "ssh_keys" {
			s.extra = map[string]any{"value": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIH4x9Jk2Q7v5Zp1cW3mN8bR6tY0uE2oI4aS6dF8gH0jK other"}
		}
		for key, v := range k.extra {
			s.extra[key] = v
		}
		s.mu.Unlock()
		_, err = k.create(context.Background(), c, "web-3", AdoptOnlyOwn())
		var nameErr *NameError
		require.ErrorAs(t, err, &nameErr)
		assert.Equal(t, []string{"new-4"}, nameErr.IDs, "only the new one is weighed")
		assert.ErrorIs(t, err, ErrOutcomeUnknown)
	})
}

// TestEveryJobRefusesANilContext: CreateOnce, CloneOnce, ImportOnce (with and without AdoptOnlyOwn),
// FindByName, DeleteAndWait, WaitForDeletion of every kind, and WaitAll refuse a nil context with a
// *ValidationError naming ctx, before sending anything and without a panic, as every call does.
func TestEveryJobRefusesANilContext(t *testing.T) {
	var nilCtx context.Context
	for _, k := range onceKinds {
		t.Run(k.name, func(t *testing.T) {
			c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				replyRaw(w, http.StatusInternalServerError, "the request should have been refused")
			})
			_, err := k.create(nilCtx, c, "web-1")
			requireInvalid(t, err, "ctx", rec)
			_, err = k.create(nilCtx, c, "web-1", AdoptOnlyOwn())
			requireInvalid(t, err, "ctx", rec)
			_, err = k.find(nilCtx, c, "web-1")
			requireInvalid(t, err, "ctx", rec)
		})
	}
	c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		replyRaw(w, http.StatusInternalServerError, "the request should have been refused")
	})
	jobs := map[string]func() error{
		"Instances.DeleteAndWait":        func() error { return c.Instances.DeleteAndWait(nilCtx, "x") },
		"Instances.WaitForDeletion":      func() error { return c.Instances.WaitForDeletion(nilCtx, "x") },
		"SSHKeys.DeleteAndWait":          func() error { return c.SSHKeys.DeleteAndWait(nilCtx, "x") },
		"SSHKeys.WaitForDeletion":        func() error { return c.SSHKeys.WaitForDeletion(nilCtx, "x") },
		"SecurityGroups.DeleteAndWait":   func() error { return c.SecurityGroups.DeleteAndWait(nilCtx, "x") },
		"SecurityGroups.WaitForDeletion": func() error { return c.SecurityGroups.WaitForDeletion(nilCtx, "x") },
		"FloatingIPs.DeleteAndWait":      func() error { return c.FloatingIPs.DeleteAndWait(nilCtx, "x") },
		"FloatingIPs.WaitForDeletion":    func() error { return c.FloatingIPs.WaitForDeletion(nilCtx, "x") },
		"Volumes.DeleteAndWait":          func() error { return c.Volumes.DeleteAndWait(nilCtx, "x") },
		"Volumes.WaitForDeletion":        func() error { return c.Volumes.WaitForDeletion(nilCtx, "x") },
		"Filesystems.DeleteAndWait":      func() error { return c.Filesystems.DeleteAndWait(nilCtx, "x") },
		"Filesystems.WaitForDeletion":    func() error { return c.Filesystems.WaitForDeletion(nilCtx, "x") },
		"Snapshots.DeleteAndWait":        func() error { return c.Snapshots.DeleteAndWait(nilCtx, "x") },
		"Snapshots.WaitForDeletion":      func() error { return c.Snapshots.WaitForDeletion(nilCtx, "x") },
		"WaitAll": func() error {
			return WaitAll(nilCtx, []string{"a", "b"}, func(ctx context.Context, id string) error {
				t.Error("WaitAll ran a wait with a nil context")
				return nil
			})
		},
	}
	for name, job := range jobs {
		t.Run(name, func(t *testing.T) { requireInvalid(t, job(), "ctx", rec) })
	}
}

// TestEveryJobRefusesAnEmptyName: FindByName of every kind refuses an empty name with a
// *ValidationError naming name, before sending anything (it would read the whole list for a name no
// resource can have); so does CreateOnce (CloneOnce, ImportOnce), with and without AdoptOnlyOwn,
// whose name is its idempotency key.
func TestEveryJobRefusesAnEmptyName(t *testing.T) {
	for _, k := range onceKinds {
		t.Run(k.name, func(t *testing.T) {
			c, rec := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				replyRaw(w, http.StatusInternalServerError, "the request should have been refused")
			})
			_, err := k.find(context.Background(), c, "")
			requireInvalid(t, err, "name", rec)
			_, err = k.create(context.Background(), c, "")
			requireInvalid(t, err, "name", rec)
			_, err = k.create(context.Background(), c, "", AdoptOnlyOwn())
			requireInvalid(t, err, "name", rec)
		})
	}
}

// TestSharedLookupWalksOncePerMaxAge: CreateOnce calls one after another with SharedLookup, as a
// Terraform apply makes them, take their lookups from one walk of the list while it is younger
// than maxAge (four reads of three pages: page 1 twice), and walk again once it is older; without
// the option each call walks. Each call creates its instance once, and a name the walk showed is
// still found: the walk kept every name it read.
func TestSharedLookupWalksOncePerMaxAge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{}
		for i := range 250 {
			s.names = append(s.names, fmt.Sprint("other-", i))
		}
		s.names = append(s.names, "web-x")
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		lists := func() int { s.mu.Lock(); defer s.mu.Unlock(); return s.lists }
		for i := range 20 {
			req := validCreate()
			req.Name = fmt.Sprint("web-", i)
			_, err := c.Instances.CreateOnce(context.Background(), req, SharedLookup(time.Minute), AdoptOnlyOwn())
			require.NoError(t, err)
			time.Sleep(time.Second)
		}
		assert.Equal(t, 4, lists(), "one walk for twenty calls within a minute")
		assert.Equal(t, 20, s.posts)

		// The name the walk showed is found: without AdoptOnlyOwn it is adopted, not made again.
		req := validCreate()
		req.Name = "web-x"
		v, err := c.Instances.CreateOnce(context.Background(), req, SharedLookup(time.Minute))
		require.NoError(t, err)
		assert.Equal(t, "i-251", v.ID)
		assert.Equal(t, 20, s.posts)
		assert.Equal(t, 4, lists())

		time.Sleep(time.Minute) // the walk is older than maxAge now
		req.Name = "web-20"
		_, err = c.Instances.CreateOnce(context.Background(), req, SharedLookup(time.Minute))
		require.NoError(t, err)
		assert.Equal(t, 8, lists(), "a walk older than maxAge answers nothing")

		req.Name = "web-21"
		_, err = c.Instances.CreateOnce(context.Background(), req)
		require.NoError(t, err)
		assert.Equal(t, 12, lists(), "without the option, a lookup walks")
		_, err = c.Instances.CreateOnce(context.Background(), req, SharedLookup(0))
		require.ErrorIs(t, err, ErrInvalidRequest)
	})
}

// TestSharedLookupNeverAnswersAfterALostCreate: the lookups after a create whose response was lost
// walk the list afresh, whatever SharedLookup allows, so that they see what the create made: it is
// adopted, and with AdoptOnlyOwn a resource that had the name in the shared walk is not.
func TestSharedLookupNeverAnswersAfterALostCreate(t *testing.T) {
	forEachKind(t, func(t *testing.T, k onceKind, s *onceServer, c *Client) {
		s.items = []map[string]any{k.item("theirs", "web-1")}
		s.store = true
		_, err := k.create(context.Background(), c, "web-0", SharedLookup(time.Hour)) // the walk to share
		require.NoError(t, err)
		_, lists := s.counts()

		id, err := k.create(context.Background(), c, "web-1", SharedLookup(time.Hour), AdoptOnlyOwn())
		require.NoError(t, err)
		assert.Equal(t, "new-2", id, "what the create made, not the resource that had the name")
		posts, after := s.counts()
		assert.Equal(t, 2, posts)
		assert.Greater(t, after, lists, "the lookup after the lost create walked afresh")
	})
}

// TestSharedLookupKeepsNoWalkOfAHugeList: a walk of more than 10,000 resources is not kept for
// later lookups (its memory would outlive the calls): each call walks.
func TestSharedLookupKeepsNoWalkOfAHugeList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &fleetServer{}
		for i := range maxIndexed + 1 {
			s.names = append(s.names, fmt.Sprint("other-", i))
		}
		c, _ := newTestClient(t, s.ServeHTTP, WithoutRateLimit())
		for i := range 2 {
			req := validCreate()
			req.Name = fmt.Sprint("web-", i)
			_, err := c.Instances.CreateOnce(context.Background(), req, SharedLookup(time.Hour), AdoptOnlyOwn())
			require.NoError(t, err)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		assert.Equal(t, 2*(maxIndexed/MaxPerPage+2), s.lists, "two walks of 101 pages, page 1 twice")
	})
}
