package autoscaling

import (
	"strings"
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestWithMetricsAPI: an HPA the metrics API does not answer is explained
// by what serves it: no APIService at all, or the unready pod behind the
// APIService's Service and its log (metrics-server refusing the kubelets'
// certificates, https://github.com/kubernetes-sigs/metrics-server/issues/767).
func TestWithMetricsAPI(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "php-apache", Namespace: "shop", UID: "h1"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 10, ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "php-apache"}},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse,
			Reason: "FailedGetResourceMetric", Message: "the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: unable to fetch metrics from resource metrics API: the server is currently unable to handle the request (get pods.metrics.k8s.io)"}}}}
	ms := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "metrics-server-5b974f8c7f-vq7lx", Namespace: "kube-system"},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "metrics-server", Image: "k8s.gcr.io/metrics-server/metrics-server:v0.4.4"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "metrics-server", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
	log := `E0518 07:12:42.090952       1 server.go:132] unable to fully scrape metrics: [unable to fully scrape metrics from node node-02: unable to fetch metrics from node node-02: Get "https://192.168.1.12:10250/stats/summary?only_cpu_and_memory=true": x509: cannot validate certificate for 192.168.1.12 because it doesn't contain any IP SANs]` + "\n"
	served := bundle.Actor{Role: bundle.RoleAPIService, Name: "v1beta1.metrics.k8s.io", For: "hpa/php-apache", Complete: true, Service: "kube-system/metrics-server",
		Workload: "Service kube-system/metrics-server", Status: `False (MissingEndpoints): endpoints for service/metrics-server in "kube-system" have no addresses with port name "https"`,
		Pods: []string{"kube-system/" + ms.Name}, Searched: []string{"APIService v1beta1.metrics.k8s.io"}}
	missing := bundle.Actor{Role: bundle.RoleAPIService, Name: "v1beta1.metrics.k8s.io", For: "hpa/php-apache", Complete: true, Missing: true, Searched: served.Searched}
	for _, tt := range []struct {
		name     string
		actor    bundle.Actor
		category string
		culprit  []string
	}{
		{"server not ready", served, "HPA/MetricsAPIUnavailable/ServerNotReady", []string{"metrics-server", "kube-system/metrics-server-5b974f8c7f-vq7lx", "IP SANs"}},
		{"not installed", missing, "HPA/MetricsAPIUnavailable/NotInstalled", []string{"v1beta1.metrics.k8s.io is not registered"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "HorizontalPodAutoscaler", Name: h.Name, Namespace: "shop", UID: "h1"}, HPAs: []*autoscalingv2.HorizontalPodAutoscaler{h},
				Cluster: bundle.ClusterInfo{Actors: []bundle.Actor{tt.actor}}}
			if len(tt.actor.Pods) > 0 {
				b.DependencyPods = []*corev1.Pod{ms}
				b.Logs = []bundle.ContainerLog{{Namespace: "kube-system", Pod: ms.Name, Container: "metrics-server", Text: log}}
			}
			f := ruletest.Root(ruletest.Run(HPA, b, now))
			if f == nil || string(f.Category) != tt.category {
				t.Fatalf("finding %+v, want category %s", f, tt.category)
			}
			for _, w := range tt.culprit {
				if !strings.Contains(f.Culprit, w) {
					t.Errorf("culprit %q lacks %q", f.Culprit, w)
				}
			}
		})
	}
}
