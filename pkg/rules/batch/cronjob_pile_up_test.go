package batch

import (
	"fmt"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestCronJobRunsPileUp: with concurrencyPolicy Allow, runs of a
// ten-minute schedule that each take longer than ten minutes accumulate;
// Forbid lets none start while one runs, so nothing piles up.
func TestCronJobRunsPileUp(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	yes := true
	target := func(policy batchv1.ConcurrencyPolicy) *bundle.Bundle {
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "feed-sync", Namespace: "shop", UID: "cj1"},
			Spec: batchv1.CronJobSpec{Schedule: "*/10 * * * *", ConcurrencyPolicy: policy}}
		b := &bundle.Bundle{Target: fault.Resource{Kind: "CronJob", Name: "feed-sync", Namespace: "shop", UID: "cj1"}, CronJobs: []*batchv1.CronJob{cj}}
		for i, age := range []time.Duration{35, 25, 15, 5} {
			started := metav1.NewTime(now.Add(-age * time.Minute))
			j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("feed-sync-%d", i), Namespace: "shop", UID: types.UID(fmt.Sprintf("j%d", i)), CreationTimestamp: started,
				OwnerReferences: []metav1.OwnerReference{{Kind: "CronJob", Name: "feed-sync", UID: "cj1", Controller: &yes}}},
				Status: batchv1.JobStatus{Active: 1, StartTime: &started}}
			b.Jobs = append(b.Jobs, j)
			cj.Status.Active = append(cj.Status.Active, corev1.ObjectReference{Kind: "Job", Name: j.Name, UID: j.UID})
		}
		return b
	}
	f := ruletest.Root(ruletest.Run(CronJobRunsPileUp, target(batchv1.AllowConcurrent), now))
	if f == nil || f.Category != rule.CronJob.Sub("RunsPileUp") {
		t.Fatalf("Allow: %+v", f)
	}
	if fs := ruletest.Run(CronJobRunsPileUp, target(batchv1.ForbidConcurrent), now); len(fs) != 0 {
		t.Errorf("Forbid: %+v", fs)
	}
}
