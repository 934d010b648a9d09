package mcpsource

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fixtureResults are the real server's tools/call results in
// testdata/mcp-rpc-responses.jsonl, by request id.
func fixtureResults(t *testing.T) map[int]*mcp.CallToolResult {
	t.Helper()
	f, err := os.Open("testdata/mcp-rpc-responses.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int]*mcp.CallToolResult{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var frame struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &frame); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(frame.Result), `"content"`) {
			continue // initialize, setLevel
		}
		res := &mcp.CallToolResult{}
		if err := json.Unmarshal(frame.Result, res); err != nil {
			t.Fatalf("decode result %d: %v", frame.ID, err)
		}
		out[frame.ID] = res
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func TestParseSubscribeResult(t *testing.T) {
	fx := fixtureResults(t)
	tests := []struct {
		name    string
		res     *mcp.CallToolResult
		wantID  string
		wantErr string
	}{
		{name: "fixture: created", res: fx[5], wantID: "sub-e601dd09"},
		{name: "fixture: invalid mode", res: fx[4], wantErr: "the server refused: failed to create subscription: invalid mode: must be 'events' or 'faults'"},
		{name: "fixture: list (first subscription)", res: fx[7], wantID: "sub-e601dd09"},
		{name: "fixture: unsubscribe error", res: fx[8], wantErr: "the server refused: failed to cancel subscription: subscription not found"},
		{name: "heading with braces before the block", res: text("# Created {ok}\n\n{\"subscriptionId\": \"sub-1\"}\n"), wantID: "sub-1"},
		{name: "JSON only", res: text(`{"subscriptionId":"sub-2","mode":"faults"}`), wantID: "sub-2"},
		{name: "broken JSON, field still there", res: text(`{"subscriptionId": "sub-3", "mode": }`), wantID: "sub-3"},
		{name: "structured content", res: &mcp.CallToolResult{StructuredContent: map[string]any{"subscriptionId": "sub-4"}}, wantID: "sub-4"},
		{name: "no ID", res: text("# Event Subscription Created\n\n{\"status\": \"active\"}"), wantErr: "no subscriptionId in the events_subscribe result"},
		{name: "empty error", res: &mcp.CallToolResult{IsError: true}, wantErr: "the server refused: no reason given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.res == nil {
				t.Fatal("fixture missing")
			}
			id, err := parseSubscribeResult(tt.res)
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("error = %v, want one containing %q", err, tt.wantErr)
				}
			case err != nil:
				t.Errorf("unexpected error: %v", err)
			case id != tt.wantID:
				t.Errorf("subscriptionId = %q, want %q", id, tt.wantID)
			}
		})
	}
}

func TestFindSubscription(t *testing.T) {
	list := resultText(fixtureResults(t)[7])
	tests := []struct {
		name         string
		text, id     string
		wantFound    bool
		wantDegraded bool
	}{
		{"fixture: first", list, "sub-e601dd09", true, false},
		{"fixture: second", list, "sub-7e4fdc7a", true, false},
		{"fixture: not there", list, "sub-00000000", false, false},
		{"degraded", `# Active Subscriptions` + "\n\n" + `{"subscriptions":[{"subscriptionId":"sub-1","degraded":true}],"total":1}`, "sub-1", true, true},
		{"empty list", `{"subscriptions": [], "total": 0}`, "sub-1", false, false},
		{"no active subscriptions text", "No active subscriptions.", "sub-1", false, false},
		{"other layout naming the ID", `{"items":[{"id":"sub-1"}]}`, "sub-1", true, false},
		{"ID as a prefix of another", `{"subscriptions":[{"subscriptionId":"sub-10"}]}`, "sub-1", false, false},
		{"no ID asked", list, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			found, degraded := findSubscription(tt.text, tt.id)
			if found != tt.wantFound || degraded != tt.wantDegraded {
				t.Errorf("findSubscription = found %v degraded %v, want %v %v", found, degraded, tt.wantFound, tt.wantDegraded)
			}
		})
	}
}

func TestOptionsValidation(t *testing.T) {
	const ep = "http://127.0.0.1:8080/mcp"
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{name: "defaults", opts: Options{Endpoint: ep}},
		{name: "https", opts: Options{Endpoint: "https://mcp.example.com/mcp", Mode: ModeEvents, Namespaces: []string{"a"}, EventType: "Warning"}},
		{name: "no endpoint", opts: Options{}, wantErr: "no MCP endpoint"},
		{name: "relative endpoint", opts: Options{Endpoint: "127.0.0.1:8080/mcp"}, wantErr: "want an absolute http:// or https:// URL"},
		{name: "other scheme", opts: Options{Endpoint: "ws://127.0.0.1:8080/mcp"}, wantErr: "want an absolute http:// or https:// URL"},
		{name: "no host", opts: Options{Endpoint: "http:///mcp"}, wantErr: "want an absolute http:// or https:// URL"},
		{name: "credentials in the URL", opts: Options{Endpoint: "http://me:pw@127.0.0.1:8080/mcp"}, wantErr: "invalid MCP endpoint http://127.0.0.1:8080/mcp: credentials and query parameters do not belong in it"},
		{name: "token in the query", opts: Options{Endpoint: ep + "?token=abc"}, wantErr: "pass a bearer token with --mcp-token-file"},
		{name: "unknown mode", opts: Options{Endpoint: ep, Mode: "all"}, wantErr: `invalid MCP subscription mode "all": want faults, resource-faults or events`},
		{name: "filter in faults mode", opts: Options{Endpoint: ep, Namespaces: []string{"a"}, Reason: "BackOff"}, wantErr: "the namespaces, reason filter applies to mode events only, not faults"},
		{name: "negative duration", opts: Options{Endpoint: ep, KeepAlive: -1}, wantErr: "keep-alive"},
		{name: "backoffs reversed", opts: Options{Endpoint: ep, MinBackoff: 2e9, MaxBackoff: 1e9}, wantErr: "minimum 2s exceeds maximum 1s"},
		{name: "negative buffer", opts: Options{Endpoint: ep, Buffer: -1}, wantErr: "handoff buffer"},
		{name: "client with timeout", opts: Options{Endpoint: ep, HTTPClient: &http.Client{Timeout: 1e9}}, wantErr: "must have no Timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New(tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			o := s.opts
			if o.Mode == "" || o.KeepAlive == 0 || o.CheckInterval == 0 || o.MinBackoff == 0 || o.MaxBackoff == 0 || o.Buffer == 0 || o.RequestTimeout == 0 || o.Logger == nil {
				t.Errorf("defaults not applied: %+v", o)
			}
		})
	}
}
