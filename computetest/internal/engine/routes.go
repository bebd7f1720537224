package engine

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// call is one request as a route handler sees it.
type call struct {
	body  []byte   // the request body as received
	ids   []string // the path parameters, unescaped, in order
	query url.Values
	now   time.Time
}

// route is one operation of the contract: a method and a path under /compute/v1 whose "{}" segments
// are parameters.
type route struct {
	method string
	path   string
	handle func(e *Engine, c *call) (int, any, *apiError)
}

// prefix is where the compute family lives.
const prefix = "/compute/v1/"

// routes are every operation of the contract and of the extended document (45), and the OpenAPI
// description.
var routes = []route{
	{http.MethodPost, "security-groups", (*Engine).createSecurityGroup},
	{http.MethodGet, "security-groups", (*Engine).listSecurityGroups},
	{http.MethodGet, "security-groups/{}", (*Engine).getSecurityGroup},
	{http.MethodPut, "security-groups/{}", (*Engine).replaceSecurityGroup},
	{http.MethodPatch, "security-groups/{}", (*Engine).patchSecurityGroup},
	{http.MethodDelete, "security-groups/{}", (*Engine).deleteSecurityGroup},
	{http.MethodPost, "floating-ips", (*Engine).createFloatingIP},
	{http.MethodGet, "floating-ips", (*Engine).listFloatingIPs},
	{http.MethodGet, "floating-ips/{}", (*Engine).getFloatingIP},
	{http.MethodPatch, "floating-ips/{}", (*Engine).updateFloatingIP},
	{http.MethodDelete, "floating-ips/{}", (*Engine).deleteFloatingIP},
	{http.MethodPost, "instances", (*Engine).createInstance},
	{http.MethodGet, "instances", (*Engine).listInstances},
	{http.MethodGet, "instances/{}", (*Engine).getInstance},
	{http.MethodPatch, "instances/{}", (*Engine).updateInstance},
	{http.MethodDelete, "instances/{}", (*Engine).deleteInstance},
	{http.MethodPost, "instances/{}/snapshots", (*Engine).createSnapshot},
	{http.MethodGet, "instances/{}/snapshots", (*Engine).listSnapshots},
	{http.MethodGet, "instances/{}/actions", (*Engine).listActions},
	{http.MethodPost, "instances/{}/actions", (*Engine).performAction},
	{http.MethodGet, "instances/{}/user-metadata", (*Engine).userMetadata},
	{http.MethodGet, "images", (*Engine).listImages},
	{http.MethodPost, "ssh-keys", (*Engine).createSSHKey},
	{http.MethodGet, "ssh-keys", (*Engine).listSSHKeys},
	{http.MethodGet, "ssh-keys/{}", (*Engine).getSSHKey},
	{http.MethodPatch, "ssh-keys/{}", (*Engine).updateSSHKey},
	{http.MethodDelete, "ssh-keys/{}", (*Engine).deleteSSHKey},
	{http.MethodPost, "volumes", (*Engine).createVolume},
	{http.MethodGet, "volumes", (*Engine).listVolumes},
	{http.MethodGet, "volumes/{}", (*Engine).getVolume},
	{http.MethodPatch, "volumes/{}", (*Engine).updateVolume},
	{http.MethodDelete, "volumes/{}", (*Engine).deleteVolume},
	{http.MethodPost, "filesystems", (*Engine).createFilesystem},
	{http.MethodGet, "filesystems", (*Engine).listFilesystems},
	{http.MethodGet, "filesystems/{}", (*Engine).getFilesystem},
	{http.MethodPatch, "filesystems/{}", (*Engine).updateFilesystem},
	{http.MethodDelete, "filesystems/{}", (*Engine).deleteFilesystem},
	{http.MethodPost, "snapshots", (*Engine).importSnapshot},
	{http.MethodGet, "snapshots", (*Engine).listAllSnapshots},
	{http.MethodGet, "snapshots/{}", (*Engine).getSnapshot},
	{http.MethodPatch, "snapshots/{}", (*Engine).updateSnapshot},
	{http.MethodDelete, "snapshots/{}", (*Engine).deleteSnapshot},
	{http.MethodPost, "snapshots/{}/clone", (*Engine).cloneSnapshot},
	{http.MethodGet, "quotas", (*Engine).listQuotas},
	{http.MethodGet, "reservations", (*Engine).listReservations},
	{http.MethodGet, "availability/{}/instances", (*Engine).availability},
	{http.MethodGet, "openapi.yaml", (*Engine).openAPI},
}

// findRoute matches an escaped path segment by segment, so that an escaped "/" in an ID stays inside
// its segment, and returns the unescaped parameters. An unknown path, or a known path with another
// method, is 404 with 02001.
func findRoute(method, escapedPath string) (route, []string, *apiError) {
	rest, ok := strings.CutPrefix(escapedPath, prefix)
	if !ok {
		return route{}, nil, notFound(codeInvalidRoute, "invalid route %s %s", method, escapedPath)
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
	return route{}, nil, notFound(codeInvalidRoute, "invalid route %s %s", method, escapedPath)
}
