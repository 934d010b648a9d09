package logs

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/applog"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// Instance is one container instance's log, parsed.
type Instance struct {
	Log      *applog.Log
	Previous bool // the previous instance's
}

// Readable are a container's logs that were read, the current instance
// first (the one that runs now), then the previous one.
func Readable(c *rule.Pass, p *corev1.Pod, container string) []Instance {
	cur, prev := c.B.LogsFor(p.Name, container)
	var out []Instance
	if cur != nil && cur.Error == "" {
		out = append(out, Instance{Log: applog.Parse(cur.Text)})
	}
	if prev != nil && prev.Error == "" {
		out = append(out, Instance{Log: applog.Parse(prev.Text), Previous: true})
	}
	return out
}
