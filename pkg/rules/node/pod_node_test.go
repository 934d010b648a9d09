package node

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

// TestPodNode: a pod on a NotReady node has its node as the cause, traced
// below whatever its containers show (Strength Traced, layer
// infrastructure); on a Ready node the rule says nothing.
func TestPodNode(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	target := func(ready corev1.ConditionStatus) *bundle.Bundle {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", UID: "n1"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: ready, Reason: "NodeStatusUnknown", Message: "Kubelet stopped posting node status.", LastTransitionTime: metav1.NewTime(now.Add(-5 * time.Minute))}}}}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
			Spec:   corev1.PodSpec{NodeName: "worker-1", Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}, Nodes: []*corev1.Node{n}}
	}
	f := ruletest.Root(ruletest.Run(PodNode, target(corev1.ConditionUnknown), now))
	if f == nil || f.Category != rule.Node.Sub("NotReady", "KubeletStoppedPosting") || f.Strength != rule.Traced || f.Layer != rule.InfrastructureLayer || !strings.Contains(f.Culprit, "worker-1") {
		t.Fatalf("pod on a NotReady node: %+v", f)
	}
	if fs := ruletest.Run(PodNode, target(corev1.ConditionTrue), now); len(fs) != 0 {
		t.Errorf("pod on a Ready node: %+v", fs)
	}
}
