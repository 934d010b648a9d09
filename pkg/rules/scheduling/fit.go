package scheduling

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// otherwiseFit says, when the scheduler gives several reasons and some
// only narrow the choice (pools reserved by taints, nodes the selector
// leaves out), which nodes the pod would otherwise fit, what blocks each
// node, and which nodes lifting the decisive reason opens (docs/DESIGN.md,
// "Scheduling: the nodes that otherwise fit"). The scheduler stops at a
// node's first failing filter, so the nodes it reports with a filter that
// runs after TaintToleration and NodeAffinity are exactly those.
func (e *schedContext) otherwiseFit(top schedCause, causes []schedCause) []string {
	if top.Narrowing || e.pastAffinity == 0 {
		return nil
	}
	var narrowing []string
	excluded := 0
	for _, cz := range causes {
		if cz.Narrowing {
			r, _, _ := strings.Cut(cz.Text, " — ")
			narrowing = append(narrowing, r)
			excluded += cz.blocked
		}
	}
	if len(narrowing) == 0 {
		return nil
	}
	left := e.pastAffinity
	if e.total > 0 && left > e.total-excluded && e.total-excluded > 0 {
		left = e.total - excluded
	}
	reason, _, _ := strings.Cut(top.Text, " — ")
	out := []string{fmt.Sprintf("The decisive reason is the one on the nodes the pod would otherwise fit: %s its tolerations and node selector/affinity, and there the scheduler reports %s; lifting that opens %s. The other reasons (%s) exclude nodes reserved for other pods or not selected, which is what those constraints are for.",
		passCount(left), reason, itOrThem(left), strings.Join(narrowing, "; "))}
	if per := e.blockingPerNode(top); per != "" {
		out = append(out, "Per node, what keeps the pod off it (the scheduler's filter order, from the nodes read): "+per+".")
	}
	return out
}

func passCount(n int) string {
	if n == 1 {
		return "1 node passes"
	}
	return fmt.Sprintf("%d nodes pass", n)
}

func itOrThem(n int) string {
	if n == 1 {
		return "that node"
	}
	return fmt.Sprintf("those %d nodes", n)
}

// blockingPerNode groups the nodes of the bundle by the first of the
// scheduler's filters that rejects the pod, in kube-scheduler's order
// (NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit).
// A node that passes all of them is "room taken": the requests of the pods
// already there are not in the bundle.
func (e *schedContext) blockingPerNode(top schedCause) string {
	if len(e.c.B.Nodes) == 0 {
		return ""
	}
	pass := "passes cordon, taints, node selector and size (the scheduler's reason there applies)"
	if top.capacity {
		pass = "fits when empty (room taken by the pods already there)"
	}
	wanted := e.wantedNodes()
	unschedulable := corev1.Taint{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule}
	groups := map[string][]string{}
	order := []string{pass}
	for _, n := range e.c.B.Nodes {
		why := pass
		switch tg := untoleratedTaints(e.p, []*corev1.Node{n}); {
		case n.Spec.Unschedulable && !PodToleratesTaint(e.p.Spec.Tolerations, &unschedulable):
			why = "cordoned"
		case len(tg) > 0:
			why = "untolerated taint " + kube.TaintSpec(tg[0].Taint)
		case !wanted[n.Name]:
			why = "labels do not match the pod's node selector/affinity"
		default:
			for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				q, ok := e.reqs[res]
				if a, has := n.Status.Allocatable[res]; ok && has && a.Cmp(q) < 0 {
					why = fmt.Sprintf("Insufficient %s (allocatable %s < request %s)", res, a.String(), q.String())
					break
				}
			}
		}
		if _, ok := groups[why]; !ok && why != pass {
			order = append(order, why)
		}
		groups[why] = append(groups[why], n.Name)
	}
	// The nodes that otherwise fit first; a few groups of the others, the
	// rest counted: a big cluster's every pool is not the point.
	const maxGroups = 4
	var parts []string
	rest := 0
	for i, why := range order {
		switch {
		case len(groups[why]) == 0:
		case i < maxGroups:
			parts = append(parts, fmt.Sprintf("%s: %s", kube.NamesUpTo(groups[why], 3), why))
		default:
			rest += len(groups[why])
		}
	}
	if rest > 0 {
		parts = append(parts, fmt.Sprintf("%d more node(s) excluded by other filters", rest))
	}
	return strings.Join(parts, "; ")
}
