package batch

import (
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"
)

// JobRetrying is the rule batch/job-retrying.
var JobRetrying = &rule.Rule{
	Meta: rule.Meta{
		ID:       "batch/job-retrying",
		Kinds:    []string{"Job"},
		Layer:    rule.WorkloadLayer,
		Requires: workload.PodLevel,
		Needs:    workload.Needs,
		Doc:      "A Job still retrying failed pods before its backoff limit.",
	},
	Check: checkJobRetrying,
}

// jobRetries is how far a Job that has not given up is from its
// backoffLimit.
type jobRetries struct {
	failed   int32 // failed pods (status.failed)
	restarts int32 // container restarts of its live pods, counted with restartPolicy OnFailure
	limit    int32
	perIndex bool // backoffLimitPerIndex: the limit applies to each index
	// failAt is the count at which the Job controller marks the Job
	// Failed; count is where it stands.
	failAt, count int32
	onFailure     bool
}

// retriesOf reads the failures the Job controller weighs against the
// backoffLimit: with restartPolicy Never a Job fails once more pods failed
// than backoffLimit; with OnFailure the restarts of its running pods count
// too, and reaching backoffLimit is enough.
func retriesOf(c *rule.Pass, j *batchv1.Job) jobRetries {
	r := jobRetries{failed: j.Status.Failed, limit: BackoffLimit(j)}
	if j.Spec.BackoffLimitPerIndex != nil {
		r.perIndex, r.limit = true, *j.Spec.BackoffLimitPerIndex
	}
	r.onFailure = j.Spec.Template.Spec.RestartPolicy == corev1.RestartPolicyOnFailure
	if r.onFailure {
		for _, p := range kube.PodsOf(c, j.UID) {
			if p.Status.Phase != corev1.PodPending && p.Status.Phase != corev1.PodRunning {
				continue
			}
			for _, cs := range kube.AllStatuses(p) {
				r.restarts += cs.Status.RestartCount
			}
		}
	}
	r.count, r.failAt = r.failed, r.limit+1
	if r.onFailure && r.restarts > 0 {
		r.count, r.failAt = r.restarts, max(r.limit, 1)
	}
	return r
}

// progress says where the Job stands, e.g. "3 of the 6 failures its
// backoffLimit allows".
func (r jobRetries) progress() string {
	switch {
	case r.perIndex:
		return fmt.Sprintf("%d failed pod(s) so far, with backoffLimitPerIndex %d (each index is retried up to %d time(s))", r.failed, r.limit, r.limit)
	case r.onFailure && r.restarts > 0:
		return fmt.Sprintf("%d container restart(s) of its running pods and %d failed pod(s) so far, against a backoffLimit of %d", r.restarts, r.failed, r.limit)
	}
	return fmt.Sprintf("%d of the %d failures its backoffLimit allows", r.failed, r.limit)
}

// atLimit says what happens when the limit is reached.
func (r jobRetries) atLimit(j *batchv1.Job) string {
	then := "the Job controller marks the Job Failed (BackoffLimitExceeded): it creates no more pods, terminates the running ones, and the Job has to be run again once the cause is fixed"
	switch {
	case r.perIndex:
		return fmt.Sprintf("An index whose pods fail more than %d time(s) is marked failed and not retried (status.failedIndexes%s); once its other indexes are done the Job ends Failed.", r.limit, failedIndexesText(j))
	case r.onFailure && r.restarts > 0:
		left := r.failAt - r.count
		if left <= 0 {
			return "The restarts have reached the limit: at its next sync " + then + "."
		}
		return fmt.Sprintf("After %d more restart(s) (%d in all) %s.", left, r.failAt, then)
	}
	left := r.failAt - r.count
	if left <= 0 {
		return "The failures have passed the limit: at its next sync " + then + "."
	}
	return fmt.Sprintf("At the %s failure, %d more from now, %s.", ordinal(r.failAt), left, then)
}

func failedIndexesText(j *batchv1.Job) string {
	if j.Status.FailedIndexes == nil || *j.Status.FailedIndexes == "" {
		return ", none so far"
	}
	return ": " + *j.Status.FailedIndexes
}

func ordinal(n int32) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// jobGivingUp: a FailureTarget condition means the controller has
// already decided the Job fails and is terminating its pods.
func jobGivingUp(j *batchv1.Job) bool {
	for _, cond := range j.Status.Conditions {
		if cond.Type == batchv1.JobFailureTarget && cond.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// checkJobRetrying: a Job whose pods fail while it still retries. The
// failed pods' own cause is the root cause when a pod rule explains it;
// this finding adds the Job's side: how many failures so far, how many
// are left, and what happens at the limit.
func checkJobRetrying(c *rule.Pass) []rule.Finding {
	j := kube.TargetOf(c, "Job", c.B.Jobs)
	if j == nil || jobGivingUp(j) || j.Spec.Suspend != nil && *j.Spec.Suspend {
		return nil
	}
	if _, done := kube.JobFinished(j); done {
		return nil
	}
	r := retriesOf(c, j)
	if r.failed == 0 && r.restarts == 0 {
		return nil
	}
	return []rule.Finding{retryingFinding(c, j, r)}
}

func retryingFinding(c *rule.Pass, j *batchv1.Job, r jobRetries) rule.Finding {
	a := analyzeJob(c, j)
	f := rule.Finding{Category: rule.Job.Sub("Retrying"), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: j.Name, Evidence: a.evidence}
	active := fmt.Sprintf("%d pod(s) active", j.Status.Active)
	if j.Status.Active == 0 {
		// Between two attempts the controller waits out its back-off:
		// 10s doubled per failure, capped at 6 minutes.
		wait := min(10*time.Second<<min(max(r.failed-1, 0), 6), 6*time.Minute)
		active = fmt.Sprintf("no pod runs right now: the controller waits about %s after a failure before it creates the next", kube.HumanDuration(wait))
	}
	state := fmt.Sprintf("job %s is retrying (%s)", j.Name, r.progress())
	f.Hypothesis = fmt.Sprintf("The pods of Job %s keep failing and it retries toward its backoffLimit", j.Name)
	f.Mechanism = "A Job replaces each failed pod with a new one after an exponential back-off (10s, 20s, 40s… capped at 6 minutes) and counts the failures against spec.backoffLimit; past the limit it marks the Job Failed (BackoffLimitExceeded) and creates no more pods. Until then the Job stays active and, while the cause persists, each retry fails the same way."
	f.Contributing = append(f.Contributing,
		fmt.Sprintf("Job %s is retrying: %s; %s.", j.Name, r.progress(), active),
		r.atLimit(j))
	if d := j.Spec.ActiveDeadlineSeconds; d != nil && j.Status.StartTime != nil {
		end := j.Status.StartTime.Add(time.Duration(*d) * time.Second)
		f.Contributing = append(f.Contributing, fmt.Sprintf("Its activeDeadlineSeconds (%ds) ends it at %s (in %s) whatever the failures, with reason DeadlineExceeded.", *d, kube.Stamp(end), kube.HumanDuration(end.Sub(c.Now))))
	}
	switch {
	case a.cause != nil:
		// The failed pods' own finding is the root cause: this one is the
		// Job's side of it and ranks below.
		f.Context = true
		f.Confidence = rule.Even
		f.Title = fmt.Sprintf("%s: %s", state, a.detail)
		f.Summary = fmt.Sprintf("Job %s has not failed yet but its pods do: %s. %s", j.Name, a.detail, r.atLimit(j))
		f.Culprit = a.culprit
	case a.confident:
		f.Strength = rule.Explained
		f.Confidence = a.podConfidence()
		if a.suffix != "" {
			f.Category = f.Category.Sub(a.suffix)
		}
		f.Title = fmt.Sprintf("%s: %s", state, a.detail)
		f.Summary = fmt.Sprintf("Job %s has not failed yet but its pods do: %s. %s", j.Name, a.detail, r.atLimit(j))
		f.Culprit = a.culprit
	default:
		f.Confidence = rule.Moderate
		why := "its failed pods were not collected, so why they failed is not known"
		if len(a.pods) == 0 {
			why = "its pods are gone, so why they failed is not known"
		}
		f.Title = fmt.Sprintf("%s; %s", state, why)
		f.Summary = fmt.Sprintf("Job %s has not failed yet but %d of its pods did; %s. %s", j.Name, r.failed, why, r.atLimit(j))
		f.Culprit = fmt.Sprintf("job/%s (%d failed pod(s), backoffLimit %d)", j.Name, r.failed, r.limit)
	}
	fix := report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Fix what makes the pods fail before Job %s reaches its backoffLimit: until then every retry fails the same way, and past it the Job is Failed for good.", j.Name),
		Commands:    []string{fmt.Sprintf("kubectl get pods -n %s -l batch.kubernetes.io/job-name=%s", j.Namespace, j.Name)}}
	if p := a.causePod; p != nil {
		fix.Commands = append(fix.Commands, fmt.Sprintf("kubectl logs %s -n %s --all-containers --tail=50", p.Name, p.Namespace))
	} else if a.exit != nil {
		fix.Commands = append(fix.Commands, fmt.Sprintf("kubectl logs %s -n %s -c %s --tail=50", a.exit.pod.Name, j.Namespace, a.exit.container))
	}
	f.Actions = []report.Action{fix,
		{Kind: report.Immediate, Description: "To stop the retries while the cause is being fixed, suspend the Job; set suspend back to false to resume it.",
			Commands: []string{fmt.Sprintf(`kubectl patch job %s -n %s --type=merge -p '{"spec":{"suspend":true}}'`, j.Name, j.Namespace)},
			Risk:     "suspending terminates the Job's running pods: their unfinished work is lost"},
		{Kind: report.Check, Description: "Read the Job's events and its pods' states.",
			Commands: []string{fmt.Sprintf("kubectl describe job %s -n %s", j.Name, j.Namespace)}},
	}
	return f
}
