// Package gateway is the read-only API gateway an agent talks to: a loopback
// HTTPS endpoint with an ephemeral CA and bearer token that forwards reads
// to the real API server with credentials held in the plugin's process, and
// refuses everything else, Secrets included. Every request is audited.
package gateway

import (
	"net/http"
	"net/url"
	"strings"
)

// Request is what the policy sees of a request, parsed from its path the
// way the API server does.
type Request struct {
	Verb        string // get, list, watch, create, update, patch, delete, deletecollection, connect…
	Path        string
	Resource    bool // a resource path, not /version, /openapi, /api…
	Group       string
	Version     string
	Namespace   string
	Kind        string // the resource, e.g. "pods"
	Name        string
	Subresource string
}

// Parse reads the resource, namespace, name and verb from a request.
func Parse(method string, u *url.URL) Request {
	r := Request{Path: u.Path}
	parts := splitPath(u.Path)
	var rest []string
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		r.Resource, r.Version, rest = true, parts[1], parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		r.Resource, r.Group, r.Version, rest = true, parts[1], parts[2], parts[3:]
	}
	watchPrefix := false
	if len(rest) > 0 && rest[0] == "watch" {
		watchPrefix, rest = true, rest[1:]
	}
	if len(rest) >= 2 && rest[0] == "namespaces" {
		r.Namespace = rest[1]
		if len(rest) == 2 {
			// /api/v1/namespaces/NAME is the namespace object itself.
			r.Kind, r.Name, r.Namespace = "namespaces", rest[1], ""
			rest = nil
		} else {
			rest = rest[2:]
		}
	}
	if len(rest) > 0 {
		r.Kind = rest[0]
	}
	if len(rest) > 1 {
		r.Name = rest[1]
	}
	if len(rest) > 2 {
		r.Subresource = strings.Join(rest[2:], "/")
	}
	if r.Resource && r.Kind == "" {
		r.Resource = false // discovery: /api, /api/v1, /apis/apps/v1
	}
	r.Verb = verb(method, u, r, watchPrefix)
	return r
}

func splitPath(p string) []string {
	var out []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func verb(method string, u *url.URL, r Request, watchPrefix bool) string {
	switch method {
	case http.MethodGet, http.MethodHead:
		if !r.Resource {
			return "get"
		}
		if watchPrefix || u.Query().Get("watch") == "true" || u.Query().Get("watch") == "1" {
			return "watch"
		}
		if r.Name == "" {
			return "list"
		}
		return "get"
	case http.MethodPost:
		if r.Subresource != "" {
			return "connect" // exec, attach, portforward, eviction, token…
		}
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		if r.Name == "" {
			return "deletecollection"
		}
		return "delete"
	}
	return strings.ToLower(method)
}

// Decision is the policy's answer.
type Decision struct {
	Allowed bool
	Code    int
	Reason  string
}

// Messages the agent sees in the Status of a refused request.
const (
	ReadOnlyMessage = "kubectl-triage: triage is read-only; this request would change the cluster and was not sent"
	SecretMessage   = "secret contents are not available to the triage agent"
)

// selfReviews are the POSTs that only ask what the caller may do.
var selfReviews = map[string]bool{
	"authorization.k8s.io/selfsubjectaccessreviews": true,
	"authorization.k8s.io/selfsubjectrulesreviews":  true,
	"authentication.k8s.io/selfsubjectreviews":      true,
}

// deniedSubresources open a channel into a container or node, or proxy to
// arbitrary endpoints: never for an agent, even as a GET.
var deniedSubresources = map[string]string{
	"exec": "exec into containers", "attach": "attaching to containers", "portforward": "port-forwarding",
	"proxy": "proxying", "token": "minting tokens", "ephemeralcontainers": "adding debug containers",
}

// Decide applies the read-only policy.
func Decide(method string, r Request) Decision {
	sub := r.Subresource
	if i := strings.IndexByte(sub, '/'); i >= 0 {
		sub = sub[:i] // pods/x/proxy/some/path
	}
	if what, bad := deniedSubresources[sub]; bad && r.Resource {
		return Decision{Code: http.StatusForbidden, Reason: "kubectl-triage: " + what + " is not available to the triage agent"}
	}
	if r.Resource && r.Group == "" && (r.Kind == "secrets" || strings.HasPrefix(r.Kind, "secrets")) {
		return Decision{Code: http.StatusForbidden, Reason: SecretMessage}
	}
	switch method {
	case http.MethodGet, http.MethodHead:
		if !r.Resource && isProxyPath(r.Path) {
			return Decision{Code: http.StatusForbidden, Reason: "kubectl-triage: proxying is not available to the triage agent"}
		}
		return Decision{Allowed: true, Code: http.StatusOK}
	case http.MethodPost:
		if r.Resource && r.Subresource == "" && r.Name == "" && r.Namespace == "" && selfReviews[r.Group+"/"+r.Kind] {
			return Decision{Allowed: true, Code: http.StatusOK}
		}
	}
	return Decision{Code: http.StatusForbidden, Reason: ReadOnlyMessage}
}

// isProxyPath catches non-resource proxy paths (/api/v1/proxy/…, legacy).
func isProxyPath(p string) bool {
	for _, s := range splitPath(p) {
		if s == "proxy" {
			return true
		}
	}
	return false
}
