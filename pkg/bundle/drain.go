package bundle

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// A cordoned node whose pods stay is most often a drain an eviction
// cannot finish: a PodDisruptionBudget over one of its pods allows no
// disruption, because another pod it counts is not ready (docs/DESIGN.md,
// "Correlations"). The budgets and the pods they select say which.

// Bounds of the drain reads: the namespaces of the node's pods whose
// budgets are listed, and the budgets without disruptions left whose pods
// are listed.
const (
	maxDrainNamespaces = 3
	maxDrainBudgets    = 2
)

// drainBudgets lists the PodDisruptionBudgets of the namespaces the
// node's remaining pods (not DaemonSets', not finished) run in, and the
// pods of each budget that allows no disruption and selects one of them:
// those not ready go among DependencyPods.
func (c *collector) drainBudgets(ctx context.Context) {
	var namespaces []string
	var left []*corev1.Pod
	for _, p := range c.b.NodePods {
		if ref := metav1.GetControllerOfNoCopy(p); ref != nil && ref.Kind == "DaemonSet" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		left = append(left, p)
		if !contains(namespaces, p.Namespace) && len(namespaces) < maxDrainNamespaces {
			namespaces = append(namespaces, p.Namespace)
		}
	}
	listed := 0
	for _, ns := range namespaces {
		c.count()
		list, err := c.cs.PolicyV1().PodDisruptionBudgets(ns).List(ctx, metav1.ListOptions{Limit: maxQuotas})
		if err != nil {
			c.problem("pod disruption budgets of "+ns, err)
			continue
		}
		keep(c, list.Items, &c.b.PDBs)
		for i := range list.Items {
			pdb := &list.Items[i]
			sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
			if err != nil || sel.Empty() || pdb.Status.DisruptionsAllowed > 0 || listed >= maxDrainBudgets {
				continue
			}
			holds := false
			for _, p := range left {
				holds = holds || p.Namespace == ns && sel.Matches(labels.Set(p.Labels))
			}
			if !holds {
				continue
			}
			listed++
			c.count()
			pods, err := c.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String(), Limit: maxDependencyPods})
			if err != nil {
				c.problem("pods of pod disruption budget "+ns+"/"+pdb.Name, err)
				continue
			}
			for j := range pods.Items {
				p := &pods.Items[j]
				if p.Spec.NodeName == c.b.Target.Name || podHealthy(p) {
					continue
				}
				p.ManagedFields = nil
				rp := redacted(p, gvkPod)
				c.mu.Lock()
				c.b.DependencyPods = append(c.b.DependencyPods, rp)
				c.mu.Unlock()
			}
		}
	}
}
