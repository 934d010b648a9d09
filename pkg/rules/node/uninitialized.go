package node

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// Uninitialized is the rule node/uninitialized.
var Uninitialized = &rule.Rule{
	Meta: rule.Meta{
		ID:    "node/uninitialized",
		Kinds: []string{"Node"},
		Layer: rule.InfrastructureLayer,
		Needs: nodeNeeds,
		Doc:   "A Node target still carrying the taint an initializing controller (cloud-controller-manager, Cluster API) removes once it has initialized the node.",
	},
	Check: checkNodeUninitialized,
}

// initTaint is a taint a node is registered with and a controller removes
// when it has initialized the node.
type initTaint struct {
	Key        string
	Controller string // who removes it
	Mechanism  string
}

// initTaints: the cloud provider's
// (https://kubernetes.io/docs/tasks/administer-cluster/running-cloud-controller/)
// and Cluster API's
// (https://cluster-api.sigs.k8s.io/developer/core/controllers/machine).
var initTaints = []initTaint{
	{"node.cloudprovider.kubernetes.io/uninitialized", "the cloud-controller-manager",
		"A kubelet started with --cloud-provider=external registers its node with the taint node.cloudprovider.kubernetes.io/uninitialized=true:NoSchedule; " +
			"the cloud-controller-manager removes it once it has initialized the node from the cloud's API (spec.providerID, addresses, zone labels). " +
			"While the taint stays, the scheduler places there only pods that tolerate it, so a Ready node takes no workload."},
	{"node.cluster.x-k8s.io/uninitialized", "the Cluster API machine controller",
		"Cluster API registers a joining node with the taint node.cluster.x-k8s.io/uninitialized:NoSchedule and its machine controller, in the management cluster, removes it " +
			"once it has matched the node to its Machine and synced the Machine's labels. While the taint stays, only pods that tolerate it are scheduled there."},
}

// initGrace is how long initialization normally takes: the controllers
// remove their taint within seconds of the node registering.
const initGrace = 10 * time.Minute

func checkNodeUninitialized(c *rule.Pass) []rule.Finding {
	n := kube.TargetOf(c, "Node", c.B.Nodes)
	if n == nil {
		return nil
	}
	var out []rule.Finding
	for _, it := range initTaints {
		id, ok := nodeTaintEvidence(c, n, it.Key)
		if !ok {
			continue
		}
		evidence := []string{id}
		since := nodeSince(n)
		conf, age := rule.Definitive, c.Now.Sub(since)
		title := fmt.Sprintf("node %s was never initialized by %s: it still carries the taint %s, so no workload is scheduled on it", n.Name, it.Controller, it.Key)
		if !since.IsZero() && age < initGrace {
			conf = rule.Moderate
			title = fmt.Sprintf("node %s is not initialized yet (registered %s ago): it carries the taint %s until %s removes it", n.Name, age.Round(time.Second), it.Key, it.Controller)
		}
		f := rule.Finding{
			Category: rule.Node.Sub("Uninitialized"), Verdict: report.Validated, Confidence: conf, Current: true, Strength: rule.Observed, Subject: n.Name,
			Hypothesis: fmt.Sprintf("%s has not initialized node %s", it.Controller, n.Name),
			Title:      title,
			Summary:    fmt.Sprintf("Node %s still has the taint %s, which %s removes once it has initialized the node; the scheduler keeps every pod that does not tolerate it off the node.", n.Name, it.Key, it.Controller),
			Mechanism:  it.Mechanism,
			Culprit:    fmt.Sprintf("node/%s taint %s (%s has not initialized it)", n.Name, it.Key, it.Controller),
			Actions: []report.Action{
				{Kind: report.Immediate, Description: fmt.Sprintf("Find out why %s has not initialized the node: is it running, and what does its log say about this node (credentials, the cloud API, the node's instance ID)?", it.Controller),
					Commands: []string{"kubectl get pods -A -o wide | grep -i -E 'cloud-controller|ccm|capi|cluster-api'", fmt.Sprintf("kubectl get node %s -o jsonpath='{.spec.providerID}'", n.Name)}},
				{Kind: report.LongTerm, Description: "Removing the taint by hand lets pods in, but the node stays without what the controller sets (providerID, addresses, zone labels); load balancers and volume attachment may not work on it.",
					Commands: []string{fmt.Sprintf("kubectl taint node %s %s-", n.Name, it.Key)},
					Risk:     "a node the cloud provider does not know cannot get volumes or load-balancer traffic"},
			},
		}
		if !since.IsZero() {
			f.Contributing = append(f.Contributing, fmt.Sprintf("The node has been registered since %s at least.", kube.Since(c, since)))
		}
		if n.Spec.ProviderID == "" {
			evidence = append(evidence, c.Evidence(fmt.Sprintf("Node %s has no spec.providerID", n.Name), "node/"+n.Name+" .spec.providerID",
				fmt.Sprintf("kubectl get node %s -o jsonpath='{.spec.providerID}'", n.Name)))
		}
		if ready := kube.NodeCondition(n, corev1.NodeReady); ready != nil && ready.Status == corev1.ConditionTrue {
			f.Contributing = append(f.Contributing, "The node itself is Ready: the kubelet works; only the initialization is missing.")
		}
		f.Contributing = append(f.Contributing, nodeImpact(c, n)...)
		f.Evidence = evidence
		out = append(out, f)
	}
	return out
}

// nodeSince is the oldest sign of the node's registration: its creation
// or the first transition of a condition the kubelet reports (a node
// object re-created by its kubelet keeps neither older).
func nodeSince(n *corev1.Node) time.Time {
	since := n.CreationTimestamp.Time
	for _, cond := range n.Status.Conditions {
		if t := cond.LastTransitionTime.Time; !t.IsZero() && (since.IsZero() || t.Before(since)) {
			since = t
		}
	}
	return since
}

// hasInitTaint: the node carries an initialization taint.
func hasInitTaint(n *corev1.Node) bool {
	for _, it := range initTaints {
		for _, t := range n.Spec.Taints {
			if t.Key == it.Key {
				return true
			}
		}
	}
	return false
}
