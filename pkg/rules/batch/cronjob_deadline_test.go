package batch

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestCronJobPastDeadline: a start time that passed beyond
// startingDeadlineSeconds without a run is skipped for good, and the
// controller records no event for it. Material: the CronJob documentation's
// own example, a job due at 08:30:00 with startingDeadlineSeconds 10 and
// the controller down from 08:29:00 to 08:42:00: "the job will not start",
// https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ (as
// worded in https://github.com/kubernetes/website/pull/11512).
func TestCronJobPastDeadline(t *testing.T) {
	yesterday := time.Date(2026, 11, 29, 8, 30, 0, 0, time.UTC)
	target := func(deadline *int64) *bundle.Bundle {
		last := metav1.NewTime(yesterday)
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "report", Namespace: "ops", UID: "cj1", CreationTimestamp: metav1.NewTime(yesterday.Add(-72 * time.Hour))},
			Spec: batchv1.CronJobSpec{Schedule: "30 8 * * *", StartingDeadlineSeconds: deadline}, Status: batchv1.CronJobStatus{LastScheduleTime: &last}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "CronJob", Name: "report", Namespace: "ops", UID: "cj1"}, CronJobs: []*batchv1.CronJob{cj}}
	}
	ten, halfHour := int64(10), int64(1800)
	today := yesterday.Add(24 * time.Hour)
	for _, tt := range []struct {
		name     string
		deadline *int64
		now      time.Time
		want     bool
	}{
		{"controller back at 08:42, deadline 10 s: skipped for good", &ten, today.Add(12 * time.Minute), true},
		{"deadline of 30 minutes still open at 08:42", &halfHour, today.Add(12 * time.Minute), false},
		{"no deadline: the controller still starts it late", nil, today.Add(12 * time.Minute), false},
		{"before the run is due", &ten, today.Add(-time.Minute), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := ruletest.Root(ruletest.Run(CronJob, target(tt.deadline), tt.now))
			if !tt.want {
				if f != nil {
					t.Fatalf("want no finding, got %s: %s", f.Category, f.Title)
				}
				return
			}
			if f == nil || f.Category != "CronJob/MissedSchedules" || !strings.Contains(f.Culprit, "startingDeadlineSeconds") || !strings.Contains(f.Title, "2026-11-30") {
				t.Fatalf("want CronJob/MissedSchedules naming startingDeadlineSeconds and the skipped time, got %+v", f)
			}
		})
	}
}
