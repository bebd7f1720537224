package compute_test

import (
	"testing"

	compute "github.com/compute-sdk/compute-go"
	"github.com/stretchr/testify/assert"
)

// Redactor hides the token, a piece of it and any case of it, and changes nothing else.
func TestRedactor(t *testing.T) {
	t.Parallel()
	redact := compute.Redactor("Zq8Wv3Xj7Lm2Rt9Hk4Pd")
	assert.Equal(t, "name [REDACTED] end", redact("name Zq8Wv3Xj7Lm2Rt9Hk4Pd end"))
	assert.Equal(t, "a[REDACTED]b", redact("aZQ8WV3xj7b"))
	assert.Equal(t, "web-1 active", redact("web-1 active"))
	assert.Equal(t, "web-1", compute.Redactor("")("web-1"), "an empty token hides nothing")
}
