package egress

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// viaSocket is an HTTP client whose every connection goes to the hub's
// socket, as the init's relay inside the namespace does.
func viaSocket(h *Hub, name string) *http.Client {
	proxyURL, _ := url.Parse(h.ProxyURL)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		Proxy: http.ProxyURL(proxyURL),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", filepath.Join(h.Dir, name))
		},
	}}
}

func auditLines(t *testing.T, path string) []entry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if l == "" {
			continue
		}
		var e entry
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("audit line %q: %v", l, err)
		}
		out = append(out, e)
	}
	return out
}

func TestProxyAllowsOnlyTheModelHosts(t *testing.T) {
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "model saw %s %s", r.Method, r.URL.Path)
	}))
	defer model.Close()
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "leaked") }))
	defer other.Close()
	modelTLS := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "tls model") }))
	defer modelTLS.Close()

	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	mu, _ := url.Parse(model.URL)
	tu, _ := url.Parse(modelTLS.URL)
	h, err := Start(Config{Allow: []string{mu.Host, tu.Host}, AuditPath: audit})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	c := viaSocket(h, "proxy.sock")

	// Plain http through the proxy (absolute-form).
	resp, err := c.Post(model.URL+"/v1/messages", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "model saw POST /v1/messages" {
		t.Errorf("allowed request: %d %q", resp.StatusCode, body)
	}
	// https through CONNECT.
	tc := viaSocket(h, "proxy.sock")
	tc.Transport.(*http.Transport).TLSClientConfig = modelTLS.Client().Transport.(*http.Transport).TLSClientConfig
	resp, err = tc.Get(modelTLS.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "tls model" {
		t.Errorf("CONNECT: %q", body)
	}
	// Anything else is refused, by both forms.
	resp, err = c.Get(other.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || strings.Contains(string(body), "leaked") {
		t.Errorf("other host: %d %q", resp.StatusCode, body)
	}
	conn, err := net.Dial("unix", filepath.Join(h.Dir, "proxy.sock"))
	if err != nil {
		t.Fatal(err)
	}
	ou, _ := url.Parse(other.URL)
	fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", ou.Host, ou.Host)
	r, err := http.ReadResponse(bufio.NewReader(conn), nil)
	conn.Close()
	if err != nil || r.StatusCode != http.StatusForbidden {
		t.Errorf("CONNECT to another host: %v %v", r, err)
	}

	allowed, denied, _ := h.Counts()
	if allowed != 2 || denied != 2 {
		t.Errorf("counts: allowed %d denied %d, want 2 and 2", allowed, denied)
	}
	h.Close()
	var gotDenied int
	for _, e := range auditLines(t, audit) {
		if e.Kind != "egress" {
			t.Errorf("kind %q", e.Kind)
		}
		if !e.Allowed {
			gotDenied++
			if e.Host != ou.Host || e.Code != http.StatusForbidden {
				t.Errorf("denied line: %+v", e)
			}
		}
	}
	if gotDenied != 2 {
		t.Errorf("audit has %d denied lines, want 2", gotDenied)
	}
}

func TestForwardRelaysLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "gateway") }))
	defer srv.Close()
	su, _ := url.Parse(srv.URL)
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "local model") }))
	defer model.Close()
	mu, _ := url.Parse(model.URL)
	h, err := Start(Config{Gateway: su.Host, Forwards: []string{mu.Host}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if len(h.Sockets) != 3 || h.Sockets[0].Addr != su.Host || h.Sockets[1].Addr != mu.Host || h.Sockets[2].Name != "proxy.sock" {
		t.Fatalf("sockets: %+v", h.Sockets)
	}
	get := func(s Socket) string {
		c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return net.Dial("unix", filepath.Join(h.Dir, s.Name))
		}}}
		resp, err := c.Get("http://" + s.Addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		c.CloseIdleConnections()
		return string(b)
	}
	if b := get(h.Sockets[0]); b != "gateway" {
		t.Errorf("forward: %q", b)
	}
	time.Sleep(200 * time.Millisecond) // the relay finishes after the client closes
	if allowed, _, _ := h.Counts(); allowed != 0 {
		t.Errorf("the gateway's connection was counted as the model's (allowed %d)", allowed)
	}
	if b := get(h.Sockets[1]); b != "local model" {
		t.Errorf("model forward: %q", b)
	}
	// The gateway counts its own requests; only the model's connection is
	// the egress hub's to count.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if allowed, _, _ := h.Counts(); allowed == 1 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("allowed %d, want 1 (the model's connection, not the gateway's)", allowed)
		}
	}
	if _, err := Start(Config{Forwards: []string{"10.0.0.1:443"}}); err == nil {
		t.Error("a non-loopback forward was accepted")
	}
}

func TestUnreachableModelEndsEarly(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close() // nothing listens there now
	h, err := Start(Config{Allow: []string{dead}, FailuresBeforeUnreachable: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	c := viaSocket(h, "proxy.sock")
	for i := 0; i < 3; i++ {
		resp, err := c.Get("http://" + dead + "/v1/responses")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("dial failure answered %d", resp.StatusCode)
		}
	}
	select {
	case err := <-h.Unreachable():
		if !strings.Contains(err.Error(), "could not reach "+dead+" through the egress proxy") {
			t.Errorf("reason: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("three failed dials did not end the run")
	}
}

func TestUpstreamProxyChain(t *testing.T) {
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "through corp proxy") }))
	defer target.Close()
	var sawAuth string
	corp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAuth = r.Header.Get("Proxy-Authorization")
		if r.Method != http.MethodConnect {
			http.Error(w, "connect only", 400)
			return
		}
		up, err := net.Dial("tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		c, _, _ := w.(http.Hijacker).Hijack()
		c.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n"))
		go io.Copy(up, c)
		io.Copy(c, up)
		c.Close()
	}))
	defer corp.Close()
	cu, _ := url.Parse(corp.URL)
	cu.User = url.UserPassword("me", "pw")
	tu, _ := url.Parse(target.URL)
	h, err := Start(Config{Allow: []string{tu.Host}, Upstream: cu})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	resp, err := viaSocket(h, "proxy.sock").Get(target.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "through corp proxy" || sawAuth == "" {
		t.Errorf("chained: %q (proxy auth %q)", b, sawAuth)
	}
}

func TestHostPort(t *testing.T) {
	for in, want := range map[string]string{"https://api.anthropic.com": "api.anthropic.com:443", "http://127.0.0.1:8080/v1": "127.0.0.1:8080", "http://localhost": "localhost:80"} {
		u, _ := url.Parse(in)
		if got := HostPort(u); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	u, _ := url.Parse("http://localhost:9/x")
	if !IsLoopbackURL(u) {
		t.Error("localhost is loopback")
	}
	u, _ = url.Parse("https://api.openai.com/v1")
	if IsLoopbackURL(u) {
		t.Error("api.openai.com is not loopback")
	}
}
