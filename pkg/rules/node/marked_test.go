package node

import (
	"strconv"
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

// TestMarked: a node tainted by cluster-autoscaler for deletion hours ago
// and still there was left by an autoscaler that did not finish
// (https://github.com/kubernetes/autoscaler/issues/5048); minutes ago, it
// is being removed; its soft DeletionCandidate taint, or an operator's
// own taint, is no finding.
func TestMarked(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	unix := func(ago time.Duration) string { return strconv.FormatInt(now.Add(-ago).Unix(), 10) }
	for _, tt := range []struct {
		name     string
		taints   []corev1.Taint
		conf     rule.Confidence
		culprit  []string
		wantNone bool
	}{
		{"left behind", []corev1.Taint{{Key: "DeletionCandidateOfClusterAutoscaler", Value: unix(15 * time.Hour), Effect: corev1.TaintEffectPreferNoSchedule},
			{Key: "ToBeDeletedByClusterAutoscaler", Value: unix(14 * time.Hour), Effect: corev1.TaintEffectNoSchedule}},
			rule.Definitive, []string{"ToBeDeletedByClusterAutoscaler", "left behind", "cluster-autoscaler"}, false},
		{"under way", []corev1.Taint{{Key: "ToBeDeletedByClusterAutoscaler", Value: unix(3 * time.Minute), Effect: corev1.TaintEffectNoSchedule}},
			rule.Moderate, []string{"ToBeDeletedByClusterAutoscaler"}, false},
		{"karpenter", []corev1.Taint{{Key: "karpenter.sh/disrupted", Effect: corev1.TaintEffectNoSchedule}},
			rule.Definitive, []string{"karpenter.sh/disrupted", "Karpenter"}, false},
		{"soft candidate only", []corev1.Taint{{Key: "DeletionCandidateOfClusterAutoscaler", Value: unix(time.Hour), Effect: corev1.TaintEffectPreferNoSchedule}}, 0, nil, true},
		{"an operator's taint", []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}, 0, nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ip-10-20-42-117", UID: "n1"}, Spec: corev1.NodeSpec{Taints: tt.taints}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Node", Name: n.Name, UID: "n1"}, Nodes: []*corev1.Node{n}}
			f := ruletest.Root(ruletest.Run(Marked, b, now))
			if tt.wantNone {
				if f != nil {
					t.Fatalf("finding %q for %s", f.Title, tt.name)
				}
				return
			}
			if f == nil || f.Category != rule.Node.Sub("Marked") || f.Confidence != tt.conf {
				t.Fatalf("finding %+v, want Node/Marked at %v", f, tt.conf)
			}
			for _, w := range tt.culprit {
				if !strings.Contains(f.Culprit, w) {
					t.Errorf("culprit %q lacks %q", f.Culprit, w)
				}
			}
		})
	}
}
