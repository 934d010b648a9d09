package scheduling

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestUnschedulable: the scheduler's "Insufficient cpu" is checked against
// what the nodes offer, and names the request that does not fit; a pod
// that is scheduled gives nothing.
func TestUnschedulable(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", Labels: map[string]string{"kubernetes.io/hostname": "worker-1"}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")},
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "batch", Namespace: "shop", UID: "p1", CreationTimestamp: metav1.NewTime(now.Add(-5 * time.Minute))},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/batch:1",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64")}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable",
			Message: "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."}}}}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "batch", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{pod}, Nodes: []*corev1.Node{node}}

	f := ruletest.Root(ruletest.Run(Unschedulable, b, now))
	if f == nil || !strings.HasPrefix(string(f.Category), string(rule.Unschedulable.Sub("InsufficientCpu"))) || f.Layer != rule.PlacementLayer {
		t.Fatalf("finding %+v", f)
	}
	if !strings.Contains(f.Culprit, "64") {
		t.Errorf("culprit %q does not name the 64-CPU request", f.Culprit)
	}

	scheduled := pod.DeepCopy()
	scheduled.Spec.NodeName, scheduled.Status.Conditions = "worker-1", nil
	b.Pods = []*corev1.Pod{scheduled}
	if fs := ruletest.Run(Unschedulable, b, now); len(fs) != 0 {
		t.Errorf("findings on a scheduled pod: %+v", fs)
	}
}
