package kube

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestAllStatusesLeavesOutSidecarTeardown: a native sidecar's exit once the
// pod has finished is its teardown; the same exit while the pod runs, or an
// ordinary init container's, is a status like any other.
func TestAllStatusesLeavesOutSidecarTeardown(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	exit137 := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error"}}
	tests := []struct {
		name    string
		policy  *corev1.ContainerRestartPolicy
		phase   corev1.PodPhase
		wantLen int
	}{
		{"sidecar, pod succeeded", &always, corev1.PodSucceeded, 1},
		{"sidecar, pod failed", &always, corev1.PodFailed, 1},
		{"sidecar, pod running", &always, corev1.PodRunning, 2},
		{"init container, pod succeeded", nil, corev1.PodSucceeded, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{
				Spec: corev1.PodSpec{InitContainers: []corev1.Container{{Name: "proxy", RestartPolicy: tt.policy}}, Containers: []corev1.Container{{Name: "app"}}},
				Status: corev1.PodStatus{Phase: tt.phase,
					InitContainerStatuses: []corev1.ContainerStatus{{Name: "proxy", State: exit137}},
					ContainerStatuses:     []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}}}},
			}
			if got := AllStatuses(p); len(got) != tt.wantLen {
				t.Errorf("got %d statuses, want %d: %+v", len(got), tt.wantLen, got)
			}
		})
	}
}
