package egress

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"time"
)

// serveProxy is the agent's HTTP proxy: CONNECT for https endpoints and
// absolute-form requests for plain-http ones, to allowed hosts only.
func (h *Hub) serveProxy(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if r.Method == http.MethodConnect {
		h.connect(w, r, start)
		return
	}
	if r.URL.Host == "" || r.URL.Scheme != "http" {
		h.deny(w, r.Method, r.Host, http.StatusBadRequest, "not a proxy request", start)
		return
	}
	target := HostPort(r.URL)
	if !h.allowed1(target) {
		h.deny(w, r.Method, target, http.StatusForbidden, "host is not in the agent's model API allow-list", start)
		return
	}
	var failed error
	rp := &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.Out.Header.Del("Proxy-Authorization")
			pr.Out.Header.Del("Proxy-Connection")
		},
		Transport: &http.Transport{
			DialContext:       func(ctx context.Context, _, _ string) (net.Conn, error) { return h.dialAllowed(ctx, target) },
			DisableKeepAlives: true,
		},
		FlushInterval: -1, // model responses stream (SSE)
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			failed = err
			http.Error(w, "kubectl-triage egress: "+err.Error(), http.StatusBadGateway)
		},
	}
	cw := &countingWriter{ResponseWriter: w}
	rp.ServeHTTP(cw, r)
	e := entry{Method: r.Method, Host: target, Allowed: true, Code: cw.status(), Bytes: cw.n, DurationMS: ms(start)}
	if failed != nil {
		e.Reason = failed.Error()
	} else {
		h.allowed.Add(1)
	}
	h.record(e)
}

func (h *Hub) connect(w http.ResponseWriter, r *http.Request, start time.Time) {
	target, err := normalizeHostPort(r.Host, "443")
	if err != nil {
		h.deny(w, "CONNECT", r.Host, http.StatusBadRequest, "bad CONNECT target", start)
		return
	}
	if !h.allowed1(target) {
		h.deny(w, "CONNECT", target, http.StatusForbidden, "host is not in the agent's model API allow-list", start)
		return
	}
	up, err := h.dialAllowed(r.Context(), target)
	if err != nil {
		http.Error(w, "kubectl-triage egress: "+err.Error(), http.StatusBadGateway)
		h.record(entry{Method: "CONNECT", Host: target, Allowed: true, Code: http.StatusBadGateway, Reason: err.Error(), DurationMS: ms(start)})
		return
	}
	defer up.Close()
	hj, ok := w.(http.Hijacker)
	if !ok {
		http.Error(w, "hijack unsupported", http.StatusInternalServerError)
		return
	}
	c, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	defer c.Close()
	if _, err := c.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		return
	}
	// Bytes the client sent right behind its CONNECT (a TLS hello) are in
	// the server's buffer.
	if n := buf.Reader.Buffered(); n > 0 {
		b, _ := buf.Reader.Peek(n)
		up.Write(b)
	}
	h.allowed.Add(1)
	n := pipe(c, up)
	h.record(entry{Method: "CONNECT", Host: target, Allowed: true, Code: http.StatusOK, Bytes: n, DurationMS: ms(start)})
}

func (h *Hub) allowed1(target string) bool {
	hp, err := normalizeHostPort(target, "443")
	return err == nil && h.allow[hp]
}

func (h *Hub) deny(w http.ResponseWriter, method, target string, code int, reason string, start time.Time) {
	h.denied.Add(1)
	http.Error(w, "kubectl-triage egress: "+target+": "+reason, code)
	h.record(entry{Method: method, Host: target, Allowed: false, Code: code, Reason: reason, DurationMS: ms(start)})
}

// dialAllowed reaches an allowed destination, through the user's proxy when
// one is set, and feeds the unreachable watchdog.
func (h *Hub) dialAllowed(ctx context.Context, target string) (net.Conn, error) {
	c, err := h.dialVia(ctx, target)
	if err != nil {
		h.dialFailed(target, err)
		return nil, err
	}
	h.dialed()
	return c, nil
}

func (h *Hub) dialVia(ctx context.Context, target string) (net.Conn, error) {
	up := h.cfg.Upstream
	if up == nil {
		return h.cfg.Dial(ctx, "tcp", target)
	}
	c, err := h.cfg.Dial(ctx, "tcp", HostPort(up))
	if err != nil {
		return nil, fmt.Errorf("your proxy %s: %w", up.Host, err)
	}
	req := "CONNECT " + target + " HTTP/1.1\r\nHost: " + target + "\r\n"
	if u := up.User; u != nil {
		pw, _ := u.Password()
		req += "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pw)) + "\r\n"
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.Write([]byte(req + "\r\n")); err != nil {
		c.Close()
		return nil, fmt.Errorf("your proxy %s: %w", up.Host, err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodConnect})
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("your proxy %s: %w", up.Host, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		c.Close()
		return nil, fmt.Errorf("your proxy %s refused %s: %s", up.Host, target, resp.Status)
	}
	c.SetDeadline(time.Time{})
	if br.Buffered() > 0 {
		c.Close()
		return nil, fmt.Errorf("your proxy %s sent data before the tunnel", up.Host)
	}
	return c, nil
}

type countingWriter struct {
	http.ResponseWriter
	code int
	n    int64
}

func (c *countingWriter) WriteHeader(code int) { c.code = code; c.ResponseWriter.WriteHeader(code) }
func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.ResponseWriter.Write(p)
	c.n += int64(n)
	return n, err
}
func (c *countingWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
func (c *countingWriter) status() int {
	if c.code == 0 {
		return http.StatusOK
	}
	return c.code
}

// entry is one egress line of output/audit.jsonl, beside the gateway's API
// requests (kind tells them apart).
type entry struct {
	Time       time.Time `json:"time"`
	Kind       string    `json:"kind"`
	Method     string    `json:"method"`
	Host       string    `json:"host"`
	Code       int       `json:"code"`
	Allowed    bool      `json:"allowed"`
	Reason     string    `json:"reason,omitempty"`
	Bytes      int64     `json:"bytes"`
	DurationMS int64     `json:"durationMs"`
}

func (h *Hub) record(e entry) {
	if h.audit == nil {
		return
	}
	e.Time, e.Kind = time.Now().UTC(), "egress"
	h.audit.Write(e)
}
