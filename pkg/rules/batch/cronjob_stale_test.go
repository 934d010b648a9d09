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

// TestCronJobStaleActiveRun: with concurrencyPolicy Forbid, an active run
// created from an older jobTemplate (its image differs from the current
// one) blocks every new run though the template has been fixed: the stale
// run is the cause. Material: a CronJob whose pod never leaves
// ImagePullBackOff, https://github.com/kubernetes/kubernetes/issues/76570.
// Negative: an active run of the current template is only a run that
// hangs.
func TestCronJobStaleActiveRun(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC)
	started := metav1.NewTime(now.Add(-3 * time.Hour))
	build := func(jobImage string) *bundle.Bundle {
		tpl := func(image string) corev1.PodTemplateSpec {
			return corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "report", Image: image}}}}
		}
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "report", Namespace: "bi", UID: "cj1", CreationTimestamp: metav1.NewTime(now.Add(-48 * time.Hour))},
			Spec: batchv1.CronJobSpec{Schedule: "*/30 * * * *", ConcurrencyPolicy: batchv1.ForbidConcurrent,
				JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: tpl("registry.example.com/bi/report:2.3.1")}}},
			Status: batchv1.CronJobStatus{LastScheduleTime: &started, Active: []corev1.ObjectReference{{Kind: "Job", Name: "report-29411460", Namespace: "bi", UID: "j1"}}}}
		yes := true
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "report-29411460", Namespace: "bi", UID: "j1", CreationTimestamp: started,
			OwnerReferences: []metav1.OwnerReference{{Kind: "CronJob", Name: "report", UID: "cj1", Controller: &yes}}},
			Spec: batchv1.JobSpec{Template: tpl(jobImage)}, Status: batchv1.JobStatus{Active: 1, StartTime: &started}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "CronJob", Name: "report", Namespace: "bi", UID: "cj1"}, CronJobs: []*batchv1.CronJob{cj}, Jobs: []*batchv1.Job{j}}
	}
	f := ruletest.Root(ruletest.Run(CronJob, build("registry.example.com/bi/report:2.3.0-rc1"), now))
	if f == nil || f.Category != "CronJob/ConcurrencyBlocked" || f.Strength != rule.Traced || !strings.Contains(f.Culprit, "report:2.3.0-rc1, the template now has registry.example.com/bi/report:2.3.1") ||
		!strings.Contains(strings.Join(f.Actions[0].Commands, " "), "kubectl delete job report-29411460") {
		t.Fatalf("stale run: %+v", f)
	}
	f = ruletest.Root(ruletest.Run(CronJob, build("registry.example.com/bi/report:2.3.1"), now))
	if f == nil || f.Category != "CronJob/ConcurrencyBlocked" || f.Strength == rule.Traced || strings.Contains(f.Culprit, "older jobTemplate") {
		t.Fatalf("current run: %+v", f)
	}
}
