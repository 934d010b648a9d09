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

// TestPressure: each pressure condition that is True is a finding of its
// own class; a node with none under pressure gives no validated finding.
func TestPressure(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	target := func(mem, disk corev1.ConditionStatus) *bundle.Bundle {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", UID: "n1"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeMemoryPressure, Status: mem, Message: "kubelet has insufficient memory available"},
			{Type: corev1.NodeDiskPressure, Status: disk, Message: "kubelet has disk pressure"},
			{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Node", Name: n.Name, UID: "n1"}, Nodes: []*corev1.Node{n}}
	}
	validated := func(fs []rule.Finding) map[rule.Category]bool {
		out := map[rule.Category]bool{}
		for _, f := range fs {
			if f.Verdict == report.Validated {
				out[f.Category] = true
			}
		}
		return out
	}
	got := validated(ruletest.Run(Pressure, target(corev1.ConditionTrue, corev1.ConditionTrue), now))
	if len(got) != 2 || !got[rule.Node.Sub("MemoryPressure")] || !got[rule.Node.Sub("DiskPressure")] {
		t.Errorf("memory and disk pressure: %v", got)
	}
	if got := validated(ruletest.Run(Pressure, target(corev1.ConditionFalse, corev1.ConditionFalse), now)); len(got) != 0 {
		t.Errorf("no pressure: %v", got)
	}
}
