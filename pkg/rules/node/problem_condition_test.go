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

// TestProblemCondition: a node daemon's condition True on a Ready node is
// the finding, in a category named after it; the same condition False, or
// the kubelet's own conditions, give none.
func TestProblemCondition(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	node := func(extra ...corev1.NodeCondition) *bundle.Bundle {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-2", UID: "n2"}, Status: corev1.NodeStatus{Conditions: append([]corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"},
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse}}, extra...)}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Node", Name: n.Name, UID: string(n.UID)}, Nodes: []*corev1.Node{n}}
	}
	// node-problem-detector's filesystem monitor (config/readonly-monitor.json).
	ro := corev1.NodeCondition{Type: "ReadonlyFilesystem", Status: corev1.ConditionTrue, Reason: "FilesystemIsReadOnly",
		Message: "Node condition ReadonlyFilesystem is now: True, reason: FilesystemIsReadOnly, message: \"EXT4-fs error (device sda1): ext4_journal_check_start: Detected aborted journal\""}
	f := ruletest.Root(ruletest.Run(ProblemCondition, node(ro), now))
	if f == nil || f.Category != rule.Node.Sub("ReadonlyFilesystem") || !strings.Contains(f.Culprit, "Detected aborted journal") || !strings.Contains(f.Title, "still reports Ready") {
		t.Fatalf("finding %+v", f)
	}
	ro.Status = corev1.ConditionFalse
	for name, b := range map[string]*bundle.Bundle{"condition False": node(ro), "kubelet conditions only": node()} {
		if f := ruletest.Root(ruletest.Run(ProblemCondition, b, now)); f != nil {
			t.Errorf("%s: finding %q", name, f.Category)
		}
	}
}
