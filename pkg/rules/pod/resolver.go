package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// resolverOf says whose resolvers a pod's /etc/resolv.conf lists, by its
// dnsPolicy (https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#pod-s-dns-policy).
func resolverOf(p *corev1.Pod) string {
	node := kube.OrDash(p.Spec.NodeName)
	switch policy := p.Spec.DNSPolicy; {
	case policy == corev1.DNSDefault, policy == corev1.DNSClusterFirst && p.Spec.HostNetwork:
		return fmt.Sprintf("dnsPolicy %s: that is node %s's resolv.conf (the kubelet's --resolv-conf), where a local stub such as systemd-resolved's 127.0.0.53 is the pod itself", kube.OrDash(string(policy)), node)
	case policy == corev1.DNSNone:
		var ns []string
		if p.Spec.DNSConfig != nil {
			ns = p.Spec.DNSConfig.Nameservers
		}
		return fmt.Sprintf("dnsPolicy None: that lists dnsConfig's nameservers %s", kube.OrDash(strings.Join(ns, ", ")))
	default:
		return fmt.Sprintf("dnsPolicy %s: that names the cluster DNS Service, which this server may itself be behind", kube.OrDash(string(policy)))
	}
}
