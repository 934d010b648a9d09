// Package mcpserver is a stand-in for kubernetes-mcp-server's events feature,
// for tests and for trying `kubectl triage watch` without a cluster-side
// server: a stateful streamable-HTTP MCP server (the MCP go-sdk's) with the
// events_subscribe, events_list_subscriptions and events_unsubscribe tools,
// answering in the real server's text shapes, that sends what the test hands
// it as notifications/message to the sessions that subscribed.
//
// It keeps the real server's rules (see the fixtures README): nothing is
// sent to a session that did not call logging/setLevel (at the message's
// level or lower); faults go out at level warning with logger
// kubernetes/faults or kubernetes/resource-faults by mode, events at info
// with logger kubernetes/events; nothing is replayed.
//
// Tests drive it with Send/SendFrame/Replay and break it with
// DropConnections (every session gone, like a restart), CancelSubscriptions
// (subscriptions gone while streams stay open, like SIGTERM or a blip) and
// Close.
package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Subscription modes, and the loggers their notifications carry.
const (
	ModeFaults         = "faults"
	ModeResourceFaults = "resource-faults"
	ModeEvents         = "events"

	LoggerFaults            = "kubernetes/faults"
	LoggerResourceFaults    = "kubernetes/resource-faults"
	LoggerEvents            = "kubernetes/events"
	LoggerSubscriptionError = "kubernetes/subscription_error"
)

// Tool names of the events feature.
const (
	ToolSubscribe         = "events_subscribe"
	ToolListSubscriptions = "events_list_subscriptions"
	ToolUnsubscribe       = "events_unsubscribe"
)

var modeLoggers = map[string]string{
	ModeFaults:         LoggerFaults,
	ModeResourceFaults: LoggerResourceFaults,
	ModeEvents:         LoggerEvents,
}

// defaultLevels are the levels the real server sends each logger at.
var defaultLevels = map[string]string{
	LoggerFaults:            "warning",
	LoggerResourceFaults:    "warning",
	LoggerEvents:            "info",
	LoggerSubscriptionError: "error",
}

// Options configures a Server.
type Options struct {
	// Addr is the listen address; default 127.0.0.1:0 (a free port). Give a
	// fixed one to restart a server on the same endpoint.
	Addr string
	// Token, when set, is the bearer token every request must carry
	// (Authorization: Bearer <Token>); others get 401.
	Token string
	// Cluster is the `cluster` the subscriptions report and every fault
	// or event notification carries (the real server's kubeconfig context,
	// empty for a single-cluster server).
	Cluster string
	// Modes are the subscription modes events_subscribe accepts; default
	// faults, resource-faults and events. Current real servers accept only
	// faults and events.
	Modes []string
	// Tools are the tools the server offers; default all three events
	// tools. Give another set to play a server without the events feature.
	Tools []string
	// Logger gets the server's activity; nil discards it.
	Logger *slog.Logger
}

// Filters are an events-mode subscription's filters.
type Filters struct {
	Namespaces        []string `json:"namespaces,omitempty"`
	Type              string   `json:"type,omitempty"`
	Reason            string   `json:"reason,omitempty"`
	LabelSelector     string   `json:"labelSelector,omitempty"`
	InvolvedKind      string   `json:"involvedKind,omitempty"`
	InvolvedName      string   `json:"involvedName,omitempty"`
	InvolvedNamespace string   `json:"involvedNamespace,omitempty"`
}

// Subscription is one active subscription.
type Subscription struct {
	ID        string
	SessionID string
	Mode      string
	Filters   Filters
	Degraded  bool
	CreatedAt time.Time
	// LogLevel is the level the session set with logging/setLevel; empty
	// when it set none (the session gets nothing).
	LogLevel string
}

type subscription struct {
	Subscription
	session *mcp.ServerSession
}

// Server is the test server. Create it with New, then Start it.
type Server struct {
	opts   Options
	logger *slog.Logger
	mcp    *mcp.Server

	mu       sync.Mutex
	subs     []*subscription               // in creation order
	levels   map[*mcp.ServerSession]string // logging/setLevel per session
	watched  map[*mcp.ServerSession]bool   // sessions whose end is awaited
	changed  chan struct{}                 // closed and replaced on every change
	listener net.Listener
	http     *http.Server
	endpoint string
}

// New returns a server that is not listening yet.
func New(opts Options) *Server {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.Modes == nil {
		opts.Modes = []string{ModeFaults, ModeResourceFaults, ModeEvents}
	}
	if opts.Tools == nil {
		opts.Tools = []string{ToolSubscribe, ToolListSubscriptions, ToolUnsubscribe}
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		opts:    opts,
		logger:  logger,
		levels:  map[*mcp.ServerSession]string{},
		watched: map[*mcp.ServerSession]bool{},
		changed: make(chan struct{}),
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "kubernetes-mcp-server", Title: "mcpserver (test stand-in for kubernetes-mcp-server)", Version: "0.0.0"},
		&mcp.ServerOptions{Logger: logger})
	// The SDK keeps the session's level to itself; record it too, to tell
	// which subscribers can receive anything.
	s.mcp.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "logging/setLevel" && err == nil {
				ss, _ := req.GetSession().(*mcp.ServerSession)
				p, _ := req.GetParams().(*mcp.SetLoggingLevelParams)
				if ss != nil && p != nil {
					s.setLevel(ss, string(p.Level))
				}
			}
			return res, err
		}
	})
	s.addTools()
	return s
}

// Start listens and serves; it returns the endpoint, http://127.0.0.1:PORT/mcp.
func (s *Server) Start() (string, error) {
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return "", fmt.Errorf("listen on %s: %w", s.opts.Addr, err)
	}
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{Logger: s.logger})
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.authenticate(handler))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}

	s.mu.Lock()
	s.listener, s.http = ln, srv
	s.endpoint = "http://" + ln.Addr().String() + "/mcp"
	s.mu.Unlock()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.logger.Error("serve", "error", err)
		}
	}()
	s.logger.Info("serving", "endpoint", s.endpoint)
	return s.endpoint, nil
}

// Endpoint is the URL Start returned.
func (s *Server) Endpoint() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.endpoint
}

func (s *Server) authenticate(next http.Handler) http.Handler {
	if s.opts.Token == "" {
		return next
	}
	want := []byte("Bearer " + s.opts.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Close stops the server abruptly, like a crash: every session and
// connection ends and the subscriptions are gone.
func (s *Server) Close() error {
	s.mu.Lock()
	srv := s.http
	s.mu.Unlock()
	s.DropConnections()
	if srv == nil {
		return nil
	}
	return srv.Close()
}

// DropConnections ends every session, as a server restart does: open
// streams end, later requests on the old sessions get 404 (session
// missing), and the subscriptions are gone.
func (s *Server) DropConnections() {
	for ss := range s.mcp.Sessions() {
		_ = ss.Close()
	}
	s.mu.Lock()
	s.subs = nil
	clear(s.levels)
	s.notifyLocked()
	s.mu.Unlock()
}

// CancelSubscriptions forgets every subscription while sessions and their
// streams stay open: the stream looks alive but nothing more arrives (the
// real server on SIGTERM, or after a network blip).
func (s *Server) CancelSubscriptions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.subs = nil
	s.notifyLocked()
}

// Subscriptions returns the active subscriptions, oldest first.
func (s *Server) Subscriptions() []Subscription {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Subscription, 0, len(s.subs))
	for _, sub := range s.subs {
		v := sub.Subscription
		v.LogLevel = s.levels[sub.session]
		out = append(out, v)
	}
	return out
}

// WaitSubscribed waits until at least n subscriptions can receive faults:
// their session set a log level of warning or lower.
func (s *Server) WaitSubscribed(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		ready := 0
		for _, sub := range s.subs {
			if levelAllows(s.levels[sub.session], "warning") {
				ready++
			}
		}
		changed := s.changed
		s.mu.Unlock()
		if ready >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wait for %d subscriptions (have %d): %w", n, ready, ctx.Err())
		case <-changed:
		}
	}
}

// Send sends data as one notification per matching subscription; what is
// either a mode (faults, resource-faults, events) or a logger
// (kubernetes/faults, …, kubernetes/subscription_error), and the level is
// the one the real server uses for it. It returns how many notifications
// went out (subscribers without a sufficient log level get none).
func (s *Server) Send(what string, data json.RawMessage) (int, error) {
	logger := what
	if l, ok := modeLoggers[what]; ok {
		logger = l
	}
	level, ok := defaultLevels[logger]
	if !ok {
		return 0, fmt.Errorf("unknown mode or logger %q: want faults, resource-faults, events or a kubernetes/… logger", what)
	}
	return s.send(logger, level, data)
}

// SendFrame sends one notifications/message frame (a line of the fixtures'
// mcp-notifications.jsonl) to the matching subscriptions, with its own
// logger and level.
func (s *Server) SendFrame(frame []byte) (int, error) {
	var f struct {
		Method string `json:"method"`
		Params struct {
			Logger string          `json:"logger"`
			Level  string          `json:"level"`
			Data   json.RawMessage `json:"data"`
		} `json:"params"`
	}
	if err := json.Unmarshal(frame, &f); err != nil {
		return 0, fmt.Errorf("decode notification frame: %w", err)
	}
	if f.Method != "notifications/message" {
		return 0, fmt.Errorf("frame has method %q, want notifications/message", f.Method)
	}
	level := f.Params.Level
	if level == "" {
		level = defaultLevels[f.Params.Logger]
	}
	return s.send(f.Params.Logger, level, f.Params.Data)
}

// Replay sends every frame of a .jsonl file of notifications/message frames
// in order (blank lines skipped); it returns the notifications sent.
func (s *Server) Replay(path string) (int, error) {
	frames, err := ReadFrames(path)
	if err != nil {
		return 0, err
	}
	total := 0
	for i, f := range frames {
		n, err := s.SendFrame(f)
		if err != nil {
			return total, fmt.Errorf("%s: frame %d: %w", path, i+1, err)
		}
		total += n
	}
	return total, nil
}

// ReadFrames reads the non-blank lines of a .jsonl file.
func ReadFrames(path string) ([][]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read frames: %w", err)
	}
	return SplitFrames(b), nil
}

// SplitFrames splits .jsonl content into its non-blank lines.
func SplitFrames(b []byte) [][]byte {
	var frames [][]byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			frames = append(frames, bytes.Clone(line))
		}
	}
	return frames
}

// send delivers one notification per matching subscription, stamped with
// that subscription's ID as the real server does.
func (s *Server) send(logger, level string, data json.RawMessage) (int, error) {
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		// A hostile or broken server's frame (a string, an array): sent
		// as is to every subscription of the logger, unstamped, so
		// clients can be tested against it.
		var v any
		if json.Unmarshal(data, &v) != nil {
			return 0, fmt.Errorf("notification data is not JSON: %w", err)
		}
		return s.sendRaw(logger, level, v)
	}
	type target struct {
		session *mcp.ServerSession
		subID   string
	}
	var targets []target
	s.mu.Lock()
	if logger == LoggerSubscriptionError {
		// An error about one of our subscriptions goes to it alone and
		// marks it degraded; any other goes to every subscription.
		id, _ := obj["subscriptionId"].(string)
		degraded, _ := obj["degraded"].(bool)
		known := slices.ContainsFunc(s.subs, func(sub *subscription) bool { return sub.ID == id })
		for _, sub := range s.subs {
			if known && sub.ID != id {
				continue
			}
			if degraded {
				sub.Degraded = true
			}
			targets = append(targets, target{sub.session, sub.ID})
		}
	} else {
		for _, sub := range s.subs {
			if modeLoggers[sub.Mode] == logger && sub.Filters.match(obj) {
				targets = append(targets, target{sub.session, sub.ID})
			}
		}
	}
	levels := make([]string, len(targets))
	for i, t := range targets {
		levels[i] = s.levels[t.session]
	}
	s.mu.Unlock()

	sent := 0
	var errs []error
	for i, t := range targets {
		if !levelAllows(levels[i], level) {
			continue // the real server drops these silently
		}
		stamped := maps.Clone(obj)
		stamped["subscriptionId"] = t.subID
		// The real server names the cluster in every notification: by its
		// kubeconfig context when it runs with one (its default), "" with
		// --disable-multi-cluster.
		if _, ok := stamped["cluster"]; !ok && s.opts.Cluster != "" && logger != LoggerSubscriptionError {
			stamped["cluster"] = s.opts.Cluster
		}
		err := t.session.Log(context.Background(), &mcp.LoggingMessageParams{
			Logger: logger,
			Level:  mcp.LoggingLevel(level),
			Data:   stamped,
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("send to session %s: %w", t.session.ID(), err))
			continue
		}
		sent++
	}
	return sent, errors.Join(errs...)
}

func (s *Server) setLevel(ss *mcp.ServerSession, level string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.levels[ss] = level
	s.watchLocked(ss)
	s.notifyLocked()
}

// watchLocked forgets a session's state when it ends.
func (s *Server) watchLocked(ss *mcp.ServerSession) {
	if s.watched[ss] {
		return
	}
	s.watched[ss] = true
	go func() {
		_ = ss.Wait()
		s.mu.Lock()
		defer s.mu.Unlock()
		delete(s.watched, ss)
		delete(s.levels, ss)
		s.subs = slices.DeleteFunc(s.subs, func(sub *subscription) bool { return sub.session == ss })
		s.notifyLocked()
	}()
}

func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// match reports whether an events-mode notification's data passes the
// filters (label selectors are not evaluated: the data carries no labels
// of the involved object).
func (f Filters) match(data map[string]any) bool {
	ev, ok := data["event"].(map[string]any)
	if !ok {
		return true
	}
	str := func(m map[string]any, k string) string { v, _ := m[k].(string); return v }
	involved, _ := ev["involvedObject"].(map[string]any)
	if involved == nil {
		involved = map[string]any{}
	}
	ns := str(ev, "namespace")
	if ns == "" {
		ns = str(involved, "namespace")
	}
	switch {
	case len(f.Namespaces) > 0 && !slices.Contains(f.Namespaces, ns),
		f.Type != "" && !strings.EqualFold(f.Type, str(ev, "type")),
		f.Reason != "" && f.Reason != str(ev, "reason"),
		f.InvolvedKind != "" && f.InvolvedKind != str(involved, "kind"),
		f.InvolvedName != "" && f.InvolvedName != str(involved, "name"),
		f.InvolvedNamespace != "" && f.InvolvedNamespace != str(involved, "namespace"):
		return false
	}
	return true
}

// levelRanks orders the MCP (syslog) logging levels.
var levelRanks = map[string]int{
	"debug": 0, "info": 1, "notice": 2, "warning": 3, "error": 4, "critical": 5, "alert": 6, "emergency": 7,
}

// levelAllows reports whether a session that set level min receives a
// message at level.
func levelAllows(min, level string) bool {
	m, ok := levelRanks[min]
	if !ok {
		return false // no setLevel: nothing is sent
	}
	l, ok := levelRanks[level]
	return ok && l >= m
}

func newSubscriptionID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return "sub-" + hex.EncodeToString(b)
}

// sendRaw sends data that is not an object to every subscription of logger.
func (s *Server) sendRaw(logger, level string, data any) (int, error) {
	s.mu.Lock()
	var sessions []*mcp.ServerSession
	var levels []string
	for _, sub := range s.subs {
		if modeLoggers[sub.Mode] == logger {
			sessions = append(sessions, sub.session)
			levels = append(levels, s.levels[sub.session])
		}
	}
	s.mu.Unlock()
	sent := 0
	var errs []error
	for i, ss := range sessions {
		if !levelAllows(levels[i], level) {
			continue
		}
		if err := ss.Log(context.Background(), &mcp.LoggingMessageParams{Logger: logger, Level: mcp.LoggingLevel(level), Data: data}); err != nil {
			errs = append(errs, err)
			continue
		}
		sent++
	}
	return sent, errors.Join(errs...)
}
