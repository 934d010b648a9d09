package gateway

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-triage/kubectl-triage/pkg/auditlog"
)

// Gateway is one agent run's read-only endpoint.
type Gateway struct {
	URL   string // https://127.0.0.1:PORT
	caPEM []byte
	token string

	srv      *http.Server
	audit    *auditlog.Log
	stopOnce sync.Once
	stopErr  error
	total    atomic.Int64
	deny     atomic.Int64

	readsMu   sync.Mutex
	reads     []Read
	readBytes int64 // body bytes kept in reads, bounded by maxReadBytes
}

// Start serves a gateway on a loopback port that forwards allowed requests
// to upstream (the user's, or a dedicated, identity; its credentials stay in
// this process) and appends one line per request to auditPath.
func Start(upstream *rest.Config, auditPath string) (*Gateway, error) {
	target, err := url.Parse(upstream.Host)
	if err != nil || target.Host == "" {
		return nil, fmt.Errorf("gateway: bad API server address %q", upstream.Host)
	}
	if target.Scheme == "" {
		target.Scheme = "https"
	}
	if upstream.APIPath != "" && upstream.APIPath != "/api" {
		return nil, fmt.Errorf("gateway: unsupported API path %q", upstream.APIPath)
	}
	rt, err := rest.TransportFor(upstream)
	if err != nil {
		return nil, fmt.Errorf("gateway: upstream transport: %w", err)
	}
	caPEM, cert, err := ephemeralTLS()
	if err != nil {
		return nil, err
	}
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	audit, err := auditlog.Open(auditPath)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		audit.Close()
		return nil, fmt.Errorf("gateway: listen: %w", err)
	}
	g := &Gateway{URL: "https://" + ln.Addr().String(), caPEM: caPEM, token: token, audit: audit}

	proxy := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = target.Host
			// The agent's token is for this gateway only, and the agent may
			// never act as someone else with the user's credentials.
			pr.Out.Header.Del("Authorization")
			for k := range pr.Out.Header {
				if strings.HasPrefix(strings.ToLower(k), "impersonate-") {
					pr.Out.Header.Del(k)
				}
			}
		},
		Transport:     rt,
		FlushInterval: -1, // watches and log follows stream through as they arrive
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			writeStatus(w, http.StatusBadGateway, "kubectl-triage gateway: cannot reach the API server: "+err.Error(), "ServiceUnavailable")
		},
	}
	g.srv = &http.Server{
		Handler:           g.handler(proxy),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          nil,
	}
	go g.srv.ServeTLS(ln, "", "")
	return g, nil
}

// handler authenticates, applies the policy, audits and forwards.
func (g *Gateway) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req := Parse(r.Method, r.URL)
		rec := &recorder{ResponseWriter: w}
		if r.Method == http.MethodGet && req.Verb != "watch" {
			rec.keep = g.budget()
		}
		var d Decision
		if !g.authenticated(r) {
			d = Decision{Code: http.StatusUnauthorized, Reason: "kubectl-triage gateway: missing or wrong bearer token"}
			writeStatus(rec, d.Code, d.Reason, "Unauthorized")
		} else if d = Decide(r.Method, req); !d.Allowed {
			writeStatus(rec, d.Code, d.Reason, "Forbidden")
		} else {
			next.ServeHTTP(rec, r)
		}
		g.total.Add(1)
		if !d.Allowed {
			g.deny.Add(1)
		}
		if d.Allowed && r.Method == http.MethodGet {
			g.keepRead(r, req, rec)
		}
		g.audit.Write(auditEntry{
			Time: start.UTC(), Method: r.Method, Verb: req.Verb, Path: r.URL.Path, Query: r.URL.RawQuery,
			Resource: req.Kind, Subresource: req.Subresource, Namespace: req.Namespace, Name: req.Name,
			Code: rec.code(), Allowed: d.Allowed, Reason: d.Reason, Bytes: rec.bytes,
			DurationMS: time.Since(start).Milliseconds(), UserAgent: r.UserAgent(),
		})
	})
}

func (g *Gateway) authenticated(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(g.token)) == 1
}

// Kubeconfig is the agent's context/kubeconfig: the gateway's address, its
// CA and the bearer token — nothing of the user's.
func (g *Gateway) Kubeconfig(namespace string) ([]byte, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["triage"] = &clientcmdapi.Cluster{Server: g.URL, CertificateAuthorityData: g.caPEM}
	cfg.AuthInfos["triage-agent"] = &clientcmdapi.AuthInfo{Token: g.token}
	cfg.Contexts["triage"] = &clientcmdapi.Context{Cluster: "triage", AuthInfo: "triage-agent", Namespace: namespace}
	cfg.CurrentContext = "triage"
	return clientcmd.Write(*cfg)
}

// Counts returns the requests seen and denied so far.
func (g *Gateway) Counts() (total, denied int) { return int(g.total.Load()), int(g.deny.Load()) }

// Stop closes the listener and every connection (watches included); the
// token dies with the process memory that held it.
func (g *Gateway) Stop() error {
	g.stopOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		g.stopErr = g.srv.Shutdown(ctx)
		if errors.Is(g.stopErr, context.DeadlineExceeded) {
			g.stopErr = g.srv.Close() // long-running watches do not end by themselves
		}
		g.audit.Close()
	})
	return g.stopErr
}

// recorder keeps the status code and body size for the audit line, and
// passes flushes through so streams are not buffered.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	// keep is how much of the body to keep for the claims check (0: none);
	// body holds it.
	keep int64
	body []byte
}

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(p)
	r.bytes += int64(n)
	if room := r.keep - int64(len(r.body)); room > 0 {
		r.body = append(r.body, p[:min(int64(n), room)]...)
	}
	return n, err
}

func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) code() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// writeStatus answers like the API server: a metav1.Status, so kubectl
// prints "Error from server (Forbidden): …".
func writeStatus(w http.ResponseWriter, code int, message, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": message, "reason": reason, "code": code,
	})
}

// auditEntry is one line of output/audit.jsonl.
type auditEntry struct {
	Time        time.Time `json:"time"`
	Method      string    `json:"method"`
	Verb        string    `json:"verb"`
	Path        string    `json:"path"`
	Query       string    `json:"query,omitempty"`
	Resource    string    `json:"resource,omitempty"`
	Subresource string    `json:"subresource,omitempty"`
	Namespace   string    `json:"namespace,omitempty"`
	Name        string    `json:"name,omitempty"`
	Code        int       `json:"code"`
	Allowed     bool      `json:"allowed"`
	Reason      string    `json:"reason,omitempty"`
	Bytes       int64     `json:"bytes"`
	DurationMS  int64     `json:"durationMs"`
	UserAgent   string    `json:"userAgent,omitempty"`
}

// ephemeralTLS makes a CA and a loopback serving certificate signed by it;
// both live only in memory (the CA certificate also goes to the agent's
// kubeconfig, its key nowhere).
func ephemeralTLS() (caPEM []byte, serving tls.Certificate, err error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubectl-triage gateway CA"},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "kubectl-triage gateway"},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	caPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	return caPEM, tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
