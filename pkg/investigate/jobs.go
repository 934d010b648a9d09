package investigate

import (
	"fmt"
	"slices"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// Job and CronJob faults that have not ended in a Failed condition yet: a
// Job whose pods fail while it still retries below its backoffLimit, and
// CronJob runs that outlive their schedule's period and pile up under
// concurrencyPolicy Allow.

// ---------------------------------------------------------------------------
// A Job still retrying.

// wlJobRetries is how far a Job that has not given up is from its
// backoffLimit.
type wlJobRetries struct {
	failed   int32 // failed pods (status.failed)
	restarts int32 // container restarts of its live pods, counted with restartPolicy OnFailure
	limit    int32
	perIndex bool // backoffLimitPerIndex: the limit applies to each index
	// failAt is the count at which the Job controller marks the Job
	// Failed; count is where it stands.
	failAt, count int32
	onFailure     bool
}

// wlRetriesOf reads the failures the Job controller weighs against the
// backoffLimit: with restartPolicy Never a Job fails once more pods failed
// than backoffLimit; with OnFailure the restarts of its running pods count
// too, and reaching backoffLimit is enough.
func wlRetriesOf(c *rule.Pass, j *batchv1.Job) wlJobRetries {
	r := wlJobRetries{failed: j.Status.Failed, limit: wlBackoffLimit(j)}
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
func (r wlJobRetries) progress() string {
	switch {
	case r.perIndex:
		return fmt.Sprintf("%d failed pod(s) so far, with backoffLimitPerIndex %d (each index is retried up to %d time(s))", r.failed, r.limit, r.limit)
	case r.onFailure && r.restarts > 0:
		return fmt.Sprintf("%d container restart(s) of its running pods and %d failed pod(s) so far, against a backoffLimit of %d", r.restarts, r.failed, r.limit)
	}
	return fmt.Sprintf("%d of the %d failures its backoffLimit allows", r.failed, r.limit)
}

// atLimit says what happens when the limit is reached.
func (r wlJobRetries) atLimit(j *batchv1.Job) string {
	then := "the Job controller marks the Job Failed (BackoffLimitExceeded): it creates no more pods, terminates the running ones, and the Job has to be run again once the cause is fixed"
	switch {
	case r.perIndex:
		return fmt.Sprintf("An index whose pods fail more than %d time(s) is marked failed and not retried (status.failedIndexes%s); once its other indexes are done the Job ends Failed.", r.limit, wlFailedIndexesText(j))
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
	return fmt.Sprintf("At the %s failure, %d more from now, %s.", wlOrdinal(r.failAt), left, then)
}

func wlFailedIndexesText(j *batchv1.Job) string {
	if j.Status.FailedIndexes == nil || *j.Status.FailedIndexes == "" {
		return ", none so far"
	}
	return ": " + *j.Status.FailedIndexes
}

func wlOrdinal(n int32) string {
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

// wlJobGivingUp: a FailureTarget condition means the controller has
// already decided the Job fails and is terminating its pods.
func wlJobGivingUp(j *batchv1.Job) bool {
	for _, cond := range j.Status.Conditions {
		if cond.Type == batchv1.JobFailureTarget && cond.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// wlCheckJobRetrying: a Job whose pods fail while it still retries. The
// failed pods' own cause is the root cause when a pod rule explains it;
// this finding adds the Job's side: how many failures so far, how many
// are left, and what happens at the limit.
func wlCheckJobRetrying(c *rule.Pass) []rule.Finding {
	j := kube.TargetOf(c, "Job", c.B.Jobs)
	if j == nil || wlJobGivingUp(j) || j.Spec.Suspend != nil && *j.Spec.Suspend {
		return nil
	}
	if _, done := wlJobFinished(j); done {
		return nil
	}
	r := wlRetriesOf(c, j)
	if r.failed == 0 && r.restarts == 0 {
		return nil
	}
	return []rule.Finding{wlRetryingFinding(c, j, r)}
}

func wlRetryingFinding(c *rule.Pass, j *batchv1.Job, r wlJobRetries) rule.Finding {
	a := wlAnalyzeJob(c, j)
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

// ---------------------------------------------------------------------------
// CronJob runs piling up.

// wlCronEvidence is the CronJob's schedule and status, shared by the
// CronJob rules.
func wlCronEvidence(c *rule.Pass, cj *batchv1.CronJob) string {
	return c.Evidence(
		fmt.Sprintf("CronJob %s: schedule %q%s, suspend %v, concurrencyPolicy %s, last scheduled %s, last successful %s, %d active job(s)", cj.Name, cj.Spec.Schedule, wlTzText(cj.Spec.TimeZone),
			cj.Spec.Suspend != nil && *cj.Spec.Suspend, wlOrDefaultConcurrency(cj.Spec.ConcurrencyPolicy), wlStampPtr(cj.Status.LastScheduleTime), wlStampPtr(cj.Status.LastSuccessfulTime), len(cj.Status.Active)),
		fmt.Sprintf("cronjob/%s .spec/.status", cj.Name), fmt.Sprintf("kubectl get cronjob %s -n %s -o wide", cj.Name, cj.Namespace))
}

// wlJobStarted is when a Job started running (or was created).
func wlJobStarted(j *batchv1.Job) time.Time {
	if j.Status.StartTime != nil {
		return j.Status.StartTime.Time
	}
	return j.CreationTimestamp.Time
}

// wlCheckCronPileUp: concurrencyPolicy Allow starts a run at every
// schedule whether or not the previous ones have finished; runs that last
// longer than the schedule's period accumulate.
func wlCheckCronPileUp(c *rule.Pass) []rule.Finding {
	cj := kube.TargetOf(c, "CronJob", c.B.CronJobs)
	if cj == nil || wlOrDefaultConcurrency(cj.Spec.ConcurrencyPolicy) != string(batchv1.AllowConcurrent) || cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return nil
	}
	sched, err := wlParseCron(cj.Spec.Schedule, cj.Spec.TimeZone)
	if err != nil {
		return nil
	}
	period := sched.period(c.Now)
	if period <= 0 {
		return nil
	}
	var running, finished []*batchv1.Job // newest first
	for _, j := range wlJobsOf(c, cj) {
		listed := slices.ContainsFunc(cj.Status.Active, func(ref corev1.ObjectReference) bool { return ref.UID == j.UID || ref.Name == j.Name })
		switch cond, done := wlJobFinished(j); {
		case done && cond.Type == batchv1.JobComplete:
			finished = append(finished, j)
		case !done && (listed || j.Status.Active > 0):
			running = append(running, j)
		}
	}
	active := max(len(cj.Status.Active), len(running))
	if active < 2 || len(running) == 0 {
		return nil
	}
	oldest := running[len(running)-1]
	if c.Now.Sub(wlJobStarted(oldest)) <= period {
		return nil
	}
	return []rule.Finding{wlPileUpFinding(c, cj, period, active, running, finished)}
}

func wlPileUpFinding(c *rule.Pass, cj *batchv1.CronJob, period time.Duration, active int, running, finished []*batchv1.Job) rule.Finding {
	f := rule.Finding{Category: rule.CronJob.Sub("RunsPileUp"), Verdict: report.Validated, Current: true, Strength: rule.Explained, Confidence: rule.High, Subject: cj.Name}
	f.Evidence = []string{wlCronEvidence(c, cj),
		c.Evidence(fmt.Sprintf("Schedule %q%s starts a run every %s (next at %s)", cj.Spec.Schedule, wlTzText(cj.Spec.TimeZone), kube.HumanDuration(period), kube.Stamp(wlNextRun(cj, c.Now))),
			fmt.Sprintf("cronjob/%s .spec.schedule", cj.Name), fmt.Sprintf("kubectl get cronjob %s -n %s -o jsonpath='{.spec.schedule}'", cj.Name, cj.Namespace))}
	// Oldest first: the order they piled up in.
	var durations []string
	longer := 0
	for i := len(running) - 1; i >= 0; i-- {
		j := running[i]
		ran := c.Now.Sub(wlJobStarted(j))
		if ran > period {
			longer++
		}
		durations = append(durations, kube.HumanDuration(ran))
		f.Evidence = append(f.Evidence, c.Evidence(
			fmt.Sprintf("Job %s of CronJob %s started %s and is still active (%d pod(s) active, %d failed)", j.Name, cj.Name, kube.Since(c, wlJobStarted(j)), j.Status.Active, j.Status.Failed),
			fmt.Sprintf("job/%s .status", j.Name), fmt.Sprintf("kubectl get job %s -n %s -o wide", j.Name, j.Namespace)))
	}
	oldest := running[len(running)-1]
	policy := wlOrDefaultConcurrency(cj.Spec.ConcurrencyPolicy)
	if cj.Spec.ConcurrencyPolicy == "" {
		policy += " (the default)"
	}
	f.Hypothesis = fmt.Sprintf("The runs of CronJob %s last longer than its schedule's period and pile up (concurrencyPolicy Allow)", cj.Name)
	f.Title = fmt.Sprintf("cronjob %s runs pile up: %d jobs active at once, running for %s, while schedule %q starts one every %s and concurrencyPolicy %s lets them overlap",
		cj.Name, active, wlJoinAnd(durations), cj.Spec.Schedule, kube.HumanDuration(period), wlOrDefaultConcurrency(cj.Spec.ConcurrencyPolicy))
	f.Summary = fmt.Sprintf("CronJob %s starts a Job every %s, but its runs last longer than that (%d of the %d active runs have been running for more than %s, the oldest, %s, for %s). With concurrencyPolicy %s the controller starts the next run anyway, so runs overlap and accumulate.",
		cj.Name, kube.HumanDuration(period), longer, len(running), kube.HumanDuration(period), oldest.Name, kube.HumanDuration(c.Now.Sub(wlJobStarted(oldest))), policy)
	f.Mechanism = "With concurrencyPolicy Allow (the default) the CronJob controller starts a new Job at every scheduled time whether or not earlier runs have finished. When a run takes longer than the interval between schedules, runs overlap and their number grows: each takes its share of CPU, memory and quota, and concurrent runs contend for the same data, locks or rate limits, which slows them further."
	f.Culprit = fmt.Sprintf("cronjob/%s concurrencyPolicy: %s with schedule %q (every %s); %d jobs active, the oldest (%s) for %s",
		cj.Name, wlOrDefaultConcurrency(cj.Spec.ConcurrencyPolicy), cj.Spec.Schedule, kube.HumanDuration(period), active, oldest.Name, kube.HumanDuration(c.Now.Sub(wlJobStarted(oldest))))
	if active > len(running) {
		f.Contributing = append(f.Contributing, fmt.Sprintf("status.active lists %d jobs; %d of them (the newest and the oldest) were read.", active, len(running)))
	}
	for _, j := range finished {
		if j.Status.CompletionTime == nil {
			continue
		}
		took := j.Status.CompletionTime.Sub(wlJobStarted(j))
		f.Contributing = append(f.Contributing, fmt.Sprintf("Its last completed run, job %s, took %s against a period of %s.", j.Name, kube.HumanDuration(took), kube.HumanDuration(period)))
		f.Evidence = append(f.Evidence, c.Evidence(
			fmt.Sprintf("Job %s of CronJob %s ran from %s to %s (%s)", j.Name, cj.Name, kube.Stamp(wlJobStarted(j)), kube.Stamp(j.Status.CompletionTime.Time), kube.HumanDuration(took)),
			fmt.Sprintf("job/%s .status.startTime/.status.completionTime", j.Name), fmt.Sprintf("kubectl get job %s -n %s -o wide", j.Name, j.Namespace)))
		break
	}
	// A run that hangs on a failing pod is the pod's fault: the pile-up is
	// then its consequence, and this finding the context. The oldest run's
	// cause comes first: it has kept its run from finishing longest.
	var pods []*corev1.Pod
	runOf := map[string]*batchv1.Job{}
	for i := len(running) - 1; i >= 0; i-- {
		for _, p := range kube.PodsOf(c, running[i].UID) {
			pods = append(pods, p)
			runOf[p.Name] = running[i]
		}
	}
	if p, cause := kube.FirstCause(kube.PodCauses(c, pods), pods); cause != nil {
		f.Strength, f.Confidence, f.Context = rule.Observed, rule.Even, true
		run := "the oldest run"
		if j := runOf[p.Name]; j != oldest {
			run = "run " + j.Name
		}
		// Not the cause's title: addContext drops lines restating it.
		f.Contributing = append([]string{fmt.Sprintf("CronJob %s piles up runs: %d jobs active at once under concurrencyPolicy %s, the oldest (%s) for %s, while its schedule starts one every %s; pod %s of %s fails (%s), which keeps it from finishing.",
			cj.Name, active, policy, oldest.Name, kube.HumanDuration(c.Now.Sub(wlJobStarted(oldest))), kube.HumanDuration(period), p.Name, run, cause.Category)}, f.Contributing...)
	} else {
		// The newest run's pod says what a run is busy with now.
		for i := len(pods) - 1; i >= 0; i-- {
			p := pods[i]
			if line := wlLastLogLine(c, p.Name, wlFirstContainer(p)); line != "" {
				f.Contributing = append(f.Contributing, fmt.Sprintf("Pod %s of run %s is busy, its last log line: %q.", p.Name, runOf[p.Name].Name, line))
				f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Last log line of %s container %s: %q", p.Name, wlFirstContainer(p), line),
					fmt.Sprintf("logs of %s container %s", kube.PodRef(p), wlFirstContainer(p)), kube.LogsCmd(p, wlFirstContainer(p), false)))
				break
			}
		}
	}
	deadline := int(period.Seconds() * 0.9)
	patch := func(spec string) string {
		return fmt.Sprintf(`kubectl patch cronjob %s -n %s --type=merge -p '{"spec":%s}'`, cj.Name, cj.Namespace, spec)
	}
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: "Stop the runs from overlapping: with concurrencyPolicy Forbid the controller skips a schedule while a run is still active.",
			Commands: []string{patch(`{"concurrencyPolicy":"Forbid"}`)},
			Risk:     "a run that hangs then blocks every later schedule until it ends: bound the runs with activeDeadlineSeconds too"},
		{Kind: report.Immediate, Description: "Or use concurrencyPolicy Replace, where each schedule terminates the run still active and starts a fresh one.",
			Commands: []string{patch(`{"concurrencyPolicy":"Replace"}`)},
			Risk:     "a run that always takes longer than the period is killed every time and never completes; the killed run's unfinished work is lost"},
		{Kind: report.Immediate, Description: fmt.Sprintf("Remove the older overlapping runs, oldest first (%s), if the newest run does the same work.", oldest.Name),
			Commands: []string{fmt.Sprintf("kubectl delete job %s -n %s", oldest.Name, cj.Namespace)},
			Risk:     "deleting a Job kills its pods and their unfinished work"},
		{Kind: report.LongTerm, Description: fmt.Sprintf("Bound each run with activeDeadlineSeconds shorter than the %s period, so a slow run ends before the next starts.", kube.HumanDuration(period)),
			Commands: []string{patch(fmt.Sprintf(`{"jobTemplate":{"spec":{"activeDeadlineSeconds":%d}}}`, deadline))},
			Risk:     "a run that exceeds the deadline is terminated and marked Failed (DeadlineExceeded); its unfinished work is lost"},
		{Kind: report.LongTerm, Description: fmt.Sprintf("Or schedule the runs at least as far apart as one takes (the oldest active run is at %s and counting), or make a run faster.", kube.HumanDuration(c.Now.Sub(wlJobStarted(oldest)))),
			Commands: []string{patch(`{"schedule":"<m h dom mon dow>"}`)},
			Risk:     "the work runs less often: its results are older between runs"},
		{Kind: report.Check, Description: "Find out why a run takes so long: read the oldest active run's logs and resource use.",
			Commands: []string{fmt.Sprintf("kubectl logs -n %s job/%s --all-containers --tail=50", cj.Namespace, oldest.Name),
				fmt.Sprintf("kubectl top pod -n %s -l batch.kubernetes.io/job-name=%s", cj.Namespace, oldest.Name)}},
	}
	if f.Context {
		// Only the immediate actions reach the root cause: the pod's fix
		// comes first, Forbid keeps the pile-up from growing meanwhile.
		f.Actions = f.Actions[:1]
	}
	return f
}

func wlNextRun(cj *batchv1.CronJob, now time.Time) time.Time {
	s, err := wlParseCron(cj.Spec.Schedule, cj.Spec.TimeZone)
	if err != nil {
		return time.Time{}
	}
	return s.next(now)
}

func wlFirstContainer(p *corev1.Pod) string {
	if len(p.Spec.Containers) > 0 {
		return p.Spec.Containers[0].Name
	}
	if len(p.Status.ContainerStatuses) > 0 {
		return p.Status.ContainerStatuses[0].Name
	}
	return ""
}

// wlJoinAnd renders "a, b and c".
func wlJoinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
