package pod

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

// TestRejected: a pod the kubelet refused at admission is explained by the
// resource it lacked on that node; a node-condition rejection is left to
// the node rules.
func TestRejected(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		reason, message string
		want            rule.Category
		culprit         string
	}{
		{"OutOfcpu", "Pod was rejected: Node didn't have enough resource: cpu, requested: 2000, used: 3250, capacity: 4000", rule.Node.Sub("Rejected", "OutOfcpu"), "requests.cpu (2000m) vs node/w1: 3250m of 4000m used"},
		{"NodeAffinity", "Pod was rejected: Predicate NodeAffinity failed: node(s) didn't match Pod's node affinity/selector", rule.Node.Sub("Rejected", "NodeAffinity"), "Predicate NodeAffinity failed"},
		{"Evicted", "Pod was rejected: The node had condition: [DiskPressure]. ", "", ""},
	} {
		t.Run(tt.reason, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
				Spec:   corev1.PodSpec{NodeName: "w1", Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}}},
				Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: tt.reason, Message: tt.message}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}}
			f := ruletest.Root(ruletest.Run(Rejected, b, now))
			if tt.want == "" {
				if f != nil {
					t.Fatalf("finding %+v", f)
				}
				return
			}
			if f == nil || f.Category != tt.want || !strings.Contains(f.Culprit, tt.culprit) || !f.Current {
				t.Fatalf("finding %+v, want %q naming %q", f, tt.want, tt.culprit)
			}
		})
	}
}
