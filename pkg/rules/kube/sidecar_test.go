package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
)

// TestAllStatusesLeavesOutSidecarTeardown: a native sidecar's exit once the
// pod has finished is its teardown; the same exit while the pod runs, or an
// ordinary init container's, is a status like any other.
func TestAllStatusesLeavesOutSidecarTeardown(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	exit137 := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error"}}
	tests := []struct {
		name     string
		policy   *corev1.ContainerRestartPolicy
		phase    corev1.PodPhase
		restarts int32
		wantLen  int
	}{
		{"sidecar, pod succeeded", &always, corev1.PodSucceeded, 0, 1},
		{"sidecar, pod failed", &always, corev1.PodFailed, 0, 1},
		{"sidecar, pod running", &always, corev1.PodRunning, 0, 2},
		// It crashed while the pod ran: that is not teardown.
		{"sidecar that restarted, pod succeeded", &always, corev1.PodSucceeded, 4, 2},
		{"init container, pod succeeded", nil, corev1.PodSucceeded, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{
				Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "proxy", RestartPolicy: tt.policy}}, Containers: []corev1.Container{{Name: "app"}}},
				Status: corev1.PodStatus{Phase: tt.phase,
					InitContainerStatuses: []corev1.ContainerStatus{{Name: "proxy", State: exit137, RestartCount: tt.restarts}},
					ContainerStatuses:     []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}}}},
			}
			if got := AllStatuses(p); len(got) != tt.wantLen {
				t.Errorf("got %d statuses, want %d: %+v", len(got), tt.wantLen, got)
			}
			// The namespace ranking agrees: a teardown exit is no failure.
			if sev, torn := bundle.PodSeverity(p), tt.wantLen == 1 && tt.phase == corev1.PodSucceeded; torn != (sev == 0) {
				t.Errorf("PodSeverity %d, want 0 only for a teardown in a pod that succeeded", sev)
			}
		})
	}
}
