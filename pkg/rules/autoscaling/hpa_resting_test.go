package autoscaling

import (
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestHPAResting: an HPA held at its minReplicas is its resting state (a
// healthy report) only when what it reads agrees: it runs the floor and
// every metric is at or below target. Utilization above target with
// TooFewReplicas, or a floor not yet reached, is not.
func TestHPAResting(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	i32 := func(v int32) *int32 { return &v }
	mk := func(min, current, target, util int32) *bundle.Bundle {
		h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "h1"},
			Spec: autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: i32(min), MaxReplicas: 10,
				ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
				Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
					Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: i32(target)}}}}},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: current, DesiredReplicas: current,
				CurrentMetrics: []autoscalingv2.MetricStatus{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU,
					Current: autoscalingv2.MetricValueStatus{AverageUtilization: i32(util)}}}},
				Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
					{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "ReadyForNewScale"},
					{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionTrue, Reason: "ValidMetricFound"},
					{Type: autoscalingv2.ScalingLimited, Status: corev1.ConditionTrue, Reason: "TooFewReplicas", Message: "the desired replica count is less than the minimum replica count"}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "HorizontalPodAutoscaler", Name: "web", Namespace: "shop", UID: "h1"}, HPAs: []*autoscalingv2.HorizontalPodAutoscaler{h}}
	}
	for _, tt := range []struct {
		name string
		b    *bundle.Bundle
		want bool
	}{
		// kubernetes/website content/en/docs/tasks/run-application/horizontal-pod-autoscale-walkthrough.md
		// at idle: cpu 0%/50%, REPLICAS 1 = MINPODS 1.
		{"walkthrough at idle: floor, 0% of 50%", mk(1, 1, 50, 0), true},
		{"at target exactly", mk(3, 3, 80, 80), true},
		{"utilization above target", mk(2, 2, 50, 180), false},
		{"floor not reached yet", mk(2, 4, 50, 10), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := ruletest.Root(ruletest.Run(HPA, tt.b, now))
			if f == nil || f.Category != rule.HPA.Sub("Limited", "MinReplicas") {
				t.Fatalf("finding %+v", f)
			}
			if f.Resting != tt.want {
				t.Errorf("Resting = %v, want %v", f.Resting, tt.want)
			}
		})
	}
}
