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

// TestCrashLoop: the previous instance's decisive log line names the
// cause (Explained); without a log the exit code is all there is
// (Observed), so a rule that names the cause outranks it.
func TestCrashLoop(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "app", Image: "shop/api:1"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 6,
			State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
	target := func(logs ...bundle.ContainerLog) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}, Logs: logs}
	}

	withLog := target(bundle.ContainerLog{Namespace: "shop", Pod: "api", Container: "app", Previous: true, Text: "starting\nFATAL config: required env DATABASE_URL is empty\n"})
	f := ruletest.Root(ruletest.Run(CrashLoop, withLog, now))
	if f == nil || f.Category != rule.CrashLoop.Sub("Exit1", "MissingEnv") || f.Strength != rule.Explained || !strings.Contains(f.Culprit, "DATABASE_URL") {
		t.Fatalf("with the log: %+v", f)
	}

	f = ruletest.Root(ruletest.Run(CrashLoop, target(), now))
	if f == nil || f.Category != rule.CrashLoop.Sub("Exit1") || f.Strength != rule.Observed {
		t.Fatalf("without a log: %+v", f)
	}
}

// TestCrashLoopRuntimeLost: one restart the runtime reported as Unknown
// (exit 255: the node rebooted), serving since, is no crash; the same
// status after an application error, or a second such restart, still is.
func TestCrashLoopRuntimeLost(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		reason   string
		restarts int32
		want     bool
	}{
		{"node reboot", "Unknown", 1, false},
		{"application error", "Error", 1, true},
		{"lost twice", "Unknown", 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "shop", UID: "p1"},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "app", Image: "postgres:16"}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: tc.restarts, Ready: true,
					State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-72 * time.Hour))}},
					LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 255, Reason: tc.reason,
						FinishedAt: metav1.NewTime(now.Add(-72*time.Hour - time.Minute))}}}}}}
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "db", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}}
			if got := len(ruletest.Run(CrashLoop, b, now)) > 0; got != tc.want {
				t.Errorf("finding: %v, want %v", got, tc.want)
			}
		})
	}
}
