package node

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// heldDrain refines a cordoned node whose pods stay with the
// PodDisruptionBudget that allows none of them to be evicted, and the pods
// it counts that are not ready: the reason a drain cannot finish
// (docs/DESIGN.md, "Correlations").
func heldDrain(c *rule.Pass, f rule.Finding, n *corev1.Node, left []*corev1.Pod) rule.Finding {
	for _, pdb := range c.B.PDBs {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || sel.Empty() || pdb.Status.DisruptionsAllowed > 0 {
			continue
		}
		var held []string
		for _, p := range left {
			if p.Namespace == pdb.Namespace && sel.Matches(labels.Set(p.Labels)) {
				held = append(held, p.Namespace+"/"+p.Name)
			}
		}
		if len(held) == 0 {
			continue
		}
		var unready []string
		for _, p := range c.B.DependencyPods {
			if p.Namespace == pdb.Namespace && p.Spec.NodeName != n.Name && sel.Matches(labels.Set(p.Labels)) && !kube.IsPodReady(p) {
				state, _ := kube.PodState(p)
				where := ""
				if p.Spec.NodeName != "" {
					where = " on " + p.Spec.NodeName
				}
				unready = append(unready, fmt.Sprintf("%s%s (%s)", p.Name, where, state))
			}
		}
		budget := fmt.Sprintf("PodDisruptionBudget %s/%s allows 0 disruptions (disruptionsAllowed 0: %d healthy of %d desired, %d expected)", pdb.Namespace, pdb.Name,
			pdb.Status.CurrentHealthy, pdb.Status.DesiredHealthy, pdb.Status.ExpectedPods)
		f.Evidence = append(f.Evidence, c.Evidence(budget, "poddisruptionbudget/"+pdb.Name+" .status",
			fmt.Sprintf("kubectl get pdb %s -n %s -o jsonpath='{.status}'", pdb.Name, pdb.Namespace)))
		f.Category = rule.Node.Sub("Cordoned", "DrainBlocked")
		f.Confidence = rule.Strong
		f.Strength = rule.Traced
		why := ""
		if len(unready) > 0 {
			why = fmt.Sprintf(", because %s not ready", strings.Join(unready, ", ")+map[bool]string{true: " is", false: " are"}[len(unready) == 1])
		}
		f.Hypothesis = fmt.Sprintf("A drain of node %s is held by PodDisruptionBudget %s: evicting %s would leave fewer healthy pods than it allows", n.Name, pdb.Name, strings.Join(held, ", "))
		f.Title = fmt.Sprintf("node %s is cordoned and its drain cannot evict %s: %s%s", n.Name, strings.Join(held, ", "), budget, why)
		f.Summary += fmt.Sprintf(" An eviction of %s is refused: %s%s.", strings.Join(held, ", "), budget, why)
		f.Culprit = fmt.Sprintf("%s, over %s on the cordoned node%s", budget, strings.Join(held, ", "), why)
		fix := report.Action{Kind: report.Immediate,
			Description: fmt.Sprintf("Make the budget's other pods healthy (fix or delete the unready one so its controller replaces it), then the eviction proceeds; relax PodDisruptionBudget %s only if the application tolerates it.", pdb.Name),
			Commands:    []string{fmt.Sprintf("kubectl get pods -n %s -l %s -o wide", pdb.Namespace, sel.String()), fmt.Sprintf("kubectl get pdb %s -n %s", pdb.Name, pdb.Namespace)}}
		f.Actions = append([]report.Action{fix}, f.Actions...)
		return f
	}
	return f
}
