package computeotel

import "sync"

// maxCached bounds each cache: its keys are operations, methods, status codes and error types,
// a few hundred at most, but a server can answer any status code.
const maxCached = 4096

// cache keeps what a key always gives (a span name, an attribute set), so that a call does not
// build it again. Past maxCached keys it still answers, without keeping.
type cache[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

// get returns the value of k, made by build the first time.
func (c *cache[K, V]) get(k K, build func(K) V) V {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = build(k)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[K]V)
	}
	if len(c.m) < maxCached {
		c.m[k] = v
	}
	return v
}
