package mcpserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kubectl-triage/kubectl-triage/test/mcpserver"
)

// waitTimeout is generous: the machine may be loaded.
const waitTimeout = 30 * time.Second

func start(t *testing.T, opts mcpserver.Options) (*mcpserver.Server, string) {
	t.Helper()
	srv := mcpserver.New(opts)
	endpoint, err := srv.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv, endpoint
}

// client is a raw SDK client that records its notifications.
type client struct {
	cs *mcp.ClientSession

	mu   sync.Mutex
	msgs []*mcp.LoggingMessageParams
	got  chan struct{}
}

func connect(t *testing.T, ctx context.Context, endpoint string, httpClient *http.Client) (*client, error) {
	t.Helper()
	c := &client{got: make(chan struct{}, 1)}
	mc := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			c.mu.Lock()
			c.msgs = append(c.msgs, req.Params)
			c.mu.Unlock()
			select {
			case c.got <- struct{}{}:
			default:
			}
		},
	})
	cs, err := mc.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: httpClient, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = cs.Close() })
	c.cs = cs
	return c, nil
}

// waitMessages waits for n notifications and returns them.
func (c *client) waitMessages(t *testing.T, ctx context.Context, n int) []*mcp.LoggingMessageParams {
	t.Helper()
	for {
		c.mu.Lock()
		msgs := slices.Clone(c.msgs)
		c.mu.Unlock()
		if len(msgs) >= n {
			return msgs
		}
		select {
		case <-ctx.Done():
			t.Fatalf("got %d notifications, want %d: %v", len(msgs), n, ctx.Err())
		case <-c.got:
		}
	}
}

func (c *client) call(t *testing.T, ctx context.Context, tool string, args map[string]any) (text string, isError bool) {
	t.Helper()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", tool, err)
	}
	for _, ct := range res.Content {
		text += ct.(*mcp.TextContent).Text
	}
	return text, res.IsError
}

func (c *client) subscribe(t *testing.T, ctx context.Context, args map[string]any) string {
	t.Helper()
	text, isErr := c.call(t, ctx, mcpserver.ToolSubscribe, args)
	if isErr {
		t.Fatalf("subscribe: %s", text)
	}
	var v struct {
		SubscriptionID string `json:"subscriptionId"`
	}
	if err := json.Unmarshal([]byte(jsonBlock(t, text)), &v); err != nil || v.SubscriptionID == "" {
		t.Fatalf("no subscriptionId in %q: %v", text, err)
	}
	return v.SubscriptionID
}

func (c *client) setLevel(t *testing.T, ctx context.Context, level string) {
	t.Helper()
	if err := c.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(level)}); err != nil {
		t.Fatal(err)
	}
}

// jsonBlock is the JSON object in a tool's text answer.
func jsonBlock(t *testing.T, text string) string {
	t.Helper()
	i, j := strings.Index(text, "{"), strings.LastIndex(text, "}")
	if i < 0 || j < i {
		t.Fatalf("no JSON block in %q", text)
	}
	return text[i : j+1]
}

// fixtureTexts are the tool answers of the real server in the fixtures,
// by request id.
func fixtureTexts(t *testing.T) map[int]string {
	t.Helper()
	frames, err := mcpserver.ReadFrames("testdata/mcp-rpc-responses.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]string{}
	for _, f := range frames {
		var r struct {
			ID     int `json:"id"`
			Result struct {
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		if err := json.Unmarshal(f, &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Result.Content) > 0 {
			out[r.ID] = r.Result.Content[0].Text
		}
	}
	return out
}

// keysOf is the sorted keys of a JSON object (and, for "subscriptions",
// of its first element).
func keysOf(t *testing.T, block string) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(block), &m); err != nil {
		t.Fatalf("decode %q: %v", block, err)
	}
	var keys []string
	for k, v := range m {
		keys = append(keys, k)
		if subs, ok := v.([]any); ok && len(subs) > 0 {
			for k2 := range subs[0].(map[string]any) {
				keys = append(keys, k+"[]."+k2)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

// TestToolTexts: the tools answer in the real server's text shapes.
func TestToolTexts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	fixtures := fixtureTexts(t)
	_, endpoint := start(t, mcpserver.Options{Cluster: "local", Modes: []string{mcpserver.ModeFaults, mcpserver.ModeEvents}})
	c, err := connect(t, ctx, endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}

	created, isErr := c.call(t, ctx, mcpserver.ToolSubscribe, map[string]any{"mode": "faults"})
	if isErr {
		t.Fatal(created)
	}
	_, _ = c.call(t, ctx, mcpserver.ToolSubscribe, map[string]any{"mode": "events", "namespaces": []string{"seeds-probe"}})
	listed, _ := c.call(t, ctx, mcpserver.ToolListSubscriptions, nil)
	refused, refusedIsErr := c.call(t, ctx, mcpserver.ToolSubscribe, map[string]any{"mode": "resource-faults"})
	notFound, notFoundIsErr := c.call(t, ctx, mcpserver.ToolUnsubscribe, map[string]any{"subscriptionId": "sub-00000000"})

	tests := []struct {
		name, got, want string
	}{
		{"subscribe", created, fixtures[5]},
		{"list", listed, fixtures[7]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			heading := func(s string) string { return s[:strings.Index(s, "{")] }
			if got, want := heading(tt.got), heading(tt.want); got != want {
				t.Errorf("text before the JSON block = %q, want %q", got, want)
			}
			tail := func(s string) string { return s[strings.LastIndex(s, "}")+1:] }
			if got, want := tail(tt.got), tail(tt.want); got != want {
				t.Errorf("text after the JSON block = %q, want %q", got, want)
			}
			if got, want := keysOf(t, jsonBlock(t, tt.got)), keysOf(t, jsonBlock(t, tt.want)); !reflect.DeepEqual(got, want) {
				t.Errorf("JSON keys = %v, want %v", got, want)
			}
		})
	}
	if !refusedIsErr || refused != fixtures[4] {
		t.Errorf("unknown mode: isError=%v text %q, want isError and %q", refusedIsErr, refused, fixtures[4])
	}
	if !notFoundIsErr || notFound != fixtures[8] {
		t.Errorf("unknown subscription: isError=%v text %q, want isError and %q", notFoundIsErr, notFound, fixtures[8])
	}
	if !strings.Contains(listed, `"seeds-probe"`) || !strings.Contains(listed, `"total": 2`) {
		t.Errorf("list does not show both subscriptions and the filter:\n%s", listed)
	}
}

// TestLevelGate: like the real server, nothing reaches a subscriber that
// has not called logging/setLevel, and only messages at or above its level
// reach it.
func TestLevelGate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	srv, endpoint := start(t, mcpserver.Options{})
	c, err := connect(t, ctx, endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.subscribe(t, ctx, map[string]any{"mode": "faults"})
	c.subscribe(t, ctx, map[string]any{"mode": "events"})

	send := func(what, marker string) int {
		t.Helper()
		n, err := srv.Send(what, json.RawMessage(`{"marker":"`+marker+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := send("faults", "before-setLevel"); n != 0 {
		t.Errorf("sent %d notifications before setLevel, want 0", n)
	}
	c.setLevel(t, ctx, "warning")
	if n := send("events", "events-at-info"); n != 0 {
		t.Errorf("sent %d info notifications to a warning subscriber, want 0", n)
	}
	if n := send("faults", "after-setLevel"); n != 1 {
		t.Errorf("sent %d notifications after setLevel, want 1", n)
	}
	c.setLevel(t, ctx, "info")
	if n := send("events", "events-after-info"); n != 1 {
		t.Errorf("sent %d events after setLevel info, want 1", n)
	}

	// One stream keeps order: had the gated ones gone out, they would come
	// first.
	msgs := c.waitMessages(t, ctx, 2)
	var got []string
	for _, m := range msgs {
		got = append(got, m.Logger+" "+string(m.Level)+" "+m.Data.(map[string]any)["marker"].(string))
	}
	want := []string{"kubernetes/faults warning after-setLevel", "kubernetes/events info events-after-info"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("received %q, want %q", got, want)
	}
}

// TestReplay: fixture frames go to the subscriptions of their logger's
// mode, stamped with the subscription's ID; a subscription_error about an
// unknown subscription goes to every one and marks them degraded.
func TestReplay(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	srv, endpoint := start(t, mcpserver.Options{})
	c, err := connect(t, ctx, endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.setLevel(t, ctx, "info")
	ids := map[string]string{}
	for _, mode := range []string{"faults", "resource-faults", "events"} {
		ids[c.subscribe(t, ctx, map[string]any{"mode": mode})] = mode
	}
	if err := srv.WaitSubscribed(ctx, 3); err != nil {
		t.Fatal(err)
	}
	n, err := srv.Replay("testdata/mcp-notifications.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// 3 faults + 1 resource-faults + 1 events + the error to all 3.
	if n != 8 {
		t.Fatalf("Replay sent %d notifications, want 8", n)
	}
	wantLogger := map[string]string{"faults": "kubernetes/faults", "resource-faults": "kubernetes/resource-faults", "events": "kubernetes/events"}
	for _, m := range c.waitMessages(t, ctx, 8) {
		id := m.Data.(map[string]any)["subscriptionId"].(string)
		mode, ok := ids[id]
		switch {
		case !ok:
			t.Errorf("%s notification has subscriptionId %q, not one of ours", m.Logger, id)
		case m.Logger != wantLogger[mode] && m.Logger != "kubernetes/subscription_error":
			t.Errorf("%s notification sent to a %s subscription", m.Logger, mode)
		}
	}
	for _, s := range srv.Subscriptions() {
		if !s.Degraded {
			t.Errorf("subscription %s is not degraded after a degraded subscription_error", s.ID)
		}
	}
}

// TestEventsFilters: events mode's filters select what a subscription gets.
func TestEventsFilters(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	srv, endpoint := start(t, mcpserver.Options{})
	c, err := connect(t, ctx, endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.setLevel(t, ctx, "info")
	c.subscribe(t, ctx, map[string]any{"mode": "events", "namespaces": []string{"shop"}, "type": "Warning"})
	event := func(ns, typ string) json.RawMessage {
		return json.RawMessage(`{"event":{"namespace":"` + ns + `","type":"` + typ + `","reason":"BackOff","involvedObject":{"kind":"Pod","name":"p"}}}`)
	}
	tests := []struct {
		ns, typ string
		want    int
	}{
		{"batch", "Warning", 0},
		{"shop", "Normal", 0},
		{"shop", "Warning", 1},
	}
	for _, tt := range tests {
		n, err := srv.Send("events", event(tt.ns, tt.typ))
		if err != nil {
			t.Fatal(err)
		}
		if n != tt.want {
			t.Errorf("%s event in %s: sent %d, want %d", tt.typ, tt.ns, n, tt.want)
		}
	}
}

// TestDisruptions: DropConnections ends the sessions (the client sees it,
// the session is gone); CancelSubscriptions forgets the subscriptions and
// leaves the session working.
func TestDisruptions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	srv, endpoint := start(t, mcpserver.Options{})
	c, err := connect(t, ctx, endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.setLevel(t, ctx, "info")
	c.subscribe(t, ctx, map[string]any{"mode": "faults"})

	srv.CancelSubscriptions()
	if subs := srv.Subscriptions(); len(subs) != 0 {
		t.Errorf("%d subscriptions after CancelSubscriptions, want 0", len(subs))
	}
	listed, _ := c.call(t, ctx, mcpserver.ToolListSubscriptions, nil)
	if !strings.Contains(listed, `"total": 0`) {
		t.Errorf("list after CancelSubscriptions:\n%s", listed)
	}
	c.subscribe(t, ctx, map[string]any{"mode": "faults"})
	if err := srv.WaitSubscribed(ctx, 1); err != nil {
		t.Fatal(err)
	}

	srv.DropConnections()
	ended := make(chan error, 1)
	go func() { ended <- c.cs.Wait() }()
	select {
	case <-ended:
	case <-ctx.Done():
		t.Fatal("the client did not see the session end")
	}
	if subs := srv.Subscriptions(); len(subs) != 0 {
		t.Errorf("%d subscriptions after DropConnections, want 0", len(subs))
	}
	// A new session works.
	c2, err := connect(t, ctx, endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	c2.subscribe(t, ctx, map[string]any{"mode": "faults"})
}

// TestToken: with a token, requests without it get 401.
func TestToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	_, endpoint := start(t, mcpserver.Options{Token: "s3cret"})
	tests := []struct {
		name    string
		token   string
		wantErr bool
	}{
		{"no token", "", true},
		{"wrong token", "nope", true},
		{"right token", "s3cret", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := &http.Client{Transport: bearer{tt.token}}
			_, err := connect(t, ctx, endpoint, hc)
			if gotErr := err != nil; gotErr != tt.wantErr {
				t.Fatalf("connect error = %v, want error: %v", err, tt.wantErr)
			}
			if err != nil && !strings.Contains(err.Error(), "Unauthorized") {
				t.Errorf("error %q does not say Unauthorized", err)
			}
		})
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	if b.token != "" {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(req)
}
