package leader

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"
)

// ErrRefused is wrapped by every error for a request the lease-only client
// refuses: the leader-election client may touch its own Lease and nothing
// else.
var ErrRefused = errors.New("the leader-election client only reads and writes its own Lease")

// leasesPrefix is where Leases live (coordination.k8s.io/v1).
const leasesPrefix = "/apis/coordination.k8s.io/v1/namespaces/"

// LeaseOnlyConfig returns a copy of cfg whose transport lets through only
// requests on the Lease name in namespace ns: GET, PUT and PATCH of it,
// POST (create) to its collection, and a GET (list or watch) of the
// collection narrowed to it by field selector. Everything else is refused
// in the process, before it reaches the API server. This is the only client
// watch mode ever writes with, so "the only write is the Lease" holds by
// construction, not by each caller using the right verb.
//
// cfg must be the plain connection config, not the read-only one: the
// read-only transport would refuse the Lease writes.
func LeaseOnlyConfig(cfg *rest.Config, ns, name string) *rest.Config {
	out := rest.CopyConfig(cfg)
	out.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &leaseOnly{next: rt, ns: ns, name: name} })
	return out
}

type leaseOnly struct {
	next     http.RoundTripper
	ns, name string
}

// allowed reports whether method on u touches only the Lease.
func (t *leaseOnly) allowed(method string, u *url.URL) bool {
	path := strings.TrimSuffix(u.Path, "/")
	collection := leasesPrefix + t.ns + "/leases"
	switch path {
	case collection + "/" + t.name:
		switch method {
		case http.MethodGet, http.MethodPut, http.MethodPatch:
			return true
		}
	case collection:
		switch method {
		case http.MethodPost:
			return true
		case http.MethodGet:
			// A list or watch of the collection, narrowed to the Lease.
			sel, err := fields.ParseSelector(u.Query().Get("fieldSelector"))
			if err != nil {
				return false
			}
			v, ok := sel.RequiresExactMatch("metadata.name")
			return ok && v == t.name
		}
	}
	return false
}

func (t *leaseOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.allowed(req.Method, req.URL) {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, fmt.Errorf("%w (lease %s/%s): refused %s %s", ErrRefused, t.ns, t.name, req.Method, req.URL.Path)
	}
	return t.next.RoundTrip(req)
}

// WrappedRoundTripper exposes the underlying transport for client-go's
// transport inspection utilities.
func (t *leaseOnly) WrappedRoundTripper() http.RoundTripper { return t.next }
