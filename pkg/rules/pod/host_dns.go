package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// withHostNetworkDNS: a pod on the host's network with dnsPolicy
// ClusterFirst (the default) gets the node's resolv.conf, not the cluster
// DNS (https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#pod-s-dns-policy):
// a cluster name it cannot resolve is that setting, not a missing Service.
func withHostNetworkDNS(c *rule.Pass, f rule.Finding, p *corev1.Pod, dec *logs.Decisive) rule.Finding {
	policy := p.Spec.DNSPolicy
	if !p.Spec.HostNetwork || policy != "" && policy != corev1.DNSClusterFirst {
		return f
	}
	host := dec.Subject
	if len(dec.Entities.Unresolved) > 0 {
		host = dec.Entities.Unresolved[0]
	}
	if host == "" || !clusterName(c, p, host) {
		return f
	}
	f.Category = f.Category.Sub("HostNetwork")
	f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Pod %s has hostNetwork: true and dnsPolicy %s", p.Name, kube.ValueOr(string(policy), "ClusterFirst (the default)")),
		kube.PodRef(p)+" .spec.hostNetwork, .spec.dnsPolicy", fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.hostNetwork} {.spec.dnsPolicy}'`, p.Name, kube.NSFlag(p))))
	why := fmt.Sprintf("the pod runs with hostNetwork: true and dnsPolicy ClusterFirst, so it resolves with node %s's resolv.conf, which knows no cluster names such as %s: it needs dnsPolicy: ClusterFirstWithHostNet", kube.OrDash(p.Spec.NodeName), host)
	f.Title += "; " + why
	f.Culprit += "; " + why
	f.Summary += " " + strings.ToUpper(why[:1]) + why[1:] + "."
	f.Actions = append([]report.Action{{Kind: report.Immediate,
		Description: "Set dnsPolicy: ClusterFirstWithHostNet in the pod template, so a pod on the host's network still asks the cluster DNS.",
		Commands:    []string{fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.hostNetwork} {.spec.dnsPolicy}'`, p.Name, kube.NSFlag(p))}}}, f.Actions...)
	return f
}

// clusterName: host is a name only the cluster DNS answers: a Service of
// the bundle, a single label (the search domains' job), or under .svc or
// the cluster domain.
func clusterName(c *rule.Pass, p *corev1.Pod, host string) bool {
	for _, s := range c.B.Services {
		if s.Name == host && s.Namespace == p.Namespace {
			return true
		}
	}
	return !strings.Contains(host, ".") || strings.Contains(host, ".svc") || strings.HasSuffix(host, ".cluster.local")
}
