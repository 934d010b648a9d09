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

// TestRunningErrorsSaysReady: the finding says what was observed, Ready or
// not, and a container not Ready for a failing readiness probe leaves the
// readiness path (pod/probe) ahead of it.
func TestRunningErrorsSaysReady(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	var log string
	for i := 0; i < 5; i++ {
		log += now.Add(time.Duration(i-5)*time.Minute).Format(time.RFC3339Nano) + " 2026-11-21T14:5" + string(rune('0'+i)) + ":00.000Z [ERROR] core: failed to retry join raft cluster: retry=2s\n"
	}
	for _, ready := range []bool{true, false} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "vault-1", Namespace: "ns", UID: "p1"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "vault", Image: "vault"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "vault", Ready: ready,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(now.Add(-time.Hour))}}}}}}
		ev := corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "vault-1.1", Namespace: "ns"}, Type: corev1.EventTypeWarning, Reason: "Unhealthy", Count: 100,
			Message:        "Readiness probe failed: Sealed true",
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "vault-1", Namespace: "ns", UID: "p1", FieldPath: "spec.containers{vault}"},
			FirstTimestamp: metav1.NewTime(now.Add(-18 * time.Minute)), LastTimestamp: metav1.NewTime(now.Add(-10 * time.Second))}
		b := &bundle.Bundle{Target: fault.Resource{Kind: "Pod", Name: "vault-1", Namespace: "ns", UID: "p1"}, Pods: []*corev1.Pod{p}, Events: []corev1.Event{ev},
			Logs: []bundle.ContainerLog{{Namespace: "ns", Pod: "vault-1", Container: "vault", Text: log}}}
		f := ruletest.Root(ruletest.Run(RunningErrors, b, now))
		if f == nil {
			t.Fatalf("ready=%v: no finding", ready)
		}
		text := f.Title + " " + f.Summary + " " + f.Mechanism
		saysReady := strings.Contains(text, "Running and Ready") || strings.Contains(text, "running and Ready")
		if saysReady != ready {
			t.Errorf("ready=%v, the finding says %q", ready, text)
		}
		if !ready && f.Confidence >= rule.Probable {
			t.Errorf("not Ready with a failing readiness probe: confidence %v, want below the probe's %v", f.Confidence, rule.Probable)
		}
	}
}
