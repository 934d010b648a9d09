package mcpserve

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/term"
)

// The MCP specification asks a streamable HTTP server to validate Origin
// on every request, against DNS rebinding: a web page the user opens must
// not reach a server on their loopback through the browser
// (https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#security-warning).
// A request without Origin comes from a program, not from a page, and is
// let through to the token check; one with a loopback Origin comes from a
// page served on this machine (the MCP Inspector's UI); any other Origin
// is refused with 403 before a session exists, unless --allow-origin names
// it. net/http's CrossOriginProtection does not fit: it lets GET and HEAD
// through (the event stream is a GET) and trusts only exact origins, not
// loopback on any port.

// ParseOrigin checks an --allow-origin value and returns it normalized:
// scheme://host[:port], http or https, lower case, without the scheme's
// default port, as browsers send Origin.
func ParseOrigin(s string) (string, error) {
	o, ok := normalizeOrigin(s)
	if !ok {
		return "", fmt.Errorf("invalid --allow-origin %s: want an origin, scheme://host[:port] with http or https and no path, e.g. https://assistant.example.com", term.Quote(s))
	}
	return o, nil
}

// normalizeOrigin is an Origin header's serialized origin in canonical form;
// ok is false for anything else ("null" included).
func normalizeOrigin(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if host == "" || (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host, true
}

// loopbackOrigin reports whether origin (normalized) is served from this
// machine: localhost, 127.0.0.0/8 or ::1, on any port.
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	host := u.Hostname()
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkOrigin answers 403 to a request whose Origin is neither loopback nor
// one of allowed (normalized by ParseOrigin), before anything of MCP (or
// the token check) sees it.
func (s *Server) checkOrigin(allowed []string, next http.Handler) http.Handler {
	trusted := make(map[string]bool, len(allowed))
	for _, o := range allowed {
		trusted[o] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		values := r.Header.Values("Origin")
		if len(values) == 0 {
			next.ServeHTTP(w, r)
			return
		}
		if len(values) == 1 {
			if o, ok := normalizeOrigin(values[0]); ok && (loopbackOrigin(o) || trusted[o]) {
				next.ServeHTTP(w, r)
				return
			}
		}
		origin := strings.Join(values, ", ")
		s.log.Warn("mcp request refused: Origin not allowed", "origin", term.Abbrev(origin), "remote", r.RemoteAddr, "method", r.Method)
		http.Error(w, fmt.Sprintf("forbidden: Origin %s is not allowed: this kubectl-triage MCP server accepts requests without Origin or from loopback origins; start it with --allow-origin ORIGIN to trust another", term.Quote(origin)), http.StatusForbidden)
	})
}
