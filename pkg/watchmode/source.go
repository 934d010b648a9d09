package watchmode

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/kubectl-triage/kubectl-triage/pkg/clusters"
	"github.com/kubectl-triage/kubectl-triage/pkg/clusterwatch"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/mcpsource"
	"github.com/kubectl-triage/kubectl-triage/pkg/watcher"
)

// source is a fault source with what the watch reads of it: the faults it
// reported itself (parsed), its counters for the metrics and its health
// for /healthz.
type source struct {
	run        watcher.Source
	parsed     func(*fault.Event)
	reconnects func() uint64
	drops      func() uint64
	health     func() error
}

// source makes the configured source on the current context's cluster def.
func (r *run) source(def *clusters.Client) (*source, error) {
	if r.cfg.Source == SourceMCP {
		return r.mcpSource(def)
	}
	return r.clusterSource(def), nil
}

// mcpSource subscribes to kubernetes-mcp-server and reconciles with the
// cluster after every gap in the subscription.
func (r *run) mcpSource(def *clusters.Client) (*source, error) {
	// The server never replays a gap: once the subscription is back, a
	// scan of the cluster finds the faults that began meanwhile. Its
	// faults name the current context, and the watcher renames every
	// fault the server sends to the context it maps to (clusterOf: ""
	// and the server's own name for this cluster, its kubeconfig
	// context, both map to it), so the reconciler recognises what the
	// server reported and dedup takes both for one fault.
	rec, err := clusterwatch.NewReconciler(clusterwatch.Options{Client: def.Clientset, Cluster: def.Name, Namespace: r.namespace(), Logger: r.log})
	if err != nil {
		return nil, err
	}
	mcp := r.cfg.MCP
	var eventsNamespaces []string // the events subscription takes a namespace filter
	if mcp.Mode == "events" {
		eventsNamespaces = r.cfg.Namespaces
	}
	s, err := mcpsource.New(mcpsource.Options{
		Endpoint: mcp.Endpoint, Mode: mcp.Mode, Namespaces: eventsNamespaces,
		EventType: mcp.EventType, Reason: mcp.Reason, BearerToken: mcp.BearerToken, Logger: r.log,
		OnGap: rec.Gap, OnLost: rec.Lost,
	})
	if err != nil {
		return nil, err
	}
	return &source{
		run: watcher.SourceFunc(func(ctx context.Context, in watcher.Intake) error {
			recCtx, stopRec := context.WithCancel(ctx)
			recDone := make(chan struct{})
			go func() { defer close(recDone); rec.Run(recCtx, in.Event) }()
			defer func() { stopRec(); <-recDone }()
			return s.Run(ctx, func(msg mcpsource.Message) { in.Message(msg.Logger, msg.Level, msg.Data) })
		}),
		parsed:     rec.Observe, // a fault the server reported is not one a scan missed
		reconnects: func() uint64 { return s.Stats().Reconnects.Load() },
		drops:      func() uint64 { return s.Stats().HandoffDrops.Load() },
		health: func() error {
			if !s.Stats().Subscribed.Load() {
				return fmt.Errorf("not subscribed to %s: reconnecting", mcp.Endpoint)
			}
			return nil
		},
	}, nil
}

// clusterSource watches the API server.
func (r *run) clusterSource(def *clusters.Client) *source {
	var synced atomic.Bool
	return &source{
		run: watcher.SourceFunc(func(ctx context.Context, in watcher.Intake) error {
			return clusterwatch.Run(ctx, clusterwatch.Options{
				Client: def.Clientset, Cluster: def.Name, Namespace: r.namespace(), IncludeExisting: r.cfg.IncludeExisting, Logger: r.log,
				Synced: func() { synced.Store(true) },
			}, in.Event)
		}),
		health: func() error {
			if !synced.Load() {
				return errors.New("the cluster watch has not synced yet")
			}
			return nil
		},
	}
}
