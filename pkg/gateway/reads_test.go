package gateway

import (
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestReads: the gateway keeps what the agent read (allowed GETs, bodies
// decompressed and bounded) for the claims check, and nothing it refused.
func TestReads(t *testing.T) {
	big := strings.Repeat("x", maxReadBody+10)
	upstream := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/v1/namespaces/shop/pods/api/log":
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			io.WriteString(zw, "FATAL config: required env DATABASE_URL is empty\n")
			zw.Close()
		case "/api/v1/namespaces/shop/configmaps/big":
			io.WriteString(w, big)
		default:
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"kind":"PodList","items":[{"metadata":{"name":"api"}}]}`)
		}
	}))
	defer upstream.Close()
	g, err := Start(&rest.Config{Host: upstream.URL, TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, filepath.Join(t.TempDir(), "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	kc, err := g.Kubeconfig("shop")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []struct{ method, path string }{
		{"GET", "/api/v1/namespaces/shop/pods"},
		{"GET", "/api/v1/namespaces/shop/pods/api/log?container=app&previous=true"},
		{"GET", "/api/v1/namespaces/shop/configmaps/big"},
		{"GET", "/api/v1/namespaces/shop/secrets/db"},
		{"DELETE", "/api/v1/namespaces/shop/pods/api"},
	} {
		r, _ := http.NewRequestWithContext(context.Background(), req.method, g.URL+req.path, nil)
		r.Header.Set("Accept-Encoding", "gzip") // the upstream's gzip passes through undecoded
		resp, err := client.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	reads := g.Reads()
	if len(reads) != 3 {
		t.Fatalf("%d reads kept, want the 3 allowed GETs: %+v", len(reads), reads)
	}
	if r := reads[0]; r.Resource != "pods" || r.Namespace != "shop" || r.Name != "" || !strings.Contains(string(r.Body), `"name":"api"`) {
		t.Errorf("list: %+v", r)
	}
	if r := reads[1]; r.Subresource != "log" || r.Query != "container=app&previous=true" || string(r.Body) != "FATAL config: required env DATABASE_URL is empty\n" {
		t.Errorf("gzipped log: %+v %q", r, r.Body)
	}
	if r := reads[2]; !r.Truncated || len(r.Body) != maxReadBody {
		t.Errorf("a body over the bound: truncated %v, %d bytes kept", r.Truncated, len(r.Body))
	}
}
