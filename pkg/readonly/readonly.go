// Package readonly makes a Kubernetes client that cannot change a cluster.
//
// The check sits in the HTTP transport, below every clientset, the dynamic
// client, discovery and the cli-runtime resource builder, so a read-only
// guarantee does not depend on each caller using the right verb.
package readonly

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"k8s.io/client-go/rest"
)

// ErrRefused is wrapped by every error returned for a refused request.
var ErrRefused = errors.New("kubectl-triage is read-only")

// selfReviewSuffixes are the only POSTs allowed: they ask the API server what
// the caller may do and change nothing.
var selfReviewSuffixes = []string{
	"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
	"/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
	"/apis/authentication.k8s.io/v1/selfsubjectreviews",
}

// ErrSecret is wrapped by the error for a refused Secret read.
var ErrSecret = errors.New("kubectl-triage never reads Secrets")

// isSecretPath reports whether a path reads core/v1 Secrets:
// /api/v1/secrets, /api/v1/namespaces/NS/secrets[/NAME], or their watch
// forms.
func isSecretPath(path string) bool {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) < 3 || parts[0] != "api" {
		return false
	}
	rest := parts[2:]
	if len(rest) > 0 && rest[0] == "watch" {
		rest = rest[1:]
	}
	if len(rest) >= 3 && rest[0] == "namespaces" {
		rest = rest[2:]
	}
	return len(rest) > 0 && rest[0] == "secrets"
}

// Allowed reports whether a request with this method and URL path is a read
// the plugin may make: never a write, and never a Secret, whose values could
// otherwise reach a workspace.
func Allowed(method, path string) bool {
	if isSecretPath(path) {
		return false
	}
	switch method {
	case http.MethodGet, http.MethodHead:
		return true
	case http.MethodPost:
		for _, s := range selfReviewSuffixes {
			if path == s {
				return true
			}
		}
	}
	return false
}

// Config returns a copy of cfg whose transport refuses every request that is
// not a read, before it leaves the process. It is safe to use as
// genericclioptions.ConfigFlags.WrapConfigFn.
func Config(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &transport{next: rt} })
	return out
}

type transport struct{ next http.RoundTripper }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !Allowed(req.Method, strings.TrimSuffix(req.URL.Path, "/")) {
		if req.Body != nil {
			req.Body.Close()
		}
		if isSecretPath(req.URL.Path) {
			return nil, fmt.Errorf("%w: %w: refused %s %s", ErrRefused, ErrSecret, req.Method, req.URL.Path)
		}
		return nil, fmt.Errorf("%w: refused %s %s", ErrRefused, req.Method, req.URL.Path)
	}
	return t.next.RoundTrip(req)
}

// WrappedRoundTripper exposes the underlying transport for client-go's
// transport inspection utilities.
func (t *transport) WrappedRoundTripper() http.RoundTripper { return t.next }
