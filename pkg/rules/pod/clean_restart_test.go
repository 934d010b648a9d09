package pod

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// TestOneCleanRestartLongAgo: only one exit 0 beyond the hour, on a
// container running and ready since, is a stop from outside (here a kube-proxy
// restarted by a node upgrade three days ago); a recent one, repeated ones,
// a non-zero exit or a container not ready are still read as a loop.
func TestOneCleanRestartLongAgo(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	st := func(restarts int32, ready bool, code int32, ago time.Duration) (corev1.ContainerStatus, *corev1.ContainerStateTerminated) {
		term := &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Completed", FinishedAt: metav1.NewTime(now.Add(-ago))}
		return corev1.ContainerStatus{Name: "kube-proxy", RestartCount: restarts, Ready: ready,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-ago + time.Minute))}}, LastTerminationState: corev1.ContainerState{Terminated: term}}, term
	}
	c := &rule.Pass{Now: now}
	for _, tc := range []struct {
		name     string
		restarts int32
		ready    bool
		code     int32
		ago      time.Duration
		want     bool
	}{
		{"one clean stop three days ago", 1, true, 0, 72 * time.Hour, true},
		{"one clean exit ten minutes ago", 1, true, 0, 10 * time.Minute, false},
		{"several clean exits", 4, true, 0, 72 * time.Hour, false},
		{"one crash long ago", 1, true, 1, 72 * time.Hour, false},
		{"not ready since", 1, false, 0, 72 * time.Hour, false},
	} {
		s, term := st(tc.restarts, tc.ready, tc.code, tc.ago)
		if got := oneCleanRestartLongAgo(c, s, term); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
