package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestPolicyNamespaceNameLabel: a policy meant to admit the caller's
// namespace by a name= label the namespace lacks is said so, with
// kubernetes.io/metadata.name as the fix; a selector on that label, or on a
// label the namespace carries, is not blamed this way.
func TestPolicyNamespaceNameLabel(t *testing.T) {
	now := time.Date(2021, 2, 16, 12, 0, 0, 0, time.UTC)
	caller := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "goodbye-world", Namespace: "fedb", UID: "p1", Labels: map[string]string{"app": "goodbye-world-app"}},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "app"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 3,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
	hello := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "hello-world", Namespace: "fedb"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.7.7", Selector: map[string]string{"app": "hello-world-app"}, Ports: []corev1.ServicePort{{Port: 6000}}}}
	ready, port := true, int32(6000)
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "hello-world-x", Namespace: "fedb", Labels: map[string]string{discoveryv1.LabelServiceName: "hello-world"}},
		Ports: []discoveryv1.EndpointPort{{Port: &port}}, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.1.5"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}}}
	// https://github.com/kubernetes/kubernetes/issues/99113: peers written
	// as namespaceSelector matchLabels name: fedB, a label namespaces do
	// not carry unless someone sets it.
	policy := func(key string) *networkingv1.NetworkPolicy {
		return &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "hello-ingress", Namespace: "fedb"},
			Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "hello-world-app"}},
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
				Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{key: "fedb"}},
					PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nobody"}}}}}}}}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "fedb", Labels: map[string]string{labelNamespaceName: "fedb"}}}
	const log = "panic: dial tcp 10.96.7.7:6000: i/o timeout\n"
	for _, tt := range []struct {
		name string
		key  string
		want bool
	}{
		{"name label the namespace lacks", "name", true},
		{"kubernetes.io/metadata.name", labelNamespaceName, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: caller.Name, Namespace: "fedb", UID: "p1"}, Namespace: ns, Pods: []*corev1.Pod{caller},
				Services: []*corev1.Service{hello}, EndpointSlices: []*discoveryv1.EndpointSlice{slice}, NetworkPolicies: []*networkingv1.NetworkPolicy{policy(tt.key)},
				Logs: []bundle.ContainerLog{{Namespace: "fedb", Pod: caller.Name, Container: "app", Previous: true, Text: log}}}
			b.Cluster.ServicesListed = "fedb"
			fs := ruletest.Run(DependencyService, b, now)
			if len(fs) != 1 || !strings.HasSuffix(string(fs[0].Category), "/NetworkPolicy") {
				t.Fatalf("want one NetworkPolicy finding, got %+v", fs)
			}
			named := strings.Contains(fs[0].Culprit, "namespaceSelector name=fedb matches no label of namespace fedb") &&
				strings.Contains(fs[0].Actions[0].Description, labelNamespaceName+"=fedb")
			if named != tt.want {
				t.Errorf("namespace label named %v, want %v: %q / %q", named, tt.want, fs[0].Culprit, fs[0].Actions[0].Description)
			}
		})
	}
}
