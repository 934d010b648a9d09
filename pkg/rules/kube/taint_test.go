package kube

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// TestBlockingTaints: a node's reading reports the taints that say a
// state its conditions do not (a removal under way, an initialization not
// done), not the control plane's by design, not a mirrored condition or
// cordon, not a soft or an operator's own taint.
func TestBlockingTaints(t *testing.T) {
	n := &corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{
		{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule},
		{Key: "DeletionCandidateOfClusterAutoscaler", Value: "1700000000", Effect: corev1.TaintEffectPreferNoSchedule},
		{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule},
		{Key: "ToBeDeletedByClusterAutoscaler", Value: "1700000000", Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: corev1.TaintEffectNoSchedule},
	}}}
	got := BlockingTaints(n)
	if len(got) != 2 || got[0].Key != "ToBeDeletedByClusterAutoscaler" || got[1].Key != "node.cloudprovider.kubernetes.io/uninitialized" {
		t.Fatalf("BlockingTaints = %+v", got)
	}
	if s := TaintedSince(got[0]); !s.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("TaintedSince = %v", s)
	}
	if s := TaintedSince(got[1]); !s.IsZero() {
		t.Errorf("TaintedSince of a value that is no time = %v", s)
	}
}
