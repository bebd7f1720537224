package computetest

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	compute "github.com/compute-sdk/compute-go"
)

// call is one request as a route handler sees it.
type call struct {
	r     *http.Request
	ids   []string // the path parameters, unescaped, in order
	query url.Values
	now   time.Time
}

// route is one operation of the contract: a method and a path under /compute/v1 whose "{}" segments
// are parameters.
type route struct {
	method string
	path   string
	handle func(s *Server, c *call) (int, any, *apiError)
}

// prefix is where the compute family lives.
const prefix = "/compute/v1/"

// routes are every operation of the contract, and the OpenAPI description.
var routes = []route{
	{http.MethodPost, "security-groups", (*Server).createSecurityGroup},
	{http.MethodGet, "security-groups", (*Server).listSecurityGroups},
	{http.MethodGet, "security-groups/{}", (*Server).getSecurityGroup},
	{http.MethodPut, "security-groups/{}", (*Server).updateSecurityGroup},
	{http.MethodDelete, "security-groups/{}", (*Server).deleteSecurityGroup},
	{http.MethodPost, "floating-ips", (*Server).createFloatingIP},
	{http.MethodGet, "floating-ips", (*Server).listFloatingIPs},
	{http.MethodGet, "floating-ips/{}", (*Server).getFloatingIP},
	{http.MethodPatch, "floating-ips/{}", (*Server).updateFloatingIP},
	{http.MethodDelete, "floating-ips/{}", (*Server).deleteFloatingIP},
	{http.MethodPost, "instances", (*Server).createInstance},
	{http.MethodGet, "instances", (*Server).listInstances},
	{http.MethodGet, "instances/{}", (*Server).getInstance},
	{http.MethodPatch, "instances/{}", (*Server).updateInstance},
	{http.MethodDelete, "instances/{}", (*Server).deleteInstance},
	{http.MethodPost, "instances/{}/snapshots", (*Server).createSnapshot},
	{http.MethodGet, "instances/{}/snapshots", (*Server).listSnapshots},
	{http.MethodGet, "instances/{}/actions", (*Server).listActions},
	{http.MethodPost, "instances/{}/actions", (*Server).performAction},
	{http.MethodGet, "images", (*Server).listImages},
	{http.MethodGet, "openapi.yaml", (*Server).openAPI},
}

// findRoute matches an escaped path segment by segment, so that an escaped "/" in an ID stays inside
// its segment, and returns the unescaped parameters. An unknown path, or a known path with another
// method, is 404 with 02001.
func findRoute(method, escapedPath string) (route, []string, *apiError) {
	rest, ok := strings.CutPrefix(escapedPath, prefix)
	if !ok {
		return route{}, nil, notFound(compute.CodeInvalidRoute, "invalid route %s %s", method, escapedPath)
	}
	segs := strings.Split(rest, "/")
	for _, rt := range routes {
		pattern := strings.Split(rt.path, "/")
		if len(pattern) != len(segs) {
			continue
		}
		var ids []string
		matched := true
		for i, p := range pattern {
			if p != "{}" {
				matched = matched && segs[i] == p
				continue
			}
			id, err := url.PathUnescape(segs[i])
			if err != nil || id == "" {
				matched = false
				break
			}
			ids = append(ids, id)
		}
		if matched && rt.method == method {
			return rt, ids, nil
		}
	}
	return route{}, nil, notFound(compute.CodeInvalidRoute, "invalid route %s %s", method, escapedPath)
}
