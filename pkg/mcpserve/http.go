package mcpserve

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Path is where the HTTP mode serves MCP.
const Path = "/mcp"

// ServeStdio serves one client on stdin/stdout until it disconnects or ctx
// ends. Nothing else may write to stdout meanwhile.
func (s *Server) ServeStdio(ctx context.Context) error {
	s.log.Info("serving MCP on stdio")
	err := s.mcp.Run(ctx, &mcp.StdioTransport{})
	// The client is gone (or we were interrupted): its calls are
	// cancelled, and their incidents recorded, before the process exits.
	s.Shutdown()
	if ctx.Err() != nil || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// HTTPOptions configure the streamable HTTP mode.
type HTTPOptions struct {
	// Token is the bearer token every request must carry.
	Token string
	// CertFile and KeyFile serve HTTPS when both are set.
	CertFile, KeyFile string
	// AllowOrigins are the Origins trusted besides loopback ones
	// (normalized by ParseOrigin).
	AllowOrigins []string
	// Ready, if set, is called with the endpoint URL once listening.
	Ready func(url string)
}

// ServeHTTP serves streamable HTTP on ln until ctx ends, then shuts down,
// cancelling the calls in flight.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opts HTTPOptions) error {
	if opts.Token == "" {
		return errors.New("the HTTP mode needs a bearer token")
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger: s.log.With("component", "mcp-http"),
		// A client that drops its request stops the triage it started.
		PropagateRequestCancellation: true,
		SessionTimeout:               30 * time.Minute,
	})
	mux := http.NewServeMux()
	// Origin first: a page in the user's browser is refused whatever it
	// knows. The go-sdk's own check (a loopback listener refuses a Host
	// header that is not loopback) stays on behind it.
	mux.Handle(Path, s.checkOrigin(opts.AllowOrigins, s.requireToken(opts.Token, handler)))
	base, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		// Calls in flight see the server's end as a cancellation.
		BaseContext: func(net.Listener) context.Context { return base },
	}
	scheme := "http"
	if opts.CertFile != "" {
		scheme = "https"
	}
	url := fmt.Sprintf("%s://%s%s", scheme, ln.Addr().String(), Path)
	s.log.Info("serving MCP over streamable HTTP", "url", url)
	if opts.Ready != nil {
		opts.Ready(url)
	}
	errc := make(chan error, 1)
	go func() {
		if opts.CertFile != "" {
			errc <- srv.ServeTLS(ln, opts.CertFile, opts.KeyFile)
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		s.Shutdown()
		return err
	case <-ctx.Done():
	}
	s.Shutdown()
	cancel()
	shutdown, done := context.WithTimeout(context.Background(), 10*time.Second)
	defer done()
	if err := srv.Shutdown(shutdown); err != nil {
		srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// requireToken answers 401 to a request without the bearer token, before
// anything of MCP sees it. The comparison is constant-time (on digests, so
// the token's length does not leak either).
func (s *Server) requireToken(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(strings.TrimSpace(got)))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			s.log.Warn("mcp request refused: missing or wrong bearer token", "remote", r.RemoteAddr, "method", r.Method)
			w.Header().Set("WWW-Authenticate", `Bearer realm="kubectl-triage"`)
			http.Error(w, "unauthorized: this kubectl-triage MCP server needs the bearer token from its --token-file", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// IsLoopback reports whether a listen address's host is a loopback one
// (localhost, 127.0.0.0/8, ::1).
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}
