package batch

import (
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestCronJob: an hourly CronJob suspended for a day has skipped its runs
// (a fault); one paused minutes ago is someone's deliberate pause; one
// whose schedule the controller rejects (its event says so) never runs.
func TestCronJob(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	target := func(schedule string, suspend bool, lastRun time.Time) *bundle.Bundle {
		last := metav1.NewTime(lastRun)
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "shop", UID: "cj1", CreationTimestamp: metav1.NewTime(now.Add(-72 * time.Hour))},
			Spec: batchv1.CronJobSpec{Schedule: schedule, Suspend: &suspend}, Status: batchv1.CronJobStatus{LastScheduleTime: &last}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "CronJob", Name: "nightly", Namespace: "shop", UID: "cj1"}, CronJobs: []*batchv1.CronJob{cj}}
	}
	withEvent := func(b *bundle.Bundle, reason, msg string) *bundle.Bundle {
		b.Events = append(b.Events, corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "nightly.1", Namespace: "shop"}, Type: corev1.EventTypeWarning, Reason: reason, Message: msg,
			InvolvedObject: corev1.ObjectReference{Kind: "CronJob", Name: "nightly", Namespace: "shop", UID: "cj1"}, LastTimestamp: metav1.NewTime(now.Add(-time.Minute))})
		return b
	}
	validated := func(fs []rule.Finding) []rule.Category {
		var out []rule.Category
		for _, f := range fs {
			if f.Verdict == report.Validated {
				out = append(out, f.Category)
			}
		}
		return out
	}
	for _, tt := range []struct {
		name string
		b    *bundle.Bundle
		want []rule.Category
	}{
		{"suspended a day", target("0 * * * *", true, now.Add(-24*time.Hour)), []rule.Category{rule.CronJob.Sub("Suspended")}},
		{"just paused", target("0 * * * *", true, now.Add(-10*time.Minute)), nil},
		{"running on time", target("0 * * * *", false, now.Add(-10*time.Minute)), nil},
		{"schedule rejected", withEvent(target("61 * * * *", false, now.Add(-48*time.Hour)), "UnparseableSchedule", `unparseable schedule: "61 * * * *" : end of range (61) above maximum (59): 61`), []rule.Category{rule.CronJob.Sub("InvalidSchedule")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := validated(ruletest.Run(CronJob, tt.b, now))
			if len(got) != len(tt.want) || len(got) > 0 && got[0] != tt.want[0] {
				t.Errorf("validated %v, want %v", got, tt.want)
			}
		})
	}
}
