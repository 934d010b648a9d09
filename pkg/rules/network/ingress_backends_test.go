package network

import (
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

// TestIngressBackends: a backend Service the collector found missing, and a
// port the Service does not expose, are findings of their own.
func TestIngressBackends(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "shop", UID: "i1"},
		Spec: networkingv1.IngressSpec{DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "api", Port: networkingv1.ServiceBackendPort{Number: 8080}}}}}
	target := func(svcs []*corev1.Service, missing ...bundle.MissingRef) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "Ingress", Name: "shop", Namespace: "shop", UID: "i1"},
			Ingresses: []*networkingv1.Ingress{ing}, Services: svcs, Missing: missing}
	}
	f := ruletest.Root(ruletest.Run(IngressBackends, target(nil, bundle.MissingRef{Kind: "Service", Namespace: "shop", Name: "api"}), now))
	if f == nil || f.Category != rule.Ingress.Sub("Backend", "ServiceMissing") {
		t.Fatalf("service missing: %+v", f)
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	f = ruletest.Root(ruletest.Run(IngressBackends, target([]*corev1.Service{svc}), now))
	if f == nil || f.Category != rule.Ingress.Sub("Backend", "PortMissing") {
		t.Fatalf("port missing: %+v", f)
	}
}
