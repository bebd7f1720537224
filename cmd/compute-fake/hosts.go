package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// guardHosts serves h, refusing, when the listener's address is loopback, a request whose Host
// names neither a loopback address nor one of allowed: a web page whose own name resolves to
// 127.0.0.1 (DNS rebinding) must not reach the fake. Beyond loopback the names are the user's.
func guardHosts(h http.Handler, addr net.Addr, allowed []string) http.Handler {
	if tcp, ok := addr.(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hostAllowed(r.Host, allowed) {
			h.ServeHTTP(w, r)
			return
		}
		// The API's error body; the Host is the caller's own text, quoted.
		b, _ := json.Marshal(map[string]string{"code": "02004", "message": fmt.Sprintf(
			"compute-fake answers only loopback host names (localhost, 127.0.0.1, [::1]), not %q; start it with -allow-hosts to add one", r.Host)})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusMisdirectedRequest)
		_, _ = w.Write(b)
	})
}

// hostAllowed says whether a request's Host (a name or an address, with or without a port) is
// loopback (localhost, 127.0.0.0/8, [::1]) or one of allowed ("*" allows any). A name is matched
// whole, in any case: "example.com" admits neither "evilexample.com" nor "api.example.com", which a
// user lists on its own if it is to be answered.
func hostAllowed(host string, allowed []string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		name = host[1 : len(host)-1]
	} else if strings.Contains(host, ":") {
		return false // an IPv6 address without brackets is no Host
	}
	name = strings.TrimSuffix(name, ".")
	if strings.EqualFold(name, "localhost") {
		return true
	}
	if ip := net.ParseIP(name); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, a := range allowed {
		if a == "*" || name != "" && strings.EqualFold(name, a) {
			return true
		}
	}
	return false
}

// parseHosts reads -allow-hosts: host names or addresses, without ports, separated by commas, or *.
func parseHosts(list string) ([]string, error) {
	if strings.TrimSpace(list) == "" {
		return nil, nil
	}
	var out []string
	for _, h := range strings.Split(list, ",") {
		h = strings.TrimSpace(h)
		switch {
		case h == "":
			return nil, fmt.Errorf("-allow-hosts has an empty name in %q", list)
		case net.ParseIP(h) == nil && strings.ContainsAny(h, ":/[] \t"):
			return nil, fmt.Errorf("-allow-hosts takes host names without a scheme or port, got %q", h)
		}
		out = append(out, h)
	}
	return out, nil
}
