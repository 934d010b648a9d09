package health

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
)

// TestReadySince: a warning about a pod that turned Ready after the event
// was last seen is the past; one seen after it turned Ready, or about a
// pod not Ready, is not.
func TestReadySince(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	pod := func(ready corev1.ConditionStatus, since time.Duration) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop"},
			Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: ready, LastTransitionTime: metav1.NewTime(now.Add(-since))}}}}
	}
	event := func(kind string, last time.Duration) corev1.Event {
		return corev1.Event{InvolvedObject: corev1.ObjectReference{Kind: kind, Name: "web", Namespace: "shop"}, Type: corev1.EventTypeWarning,
			Reason: "Unhealthy", LastTimestamp: metav1.NewTime(now.Add(-last))}
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		ev   corev1.Event
		want bool
	}{
		{"probe failed during start-up, Ready since", pod(corev1.ConditionTrue, 40*time.Minute), event("Pod", 41*time.Minute), true},
		{"probe failing after Ready", pod(corev1.ConditionTrue, 40*time.Minute), event("Pod", 2*time.Minute), false},
		{"pod not Ready", pod(corev1.ConditionFalse, 40*time.Minute), event("Pod", 41*time.Minute), false},
		{"not about a pod", pod(corev1.ConditionTrue, 40*time.Minute), event("Deployment", 41*time.Minute), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &bundle.Bundle{Pods: []*corev1.Pod{tc.pod}}
			if got := ReadySince(b, tc.ev); got != tc.want {
				t.Errorf("ReadySince = %v, want %v", got, tc.want)
			}
		})
	}
}
