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

// TestJobFailed: a Job past its backoff limit whose pod has a cause of its
// own (read from the pod-level rules it requires) is that cause's context:
// it says the Job will not retry; without its pods, the Job's status is the
// finding.
func TestJobFailed(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	yes, limit := true, int32(2)
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "import", Namespace: "shop", UID: "j1"},
		Spec: batchv1.JobSpec{BackoffLimit: &limit},
		Status: batchv1.JobStatus{Failed: 3, Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded",
			Message: "Job has reached the specified backoff limit", LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "import-x7k2p", Namespace: "shop", UID: "p1",
		OwnerReferences: []metav1.OwnerReference{{Kind: "Job", Name: "import", UID: "j1", Controller: &yes}}},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "app", Image: "shop/import:1"}}},
		Status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{Name: "app",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-2 * time.Minute))}}}}}}
	target := func(pods ...*corev1.Pod) *bundle.Bundle {
		return &bundle.Bundle{Target: fault.Resource{Kind: "Job", Name: "import", Namespace: "shop", UID: "j1"}, Jobs: []*batchv1.Job{job}, Pods: pods,
			Logs: []bundle.ContainerLog{{Namespace: "shop", Pod: pod.Name, Container: "app", Text: "open /data/batch-7.csv: no such file or directory\n"}}}
	}

	fs := ruletest.Run(JobFailed, target(pod), now)
	if len(fs) != 1 || !fs[0].Context || !strings.HasPrefix(string(fs[0].Category), "Job/BackoffLimitExceeded") || !strings.Contains(strings.Join(fs[0].Contributing, " "), "must be run again") {
		t.Fatalf("with the failed pod: %+v", fs)
	}
	f := ruletest.Root(ruletest.Run(JobFailed, target(), now))
	if f == nil || f.Context || f.Category.Root() != rule.Job {
		t.Fatalf("without its pods: %+v", f)
	}
}

// TestJobFailedDeadlineWithPod: a Job past its activeDeadlineSeconds whose
// pod the controller terminated (exit 143) is explained by the deadline,
// not by the SIGTERM the deadline caused.
func TestJobFailedDeadlineWithPod(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	yes, deadline := true, int64(600)
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "export", Namespace: "bi", UID: "j1"},
		Spec: batchv1.JobSpec{ActiveDeadlineSeconds: &deadline},
		Status: batchv1.JobStatus{Failed: 1, StartTime: &metav1.Time{Time: now.Add(-12 * time.Minute)}, Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue,
			Reason: "DeadlineExceeded", Message: "Job was active longer than specified deadline", LastTransitionTime: metav1.NewTime(now.Add(-2 * time.Minute))}}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "export-q8z7k", Namespace: "bi", UID: "p1",
		OwnerReferences: []metav1.OwnerReference{{Kind: "Job", Name: "export", UID: "j1", Controller: &yes}}},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "export", Image: "bi/export:2"}}},
		Status: corev1.PodStatus{Phase: corev1.PodFailed, Reason: "DeadlineExceeded", ContainerStatuses: []corev1.ContainerStatus{{Name: "export",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 143, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-2 * time.Minute))}}}}}}
	b := &bundle.Bundle{Target: fault.Resource{Kind: "Job", Name: "export", Namespace: "bi", UID: "j1"}, Jobs: []*batchv1.Job{job}, Pods: []*corev1.Pod{pod}}
	f := ruletest.Root(ruletest.Run(JobFailed, b, now))
	if f == nil || !strings.Contains(f.Title, "activeDeadlineSeconds (600s)") || !strings.Contains(f.Culprit, "spec.activeDeadlineSeconds") {
		t.Fatalf("got %+v", f)
	}
}
