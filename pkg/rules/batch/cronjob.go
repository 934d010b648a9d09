package batch

import (
	"fmt"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"
)

// CronJob is the rule batch/cronjob.
var CronJob = &rule.Rule{
	Meta: rule.Meta{
		ID:       "batch/cronjob",
		Kinds:    []string{"CronJob"},
		Layer:    rule.WorkloadLayer,
		Requires: workload.PodLevel,
		Needs:    workload.Needs,
		Doc:      "A CronJob whose runs fail, that is suspended, blocked by its concurrency policy or misses its schedule.",
	},
	Check: checkCronJob,
}

// cronEvents are the CronJob controller's warnings about its schedule.
var cronScheduleEvents = []string{"TooManyMissedTimes", "FailedNeedsStart", "MissSchedule", "UnparseableSchedule", "InvalidSchedule", "UnknownTimeZone"}

func checkCronJob(c *rule.Pass) []rule.Finding {
	cj := kube.TargetOf(c, "CronJob", c.B.CronJobs)
	if cj == nil {
		return nil
	}
	var out []rule.Finding
	sched, schedErr := ParseCron(cj.Spec.Schedule, cj.Spec.TimeZone)
	evidence := []string{cronEvidence(c, cj)}
	if f, ok := cronFailingJobs(c, cj, evidence); ok {
		out = append(out, f)
	}
	if f, ok := cronSuspended(c, cj, sched, evidence); ok {
		out = append(out, f)
	}
	if f, ok := cronBlocked(c, cj, sched, evidence); ok {
		out = append(out, f)
	} else if f, ok := cronMissed(c, cj, sched, schedErr, evidence); ok {
		out = append(out, f)
	}
	return out
}

// cronFailingJobs: the CronJob's most recent finished runs failed.
func cronFailingJobs(c *rule.Pass, cj *batchv1.CronJob, evidence []string) (rule.Finding, bool) {
	var failed []*batchv1.Job
	var lastOK *batchv1.Job
	for _, j := range JobsOf(c, cj) {
		cond, done := kube.JobFinished(j)
		if !done {
			continue
		}
		if cond.Type == batchv1.JobComplete {
			lastOK = j
			break
		}
		failed = append(failed, j)
	}
	if len(failed) == 0 {
		return rule.Finding{}, false
	}
	newest := failed[0]
	a := analyzeJob(c, newest)
	f := rule.Finding{Category: rule.CronJob.Sub("FailingJobs"), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: cj.Name}
	f.Evidence = append(append([]string(nil), evidence...), a.evidence...)
	var names []string
	for _, j := range failed {
		cond := jobFailedCondition(j)
		names = append(names, fmt.Sprintf("%s (%s)", j.Name, cond.Reason))
	}
	runs := fmt.Sprintf("the last %d run(s) failed", len(failed))
	if lastOK == nil {
		runs += " and no successful run was collected"
	} else {
		runs += fmt.Sprintf(", the last success was %s", lastOK.Name)
	}
	if cj.Status.LastSuccessfulTime != nil {
		runs += fmt.Sprintf(" (last successful completion %s)", kube.Since(c, cj.Status.LastSuccessfulTime.Time))
	}
	reason := jobFailedCondition(newest).Reason
	detail := a.detail
	if detail == "" {
		why, _ := jobWhy(newest, a.cond)
		detail = why
		if len(a.pods) == 0 {
			detail += "; its pods are gone, so only the Job's status tells"
		}
	}
	f.Hypothesis = fmt.Sprintf("The Jobs of CronJob %s fail", cj.Name)
	f.Title = fmt.Sprintf("cronjob %s: %s; newest run %s failed (%s): %s", cj.Name, runs, newest.Name, reason, detail)
	f.Summary = fmt.Sprintf("CronJob %s starts its Jobs on schedule, but %s: %s. Newest failure: %s.", cj.Name, runs, strings.Join(names, ", "), detail)
	f.Mechanism = "Each scheduled run is a Job; a Job fails when its pods keep failing (backoffLimit) or it runs past activeDeadlineSeconds. The CronJob keeps scheduling new runs, which fail the same way until the cause is fixed."
	switch {
	case a.cause != nil:
		f.Confidence = rule.Even
		f.Context = true
		f.Contributing = append(f.Contributing, fmt.Sprintf("CronJob %s: %s (%s).", cj.Name, runs, strings.Join(names, ", ")))
		f.Culprit = a.culprit
	case a.confident:
		f.Strength, f.Confidence = rule.Explained, rule.High
		if a.suffix != "" {
			f.Category = f.Category.Sub(a.suffix)
		}
		f.Culprit = a.culprit
	default:
		f.Confidence = rule.Probable
		f.Culprit = fmt.Sprintf("job/%s (%s)", newest.Name, reason)
	}
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: "Fix what makes the runs fail, then start one run by hand to check it before the next schedule.",
			Commands: []string{fmt.Sprintf("kubectl create job %s-manual-$(date +%%s) -n %s --from=cronjob/%s", cj.Name, cj.Namespace, cj.Name)},
			Risk:     "runs the job's work once more, outside its schedule"},
		{Kind: report.Check, Description: "Read the failed Job and its pods.",
			Commands: []string{fmt.Sprintf("kubectl describe job %s -n %s", newest.Name, cj.Namespace), fmt.Sprintf("kubectl get pods -n %s -l batch.kubernetes.io/job-name=%s", cj.Namespace, newest.Name)}},
	}
	if a.exit != nil {
		f.Actions[1].Commands = append(f.Actions[1].Commands, fmt.Sprintf("kubectl logs %s -n %s -c %s --tail=50", a.exit.pod.Name, cj.Namespace, a.exit.container))
	}
	return f, true
}

// LastRun is when the CronJob last started a Job (or was created).
func LastRun(cj *batchv1.CronJob) time.Time {
	if cj.Status.LastScheduleTime != nil {
		return cj.Status.LastScheduleTime.Time
	}
	return cj.CreationTimestamp.Time
}

// cronSuspended: spec.suspend is true and runs have been skipped for a while.
func cronSuspended(c *rule.Pass, cj *batchv1.CronJob, sched *cronSchedule, evidence []string) (rule.Finding, bool) {
	if cj.Spec.Suspend == nil || !*cj.Spec.Suspend {
		return rule.Finding{}, false
	}
	last := LastRun(cj)
	skipped, period := 0, time.Duration(0)
	if sched != nil {
		skipped = sched.count(last, c.Now, 1000)
		period = sched.Period(c.Now)
	}
	// Recently paused (fewer than two runs skipped) is someone's deliberate
	// pause, not a fault.
	if sched != nil && skipped < 2 || sched == nil && c.Now.Sub(last) < 24*time.Hour {
		return rule.Finding{}, false
	}
	f := rule.Finding{Category: rule.CronJob.Sub("Suspended"), Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: cj.Name, Confidence: rule.Strong, Evidence: evidence}
	count := ""
	if sched != nil {
		count = fmt.Sprintf(", %s%d scheduled run(s) skipped", AtLeast(skipped, 1000), skipped)
	}
	last0 := "it has never run"
	if cj.Status.LastScheduleTime != nil {
		last0 = "its last run was scheduled " + kube.Since(c, cj.Status.LastScheduleTime.Time)
	}
	f.Hypothesis = fmt.Sprintf("CronJob %s is suspended", cj.Name)
	f.Title = fmt.Sprintf("cronjob %s is suspended (spec.suspend=true): %s%s", cj.Name, last0, count)
	f.Summary = fmt.Sprintf("CronJob %s does not start Jobs because spec.suspend is true; %s%s.", cj.Name, last0, count)
	if period > 0 {
		f.Summary += fmt.Sprintf(" Its schedule %q would run about every %s.", cj.Spec.Schedule, kube.HumanDuration(period))
	}
	f.Mechanism = "While spec.suspend is true the CronJob controller starts no Job; the schedules that pass are not made up when it is resumed, except the most recent one if it is still within startingDeadlineSeconds."
	f.Culprit = fmt.Sprintf("cronjob/%s spec.suspend: true", cj.Name)
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: "Resume the CronJob if the pause was not meant to last (check with whoever suspended it first).",
			Commands: []string{fmt.Sprintf(`kubectl patch cronjob %s -n %s -p '{"spec":{"suspend":false}}'`, cj.Name, cj.Namespace)},
			Risk:     "the next run starts at the next schedule, possibly immediately if startingDeadlineSeconds allows the missed one"},
		{Kind: report.Check, Description: "Find who suspended it and when.",
			Commands: []string{fmt.Sprintf("kubectl get cronjob %s -n %s --show-managed-fields -o yaml", cj.Name, cj.Namespace)}},
	}
	return f, true
}

func AtLeast(n, limit int) string {
	if n >= limit {
		return "at least "
	}
	return ""
}

// cronBlocked: concurrencyPolicy Forbid and a run that does not finish, so
// every later schedule is skipped.
func cronBlocked(c *rule.Pass, cj *batchv1.CronJob, sched *cronSchedule, evidence []string) (rule.Finding, bool) {
	if cj.Spec.ConcurrencyPolicy != batchv1.ForbidConcurrent || len(cj.Status.Active) == 0 {
		return rule.Finding{}, false
	}
	ref := cj.Status.Active[0]
	var job *batchv1.Job
	for _, j := range c.B.Jobs {
		if j.Name == ref.Name {
			job = j
		}
	}
	started := LastRun(cj)
	if job != nil {
		started = job.CreationTimestamp.Time
		if job.Status.StartTime != nil {
			started = job.Status.StartTime.Time
		}
	}
	skipped := 0
	if sched != nil {
		skipped = sched.count(started, c.Now, 1000)
	}
	events := kube.EventsWith(c, cj.UID, "JobAlreadyActive")
	if skipped < 1 && len(events) == 0 {
		return rule.Finding{}, false
	}
	f := rule.Finding{Category: rule.CronJob.Sub("ConcurrencyBlocked"), Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: cj.Name, Confidence: rule.High}
	f.Evidence = append([]string(nil), evidence...)
	for _, e := range events {
		f.Evidence = append(f.Evidence, kube.EventEvidence(c, e))
	}
	why := "it has not finished"
	if job != nil {
		pods := kube.PodsOf(c, job.UID)
		causes := kube.PodCauses(c, pods)
		if p, cause := kube.FirstCause(causes, pods); cause != nil {
			why = fmt.Sprintf("pod %s: %s", p.Name, cause.Title)
			f.Strength, f.Confidence, f.Context = rule.Observed, rule.Even, true
		} else if len(pods) > 0 {
			p := pods[0]
			state, ev := kube.DescribePod(c, p)
			f.Evidence = append(f.Evidence, ev...)
			verb := "is"
			if p.Status.Phase == corev1.PodRunning && p.Status.StartTime != nil {
				verb, state = "has been", fmt.Sprintf("running since %s", kube.Since(c, p.Status.StartTime.Time))
				f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Pod %s of job %s has been running since %s", p.Name, job.Name, kube.Stamp(p.Status.StartTime.Time)),
					kube.PodRef(p)+" .status.startTime", fmt.Sprintf("kubectl get pod %s %s -o wide", p.Name, kube.NSFlag(p))))
			}
			why = fmt.Sprintf("its pod %s %s %s and has not completed", p.Name, verb, state)
			for _, cs := range kube.AllStatuses(p) {
				if line := kube.LastLogLine(c, p.Name, cs.Status.Name); line != "" && cs.Status.State.Running != nil {
					why += fmt.Sprintf(" (last log line of %s: %q)", cs.Status.Name, line)
					f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Last log line of %s container %s: %q", p.Name, cs.Status.Name, line),
						fmt.Sprintf("logs of %s container %s", kube.PodRef(p), cs.Status.Name), kube.LogsCmd(p, cs.Status.Name, false)))
					break
				}
			}
		}
		if job.Spec.ActiveDeadlineSeconds == nil {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Job %s has no activeDeadlineSeconds, so nothing stops a run that hangs.", job.Name))
		}
	}
	f.Hypothesis = fmt.Sprintf("A running Job of CronJob %s blocks every new run (concurrencyPolicy Forbid)", cj.Name)
	if f.Context {
		f.Contributing = append([]string{fmt.Sprintf("CronJob %s skips its runs: job %s has been active since %s and concurrencyPolicy Forbid starts no other (%d schedule(s) skipped).", cj.Name, ref.Name, kube.Since(c, started), skipped)}, f.Contributing...)
	}
	f.Title = fmt.Sprintf("cronjob %s skips its runs: job %s has been running since %s and concurrencyPolicy Forbid starts no other (%d schedule(s) skipped); %s", cj.Name, ref.Name, kube.Since(c, started), skipped, why)
	f.Summary = fmt.Sprintf("Job %s of CronJob %s started %s and is still active; with concurrencyPolicy Forbid the controller skips every schedule while it runs (%d so far). Why it does not finish: %s.", ref.Name, cj.Name, kube.Since(c, started), skipped, why)
	f.Mechanism = "With concurrencyPolicy: Forbid the CronJob controller starts no new Job while one is active; a run that hangs therefore silently stops the schedule."
	f.Culprit = fmt.Sprintf("job/%s (active since %s) with cronjob/%s concurrencyPolicy: Forbid", ref.Name, kube.Stamp(started), cj.Name)
	if job != nil {
		if stale := StaleImages(cj, job); len(stale) > 0 {
			// The blocking run comes from an older jobTemplate: fixing
			// the template (as the user may have) never reaches it, so
			// the stale run is the cause behind what its pod's rule explains.
			f.Strength, f.Confidence, f.Context = rule.Traced, rule.High, false
			f.Contributing = kube.AppendUnique([]string{fmt.Sprintf("Job %s was created from an older jobTemplate (%s): changing the CronJob does not change a Job already created.", job.Name, strings.Join(stale, "; "))}, f.Contributing...)
			f.Title = fmt.Sprintf("cronjob %s skips its runs: job %s, from an older jobTemplate (%s), has been active since %s and concurrencyPolicy Forbid starts no other (%d schedule(s) skipped); %s", cj.Name, ref.Name, strings.Join(stale, "; "), kube.Since(c, started), skipped, why)
			f.Culprit = fmt.Sprintf("job/%s (from an older jobTemplate: %s; active since %s) with cronjob/%s concurrencyPolicy: Forbid", ref.Name, strings.Join(stale, "; "), kube.Stamp(started), cj.Name)
			f.Actions = []report.Action{{Kind: report.Immediate, Description: fmt.Sprintf("Delete the stale job %s: the next schedule then starts a Job from the current template.", ref.Name),
				Commands: []string{fmt.Sprintf("kubectl delete job %s -n %s", ref.Name, cj.Namespace)},
				Risk:     "deleting the Job kills its pods and their unfinished work"}}
			return f, true
		}
	}
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: fmt.Sprintf("Find out why job %s hangs, then delete it so the next schedule can start.", ref.Name),
			Commands: []string{fmt.Sprintf("kubectl logs -n %s job/%s --tail=50", cj.Namespace, ref.Name), fmt.Sprintf("kubectl delete job %s -n %s", ref.Name, cj.Namespace)},
			Risk:     "deleting the Job kills its pods and their unfinished work"},
		{Kind: report.LongTerm, Description: "Bound each run with activeDeadlineSeconds shorter than the schedule's interval.",
			Commands: []string{fmt.Sprintf(`kubectl patch cronjob %s -n %s -p '{"spec":{"jobTemplate":{"spec":{"activeDeadlineSeconds":<seconds>}}}}'`, cj.Name, cj.Namespace)}},
	}
	return f, true
}

// StaleImages lists the containers whose image in the Job differs from the
// CronJob's current jobTemplate: "container testjob runs busybox:bad, the
// template now has busybox:1.36".
func StaleImages(cj *batchv1.CronJob, j *batchv1.Job) []string {
	now := map[string]string{}
	for _, ctr := range cj.Spec.JobTemplate.Spec.Template.Spec.Containers {
		now[ctr.Name] = ctr.Image
	}
	var out []string
	for _, ctr := range j.Spec.Template.Spec.Containers {
		if img, ok := now[ctr.Name]; ok && img != ctr.Image {
			out = append(out, fmt.Sprintf("container %s runs %s, the template now has %s", ctr.Name, ctr.Image, img))
		}
	}
	return out
}

// cronMissed: the controller did not start runs it should have, per its
// own events or per how far lastScheduleTime lags behind the schedule.
func cronMissed(c *rule.Pass, cj *batchv1.CronJob, sched *cronSchedule, schedErr error, evidence []string) (rule.Finding, bool) {
	if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return rule.Finding{}, false
	}
	events := kube.EventsWith(c, cj.UID, cronScheduleEvents...)
	f := rule.Finding{Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: cj.Name}
	f.Evidence = append([]string(nil), evidence...)
	reasons := map[string]bool{}
	for _, e := range events {
		f.Evidence = append(f.Evidence, kube.EventEvidence(c, e))
		reasons[e.Reason] = true
	}
	if reasons["UnparseableSchedule"] || reasons["InvalidSchedule"] || reasons["UnknownTimeZone"] || (schedErr != nil && len(events) > 0) {
		f.Category = rule.CronJob.Sub("InvalidSchedule")
		f.Confidence = rule.Strong
		f.Hypothesis = fmt.Sprintf("The CronJob controller cannot interpret the schedule of %s", cj.Name)
		f.Title = fmt.Sprintf("cronjob %s never runs: the controller rejects its schedule %q%s", cj.Name, cj.Spec.Schedule, tzText(cj.Spec.TimeZone))
		f.Summary = fmt.Sprintf("The CronJob controller cannot compute the next run of %s from schedule %q%s, so it starts no Job.", cj.Name, cj.Spec.Schedule, tzText(cj.Spec.TimeZone))
		f.Mechanism = "The controller parses spec.schedule (and spec.timeZone) on every sync; when that fails it records a warning and skips the CronJob until the spec changes."
		f.Culprit = fmt.Sprintf("cronjob/%s spec.schedule %q%s", cj.Name, cj.Spec.Schedule, tzText(cj.Spec.TimeZone))
		f.Actions = []report.Action{{Kind: report.Immediate, Description: "Write the schedule in standard cron syntax (minute hour day-of-month month day-of-week) and use an IANA time zone name.",
			Commands: []string{fmt.Sprintf(`kubectl patch cronjob %s -n %s -p '{"spec":{"schedule":"<m h dom mon dow>"}}'`, cj.Name, cj.Namespace)}}}
		return f, true
	}
	last := LastRun(cj)
	missed := 0
	var period time.Duration
	if sched != nil {
		missed = sched.Missed(last, c.Now)
		period = sched.Period(c.Now)
	}
	var skipped time.Time // a start time past its startingDeadlineSeconds
	if sched != nil {
		skipped = sched.PastDeadline(last, c.Now, cj.Spec.StartingDeadlineSeconds)
	}
	tooMany := reasons["TooManyMissedTimes"] || reasons["FailedNeedsStart"]
	if !tooMany && !reasons["MissSchedule"] && missed < 2 && skipped.IsZero() {
		return rule.Finding{}, false
	}
	f.Category = rule.CronJob.Sub("MissedSchedules")
	deadline := "no startingDeadlineSeconds"
	if d := cj.Spec.StartingDeadlineSeconds; d != nil {
		deadline = fmt.Sprintf("startingDeadlineSeconds %d", *d)
	}
	lastText := "it has never run"
	if cj.Status.LastScheduleTime != nil {
		lastText = "its last run was scheduled " + kube.Since(c, cj.Status.LastScheduleTime.Time)
	}
	count := ""
	if sched != nil {
		count = fmt.Sprintf("; %s%d run(s) of schedule %q were missed since then", AtLeast(missed, 1000), missed, cj.Spec.Schedule)
	}
	f.Hypothesis = fmt.Sprintf("The CronJob controller missed the start times of %s", cj.Name)
	f.Culprit = fmt.Sprintf("cronjob/%s spec.startingDeadlineSeconds (%s)", cj.Name, deadline)
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: "Start the missed run by hand if it is still needed.",
			Commands: []string{fmt.Sprintf("kubectl create job %s-manual-$(date +%%s) -n %s --from=cronjob/%s", cj.Name, cj.Namespace, cj.Name)},
			Risk:     "runs the job's work outside its schedule"},
	}
	switch {
	case tooMany:
		f.Confidence = rule.Strong
		f.Title = fmt.Sprintf("cronjob %s stopped starting runs: more than 100 start times were missed and it has %s (%s%s)", cj.Name, deadline, lastText, count)
		f.Summary = fmt.Sprintf("The CronJob controller found more than 100 unmet start times for %s since its last run and, with %s, refuses to guess which to start; %s.", cj.Name, deadline, lastText)
		f.Mechanism = "On every sync the controller counts the schedule times since the last run (or, with startingDeadlineSeconds, only those within the deadline). Past 100 it records TooManyMissedTimes and starts nothing: a controller that was down, a clock skew, or a schedule that fires every minute without startingDeadlineSeconds."
		f.Actions = append([]report.Action{{Kind: report.Immediate, Description: "Set startingDeadlineSeconds so the controller only looks back a bounded window and resumes the schedule.",
			Commands: []string{fmt.Sprintf(`kubectl patch cronjob %s -n %s -p '{"spec":{"startingDeadlineSeconds":%d}}'`, cj.Name, cj.Namespace, suggestedDeadline(period))},
			Risk:     "runs missed longer ago than the deadline are skipped for good"}}, f.Actions...)
	case reasons["MissSchedule"]:
		f.Confidence = rule.High
		f.Title = fmt.Sprintf("cronjob %s misses its runs: each start came later than its %s (%s%s)", cj.Name, deadline, lastText, count)
		f.Summary = fmt.Sprintf("The CronJob controller reached the scheduled times of %s only after %s had passed, so it skipped them; %s.", cj.Name, deadline, lastText)
		f.Mechanism = "A run whose scheduled time is older than startingDeadlineSeconds when the controller looks at it is skipped (MissSchedule). A deadline of a few seconds is shorter than the controller's normal latency under load."
		f.Actions = append([]report.Action{{Kind: report.Immediate, Description: "Raise startingDeadlineSeconds well above the controller's latency (minutes, not seconds).",
			Commands: []string{fmt.Sprintf(`kubectl patch cronjob %s -n %s -p '{"spec":{"startingDeadlineSeconds":%d}}'`, cj.Name, cj.Namespace, suggestedDeadline(period))}}}, f.Actions...)
	case !skipped.IsZero():
		f.Confidence = rule.Probable
		f.Title = fmt.Sprintf("cronjob %s skipped its run due %s: the controller did not start it within its %s, and no event says so (%s%s)", cj.Name, kube.Stamp(skipped), deadline, lastText, count)
		f.Summary = fmt.Sprintf("CronJob %s was due to start a run at %s; with %s, a run the controller does not start within that window is skipped for good, and none was started: %s.", cj.Name, kube.Stamp(skipped), deadline, lastText)
		f.Mechanism = "With startingDeadlineSeconds set, the controller starts a run only while its scheduled time is less than that many seconds old; when its sync comes later (kube-controller-manager busy, restarted or a leader change) the run is skipped, and no MissSchedule event is recorded for it. A deadline of seconds is shorter than the controller's normal latency."
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("CronJob %s: schedule %q, due %s, %s, last scheduled %s: no run started since", cj.Name, cj.Spec.Schedule, kube.Stamp(skipped), deadline, kube.Stamp(last)),
			fmt.Sprintf("cronjob/%s .spec.schedule/.spec.startingDeadlineSeconds/.status.lastScheduleTime", cj.Name),
			fmt.Sprintf(`kubectl get cronjob %s -n %s -o jsonpath='{.spec.schedule} {.spec.startingDeadlineSeconds} {.status.lastScheduleTime}'`, cj.Name, cj.Namespace)))
		f.Actions = append([]report.Action{{Kind: report.Immediate, Description: "Raise startingDeadlineSeconds well above the controller's latency (minutes, not seconds).",
			Commands: []string{fmt.Sprintf(`kubectl patch cronjob %s -n %s -p '{"spec":{"startingDeadlineSeconds":%d}}'`, cj.Name, cj.Namespace, suggestedDeadline(period))},
			Risk:     "a run started late may overlap the next one unless concurrencyPolicy forbids it"}}, f.Actions...)
	default:
		f.Confidence = rule.Moderate
		f.Strength = rule.Observed
		f.Title = fmt.Sprintf("cronjob %s is not running on schedule: %s%s, and no event says why", cj.Name, lastText, count)
		f.Summary = fmt.Sprintf("CronJob %s should have started %d run(s) since %s but started none, and the controller recorded no reason: the CronJob controller (kube-controller-manager) may be down or lagging.", cj.Name, missed, kube.Stamp(last))
		f.Mechanism = "The CronJob controller in kube-controller-manager starts each run; when it is not running (or far behind), runs are not started and no event is recorded. With startingDeadlineSeconds unset, more than 100 missed runs also stop the CronJob for good."
		f.Culprit = fmt.Sprintf("cronjob/%s status.lastScheduleTime (%s)", cj.Name, kube.Stamp(last))
		f.Actions = append(f.Actions, report.Action{Kind: report.Check, Description: "Check that kube-controller-manager runs and is not reporting errors for CronJobs.",
			Commands: []string{"kubectl get pods -n kube-system -l component=kube-controller-manager", fmt.Sprintf("kubectl get events -n %s --field-selector involvedObject.kind=CronJob", cj.Namespace)}})
	}
	return f, true
}

func suggestedDeadline(period time.Duration) int {
	if period <= 0 {
		return 300
	}
	s := int(period.Seconds() / 2)
	return min(max(s, 60), 3600)
}
