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

// TestStatefulSetBrokenRevision: an OrderedReady StatefulSet whose pod of
// a superseded revision can never become Ready is stuck until that pod is
// deleted (forced rollback). Material: web-0 created with
// k8s.gcr.io/nginx-slim:foo stays in ImagePullBackOff after the template
// is fixed to nginx-slim:0.8, https://github.com/kubernetes/kubernetes/issues/88896.
// Negatives: the failing pod is on the update revision (its own failure,
// the pod rule's), and the Parallel policy (the controller replaces it).
func TestStatefulSetBrokenRevision(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	build := func(podRev string, policy appsv1.PodManagementPolicyType) *bundle.Bundle {
		one, yes := int32(1), true
		s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "s1"},
			Spec: appsv1.StatefulSetSpec{Replicas: &one, PodManagementPolicy: policy,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "k8s.gcr.io/nginx-slim:0.8"}}}}},
			Status: appsv1.StatefulSetStatus{Replicas: 1, CurrentRevision: "web-6b9d7f8c4", UpdateRevision: "web-7c5f9d6b8"}}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "default", UID: "p1", Labels: map[string]string{appsv1.ControllerRevisionHashLabelKey: podRev},
			OwnerReferences: []metav1.OwnerReference{{Kind: "StatefulSet", Name: "web", UID: "s1", Controller: &yes}}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "k8s.gcr.io/nginx-slim:foo"}}},
			Status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{{Name: "nginx", Image: "k8s.gcr.io/nginx-slim:foo",
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: `Back-off pulling image "k8s.gcr.io/nginx-slim:foo"`}}}}}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "StatefulSet", Name: "web", Namespace: "default", UID: "s1"}, StatefulSets: []*appsv1.StatefulSet{s}, Pods: []*corev1.Pod{p}}
	}
	f := ruletest.Root(ruletest.Run(StatefulSetBrokenRevision, build("web-6b9d7f8c4", appsv1.OrderedReadyPodManagement), now))
	if f == nil || f.Category != rule.Rollout.Sub("Stuck") || f.Strength != rule.Traced || !strings.Contains(f.Culprit, "pod/web-0") ||
		!strings.Contains(f.Culprit, "k8s.gcr.io/nginx-slim:foo") || !strings.Contains(strings.Join(f.Actions[0].Commands, " "), "kubectl delete pod web-0") {
		t.Fatalf("stuck on the old revision: %+v", f)
	}
	if fs := ruletest.Run(StatefulSetBrokenRevision, build("web-7c5f9d6b8", appsv1.OrderedReadyPodManagement), now); len(fs) != 0 {
		t.Errorf("pod on the update revision: %+v", fs)
	}
	if fs := ruletest.Run(StatefulSetBrokenRevision, build("web-6b9d7f8c4", appsv1.ParallelPodManagement), now); len(fs) != 0 {
		t.Errorf("parallel policy: %+v", fs)
	}
}
