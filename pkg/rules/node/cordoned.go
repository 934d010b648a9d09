package node

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// Cordoned is the rule node/cordoned.
var Cordoned = &rule.Rule{
	Meta: rule.Meta{
		ID:    "node/cordoned",
		Kinds: []string{"Node"},
		Layer: rule.InfrastructureLayer,
		Needs: nodeNeeds,
		Doc:   "A Node target that is cordoned (spec.unschedulable).",
	},
	Check: checkNodeCordoned,
}

// checkNodeCordoned: a Node target marked unschedulable.
func checkNodeCordoned(c *rule.Pass) []rule.Finding {
	n := kube.TargetOf(c, "Node", c.B.Nodes)
	if n == nil || !n.Spec.Unschedulable {
		return nil
	}
	evidence := []string{c.Evidence(fmt.Sprintf("Node %s has spec.unschedulable=true", n.Name), "node/"+n.Name+" .spec.unschedulable",
		fmt.Sprintf("kubectl get node %s -o jsonpath='{.spec.unschedulable}'", n.Name))}
	if id, ok := nodeTaintEvidence(c, n, "node.kubernetes.io/unschedulable"); ok {
		evidence = append(evidence, id)
	}
	for _, e := range nodeEvents(c, n.Name, "NodeNotSchedulable") {
		evidence = append(evidence, nodeEventEvidence(c, e))
	}
	f := rule.Finding{
		Category: rule.Node.Sub("Cordoned"), Verdict: report.Validated, Confidence: rule.Definitive, Current: true, Strength: rule.Observed, Subject: n.Name,
		Evidence:   evidence,
		Hypothesis: fmt.Sprintf("Node %s is cordoned", n.Name),
		Title:      fmt.Sprintf("node %s is cordoned (spec.unschedulable=true): no new pod is scheduled on it", n.Name),
		Summary:    fmt.Sprintf("Node %s is cordoned: the scheduler places no new pod there; pods already running stay.", n.Name),
		Mechanism: "kubectl cordon or drain (or a maintenance tool: an upgrade, a node-problem remediator) sets spec.unschedulable; the node lifecycle controller mirrors it as the taint " +
			"node.kubernetes.io/unschedulable:NoSchedule. Running pods are untouched; a drain would also evict them.",
		Culprit: fmt.Sprintf("node/%s spec.unschedulable=true (cordoned)", n.Name),
		Actions: []report.Action{
			kube.UncordonAction([]string{n.Name}),
			{Kind: report.Check, Description: "If a drain was started, see which pods are still on the node.",
				Commands: []string{fmt.Sprintf("kubectl get pods -A -o wide --field-selector spec.nodeName=%s", n.Name)}},
		},
	}
	if pods := c.B.NodePods; len(pods) > 0 {
		var workloads []string
		var left []*corev1.Pod
		for _, p := range pods {
			if ref := metav1.GetControllerOfNoCopy(p); ref == nil || ref.Kind != "DaemonSet" {
				if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
					workloads = append(workloads, p.Namespace+"/"+p.Name)
					left = append(left, p)
				}
			}
		}
		f.Contributing = append(f.Contributing, fmt.Sprintf("%d pod(s) other than DaemonSet pods still run on the node%s: a drain, if one was started, has not finished.", len(workloads), listSuffix(workloads)))
		f = heldDrain(c, f, n, left)
	}
	return []rule.Finding{f}
}
