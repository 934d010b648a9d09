package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func (s *Server) addTools() {
	str := map[string]any{"type": "string"}
	tools := map[string]struct {
		tool    *mcp.Tool
		handler mcp.ToolHandler
	}{
		ToolSubscribe: {&mcp.Tool{
			Name:        ToolSubscribe,
			Description: "Subscribe to Kubernetes events or faults; they arrive as notifications/message (call logging/setLevel first).",
			InputSchema: map[string]any{
				"type": "object",
				"properties": map[string]any{
					"mode":              map[string]any{"type": "string", "enum": s.opts.Modes},
					"namespaces":        map[string]any{"type": "array", "items": str},
					"type":              str,
					"reason":            str,
					"labelSelector":     str,
					"involvedKind":      str,
					"involvedName":      str,
					"involvedNamespace": str,
				},
			},
		}, s.subscribe},
		ToolListSubscriptions: {&mcp.Tool{
			Name:        ToolListSubscriptions,
			Description: "List this session's active event subscriptions.",
			InputSchema: map[string]any{"type": "object"},
		}, s.listSubscriptions},
		ToolUnsubscribe: {&mcp.Tool{
			Name:        ToolUnsubscribe,
			Description: "Cancel an event subscription.",
			InputSchema: map[string]any{
				"type":       "object",
				"properties": map[string]any{"subscriptionId": str},
				"required":   []string{"subscriptionId"},
			},
		}, s.unsubscribe},
	}
	for _, name := range s.opts.Tools {
		if t, ok := tools[name]; ok {
			s.mcp.AddTool(t.tool, t.handler)
		}
	}
}

func (s *Server) subscribe(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		Mode string `json:"mode"`
		Filters
	}
	if err := unmarshalArgs(req, &args); err != nil {
		return errorResult("failed to create subscription: %v", err), nil
	}
	if args.Mode == "" {
		args.Mode = ModeEvents
	}
	if !slices.Contains(s.opts.Modes, args.Mode) {
		return errorResult("failed to create subscription: invalid mode: must be %s", quoteAlternatives(s.opts.Modes)), nil
	}
	sub := &subscription{
		Subscription: Subscription{
			ID:        newSubscriptionID(),
			SessionID: req.Session.ID(),
			Mode:      args.Mode,
			Filters:   args.Filters,
			CreatedAt: time.Now().UTC().Truncate(time.Second),
		},
		session: req.Session,
	}
	s.mu.Lock()
	s.subs = append(s.subs, sub)
	s.watchLocked(req.Session)
	s.notifyLocked()
	s.mu.Unlock()
	s.logger.Info("subscription created", "subscriptionId", sub.ID, "mode", sub.Mode, "session", sub.SessionID)

	return textResult("# Event Subscription Created\n\n%s\n\nYou will receive event notifications via the logging/message protocol.",
		indentJSON(map[string]any{
			"cluster":        s.opts.Cluster,
			"createdAt":      sub.CreatedAt.Format(time.RFC3339),
			"filters":        filtersObject(sub.Filters),
			"mode":           sub.Mode,
			"status":         "active",
			"subscriptionId": sub.ID,
		})), nil
}

func (s *Server) listSubscriptions(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.mu.Lock()
	list := []map[string]any{}
	for _, sub := range s.subs {
		if sub.session != req.Session {
			continue
		}
		list = append(list, map[string]any{
			"cluster":        s.opts.Cluster,
			"createdAt":      sub.CreatedAt.Format(time.RFC3339),
			"degraded":       sub.Degraded,
			"filters":        filtersObject(sub.Filters),
			"mode":           sub.Mode,
			"subscriptionId": sub.ID,
		})
	}
	s.mu.Unlock()
	return textResult("# Active Subscriptions\n\n%s", indentJSON(map[string]any{"subscriptions": list, "total": len(list)})), nil
}

func (s *Server) unsubscribe(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args struct {
		SubscriptionID string `json:"subscriptionId"`
	}
	if err := unmarshalArgs(req, &args); err != nil {
		return errorResult("failed to cancel subscription: %v", err), nil
	}
	s.mu.Lock()
	n := len(s.subs)
	s.subs = slices.DeleteFunc(s.subs, func(sub *subscription) bool {
		return sub.ID == args.SubscriptionID && sub.session == req.Session
	})
	found := len(s.subs) < n
	if found {
		s.notifyLocked()
	}
	s.mu.Unlock()
	if !found {
		return errorResult("failed to cancel subscription: subscription not found"), nil
	}
	s.logger.Info("subscription cancelled", "subscriptionId", args.SubscriptionID)
	return textResult("# Subscription Cancelled\n\n%s", indentJSON(map[string]any{
		"status":         "cancelled",
		"subscriptionId": args.SubscriptionID,
	})), nil
}

func unmarshalArgs(req *mcp.CallToolRequest, v any) error {
	if len(req.Params.Arguments) == 0 {
		return nil
	}
	if err := json.Unmarshal(req.Params.Arguments, v); err != nil {
		return fmt.Errorf("invalid arguments: %w", err)
	}
	return nil
}

// filtersObject is the filters as the real server shows them: only the
// ones set, keys sorted.
func filtersObject(f Filters) map[string]any {
	b, _ := json.Marshal(f)
	m := map[string]any{}
	_ = json.Unmarshal(b, &m)
	return m
}

// quoteAlternatives renders modes like the real server: 'events' or 'faults'.
func quoteAlternatives(modes []string) string {
	q := slices.Sorted(slices.Values(modes))
	for i := range q {
		q[i] = "'" + q[i] + "'"
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func indentJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func textResult(format string, args ...any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
}

func errorResult(format string, args ...any) *mcp.CallToolResult {
	r := textResult(format, args...)
	r.IsError = true
	return r
}
