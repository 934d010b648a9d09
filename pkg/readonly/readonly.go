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
	"net/url"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
// kubeflags.ConfigFlags.WrapConfigFn.
func Config(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &transport{next: rt} })
	return out
}

// SecretTableAccept is the only Accept header a Secret read may carry,
// with includeObject=None: the API server answers with a Table row of the
// Secret's name, type, key count and age, as `kubectl get secret` prints
// it, or 406. Not the object, not even its metadata, whose annotations may
// hold the data (kubectl apply's last-applied-configuration).
// https://kubernetes.io/docs/reference/using-api/api-concepts/#receiving-resources-as-tables
const SecretTableAccept = "application/json;as=Table;g=meta.k8s.io;v=v1"

// SecretExistenceRead reports whether a request asks only whether one named
// Secret exists: GET /api/v1/namespaces/NS/secrets/NAME (no list, no watch)
// accepting nothing but SecretTableAccept, with includeObject=None as its
// only parameter. Whether a Secret an object names exists is then known
// without its contents ever reaching the process (docs/DESIGN.md §8).
func SecretExistenceRead(method, path string, query url.Values, accept string) bool {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	return method == http.MethodGet && len(parts) == 6 && parts[0] == "api" && parts[1] == "v1" &&
		parts[2] == "namespaces" && parts[4] == "secrets" && parts[5] != "" &&
		len(query) == 1 && len(query["includeObject"]) == 1 && query.Get("includeObject") == string(metav1.IncludeNone) &&
		accept == SecretTableAccept
}

type transport struct{ next http.RoundTripper }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if SecretExistenceRead(req.Method, req.URL.Path, req.URL.Query(), req.Header.Get("Accept")) && len(req.Header.Values("Accept")) == 1 {
		return t.next.RoundTrip(req)
	}
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
