package mcpserve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubectl-triage-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, _ := x509.MarshalECPrivateKey(key)
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

type bearerRT struct {
	token string
	next  http.RoundTripper
}

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestServeHTTPWithTLS: the HTTP mode serves HTTPS with the given
// certificate, still behind the token, and stops when its context ends.
func TestServeHTTPWithTLS(t *testing.T) {
	root := t.TempDir()
	s, err := New(Options{Engine: &stubEngine{root: root}, WorkspaceRoot: root})
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile, pool := selfSigned(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	const token = "tls-test-token-0123456789"
	go func() {
		done <- s.ServeHTTP(ctx, ln, HTTPOptions{Token: token, CertFile: certFile, KeyFile: keyFile, Ready: func(u string) { urls <- u }})
	}()
	url := <-urls
	if !strings.HasPrefix(url, "https://127.0.0.1:") {
		t.Fatalf("url %s", url)
	}
	tlsRT := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	defer tlsRT.CloseIdleConnections()

	resp, err := (&http.Client{Transport: tlsRT}).Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token over TLS: %d, want 401", resp.StatusCode)
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "tls-test", Version: "1"}, nil).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearerRT{token, tlsRT}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 5 {
		t.Errorf("tools over TLS: %v %d", err, len(tools.Tools))
	}
	cs.Close()
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("ServeHTTP did not return after its context ended")
	}
}
