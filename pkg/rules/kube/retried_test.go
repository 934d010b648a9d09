package kube

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
)

// TestRetriedAttempt: a failed pod of a Job that then completed is history;
// one of a Job that failed, is still running, or belongs to another Job,
// or that failed after the completion, is not.
func TestRetriedAttempt(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	at := func(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }
	job := func(cond batchv1.JobConditionType) *batchv1.Job {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "job-pod-failure-policy-ignore", Namespace: "batch", UID: "j1"}}
		if cond != "" {
			j.Status.Conditions = []batchv1.JobCondition{{Type: cond, Status: corev1.ConditionTrue, LastTransitionTime: at(10 * time.Minute)}}
		}
		return j
	}
	pod := func(owner string, finished time.Duration) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "job-pod-failure-policy-ignore-x2k", Namespace: "batch", OwnerReferences: []metav1.OwnerReference{{Kind: "Job", UID: "j1", Name: owner}}},
			Status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{Name: "main",
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", FinishedAt: at(finished)}}}}}}
	}
	other := pod("other", 20*time.Minute)
	other.OwnerReferences[0].UID = "j2"
	for _, tt := range []struct {
		name string
		job  *batchv1.Job
		pod  *corev1.Pod
		want bool
	}{
		// kubernetes/website content/en/docs/tasks/job/pod-failure-policy.md:
		// a pod of the Job disrupted (deleted, SIGKILL) is recreated and the
		// Job completes.
		{"disrupted attempt, Job complete", job(batchv1.JobComplete), pod("j", 20*time.Minute), true},
		{"Job failed", job(batchv1.JobFailed), pod("j", 20*time.Minute), false},
		{"Job still running", job(""), pod("j", 20*time.Minute), false},
		{"another Job's pod", job(batchv1.JobComplete), other, false},
		{"failed after the completion", job(batchv1.JobComplete), pod("j", 5*time.Minute), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Job", Name: tt.job.Name, Namespace: "batch", UID: "j1"}, Jobs: []*batchv1.Job{tt.job}, Pods: []*corev1.Pod{tt.pod}}
			if got := RetriedAttempt(rule.NewPass(b, now, nil), tt.pod); got != tt.want {
				t.Errorf("RetriedAttempt = %v, want %v", got, tt.want)
			}
		})
	}
}
