package health

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// TestWarmingUp: a running container not ready yet within its readiness
// window (the probes' initialDelaySeconds + periodSeconds x
// failureThreshold, at least 30s), never restarted and with no warning
// event, is warming up, and a pod target made only of such containers is
// not failed on its Ready condition; past the window, after a restart or
// with a warning it is a symptom again.
func TestWarmingUp(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	probe := &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt(8080)}}, InitialDelaySeconds: 15, PeriodSeconds: 10}
	for _, tt := range []struct {
		name     string
		started  time.Duration
		probe    *corev1.Probe
		restarts int32
		warning  bool
		want     bool
	}{
		{"seconds old, no probe", 6 * time.Second, nil, 0, false, true},
		{"within the probe's window", 40 * time.Second, probe, 0, false, true},
		{"past the probe's window", 50 * time.Second, probe, 0, false, false},
		{"past the least window", 2 * time.Minute, nil, 0, false, false},
		{"restarted", 6 * time.Second, nil, 1, false, false},
		{"a warning", 6 * time.Second, nil, 0, true, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "goproxy", Namespace: "shop", UID: "p1"},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "goproxy", ReadinessProbe: tt.probe}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "goproxy", RestartCount: tt.restarts,
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-tt.started))}}}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "goproxy", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}}
			if tt.warning {
				b.Events = []corev1.Event{{InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "goproxy", Namespace: "shop", UID: "p1"}, Type: corev1.EventTypeWarning, Reason: "Unhealthy"}}
			}
			c := rule.NewPass(b, now, nil)
			if got := len(warmingUp(c, p)) == 1; got != tt.want {
				t.Errorf("warming up = %v, want %v", got, tt.want)
			}
			if got := warmingPodTarget(c); got != tt.want {
				t.Errorf("warming pod target = %v, want %v", got, tt.want)
			}
			if lines, _ := podSymptoms(c, p, false, warmingUp(c, p)); (len(lines) == 0) != tt.want {
				t.Errorf("symptoms %q", lines)
			}
		})
	}
}
