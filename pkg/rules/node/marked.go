package node

import (
	"fmt"
	"time"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// Marked is the rule node/marked.
var Marked = &rule.Rule{
	Meta: rule.Meta{
		ID:    "node/marked",
		Kinds: []string{"Node"},
		Layer: rule.InfrastructureLayer,
		Needs: nodeNeeds,
		Doc:   "A Node target carrying the taint a controller sets on a node it is removing (cluster-autoscaler's ToBeDeletedByClusterAutoscaler, Karpenter's disrupted): no new pod is scheduled on it, and one that keeps it past a scale-down's usual time was left by a controller that did not finish.",
	},
	Check: checkNodeMarked,
}

// markerGrace is longer than a removal takes: cluster-autoscaler drains
// for at most --max-graceful-termination-sec (10 minutes) before it
// deletes the node.
const markerGrace = 30 * time.Minute

func checkNodeMarked(c *rule.Pass) []rule.Finding {
	n := kube.TargetOf(c, "Node", c.B.Nodes)
	if n == nil {
		return nil
	}
	var out []rule.Finding
	for _, t := range n.Spec.Taints {
		k, ok := kube.KnownTaints[t.Key]
		if !ok || !k.Marker || !kube.Blocking(t) {
			continue
		}
		id, _ := nodeTaintEvidence(c, n, t.Key)
		evidence := []string{id}
		for _, e := range nodeEvents(c, n.Name, "ScaleDown", "DeletingNode", "Disrupting", "DisruptionBlocked") {
			evidence = append(evidence, nodeEventEvidence(c, e))
		}
		since := kube.TaintedSince(t)
		age := c.Now.Sub(since)
		f := rule.Finding{
			Category: rule.Node.Sub("Marked"), Verdict: report.Validated, Confidence: rule.Definitive, Current: true, Strength: rule.Observed, Subject: n.Name,
			Evidence:   evidence,
			Hypothesis: fmt.Sprintf("%s marked node %s for removal", k.SetBy, n.Name),
			Summary:    fmt.Sprintf("Node %s carries %s: the scheduler places no new pod there.", n.Name, kube.TaintWhy(t)),
			Mechanism: fmt.Sprintf("%s taints a node it is about to remove, drains it and deletes it; it takes the taint off only if it gives up. "+
				"While the taint stays, pods that do not tolerate it are not scheduled there, so the cluster runs with one node less than it has.", k.SetBy),
			Actions: []report.Action{{Kind: report.Check, Description: fmt.Sprintf("Read %s's log about this node: is the removal still under way, or did it stop (a restart, a leader change)?", k.SetBy),
				Commands: []string{fmt.Sprintf("kubectl get pods -A -o wide --field-selector spec.nodeName=%s", n.Name), "kubectl get pods -A | grep -i -E 'cluster-autoscaler|karpenter'"}}},
		}
		switch {
		case !since.IsZero() && age > markerGrace:
			f.Title = fmt.Sprintf("node %s was marked for removal by %s %s ago (taint %s) and is still there: the removal did not finish, and no new pod is scheduled on it", n.Name, k.SetBy, kube.HumanDuration(age), t.Key)
			f.Culprit = fmt.Sprintf("node/%s taint %s, set by %s at %s and left behind", n.Name, kube.TaintSpec(t), k.SetBy, kube.Stamp(since))
			f.Contributing = append(f.Contributing, fmt.Sprintf("A removal takes minutes; this taint is %s old. A %s that restarts mid-removal forgets the nodes it marked and leaves them tainted (https://github.com/kubernetes/autoscaler/issues/5048).", kube.HumanDuration(age), k.SetBy))
			f.Actions = append([]report.Action{{Kind: report.Immediate, Description: "Remove the stale taint so the node takes pods again (or delete the node, if it was meant to go).",
				Commands: []string{fmt.Sprintf("kubectl taint node %s %s-", n.Name, t.Key)},
				Risk:     "if the removal is in fact still under way, pods scheduled there are evicted again"}}, f.Actions...)
		case !since.IsZero():
			f.Confidence = rule.Moderate
			f.Title = fmt.Sprintf("node %s is being removed by %s (taint %s set %s ago): no new pod is scheduled on it", n.Name, k.SetBy, t.Key, kube.HumanDuration(age))
			f.Culprit = fmt.Sprintf("node/%s taint %s, set by %s at %s", n.Name, kube.TaintSpec(t), k.SetBy, kube.Stamp(since))
		default:
			f.Title = fmt.Sprintf("node %s is marked for removal by %s (taint %s): no new pod is scheduled on it", n.Name, k.SetBy, t.Key)
			f.Culprit = fmt.Sprintf("node/%s taint %s, set by %s", n.Name, kube.TaintSpec(t), k.SetBy)
		}
		f.Contributing = append(f.Contributing, nodeImpact(c, n)...)
		out = append(out, f)
	}
	return out
}
