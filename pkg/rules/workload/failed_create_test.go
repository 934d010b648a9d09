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

// TestFailedCreate: the ReplicaSet controller's FailedCreate event is
// classified by what refused the pod (here a ResourceQuota), named in the
// culprit and in what to run next.
func TestFailedCreate(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	yes, three := true, int32(3)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", UID: "d1"}, Spec: appsv1.DeploymentSpec{Replicas: &three}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "web-5d8f", Namespace: "shop", UID: "rs1",
		OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: "web", UID: "d1", Controller: &yes}}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: &three, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/web:1"}}}}},
		Status: appsv1.ReplicaSetStatus{Replicas: 2}}
	e := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web-5d8f.1", Namespace: "shop"}, Type: corev1.EventTypeWarning, Reason: "FailedCreate", Count: 12,
		Message:        `Error creating: pods "web-5d8f-x2k9p" is forbidden: exceeded quota: pods-cap, requested: pods=1, used: pods=2, limited: pods=2`,
		InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet", Name: "web-5d8f", Namespace: "shop", UID: "rs1"},
		LastTimestamp:  metav1.NewTime(now.Add(-20 * time.Second))}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Deployment", Name: "web", Namespace: "shop", UID: "d1"},
		Deployments: []*appsv1.Deployment{d}, ReplicaSets: []*appsv1.ReplicaSet{rs}, Events: []corev1.Event{e}}

	f := ruletest.Root(ruletest.Run(FailedCreate, b, now))
	if f == nil || f.Category != rule.FailedCreate.Sub("Quota") || !strings.Contains(f.Culprit, "pods-cap") {
		t.Fatalf("finding %+v", f)
	}
	var commands []string
	for _, a := range f.Actions {
		commands = append(commands, a.Commands...)
	}
	if !strings.Contains(strings.Join(commands, "\n"), "pods-cap") {
		t.Errorf("no action reads the quota: %q", commands)
	}
	b.Events = nil
	if f := ruletest.Root(ruletest.Run(FailedCreate, b, now)); f != nil {
		t.Errorf("without the event: %+v", f)
	}
}
