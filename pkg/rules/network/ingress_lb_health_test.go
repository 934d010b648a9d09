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
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestIngressLBUnhealthy: a backend GKE's load balancer reports UNHEALTHY
// is matched to its Service by NodePort (instance groups) or by name
// (NEGs) and explained by the serving pods' readiness probe, from which
// the health check is made (https://github.com/jfrog/charts/issues/149:
// readinessProbe on /, which redirects); a HEALTHY one is no finding.
func TestIngressLBUnhealthy(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "xray-xray-server", Namespace: "xray"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort,
		Selector: map[string]string{"app": "xray"}, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8000), NodePort: 31469}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "xray-xray-server-6b9f7d4c8d-m2xq8", Namespace: "xray", Labels: map[string]string{"app": "xray"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "xray-server", ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/", Port: intstr.FromInt32(8000)}}}}}}}
	for _, tt := range []struct {
		name, backends string
		culprit        []string
	}{
		{"instance group by NodePort", `{"k8s-be-30932--b5f3c2a1e8d94f07":"HEALTHY","k8s-be-31469--b5f3c2a1e8d94f07":"UNHEALTHY"}`, []string{"service xray-xray-server", "k8s-be-31469", "readinessProbe httpGet / port 8000"}},
		{"NEG by name", `{"k8s1-b5f3c2a1-xray-xray-xray-server-80-7d1f0c2e":"UNHEALTHY"}`, []string{"service xray-xray-server", "readinessProbe httpGet / port 8000"}},
		{"all healthy", `{"k8s-be-31469--b5f3c2a1e8d94f07":"HEALTHY"}`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "xray", Namespace: "xray", UID: "i1", Annotations: map[string]string{bundle.LBBackendsAnnotation: tt.backends}},
				Spec: networkingv1.IngressSpec{DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc.Name, Port: networkingv1.ServiceBackendPort{Number: 80}}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Ingress", Name: "xray", Namespace: "xray", UID: "i1"}, Ingresses: []*networkingv1.Ingress{ing},
				Services: []*corev1.Service{svc}, DependencyPods: []*corev1.Pod{pod}}
			f := ruletest.Root(ruletest.Run(IngressLBUnhealthy, b, now))
			if tt.culprit == nil {
				if f != nil {
					t.Fatalf("finding %q for healthy backends", f.Title)
				}
				return
			}
			if f == nil || f.Category != "Ingress/BackendUnhealthy" {
				t.Fatalf("finding %+v, want Ingress/BackendUnhealthy", f)
			}
			for _, w := range tt.culprit {
				if !strings.Contains(f.Culprit, w) {
					t.Errorf("culprit %q lacks %q", f.Culprit, w)
				}
			}
		})
	}
}
