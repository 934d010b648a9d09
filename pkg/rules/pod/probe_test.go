package pod

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestProbe: a readiness probe on a port the container does not declare
// keeps the container unready: a configuration fault named with the port,
// surer when the kubelet's failure events confirm it than from the spec
// alone.
func TestProbe(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api", Namespace: "shop", UID: "p1"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "shop/api:1",
			Ports:          []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt(9090)}}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: false,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-10 * time.Minute))}}}}}}
	unhealthy := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "api.1", Namespace: "shop"}, Type: corev1.EventTypeWarning, Reason: "Unhealthy", Count: 40,
		Message:        `Readiness probe failed: Get "http://10.0.0.7:9090/healthz": dial tcp 10.0.0.7:9090: connect: connection refused`,
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1", FieldPath: "spec.containers{app}"},
		LastTimestamp:  metav1.NewTime(now.Add(-10 * time.Second))}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "api", Namespace: "shop", UID: "p1"}, Pods: []*corev1.Pod{p}, Events: []corev1.Event{unhealthy}}

	f := ruletest.Root(ruletest.Run(Probe, b, now))
	if f == nil || f.Category != rule.Probe.Sub("Readiness", "PortMismatch") || !strings.Contains(f.Culprit, "9090") {
		t.Fatalf("finding %+v", f)
	}
	b.Events = nil
	if spec := ruletest.Root(ruletest.Run(Probe, b, now)); spec == nil || spec.Category != f.Category || spec.Confidence >= f.Confidence {
		t.Errorf("from the spec alone: %+v (with the events: confidence %.2f)", spec, f.Confidence)
	}
}
