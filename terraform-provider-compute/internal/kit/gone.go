package kit

import (
	"errors"
	"net/http"

	compute "github.com/compute-sdk/compute-go"
)

// Gone reports whether err, the error of reading one resource, is the service's proof that the
// resource does not exist: a 404 that carries the kind's not-found code. A 404 without it (a
// gateway's or a proxy's page, an invalid route), a 5xx, a timeout or a network error is not: the
// resource stays in the state and the read fails.
func Gone(err error, notFound compute.ErrorCode) bool {
	var e *compute.APIError
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound && e.Code != "" && e.Code == notFound
}
