package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestDialTarget: the destination of a timeout is the line's dial target,
// never a timestamp (the kubelet's RFC 3339 prefix, klog's header, a
// logfmt time=) read as host:port.
func TestDialTarget(t *testing.T) {
	for _, tt := range []struct{ line, host, port string }{
		// https://github.com/cloudfoundry-incubator/kubo-deployment/issues/350
		// (CoreDNS cannot list from the API server), as kubectl logs
		// --timestamps prints it.
		{`2018-10-08T05:53:40.770213345Z E1008 05:53:40.770104       1 reflector.go:205] github.com/coredns/coredns/plugin/kubernetes/controller.go:355: Failed to list *v1.Namespace: Get https://10.100.200.1:443/api/v1/namespaces?limit=500&resourceVersion=0: dial tcp 10.100.200.1:443: i/o timeout`, "10.100.200.1", "443"},
		// A logfmt record whose time= comes first.
		{`time="2026-11-26T07:00:01Z" level=error msg="upstream timed out" upstream=payments.shop.svc:8443`, "payments.shop.svc", "8443"},
		{`2026-12-01T14:55:02.1Z context deadline exceeded while dialing [fd00::1]:6379`, "fd00::1", "6379"},
		// Negative: a timeout that names no destination.
		{`2026-12-01T14:55:02.123456789Z E1201 14:55:02.123456       1 leaderelection.go:332] error retrieving resource lock: context deadline exceeded`, "", ""},
	} {
		host, port := dialTarget(tt.line)
		if host != tt.host || port != tt.port {
			t.Errorf("dialTarget(%.60q…) = %q, %q; want %q, %q", tt.line, host, port, tt.host, tt.port)
		}
	}
}

// TestPolicyBlocksAPIServerTimestamp: a deny-all egress policy and a
// reflector timing out to the API server name 10.96.0.1:443 as the blocked
// destination, not the minute of the kubelet's timestamp.
func TestPolicyBlocksAPIServerTimestamp(t *testing.T) {
	now := time.Date(2018, 10, 8, 6, 0, 0, 0, time.UTC)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "coredns-5567b5975b-r7bb5", Namespace: "dns", UID: "p1", Labels: map[string]string{"k8s-app": "kube-dns"}},
		Spec: corev1.PodSpec{DNSPolicy: corev1.DNSDefault, Containers: []corev1.Container{{Name: "coredns"}}}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	// https://github.com/cloudnativelabs/kube-router/issues/609: the
	// namespace-wide default-deny egress policy.
	deny := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "default-deny", Namespace: "dns"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}}}
	line := "2018-10-08T05:53:40.770213345Z E1008 05:53:40.770104       1 reflector.go:205] github.com/coredns/coredns/plugin/kubernetes/controller.go:355: Failed to list *v1.Namespace: Get https://10.100.200.1:443/api/v1/namespaces?limit=500&resourceVersion=0: dial tcp 10.100.200.1:443: i/o timeout\n"
	b := func(log string) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: pod.Name, Namespace: "dns", UID: "p1"}, Pods: []*corev1.Pod{pod},
			NetworkPolicies: []*networkingv1.NetworkPolicy{deny}, Logs: []bundle.ContainerLog{{Pod: pod.Name, Namespace: "dns", Container: "coredns", Text: log}}}
	}
	f := ruletest.Root(ruletest.Run(PolicyBlocks, b(strings.Repeat(line, 3)), now))
	if f == nil || f.Category != rule.NetworkPolicy.Sub("Egress", "Port") {
		t.Fatalf("want NetworkPolicy/Egress/Port, got %+v", f)
	}
	if !strings.Contains(f.Title, "10.100.200.1:443") || strings.Contains(f.Title, "2018-10-08T") || !strings.Contains(f.Culprit, "TCP 443") {
		t.Errorf("destination misread: title %q culprit %q", f.Title, f.Culprit)
	}
	// Negative: the same timestamps with no dial target blame no port.
	quiet := "2018-10-08T05:53:40.770213345Z E1008 05:53:40.770104       1 leaderelection.go:332] error retrieving resource lock: context deadline exceeded\n"
	if f := ruletest.Root(ruletest.Run(PolicyBlocks, b(quiet), now)); f != nil {
		t.Errorf("a timeout without a destination blamed the policy: %+v", f)
	}
}
