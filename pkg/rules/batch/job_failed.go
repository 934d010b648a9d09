package batch

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/workload"
)

// JobFailed is the rule batch/job-failed.
var JobFailed = &rule.Rule{
	Meta: rule.Meta{
		ID:       "batch/job-failed",
		Kinds:    []string{"Job"},
		Layer:    rule.WorkloadLayer,
		Requires: workload.PodLevel,
		Needs:    workload.Needs,
		Doc:      "A Job that failed: backoff limit, deadline, pod failure policy, and its pods' cause.",
	},
	Check: checkJobFailed,
}

// checkJobFailed: a Job that gave up. The pods' own cause is the root when
// a pod rule explains it; otherwise this finding reads the pods' exit and
// logs, or, when the pods are gone, what the Job's status still says.
func checkJobFailed(c *rule.Pass) []rule.Finding {
	j := kube.TargetOf(c, "Job", c.B.Jobs)
	if j == nil || jobFailedCondition(j) == nil {
		return nil
	}
	return []rule.Finding{jobFinding(c, j)}
}

func jobFinding(c *rule.Pass, j *batchv1.Job) rule.Finding {
	a := analyzeJob(c, j)
	w := kube.TopOwner(c, "Job", j)
	reason := a.cond.Reason
	if reason == "" {
		reason = "Failed"
	}
	f := rule.Finding{Category: rule.Job.Sub(reason), Verdict: report.Validated, Current: true, Strength: rule.Observed, Subject: j.Name, Evidence: a.evidence}
	if a.suffix != "" && a.cause == nil {
		f.Category = f.Category.Sub(a.suffix)
	}
	why, mechanism := jobWhy(j, a.cond)
	f.Mechanism = mechanism
	f.Hypothesis = fmt.Sprintf("Job %s failed because %s", j.Name, why)
	var removed *podRemoval // a pod deleted from under the Job
	switch {
	case a.cause != nil && reason == "BackoffLimitExceeded" && a.cause.Strength <= rule.Observed:
		// The pods' cause is only observed (an exit code, a line no log
		// class knows): the Job says more, that every retry failed and
		// none is left, so the Job class is the root with the pods'
		// cause as its reason.
		f.Strength = rule.Explained
		f.Confidence = max(a.cause.Confidence, rule.Plausible)
		attempts := fmt.Sprintf("its %d attempt(s) failed", len(a.failed))
		if same := sameCause(kube.PodCauses(c, a.failed), a.failed, a.cause); same == len(a.failed) && same > 1 {
			attempts = fmt.Sprintf("all %d attempts failed the same way", same)
		}
		f.Title = fmt.Sprintf("job %s failed (%s): %s, %s", j.Name, reason, attempts, a.detail)
		f.Summary = fmt.Sprintf("Job %s failed because %s: %s; %s. A failed Job creates no more pods: it must be run again once the cause is fixed.", j.Name, why, attempts, a.detail)
		f.Culprit = a.culprit
		f.Contributing = append(f.Contributing, a.cause.Contributing...)
		f.Evidence = kube.AppendUnique(f.Evidence, a.cause.Evidence...)
	case a.cause != nil:
		// The pod's own finding is the root cause: this one gives the Job's
		// side of the story and ranks below it.
		f.Confidence = rule.Even
		f.Context = true
		f.Contributing = append(f.Contributing, fmt.Sprintf("Job %s failed (%s) because %s; a failed Job creates no more pods, so it must be run again once the cause is fixed.", j.Name, reason, why))
		f.Title = fmt.Sprintf("job %s failed (%s): %s", j.Name, reason, a.detail)
		f.Summary = fmt.Sprintf("Job %s failed because %s; %s.", j.Name, why, a.detail)
		f.Culprit = a.culprit
	case a.confident:
		f.Strength = rule.Explained
		f.Confidence = a.podConfidence()
		f.Title = fmt.Sprintf("job %s failed (%s): %s", j.Name, reason, a.detail)
		f.Summary = fmt.Sprintf("Job %s failed because %s; %s.", j.Name, why, a.detail)
		f.Culprit = a.culprit
		if reason == "DeadlineExceeded" {
			// A deadline is the Job's own limit: the pods' failure is
			// context (a SIGTERM is the deadline's own doing), the
			// deadline the direct cause.
			f.Strength = rule.Observed
			f.Title = fmt.Sprintf("job %s failed (%s): %s", j.Name, reason, why)
			f.Culprit = fmt.Sprintf("job/%s %s", j.Name, jobLimitField(reason))
			f.Contributing = append(f.Contributing, fmt.Sprintf("When the deadline passed: %s.", a.detail))
		}
	default:
		f.Confidence = rule.Likely
		f.Title = fmt.Sprintf("job %s failed (%s): %s", j.Name, reason, why)
		f.Summary = fmt.Sprintf("Job %s failed because %s.", j.Name, why)
		f.Culprit = fmt.Sprintf("job/%s %s", j.Name, jobLimitField(reason))
		if len(a.pods) == 0 {
			removed = jobPodRemoved(c)
		}
		if removed != nil {
			removed.apply(&f, j.Name, reason)
		} else if len(a.pods) == 0 {
			f.Contributing = append(f.Contributing, "Its pods are gone (deleted by the controller or a TTL), so their exit codes and logs could not be read; the Job's status is all that remains.")
		} else if len(a.failed) > 0 {
			state, ev := kube.DescribePod(c, a.failed[0])
			f.Evidence = append(f.Evidence, ev...)
			f.Contributing = append(f.Contributing, fmt.Sprintf("Pod %s is %s.", a.failed[0].Name, state))
		}
	}
	// With a pod cause, the root cause already names the pods it covers.
	if a.cause == nil && len(a.pods) > 0 && len(a.failed) > 1 {
		var names []string
		for _, p := range a.failed {
			names = append(names, p.Name)
		}
		f.Contributing = append(f.Contributing, fmt.Sprintf("Failed pods collected: %s.", strings.Join(names, ", ")))
	}
	rerun := fmt.Sprintf("kubectl get job %s -n %s -o yaml > %s.yaml   # remove status, metadata.uid/resourceVersion and the controller-uid labels, then: kubectl replace --force -f %s.yaml", j.Name, j.Namespace, j.Name, j.Name)
	if w.Kind == "cronjob" {
		rerun = kube.RunCronJobNow(w.Name, j.Namespace)
	}
	fix := report.Action{Kind: report.Immediate, Description: "Fix what makes the pods fail (see the exit code and log line), then run the Job again: a failed Job never retries.",
		Commands: []string{rerun}, Risk: "re-runs the Job's work; make sure it is safe to repeat"}
	if a.exit != nil {
		fix.Commands = append([]string{fmt.Sprintf("kubectl logs %s -n %s -c %s --tail=50", a.exit.pod.Name, j.Namespace, a.exit.container)}, fix.Commands...)
	}
	if reason == "DeadlineExceeded" {
		fix.Description = "Find out what made the run slow (pods Pending, a stuck dependency, more data than usual), or raise activeDeadlineSeconds, then run the Job again."
	}
	if removed != nil {
		fix = report.Action{Kind: report.Immediate, Description: removed.fix + " Then run the Job again: a failed Job never retries.",
			Commands: []string{rerun}, Risk: "re-runs the Job's work; make sure it is safe to repeat"}
	}
	f.Actions = []report.Action{fix,
		{Kind: report.Check, Description: "Read the Job's events and its pods' states.",
			Commands: []string{fmt.Sprintf("kubectl describe job %s -n %s", j.Name, j.Namespace), fmt.Sprintf("kubectl get pods -n %s -l batch.kubernetes.io/job-name=%s", j.Namespace, j.Name)}}}
	return f
}

// sameCause counts the failed pods whose own cause has the category of
// first.
func sameCause(causes map[string]*rule.Finding, pods []*corev1.Pod, first *rule.Finding) int {
	n := 0
	for _, p := range pods {
		if f := causes[p.Name]; f != nil && f.Category == first.Category {
			n++
		}
	}
	return n
}

func jobLimitField(reason string) string {
	switch reason {
	case "BackoffLimitExceeded":
		return "spec.backoffLimit"
	case "DeadlineExceeded":
		return "spec.activeDeadlineSeconds"
	case "PodFailurePolicy":
		return "spec.podFailurePolicy"
	}
	return "status"
}
