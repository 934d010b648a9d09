package scheduling

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// noNodes explains kube-scheduler's "no nodes available to schedule pods"
// (pkg/scheduler/scheduler.go ErrNoNodesAvailable, when the snapshot
// holds no node): the pod is not the problem.
func (e *schedContext) noNodes(part schedReason, _ submatch.Match) schedCause {
	cause := schedCause{Class: causeNoNodes, Definitive: true, Confidence: rule.Strong,
		Text:    "the scheduler sees no node at all",
		Culprit: "the cluster's nodes: none is registered (or all were deleted)"}
	var ready []string
	for _, n := range e.c.B.Nodes {
		if c := kube.NodeCondition(n, corev1.NodeReady); c != nil && c.Status == corev1.ConditionTrue {
			ready = append(ready, n.Name)
		}
	}
	if len(e.c.B.Nodes) > 0 {
		// Nodes exist now: the message is older than them (a node pool
		// that was scaled to zero and came back), or they never became Ready.
		cause.Definitive, cause.Confidence = false, rule.Likely
		cause.Text += fmt.Sprintf("; %d node(s) exist now, %d Ready (%s)", len(e.c.B.Nodes), len(ready), kube.NamesUpTo(ready, 3))
	}
	cause.Actions = []report.Action{{Kind: report.Immediate,
		Description: "Add nodes to the cluster (scale the node pool up from zero, or check why the kubelets do not register with the API server).",
		Commands:    []string{"kubectl get nodes -o wide", fmt.Sprintf("kubectl describe pod %s %s", e.p.Name, kube.NSFlag(e.p))}}}
	return cause
}
