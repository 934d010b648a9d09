package node

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// NotReady is the rule node/not-ready.
var NotReady = &rule.Rule{
	Meta: rule.Meta{
		ID:    "node/not-ready",
		Kinds: []string{"Node"},
		Layer: rule.InfrastructureLayer,
		Needs: nodeNeeds,
		Doc:   "A Node target that is NotReady or Unknown, and why (kubelet stopped posting, runtime, network).",
	},
	Check: checkNodeNotReady,
}

// nodeHistoryReasons are node events that explain a NotReady node.
var nodeHistoryReasons = []string{"NodeNotReady", "Rebooted", "SystemOOM", "ContainerGCFailed", "ImageGCFailed", "EvictionThresholdMet", "KubeletSetupFailed", "Starting", "NodeShutdown"}

// checkNodeNotReady: a Node target whose Ready condition is False or
// Unknown, with why (kubelet gone, CNI, runtime, PLEG) and what it takes
// down with it.
func checkNodeNotReady(c *rule.Pass) []rule.Finding {
	n := kube.TargetOf(c, "Node", c.B.Nodes)
	if n == nil {
		return nil
	}
	cond := nodeNotReady(n)
	if cond == nil {
		if nodeHasProblem(n) && kube.NodeCondition(n, corev1.NodeReady) != nil {
			ready := kube.NodeCondition(n, corev1.NodeReady)
			return []rule.Finding{{Category: rule.Node.Sub("NotReady"), Verdict: report.Refuted, Confidence: rule.Definitive, Subject: n.Name,
				Hypothesis: fmt.Sprintf("Node %s's kubelet is not ready", n.Name),
				Evidence:   []string{nodeConditionEvidence(c, n, ready)}}}
		}
		return nil
	}
	cause := classifyNotReady(cond)
	evidence := []string{nodeConditionEvidence(c, n, cond)}
	for _, key := range []string{"node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"} {
		if id, ok := nodeTaintEvidence(c, n, key); ok {
			evidence = append(evidence, id)
		}
	}
	f := rule.Finding{
		Category: rule.Node.Sub("NotReady", string(cause.Class)), Verdict: report.Validated, Confidence: rule.Strong,
		Current: true, Strength: rule.Explained, Subject: n.Name,
		Hypothesis: fmt.Sprintf("Node %s is NotReady because %s", n.Name, cause.Explains),
	}
	since := ""
	if !cond.LastTransitionTime.IsZero() {
		since = fmt.Sprintf(" for %s (since %s)", kube.Ago(c.Now, cond.LastTransitionTime.Time), kube.Clock(cond.LastTransitionTime.Time))
	}
	hb := cond.LastHeartbeatTime.Time
	if cause.Class == notReadyKubeletStoppedPosting {
		f.Title = fmt.Sprintf("node %s is NotReady: its kubelet stopped posting status %s ago (last heartbeat %s)", n.Name, kube.Ago(c.Now, hb), kube.Clock(hb))
		f.Culprit = fmt.Sprintf("node/%s kubelet: no status since %s (Ready=Unknown, %s)", n.Name, kube.Clock(hb), kube.OrDash(cond.Reason))
		f.Mechanism = "The kubelet renews its node's status and lease every few seconds. When it misses them for node-monitor-grace-period (about 40-50s) the node lifecycle controller sets every condition to Unknown, " +
			"taints the node node.kubernetes.io/unreachable:NoExecute, marks its pods not ready and, once their toleration (300s by default) expires, evicts them; " +
			"the evicted pods stay Terminating until the kubelet comes back or the Node object is deleted."
	} else {
		f.Title = fmt.Sprintf("node %s is NotReady%s: %s", n.Name, since, cause.Explains)
		f.Culprit = fmt.Sprintf("node/%s Ready=False (%s): %s", n.Name, kube.OrDash(cond.Reason), kube.OrDash(kube.FirstLine(cond.Message)))
		f.Mechanism = "The kubelet itself reports the node not ready and says why in the Ready condition's message. The node lifecycle controller taints the node node.kubernetes.io/not-ready:NoExecute: " +
			"no new pod is scheduled there and running pods are evicted once their toleration (300s by default) expires."
	}
	f.Summary = fmt.Sprintf("Node %s is NotReady%s because %s.", n.Name, since, cause.Explains)
	for _, e := range nodeEvents(c, n.Name, nodeHistoryReasons...) {
		evidence = append(evidence, nodeEventEvidence(c, e))
		switch e.Reason {
		case "Rebooted":
			f.Contributing = append(f.Contributing, fmt.Sprintf("The node rebooted at %s: %s", kube.Clock(bundle.EventTime(&e)), kube.FirstLine(e.Message)))
		case "SystemOOM":
			f.Contributing = append(f.Contributing, fmt.Sprintf("The kernel's OOM killer ran on the node at %s: %s", kube.Clock(bundle.EventTime(&e)), kube.FirstLine(e.Message)))
		}
	}
	for _, other := range n.Status.Conditions {
		if other.Type != corev1.NodeReady && other.Status == corev1.ConditionTrue {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Condition %s=True (%s): %s", other.Type, other.Reason, other.Message))
			evidence = append(evidence, nodeConditionEvidence(c, n, &other))
		}
	}
	f.Contributing = append(f.Contributing, nodeImpact(c, n)...)
	f.Evidence = evidence
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: cause.Fix, Commands: cause.Commands(n.Name)},
		{Kind: report.Check, Description: "Read the node's conditions, taints and events, and see which pods it runs.",
			Commands: []string{fmt.Sprintf("kubectl describe node %s", n.Name),
				fmt.Sprintf("kubectl get events -n default --field-selector involvedObject.kind=Node,involvedObject.name=%s", n.Name),
				fmt.Sprintf("kubectl get pods -A -o wide --field-selector spec.nodeName=%s", n.Name)}},
		{Kind: report.Immediate, Description: "Move the workloads off the node while it is repaired.",
			Commands: []string{fmt.Sprintf("kubectl drain %s --ignore-daemonsets --delete-emptydir-data", n.Name)},
			Risk:     "evicts every pod on the node; with an unreachable kubelet the pods stay Terminating until the node returns or is deleted"},
	}
	if cause.Class == notReadyKubeletStoppedPosting {
		f.Actions = append(f.Actions, report.Action{Kind: report.LongTerm,
			Description: "If the machine is gone for good, delete the Node object so its pods are recreated elsewhere and its volumes detached.",
			Commands:    []string{fmt.Sprintf("kubectl delete node %s", n.Name)},
			Risk:        "only once the machine is really stopped: pods of a StatefulSet could otherwise run twice"})
	}
	return []rule.Finding{f}
}
