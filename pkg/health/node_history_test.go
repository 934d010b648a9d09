package health

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
)

// TestReadySinceNode: a node's warning from before its Ready transition,
// Ready since, is history. Material: the kubelet's Warning Rebooted, "Node
// %s has been rebooted, boot id: %s", recorded on its first status update
// after a reboot, before the node reports Ready
// (https://github.com/kubernetes/kubernetes/blob/v1.31.0/pkg/kubelet/nodestatus/setters.go,
// the BootID setter). Negative: a warning after the transition, and a node
// not Ready.
func TestReadySinceNode(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	node := func(status corev1.ConditionStatus, since time.Duration) *bundle.Bundle {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-3-17"}, Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: status, Reason: "KubeletReady", LastTransitionTime: metav1.NewTime(now.Add(-since))}}}}
		return &bundle.Bundle{Nodes: []*corev1.Node{n}}
	}
	warn := func(ago time.Duration) corev1.Event {
		at := metav1.NewTime(now.Add(-ago))
		return corev1.Event{Type: corev1.EventTypeWarning, Reason: "Rebooted", FirstTimestamp: at, LastTimestamp: at, Count: 1,
			InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: "ip-10-0-3-17"},
			Message:        "Node ip-10-0-3-17 has been rebooted, boot id: 5c7a8e1b-2f4d-4a9e-9b61-0d3f7e2c1a54"}
	}
	for _, tc := range []struct {
		name string
		b    *bundle.Bundle
		e    corev1.Event
		want bool
	}{
		{"rebooted, Ready since", node(corev1.ConditionTrue, 40*time.Minute), warn(41 * time.Minute), true},
		{"warning after the Ready transition", node(corev1.ConditionTrue, 40*time.Minute), warn(10 * time.Minute), false},
		{"not Ready", node(corev1.ConditionFalse, 40*time.Minute), warn(41 * time.Minute), false},
	} {
		if got := ReadySince(tc.b, tc.e); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
