package fake

import (
	_ "embed"
	"net/http"
	"net/url"
	"strings"
)

// route is one operation: a row of a route table.
type route struct {
	method string
	path   string // under the table's prefix; a "{}" segment is a path parameter
	status int    // the success status; 204 sends no body
	key    string // the envelope key of the result ({"instance": ...}; a page's items), "" for none
	handle handler
}

// routes are the operations of the API under /compute/v1/, and the document that describes them.
// Adding an operation is a row here, its request struct and its handler in the resource's
// _handlers.go file, and its entry in openapi.yaml (TestOpenAPIDescribesEveryRoute holds the two
// together).
var routes = []route{
	{"POST", "security-groups", 201, "security_group", op(createSecurityGroup)},
	{"GET", "security-groups", 200, "security_groups", list(groups)},
	{"GET", "security-groups/{}", 200, "security_group", on(groups, show)},
	{"PUT", "security-groups/{}", 200, "security_group", on(groups, replaceSecurityGroup)},
	{"PATCH", "security-groups/{}", 200, "security_group", on(groups, patchSecurityGroup)},
	{"DELETE", "security-groups/{}", 204, "", remove(groups)},
	{"POST", "floating-ips", 201, "floating_ip", op(createFloatingIP)},
	{"GET", "floating-ips", 200, "floating_ips", list(floatingIPs)},
	{"GET", "floating-ips/{}", 200, "floating_ip", on(floatingIPs, show)},
	{"PATCH", "floating-ips/{}", 200, "floating_ip", on(floatingIPs, updateFloatingIP)},
	{"DELETE", "floating-ips/{}", 204, "", remove(floatingIPs)},
	{"POST", "instances", 201, "instance", op(createInstance)},
	{"GET", "instances", 200, "instances", list(instances)},
	{"GET", "instances/{}", 200, "instance", on(instances, show)},
	{"PATCH", "instances/{}", 200, "instance", on(instances, updateInstance)},
	{"DELETE", "instances/{}", 204, "", on(instances, deleteInstance)},
	{"POST", "instances/{}/snapshots", 201, "snapshot", on(instances, takeSnapshot)},
	{"GET", "instances/{}/snapshots", 200, "snapshots", on(instances, listInstanceSnapshots)},
	{"GET", "instances/{}/actions", 200, "actions", on(instances, listActions)},
	{"POST", "instances/{}/actions", 204, "", on(instances, performAction)},
	{"GET", "instances/{}/user-metadata", 200, "", on(instances, userMetadata)},
	{"GET", "images", 200, "images", op(listImages)},
	{"POST", "ssh-keys", 201, "", op(createSSHKey)},
	{"GET", "ssh-keys", 200, "ssh_keys", list(sshKeys)},
	{"GET", "ssh-keys/{}", 200, "", on(sshKeys, show)},
	{"PATCH", "ssh-keys/{}", 200, "", on(sshKeys, updateSSHKey)},
	{"DELETE", "ssh-keys/{}", 204, "", remove(sshKeys)},
	{"POST", "volumes", 201, "volume", op(createVolume)},
	{"GET", "volumes", 200, "volumes", list(volumes)},
	{"GET", "volumes/{}", 200, "volume", on(volumes, show)},
	{"PATCH", "volumes/{}", 200, "volume", on(volumes, updateVolume)},
	{"DELETE", "volumes/{}", 204, "", remove(volumes)},
	{"POST", "filesystems", 201, "filesystem", op(createFilesystem)},
	{"GET", "filesystems", 200, "filesystems", list(filesystems)},
	{"GET", "filesystems/{}", 200, "filesystem", on(filesystems, show)},
	{"PATCH", "filesystems/{}", 200, "filesystem", on(filesystems, updateFilesystem)},
	{"DELETE", "filesystems/{}", 204, "", remove(filesystems)},
	{"POST", "snapshots", 201, "snapshot", op(importSnapshot)},
	{"GET", "snapshots", 200, "snapshots", list(snapshots)},
	{"GET", "snapshots/{}", 200, "snapshot", on(snapshots, show)},
	{"PATCH", "snapshots/{}", 200, "snapshot", on(snapshots, updateSnapshot)},
	{"DELETE", "snapshots/{}", 204, "", remove(snapshots)},
	{"POST", "snapshots/{}/clone", 201, "snapshot", on(snapshots, cloneSnapshot)},
	{"GET", "quotas", 200, "quotas", op(listQuotas)},
	{"GET", "reservations", 200, "reservations", op(listReservations)},
	{"GET", "availability/{}/instances", 200, "availability", op(getAvailability)},
	{"GET", "openapi.yaml", 200, "", yamlDocument(openAPIDocument)},
}

// openAPIDocument describes the routes (TestOpenAPIDescribesEveryRoute holds the two together).
//
//go:embed openapi.yaml
var openAPIDocument []byte

// handler runs one operation and returns its result, not yet wrapped.
type handler func(e *Engine, c call, body []byte) (any, *Error)

// op makes a handler of a function of the state and the operation's typed request, which
// decodeBody fills. It runs with e.mu held.
func op[Req, Res any](h func(s *state, c call, r *Req) (Res, *Error)) handler {
	return ctl(func(e *Engine, c call, r *Req) (Res, *Error) { return h(e.s, c, r) })
}

// ctl is op for the control endpoint's handlers, which use the engine rather than its state; they
// too run with e.mu held.
func ctl[Req, Res any](h func(e *Engine, c call, r *Req) (Res, *Error)) handler {
	return func(e *Engine, c call, body []byte) (any, *Error) {
		var req Req
		if err := decodeBody(body, &req); err != nil {
			return nil, err
		}
		return h(e, c, &req)
	}
}

// action is a handler that reads no body, sends none and runs f, with e.mu held.
func action(f func(e *Engine)) handler {
	return ctl(func(e *Engine, _ call, _ *none) (none, *Error) {
		f(e)
		return none{}, nil
	})
}

// yamlDocument serves a YAML document, to a request without a body.
func yamlDocument(b []byte) handler {
	return ctl(func(*Engine, call, *none) (document, *Error) {
		return document{contentType: "application/yaml", body: b}, nil
	})
}

// on is op for an operation on the resource the path names, which is looked up first: an unknown
// ID is the kind's 404, whatever the body.
func on[R resource, Req, Res any](st func(*state) *store[R], h func(s *state, c call, r R, req *Req) (Res, *Error)) handler {
	return func(e *Engine, c call, body []byte) (any, *Error) {
		r, err := st(e.s).get(c.ids[0])
		if err != nil {
			return nil, err
		}
		return op(func(s *state, c call, req *Req) (Res, *Error) { return h(s, c, r, req) })(e, c, body)
	}
}

// show is the GET of one resource.
func show[R resource](s *state, _ call, r R, _ *none) (any, *Error) { return r.view(s), nil }

// remove is the DELETE of a resource, refused by its kind's inUse while an instance refers to it.
func remove[R resource](st func(*state) *store[R]) handler {
	return on(st, func(s *state, c call, _ R, _ *none) (none, *Error) {
		if sp := st(s).sp; sp.inUse.code != "" {
			if in := s.holder(sp.ref, c.ids[0]); in != "" {
				return none{}, badRequest(sp.inUse.code, sp.inUse.format, c.ids[0], in)
			}
		}
		st(s).remove(c.ids[0])
		return none{}, nil
	})
}

// list is the GET of a kind's collection: the page the query asks for.
func list[R resource](st func(*state) *store[R]) handler {
	return op(func(s *state, c call, _ *none) (page, *Error) {
		return pageOf(c, st(s).len(), func(i int) any { return st(s).at(i).view(s) })
	})
}

// respond runs the route's handler and wraps its result as the row says: under the envelope key (a
// page with its counts) or as it is; nothing for a 204.
func (rt route) respond(e *Engine, c call, body []byte) (document, *Error) {
	res, err := rt.handle(e, c, body)
	if err != nil || rt.status == http.StatusNoContent {
		return document{}, err
	}
	switch r := res.(type) {
	case document:
		return r, nil
	case page:
		res = map[string]any{rt.key: r.items, "total_count": r.total, "page": r.number, "per_page": r.perPage}
	default:
		if rt.key != "" {
			res = map[string]any{rt.key: res}
		}
	}
	// The API's handlers run under e.mu, so a response never shares memory with state that another
	// request is changing.
	b, encErr := encode(res)
	if encErr != nil {
		return document{}, fail(http.StatusInternalServerError, "", "encoding the response: %v", encErr)
	}
	return document{contentType: "application/json", body: b}, nil
}

// findRoute finds the row of a table for a method and an escaped path under prefix, matching
// segment by segment so that an escaped "/" in an ID stays inside its segment, and returns the
// unescaped, non-empty parameters. An unknown path, or a known path with another method, is 404
// with 02001.
func findRoute(table []route, prefix, method, escapedPath string) (route, []string, *Error) {
	if rest, ok := strings.CutPrefix(escapedPath, prefix); ok {
		for _, rt := range table {
			if ids, ok := matchPath(rt.path, rest); ok && rt.method == method {
				return rt, ids, nil
			}
		}
	}
	return route{}, nil, notFound(codeInvalidRoute, "invalid route %s %s", method, escapedPath)
}

func matchPath(pattern, escaped string) ([]string, bool) {
	want, segs := strings.Split(pattern, "/"), strings.Split(escaped, "/")
	if len(want) != len(segs) {
		return nil, false
	}
	var ids []string
	for i, w := range want {
		id, err := url.PathUnescape(segs[i])
		switch {
		case w != "{}" && segs[i] != w, w == "{}" && (err != nil || id == ""):
			return nil, false
		case w == "{}":
			ids = append(ids, id)
		}
	}
	return ids, true
}
