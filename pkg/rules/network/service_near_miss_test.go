package network

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestServiceNearMiss: a running pod no Service selects is tied to the one
// Service whose selector is a typo or a version away from its labels; a
// Service that selects it, an unrelated selector, or two near misses say
// nothing.
func TestServiceNearMiss(t *testing.T) {
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "checkout-7d9f", Namespace: "shop", UID: "p1", Labels: map[string]string{"app": "checkout", "version": "v2"}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	svc := func(name string, sel map[string]string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"}, Spec: corev1.ServiceSpec{Selector: sel}}
	}
	b := func(svcs ...*corev1.Service) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: pod.Name, Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{pod}, Services: svcs}
	}
	typo := svc("checkout", map[string]string{"app": "chekout"})
	version := svc("checkout", map[string]string{"app": "checkout", "version": "v1"})
	for _, tt := range []struct {
		name string
		b    *bundle.Bundle
		want bool
	}{
		{"typo in the selector", b(typo, svc("cart", map[string]string{"app": "cart"})), true},
		{"selector at another version", b(version), true},
		{"a Service selects the pod", b(typo, svc("checkout-all", map[string]string{"app": "checkout"})), false},
		{"unrelated selector", b(svc("payments", map[string]string{"app": "payments"})), false},
		{"two near misses", b(typo, svc("checkout-v1", map[string]string{"app": "checkout", "version": "v3"})), false},
		{"pod lacks the key", b(svc("checkout", map[string]string{"app": "checkout", "tier": "web"})), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := ruletest.Root(ruletest.Run(ServiceNearMiss, tt.b, now))
			if got := f != nil; got != tt.want {
				t.Fatalf("finding %v, want %v: %+v", got, tt.want, f)
			}
			if f != nil && (f.Category != rule.Service.Sub("SelectorMismatch", "NearMiss") || f.Culprit == "") {
				t.Errorf("finding: %+v", f)
			}
		})
	}
}
