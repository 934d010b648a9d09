package pod

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

// TestStuckTerminating: a deleted pod past its grace period held by a
// finalizer is the finding; within the grace period it is only shutting
// down.
func TestStuckTerminating(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	deleted := func(at time.Time) *bundle.Bundle {
		del, grace := metav1.NewTime(at), int64(30)
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1", DeletionTimestamp: &del, DeletionGracePeriodSeconds: &grace,
			Finalizers: []string{"example.com/cleanup"}},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}}
	}
	f := ruletest.Root(ruletest.Run(StuckTerminating, deleted(now.Add(-time.Hour)), now))
	if f == nil || f.Category != rule.Terminating.Sub("Finalizer") || f.Confidence != rule.Strong {
		t.Fatalf("an hour past its deletion: %+v", f)
	}
	if fs := ruletest.Run(StuckTerminating, deleted(now.Add(10*time.Second)), now); len(fs) != 0 {
		t.Errorf("within its grace period: %+v", fs)
	}
}
