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
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestUpdateHeld: pods left on an older template by the spec's own
// setting. Material: the kube2iam chart's DaemonSet with updateStrategy
// OnDelete, "UP-TO-DATE 0" after helm upgrade
// (https://github.com/helm/charts/issues/23537); a StatefulSet on OnDelete
// (https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#on-delete);
// a Deployment left paused (kubectl rollout pause). Negatives: a rolling
// update under way, a status the controller has not caught up with, a
// StatefulSet partition (a staged rollout on purpose).
func TestUpdateHeld(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	yes, three, two := true, int32(3), int32(2)
	tpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:2"}}}}
	oldPod := func(owner string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: owner + "-x1", Namespace: "ns", UID: "p-" + "x1",
			OwnerReferences: []metav1.OwnerReference{{Kind: "DaemonSet", Name: owner, UID: "u1", Controller: &yes}}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}
	}
	ds := func(strategy appsv1.DaemonSetUpdateStrategyType, observed int64, updated int32) *bundle.Bundle {
		d := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "ns", UID: "u1", Generation: 2},
			Spec:   appsv1.DaemonSetSpec{UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: strategy}, Template: tpl},
			Status: appsv1.DaemonSetStatus{ObservedGeneration: observed, DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 3, UpdatedNumberScheduled: updated}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "DaemonSet", Name: "agent", Namespace: "ns", UID: "u1"}, DaemonSets: []*appsv1.DaemonSet{d}, Pods: []*corev1.Pod{oldPod("agent")}}
	}
	sts := func(strategy appsv1.StatefulSetUpdateStrategy) *bundle.Bundle {
		s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "ns", UID: "u1", Generation: 2},
			Spec:   appsv1.StatefulSetSpec{Replicas: &three, UpdateStrategy: strategy, Template: tpl},
			Status: appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 3, ReadyReplicas: 3, UpdatedReplicas: 1, CurrentRevision: "db-1", UpdateRevision: "db-2"}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "StatefulSet", Name: "db", Namespace: "ns", UID: "u1"}, StatefulSets: []*appsv1.StatefulSet{s}}
	}
	deploy := func(paused bool) *bundle.Bundle {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "u1", Generation: 3},
			Spec:   appsv1.DeploymentSpec{Replicas: &three, Paused: paused, Template: tpl},
			Status: appsv1.DeploymentStatus{ObservedGeneration: 3, Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3, UpdatedReplicas: 0}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "web", Namespace: "ns", UID: "u1"}, Deployments: []*appsv1.Deployment{d}}
	}
	tests := []struct {
		name     string
		b        *bundle.Bundle
		category string // "" when nothing is held
		names    []string
	}{
		{"daemonset OnDelete after a template change", ds(appsv1.OnDeleteDaemonSetStrategyType, 2, 0), "DaemonSet/UpdateHeld/OnDelete", []string{"OnDelete", "agent-x1", "app:1", "RollingUpdate"}},
		{"daemonset rolling update under way", ds(appsv1.RollingUpdateDaemonSetStrategyType, 2, 1), "", nil},
		{"daemonset status not yet observed", ds(appsv1.OnDeleteDaemonSetStrategyType, 1, 0), "", nil},
		{"daemonset OnDelete, every pod updated", ds(appsv1.OnDeleteDaemonSetStrategyType, 2, 3), "", nil},
		{"statefulset OnDelete", sts(appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}), "StatefulSet/UpdateHeld/OnDelete", []string{"OnDelete"}},
		{"statefulset partition", sts(appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType, RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: &two}}), "", nil},
		{"deployment paused", deploy(true), "Rollout/Paused", []string{"spec.paused", "kubectl rollout resume deployment/web"}},
		{"deployment not paused", deploy(false), "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := ruletest.Run(UpdateHeld, tt.b, now)
			if tt.category == "" {
				if len(fs) != 0 {
					t.Fatalf("got %+v, want nothing", fs)
				}
				return
			}
			if len(fs) != 1 || string(fs[0].Category) != tt.category {
				t.Fatalf("got %+v, want %s", fs, tt.category)
			}
			text := fs[0].Title + "\n" + fs[0].Culprit
			for _, a := range fs[0].Actions {
				text += "\n" + a.Description + "\n" + strings.Join(a.Commands, "\n")
			}
			for _, n := range tt.names {
				if !strings.Contains(text, n) {
					t.Errorf("finding does not name %q:\n%s", n, text)
				}
			}
		})
	}
}
