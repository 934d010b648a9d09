package batch

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
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"
)

// CronJobRunsPileUp is the rule batch/cronjob-runs-pile-up.
var CronJobRunsPileUp = &rule.Rule{
	Meta: rule.Meta{
		ID:       "batch/cronjob-runs-pile-up",
		Kinds:    []string{"CronJob"},
		Layer:    rule.WorkloadLayer,
		Requires: workload.PodLevel,
		Needs:    workload.Needs,
		Doc:      "A CronJob (concurrencyPolicy Allow) whose runs outlast their period and pile up.",
	},
	Check: checkCronPileUp,
}

// jobStarted is when a Job started running (or was created).
func jobStarted(j *batchv1.Job) time.Time {
	if j.Status.StartTime != nil {
		return j.Status.StartTime.Time
	}
	return j.CreationTimestamp.Time
}

// checkCronPileUp: concurrencyPolicy Allow starts a run at every
// schedule whether or not the previous ones have finished; runs that last
// longer than the schedule's period accumulate.
func checkCronPileUp(c *rule.Pass) []rule.Finding {
	cj := kube.TargetOf(c, "CronJob", c.B.CronJobs)
	if cj == nil || orDefaultConcurrency(cj.Spec.ConcurrencyPolicy) != string(batchv1.AllowConcurrent) || cj.Spec.Suspend != nil && *cj.Spec.Suspend {
		return nil
	}
	sched, err := ParseCron(cj.Spec.Schedule, cj.Spec.TimeZone)
	if err != nil {
		return nil
	}
	period := sched.Period(c.Now)
	if period <= 0 {
		return nil
	}
	var running, finished []*batchv1.Job // newest first
	for _, j := range JobsOf(c, cj) {
		listed := slices.ContainsFunc(cj.Status.Active, func(ref corev1.ObjectReference) bool { return ref.UID == j.UID || ref.Name == j.Name })
		switch cond, done := kube.JobFinished(j); {
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
	if c.Now.Sub(jobStarted(oldest)) <= period {
		return nil
	}
	return []rule.Finding{pileUpFinding(c, cj, period, active, running, finished)}
}

func pileUpFinding(c *rule.Pass, cj *batchv1.CronJob, period time.Duration, active int, running, finished []*batchv1.Job) rule.Finding {
	f := rule.Finding{Category: rule.CronJob.Sub("RunsPileUp"), Verdict: report.Validated, Current: true, Strength: rule.Explained, Confidence: rule.High, Subject: cj.Name}
	f.Evidence = []string{cronEvidence(c, cj),
		c.Evidence(fmt.Sprintf("Schedule %q%s starts a run every %s (next at %s)", cj.Spec.Schedule, tzText(cj.Spec.TimeZone), kube.HumanDuration(period), kube.Stamp(nextRun(cj, c.Now))),
			fmt.Sprintf("cronjob/%s .spec.schedule", cj.Name), fmt.Sprintf("kubectl get cronjob %s -n %s -o jsonpath='{.spec.schedule}'", cj.Name, cj.Namespace))}
	// Oldest first: the order they piled up in.
	var durations []string
	longer := 0
	for i := len(running) - 1; i >= 0; i-- {
		j := running[i]
		ran := c.Now.Sub(jobStarted(j))
		if ran > period {
			longer++
		}
		durations = append(durations, kube.HumanDuration(ran))
		f.Evidence = append(f.Evidence, c.Evidence(
			fmt.Sprintf("Job %s of CronJob %s started %s and is still active (%d pod(s) active, %d failed)", j.Name, cj.Name, kube.Since(c, jobStarted(j)), j.Status.Active, j.Status.Failed),
			fmt.Sprintf("job/%s .status", j.Name), fmt.Sprintf("kubectl get job %s -n %s -o wide", j.Name, j.Namespace)))
	}
	oldest := running[len(running)-1]
	policy := orDefaultConcurrency(cj.Spec.ConcurrencyPolicy)
	if cj.Spec.ConcurrencyPolicy == "" {
		policy += " (the default)"
	}
	f.Hypothesis = fmt.Sprintf("The runs of CronJob %s last longer than its schedule's period and pile up (concurrencyPolicy Allow)", cj.Name)
	f.Title = fmt.Sprintf("cronjob %s runs pile up: %d jobs active at once, running for %s, while schedule %q starts one every %s and concurrencyPolicy %s lets them overlap",
		cj.Name, active, joinAnd(durations), cj.Spec.Schedule, kube.HumanDuration(period), orDefaultConcurrency(cj.Spec.ConcurrencyPolicy))
	f.Summary = fmt.Sprintf("CronJob %s starts a Job every %s, but its runs last longer than that (%d of the %d active runs have been running for more than %s, the oldest, %s, for %s). With concurrencyPolicy %s the controller starts the next run anyway, so runs overlap and accumulate.",
		cj.Name, kube.HumanDuration(period), longer, len(running), kube.HumanDuration(period), oldest.Name, kube.HumanDuration(c.Now.Sub(jobStarted(oldest))), policy)
	f.Mechanism = "With concurrencyPolicy Allow (the default) the CronJob controller starts a new Job at every scheduled time whether or not earlier runs have finished. When a run takes longer than the interval between schedules, runs overlap and their number grows: each takes its share of CPU, memory and quota, and concurrent runs contend for the same data, locks or rate limits, which slows them further."
	f.Culprit = fmt.Sprintf("cronjob/%s concurrencyPolicy: %s with schedule %q (every %s); %d jobs active, the oldest (%s) for %s",
		cj.Name, orDefaultConcurrency(cj.Spec.ConcurrencyPolicy), cj.Spec.Schedule, kube.HumanDuration(period), active, oldest.Name, kube.HumanDuration(c.Now.Sub(jobStarted(oldest))))
	if active > len(running) {
		f.Contributing = append(f.Contributing, fmt.Sprintf("status.active lists %d jobs; %d of them (the newest and the oldest) were read.", active, len(running)))
	}
	for _, j := range finished {
		if j.Status.CompletionTime == nil {
			continue
		}
		took := j.Status.CompletionTime.Sub(jobStarted(j))
		f.Contributing = append(f.Contributing, fmt.Sprintf("Its last completed run, job %s, took %s against a period of %s.", j.Name, kube.HumanDuration(took), kube.HumanDuration(period)))
		f.Evidence = append(f.Evidence, c.Evidence(
			fmt.Sprintf("Job %s of CronJob %s ran from %s to %s (%s)", j.Name, cj.Name, kube.Stamp(jobStarted(j)), kube.Stamp(j.Status.CompletionTime.Time), kube.HumanDuration(took)),
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
			cj.Name, active, policy, oldest.Name, kube.HumanDuration(c.Now.Sub(jobStarted(oldest))), kube.HumanDuration(period), p.Name, run, cause.Category)}, f.Contributing...)
	} else {
		// The newest run's pod says what a run is busy with now.
		for i := len(pods) - 1; i >= 0; i-- {
			p := pods[i]
			if line := kube.LastLogLine(c, p.Name, firstContainer(p)); line != "" {
				f.Contributing = append(f.Contributing, fmt.Sprintf("Pod %s of run %s is busy, its last log line: %q.", p.Name, runOf[p.Name].Name, line))
				f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Last log line of %s container %s: %q", p.Name, firstContainer(p), line),
					fmt.Sprintf("logs of %s container %s", kube.PodRef(p), firstContainer(p)), kube.LogsCmd(p, firstContainer(p), false)))
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
		{Kind: report.LongTerm, Description: fmt.Sprintf("Or schedule the runs at least as far apart as one takes (the oldest active run is at %s and counting), or make a run faster.", kube.HumanDuration(c.Now.Sub(jobStarted(oldest)))),
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

func nextRun(cj *batchv1.CronJob, now time.Time) time.Time {
	s, err := ParseCron(cj.Spec.Schedule, cj.Spec.TimeZone)
	if err != nil {
		return time.Time{}
	}
	return s.next(now)
}

func firstContainer(p *corev1.Pod) string {
	if len(p.Spec.Containers) > 0 {
		return p.Spec.Containers[0].Name
	}
	if len(p.Status.ContainerStatuses) > 0 {
		return p.Status.ContainerStatuses[0].Name
	}
	return ""
}

// joinAnd renders "a, b and c".
func joinAnd(items []string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
