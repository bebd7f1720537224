package engine

import "net/http"

// serveControl serves the control endpoint under /_fake/. While it is disabled (no control token),
// the path is like any other unknown path: 404 with 02001.
func (e *Engine) serveControl(w http.ResponseWriter, r *http.Request) {
	writeError(w, notFound(codeInvalidRoute, "invalid route %s %s", r.Method, r.URL.EscapedPath()))
}
