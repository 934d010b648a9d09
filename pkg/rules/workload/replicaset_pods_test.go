package workload

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestReplicaSetPods: a ReplicaSet whose pod has a cause of its own (read
// from the pod-level rules it requires) is that cause's context, never the
// root cause; without one, it says what the pod's status shows.
func TestReplicaSetPods(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	yes, two := true, int32(2)
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-5d8f", Namespace: "shop", UID: "rs1"},
		Spec:   appsv1.ReplicaSetSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		Status: appsv1.ReplicaSetStatus{Replicas: 2}}
	pod := func(state corev1.ContainerState, last *corev1.ContainerStateTerminated) *corev1.Pod {
		st := corev1.ContainerStatus{Name: "app", State: state, RestartCount: 4}
		if last != nil {
			st.LastTerminationState.Terminated = last
		}
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-5d8f-abcde", Namespace: "shop", UID: "p1",
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID, Controller: &yes}}},
			Spec:   corev1.PodSpec{NodeName: "worker-1", Containers: []corev1.Container{{Name: "app", Image: "shop/web:2"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{st}}}
	}
	target := func(p *corev1.Pod) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "ReplicaSet", Name: rs.Name, Namespace: "shop", UID: "rs1"},
			ReplicaSets: []*appsv1.ReplicaSet{rs}, Pods: []*corev1.Pod{p}}
	}

	oom := pod(corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		&corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled", FinishedAt: metav1.NewTime(now.Add(-time.Minute))})
	fs := ruletest.Run(ReplicaSetPods, target(oom), now)
	if len(fs) != 1 || !fs[0].Context || fs[0].Category != rule.ReplicaSet.Sub("PodsNotReady", "PodsFailing") || !strings.Contains(fs[0].Culprit, "limits.memory") {
		t.Errorf("with a pod's OOM kill: %+v", fs)
	}

	running := pod(corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}, nil)
	fs = ruletest.Run(ReplicaSetPods, target(running), now)
	if len(fs) != 1 || fs[0].Context || !strings.HasPrefix(string(fs[0].Category), "ReplicaSet/PodsNotReady/") {
		t.Errorf("with a pod running but not ready: %+v", fs)
	}
}
