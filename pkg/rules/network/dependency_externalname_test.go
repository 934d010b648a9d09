package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestDependencyExternalName: a host that does not resolve and is an
// ExternalName Service is followed to the Service's externalName, the name
// that has no answer; an IP as externalName and a target in another
// namespace are said as such. A refused connection (the name resolved) and
// a ClusterIP Service say nothing here.
func TestDependencyExternalName(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "proxy", Namespace: "dfs", UID: "p1"},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "app"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 4,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
	ext := func(name, target string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "dfs"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: target}}
	}
	for _, tt := range []struct {
		name, log string
		svc       *corev1.Service
		culprit   string // "" = no finding
	}{
		// https://github.com/kubernetes-sigs/kind/issues/1152: externalName
		// 10.132.32.158 answers NXDOMAIN inside the cluster (CoreDNS serves
		// an IP string as a CNAME target, https://github.com/coredns/coredns/issues/2164).
		{"externalName is an IP", "panic: dial tcp: lookup insurance-app-backend on 10.96.0.10:53: no such host\n", ext("insurance-app-backend", "10.132.32.158"), "10.132.32.158 (an IP address, not a DNS name)"},
		// https://github.com/coredns/coredns/issues/2492: a CNAME to an
		// in-cluster name that does not exist.
		{"target Service in another namespace", "Error: getaddrinfo ENOTFOUND service-test service-test:8080\n", ext("service-test", "kubernetes-2.default.svc.cluster.local"), "Service kubernetes-2 of namespace default"},
		{"external name", "psycopg2.OperationalError: could not translate host name \"warehouse\" to address: Name or service not known\n", ext("warehouse", "warehouse.corp.internal"), ".spec.externalName warehouse.corp.internal"},
		// Negative: refused means the name resolved (the target answered).
		{"refused, the name resolved", "Error: connect ECONNREFUSED 10.132.32.158:8080\n", ext("insurance-app-backend", "10.132.32.158"), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: pod.Name, Namespace: "dfs", UID: "p1"}, Pods: []*corev1.Pod{pod},
				Services: []*corev1.Service{tt.svc}, Logs: []bundle.ContainerLog{{Namespace: "dfs", Pod: pod.Name, Container: "app", Previous: true, Text: tt.log}}}
			b.Cluster.ServicesListed = "dfs"
			fs := ruletest.Run(DependencyService, b, now)
			if tt.culprit == "" {
				if len(fs) > 0 {
					t.Fatalf("want no finding, got %s: %s", fs[0].Category, fs[0].Culprit)
				}
				return
			}
			if len(fs) != 1 || !strings.HasSuffix(string(fs[0].Category), "/DNS/ExternalName") || !strings.Contains(fs[0].Culprit, tt.culprit) {
				t.Fatalf("got %+v, want …/DNS/ExternalName naming %q", fs, tt.culprit)
			}
		})
	}
}
