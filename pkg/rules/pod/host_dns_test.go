package pod

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestHostNetworkDNS: a crash on a cluster name that does not resolve
// (busybox's "bad address 'etcd'", https://github.com/docker/for-mac/issues/2646)
// in a pod on the host's network with dnsPolicy ClusterFirst is that
// setting; with ClusterFirstWithHostNet, off the host network, or on an
// outside name, it is not.
func TestHostNetworkDNS(t *testing.T) {
	for _, tt := range []struct {
		name        string
		hostNetwork bool
		policy      corev1.DNSPolicy
		line        string
		want        bool
	}{
		{"host network, default policy", true, "", "ping: bad address 'etcd'", true},
		{"host network, ClusterFirst", true, corev1.DNSClusterFirst, "nc: bad address 'db.shop.svc.cluster.local'", true},
		{"ClusterFirstWithHostNet", true, corev1.DNSClusterFirstWithHostNet, "ping: bad address 'etcd'", false},
		{"pod network", false, corev1.DNSClusterFirst, "ping: bad address 'etcd'", false},
		{"outside name", true, corev1.DNSClusterFirst, "ping: bad address 'example.com'", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := bundletest.Pod("dns-test", bundletest.Crashing(1, "Error"), func(p *corev1.Pod) { p.Spec.HostNetwork, p.Spec.DNSPolicy = tt.hostNetwork, tt.policy })
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: p.Name, Namespace: "shop", UID: string(p.UID)}, Pods: []*corev1.Pod{p},
				Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: p.Name, Container: "app", Previous: true, Text: tt.line + "\n"}}}
			f := ruletest.Root(ruletest.Run(CrashLoop, b, bundletest.Now))
			if f == nil || !strings.Contains(string(f.Category), "DNS") {
				t.Fatalf("finding %+v, want a DNS crash", f)
			}
			got := strings.Contains(f.Culprit, "ClusterFirstWithHostNet")
			if got != tt.want || got != strings.HasSuffix(string(f.Category), "/HostNetwork") {
				t.Errorf("culprit %q (category %s), want the host network's resolver named: %v", f.Culprit, f.Category, tt.want)
			}
		})
	}
}
