// Package mcpsource is watch mode's mcp source (DESIGN.md §9): a client of
// kubernetes-mcp-server's events feature, on the MCP go-sdk over
// streamable HTTP.
//
// It connects (protocol pinned to 2025-11-25), calls logging/setLevel info
// (without it the server sends nothing), subscribes with events_subscribe,
// and passes each notifications/message of the events loggers to the
// caller's handler, in order, through a bounded buffer (the SDK delivers
// one notification at a time and must not be held up).
//
// The server never replays: faults during a disconnect are lost, and a
// stream can stay open after the server dropped the subscription. So the
// source watches for the session ending (keep-alive pings find a dead
// server in seconds), looks its subscription up every CheckInterval,
// resubscribes when the server reports it degraded, and reconnects with
// backoff forever once the first connection succeeded, counting and
// logging each gap. The caller reconciles with the cluster after a gap
// (Options.OnGap).
package mcpsource

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-triage/kubectl-triage/pkg/version"
)

// Tools of the events feature.
const (
	toolSubscribe         = "events_subscribe"
	toolListSubscriptions = "events_list_subscriptions"
	toolUnsubscribe       = "events_unsubscribe"
)

// logLevel is what the source asks for: faults come at warning, events
// mode at info.
const logLevel = "info"

// unsubscribeTimeout bounds the best-effort unsubscribe on the way out.
const unsubscribeTimeout = 2 * time.Second

// backoffJitter is the reconnect delay's random extra, as a fraction.
const backoffJitter = 0.5

// Source subscribes to a kubernetes-mcp-server's events and hands their
// notifications to a handler. Create it with New; Run it once at a time.
type Source struct {
	opts      Options
	logger    *slog.Logger
	http      *http.Client
	transport *recordingTransport
	stats     Stats
	running   atomic.Bool
}

// New validates opts and applies the defaults; it does not touch the
// network.
func New(opts Options) (*Source, error) {
	if err := opts.complete(); err != nil {
		return nil, err
	}
	s := &Source{opts: opts, logger: opts.Logger}
	// A copy of the caller's client, so that wrapping its transport (for the
	// token and to see refusals) leaves theirs alone.
	var client http.Client
	if opts.HTTPClient != nil {
		client = *opts.HTTPClient
	}
	base := client.Transport
	if base == nil {
		base = http.DefaultTransport.(*http.Transport).Clone()
	}
	endpoint, _ := url.Parse(opts.Endpoint) // validated by complete
	s.transport = &recordingTransport{base: base, token: opts.BearerToken, origin: endpoint.Scheme + "://" + endpoint.Host}
	client.Transport = s.transport
	// The token is for the endpoint: a redirect to another origin must
	// not carry it (the transport adds it only for the endpoint's origin),
	// and the MCP stream has no business being redirected there anyway.
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme+"://"+req.URL.Host != s.transport.origin {
			return fmt.Errorf("the MCP server redirected to %s://%s: refusing to follow it off %s", req.URL.Scheme, req.URL.Host, s.transport.origin)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	s.http = &client
	return s, nil
}

// keepAliveFailures is how many pings in a row must fail before the
// session counts as dead.
const keepAliveFailures = 3

// Stats are the source's counters.
func (s *Source) Stats() *Stats { return &s.stats }

// Run connects, subscribes and calls handle for every notification of the
// loggers kubernetes/faults, kubernetes/resource-faults, kubernetes/events
// and kubernetes/subscription_error, one at a time and in arrival order,
// until ctx is cancelled; then it unsubscribes, closes the session, lets
// handle finish the buffered notifications and returns nil.
//
// A failure of the first connection (server unreachable, credentials
// refused, no events_subscribe tool, mode refused) is returned. After that,
// losing the session or the subscription only reconnects or resubscribes.
func (s *Source) Run(ctx context.Context, handle func(Message)) error {
	if handle == nil {
		return errors.New("mcpsource: Run needs a handler")
	}
	if !s.running.CompareAndSwap(false, true) {
		return errors.New("mcpsource: the source is already running")
	}
	defer s.running.Store(false)

	r := &run{Source: s, handoff: newHandoff(s.opts.Buffer), degraded: make(chan string, 1)}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for m := range r.handoff.ch {
			handle(m)
		}
	}()
	defer func() {
		r.handoff.close()
		<-drained
		s.http.CloseIdleConnections()
	}()

	r.client = mcp.NewClient(&mcp.Implementation{Name: "kubectl-triage", Version: version.Version}, &mcp.ClientOptions{
		LoggingMessageHandler: r.onMessage,
		KeepAlive:             s.opts.KeepAlive,
		// One slow ping on a loaded host is not a dead server; a gap is
		// never replayed, so do not make one for it.
		KeepAliveFailureThreshold: keepAliveFailures,
	})
	return r.loop(ctx)
}

// run is one Run's state.
type run struct {
	*Source
	client  *mcp.Client
	handoff *handoff
	// degraded carries the ID of a subscription the server reported
	// degraded, from the notification handler to the loop.
	degraded chan string
	// subID is the current subscription's ID, for the handler.
	subID atomic.Pointer[string]
}

// session is one connected and subscribed MCP session.
type session struct {
	cs    *mcp.ClientSession
	subID string
	ended chan error // cs.Wait's result
	// confirmed is when the subscription was last known to exist.
	confirmed time.Time
}

func (r *run) loop(ctx context.Context) error {
	sess, err := r.connect(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	r.stats.Connects.Add(1)
	for {
		lostAt, cause := r.serve(ctx, sess)
		if ctx.Err() != nil {
			return nil
		}
		r.stats.Subscribed.Store(false)
		r.logger.Warn("lost the MCP subscription, reconnecting", "endpoint", r.opts.Endpoint,
			"subscriptionId", sess.subID, "error", cause)
		if r.opts.OnLost != nil {
			r.opts.OnLost(lostAt)
		}
		if sess = r.reconnect(ctx, lostAt); sess == nil {
			return nil
		}
	}
}

// serve watches a session until it is lost, keeping its subscription
// alive; it returns when the subscription was lost (at best knowledge) and
// why. When ctx ends it unsubscribes and closes the session.
func (r *run) serve(ctx context.Context, sess *session) (lostAt time.Time, cause error) {
	check := time.NewTicker(r.opts.CheckInterval)
	defer check.Stop()
	for {
		select {
		case <-ctx.Done():
			r.shutdown(sess)
			return time.Time{}, nil
		case err := <-sess.ended:
			lostAt = time.Now()
			_ = sess.cs.Close()
			if err == nil {
				err = errors.New("the session was closed")
			}
			if errors.Is(err, mcp.ErrSessionMissing) {
				err = fmt.Errorf("the server no longer knows the session (restarted?): %w", err)
			}
			return lostAt, err
		case <-check.C:
			state, err := r.lookUp(ctx, sess)
			if ctx.Err() != nil {
				continue // shut down on the next turn
			}
			switch state {
			case subscriptionPresent:
				sess.confirmed = time.Now()
				continue
			case subscriptionDegraded:
				err = r.resubscribe(ctx, sess, "the server lists the subscription as degraded", false)
			case subscriptionMissing:
				err = r.resubscribe(ctx, sess, "the server no longer lists the subscription", true)
			case subscriptionUnknown:
				// The session itself failed (a dead server): reconnect.
			}
			if err != nil && ctx.Err() == nil {
				return r.abandon(sess, err)
			}
		case id := <-r.degraded:
			if id != "" && id != sess.subID {
				continue // about a subscription already replaced
			}
			if err := r.resubscribe(ctx, sess, "the server reported the subscription degraded", false); err != nil && ctx.Err() == nil {
				return r.abandon(sess, err)
			}
		}
	}
}

// abandon closes a session that still looks alive but is unusable.
func (r *run) abandon(sess *session, cause error) (time.Time, error) {
	lostAt := sess.confirmed
	_ = sess.cs.Close()
	<-sess.ended
	return lostAt, cause
}

// shutdown unsubscribes (best effort) and closes the session.
func (r *run) shutdown(sess *session) {
	r.stats.Subscribed.Store(false)
	ctx, cancel := context.WithTimeout(context.Background(), unsubscribeTimeout)
	defer cancel()
	if _, err := r.callTool(ctx, sess.cs, toolUnsubscribe, map[string]any{"subscriptionId": sess.subID}); err != nil {
		r.logger.Debug("unsubscribe on shutdown failed", "subscriptionId", sess.subID, "error", err)
	}
	_ = sess.cs.Close()
	<-sess.ended
	r.logger.Info("disconnected from the MCP server", "endpoint", r.opts.Endpoint, "subscriptionId", sess.subID)
}

// reconnect connects and subscribes again, with backoff, until it succeeds
// or ctx ends (nil).
func (r *run) reconnect(ctx context.Context, lostAt time.Time) *session {
	// Cap leaves room for the jitter under MaxBackoff.
	delay := wait.Backoff{
		Duration: r.opts.MinBackoff,
		Factor:   2,
		Jitter:   backoffJitter,
		Steps:    1 << 30,
		Cap:      time.Duration(float64(r.opts.MaxBackoff) / (1 + backoffJitter)),
	}.DelayFunc()
	for attempt := 1; ; attempt++ {
		d := min(delay(), r.opts.MaxBackoff)
		r.logger.Info("reconnecting to the MCP server", "endpoint", r.opts.Endpoint, "attempt", attempt, "backoff", d)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		sess, err := r.connect(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			r.logger.Warn("reconnect to the MCP server failed", "endpoint", r.opts.Endpoint, "attempt", attempt, "error", err)
			continue
		}
		r.stats.Connects.Add(1)
		r.stats.Reconnects.Add(1)
		r.recordGap(lostAt, "reconnected to the MCP server", "attempts", attempt, "subscriptionId", sess.subID)
		return sess
	}
}

func (r *run) recordGap(lostAt time.Time, msg string, attrs ...any) {
	gap := time.Since(lostAt)
	r.stats.Gaps.Add(1)
	r.stats.GapTotal.Add(int64(gap))
	r.logger.Warn(msg+"; faults during the gap are not replayed",
		append([]any{"endpoint", r.opts.Endpoint, "gap", gap.Round(time.Millisecond)}, attrs...)...)
	if r.opts.OnGap != nil {
		r.opts.OnGap(gap)
	}
}

// connect makes a session: initialize, logging/setLevel, events_subscribe.
func (r *run) connect(ctx context.Context) (*session, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.RequestTimeout)
	defer cancel()
	r.transport.resetRefusal()
	// The SDK opens the standalone GET stream (where notifications come)
	// during Connect; with MaxRetries -1 a broken stream ends the session
	// at once instead of retrying for ~20s.
	cs, err := r.client.Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint:   r.opts.Endpoint,
		HTTPClient: r.http,
		MaxRetries: -1,
	}, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return nil, r.connectError(err)
	}
	proto := ""
	if res := cs.InitializeResult(); res != nil {
		proto = res.ProtocolVersion
	}
	r.logger.Info("connected to the MCP server", "endpoint", r.opts.Endpoint, "session", cs.ID(), "protocolVersion", proto)

	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: logLevel}); err != nil {
		var rpcErr *jsonrpc.Error
		if !errors.As(err, &rpcErr) {
			_ = cs.Close()
			return nil, fmt.Errorf("set the log level of MCP server %s: %w", r.opts.Endpoint, err)
		}
		// Without it kubernetes-mcp-server sends nothing; another server
		// may not need it.
		r.logger.Warn("the MCP server refused logging/setLevel; notifications may not arrive", "endpoint", r.opts.Endpoint, "error", err)
	}

	sess := &session{cs: cs, ended: make(chan error, 1)}
	go func() { sess.ended <- cs.Wait() }()
	if sess.subID, err = r.subscribe(ctx, cs); err != nil {
		_ = cs.Close()
		<-sess.ended
		return nil, err
	}
	sess.confirmed = time.Now()
	return sess, nil
}

// connectError words a failed initialize for the user.
func (r *run) connectError(err error) error {
	switch status := r.transport.refusal(); status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return fmt.Errorf("cannot connect to MCP server at %s: the server answered %d %s: check the bearer token (%w)",
			r.opts.Endpoint, status, http.StatusText(status), err)
	case http.StatusNotFound, http.StatusMethodNotAllowed:
		return fmt.Errorf("cannot connect to MCP server at %s: the server answered %d %s: is the path right (usually /mcp)? (%w)",
			r.opts.Endpoint, status, http.StatusText(status), err)
	}
	return fmt.Errorf("cannot connect to MCP server at %s: %w: is kubernetes-mcp-server running there with events enabled?", r.opts.Endpoint, err)
}

// onMessage is the SDK's LoggingMessageHandler. It runs on the session's
// reading goroutine, one notification at a time: it only copies and hands
// off (calling the server from here would deadlock).
func (r *run) onMessage(_ context.Context, req *mcp.LoggingMessageRequest) {
	p := req.Params
	if p == nil {
		return
	}
	switch p.Logger {
	case LoggerFaults, LoggerResourceFaults, LoggerEvents, LoggerSubscriptionError:
	default:
		r.logger.Debug("ignoring an MCP notification of another logger", "logger", p.Logger, "level", p.Level)
		return
	}
	r.stats.Received.Add(1)
	data, err := marshalData(p.Data)
	if err != nil {
		r.logger.Warn("cannot re-encode an MCP notification's data", "logger", p.Logger, "error", err)
		return
	}
	if p.Logger == LoggerSubscriptionError {
		r.onSubscriptionError(data)
	}
	switch r.handoff.offer(Message{Logger: p.Logger, Level: string(p.Level), Data: data}) {
	case offerDropped:
		r.stats.HandoffDrops.Add(1)
	case offerFirstDrop:
		r.stats.HandoffDrops.Add(1)
		r.logger.Warn("the notification handler is behind; dropping MCP notifications until it catches up", "buffer", r.opts.Buffer)
	}
}

func (r *run) onSubscriptionError(data []byte) {
	r.stats.SubscriptionErrors.Add(1)
	se, err := parseSubscriptionError(data)
	if err != nil {
		r.logger.Warn("the MCP server reported a subscription error", "error", err)
		return
	}
	r.logger.Warn("the MCP server reported a subscription error", "subscriptionId", se.SubscriptionID,
		"cluster", se.Cluster, "error", se.Error, "degraded", se.Degraded)
	if !se.Degraded {
		return
	}
	if cur := r.subID.Load(); cur != nil && se.SubscriptionID != "" && se.SubscriptionID != *cur {
		return // not ours any more
	}
	select {
	case r.degraded <- se.SubscriptionID:
	default: // a resubscribe is already pending
	}
}
