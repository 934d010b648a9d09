package batch

import (
	"fmt"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// podRemoval is who deleted a Job's pod from under it, as the deleted
// pod's own events say: the Job counts such a pod as failed, so a Job with
// a low backoffLimit fails on a disruption, not on its work.
type podRemoval struct {
	pod, by, reason, message string
	kind                     string // the category refinement
	fix                      string
	evidence                 string
}

// removals are the disruptions that delete a running pod, by the reason
// of the event its remover files on it.
var removals = map[string]struct{ kind, fix string }{
	// cluster-autoscaler's scale-down drains an underused node
	// (https://github.com/kubernetes/autoscaler/blob/master/cluster-autoscaler/FAQ.md#what-types-of-pods-can-prevent-ca-from-removing-a-node).
	"ScaleDown": {"ScaleDown", `Keep the cluster autoscaler from evicting the Job's pods: annotate the pod template with cluster-autoscaler.kubernetes.io/safe-to-evict: "false" (or give the Job a podFailurePolicy that ignores DisruptionTarget, so a disruption does not count against backoffLimit).`},
	// The kubelet's node-pressure eviction.
	"Evicted": {"Evicted", "Find the node pressure that evicted the pod (its Evicted event names the resource) and give the pods requests that match their use; a podFailurePolicy that ignores DisruptionTarget keeps an eviction from failing the Job."},
	// The scheduler preempting a lower-priority pod.
	"Preempted": {"Preempted", "Give the Job a PriorityClass that is not preempted by the workloads that displaced it, or a podFailurePolicy that ignores DisruptionTarget."},
	// The taint manager deleting pods off a node with a NoExecute taint.
	"TaintManagerEviction": {"TaintEviction", "Find why the node was tainted NoExecute (it went NotReady, or was drained), or tolerate the taint; a podFailurePolicy that ignores DisruptionTarget keeps it from failing the Job."},
}

// jobPodRemoved reads the events of the Job's deleted pods (the bundle
// lists them for a Job whose pods are gone) for their remover.
func jobPodRemoved(c *rule.Pass) *podRemoval {
	for _, name := range c.B.GonePods() {
		for _, e := range c.B.Events {
			if e.InvolvedObject.Kind != "Pod" || e.InvolvedObject.Name != name {
				continue
			}
			r, ok := removals[e.Reason]
			if !ok {
				continue
			}
			return &podRemoval{pod: name, by: kube.ValueOr(e.Source.Component, "a controller"), reason: e.Reason, message: kube.FirstLine(e.Message),
				kind: r.kind, fix: r.fix, evidence: kube.EventEvidence(c, e)}
		}
	}
	return nil
}

// apply makes f say the pod was removed from under the Job.
func (r *podRemoval) apply(f *rule.Finding, jobName, reason string) {
	f.Category = rule.Job.Sub(reason, "PodRemoved", r.kind)
	f.Strength = rule.Explained
	f.Confidence = rule.High
	f.Title = fmt.Sprintf("job %s failed (%s): its pod %s was deleted by %s (%s: %s), and the Job counts a deleted pod as a failed attempt", jobName, reason, r.pod, r.by, r.reason, r.message)
	f.Summary = fmt.Sprintf("Job %s failed (%s), but its work did not: pod %s was removed from under it by %s (%s: %s). A Job counts a pod deleted while running as failed, so with a low backoffLimit a disruption fails the Job.", jobName, reason, r.pod, r.by, r.reason, r.message)
	f.Culprit = fmt.Sprintf("pod/%s deleted by %s (%s)", r.pod, r.by, r.reason)
	f.Evidence = append(f.Evidence, r.evidence)
}
