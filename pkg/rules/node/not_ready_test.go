package node

import (
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

// TestNotReady: a NotReady Node target is classified by its Ready
// condition's reason and message; a Ready node is refuted only when another
// condition is bad, and says nothing otherwise.
func TestNotReady(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	target := func(conds ...corev1.NodeCondition) *bundle.Bundle {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", UID: "n1"}, Status: corev1.NodeStatus{Conditions: conds}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Node", Name: n.Name, UID: "n1"}, Nodes: []*corev1.Node{n}}
	}
	ready := func(status corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: corev1.NodeReady, Status: status, Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(now.Add(-10 * time.Minute))}
	}
	for _, tt := range []struct {
		name    string
		b       *bundle.Bundle
		want    rule.Category
		verdict report.Verdict // of the one finding; "" for none
	}{
		{"kubelet gone", target(ready(corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.")), rule.Node.Sub("NotReady", "KubeletStoppedPosting"), report.Validated},
		{"no network plugin", target(ready(corev1.ConditionFalse, "KubeletNotReady", "container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized")), rule.Node.Sub("NotReady", "CNI"), report.Validated},
		{"runtime down", target(ready(corev1.ConditionFalse, "KubeletNotReady", "container runtime is down")), rule.Node.Sub("NotReady", "ContainerRuntime"), report.Validated},
		{"ready, under pressure", target(ready(corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
			corev1.NodeCondition{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionTrue}), rule.Node.Sub("NotReady"), report.Refuted},
		{"ready", target(ready(corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status")), "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := ruletest.Run(NotReady, tt.b, now)
			if tt.verdict == "" {
				if len(fs) != 0 {
					t.Errorf("findings on a ready node: %+v", fs)
				}
				return
			}
			if len(fs) != 1 || fs[0].Verdict != tt.verdict || fs[0].Category != tt.want {
				t.Fatalf("findings %+v, want one %s %q", fs, tt.verdict, tt.want)
			}
			if f := fs[0]; f.Verdict == report.Validated && (len(f.Evidence) == 0 || len(f.Actions) == 0 || f.Layer != rule.InfrastructureLayer) {
				t.Errorf("validated finding without evidence or actions, or outside the infrastructure layer: %+v", f)
			}
		})
	}
}
