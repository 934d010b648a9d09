package realnode

import (
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// registryOnce serves a minimal registry (the distribution API's error
// answers only) on RegistryAddr for the pull faults: repositories under
// private/ demand basic auth (401 with a Basic challenge), every other
// manifest is unknown (404 MANIFEST_UNKNOWN). It listens inside the
// node's network namespace, which this test process shares.
var registryOnce sync.Once

func startRegistry(t *testing.T) {
	t.Helper()
	var err error
	registryOnce.Do(func() {
		var ln net.Listener
		if ln, err = net.Listen("tcp", RegistryAddr); err != nil {
			return
		}
		go http.Serve(ln, http.HandlerFunc(registry)) //nolint:errcheck // runs until the process ends
	})
	if err != nil {
		t.Fatalf("start registry: %v", err)
	}
}

func registry(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Docker-Distribution-API-Version", "registry/2.0")
	w.Header().Set("Content-Type", "application/json")
	path := strings.TrimPrefix(r.URL.Path, "/v2/")
	switch {
	case r.URL.Path == "/v2/" || r.URL.Path == "/v2":
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte("{}"))
	case strings.HasPrefix(path, "private/"):
		if _, _, ok := r.BasicAuth(); ok {
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(`{"errors":[{"code":"DENIED","message":"requested access to the resource is denied"}]}`))
			return
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="realnode-registry"`)
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`))
	default:
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}`))
	}
}
