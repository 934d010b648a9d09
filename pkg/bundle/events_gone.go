package bundle

import (
	"context"
	"regexp"
	"sort"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// createdPodRe is the Job controller's SuccessfulCreate message.
var createdPodRe = regexp.MustCompile(`^Created pod: ([a-z0-9][-a-z0-9.]*)$`)

// maxGonePods bounds the deleted pods whose events a Job target reads.
const maxGonePods = 2

// GonePods are the pods a Job's events say it created that the bundle
// does not hold, newest first: deleted since (by a TTL, an eviction, the
// cluster autoscaler). Their events outlive them.
func (b *Bundle) GonePods() []string {
	have := map[string]bool{}
	for _, p := range b.Pods {
		have[p.Name] = true
	}
	type created struct {
		name string
		at   time.Time
	}
	var out []created
	for _, e := range b.Events {
		if e.InvolvedObject.Kind != "Job" || e.InvolvedObject.Name != b.Target.Name || e.Reason != "SuccessfulCreate" {
			continue
		}
		if m := createdPodRe.FindStringSubmatch(e.Message); m != nil && !have[m[1]] {
			have[m[1]] = true
			out = append(out, created{m[1], EventTime(&e)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[j].at.Before(out[i].at) })
	names := make([]string, 0, len(out))
	for _, c := range out {
		names = append(names, c.name)
	}
	return names
}

// goneJobPodEvents reads, for a Job target whose pods are gone, the events
// of the last pods it created: who removed a pod (cluster-autoscaler's
// ScaleDown, the kubelet's Evicted, the scheduler's Preempted) is said
// only there. Selected by kind and name (eventSelector): the deleted
// pod's UID is not known. At most maxGonePods lists.
func (c *collector) goneJobPodEvents(ctx context.Context) {
	if c.b.Target.Kind != "Job" || !c.opts.wants(NeedEvents) || ctx.Err() != nil {
		return
	}
	c.mu.Lock()
	gone := c.b.GonePods()
	c.mu.Unlock()
	for i, name := range gone {
		if i == maxGonePods {
			break
		}
		if !c.events(ctx, fault.Resource{APIVersion: "v1", Kind: "Pod", Name: name, Namespace: c.b.Target.Namespace}) {
			return
		}
	}
}
