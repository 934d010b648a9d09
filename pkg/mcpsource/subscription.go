package mcpsource

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// subscribe calls events_subscribe and makes its subscription the current one.
func (r *run) subscribe(ctx context.Context, cs *mcp.ClientSession) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{
		Name:      toolSubscribe,
		Arguments: r.subscribeArgs(),
		// Servers of the newer protocol read the level from here.
		Meta: mcp.Meta{mcp.MetaKeyLogLevel: logLevel},
	})
	if err != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) && !r.offersTool(ctx, cs, toolSubscribe) {
			return "", fmt.Errorf("the MCP server at %s has no %s tool: is it kubernetes-mcp-server with events enabled? (%w)",
				r.opts.Endpoint, toolSubscribe, err)
		}
		return "", fmt.Errorf("subscribe to %s at MCP server %s: %w", r.opts.Mode, r.opts.Endpoint, err)
	}
	id, err := parseSubscribeResult(res)
	if err != nil {
		return "", fmt.Errorf("subscribe to %s at MCP server %s: %w", r.opts.Mode, r.opts.Endpoint, err)
	}
	r.subID.Store(&id)
	r.stats.Subscribed.Store(true)
	r.logger.Info("subscribed to the MCP server's events", "endpoint", r.opts.Endpoint, "mode", r.opts.Mode, "subscriptionId", id)
	return id, nil
}

func (r *run) subscribeArgs() map[string]any {
	args := map[string]any{"mode": r.opts.Mode}
	if len(r.opts.Namespaces) > 0 {
		args["namespaces"] = r.opts.Namespaces
	}
	for k, v := range map[string]string{"type": r.opts.EventType, "reason": r.opts.Reason, "labelSelector": r.opts.LabelSelector} {
		if v != "" {
			args[k] = v
		}
	}
	return args
}

// resubscribe makes a new subscription on a live session. A missing one is
// a gap since it was last seen; a degraded one is replaced (the new one
// first, so nothing more is missed; the pipeline dedups the overlap) and
// is a gap too, for what it may have missed while degraded.
func (r *run) resubscribe(ctx context.Context, sess *session, why string, missing bool) error {
	r.logger.Warn(why+"; subscribing again", "endpoint", r.opts.Endpoint, "subscriptionId", sess.subID)
	ctx, cancel := context.WithTimeout(ctx, r.opts.RequestTimeout)
	defer cancel()
	if missing {
		r.stats.Subscribed.Store(false)
	}
	id, err := r.subscribe(ctx, sess.cs)
	if err != nil {
		return err
	}
	old, lastSeen := sess.subID, sess.confirmed
	sess.subID, sess.confirmed = id, time.Now()
	// The gap is recorded before the resubscribe is counted, so whoever sees
	// the count sees the gap too.
	if missing {
		// It went missing some time after it was last seen: the gap is at
		// most this long.
		r.recordGap(lastSeen, "subscribed again", "subscriptionId", id, "previousSubscriptionId", old)
		r.stats.Resubscribes.Add(1)
		return nil
	}
	// While it was degraded the server's watch may have missed faults, and
	// nothing replays them: that is a gap like any other (from when it was
	// last known healthy), so the caller reconciles.
	r.recordGap(lastSeen, "replaced the degraded subscription", "subscriptionId", id, "previousSubscriptionId", old)
	r.stats.Resubscribes.Add(1)
	if _, err := r.callTool(ctx, sess.cs, toolUnsubscribe, map[string]any{"subscriptionId": old}); err != nil {
		r.logger.Debug("unsubscribe of the degraded subscription failed", "subscriptionId", old, "error", err)
	}
	return nil
}

type subscriptionState int

const (
	subscriptionPresent subscriptionState = iota
	subscriptionDegraded
	subscriptionMissing
	subscriptionUnknown // the request failed
)

// lookUp asks events_list_subscriptions whether the session's subscription
// still exists. When the server answers but not usefully it is taken to
// exist: resubscribing on every check would pile up subscriptions.
func (r *run) lookUp(ctx context.Context, sess *session) (subscriptionState, error) {
	ctx, cancel := context.WithTimeout(ctx, r.opts.RequestTimeout)
	defer cancel()
	res, err := r.callTool(ctx, sess.cs, toolListSubscriptions, nil)
	if err != nil {
		var rpcErr *jsonrpc.Error
		if errors.As(err, &rpcErr) {
			r.logger.Warn("cannot check the MCP subscription", "endpoint", r.opts.Endpoint, "error", err)
			return subscriptionPresent, nil
		}
		return subscriptionUnknown, err
	}
	if res.IsError {
		r.logger.Warn("cannot check the MCP subscription", "endpoint", r.opts.Endpoint, "error", resultText(res))
		return subscriptionPresent, nil
	}
	found, degraded := findSubscription(resultText(res), sess.subID)
	switch {
	case !found:
		return subscriptionMissing, nil
	case degraded:
		return subscriptionDegraded, nil
	}
	return subscriptionPresent, nil
}

func (r *run) callTool(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("call %s: %w", name, err)
	}
	if res.IsError && name == toolUnsubscribe {
		return res, fmt.Errorf("call %s: %s", name, resultText(res))
	}
	return res, nil
}

// offersTool reports whether the server lists the tool; when it cannot
// tell, it assumes so (so the caller reports the original error).
func (r *run) offersTool(ctx context.Context, cs *mcp.ClientSession, name string) bool {
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return true
		}
		if t.Name == name {
			return true
		}
	}
	return false
}
