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

// TestDependencyFromCommandLine: a client whose error names no host
// (busybox wget's "download timed out") is about the Service its command
// line names (wget http://nginx, curl http://api:8080/…), and the
// NetworkPolicies selecting that Service's pods are checked against the
// client's labels. From the Kubernetes docs' declare-network-policy task:
// access-nginx admits only pods labelled access=true.
func TestDependencyFromCommandLine(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	client := func(labels map[string]string, cmd []string, args ...string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "nginx-smoke-test", Namespace: "web", UID: "p1", Labels: labels},
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "app", Command: cmd, Args: args}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 4,
				State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
	}
	nginx := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "nginx", Namespace: "web"},
		Spec: corev1.ServiceSpec{ClusterIP: "10.96.4.4", Selector: map[string]string{"app": "nginx"}, Ports: []corev1.ServicePort{{Port: 80}}}}
	ready, port := true, int32(80)
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "nginx-x", Namespace: "web", Labels: map[string]string{discoveryv1.LabelServiceName: "nginx"}},
		Ports: []discoveryv1.EndpointPort{{Port: &port}}, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.1.5"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}}}
	policy := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "access-nginx", Namespace: "web"},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"access": "true"}}}}}}}}
	unlabelled := map[string]string{"run": "nginx-smoke-test"}
	for _, tt := range []struct {
		name string
		pod  *corev1.Pod
		log  string
		want bool // a NetworkPolicy finding naming access-nginx
	}{
		{"wget's URL in args", client(unlabelled, []string{"wget"}, "-q", "--spider", "--timeout=1", "http://nginx"), "wget: download timed out\n", true},
		{"curl in a shell script", client(unlabelled, []string{"sh", "-c"}, "curl -sf --max-time 2 http://nginx.web.svc.cluster.local/healthz || exit 1"), "curl: (28) Connection timed out after 2001 milliseconds\n", true},
		{"the client carries the admitted label", client(map[string]string{"access": "true"}, []string{"wget"}, "--spider", "http://nginx"), "wget: download timed out\n", false},
		{"args name no Service", client(unlabelled, []string{"wget"}, "--spider", "http://example.com"), "wget: download timed out\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: tt.pod.Name, Namespace: "web", UID: "p1"}, Pods: []*corev1.Pod{tt.pod},
				Namespace: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{labelNamespaceName: "web"}}},
				Services:  []*corev1.Service{nginx}, EndpointSlices: []*discoveryv1.EndpointSlice{slice}, NetworkPolicies: []*networkingv1.NetworkPolicy{policy},
				Logs: []bundle.ContainerLog{{Namespace: "web", Pod: tt.pod.Name, Container: "app", Previous: true, Text: tt.log}}}
			b.Cluster.ServicesListed, b.Cluster.NetworkPoliciesListed = "web", "web"
			fs := ruletest.Run(DependencyService, b, now)
			got := len(fs) == 1 && strings.HasSuffix(string(fs[0].Category), "/NetworkPolicy") && strings.Contains(fs[0].Culprit, "access-nginx")
			if got != tt.want {
				t.Fatalf("NetworkPolicy access-nginx blamed %v, want %v: %+v", got, tt.want, fs)
			}
		})
	}
}
