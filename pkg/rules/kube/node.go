package kube

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
)

func NodeCondition(n *corev1.Node, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == t {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

func NodeConditionTrue(n *corev1.Node, t corev1.NodeConditionType) bool {
	cond := NodeCondition(n, t)
	return cond != nil && cond.Status == corev1.ConditionTrue
}

func TaintSpec(t corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}

func UncordonAction(names []string) report.Action {
	var cmds []string
	for _, n := range names[:min(len(names), 3)] {
		cmds = append(cmds, "kubectl uncordon "+n)
	}
	return report.Action{Kind: report.Immediate, Description: fmt.Sprintf("If the maintenance that cordoned %s is over, uncordon it.", NamesUpTo(names, 3)),
		Commands: cmds, Risk: "pods land on the node again; do not uncordon a node that is being drained or repaired"}
}
