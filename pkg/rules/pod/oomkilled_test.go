package pod

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestOOMKilled: the container the kernel killed is named with its limit,
// and the fix doubles the limit on the workload that owns the pod; a past
// OOM kill of a container now running is history, not the present.
func TestOOMKilled(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	pod := func(state corev1.ContainerState) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", Namespace: "shop", UID: "p1"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/worker:1",
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}}}}},
			Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{Name: "app", RestartCount: 5, State: state,
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled", FinishedAt: metav1.NewTime(now.Add(-time.Minute))}}}}}}
	}
	target := func(p *corev1.Pod) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "worker", Namespace: "shop"},
			Deployments: []*appsv1.Deployment{{ObjectMeta: metav1.ObjectMeta{Name: "worker", Namespace: "shop"}}}, Pods: []*corev1.Pod{p}}
	}

	looping := target(pod(corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}))
	f := ruletest.Root(ruletest.Run(OOMKilled, looping, now))
	if f == nil || f.Category != rule.OOMKilled || !f.Current || f.Confidence != rule.Definitive {
		t.Fatalf("crash-looping on OOM kills: %+v", f)
	}
	if !strings.Contains(f.Culprit, "256Mi") || !strings.Contains(strings.Join(f.Actions[0].Commands, " "), "kubectl set resources deployment/worker -n shop -c app --limits=memory=512Mi") {
		t.Errorf("culprit %q, first action %+v", f.Culprit, f.Actions[0])
	}

	recovered := target(pod(corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}))
	if f := ruletest.Root(ruletest.Run(OOMKilled, recovered, now)); f == nil || f.Current {
		t.Errorf("an OOM kill before the container's current run is history: %+v", f)
	}
}
