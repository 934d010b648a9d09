package mcpsource

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// Subscription modes of events_subscribe.
const (
	// ModeFaults is today's fault detection: logger kubernetes/faults.
	ModeFaults = "faults"
	// ModeResourceFaults is the older servers' fault mode: logger
	// kubernetes/resource-faults. Current servers reject it.
	ModeResourceFaults = "resource-faults"
	// ModeEvents forwards Kubernetes events: logger kubernetes/events.
	ModeEvents = "events"
)

// Loggers of the notifications the source passes on.
const (
	LoggerFaults            = "kubernetes/faults"
	LoggerResourceFaults    = "kubernetes/resource-faults"
	LoggerEvents            = "kubernetes/events"
	LoggerSubscriptionError = "kubernetes/subscription_error"
)

// ProtocolVersion is pinned: left to itself the SDK first probes the
// stateless 2026-07-28 protocol, which has no notification stream and no
// logging/setLevel.
const ProtocolVersion = "2025-11-25"

// Defaults of Options.
const (
	DefaultKeepAlive      = 5 * time.Second
	DefaultCheckInterval  = 30 * time.Second
	DefaultMinBackoff     = 500 * time.Millisecond
	DefaultMaxBackoff     = 30 * time.Second
	DefaultBuffer         = 1024
	DefaultRequestTimeout = 15 * time.Second
)

// Options configures a Source. Zero values take the defaults.
type Options struct {
	// Endpoint is the server's streamable HTTP endpoint,
	// http(s)://host:port/mcp. Required.
	Endpoint string
	// Mode is the subscription mode: faults (default), resource-faults
	// (older servers) or events.
	Mode string
	// Namespaces, EventType (e.g. "Warning"), Reason and LabelSelector
	// filter events mode; the server accepts them in events mode only.
	Namespaces                       []string
	EventType, Reason, LabelSelector string
	// BearerToken, when set, is sent as Authorization: Bearer on every
	// request. It is never logged.
	BearerToken string
	// Logger gets connects, subscriptions, subscription errors,
	// disconnects, reconnect attempts and gaps; nil discards them.
	Logger *slog.Logger
	// KeepAlive is the ping interval that finds a dead server (default 5s).
	KeepAlive time.Duration
	// CheckInterval is how often the subscription is looked up with
	// events_list_subscriptions and made again when the server has dropped
	// it while the stream looked alive (default 30s).
	CheckInterval time.Duration
	// MinBackoff and MaxBackoff bound the reconnect delay, which grows
	// exponentially with jitter (defaults 500ms and 30s).
	MinBackoff, MaxBackoff time.Duration
	// Buffer is the size of the handoff between the MCP client and the
	// handler passed to Run (default 1024); notifications beyond it are
	// dropped and counted.
	Buffer int
	// RequestTimeout bounds connecting and each request of the source's
	// own (default 15s).
	RequestTimeout time.Duration
	// HTTPClient, when set, carries the requests; its Timeout must be 0,
	// since the notification stream is one long request.
	HTTPClient *http.Client
	// OnGap, when set, is called once a lost subscription is back (after a
	// reconnect, or a resubscribe of one the server dropped), with how long
	// it was gone: the server never replays what happened meanwhile, so the
	// caller catches up with the cluster's current state. Not called for
	// the first connection. It runs on the source's own goroutine and must
	// return quickly.
	OnGap func(gap time.Duration)
	// OnLost, when set, is called as soon as the session is found lost,
	// before reconnecting (with when it was lost, at best knowledge), so
	// the caller can note what exists as the gap begins and later catch up
	// with only what began during it. Not called when a live session's
	// subscription went missing: that is found only as it is replaced.
	// It runs on the source's own goroutine and must return quickly.
	OnLost func(lostAt time.Time)
}

// Message is one notifications/message the source passes on.
type Message struct {
	Logger string // kubernetes/faults, kubernetes/resource-faults, kubernetes/events or kubernetes/subscription_error
	Level  string // the MCP logging level, e.g. "warning"
	Data   []byte // the notification's data, as JSON
}

// Stats count what the source did; safe for concurrent use. Metrics read
// them with Snapshot.
type Stats struct {
	Connects           atomic.Uint64 // connected and subscribed, the first time included
	Reconnects         atomic.Uint64 // connected and subscribed again after losing the session
	Resubscribes       atomic.Uint64 // subscribed again on a live session (subscription gone or degraded)
	Gaps               atomic.Uint64 // times the subscription was lost and regained
	GapTotal           atomic.Int64  // the gaps' total length, in nanoseconds
	Received           atomic.Uint64 // notifications of the known loggers
	HandoffDrops       atomic.Uint64 // notifications lost to a full handoff buffer
	SubscriptionErrors atomic.Uint64 // kubernetes/subscription_error notifications
	Subscribed         atomic.Bool   // a subscription is believed active now
}

// StatsValues is a point-in-time copy of Stats.
type StatsValues struct {
	Connects, Reconnects, Resubscribes, Gaps, Received, HandoffDrops, SubscriptionErrors uint64
	GapTotal                                                                             time.Duration
	Subscribed                                                                           bool
}

// Snapshot reads every counter (each atomically, not as one transaction).
func (s *Stats) Snapshot() StatsValues {
	return StatsValues{
		Connects:           s.Connects.Load(),
		Reconnects:         s.Reconnects.Load(),
		Resubscribes:       s.Resubscribes.Load(),
		Gaps:               s.Gaps.Load(),
		Received:           s.Received.Load(),
		HandoffDrops:       s.HandoffDrops.Load(),
		SubscriptionErrors: s.SubscriptionErrors.Load(),
		GapTotal:           time.Duration(s.GapTotal.Load()),
		Subscribed:         s.Subscribed.Load(),
	}
}

// complete validates o and fills in the defaults.
func (o *Options) complete() error {
	if err := validateEndpoint(o.Endpoint); err != nil {
		return err
	}
	switch o.Mode {
	case "":
		o.Mode = ModeFaults
	case ModeFaults, ModeResourceFaults, ModeEvents:
	default:
		return fmt.Errorf("invalid MCP subscription mode %q: want %s, %s or %s", o.Mode, ModeFaults, ModeResourceFaults, ModeEvents)
	}
	if o.Mode != ModeEvents {
		var given []string
		if len(o.Namespaces) > 0 {
			given = append(given, "namespaces")
		}
		if o.EventType != "" {
			given = append(given, "event type")
		}
		if o.Reason != "" {
			given = append(given, "reason")
		}
		if o.LabelSelector != "" {
			given = append(given, "label selector")
		}
		if len(given) > 0 {
			return fmt.Errorf("the %s filter applies to mode %s only, not %s: drop it or use mode %s",
				strings.Join(given, ", "), ModeEvents, o.Mode, ModeEvents)
		}
	}
	for _, d := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{
		{"keep-alive", &o.KeepAlive, DefaultKeepAlive},
		{"check interval", &o.CheckInterval, DefaultCheckInterval},
		{"minimum backoff", &o.MinBackoff, DefaultMinBackoff},
		{"maximum backoff", &o.MaxBackoff, DefaultMaxBackoff},
		{"request timeout", &o.RequestTimeout, DefaultRequestTimeout},
	} {
		switch {
		case *d.v < 0:
			return fmt.Errorf("invalid MCP %s %v: must not be negative", d.name, *d.v)
		case *d.v == 0:
			*d.v = d.def
		}
	}
	if o.MinBackoff > o.MaxBackoff {
		return fmt.Errorf("invalid MCP backoff: minimum %v exceeds maximum %v", o.MinBackoff, o.MaxBackoff)
	}
	switch {
	case o.Buffer < 0:
		return fmt.Errorf("invalid MCP handoff buffer %d: must not be negative", o.Buffer)
	case o.Buffer == 0:
		o.Buffer = DefaultBuffer
	}
	if o.HTTPClient != nil && o.HTTPClient.Timeout != 0 {
		return errors.New("the MCP HTTP client must have no Timeout: the notification stream is one long-lived request")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

func validateEndpoint(endpoint string) error {
	if endpoint == "" {
		return errors.New("no MCP endpoint: give the server's URL, e.g. http://127.0.0.1:8080/mcp")
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return fmt.Errorf("invalid MCP endpoint %q: want an absolute http:// or https:// URL, e.g. http://127.0.0.1:8080/mcp", endpoint)
	}
	// The endpoint is logged and shown in /healthz: no secrets in it.
	if u.User != nil || u.RawQuery != "" {
		return fmt.Errorf("invalid MCP endpoint %s://%s%s: credentials and query parameters do not belong in it (it is logged); pass a bearer token with --mcp-token-file or K8S_CLUSTER_MCP_TOKEN", u.Scheme, u.Host, u.Path)
	}
	return nil
}
