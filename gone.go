package compute

import (
	"errors"
	"net/http"
	"strings"
)

// Gone reports whether err, the error of a call on one resource (reading, updating or deleting it),
// proves that the resource does not exist: the not-found that [InstancesService.WaitForDeletion] and
// every DeleteAndWait take as that proof, a 404 with the kind's not-found code (02008 for an
// instance). Nothing else proves it: not a 404 without the service's error (a gateway's or a proxy's
// page), not an invalid route, not a 5xx, a 429 or a failure to reach the service. A program that
// keeps its own record of resources (a Terraform provider's state, an inventory) drops a resource on
// Gone alone, so that a broken gateway never makes it forget one that exists.
func Gone(err error) bool {
	var e *APIError
	if !errors.As(err, &e) || e.StatusCode != http.StatusNotFound {
		return false
	}
	for _, op := range operations {
		if op.method == http.MethodDelete && pathOf(op.path, e.Path) {
			return op.missing(e)
		}
	}
	return false
}

// pathOf reports whether path, as a call sent it (its IDs escaped), is the path template tmpl with
// its {name} segments filled.
func pathOf(tmpl, path string) bool {
	t, p := strings.Split(tmpl, "/"), strings.Split(path, "/")
	if len(t) != len(p) {
		return false
	}
	for i := range t {
		if strings.HasPrefix(t[i], "{") {
			if p[i] == "" {
				return false
			}
			continue
		}
		if t[i] != p[i] {
			return false
		}
	}
	return true
}
