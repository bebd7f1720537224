// Package compute is the Go SDK for the Compute Resource Management API, its 45 operations:
// instances (virtual machines), their actions, user metadata and snapshots, the account's
// snapshots, SSH keys, volumes, filesystems, security groups, floating IPs, images, quotas,
// reservations and instance availability per region. The README lists every operation with the
// method that sends it.
//
// # Getting started
//
//	c, err := compute.NewClient(token, compute.WithBaseURL("https://api.example.com"))
//	// or compute.NewClientFromEnv(), reading COMPUTE_API_TOKEN and COMPUTE_API_URL
//	inst, err := c.Instances.Create(ctx, &compute.InstanceCreateRequest{...})
//	inst, err = c.Instances.WaitForStatus(ctx, inst.ID, compute.InstanceStatusActive)
//
// A [Client] is immutable and safe for concurrent use; share one per token.
//
// # Authentication
//
// The token is sent as "Authorization: Bearer <token>" ([WithLegacyAuthHeader] switches to the
// deprecated X-Auth-Token), only to the base URL's scheme and host, never after a redirect to another
// host. It never appears in an error, a log line or the %v of any value. A plain-http base URL is
// refused unless it is loopback or [WithInsecureHTTP] is given.
//
// # Errors
//
// Every non-2xx response is an [*APIError] with the status, the service's [ErrorCode], the message,
// the request ID and the number of attempts. Match it with errors.Is against a sentinel
// ([ErrNotFound], [ErrConflict], [ErrRateLimited], ...) or a code ([CodeTerminationProtected], ...).
// Input the SDK can tell is wrong is refused before any request with a [*ValidationError] naming
// the field in its JSON spelling.
//
// # Retries, and why a POST is not retried
//
// A 429 means the request was not processed, so it is retried for every method after the wait the
// service asks (Retry-After). A 5xx, a network error or a response cut off mid-body is retried only
// for idempotent operations: GET, PUT, DELETE and PATCH (but for an attach or detach). A POST (an
// instance create, which is billed; an action; a snapshot) may have been processed when its
// response is lost, so it is re-sent only when it provably was not written (no connection, a
// failed TLS handshake); otherwise the error matches [ErrOutcomeUnknown], and the caller should look
// the resource up before trying again. A DELETE retried and then answered with the resource's
// not-found 404 succeeds. Waits use exponential backoff with full jitter ([RetryPolicy]).
//
// # Rate limiting
//
// A client-side limiter gates every attempt, retries included, for all goroutines sharing the
// client: 10 requests per second by default, the contract's rate ([WithRateLimit],
// [WithoutRateLimit]). After a 429 it also paces from the responses, and further 429s pause the
// whole client, so that concurrent callers back off together; [NewLimiter] describes the pacing.
// [WithLimiter] shares one limiter between clients or processes.
//
// # Pagination
//
// List methods return one [Page] with the service's counts. All methods return an iter.Seq2 that
// fetches pages as the loop reaches them and cannot loop forever: it stops on an empty or short
// page, at total_count, and with an error when the service ignores the page parameter.
//
//	for inst, err := range c.Instances.All(ctx, nil) { ... }
//
// # Waiting
//
// The WaitForStatus methods poll at once, then with jittered exponential backoff
// ([WithPollInterval]), until the target status, a failure status (an instance in "error"), a
// non-temporary error or the end of the context, which return a [*WaitError]; [OnUpdate] reports
// every poll. The WaitForDeletion methods wait until a deleted resource is gone. Waits on one kind
// of resource that run at once share their polling: one walk of the list serves them all
// ([WaitAll]).
//
// # Jobs: create once, delete and wait
//
// The CreateOnce methods make the resource's name the create's idempotency key: they adopt the
// resource with that name or create it, never twice ([InstancesService.CreateOnce]). The
// DeleteAndWait methods delete as soon as the service allows and wait until the resource is gone
// ([InstancesService.DeleteAndWait], which also gives the order of a teardown).
//
// # Observability
//
// An [Observer] ([WithObserver]) is told about every call, attempt, poll and page; the module
// github.com/compute-sdk/compute-go/otel builds OpenTelemetry instrumentation on it.
// [CaptureResponse] records how one call went. [WithLogger] logs each attempt at debug level;
// [WithDebugDump] writes whole exchanges, without the token.
//
// # Testing with computetest
//
// Package computetest (github.com/compute-sdk/compute-go/computetest) is a stateful in-memory fake
// of the whole API, with its status codes and error bodies, lifecycles, the rate limit, fault
// injection (such as a request processed whose response is lost) and a request log. Server.Client
// returns a Client wired to it; command compute-fake serves the same fake on a port.
//
//	srv := computetest.NewServer()
//	defer srv.Close()
//	c := srv.Client()
package compute
