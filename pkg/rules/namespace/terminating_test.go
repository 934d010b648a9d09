package namespace

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

// TestTerminating: a Terminating namespace is explained by whichever of the
// deleter's conditions is True, naming the API group or the finalizers; an
// Active namespace, or one whose deleter has not reported, gives nothing.
func TestTerminating(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	ns := func(phase corev1.NamespacePhase, conds ...corev1.NamespaceCondition) *bundle.Bundle {
		del := metav1.NewTime(now.Add(-2 * time.Hour))
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "monitoring", UID: "ns1", DeletionTimestamp: &del}, Status: corev1.NamespaceStatus{Phase: phase, Conditions: conds}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Namespace", Name: n.Name, UID: string(n.UID)}, Namespace: n}
	}
	cond := func(typ corev1.NamespaceConditionType, status corev1.ConditionStatus, msg string) corev1.NamespaceCondition {
		return corev1.NamespaceCondition{Type: typ, Status: status, Reason: "r", Message: msg, LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}
	}
	for _, tc := range []struct {
		name  string
		b     *bundle.Bundle
		names []string // in the culprit and title; nil: no finding
	}{
		// prometheus-adapter removed, its APIService left (kubernetes/kubernetes#60807 style).
		{"custom metrics API down", ns(corev1.NamespaceTerminating,
			cond(corev1.NamespaceDeletionDiscoveryFailure, corev1.ConditionTrue, "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: custom.metrics.k8s.io/v1beta1: the server is currently unable to handle the request"),
			cond(corev1.NamespaceFinalizersRemaining, corev1.ConditionFalse, "All content-preserving finalizers finished")),
			[]string{"custom.metrics.k8s.io/v1beta1"}},
		{"PVCs held by their protection finalizer", ns(corev1.NamespaceTerminating,
			cond(corev1.NamespaceContentRemaining, corev1.ConditionTrue, "Some resources are remaining: persistentvolumeclaims. has 2 resource instances"),
			cond(corev1.NamespaceFinalizersRemaining, corev1.ConditionTrue, "Some content in the namespace has finalizers remaining: kubernetes.io/pvc-protection in 2 resource instances")),
			[]string{"kubernetes.io/pvc-protection"}},
		{"deletion just started", ns(corev1.NamespaceTerminating, cond(corev1.NamespaceDeletionDiscoveryFailure, corev1.ConditionFalse, "All resources successfully discovered")), nil},
		{"active", ns(corev1.NamespaceActive), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := ruletest.Run(Terminating, tc.b, now)
			f := ruletest.Root(fs)
			if tc.names == nil {
				if f != nil && f.Verdict == report.Validated {
					t.Fatalf("validated %q: %s", f.Category, f.Title)
				}
				return
			}
			if f == nil || f.Category != rule.Namespace.Sub("Terminating") {
				t.Fatalf("no Namespace/Terminating finding: %+v", fs)
			}
			for _, n := range tc.names {
				if !strings.Contains(f.Culprit, n) || !strings.Contains(f.Title, n) {
					t.Errorf("culprit %q / title %q do not name %q", f.Culprit, f.Title, n)
				}
			}
		})
	}
}
