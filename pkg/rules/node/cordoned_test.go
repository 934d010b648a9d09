package node

import (
	"strings"
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

// TestCordoned: a cordoned Node target is the finding, with the taint the
// controller mirrors and the pods a drain has not moved; an uncordoned
// node, or a target of another kind, gives none.
func TestCordoned(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	node := func(cordoned bool) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", UID: "n1"}}
		if cordoned {
			n.Spec.Unschedulable = true
			n.Spec.Taints = []corev1.Taint{{Key: "node.kubernetes.io/unschedulable", Effect: corev1.TaintEffectNoSchedule}}
		}
		return n
	}
	running := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api-1", Namespace: "shop"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	target := func(kind string, n *corev1.Node) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: kind, Name: n.Name, UID: string(n.UID)}, Nodes: []*corev1.Node{n}, NodePods: []*corev1.Pod{running}}
	}

	fs := ruletest.Run(Cordoned, target("Node", node(true)), now)
	f := ruletest.Root(fs)
	if f == nil {
		t.Fatalf("no validated finding: %+v", fs)
	}
	if f.Category != rule.Node.Sub("Cordoned") || f.Rule != "node/cordoned" || f.Layer != rule.InfrastructureLayer || len(f.Evidence) != 2 {
		t.Errorf("finding %s %q layer %s with %d evidence", f.Rule, f.Category, f.Layer, len(f.Evidence))
	}
	if !strings.Contains(strings.Join(f.Contributing, " "), "shop/api-1") {
		t.Errorf("contributing facts do not name the pod still on the node: %q", f.Contributing)
	}
	if len(f.Actions) == 0 || !strings.Contains(strings.Join(f.Actions[0].Commands, " "), "kubectl uncordon worker-1") {
		t.Errorf("first action is not the uncordon: %+v", f.Actions)
	}

	for name, b := range map[string]*bundle.Bundle{
		"schedulable node":    target("Node", node(false)),
		"a pod on a cordoned": target("Pod", node(true)),
	} {
		for _, f := range ruletest.Run(Cordoned, b, now) {
			if f.Verdict == report.Validated {
				t.Errorf("%s: validated %q", name, f.Category)
			}
		}
	}
}
