package node

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

// TestNetworkUnavailable: a Node target with NetworkUnavailable=True is the
// finding; False says nothing.
func TestNetworkUnavailable(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	target := func(status corev1.ConditionStatus) *bundle.Bundle {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", UID: "n1"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeNetworkUnavailable, Status: status, Reason: "NoRouteCreated", Message: "Node created without a route", LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Node", Name: n.Name, UID: "n1"}, Nodes: []*corev1.Node{n}}
	}
	f := ruletest.Root(ruletest.Run(NetworkUnavailable, target(corev1.ConditionTrue), now))
	if f == nil || f.Category != rule.Node.Sub("NetworkUnavailable") || f.Layer != rule.InfrastructureLayer {
		t.Fatalf("NetworkUnavailable=True: %+v", f)
	}
	if fs := ruletest.Run(NetworkUnavailable, target(corev1.ConditionFalse), now); len(fs) != 0 {
		t.Errorf("NetworkUnavailable=False: %+v", fs)
	}
}
