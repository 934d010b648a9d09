package workload

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestFailedCreatePriorityClass: the Priority admission's refusal of a pod
// whose priorityClassName names no PriorityClass is
// FailedCreate/PriorityClass naming the class, whichever controller
// reports it.
func TestFailedCreatePriorityClass(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	two := int32(2)
	tmpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/web:1"}}}}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "konnectivity-agent", Namespace: "shop", UID: "ds1"},
		Spec: appsv1.DaemonSetSpec{Template: tmpl}, Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 3}}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "mariadb-min", Namespace: "shop", UID: "sts1"},
		Spec: appsv1.StatefulSetSpec{Replicas: &two, Template: tmpl}}
	for _, tt := range []struct {
		name    string
		target  fault.Resource
		obj     runtime.Object
		kind    string
		msg     string
		culprit string
	}{
		// https://github.com/openshift/hypershift/pull/443
		{"daemonset", fault.Resource{Kind: "DaemonSet", Name: ds.Name, Namespace: "shop", UID: string(ds.UID)}, ds, "DaemonSet",
			`Error creating: pods "konnectivity-agent-" is forbidden: no PriorityClass with name hypershift-control-plane was found`, "hypershift-control-plane"},
		// https://github.com/mariadb-operator/mariadb-operator/pull/337
		{"statefulset", fault.Resource{Kind: "StatefulSet", Name: sts.Name, Namespace: "shop", UID: string(sts.UID)}, sts, "StatefulSet",
			`create Pod mariadb-min-0 in StatefulSet mariadb-min failed error: pods "mariadb-min-0" is forbidden: no PriorityClass with name high-priority was found`, "high-priority"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := tt.obj.(metav1.Object)
			e := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: m.GetName() + ".1", Namespace: "shop"}, Type: corev1.EventTypeWarning, Reason: "FailedCreate", Count: 12, Message: tt.msg,
				InvolvedObject: corev1.ObjectReference{Kind: tt.kind, Name: m.GetName(), Namespace: "shop", UID: m.GetUID()}, LastTimestamp: metav1.NewTime(now.Add(-time.Minute))}
			b := &bundle.Bundle{Target: tt.target, DaemonSets: []*appsv1.DaemonSet{ds}, StatefulSets: []*appsv1.StatefulSet{sts}, Events: []corev1.Event{e}}
			f := ruletest.Root(ruletest.Run(FailedCreate, b, now))
			if f == nil || f.Category != rule.FailedCreate.Sub("PriorityClass") || !strings.Contains(f.Culprit, tt.culprit) || !strings.Contains(f.Title, tt.culprit) {
				t.Fatalf("finding %+v", f)
			}
		})
	}
}

// TestFailedCreateRuntimeClass: the RuntimeClass admission's refusal of a
// pod whose runtimeClassName names no RuntimeClass is
// FailedCreate/RuntimeClass naming the class and the field
// (truenas/middleware#11178: "pod rejected: RuntimeClass "nvidia" not
// found").
func TestFailedCreateRuntimeClass(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	tmpl := corev1.PodTemplateSpec{Spec: corev1.PodSpec{RuntimeClassName: func(s string) *string { return &s }("nvidia"), Containers: []corev1.Container{{Name: "app", Image: "plexinc/pms-docker:1.32"}}}}
	ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "plex", Namespace: "shop", UID: "ds1"},
		Spec: appsv1.DaemonSetSpec{Template: tmpl}, Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: 1}}
	e := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "plex.1", Namespace: "shop"}, Type: corev1.EventTypeWarning, Reason: "FailedCreate", Count: 7,
		Message:        `Error creating: pods "plex-" is forbidden: pod rejected: RuntimeClass "nvidia" not found`,
		InvolvedObject: corev1.ObjectReference{Kind: "DaemonSet", Name: "plex", Namespace: "shop", UID: "ds1"}, LastTimestamp: metav1.NewTime(now.Add(-time.Minute))}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "DaemonSet", Name: "plex", Namespace: "shop", UID: "ds1"}, DaemonSets: []*appsv1.DaemonSet{ds}, Events: []corev1.Event{e}}
	f := ruletest.Root(ruletest.Run(FailedCreate, b, now))
	if f == nil || f.Category != rule.FailedCreate.Sub("RuntimeClass") || !strings.Contains(f.Culprit, "runtimeClassName: nvidia") {
		t.Fatalf("finding %+v", f)
	}
}
