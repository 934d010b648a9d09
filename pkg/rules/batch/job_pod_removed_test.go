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
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestJobPodRemoved: a failed Job whose pods are gone is explained by the
// deleted pod's own events when something removed it. Material: the
// cluster autoscaler's "ScaleDown: deleting pod for node scale down" on a
// Metaflow step's pod (https://github.com/Netflix/metaflow/issues/1371,
// https://github.com/kubernetes/kubernetes/issues/94435); the scheduler's
// "Preempted by pod …" (pkg/scheduler/framework/preemption in
// https://github.com/kubernetes/kubernetes). Negatives: a deleted pod
// whose events name no remover (a TTL), the pod still present.
func TestJobPodRemoved(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	zero := int32(0)
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "t-a4f2c9e1", Namespace: "ml", UID: "j1"},
		Spec: batchv1.JobSpec{BackoffLimit: &zero},
		Status: batchv1.JobStatus{Failed: 1, Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: "BackoffLimitExceeded",
			Message: "Job has reached the specified backoff limit", LastTransitionTime: metav1.NewTime(now.Add(-27 * time.Minute))}}}}
	ev := func(kind, name, reason, component, msg string, ago time.Duration) corev1.Event {
		return corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name + "." + reason, Namespace: "ml"}, Type: corev1.EventTypeNormal, Reason: reason, Message: msg, Count: 1,
			Source: corev1.EventSource{Component: component}, InvolvedObject: corev1.ObjectReference{Kind: kind, Name: name, Namespace: "ml"},
			FirstTimestamp: metav1.NewTime(now.Add(-ago)), LastTimestamp: metav1.NewTime(now.Add(-ago))}
	}
	created := ev("Job", "t-a4f2c9e1", "SuccessfulCreate", "job-controller", "Created pod: t-a4f2c9e1-xk7vq", 34*time.Minute)
	tests := []struct {
		name   string
		events []corev1.Event
		pods   []*corev1.Pod
		want   string // category, "" when the removal is not the finding
		names  []string
	}{
		{"autoscaler scale-down", []corev1.Event{created, ev("Pod", "t-a4f2c9e1-xk7vq", "ScaleDown", "cluster-autoscaler", "deleting pod for node scale down", 27*time.Minute)}, nil,
			"Job/BackoffLimitExceeded/PodRemoved/ScaleDown", []string{"cluster-autoscaler", "t-a4f2c9e1-xk7vq", "safe-to-evict"}},
		{"preempted", []corev1.Event{created, ev("Pod", "t-a4f2c9e1-xk7vq", "Preempted", "default-scheduler", "Preempted by pod 5c8e1f2a-… on node n1", 27*time.Minute)}, nil,
			"Job/BackoffLimitExceeded/PodRemoved/Preempted", []string{"default-scheduler", "PriorityClass"}},
		{"deleted with no remover named", []corev1.Event{created, ev("Pod", "t-a4f2c9e1-xk7vq", "Killing", "kubelet", "Stopping container main", 27*time.Minute)}, nil, "", nil},
		{"the pod is still there", []corev1.Event{created, ev("Pod", "t-a4f2c9e1-xk7vq", "ScaleDown", "cluster-autoscaler", "deleting pod for node scale down", 27*time.Minute)},
			[]*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "t-a4f2c9e1-xk7vq", Namespace: "ml"}}}, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &bundle.Bundle{Target: fault.Resource{Kind: "Job", Name: "t-a4f2c9e1", Namespace: "ml", UID: "j1"}, Jobs: []*batchv1.Job{job}, Events: tt.events, Pods: tt.pods}
			f := ruletest.Root(ruletest.Run(JobFailed, b, now))
			if f == nil {
				t.Fatal("no finding")
			}
			if got := strings.Contains(string(f.Category), "PodRemoved"); got != (tt.want != "") || tt.want != "" && string(f.Category) != tt.want {
				t.Fatalf("category %s, want %q", f.Category, tt.want)
			}
			text := f.Title + "\n" + f.Culprit
			for _, a := range f.Actions {
				text += "\n" + a.Description
			}
			for _, n := range tt.names {
				if !strings.Contains(text, n) {
					t.Errorf("finding does not name %q:\n%s", n, text)
				}
			}
		})
	}
}
