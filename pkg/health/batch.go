package health

import (
	"slices"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/batch"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

var jobOutcome = &Check{
	ID: "job/outcome", Kinds: []string{"Job"},
	Doc: "The Job completed, or runs without a failed pod; a suspended Job is noted.",
	Run: func(c *rule.Pass) []Result {
		j := kube.TargetOf(c, "Job", c.B.Jobs)
		if j == nil {
			return nil
		}
		var out []Result
		cond, done := kube.JobFinished(j)
		switch {
		case done && cond.Type == batchv1.JobFailed:
			out = append(out, fail("Condition Failed=True (%s) since %s: %s", cond.Reason, kube.Stamp(cond.LastTransitionTime.Time), cond.Message))
		case !done && j.Status.Failed > 0:
			out = append(out, fail("Job %s has %d failed pod(s) so far and is still running (backoffLimit %d, %d active)", j.Name, j.Status.Failed, batch.BackoffLimit(j), j.Status.Active))
		case done:
			out = append(out, pass("Job %s completed (%d succeeded)", j.Name, j.Status.Succeeded))
		default:
			out = append(out, pass("Job %s is running with no failed pod (%d active)", j.Name, j.Status.Active))
		}
		if j.Spec.Suspend != nil && *j.Spec.Suspend && !done {
			out = append(out, note("Job %s is suspended (spec.suspend=true): it starts no pods", j.Name))
		}
		return out
	},
}

var cronJobRuns = &Check{
	ID: "cronjob/runs", Kinds: []string{"CronJob"},
	Doc: "The last finished run succeeded, no run outlives the period between runs, and no two scheduled runs are missing; a suspended CronJob is noted.",
	Run: func(c *rule.Pass) []Result {
		cj := kube.TargetOf(c, "CronJob", c.B.CronJobs)
		if cj == nil {
			return nil
		}
		var out []Result
		suspended := cj.Spec.Suspend != nil && *cj.Spec.Suspend
		if suspended {
			// A pause may be deliberate: the rule decides when it is a fault.
			out = append(out, note("CronJob %s is suspended (spec.suspend=true); its last run was scheduled %s", cj.Name, kube.StampPtr(cj.Status.LastScheduleTime)))
		}
		jobs := batch.JobsOf(c, cj) // newest first
		for _, j := range jobs {
			if cond, done := kube.JobFinished(j); done {
				if cond.Type == batchv1.JobFailed {
					out = append(out, fail("The last finished run of CronJob %s, job %s, failed (%s): %s", cj.Name, j.Name, cond.Reason, cond.Message))
				} else {
					out = append(out, pass("The last finished run of CronJob %s, job %s, succeeded", cj.Name, j.Name))
				}
				break
			}
		}
		sched, err := batch.ParseCron(cj.Spec.Schedule, cj.Spec.TimeZone)
		if err != nil {
			return out // the rule reads the controller's own verdict on the schedule
		}
		if period := sched.Period(c.Now); period > 0 {
			for _, j := range jobs {
				active := slices.ContainsFunc(cj.Status.Active, func(ref corev1.ObjectReference) bool { return ref.Name == j.Name })
				started := j.CreationTimestamp.Time
				if j.Status.StartTime != nil {
					started = j.Status.StartTime.Time
				}
				if active && c.Now.Sub(started) > period {
					out = append(out, fail("Job %s of CronJob %s has been running for %s, longer than the %s between its scheduled runs", j.Name, cj.Name, kube.HumanDuration(c.Now.Sub(started)), kube.HumanDuration(period)))
				}
			}
		}
		missed := sched.Missed(batch.LastRun(cj), c.Now)
		skipped := sched.PastDeadline(batch.LastRun(cj), c.Now, cj.Spec.StartingDeadlineSeconds)
		switch {
		case suspended:
		case missed >= 2:
			out = append(out, fail("CronJob %s has started no run since %s: %s%d scheduled run(s) of %q are missing", cj.Name, kube.Stamp(batch.LastRun(cj)), batch.AtLeast(missed, 1000), missed, cj.Spec.Schedule))
		case !skipped.IsZero():
			out = append(out, fail("CronJob %s started no run for its start time %s, and its startingDeadlineSeconds (%d) has passed: that run is skipped for good", cj.Name, kube.Stamp(skipped), *cj.Spec.StartingDeadlineSeconds))
		default:
			out = append(out, pass("CronJob %s starts its runs on schedule %q (last %s)", cj.Name, cj.Spec.Schedule, kube.Stamp(batch.LastRun(cj))))
		}
		return out
	},
}
