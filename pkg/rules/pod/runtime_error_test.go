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

// TestRuntimeError: the runtime's refusal to start a container is
// classified from its message and names the command that does not exist.
func TestRuntimeError(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	msg := `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "/app/server": stat /app/server: no such file or directory: unknown`
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/api:1", Command: []string{"/app/server"}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 2,
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "RunContainerError", Message: msg}}}}}}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}}
	f := ruletest.Root(ruletest.Run(RuntimeError, b, now))
	if f == nil || f.Category != rule.RunContainerError.Sub("ExecutableNotFound") || !strings.Contains(f.Culprit, "/app/server") {
		t.Fatalf("finding %+v", f)
	}
}
