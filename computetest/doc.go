// Package computetest is a stateful in-memory fake of the whole Compute Resource Management API, for
// testing code that uses the compute SDK (or any HTTP client of the API) offline and in milliseconds.
//
//	srv := computetest.NewServer()
//	defer srv.Close()
//	c := srv.Client() // a *compute.Client wired to the fake
//	inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{...})
//
// The fake implements every operation of the contract with its status codes, envelopes and
// {code, message} error bodies: authentication (Bearer and the deprecated X-Auth-Token; a missing
// token is 02014, an unknown one 401, a read-only token 403 with 02043 on writes), the stated
// conditions (update and snapshot only when active, destroy limited by status and protection, start
// only when stopped, volumes only when available), references to a seeded catalogue (regions,
// instance types, images, SSH keys, volumes: see Catalog and DefaultCatalog), and lifecycles:
//
//	instance:        creating -> active; stop: stopping -> stopped; start: starting -> active;
//	                 reset: resetting -> active; delete: deleting -> gone (404)
//	security group:  creating -> created
//	floating IP:     creating -> created (the address is assigned then)
//
// Transitions take the durations set by WithDurations, zero by default (a create answers "creating"
// and the next read shows "active"), on the server's clock: time.Now, which inside a
// testing/synctest bubble is fake time (serve with WithInMemoryNetwork there), or any clock given
// with WithClock. Advance moves the clock forward.
//
// Where the contract is silent the fake makes a documented choice, stated on the handler or option
// concerned: a refused state change is a 400 (the contract lists no 409); references in a body to
// things that do not exist are 400 with their not-found code, while a missing resource named by the
// path is 404; unknown body fields are refused with 02002, stricter than the service, so that a
// misspelt field fails in tests; snapshots are complete at once; security-group reads omit status, as
// the contract's examples do.
//
// For tests of failure handling, Inject and FailNext add faults (an error status, latency, a dropped
// connection, or "process then drop" where the request takes effect but no answer arrives), and
// Requests returns every request received, with its escaped path, body and answer status. The token
// is never recorded. WithRateLimit enforces the service's rate limit (429 with Retry-After).
//
// cmd/compute-fake serves the same fake as a standalone program for other languages and tools.
package computetest
