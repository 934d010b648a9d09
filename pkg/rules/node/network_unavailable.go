package node

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// NetworkUnavailable is the rule node/network-unavailable.
var NetworkUnavailable = &rule.Rule{
	Meta: rule.Meta{
		ID:    "node/network-unavailable",
		Kinds: []string{"Node"},
		Layer: rule.InfrastructureLayer,
		Needs: nodeNeeds,
		Doc:   "A Node target whose network plugin has not configured its network.",
	},
	Check: checkNodeNetworkUnavailable,
}

// checkNodeNetworkUnavailable: a Node target whose network is not set up.
func checkNodeNetworkUnavailable(c *rule.Pass) []rule.Finding {
	n := kube.TargetOf(c, "Node", c.B.Nodes)
	if n == nil {
		return nil
	}
	cond := kube.NodeCondition(n, corev1.NodeNetworkUnavailable)
	if cond == nil || cond.Status != corev1.ConditionTrue {
		return nil
	}
	evidence := []string{nodeConditionEvidence(c, n, cond)}
	if id, ok := nodeTaintEvidence(c, n, "node.kubernetes.io/network-unavailable"); ok {
		evidence = append(evidence, id)
	}
	return []rule.Finding{{
		Category: rule.Node.Sub("NetworkUnavailable"), Verdict: report.Validated, Confidence: rule.Strong, Current: true, Strength: rule.Observed, Subject: n.Name,
		Evidence:   evidence,
		Hypothesis: fmt.Sprintf("Node %s has no working pod network", n.Name),
		Title:      fmt.Sprintf("node %s has no pod network: NetworkUnavailable=True (%s): %s", n.Name, kube.OrDash(cond.Reason), kube.OrDash(cond.Message)),
		Summary:    fmt.Sprintf("Node %s reports NetworkUnavailable=True since %s: pods on it cannot get or use a network.", n.Name, kube.Clock(cond.LastTransitionTime.Time)),
		Mechanism: "NetworkUnavailable is set by whatever configures the node's network: the cloud route controller (reason NoRouteCreated) or the CNI agent (Calico, Cilium…). " +
			"While it is True the node is tainted node.kubernetes.io/network-unavailable:NoSchedule and new pods' sandboxes fail.",
		Culprit: fmt.Sprintf("node/%s network setup: NetworkUnavailable=True (%s)", n.Name, kube.OrDash(cond.Reason)),
		Actions: []report.Action{
			{Kind: report.Immediate, Description: "Check the CNI agent pod on the node (and, with reason NoRouteCreated, the cloud route table of the cluster).",
				Commands: []string{fmt.Sprintf("kubectl get pods -n kube-system -o wide --field-selector spec.nodeName=%s", n.Name),
					fmt.Sprintf("kubectl describe node %s", n.Name)}},
		},
		Contributing: nodeImpact(c, n),
	}}
}
