package batch

import (
	"fmt"
	"strings"
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

// TestJobFailedUnclassifiedCause: a Job past its backoff limit whose pods
// fail on a line no log class knows stays in the Job class (its retries are
// spent), with the pods' line as its culprit. Material: an installer run as
// a container, terraform failing on its state lock, "Error: Error acquiring
// the state lock ... Error 412: At least one of the pre-conditions you
// specified did not hold., conditionNotMet",
// https://github.com/substratusai/runbooks/issues/36. Negative: a line a
// log class explains (knex refusing a corrupt migration directory,
// https://github.com/ZoeyVid/NPMplus/issues/2260) keeps the pods' cause
// the root, the Job its context; so does a pod failure policy, which ends
// the Job on the exit code itself.
func TestJobFailedUnclassifiedCause(t *testing.T) {
	now := time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)
	knexLine := "Error: The migration directory is corrupt, the following files are missing: 20251111090000_redirect_auto_scheme.js"
	build := func(reason string, log string) *bundle.Bundle {
		yes, limit := true, int32(1)
		job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "npm-migrate", Namespace: "proxy", UID: "j1"},
			Spec: batchv1.JobSpec{BackoffLimit: &limit},
			Status: batchv1.JobStatus{Failed: 2, Conditions: []batchv1.JobCondition{{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: reason,
				Message: "Job has reached the specified backoff limit", LastTransitionTime: metav1.NewTime(now.Add(-time.Minute))}}}}
		b := &bundle.Bundle{Target: fault.Resource{Kind: "Job", Name: "npm-migrate", Namespace: "proxy", UID: "j1"}, Jobs: []*batchv1.Job{job}}
		for i, sfx := range []string{"k2x7p", "m9q4d"} {
			name := "npm-migrate-" + sfx
			b.Pods = append(b.Pods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "proxy", UID: types.UID("p" + sfx),
				OwnerReferences: []metav1.OwnerReference{{Kind: "Job", Name: "npm-migrate", UID: "j1", Controller: &yes}}},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "migrate", Image: "zoeyvid/npmplus:latest"}}},
				Status: corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{Name: "migrate",
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(now.Add(-time.Duration(2+i) * time.Minute))}}}}}})
			b.Logs = append(b.Logs, bundle.ContainerLog{Namespace: "proxy", Pod: name, Container: "migrate", Text: log})
		}
		return b
	}
	tf := "Error: Error acquiring the state lock\n\nError message: writing \"gs://myproject-substratus-terraform/primary/default.tflock\" failed: googleapi: Error 412: At least one of the pre-conditions you specified did not hold., conditionNotMet\nLock Info:\n  Path:      gs://myproject-substratus-terraform/primary/default.tflock\n  Operation: OperationTypeApply\n"
	f := ruletest.Root(ruletest.Run(JobFailed, build("BackoffLimitExceeded", tf), now))
	if f == nil || f.Context || f.Strength != rule.Explained || !strings.HasPrefix(string(f.Category), "Job/BackoffLimitExceeded") ||
		!strings.Contains(f.Culprit, "default.tflock\" failed: googleapi: Error 412") || !strings.Contains(f.Title, "all 2 attempts failed the same way") {
		t.Fatalf("unclassified pod cause: %+v", f)
	}
	if f := ruletest.Root(ruletest.Run(JobFailed, build("PodFailurePolicy", tf), now)); f == nil || !f.Context {
		t.Fatalf("pod failure policy: %+v", f)
	}
	knex := fmt.Sprintf("[Global   ] › ✖  error     %s\n    at validateMigrationList (/app/node_modules/knex/lib/migrations/migrate/Migrator.js:567:11)\n", knexLine)
	if f := ruletest.Root(ruletest.Run(JobFailed, build("BackoffLimitExceeded", knex), now)); f == nil || !f.Context {
		t.Fatalf("classified pod cause: %+v", f)
	}
}
