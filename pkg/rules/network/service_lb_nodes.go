package network

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// ServiceLBNodes is the rule network/service-lb-nodes.
var ServiceLBNodes = &rule.Rule{
	Meta: rule.Meta{
		ID:    "network/service-lb-nodes",
		Kinds: []string{"Service"},
		Layer: rule.ServiceLayer,
		Needs: []rule.Need{rule.Services, rule.EndpointSlices, rule.Nodes},
		Doc:   "A LoadBalancer Service that has its address but no node to carry its traffic: every node is excluded from load balancers (node.kubernetes.io/exclude-from-external-load-balancers, which kubeadm puts on control-plane nodes and cloud controllers, MetalLB and kube-vip honour, or the cluster-autoscaler's deletion taint), or, with externalTrafficPolicy Local, every node that runs a ready endpoint is.",
	},
	Check: checkServiceLBNodes,
}

// taintToBeDeleted is the cluster-autoscaler's taint on a node it is
// deleting; the service controller drops such nodes from load balancers
// (k8s.io/cloud-provider controllers/service, nodeUnTaintedPredicate).
const taintToBeDeleted = "ToBeDeletedByClusterAutoscaler"

// LBExclusion is why a node carries no load-balancer traffic; "" when it
// may.
func LBExclusion(n *corev1.Node) string {
	if v, ok := n.Labels[corev1.LabelNodeExcludeBalancers]; ok {
		if v == "" {
			return "label " + corev1.LabelNodeExcludeBalancers
		}
		return fmt.Sprintf("label %s=%s", corev1.LabelNodeExcludeBalancers, v)
	}
	for _, t := range n.Spec.Taints {
		if t.Key == taintToBeDeleted {
			return "taint " + taintToBeDeleted
		}
	}
	return ""
}

// LBNodes is what the nodes say of a LoadBalancer Service's traffic: the
// nodes that may carry it (for externalTrafficPolicy Local, only those
// running a ready endpoint count) and those excluded, by reason.
type LBNodes struct {
	Local    bool     // externalTrafficPolicy Local: only endpoint nodes count
	Eligible []string // nodes that may carry the traffic
	Excluded []string // "node (reason)", or the node alone when every one has the same reason
	Reasons  []string // the distinct reasons, in order
	Listed   int      // the nodes considered
}

// LBNodesOf reads the bundle's nodes for svc; ok is false when svc is no
// LoadBalancer with an address or the nodes were not all read (a list
// refused or not made, or cut at its bound).
func LBNodesOf(c *rule.Pass, svc *corev1.Service) (LBNodes, bool) {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer || lbAddress(svc) == "" || !c.B.Cluster.NodesListed || kube.CollectionFailed(c, "nodes") {
		return LBNodes{}, false
	}
	out := LBNodes{Local: svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal}
	consider := func(string) bool { return true }
	if out.Local {
		hosts := map[string]bool{}
		for _, s := range c.B.EndpointSlices {
			if s.Namespace != svc.Namespace || s.Labels[labelServiceName] != svc.Name {
				continue
			}
			for _, e := range s.Endpoints {
				if e.NodeName != nil && (e.Conditions.Ready == nil || *e.Conditions.Ready) {
					hosts[*e.NodeName] = true
				}
			}
		}
		if len(hosts) == 0 {
			return LBNodes{}, false // no ready endpoint: service/endpoints says so
		}
		consider = func(n string) bool { return hosts[n] }
	}
	for _, n := range c.B.Nodes {
		if !consider(n.Name) {
			continue
		}
		out.Listed++
		why := LBExclusion(n)
		if why == "" {
			out.Eligible = append(out.Eligible, n.Name)
			continue
		}
		out.Excluded = append(out.Excluded, fmt.Sprintf("%s (%s)", n.Name, why))
		if !slices.Contains(out.Reasons, why) {
			out.Reasons = append(out.Reasons, why)
		}
	}
	if len(out.Reasons) == 1 {
		// One reason for all: said once, after the names.
		for i, e := range out.Excluded {
			out.Excluded[i] = strings.TrimSuffix(e, " ("+out.Reasons[0]+")")
		}
	}
	return out, out.Listed > 0
}

// Which words the nodes counted.
func (l LBNodes) Which() string {
	if l.Local {
		return "node running a ready endpoint (externalTrafficPolicy Local)"
	}
	return "node"
}

// checkServiceLBNodes: the address is there, but nothing behind it can
// answer: the load balancer (or the add-on announcing the address) leaves
// out every node it could send the traffic to.
func checkServiceLBNodes(c *rule.Pass) []rule.Finding {
	svc := kube.TargetOf(c, "Service", c.B.Services)
	if svc == nil {
		return nil
	}
	nodes, ok := LBNodesOf(c, svc)
	if !ok || len(nodes.Eligible) > 0 {
		return nil
	}
	addr := lbAddress(svc)
	reasons := strings.Join(nodes.Reasons, ", ")
	every := fmt.Sprintf("every %s (%d of %d) carries %s", nodes.Which(), len(nodes.Excluded), nodes.Listed, reasons)
	label := "kubectl get nodes -L " + corev1.LabelNodeExcludeBalancers
	return []rule.Finding{{
		Category: rule.Service.Sub("LoadBalancer", "NoEligibleNode"), Verdict: report.Validated, Confidence: rule.Strong,
		Hypothesis: fmt.Sprintf("No node may carry Service %s's load-balancer traffic: %s", svc.Name, every),
		Evidence: []string{
			c.Evidence(fmt.Sprintf("Service %s is type LoadBalancer with address %s", svc.Name, addr),
				svcRef(svc)+" .status.loadBalancer", fmt.Sprintf("kubectl get service %s %s -o wide", svc.Name, svcNS(svc))),
			c.Evidence(fmt.Sprintf("Nodes excluded from load balancers (%s): %s", reasons, kube.NamesUpTo(nodes.Excluded, 5)),
				"nodes' labels and taints", label),
		},
		Current: true, Strength: rule.Explained, Subject: svc.Name,
		Title:   fmt.Sprintf("service %s has address %s but no node carries its traffic: %s", svc.Name, addr, every),
		Summary: fmt.Sprintf("Service %s of type LoadBalancer was given address %s, but %s, so the load balancer has no backend node (a cloud load balancer's target list is empty; MetalLB's and kube-vip's speakers announce the address from no node): connections to it go unanswered.", svc.Name, addr, every),
		Mechanism: "Load-balancer implementations send a Service's traffic only to nodes not labelled " + corev1.LabelNodeExcludeBalancers +
			" (kubeadm labels control-plane nodes so; the cloud's service controller, MetalLB since 0.14 and kube-vip honour it) and not tainted " + taintToBeDeleted +
			"; with externalTrafficPolicy Local only nodes running a ready endpoint count. A cluster whose only nodes are so labelled has an address that no node answers.",
		Culprit: fmt.Sprintf("nodes %s: %s", kube.NamesUpTo(nodes.Excluded, 5), reasons),
		Actions: []report.Action{{Kind: report.Immediate,
			Description: fmt.Sprintf("Let a node carry the traffic: remove %s from the nodes meant to serve (kubectl label node NODE %s-), add worker nodes, or tell the add-on to ignore the label (MetalLB: the speaker's --ignore-exclude-lb, chart value speaker.ignoreExcludeLB).", corev1.LabelNodeExcludeBalancers, corev1.LabelNodeExcludeBalancers),
			Commands:    []string{label, fmt.Sprintf("kubectl describe service %s %s", svc.Name, svcNS(svc))},
			Risk:        "a node without the label receives external traffic"}},
	}}
}
