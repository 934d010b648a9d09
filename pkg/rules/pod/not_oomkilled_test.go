package pod

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestNotOOMKilled: exit code 137 without reason OOMKilled refutes the OOM
// hypothesis (something else sent SIGKILL); a real OOM kill is the other
// rule's, not this one's.
func TestNotOOMKilled(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	killed := func(reason string) *bundle.Bundle {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
			Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "app",
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: reason}}}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}}
	}
	fs := ruletest.Run(NotOOMKilled, killed("Error"), now)
	if len(fs) != 1 || fs[0].Verdict != report.Refuted || len(fs[0].Evidence) != 1 {
		t.Errorf("SIGKILL without OOMKilled: %+v", fs)
	}
	if fs := ruletest.Run(NotOOMKilled, killed("OOMKilled"), now); len(fs) != 0 {
		t.Errorf("an OOM kill: %+v", fs)
	}
}
