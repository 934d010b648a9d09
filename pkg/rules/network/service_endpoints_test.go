package network

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestServiceEndpoints: a selector that matches no pod is named with the
// closest pods' labels; an ExternalName Service never has endpoints; slices
// that could not be read give no verdict.
func TestServiceEndpoints(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	svc := func(mut func(*corev1.Service)) *corev1.Service {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "checkout", Namespace: "shop", UID: "s1"},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "check-out"}, Ports: []corev1.ServicePort{{Port: 80}}}}
		if mut != nil {
			mut(s)
		}
		return s
	}
	candidate := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "checkout-7d9f", Namespace: "shop", Labels: map[string]string{"app": "checkout"}}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	target := func(s *corev1.Service, problems ...bundle.Problem) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "Service", Name: s.Name, Namespace: "shop", UID: "s1"},
			Services: []*corev1.Service{s}, Candidates: []*corev1.Pod{candidate}, Problems: problems}
	}

	f := ruletest.Root(ruletest.Run(ServiceEndpoints, target(svc(nil)), now))
	if f == nil || f.Category != rule.Service.Sub("NoEndpoints", "SelectorMismatch") {
		t.Fatalf("selector typo: %+v", f)
	}
	if !strings.Contains(f.Culprit, "app=check-out") || !strings.Contains(f.Culprit, "app=checkout") {
		t.Errorf("culprit %q does not name the selector and the closest labels", f.Culprit)
	}

	fs := ruletest.Run(ServiceEndpoints, target(svc(func(s *corev1.Service) {
		s.Spec.Type, s.Spec.ExternalName = corev1.ServiceTypeExternalName, "db.example.com"
	})), now)
	if len(fs) != 1 || fs[0].Verdict != report.Refuted {
		t.Errorf("ExternalName: %+v", fs)
	}
	if fs := ruletest.Run(ServiceEndpoints, target(svc(nil), bundle.Problem{What: "endpointslices of service checkout", Error: "forbidden"}), now); len(fs) != 0 {
		t.Errorf("slices unreadable: %+v", fs)
	}
}
