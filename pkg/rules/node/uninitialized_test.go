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

// TestUninitialized: a Ready Node target still carrying the cloud
// provider's or Cluster API's initialization taint long after it
// registered is Node/Uninitialized naming the taint, definite; one that
// registered a minute ago is only moderate; a node without the taint, or
// another kind of target, gives none.
func TestUninitialized(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	node := func(taint string, registered time.Duration) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", UID: "n1", CreationTimestamp: metav1.NewTime(now.Add(-registered))},
			Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-registered))}}}}
		if taint != "" {
			n.Spec.Taints = []corev1.Taint{{Key: taint, Value: "true", Effect: corev1.TaintEffectNoSchedule}}
		}
		return n
	}
	target := func(kind string, n *corev1.Node) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: kind, Name: n.Name, UID: string(n.UID)}, Nodes: []*corev1.Node{n}}
	}
	for _, tt := range []struct {
		name  string
		taint string
		age   time.Duration
		conf  rule.Confidence
	}{
		// https://github.com/kubernetes/cloud-provider-openstack/issues/2200
		{"cloud provider, hours", "node.cloudprovider.kubernetes.io/uninitialized", 3 * time.Hour, rule.Definitive},
		// https://github.com/rackerlabs/spot/issues/44
		{"cluster api, an hour", "node.cluster.x-k8s.io/uninitialized", time.Hour, rule.Definitive},
		{"cloud provider, just registered", "node.cloudprovider.kubernetes.io/uninitialized", time.Minute, rule.Moderate},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := ruletest.Root(ruletest.Run(Uninitialized, target("Node", node(tt.taint, tt.age)), now))
			if f == nil || f.Category != rule.Node.Sub("Uninitialized") || f.Confidence != tt.conf || !strings.Contains(f.Culprit, tt.taint) {
				t.Fatalf("finding %+v", f)
			}
			if len(f.Evidence) != 2 {
				t.Errorf("want the taint and the missing providerID as evidence, got %d", len(f.Evidence))
			}
		})
	}
	for name, b := range map[string]*bundle.Bundle{
		"no taint":          target("Node", node("", 3*time.Hour)),
		"other taint":       target("Node", node("dedicated", 3*time.Hour)),
		"a pod is targeted": target("Pod", node("node.cloudprovider.kubernetes.io/uninitialized", 3*time.Hour)),
	} {
		for _, f := range ruletest.Run(Uninitialized, b, now) {
			if f.Verdict == report.Validated {
				t.Errorf("%s: validated %q", name, f.Category)
			}
		}
	}
}
