package node

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// Pressure is the rule node/pressure.
var Pressure = &rule.Rule{
	Meta: rule.Meta{
		ID:    "node/pressure",
		Kinds: []string{"Node"},
		Layer: rule.InfrastructureLayer,
		Needs: nodeNeeds,
		Doc:   "A Node target under memory, disk or PID pressure.",
	},
	Check: checkNodePressure,
}

// checkNodePressure: a Node target under memory, disk or PID pressure.
func checkNodePressure(c *rule.Pass) []rule.Finding {
	n := kube.TargetOf(c, "Node", c.B.Nodes)
	if n == nil {
		return nil
	}
	var out []rule.Finding
	var clear []string
	var clearEv []string
	for _, pr := range pressures {
		cond := kube.NodeCondition(n, pr.Type)
		if cond == nil || cond.Status != corev1.ConditionTrue {
			if cond != nil && cond.Status == corev1.ConditionFalse {
				clear = append(clear, string(pr.Type))
				clearEv = append(clearEv, nodeConditionEvidence(c, n, cond))
			}
			continue
		}
		evidence := []string{nodeConditionEvidence(c, n, cond)}
		if id, ok := nodeTaintEvidence(c, n, pr.Taint); ok {
			evidence = append(evidence, id)
		}
		f := rule.Finding{
			Category: pr.Category, Verdict: report.Validated, Confidence: rule.Definitive, Current: true, Strength: rule.Observed, Subject: n.Name,
			Hypothesis: fmt.Sprintf("Node %s is under %s", n.Name, pr.Type),
			Title:      fmt.Sprintf("node %s is under %s: %s", n.Name, pr.Type, kube.OrDash(cond.Message)),
			Summary:    fmt.Sprintf("Node %s reports %s since %s: %s.", n.Name, pr.Type, kube.Clock(cond.LastTransitionTime.Time), pr.Explains),
			Mechanism:  fmt.Sprintf("The kubelet watches %s against its eviction thresholds; below them it sets %s=True, the node is tainted %s:NoSchedule, and %s.", pr.Signal, pr.Type, pr.Taint, pr.Explains),
			Culprit:    fmt.Sprintf("node/%s %s below the kubelet's eviction threshold (%s=True since %s)", n.Name, pr.Signal, pr.Type, kube.Clock(cond.LastTransitionTime.Time)),
		}
		for _, e := range nodeEvents(c, n.Name, pressureEventReasons...) {
			evidence = append(evidence, nodeEventEvidence(c, e))
			if pr.Type == corev1.NodeDiskPressure && e.Reason == "ImageGCFailed" && strings.Contains(e.Message, "0 bytes eligible") {
				f.Culprit = fmt.Sprintf("node/%s image filesystem: image garbage collection found nothing to free (%s) — the space is held by images in use, logs or volumes", n.Name, kube.FirstLine(e.Message))
			}
		}
		if pr.Type == corev1.NodeMemoryPressure {
			if unlimited := podsWithoutMemoryLimit(c.B.NodePods); len(unlimited) > 0 {
				f.Contributing = append(f.Contributing, fmt.Sprintf("%d pod(s) on the node have a container without a memory limit: %s.", len(unlimited), kube.NamesUpTo(unlimited, 5)))
			}
		}
		f.Contributing = append(f.Contributing, nodeImpact(c, n)...)
		f.Evidence = evidence
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: pr.Fix, Commands: pr.Commands(n.Name)},
			{Kind: report.Check, Description: "Read the kubelet's eviction events and the node's conditions.",
				Commands: []string{fmt.Sprintf("kubectl describe node %s", n.Name),
					fmt.Sprintf("kubectl get events -n default --field-selector involvedObject.kind=Node,involvedObject.name=%s", n.Name)}},
		}
		out = append(out, f)
	}
	// Only what the node reports False is ruled out.
	if len(out) == 0 && len(clear) > 0 && nodeHasProblem(n) {
		out = append(out, rule.Finding{Category: rule.Node.Sub("Pressure"), Verdict: report.Refuted, Confidence: rule.Definitive, Subject: n.Name,
			Hypothesis: fmt.Sprintf("Node %s is under %s", n.Name, strings.Join(clear, ", ")), Evidence: clearEv})
	}
	return out
}

func podsWithoutMemoryLimit(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, ctr := range p.Spec.Containers {
			if _, ok := ctr.Resources.Limits[corev1.ResourceMemory]; !ok {
				out = append(out, p.Namespace+"/"+p.Name)
				break
			}
		}
	}
	return out
}
