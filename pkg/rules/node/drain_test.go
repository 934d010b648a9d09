package node

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestHeldDrain: a cordoned node whose pod a PodDisruptionBudget with no
// disruption left covers is a drain held by that budget, named with the
// budget's other pod that is not ready
// (https://github.com/berops/claudie/issues/1508); a budget with
// disruptions left, or over no pod of the node, holds nothing.
func TestHeldDrain(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "compute-1"}, Spec: corev1.NodeSpec{Unschedulable: true}}
	dns := map[string]string{"k8s-app": "kube-dns"}
	ready := corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	left := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "coredns-58cb6bf589-fthdc", Namespace: "kube-system", Labels: dns}, Spec: corev1.PodSpec{NodeName: "compute-1"}, Status: ready}
	unready := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "coredns-58cb6bf589-h58w6", Namespace: "kube-system", Labels: dns}, Spec: corev1.PodSpec{NodeName: "compute-2"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "coredns"}}}}
	pdb := func(allowed int32, sel map[string]string) *policyv1.PodDisruptionBudget {
		return &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "coredns", Namespace: "kube-system"},
			Spec:   policyv1.PodDisruptionBudgetSpec{MinAvailable: &intstr.IntOrString{IntVal: 1}, Selector: &metav1.LabelSelector{MatchLabels: sel}},
			Status: policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 1, DesiredHealthy: 1, ExpectedPods: 2, DisruptionsAllowed: allowed}}
	}
	for _, tt := range []struct {
		name     string
		pdb      *policyv1.PodDisruptionBudget
		category string
		culprit  []string
	}{
		{"held", pdb(0, dns), "Node/Cordoned/DrainBlocked", []string{"kube-system/coredns allows 0 disruptions", "coredns-58cb6bf589-fthdc", "coredns-58cb6bf589-h58w6 on compute-2 (Running, not ready) is not ready"}},
		{"disruption left", pdb(1, dns), "Node/Cordoned", nil},
		{"over other pods", pdb(0, map[string]string{"app": "web"}), "Node/Cordoned", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Node", Name: n.Name}, Nodes: []*corev1.Node{n}, NodePods: []*corev1.Pod{left},
				PDBs: []*policyv1.PodDisruptionBudget{tt.pdb}, DependencyPods: []*corev1.Pod{unready}}
			f := ruletest.Root(ruletest.Run(Cordoned, b, now))
			if f == nil || string(f.Category) != tt.category {
				t.Fatalf("finding %+v, want category %s", f, tt.category)
			}
			for _, w := range tt.culprit {
				if !strings.Contains(f.Culprit, w) {
					t.Errorf("culprit %q lacks %q", f.Culprit, w)
				}
			}
		})
	}
}
