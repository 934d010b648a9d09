package mcpsource_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/mcpsource"
	"github.com/kubectl-triage/kubectl-triage/test/mcpserver"
)

// in order, with logger, level and data intact (stamped with our
// subscription's ID as the server does), and parse as faults.
func TestReceivesFixturesInOrder(t *testing.T) {
	fixtures := readFixture(t)
	for _, mode := range []string{mcpsource.ModeFaults, mcpsource.ModeResourceFaults, mcpsource.ModeEvents} {
		t.Run(mode, func(t *testing.T) {
			srv, endpoint := startServer(t, mcpserver.Options{})
			got := newCollector()
			opts := fast(endpoint)
			opts.Mode = mode
			r := runSource(t, opts, got.handle)
			r.ready(t, srv)
			subID := onlySubscription(t, srv).ID

			logger := map[string]string{"faults": mcpsource.LoggerFaults, "resource-faults": mcpsource.LoggerResourceFaults, "events": mcpsource.LoggerEvents}[mode]
			var want []frame
			for _, f := range fixtures {
				if f.Logger == logger || f.Logger == mcpsource.LoggerSubscriptionError {
					f.Data["subscriptionId"] = subID
					want = append(want, f)
				}
			}
			if _, err := srv.Replay(fixtureNotifications); err != nil {
				t.Fatal(err)
			}
			msgs := got.wait(t, len(want))
			if len(msgs) != len(want) {
				t.Fatalf("got %d messages, want %d", len(msgs), len(want))
			}
			for i, m := range msgs {
				var data map[string]any
				if err := json.Unmarshal(m.Data, &data); err != nil {
					t.Fatalf("message %d: data is not JSON: %v", i, err)
				}
				if g := (frame{m.Logger, m.Level, data}); !reflect.DeepEqual(g, want[i]) {
					t.Errorf("message %d =\n%+v\nwant\n%+v", i, g, want[i])
				}
				ev, se, err := fault.ParseMessage(m.Logger, m.Level, m.Data)
				switch {
				case err != nil:
					t.Errorf("message %d does not parse: %v", i, err)
				case m.Logger == mcpsource.LoggerSubscriptionError && (se == nil || !se.Degraded):
					t.Errorf("message %d: subscription error = %+v, want a degraded one", i, se)
				case m.Logger != mcpsource.LoggerSubscriptionError && (ev == nil || ev.Resource == nil || ev.SubscriptionID != subID):
					t.Errorf("message %d: event = %+v, want one with a resource and subscription %s", i, ev, subID)
				}
			}
			st := r.src.Stats().Snapshot()
			if st.Connects != 1 || st.Received != uint64(len(want)) || st.SubscriptionErrors != 1 || st.HandoffDrops != 0 {
				t.Errorf("stats = %+v, want 1 connect, %d received, 1 subscription error, no drops", st, len(want))
			}
			if err := r.stop(t); err != nil {
				t.Errorf("Run returned %v after cancel, want nil", err)
			}
		})
	}
}

// TestReconnect: a dropped session (server restart, session gone) or a
// server that goes away and comes back on the same port is followed by a
// new connection and a new subscription, counted as a reconnect and a gap.
func TestReconnect(t *testing.T) {
	tests := []struct {
		name    string
		disrupt func(t *testing.T, srv *mcpserver.Server, addr string) *mcpserver.Server
	}{
		{"drop connections", func(t *testing.T, srv *mcpserver.Server, _ string) *mcpserver.Server {
			srv.DropConnections()
			return srv
		}},
		{"restart on the same port", func(t *testing.T, srv *mcpserver.Server, addr string) *mcpserver.Server {
			if err := srv.Close(); err != nil {
				t.Fatal(err)
			}
			srv2 := mcpserver.New(mcpserver.Options{Addr: addr})
			if _, err := srv2.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = srv2.Close() })
			return srv2
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, endpoint := startServer(t, mcpserver.Options{})
			got := newCollector()
			r := runSource(t, fast(endpoint), got.handle)
			r.ready(t, srv)
			first := onlySubscription(t, srv)
			send(t, srv, "faults", fault1("before"))
			got.wait(t, 1)

			addr := strings.TrimSuffix(strings.TrimPrefix(endpoint, "http://"), "/mcp")
			srv = tt.disrupt(t, srv, addr)

			eventually(t, "a reconnect", func() bool { return r.src.Stats().Reconnects.Load() == 1 })
			waitSubscribed(t, srv, 1)
			second := onlySubscription(t, srv)
			if second.ID == first.ID || second.SessionID == first.SessionID {
				t.Errorf("after reconnect: subscription %s session %s, want new ones (were %s, %s)", second.ID, second.SessionID, first.ID, first.SessionID)
			}
			send(t, srv, "faults", fault1("after"))
			msgs := got.wait(t, 2)
			if !bytes.Contains(msgs[1].Data, []byte(`"after"`)) || !bytes.Contains(msgs[1].Data, []byte(second.ID)) {
				t.Errorf("message after reconnect = %s, want the fault %q of subscription %s", msgs[1].Data, "after", second.ID)
			}
			st := r.src.Stats().Snapshot()
			if st.Connects != 2 || st.Reconnects != 1 || st.Gaps != 1 || st.GapTotal <= 0 || !st.Subscribed {
				t.Errorf("stats = %+v, want 2 connects, 1 reconnect, 1 gap of some length, subscribed", st)
			}
		})
	}
}

// TestResubscribe: a subscription the server dropped while the stream
// stayed open (found by the periodic check) or reported degraded is made
// again on the same session.
func TestResubscribe(t *testing.T) {
	tests := []struct {
		name     string
		disrupt  func(t *testing.T, srv *mcpserver.Server, sub mcpserver.Subscription)
		wantGaps uint64
	}{
		{"cancelled by the server", func(t *testing.T, srv *mcpserver.Server, _ mcpserver.Subscription) {
			srv.CancelSubscriptions()
		}, 1},
		{"degraded", func(t *testing.T, srv *mcpserver.Server, sub mcpserver.Subscription) {
			send(t, srv, mcpserver.LoggerSubscriptionError, `{"subscriptionId":"`+sub.ID+`","error":"watch closed: too old resource version","degraded":true}`)
		}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, endpoint := startServer(t, mcpserver.Options{})
			got := newCollector()
			opts := fast(endpoint)
			opts.CheckInterval = 50 * time.Millisecond
			r := runSource(t, opts, got.handle)
			r.ready(t, srv)
			first := onlySubscription(t, srv)

			tt.disrupt(t, srv, first)

			eventually(t, "a resubscribe", func() bool { return r.src.Stats().Resubscribes.Load() == 1 })
			// The degraded one is unsubscribed once the new one exists.
			eventually(t, "one new subscription", func() bool {
				subs := srv.Subscriptions()
				return len(subs) == 1 && subs[0].ID != first.ID
			})
			second := onlySubscription(t, srv)
			if second.SessionID != first.SessionID {
				t.Errorf("resubscribed on session %s, want the same session %s", second.SessionID, first.SessionID)
			}
			send(t, srv, "faults", fault1("after"))
			got.wait(t, 1)
			st := r.src.Stats().Snapshot()
			if st.Reconnects != 0 || st.Resubscribes != 1 || st.Gaps != tt.wantGaps || !st.Subscribed {
				t.Errorf("stats = %+v, want no reconnect, 1 resubscribe, %d gaps, subscribed", st, tt.wantGaps)
			}
			// A gap lasts from when the subscription was last seen to when it
			// was back: at least one check interval, never nothing.
			if tt.wantGaps > 0 && st.GapTotal <= 0 {
				t.Errorf("gap total %v, want the time it was missing", st.GapTotal)
			}
		})
	}
}

// TestSubscriptionErrorNotDegraded: a subscription error that leaves the
// subscription working is counted and passed on, and does not resubscribe.
func TestSubscriptionErrorNotDegraded(t *testing.T) {
	srv, endpoint := startServer(t, mcpserver.Options{})
	got := newCollector()
	r := runSource(t, fast(endpoint), got.handle)
	r.ready(t, srv)
	sub := onlySubscription(t, srv)
	send(t, srv, mcpserver.LoggerSubscriptionError, `{"subscriptionId":"`+sub.ID+`","error":"transient","degraded":false}`)
	send(t, srv, "faults", fault1("marker"))
	msgs := got.wait(t, 2)
	if msgs[0].Logger != mcpsource.LoggerSubscriptionError || msgs[1].Logger != mcpsource.LoggerFaults {
		t.Errorf("got loggers %s, %s; want the subscription error, then the fault", msgs[0].Logger, msgs[1].Logger)
	}
	if err := r.stop(t); err != nil {
		t.Fatal(err)
	}
	st := r.src.Stats().Snapshot()
	if st.SubscriptionErrors != 1 || st.Resubscribes != 0 {
		t.Errorf("stats = %+v, want 1 subscription error and no resubscribe", st)
	}
}

// TestBearerToken: the token goes with every request (the server requires
// it for the stream too), is never logged, and a wrong one fails the first
// connect clearly.
func TestBearerToken(t *testing.T) {
	const token = "s3cret-token"
	tests := []struct {
		name    string
		token   string
		wantErr string
	}{
		{"right token", token, ""},
		{"wrong token", "wrong-token", "the server answered 401 Unauthorized: check the bearer token"},
		{"no token", "", "the server answered 401 Unauthorized: check the bearer token"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, endpoint := startServer(t, mcpserver.Options{Token: token})
			var logs bytes.Buffer
			var logMu sync.Mutex
			opts := fast(endpoint)
			opts.BearerToken = tt.token
			opts.Logger = slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))
			got := newCollector()
			r := runSource(t, opts, got.handle)
			if tt.wantErr != "" {
				var err error
				select {
				case err = <-r.done:
				case <-time.After(waitTimeout):
					t.Fatal("Run did not fail")
				}
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), endpoint) {
					t.Fatalf("Run error = %v, want one naming %s and containing %q", err, endpoint, tt.wantErr)
				}
				close(r.done)
				return
			}
			r.ready(t, srv)
			send(t, srv, "faults", fault1("x"))
			got.wait(t, 1)
			if err := r.stop(t); err != nil {
				t.Fatal(err)
			}
			logMu.Lock()
			defer logMu.Unlock()
			if strings.Contains(logs.String(), token) {
				t.Errorf("the token appears in the log:\n%s", logs.String())
			}
			if !strings.Contains(logs.String(), "subscribed") {
				t.Errorf("the log does not show the subscription:\n%s", logs.String())
			}
		})
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestFirstConnectErrors: what keeps the first connection from working is
// returned, worded for the user.
func TestFirstConnectErrors(t *testing.T) {
	// A port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := ln.Addr().String()
	ln.Close()

	tests := []struct {
		name     string
		server   *mcpserver.Options // nil: nothing listening
		mode     string
		path     string
		wantErrs []string
	}{
		{name: "unreachable", wantErrs: []string{"cannot connect to MCP server at http://" + closedAddr + "/mcp", "is kubernetes-mcp-server running there with events enabled?"}},
		{name: "no events tools", server: &mcpserver.Options{Tools: []string{}}, wantErrs: []string{"has no events_subscribe tool", "is it kubernetes-mcp-server with events enabled?"}},
		{name: "mode refused", server: &mcpserver.Options{Modes: []string{"faults", "events"}}, mode: mcpsource.ModeResourceFaults,
			wantErrs: []string{"subscribe to resource-faults at MCP server", "the server refused: failed to create subscription: invalid mode: must be 'events' or 'faults'"}},
		{name: "wrong path", server: &mcpserver.Options{}, path: "/sse", wantErrs: []string{"the server answered 404 Not Found: is the path right (usually /mcp)?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			endpoint := "http://" + closedAddr + "/mcp"
			if tt.server != nil {
				_, endpoint = startServer(t, *tt.server)
			}
			if tt.path != "" {
				endpoint = strings.TrimSuffix(endpoint, "/mcp") + tt.path
			}
			opts := fast(endpoint)
			opts.Mode = tt.mode
			src, err := mcpsource.New(opts)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
			defer cancel()
			err = src.Run(ctx, func(mcpsource.Message) {})
			if err == nil {
				t.Fatal("Run returned nil, want an error")
			}
			if ctx.Err() != nil {
				t.Fatalf("Run gave up only at the deadline: %v", err)
			}
			for _, want := range tt.wantErrs {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("Run error = %q, want it to contain %q", err, want)
				}
			}
		})
	}
}

// TestHandoffDrops: a consumer that falls behind loses notifications
// beyond the buffer, counted, while the rest arrive in order.
func TestHandoffDrops(t *testing.T) {
	const sent = 6
	srv, endpoint := startServer(t, mcpserver.Options{})
	release := make(chan struct{})
	got := newCollector()
	opts := fast(endpoint)
	opts.Buffer = 1
	r := runSource(t, opts, func(m mcpsource.Message) {
		<-release
		got.handle(m)
	})
	r.ready(t, srv)
	for i := range sent {
		send(t, srv, "faults", fault1(fmt.Sprint("p", i)))
	}
	eventually(t, "all notifications received", func() bool { return r.src.Stats().Received.Load() == sent })
	close(release)
	if err := r.stop(t); err != nil {
		t.Fatal(err)
	}
	msgs := got.messages()
	drops := r.src.Stats().HandoffDrops.Load()
	// One in the blocked handler, one in the buffer at most.
	if uint64(len(msgs))+drops != sent || drops < sent-2 {
		t.Errorf("handled %d and dropped %d of %d, want all accounted for and at least %d dropped", len(msgs), drops, sent, sent-2)
	}
	if len(msgs) > 0 && !bytes.Contains(msgs[0].Data, []byte(`"p0"`)) {
		t.Errorf("first handled = %s, want p0", msgs[0].Data)
	}
}

// TestCancel: cancelling ctx makes Run unsubscribe, close the session,
// deliver what is buffered and return nil, leaving no goroutines behind.
func TestCancel(t *testing.T) {
	srv, endpoint := startServer(t, mcpserver.Options{})
	baseline := runtime.NumGoroutine()

	got := newCollector()
	r := runSource(t, fast(endpoint), got.handle)
	r.ready(t, srv)
	send(t, srv, "faults", fault1("x"))
	got.wait(t, 1)
	if err := r.stop(t); err != nil {
		t.Fatalf("Run returned %v after cancel, want nil", err)
	}
	if subs := srv.Subscriptions(); len(subs) != 0 {
		t.Errorf("server still has %d subscriptions after Run returned, want 0 (unsubscribed)", len(subs))
	}
	eventually(t, "the goroutines to end", func() bool { return runtime.NumGoroutine() <= baseline })

	// Cancelled while still connecting: nil too.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src, err := mcpsource.New(fast(endpoint))
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Run(ctx, got.handle); err != nil {
		t.Errorf("Run with a cancelled context = %v, want nil", err)
	}
}

// TestOnGap: OnGap is called once per gap, after the subscription is back,
// with the length Stats count; not for the first connection. A degraded
// subscription may have missed faults: its replacement is a gap too.
func TestOnGap(t *testing.T) {
	tests := []struct {
		name     string
		check    time.Duration // CheckInterval, when the case needs the periodic check
		disrupt  func(t *testing.T, srv *mcpserver.Server, sub mcpserver.Subscription)
		replaced bool // the disruption ends with a new subscription
		wantGaps int
	}{
		{name: "first connection only", disrupt: func(*testing.T, *mcpserver.Server, mcpserver.Subscription) {}},
		{name: "dropped connections", disrupt: func(_ *testing.T, srv *mcpserver.Server, _ mcpserver.Subscription) {
			srv.DropConnections()
		}, replaced: true, wantGaps: 1},
		{name: "subscription cancelled by the server", check: 50 * time.Millisecond, disrupt: func(_ *testing.T, srv *mcpserver.Server, _ mcpserver.Subscription) {
			srv.CancelSubscriptions()
		}, replaced: true, wantGaps: 1},
		{name: "degraded", disrupt: func(t *testing.T, srv *mcpserver.Server, sub mcpserver.Subscription) {
			send(t, srv, mcpserver.LoggerSubscriptionError, `{"subscriptionId":"`+sub.ID+`","error":"watch closed: too old resource version","degraded":true}`)
		}, replaced: true, wantGaps: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, endpoint := startServer(t, mcpserver.Options{})
			var mu sync.Mutex
			var gaps []time.Duration
			opts := fast(endpoint)
			if tt.check > 0 {
				opts.CheckInterval = tt.check
			}
			opts.OnGap = func(gap time.Duration) {
				mu.Lock()
				defer mu.Unlock()
				gaps = append(gaps, gap)
			}
			got := newCollector()
			r := runSource(t, opts, got.handle)
			r.ready(t, srv)
			first := onlySubscription(t, srv)

			tt.disrupt(t, srv, first)
			if tt.replaced {
				eventually(t, "a new subscription", func() bool {
					subs := srv.Subscriptions()
					return len(subs) == 1 && subs[0].ID != first.ID
				})
				waitSubscribed(t, srv, 1)
			}
			// A fault through the current subscription: the source is past
			// the disruption.
			send(t, srv, "faults", fault1("after"))
			eventually(t, "the fault after the disruption", func() bool {
				return slices.ContainsFunc(got.messages(), func(m mcpsource.Message) bool { return bytes.Contains(m.Data, []byte(`"after"`)) })
			})
			if err := r.stop(t); err != nil {
				t.Fatal(err)
			}

			st := r.src.Stats().Snapshot()
			mu.Lock()
			defer mu.Unlock()
			var total time.Duration
			for _, g := range gaps {
				if g <= 0 {
					t.Errorf("OnGap(%v), want a positive gap", g)
				}
				total += g
			}
			if len(gaps) != tt.wantGaps || st.Gaps != uint64(tt.wantGaps) || total != st.GapTotal {
				t.Errorf("OnGap called with %v, stats count %d gaps of %v in all; want %d calls matching the stats", gaps, st.Gaps, st.GapTotal, tt.wantGaps)
			}
		})
	}
}

// TestTokenStaysWithTheEndpoint: a redirect to another origin is refused,
// and the bearer token is never sent there.
func TestTokenStaysWithTheEndpoint(t *testing.T) {
	var leaked atomic.Bool
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Store(true)
		}
		http.Error(w, "nothing here", http.StatusNotFound)
	}))
	defer elsewhere.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer redirector.Close()
	opts := fast(redirector.URL + "/mcp")
	opts.BearerToken = "s3cret-token"
	r := runSource(t, opts, newCollector().handle)
	var err error
	select {
	case err = <-r.done:
	case <-time.After(waitTimeout):
		t.Fatal("Run did not fail")
	}
	close(r.done)
	if err == nil {
		t.Fatal("Run followed a redirect to another origin")
	}
	if leaked.Load() {
		t.Error("the bearer token was sent to the redirect's origin")
	}
}
