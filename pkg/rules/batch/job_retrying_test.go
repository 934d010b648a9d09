package batch

import (
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule/ruletest"
)

// TestJobRetrying: a Job still running with failed pods says how many of
// its retries are used; a suspended Job, or one without failures, says
// nothing.
func TestJobRetrying(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	limit := int32(6)
	target := func(failed int32, suspend bool) *bundle.Bundle {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "import", Namespace: "shop", UID: "j1", CreationTimestamp: metav1.NewTime(now.Add(-10 * time.Minute))},
			Spec: batchv1.JobSpec{BackoffLimit: &limit, Suspend: &suspend}, Status: batchv1.JobStatus{Active: 1, Failed: failed}}
		return &bundle.Bundle{Target: fault.Resource{Kind: "Job", Name: "import", Namespace: "shop", UID: "j1"}, Jobs: []*batchv1.Job{j}}
	}
	f := ruletest.Root(ruletest.Run(JobRetrying, target(2, false), now))
	if f == nil || f.Category.Root() != rule.Job || !strings.Contains(f.Title+strings.Join(f.Contributing, " "), "6") {
		t.Fatalf("two failures of six: %+v", f)
	}
	for name, b := range map[string]*bundle.Bundle{"suspended": target(2, true), "no failure": target(0, false)} {
		if fs := ruletest.Run(JobRetrying, b, now); len(fs) != 0 {
			t.Errorf("%s: %+v", name, fs)
		}
	}
}
