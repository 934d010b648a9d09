package triage

import (
	"context"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/clusters"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/registry"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// collection is the evidence of one run, collected in the background from
// the moment the run begins: its reads depend on the object alone, so they
// need not wait for the incident's workspace to be made.
type collection struct {
	done   chan struct{}
	cancel context.CancelCauseFunc
	b      *bundle.Bundle
	err    error
	took   time.Duration
}

// startCollect starts collecting obj's evidence: what the investigator's
// rules for its kind need (their declared Needs), no more.
// The server's version, asked for when the client was made, is awaited
// here too: only cluster-info.json, written with the bundle, holds it.
func (e *Engine) startCollect(ctx context.Context, cl *clusters.Client, obj *unstructured.Unstructured, info bundle.ClusterInfo, podEvents *bundle.PodEvents) *collection {
	plan := e.cfg.Bundle
	plan.PodEvents = podEvents
	if plan.Needs == nil {
		plan.Needs = registry.Needs(obj.GetKind())
	}
	ctx, cancel := context.WithCancelCause(ctx)
	c := &collection{done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(c.done)
		start := time.Now()
		c.b, c.err = e.collect(ctx, cl.Clientset, obj, info, plan)
		c.took = time.Since(start)
		if c.err == nil {
			c.b.Cluster.ServerVersion = cl.ServerVersion(ctx)
		}
	}()
	return c
}

// wait returns the bundle once collected. When ctx ends first (Ctrl-C, a
// cancellation request, a deadline) the collection is cancelled with its
// cause and waited for, and the caller sees ctx's error.
func (c *collection) wait(ctx context.Context) (*bundle.Bundle, error) {
	select {
	case <-c.done:
	case <-ctx.Done():
		c.cancel(context.Cause(ctx))
		<-c.done
	}
	c.cancel(nil)
	return c.b, c.err
}

// stop cancels a collection whose run could not begin, and waits for it:
// no read outlives its run.
func (c *collection) stop(cause error) {
	c.cancel(cause)
	<-c.done
}
