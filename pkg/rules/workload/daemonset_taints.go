package workload

import (
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// SkippedNode is a node a DaemonSet's own node selection admits but one
// untolerated taint keeps its pod off. Fault says the DaemonSet's spec shows
// it is meant for that node (see TaintSkipped); otherwise the taint may be a
// deliberate dedication.
type SkippedNode struct {
	Node  *corev1.Node
	Taint corev1.Taint
	Fault bool
}

// TaintSkipped lists the nodes the DaemonSet's nodeSelector and required
// node affinity admit (every node when it has neither) but a taint its
// template does not tolerate keeps it off. The controller leaves such nodes
// out of desiredNumberScheduled, so its counts look complete.
//
// Dedication is told from a fault by the DaemonSet's own spec: it is meant
// for the node when its nodeSelector or required affinity names labels the
// node has, or when, selecting every node, it already tolerates taints of
// its own choosing (the control plane's, a dedicated pool's): it was made to
// reach tainted nodes and this taint was missed. A DaemonSet on the
// defaults (no selection, no toleration of its own) may be kept off
// dedicated nodes on purpose: not a fault. Taints that say the node is
// leaving or not ready yet (the control plane's, a cordon, the
// node.kubernetes.io and cloud-provider condition taints, the autoscalers'
// scale-down marks) are left out: they are no choice of placement.
func TaintSkipped(ds *appsv1.DaemonSet, nodes []*corev1.Node, withPod map[string]bool) []SkippedNode {
	spec := &ds.Spec.Template.Spec
	meant := ExplicitSelection(spec) || len(spec.Tolerations) > 0
	var out []SkippedNode
	for _, n := range nodes {
		if n.Spec.Unschedulable || withPod[n.Name] {
			continue
		}
		t, selected := TaintExclusion(spec, n)
		if !selected || t == nil || transientTaint(*t) {
			continue
		}
		out = append(out, SkippedNode{Node: n, Taint: *t, Fault: meant})
	}
	return out
}

// ExplicitSelection: the template has a nodeSelector or a required node
// affinity.
func ExplicitSelection(s *corev1.PodSpec) bool {
	return len(s.NodeSelector) > 0 || (s.Affinity != nil && s.Affinity.NodeAffinity != nil && s.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil)
}

func transientTaint(t corev1.Taint) bool {
	switch {
	case t.Key == "node-role.kubernetes.io/control-plane", t.Key == "node-role.kubernetes.io/master":
		return true
	case strings.HasPrefix(t.Key, "node.kubernetes.io/"), strings.HasPrefix(t.Key, "node.cloudprovider.kubernetes.io/"):
		return true
	case t.Key == "ToBeDeletedByClusterAutoscaler", t.Key == "DeletionCandidateOfClusterAutoscaler", t.Key == "karpenter.sh/disruption":
		return true
	}
	return false
}

// SkippedByTaint groups skipped nodes by taint, in first-seen order.
func SkippedByTaint(skipped []SkippedNode) (taints []corev1.Taint, nodes map[string][]string) {
	nodes = map[string][]string{}
	for _, s := range skipped {
		key := kube.TaintSpec(s.Taint)
		if _, ok := nodes[key]; !ok {
			taints = append(taints, s.Taint)
		}
		nodes[key] = append(nodes[key], s.Node.Name)
	}
	return taints, nodes
}

// TolerationFor is the toleration that admits the taint.
func TolerationFor(t corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf(`{"key":"%s","operator":"Exists","effect":"%s"}`, t.Key, t.Effect)
	}
	return fmt.Sprintf(`{"key":"%s","operator":"Equal","value":"%s","effect":"%s"}`, t.Key, t.Value, t.Effect)
}

// daemonTaintSkipped: nodes the DaemonSet selects but a taint keeps it off,
// with the toleration that would open them.
func daemonTaintSkipped(c *rule.Pass, ds *appsv1.DaemonSet, skipped []SkippedNode, evidence []string) rule.Finding {
	taints, nodes := SkippedByTaint(skipped)
	var parts, tols []string
	for _, t := range taints {
		names := nodes[kube.TaintSpec(t)]
		parts = append(parts, fmt.Sprintf("%s on %s", kube.TaintSpec(t), kube.NamesUpTo(names, 5)))
		tols = append(tols, TolerationFor(t))
		evidence = append(evidence, c.Evidence(fmt.Sprintf("Node %s has taint %s, which DaemonSet %s does not tolerate (its tolerations: %s)", names[0], kube.TaintSpec(t), ds.Name, tolerationList(ds.Spec.Template.Spec.Tolerations)),
			"node/"+names[0]+" .spec.taints", fmt.Sprintf("kubectl get node %s -o jsonpath='{.spec.taints}'", names[0])))
	}
	selection := fmt.Sprintf("its own nodeSelector or node affinity selects them")
	if !ExplicitSelection(&ds.Spec.Template.Spec) {
		selection = fmt.Sprintf("it has no nodeSelector or node affinity and already tolerates %s, so it is meant to reach tainted nodes too", tolerationList(ds.Spec.Template.Spec.Tolerations))
	}
	f := rule.Finding{Category: rule.DaemonSet.Sub("SkippedNodes").Sub("Taint"), Verdict: report.Validated, Current: true, Strength: rule.Explained,
		Subject: ds.Name, Confidence: rule.Probable}
	f.Hypothesis = fmt.Sprintf("An untolerated taint keeps DaemonSet %s off %d node(s) it selects", ds.Name, len(skipped))
	f.Title = fmt.Sprintf("daemonset %s skips %d of %d nodes: %s, not tolerated", ds.Name, len(skipped), len(c.B.Nodes), strings.Join(parts, "; "))
	f.Summary = fmt.Sprintf("DaemonSet %s runs on %d node(s) and reports itself complete, but the controller leaves out every node whose taints the pod template does not tolerate: %s. %s; those nodes get no pod.",
		ds.Name, ds.Status.DesiredNumberScheduled, strings.Join(parts, "; "), strings.ToUpper(selection[:1])+selection[1:])
	f.Culprit = fmt.Sprintf("daemonset/%s tolerations (no toleration for %s)", ds.Name, strings.Join(parts, "; "))
	f.Mechanism = "The DaemonSet controller counts a node in desiredNumberScheduled only when the pod template tolerates its NoSchedule/NoExecute taints, so a tainted node it selects is silently left out: desired = current = ready, and the node has no pod."
	f.Contributing = []string{"If the nodes are deliberately reserved for other work, give the DaemonSet a nodeSelector or node affinity that leaves them out, so its intent is explicit."}
	path, existing := "/spec/template/spec/tolerations", ds.Spec.Template.Spec.Tolerations
	patch := fmt.Sprintf(`[{"op":"add","path":"%s","value":[%s]}]`, path, strings.Join(tols, ","))
	if len(existing) > 0 {
		var ops []string
		for _, t := range tols {
			ops = append(ops, fmt.Sprintf(`{"op":"add","path":"%s/-","value":%s}`, path, t))
		}
		patch = "[" + strings.Join(ops, ",") + "]"
	}
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: fmt.Sprintf("Add the toleration(s) that open the skipped nodes to DaemonSet %s: %s.", ds.Name, strings.Join(tols, ", ")),
			Commands: []string{fmt.Sprintf("kubectl patch daemonset %s -n %s --type=json -p '%s'", ds.Name, ds.Namespace, patch)},
			Risk:     "the change rolls the DaemonSet's pods; the agent then also runs on nodes reserved for other work"},
		{Kind: report.Check, Description: "Compare the nodes' taints with the DaemonSet's tolerations.",
			Commands: []string{"kubectl get nodes -o custom-columns=NAME:.metadata.name,TAINTS:.spec.taints",
				fmt.Sprintf(`kubectl get daemonset %s -n %s -o jsonpath='{.spec.template.spec.tolerations}'`, ds.Name, ds.Namespace)}},
	}
	f.Evidence = evidence
	return f
}

func tolerationList(tols []corev1.Toleration) string {
	if len(tols) == 0 {
		return "none"
	}
	var out []string
	for _, t := range tols {
		s := kube.ValueOr(t.Key, "*")
		if t.Operator == corev1.TolerationOpExists {
			s += " Exists"
		} else {
			s += "=" + t.Value
		}
		if t.Effect != "" {
			s += ":" + string(t.Effect)
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}
