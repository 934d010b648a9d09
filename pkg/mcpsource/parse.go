package mcpsource

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The events tools answer in text for a model to read: a heading, a JSON
// block, maybe a sentence. These read the JSON block and fall back to the
// text itself.

// parseSubscribeResult is the subscription ID events_subscribe created, or
// the server's refusal as an error.
func parseSubscribeResult(res *mcp.CallToolResult) (string, error) {
	text := resultText(res)
	if res.IsError {
		if text == "" {
			text = "no reason given"
		}
		return "", fmt.Errorf("the server refused: %s", text)
	}
	if m, ok := res.StructuredContent.(map[string]any); ok {
		if id, _ := m["subscriptionId"].(string); id != "" {
			return id, nil
		}
	}
	if id := subscriptionIDIn(text); id != "" {
		return id, nil
	}
	return "", fmt.Errorf("no subscriptionId in the %s result: %q", toolSubscribe, truncate(text, 200))
}

var subscriptionIDField = regexp.MustCompile(`"subscriptionId"\s*:\s*"(?P<id>[^"]+)"`)

// subscriptionIDIn finds the subscriptionId of the first JSON object in
// text that has one.
func subscriptionIDIn(text string) string {
	for obj := range jsonObjects(text) {
		var v struct {
			SubscriptionID string `json:"subscriptionId"`
		}
		if json.Unmarshal(obj, &v) == nil && v.SubscriptionID != "" {
			return v.SubscriptionID
		}
	}
	if m, ok := submatch.Find(subscriptionIDField, text); ok {
		return m.Get("id")
	}
	return ""
}

// findSubscription looks a subscription up in events_list_subscriptions'
// text. The ID anywhere in the text counts as found, so a change of the
// listing's layout cannot make every check resubscribe.
func findSubscription(text, id string) (found, degraded bool) {
	if id == "" {
		return false, false
	}
	for obj := range jsonObjects(text) {
		var v struct {
			Subscriptions []struct {
				SubscriptionID string `json:"subscriptionId"`
				Degraded       bool   `json:"degraded"`
			} `json:"subscriptions"`
		}
		if json.Unmarshal(obj, &v) != nil {
			continue
		}
		for _, s := range v.Subscriptions {
			if s.SubscriptionID == id {
				return true, s.Degraded
			}
		}
	}
	return strings.Contains(text, `"`+id+`"`), false
}

// subscriptionError is a kubernetes/subscription_error notification's data.
type subscriptionError struct {
	SubscriptionID string `json:"subscriptionId"`
	Cluster        string `json:"cluster"`
	Error          string `json:"error"`
	Degraded       bool   `json:"degraded"`
}

func parseSubscriptionError(data []byte) (*subscriptionError, error) {
	var se subscriptionError
	if err := json.Unmarshal(data, &se); err != nil {
		return nil, fmt.Errorf("decode subscription_error notification: %w", err)
	}
	return &se, nil
}

// jsonObjects yields each JSON object that starts at a '{' of text, in
// order, skipping the ones inside an object already yielded.
func jsonObjects(text string) func(yield func([]byte) bool) {
	return func(yield func([]byte) bool) {
		for i := 0; i < len(text); {
			j := strings.IndexByte(text[i:], '{')
			if j < 0 {
				return
			}
			start := i + j
			dec := json.NewDecoder(strings.NewReader(text[start:]))
			var raw json.RawMessage
			if dec.Decode(&raw) != nil {
				i = start + 1
				continue
			}
			if !yield(raw) {
				return
			}
			i = start + int(dec.InputOffset())
		}
	}
}

// resultText joins a tool result's text content.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// marshalData re-encodes a notification's data, which the SDK decoded
// into a map (or another JSON value).
func marshalData(data any) ([]byte, error) {
	return json.Marshal(data)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
