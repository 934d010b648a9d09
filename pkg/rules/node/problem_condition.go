package node

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// ProblemCondition is the rule node/problem-condition.
var ProblemCondition = &rule.Rule{
	Meta: rule.Meta{
		ID:    "node/problem-condition",
		Kinds: []string{"Node"},
		Layer: rule.InfrastructureLayer,
		Needs: nodeNeeds,
		Doc: "A Node target with a condition beyond the kubelet's own set True (node-problem-detector's KernelDeadlock, ReadonlyFilesystem, FrequentKubeletRestart…, " +
			"or any other daemon's): the node may still be Ready, but the problem it reports is real.",
	},
	Check: checkProblemCondition,
}

// kubeletConditions are the conditions other node rules explain.
var kubeletConditions = map[corev1.NodeConditionType]bool{
	corev1.NodeReady: true, corev1.NodeMemoryPressure: true, corev1.NodeDiskPressure: true,
	corev1.NodePIDPressure: true, corev1.NodeNetworkUnavailable: true,
}

// checkProblemCondition: a node condition whose True means a problem. By
// the convention node-problem-detector and its peers follow, every node
// condition but Ready is a problem condition (the healthy state is False).
func checkProblemCondition(c *rule.Pass) []rule.Finding {
	n := kube.TargetOf(c, "Node", c.B.Nodes)
	if n == nil {
		return nil
	}
	var out []rule.Finding
	for i := range n.Status.Conditions {
		cond := &n.Status.Conditions[i]
		if kubeletConditions[cond.Type] || cond.Status != corev1.ConditionTrue {
			continue
		}
		evidence := []string{nodeConditionEvidence(c, n, cond)}
		for _, e := range nodeEvents(c, n.Name) {
			if e.Reason == cond.Reason || (cond.Message != "" && strings.Contains(e.Message, strings.TrimSpace(cond.Message))) {
				evidence = append(evidence, nodeEventEvidence(c, e))
			}
		}
		ready := "while it still reports Ready"
		if nodeNotReady(n) != nil {
			ready = "and is not Ready"
		}
		out = append(out, rule.Finding{
			Category: rule.Node.Sub(string(cond.Type)), Verdict: report.Validated, Confidence: rule.Strong, Current: true, Strength: rule.Observed, Subject: n.Name,
			Evidence:   evidence,
			Hypothesis: fmt.Sprintf("Node %s reports the problem condition %s", n.Name, cond.Type),
			Title:      fmt.Sprintf("node %s reports %s=True (%s) %s: %s", n.Name, cond.Type, kube.OrDash(cond.Reason), ready, kube.OrDash(strings.TrimSuffix(cond.Message, "."))),
			Summary: fmt.Sprintf("Node %s has condition %s=True since %s (%s): %s. The kubelet keeps the node Ready, so pods are still placed there, but the problem it names affects them.",
				n.Name, cond.Type, kube.Clock(cond.LastTransitionTime.Time), kube.OrDash(cond.Reason), kube.OrDash(cond.Message)),
			Mechanism: "Node conditions other than the kubelet's own are set by node daemons such as node-problem-detector, which watch the kernel log, the container runtime and system services; " +
				"a True condition is a problem they saw (a hung task, a read-only filesystem, a kubelet restarting). The scheduler ignores it unless a remediator taints or drains the node.",
			Culprit: fmt.Sprintf("node/%s condition %s=True (%s): %s", n.Name, cond.Type, kube.OrDash(cond.Reason), kube.OrDash(cond.Message)),
			Actions: []report.Action{
				{Kind: report.Check, Description: "Read the node's kernel and runtime logs for what the condition reports; cordon and drain the node, then reboot or replace it, if the problem persists.",
					Commands: []string{fmt.Sprintf("kubectl describe node %s", n.Name), fmt.Sprintf("kubectl get events -n default --field-selector involvedObject.kind=Node,involvedObject.name=%s", n.Name)}},
			},
		})
	}
	return out
}
