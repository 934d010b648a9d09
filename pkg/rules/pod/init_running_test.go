package pod

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestInitRunning: an init container that keeps waiting holds the pod in
// Init, and its wait loop's log names what it waits for; a StatefulSet's
// pod is left to the StatefulSet rule.
func TestInitRunning(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	yes := true
	pending := func(owner *metav1.OwnerReference) *bundle.Bundle {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
			Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "wait-for-db", Image: "busybox"}}, Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}}},
			Status: corev1.PodStatus{Phase: corev1.PodPending, InitContainerStatuses: []corev1.ContainerStatus{{Name: "wait-for-db",
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-20 * time.Minute))}}}}}}
		if owner != nil {
			p.OwnerReferences = []metav1.OwnerReference{*owner}
		}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p},
			Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: "api", Container: "wait-for-db", Text: "waiting for orders-db:5432\nwaiting for orders-db:5432\n"}}}
	}
	f := ruletest.Root(ruletest.Run(InitRunning, pending(nil), now))
	if f == nil || f.Category.Root() != rule.InitContainer || !strings.Contains(f.Culprit, "orders-db:5432") {
		t.Fatalf("finding %+v", f)
	}
	sts := &metav1.OwnerReference{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "StatefulSet", Name: "db", UID: "s1", Controller: &yes}
	if fs := ruletest.Run(InitRunning, pending(sts), now); len(fs) != 0 {
		t.Errorf("a StatefulSet's pod: %+v", fs)
	}
}
