// Package egress is the only way out of an agent's network namespace
// (DESIGN.md §8 layer 0). The plugin serves each way out on a unix socket in
// a private directory; the sandbox init, inside the namespace, listens on
// loopback ports and relays every connection to those sockets. Two kinds:
//
//   - a forward: a loopback address the agent connects to as is (the
//     read-only gateway, a model endpoint on the user's loopback), relayed to
//     the same address outside;
//   - the proxy: an HTTP proxy (CONNECT, and absolute-form requests for
//     plain-http endpoints) that lets through only the model API hosts of the
//     agent's definition, chained to the user's own HTTPS_PROXY when set.
//
// Everything else is unreachable from inside by construction: the namespace
// has no other interface. Each proxied connection, allowed or denied, is one
// line of output/audit.jsonl.
package egress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/auditlog"
	"github.com/kubectl-triage/kubectl-triage/pkg/owner"
)

// Config says what the agent may reach.
type Config struct {
	// Allow are host:port pairs the proxy lets through (the model API).
	Allow []string
	// Gateway is the read-only gateway's loopback host:port, relayed as it
	// is; the gateway audits and counts its own requests.
	Gateway string
	// Forwards are further loopback host:port addresses relayed as they are
	// (a model endpoint on the user's loopback).
	Forwards []string
	// Upstream is the user's own proxy (HTTPS_PROXY), chained to for
	// allowed connections; nil dials directly.
	Upstream *url.URL
	// AuditPath is output/audit.jsonl; empty audits nothing.
	AuditPath string
	// FailuresBeforeUnreachable consecutive failed dials to allowed
	// destinations, with no success between, end the run (default 3).
	FailuresBeforeUnreachable int
	// Dial replaces net.Dialer for tests.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Socket is one way out: the agent connects to Addr inside the namespace,
// which the init relays to Name in the socket directory.
type Socket struct {
	Addr string // 127.0.0.1:PORT inside
	Name string // file name in Dir
}

// Hub serves one agent run's ways out.
type Hub struct {
	// Dir holds the sockets (0700, in TMPDIR, named after its owner: see
	// Sweep).
	Dir string
	// Sockets are what the init must listen on; ProxyURL is the proxy's
	// address inside the namespace, for the agent's HTTPS_PROXY.
	Sockets  []Socket
	ProxyURL string

	cfg       Config
	allow     map[string]bool
	listeners []net.Listener
	srv       *http.Server
	audit     *auditlog.Log
	wg        sync.WaitGroup
	closed    atomic.Bool

	allowed, denied, failed atomic.Int64

	mu          sync.Mutex
	consecutive int
	unreachable chan error
	reported    bool
}

// Start creates the socket directory and serves every way out.
func Start(cfg Config) (*Hub, error) {
	if cfg.FailuresBeforeUnreachable <= 0 {
		cfg.FailuresBeforeUnreachable = 3
	}
	if cfg.Dial == nil {
		d := &net.Dialer{Timeout: 15 * time.Second, KeepAlive: 30 * time.Second}
		cfg.Dial = d.DialContext
	}
	allow := map[string]bool{}
	for _, a := range cfg.Allow {
		hp, err := normalizeHostPort(a, "443")
		if err != nil {
			return nil, fmt.Errorf("egress: allowed host %q: %w", a, err)
		}
		allow[hp] = true
	}
	// A run killed before Close (kill -9) leaves its directory: the next
	// run takes it away, as gc does.
	Sweep()
	dir, err := os.MkdirTemp("", dirPrefix+owner.Self().Token()+"-")
	if err != nil {
		return nil, fmt.Errorf("egress: socket directory: %w", err)
	}
	h := &Hub{Dir: dir, cfg: cfg, allow: allow, unreachable: make(chan error, 1)}
	if cfg.AuditPath != "" {
		if h.audit, err = auditlog.Open(cfg.AuditPath); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("egress: %w", err)
		}
	}
	used := map[string]bool{}
	forwards := cfg.Forwards
	if cfg.Gateway != "" {
		forwards = append([]string{cfg.Gateway}, forwards...)
	}
	for i, f := range forwards {
		gateway := cfg.Gateway != "" && i == 0
		addr, err := normalizeHostPort(f, "")
		if err != nil || !isLoopback(addr) {
			h.Close()
			return nil, fmt.Errorf("egress: forward %q must be a loopback host:port", f)
		}
		name := "f" + strconv.Itoa(i) + ".sock"
		ln, err := h.listen(name)
		if err != nil {
			h.Close()
			return nil, err
		}
		_, port, _ := net.SplitHostPort(addr)
		used[port] = true
		h.Sockets = append(h.Sockets, Socket{Addr: net.JoinHostPort("127.0.0.1", port), Name: name})
		h.serve(ln, func(c net.Conn) { h.forward(c, addr, gateway) })
	}
	ln, err := h.listen("proxy.sock")
	if err != nil {
		h.Close()
		return nil, err
	}
	port := proxyPort(used)
	h.ProxyURL = "http://127.0.0.1:" + port
	h.Sockets = append(h.Sockets, Socket{Addr: "127.0.0.1:" + port, Name: "proxy.sock"})
	h.srv = &http.Server{Handler: http.HandlerFunc(h.serveProxy), ReadHeaderTimeout: 30 * time.Second}
	h.wg.Add(1)
	go func() { defer h.wg.Done(); h.srv.Serve(ln) }()
	return h, nil
}

// proxyPort picks the proxy's port inside the namespace (any free one: the
// namespace's ports are its own), avoiding the forwarded ones.
func proxyPort(used map[string]bool) string {
	for p := 3128; ; p++ {
		if s := strconv.Itoa(p); !used[s] {
			return s
		}
	}
}

func (h *Hub) listen(name string) (net.Listener, error) {
	ln, err := net.Listen("unix", filepath.Join(h.Dir, name))
	if err != nil {
		return nil, fmt.Errorf("egress: listen: %w", err)
	}
	h.listeners = append(h.listeners, ln)
	return ln, nil
}

func (h *Hub) serve(ln net.Listener, handle func(net.Conn)) {
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go handle(c)
		}
	}()
}

// forward relays one connection to a loopback address outside.
func (h *Hub) forward(c net.Conn, addr string, gateway bool) {
	defer c.Close()
	start := time.Now()
	up, err := h.cfg.Dial(context.Background(), "tcp", addr)
	if err != nil {
		h.dialFailed(addr, err)
		h.record(entry{Method: "FORWARD", Host: addr, Allowed: true, Code: 502, Reason: "dial: " + err.Error(), DurationMS: ms(start)})
		return
	}
	h.dialed()
	defer up.Close()
	n := pipe(c, up)
	if gateway {
		return // the gateway audits and counts its own requests
	}
	h.allowed.Add(1)
	h.record(entry{Method: "FORWARD", Host: addr, Allowed: true, Code: 200, Bytes: n, DurationMS: ms(start)})
}

// Unreachable fires once when the model API could not be reached several
// times in a row: the run should end then, not at its timeout.
func (h *Hub) Unreachable() <-chan error { return h.unreachable }

// Counts are the proxied connections allowed and denied, and the dials to
// allowed destinations that failed.
func (h *Hub) Counts() (allowed, denied, failed int) {
	return int(h.allowed.Load()), int(h.denied.Load()), int(h.failed.Load())
}

func (h *Hub) dialed() {
	h.mu.Lock()
	h.consecutive = 0
	h.mu.Unlock()
}

func (h *Hub) dialFailed(addr string, err error) {
	h.failed.Add(1)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.consecutive++
	if h.consecutive >= h.cfg.FailuresBeforeUnreachable && !h.reported {
		h.reported = true
		h.unreachable <- fmt.Errorf("could not reach %s through the egress proxy: %v", addr, err)
	}
}

// Close stops serving and removes the socket directory.
func (h *Hub) Close() error {
	if !h.closed.CompareAndSwap(false, true) {
		return nil
	}
	if h.srv != nil {
		h.srv.Close()
	}
	for _, ln := range h.listeners {
		ln.Close()
	}
	h.wg.Wait()
	if h.audit != nil {
		h.audit.Close()
	}
	return os.RemoveAll(h.Dir)
}

// pipe copies both ways until either side is done and returns the bytes
// that came back from upstream.
func pipe(c, up net.Conn) int64 {
	done := make(chan struct{})
	go func() {
		io.Copy(up, c)
		if cw, ok := up.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		close(done)
	}()
	n, _ := io.Copy(c, up)
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	<-done
	return n
}

func normalizeHostPort(s, defPort string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("empty")
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		if defPort == "" {
			return "", err
		}
		host, port = strings.Trim(s, "[]"), defPort
	}
	if host == "" {
		return "", errors.New("no host")
	}
	if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
		return "", fmt.Errorf("bad port %q", port)
	}
	return net.JoinHostPort(strings.ToLower(strings.TrimSuffix(host, ".")), port), nil
}

// isLoopback is true for 127.0.0.0/8, ::1 and localhost.
func isLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// IsLoopbackURL reports whether a base URL points at this machine's
// loopback (a local model gateway): such endpoints are forwarded, not
// proxied, because clients never proxy loopback.
func IsLoopbackURL(u *url.URL) bool {
	return isLoopback(HostPort(u))
}

// HostPort is u's host:port with the scheme's default port.
func HostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}

func ms(start time.Time) int64 { return time.Since(start).Milliseconds() }
