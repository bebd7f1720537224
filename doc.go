// Package compute is the Go SDK for the Compute Resource Management API, the whole compute family
// of 45 operations: instances (virtual machines), their actions, user metadata and snapshots, the
// account's snapshots collection, SSH keys, volumes, filesystems, security groups, floating IPs,
// images, quotas, reservations and instance availability per region. The README lists every
// operation with the method that sends it.
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
// Every non-2xx response is an [*APIError] with the status, the service's five-digit [ErrorCode], the
// message, the request ID and the number of attempts. Match it with errors.Is, against a sentinel
// of its status ([ErrNotFound], [ErrForbidden], [ErrRateLimited], ...) or against a code
// ([CodeTerminationProtected], ...), or take it with errors.As. Input the SDK can tell is wrong is
// refused before any request with a [*ValidationError] naming the field in its JSON spelling; it
// matches [ErrInvalidRequest].
//
// # Retries, and why a POST is not retried
//
// A 429 means the request was not processed, so it is retried for every method after the wait the
// service asks (Retry-After, capped by [RetryPolicy].MaxWait). A 500, 502, 503, 504, a network
// error or a success response cut off while its body is read is retried only for idempotent
// operations: GET, PUT, DELETE and this API's PATCH (but for an attach or detach). A POST (create an
// instance, which is billed; start, stop or reset; snapshot; create a security group or floating
// IP) may have been processed when its response is lost, so it is never re-sent: the error matches
// [ErrOutcomeUnknown], and the caller should look the resource up before trying again. Only a POST
// that provably was not written (no connection, a failed TLS handshake, a timeout while connecting)
// is retried. A DELETE retried after a 5xx or a lost response and then refused with the resource's
// not-found 404 succeeds: the earlier attempt deleted the resource. Any other refusal after such an
// attempt matches [ErrOutcomeUnknown] too, since it can be about what the earlier attempt did.
// Waits use exponential backoff with full jitter and end when the context ends; see [RetryPolicy].
//
// # Rate limiting
//
// A client-side limiter, 10 requests per second by default as the contract states, gates every
// attempt, retries included, for all goroutines sharing the client ([WithRateLimit],
// [WithoutRateLimit]). It paces a little under the rate and adapts to 429s (after one, it also
// paces from the responses), so that it holds the rate against a service that allows no burst. A
// 429 pauses the whole client, so concurrent callers back off together instead of feeding a storm:
// for one interval after a lone 429 asking for at most a second (a pacing error), for the wait the
// service asked otherwise. [WithLimiter] and [NewLimiter] share one limiter between clients, or
// between processes with a shared implementation.
//
// # Pagination
//
// List methods return one [Page] with the service's counts. All methods return an iter.Seq2 that
// fetches pages lazily, stops when the loop breaks, and cannot loop forever: it stops on an empty or
// short page, at total_count, and with an error when the service ignores the page parameter.
//
//	for inst, err := range c.Instances.All(ctx, nil) { ... }
//
// # Waiting
//
// The WaitForStatus methods poll at once, then with jittered exponential backoff
// ([WithPollInterval]). They return on the target status, fail at once on a failure status (an
// instance in "error") or on a non-temporary error (a 403, a 404), poll through unknown statuses and
// temporary errors, and when the context ends return a [*WaitError] that wraps ctx.Err() and names
// the last status seen. [OnUpdate] reports every poll. [InstancesService.WaitForDeletion] waits
// until a deleted instance is gone (the service responds 404).
//
// # Testing with computetest
//
// Package computetest (github.com/compute-sdk/compute-go/computetest) is a stateful in-memory fake
// of the whole API: every operation with the contract's status codes and error bodies,
// authentication, lifecycles, the stated conditions, a built-in catalogue, the rate limit, fault
// injection (an error status, latency, a dropped connection, a request processed whose response is
// lost) and a request log. Server.Client returns a Client wired to it:
//
//	srv := computetest.NewServer()
//	defer srv.Close()
//	c := srv.Client()
//
// Command compute-fake serves the same fake on a port, for curl, Terraform providers and clients in
// other languages.
package compute
