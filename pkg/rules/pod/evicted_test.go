package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestEvicted: an eviction for the pod's own ephemeral-storage use names
// the limit; the node's pressure evictions are the node rules', not this
// one's.
func TestEvicted(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	evicted := func(msg string) *bundle.Bundle {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}}},
			Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: msg, ContainerStatuses: []corev1.ContainerStatus{{Name: "app",
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "ContainerStatusUnknown", FinishedAt: metav1.NewTime(now.Add(-10 * time.Minute))}}}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}}
	}
	f := ruletest.Root(ruletest.Run(Evicted, evicted(`Container app exceeded its local ephemeral storage limit "1Gi". `), now))
	if f == nil || f.Category != rule.Evicted.Sub("EphemeralStorageLimit") || !strings.Contains(f.Culprit, "1Gi") {
		t.Fatalf("ephemeral-storage limit: %+v", f)
	}
	if f := ruletest.Root(ruletest.Run(Evicted, evicted("The node was low on resource: memory. "), now)); f != nil {
		t.Errorf("node pressure eviction taken from the node rules: %+v", f)
	}
}
