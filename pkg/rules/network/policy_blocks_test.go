package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestPolicyBlocks: a policy selecting the pod is named when it blocks what
// the logs or the Service show failing, and not when it admits it, does not
// select the pod, or the logs show nothing it could explain.
func TestPolicyBlocks(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	udp, tcp := corev1.ProtocolUDP, corev1.ProtocolTCP
	port := func(n int) *intstr.IntOrString { p := intstr.FromInt(n); return &p }
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api-1", Namespace: "shop", UID: "p1", Labels: map[string]string{"app": "api"}},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	policy := func(name string, sel map[string]string, types []networkingv1.PolicyType, in []networkingv1.NetworkPolicyIngressRule, eg []networkingv1.NetworkPolicyEgressRule) *networkingv1.NetworkPolicy {
		return &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
			Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: sel}, PolicyTypes: types, Ingress: in, Egress: eg}}
	}
	egressOnly := []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}
	ingressOnly := []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
	denyEgress := policy("deny-egress", nil, egressOnly, nil, nil)
	dnsToKubeSystem := networkingv1.NetworkPolicyEgressRule{
		To:    []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}}}},
		Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: port(53)}, {Protocol: &tcp, Port: port(53)}}}
	dnsSameNS := networkingv1.NetworkPolicyEgressRule{
		To:    []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}},
		Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: port(53)}}}
	allowsDNS := policy("api-egress", map[string]string{"app": "api"}, egressOnly, nil, []networkingv1.NetworkPolicyEgressRule{dnsToKubeSystem})
	dnsLog := "2026/11/26 11:59:01 dial tcp: lookup postgres.shop.svc.cluster.local on 10.96.0.10:53: read udp 10.244.1.5:41234->10.96.0.10:53: i/o timeout"
	pyDNS := "psycopg2.OperationalError: could not translate host name \"postgres\" to address: Temporary failure in name resolution"
	dbTimeout := `{"level":"error","msg":"connect","error":"dial tcp 10.96.12.7:5432: i/o timeout"}`

	podTarget := func(logs string, pols ...*networkingv1.NetworkPolicy) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api-1", Namespace: "shop", UID: "p1"},
			Pods: []*corev1.Pod{pod}, NetworkPolicies: pols,
			Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "api-1", Container: "app", Text: logs}}}
	}
	svcTarget := func(target int, pols ...*networkingv1.NetworkPolicy) *bundle.Bundle {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "s1"},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "api"}, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt(target)}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Service", Name: "api", Namespace: "shop", UID: "s1"},
			Services: []*corev1.Service{svc}, Pods: []*corev1.Pod{pod}, NetworkPolicies: pols}
	}
	admit9090 := policy("api-ingress", map[string]string{"app": "api"}, ingressOnly,
		[]networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{{Port: port(9090)}}}}, nil)
	admitHTTP := policy("api-ingress", map[string]string{"app": "api"}, nil,
		[]networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{{Port: func() *intstr.IntOrString { p := intstr.FromString("http"); return &p }()}}}}, nil)

	for _, tt := range []struct {
		name     string
		b        *bundle.Bundle
		want     rule.Category // "" for no finding
		culprit  string        // in the culprit
		patchHas string        // in the fix's command
	}{
		{"deny-all egress, Go resolver times out", podTarget(dnsLog, denyEgress), rule.NetworkPolicy.Sub("Egress", "DNS"), "deny-egress", `"path":"/spec/egress","value":[{"to":[{"namespaceSelector"`},
		{"deny-all egress, libpq cannot resolve", podTarget("starting\n"+pyDNS, denyEgress), rule.NetworkPolicy.Sub("Egress", "DNS"), "deny-egress", "kube-system"},
		{"DNS admitted to kube-system", podTarget(dnsLog, allowsDNS), "", "", ""},
		{"DNS admitted only within the namespace", podTarget(pyDNS, policy("api-egress", map[string]string{"app": "api"}, egressOnly, nil, []networkingv1.NetworkPolicyEgressRule{dnsSameNS})), rule.NetworkPolicy.Sub("Egress", "DNS"), "api-egress", `"path":"/spec/egress/-"`},
		{"policy selects other pods", podTarget(dnsLog, policy("web-egress", map[string]string{"app": "web"}, egressOnly, nil, nil)), "", "", ""},
		{"egress isolated, logs quiet", podTarget("listening on :8080", denyEgress), "", "", ""},
		{"dependency times out on a port egress does not admit", podTarget(dbTimeout, allowsDNS), rule.NetworkPolicy.Sub("Egress", "Port"), "TCP 5432", `"port":5432`},
		{"Service targetPort not admitted", svcTarget(8080, admit9090), rule.NetworkPolicy.Sub("Ingress"), "TCP 8080", `"path":"/spec/ingress/-"`},
		{"Service targetPort admitted by name", svcTarget(8080, admitHTTP), "", "", ""},
		{"deny-all ingress isolates the pod's port", podTarget("", policy("default-deny", nil, ingressOnly, nil, nil)), rule.NetworkPolicy.Sub("Ingress"), "default-deny", `"path":"/spec/ingress","value":[`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := ruletest.Root(ruletest.Run(PolicyBlocks, tt.b, now))
			if tt.want == "" {
				if f != nil {
					t.Fatalf("want no finding, got %s: %s", f.Category, f.Title)
				}
				return
			}
			if f == nil || f.Category != tt.want {
				t.Fatalf("want %s, got %+v", tt.want, f)
			}
			if !strings.Contains(f.Culprit, tt.culprit) {
				t.Errorf("culprit %q lacks %q", f.Culprit, tt.culprit)
			}
			if len(f.Actions) == 0 || len(f.Actions[0].Commands) == 0 || !strings.Contains(f.Actions[0].Commands[0], tt.patchHas) ||
				!strings.HasPrefix(f.Actions[0].Commands[0], "kubectl patch networkpolicy ") {
				t.Errorf("fix does not edit the policy as expected (%q): %+v", tt.patchHas, f.Actions)
			}
		})
	}
}
