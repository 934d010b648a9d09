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

// TestReadinessGate: a running pod whose containers are all Ready and which
// waits for a gate's condition names the gate and its controller's domain;
// a pod whose containers are not Ready (the probes' case) or whose gate is
// True is not this rule's.
func TestReadinessGate(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	cond := func(typ string, s corev1.ConditionStatus, reason, msg string) corev1.PodCondition {
		return corev1.PodCondition{Type: corev1.PodConditionType(typ), Status: s, Reason: reason, Message: msg}
	}
	tests := []struct {
		name     string
		gate     string
		ready    bool // the containers
		gateCond *corev1.PodCondition
		want     rule.Category // "" for no finding
	}{
		// The AWS Load Balancer Controller's gate, never set
		// (https://github.com/kubernetes-sigs/aws-load-balancer-controller/issues/2393).
		{"aws lbc gate absent", "target-health.elbv2.k8s.aws/k8s-default-web-3c2b1d9e8f", true, nil, rule.ReadinessGate.Sub("ConditionMissing")},
		// GKE's NEG controller sets its gate False while the endpoint is
		// unhealthy (https://cloud.google.com/kubernetes-engine/docs/concepts/container-native-load-balancing#pod_readiness).
		{"gke neg gate false", "cloud.google.com/load-balancer-neg-ready", true,
			&corev1.PodCondition{Type: "cloud.google.com/load-balancer-neg-ready", Status: corev1.ConditionFalse, Reason: "LoadBalancerNegNotReady"}, rule.ReadinessGate.Sub("ConditionNotTrue")},
		// Negative cases.
		{"containers not ready: the probes' case", "target-health.elbv2.k8s.aws/k8s-default-web-3c2b1d9e8f", false, nil, ""},
		{"gate true", "cloud.google.com/load-balancer-neg-ready", true,
			&corev1.PodCondition{Type: "cloud.google.com/load-balancer-neg-ready", Status: corev1.ConditionTrue}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			conds := []corev1.PodCondition{cond("ContainersReady", corev1.ConditionTrue, "", ""),
				cond("Ready", corev1.ConditionFalse, "ReadinessGatesNotReady", `corresponding condition of pod readiness gate "`+tt.gate+`" does not exist.`)}
			if tt.gateCond != nil {
				conds = append(conds, *tt.gateCond)
			}
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-1", Namespace: "ns", UID: "p1"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}, ReadinessGates: []corev1.PodReadinessGate{{ConditionType: corev1.PodConditionType(tt.gate)}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: conds, ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Ready: tt.ready,
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-20 * time.Minute))}}}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "web-1", Namespace: "ns", UID: "p1"}, Pods: []*corev1.Pod{p}}
			f := ruletest.Root(ruletest.Run(ReadinessGate, b, now))
			if tt.want == "" {
				if f != nil {
					t.Fatalf("want no finding, got %s: %s", f.Category, f.Title)
				}
				return
			}
			if f == nil || f.Category != tt.want {
				t.Fatalf("finding %+v, want %s", f, tt.want)
			}
			domain, _, _ := strings.Cut(tt.gate, "/")
			if !strings.Contains(f.Culprit, tt.gate) || !strings.Contains(f.Culprit, domain) || strings.Contains(strings.ToLower(f.Title), "probe") {
				t.Errorf("culprit %q / title %q: want the gate and its domain, no probe", f.Culprit, f.Title)
			}
		})
	}
}
