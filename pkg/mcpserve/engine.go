package mcpserve

import (
	"context"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-triage/kubectl-triage/pkg/clusters"
	"github.com/kubectl-triage/kubectl-triage/pkg/progress"
	"github.com/kubectl-triage/kubectl-triage/pkg/target"
	"github.com/kubectl-triage/kubectl-triage/pkg/triage"
)

// NewEngine is the Engine of a server that triages with the user's
// kubeconfig: each context's client from cache (made on first use, so the
// server starts without a cluster), each triage run by engine as the
// one-shot command runs it (the same resolution and synthesized fault).
func NewEngine(cache *clusters.Cache, engine *triage.Engine) Engine {
	return &clusterEngine{clusters: cache, engine: engine}
}

type clusterEngine struct {
	clusters *clusters.Cache
	engine   *triage.Engine
}

// Triage resolves req's target on its context and triages it.
func (e *clusterEngine) Triage(ctx context.Context, req TriageRequest, report progress.Func) (*triage.Result, error) {
	c, err := e.clusters.Get(ctx, req.Context)
	if err != nil {
		return nil, err
	}
	ns := req.Namespace
	if ns == "" {
		ns = c.Info.Namespace
	}
	t, err := triage.ResolveNamed(c.Flags, ns, strings.Fields(req.Target), report)
	if err != nil {
		return nil, err
	}
	ev, err := triage.NamedFault(c.Info, t, time.Now())
	if err != nil {
		return nil, err
	}
	return e.engine.Run(ctx, triage.Request{Client: c, Namespace: ns, Event: ev, Object: t.Object, Progress: report})
}

// Cluster is a kubeconfig context's read-only access, for triage_namespace.
func (e *clusterEngine) Cluster(ctx context.Context, contextName string) (*Cluster, error) {
	c, err := e.clusters.Get(ctx, contextName)
	if err != nil {
		return nil, err
	}
	info := c.Info
	info.ServerVersion = c.ServerVersion(ctx)
	return &Cluster{Client: c.Clientset, Info: info, Get: func(ns, typ, name string) (*unstructured.Unstructured, error) {
		t, err := target.Resolve(c.Flags, ns, []string{typ, name})
		if err != nil {
			return nil, err
		}
		return t.Object, nil
	}}, nil
}
