package health

import (
	"testing"
	"time"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
)

// TestReadySinceHPA: an HPA's metric warning from before ScalingActive
// turned True again (a custom-metrics adapter restarted) is history; one
// after it, or while ScalingActive is False, is not.
func TestReadySinceHPA(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	hpa := func(status corev1.ConditionStatus, since time.Duration) *bundle.Bundle {
		h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "worker", Namespace: "jobs"},
			Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
				{Type: autoscalingv2.ScalingActive, Status: status, Reason: "ValidMetricFound", LastTransitionTime: metav1.NewTime(now.Add(-since))}}}}
		return &bundle.Bundle{HPAs: []*autoscalingv2.HorizontalPodAutoscaler{h}}
	}
	warn := func(ago time.Duration) corev1.Event {
		return corev1.Event{Type: corev1.EventTypeWarning, Reason: "FailedGetExternalMetric", LastTimestamp: metav1.NewTime(now.Add(-ago)),
			InvolvedObject: corev1.ObjectReference{Kind: "HorizontalPodAutoscaler", Namespace: "jobs", Name: "worker"},
			Message:        `unable to get external metric jobs/queue_depth: unable to fetch metrics from external metrics API: the server is currently unable to handle the request`}
	}
	for _, tc := range []struct {
		name string
		b    *bundle.Bundle
		e    corev1.Event
		want bool
	}{
		{"warning before the recovery", hpa(corev1.ConditionTrue, 10*time.Minute), warn(20 * time.Minute), true},
		{"warning after it", hpa(corev1.ConditionTrue, 30*time.Minute), warn(5 * time.Minute), false},
		{"still failing", hpa(corev1.ConditionFalse, 30*time.Minute), warn(40 * time.Minute), false},
	} {
		if got := ReadySince(tc.b, tc.e); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
