// Package mcpserve is `kubectl triage mcp`: an MCP server (the MCP go-sdk's)
// that lets an AI assistant triage a workload, read past incidents and their
// evidence, and see what is failing in a namespace. It drives the same engine
// as the one-shot command (pkg/triage, through an Engine the command
// supplies), so an incident made here has the same workspace, incident.json
// and report as one made on the command line, and the same read-only
// guarantees: every tool only reads, and evidence crosses the redaction pass
// again before it leaves.
//
// Limits: at most Options.MaxConcurrent triages at once (a namespace overview
// counts as one), a deadline per call, arguments of bounded length, and a
// size cap on every text and every structured result returned.
// Every call is logged with the client's name.
package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/redact"
	"github.com/kubectl-triage/kubectl-triage/pkg/store"
	"github.com/kubectl-triage/kubectl-triage/pkg/term"
	"github.com/kubectl-triage/kubectl-triage/pkg/triage"
)

// Defaults of the limits.
const (
	DefaultMaxConcurrent = 2
	DefaultCallTimeout   = 15 * time.Minute
	DefaultMaxOutput     = 64 << 10
)

// TriageRequest names what to triage, as the one-shot command's arguments do.
type TriageRequest struct {
	Target    string // TYPE/NAME, or a pod NAME
	Namespace string // "" means the kubeconfig context's namespace
	Context   string // kubeconfig context; "" means the current one
}

// Cluster is one kubeconfig context's read-only access.
type Cluster struct {
	Client kubernetes.Interface
	Info   bundle.ClusterInfo // Info.Namespace is the context's namespace
	// Get fetches one object the way the one-shot command resolves its
	// arguments (TYPE NAME, through the read-only client).
	Get func(namespace, typ, name string) (*unstructured.Unstructured, error)
}

// Engine is how the server reaches the cluster and the triage engine; the
// command implements it with the user's kubeconfig flags, exactly as the
// one-shot command uses them.
type Engine interface {
	// Triage resolves the target and runs pkg/triage on it, reporting
	// steps through progress. An error means no incident was created.
	Triage(ctx context.Context, req TriageRequest, report progress.Func) (*triage.Result, error)
	// Cluster returns the read-only access of a kubeconfig context ("" is
	// the current one).
	Cluster(ctx context.Context, contextName string) (*Cluster, error)
}

// Options configure a Server.
type Options struct {
	Engine        Engine
	WorkspaceRoot string
	// MaxConcurrent bounds the triages (and namespace overviews) running at
	// once; more wait for a slot within their call's deadline.
	MaxConcurrent int
	// CallTimeout bounds each call of the engine's tools (triage,
	// triage_namespace), waiting for a slot included.
	CallTimeout time.Duration
	// ReadTimeout bounds each call of the other tools and each resource
	// read.
	ReadTimeout time.Duration
	// MaxOutput caps, in bytes, each text a tool or resource returns.
	MaxOutput int
	// Logger logs every call; nil discards.
	Logger  *slog.Logger
	Version string
}

// Server is the MCP server.
type Server struct {
	opts  Options
	mcp   *mcp.Server
	store *store.Store
	slots chan struct{}
	log   *slog.Logger

	// base ends when the server stops: every call in flight is cancelled
	// then, and inflight lets the server wait for them to wind down (their
	// incidents recorded, their agents gone) before it exits.
	base     context.Context
	stop     context.CancelFunc
	inflight sync.WaitGroup

	listedMu sync.Mutex
	listed   []string // report resource URIs listed, oldest first
}

// New builds the server with its tools, resources and prompt.
func New(opts Options) (*Server, error) {
	if opts.Engine == nil {
		return nil, errors.New("mcpserve: no engine")
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = DefaultMaxConcurrent
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = DefaultReadTimeout
	}
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	st, err := store.New(opts.WorkspaceRoot)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: opts, store: st, slots: make(chan struct{}, opts.MaxConcurrent), log: opts.Logger}
	s.base, s.stop = context.WithCancel(context.Background())
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "kubectl-triage", Title: "kubectl triage", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}})
	s.mcp.AddReceivingMiddleware(s.logging, s.bound)
	s.addTools()
	s.addResources()
	s.addPrompts()
	return s, nil
}

// MCP is the go-sdk server, to run on a transport.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// instructions tell the assistant how the tools fit together.
const instructions = `kubectl-triage investigates failing Kubernetes resources, read-only.
Call "triage" with the failing resource (TYPE/NAME or a pod name, and its namespace) first: it returns
the root cause with a confidence, the evidence (each with the kubectl command that shows it) and
proposed fixes that were never run. Use "get_evidence" to read a file the report cites, and
"triage_namespace" when you do not know which resource is failing. Propose fixes to the user; this
server cannot and will not change the cluster.`

// logging logs every request with the client's name, how long it took and
// how it ended.
func (s *Server) logging(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		start := time.Now()
		res, err := next(ctx, method, req)
		attrs := []any{"method", method, "client", clientName(req), "took", time.Since(start).Round(time.Millisecond).String()}
		if p, ok := req.(*mcp.CallToolRequest); ok && p.Params != nil {
			attrs = append(attrs, "tool", term.Abbrev(p.Params.Name)) // a hostile name is not logged whole
			if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
				attrs = append(attrs, "tool_error", true)
			}
		}
		if p, ok := req.(*mcp.ReadResourceRequest); ok && p.Params != nil {
			attrs = append(attrs, "uri", term.Abbrev(p.Params.URI))
		}
		switch {
		case err != nil:
			s.log.Warn("mcp call failed", append(attrs, "error", err)...)
		case method == "notifications/initialized" || method == "ping":
			s.log.Debug("mcp call", attrs...)
		default:
			s.log.Info("mcp call", attrs...)
		}
		return res, err
	}
}

// clientName is the calling client's name: per request in the newest
// protocol, from the session's initialize otherwise.
func clientName(req mcp.Request) string {
	if req == nil {
		return ""
	}
	// A notification's params may be a typed nil.
	if p := req.GetParams(); p != nil && !reflect.ValueOf(p).IsNil() {
		if m := p.GetMeta(); m != nil {
			if ci, ok := m[mcp.MetaKeyClientInfo].(map[string]any); ok {
				if n, ok := ci["name"].(string); ok && n != "" {
					return n
				}
			}
			if ci, ok := m[mcp.MetaKeyClientInfo].(*mcp.Implementation); ok && ci != nil {
				return ci.Name
			}
		}
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil {
		if ip := ss.InitializeParams(); ip != nil && ip.ClientInfo != nil {
			return ip.ClientInfo.Name
		}
	}
	return ""
}

// acquire waits for a triage slot until ctx ends; the returned release
// gives it back.
func (s *Server) acquire(ctx context.Context, report progress.Func) (release func(), err error) {
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	default:
	}
	report.Printf("Waiting for a slot: %d triages are running, the most this server runs at once", cap(s.slots))
	select {
	case s.slots <- struct{}{}:
		return func() { <-s.slots }, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("no triage slot became free: %w", context.Cause(ctx))
	}
}

// progressFor returns a progress reporter for a call: MCP progress
// notifications when the client asked for them (a progress token), and a
// debug log line either way.
func (s *Server) progressFor(ctx context.Context, req *mcp.CallToolRequest) progress.Func {
	var token any
	if req.Params != nil {
		token = req.Params.GetProgressToken()
	}
	var mu sync.Mutex // the engine and the agent's output reader report concurrently
	n := 0
	client := clientName(req)
	return func(ev progress.Event) {
		// Progress quotes the fault, the cluster and the agent's tool
		// calls: it reaches the client as every other result does.
		msg := redact.Clean(ev.String())
		s.log.Debug("progress", "client", client, "tool", req.Params.Name, "message", msg)
		if token == nil || req.Session == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		n++
		// A client that went away must not fail the run: ignore errors.
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Message: msg, Progress: float64(n)})
	}
}

// shutdownWait bounds how long a stopping server waits for its calls to
// wind down: an agent gets its --wait-delay to stop, then is killed.
const shutdownWait = 2 * time.Minute

// Shutdown cancels every call in flight and waits for them to finish.
func (s *Server) Shutdown() {
	s.stop()
	done := make(chan struct{})
	go func() { s.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(shutdownWait):
		s.log.Error("calls still running after the server stopped", "waited", shutdownWait.String())
	}
}
