package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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
	// At a memory limit, with nothing else to send SIGKILL: an OOM kill the
	// runtime recorded as Error (containerd does when it handles the exit
	// before the OOM event).
	limited := killed("Error")
	limited.Pods[0].Spec.Containers = []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
		Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("16Mi")}}}}
	fs = ruletest.Run(NotOOMKilled, limited, now)
	if len(fs) != 1 || fs[0].Verdict != report.Validated || fs[0].Category != "OOMKilled/Unrecorded" || !strings.Contains(fs[0].Culprit, "16Mi") {
		t.Errorf("SIGKILL at a limit: %+v", fs)
	}
	// A liveness probe is a sender of its own.
	limited.Pods[0].Spec.Containers[0].LivenessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"true"}}}}
	if fs := ruletest.Run(NotOOMKilled, limited, now); len(fs) != 1 || fs[0].Verdict != report.Refuted {
		t.Errorf("SIGKILL of a container with a liveness probe: %+v", fs)
	}
}
