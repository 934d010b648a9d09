package fault

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

func toUnstructured(t *testing.T, obj runtime.Object, kind string) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetKind(kind)
	return u
}

func TestClassify(t *testing.T) {
	waiting := func(reason string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Status: corev1.PodStatus{ContainerStatuses: []corev1.ContainerStatus{{
			Name: "app", RestartCount: 3, State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}}}}}
	}
	oom := waiting("CrashLoopBackOff")
	oom.Status.ContainerStatuses[0].LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "OOMKilled"}
	unsched := &corev1.Pod{Status: corev1.PodStatus{Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable"}}}}
	dep := &appsv1.Deployment{Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded"}}}}
	tests := []struct {
		obj      *unstructured.Unstructured
		typ, sev string
	}{
		{toUnstructured(t, waiting("CrashLoopBackOff"), "Pod"), TypeCrashLoop, SeverityCritical},
		{toUnstructured(t, oom, "Pod"), TypeOOMKilled, SeverityCritical},
		{toUnstructured(t, waiting("ImagePullBackOff"), "Pod"), TypeImagePull, SeverityWarning},
		{toUnstructured(t, waiting("CreateContainerConfigError"), "Pod"), TypeConfigError, SeverityWarning},
		{toUnstructured(t, unsched, "Pod"), TypeUnschedulable, SeverityWarning},
		{toUnstructured(t, dep, "Deployment"), TypeDeploymentFailure, SeverityCritical},
		{toUnstructured(t, &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: "The node was low on resource: memory."}}, "Pod"), TypeEvicted, SeverityCritical},
		{toUnstructured(t, &corev1.Pod{Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "DeadlineExceeded"}}, "Pod"), TypePodFailed, SeverityWarning},
		{toUnstructured(t, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "ok"}}, "Pod"), TypeManual, SeverityInfo},
		{toUnstructured(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}, "ConfigMap"), TypeManual, SeverityInfo},
	}
	for _, tt := range tests {
		typ, sev, ctx := Classify(tt.obj)
		if typ != tt.typ || sev != tt.sev || strings.TrimSpace(ctx) == "" {
			t.Errorf("%s: got %s/%s %q, want %s/%s", tt.obj.GetKind(), typ, sev, ctx, tt.typ, tt.sev)
		}
	}
}
