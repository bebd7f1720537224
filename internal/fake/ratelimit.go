package fake

import (
	"math"
	"strconv"
	"time"
)

// bucket is a token bucket: rate tokens a second, up to burst, one per request.
type bucket struct {
	tokens float64
	last   time.Time
}

// take spends a token for a request arriving at now. When none is left it returns false and the
// whole seconds until one will be, for the Retry-After header (at least 1).
func (b *bucket) take(now time.Time, rate float64, burst int) (bool, string) {
	if b.last.IsZero() {
		b.tokens = float64(burst)
	} else if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(float64(burst), b.tokens+elapsed*rate)
	}
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, ""
	}
	wait := math.Ceil((1 - b.tokens) / rate)
	return false, strconv.Itoa(int(math.Max(1, wait)))
}
