package batch

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestJobSidecar: an active Job whose pod's work container exited 0 a while
// ago while its sidecar (istio-proxy) keeps running is Job/Sidecar naming
// the sidecar; a pod still working, a failed work container, or an exit a
// few seconds ago gives none.
func TestJobSidecar(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	yes := true
	ago := func(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }
	term := func(name string, code int32, finished time.Duration) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, StartedAt: ago(34 * time.Minute), FinishedAt: ago(finished)}}}
	}
	run := func(name string) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ago(34 * time.Minute)}}}
	}
	target := func(statuses ...corev1.ContainerStatus) *bundle.Bundle {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "backup", Namespace: "ops", UID: "j1"}, Status: batchv1.JobStatus{Active: 1, StartTime: ptrTime(ago(34 * time.Minute))}}
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "backup-7hrx7", Namespace: "ops", UID: "p1",
			OwnerReferences: []metav1.OwnerReference{{Kind: "Job", Name: "backup", UID: "j1", Controller: &yes}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: statuses}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Job", Name: "backup", Namespace: "ops", UID: "j1"}, Jobs: []*batchv1.Job{j}, Pods: []*corev1.Pod{p}}
	}
	f := ruletest.Root(ruletest.Run(JobSidecar, target(term("backup", 0, 31*time.Minute), run("istio-proxy")), now))
	if f == nil || f.Category != rule.Job.Sub("Sidecar") || !strings.Contains(f.Culprit, "istio-proxy") || len(f.Actions) != 2 {
		t.Fatalf("held by istio-proxy: %+v", f)
	}
	for name, b := range map[string]*bundle.Bundle{
		"still working":     target(run("backup"), run("istio-proxy")),
		"work failed":       target(term("backup", 1, 31*time.Minute), run("istio-proxy")),
		"just finished":     target(term("backup", 0, 10*time.Second), run("istio-proxy")),
		"all containers ok": target(term("backup", 0, 31*time.Minute)),
	} {
		if fs := ruletest.Run(JobSidecar, b, now); len(fs) != 0 {
			t.Errorf("%s: %+v", name, fs)
		}
	}
}

func ptrTime(t metav1.Time) *metav1.Time { return &t }
