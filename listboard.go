package compute

import "context"

// ListBoard shares what the waits' list walks see among the processes that share one rate budget.
// When the [Limiter] given to [WithLimiter] implements it (the Redis limiter of ratelimit/redis
// does), the client posts the resources on every page its shared waits read, and its waits take a
// resource from a page another process read, when that page was sent after they asked, instead of
// reading the list again: the processes of a fleet read each page once between them, not once
// each. A board that fails, or does not answer, only costs the sharing: the waits read the list
// themselves.
type ListBoard interface {
	// Mark returns a number greater than every number Mark returned before it was called, in any
	// process sharing the board. A wait takes one after it asks and a page before it is sent: a
	// page whose mark is greater than a wait's was sent after the wait asked.
	Mark(ctx context.Context) (int64, error)
	// Post records what one page of the list named list showed: each resource's JSON, by ID, and
	// the page's mark. A resource's sighting replaces one with a smaller mark, never a greater one.
	Post(ctx context.Context, list string, mark int64, items map[string][]byte) error
	// Seen returns the latest sighting the board holds of each of ids in the list named list; IDs
	// it holds none of are left out.
	Seen(ctx context.Context, list string, ids []string) (map[string]Sighting, error)
}

// Sighting is one resource as a page of its list showed it.
type Sighting struct {
	Mark int64  // the page's mark
	JSON []byte // the resource, as the page showed it
}
