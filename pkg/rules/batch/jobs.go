package batch

import (
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

func jobFailedCondition(j *batchv1.Job) *batchv1.JobCondition {
	if cond, ok := kube.JobFinished(j); ok && cond.Type == batchv1.JobFailed {
		return cond
	}
	return nil
}

// podExit is how a failed pod's container ended, with its decisive log line.
type podExit struct {
	pod       *corev1.Pod
	container string
	term      *corev1.ContainerStateTerminated
	line      *logs.Decisive
}

// failedExit finds the most recent non-zero container exit among the pods.
func failedExit(c *rule.Pass, pods []*corev1.Pod) *podExit {
	var best *podExit
	for _, p := range pods {
		for _, cs := range kube.AllStatuses(p) {
			st := cs.Status
			term := st.State.Terminated
			if term == nil || term.ExitCode == 0 {
				term = st.LastTerminationState.Terminated
			}
			if term == nil || term.ExitCode == 0 {
				continue
			}
			if best == nil || term.FinishedAt.After(best.term.FinishedAt.Time) {
				best = &podExit{pod: p, container: st.Name, term: term}
			}
		}
	}
	if best == nil {
		return nil
	}
	cur, prev := c.B.LogsFor(best.pod.Name, best.container)
	for _, l := range []*bundle.ContainerLog{cur, prev} {
		if l != nil && l.Error == "" {
			if d := logs.FindDecisive(l.Text); d != nil {
				best.line = d
				break
			}
		}
	}
	return best
}

// jobAnalysis is what a failed Job's status and pods say about why it failed.
type jobAnalysis struct {
	cond     *batchv1.JobCondition
	pods     []*corev1.Pod
	failed   []*corev1.Pod
	cause    *rule.Finding // a pod-level finding about one of its pods
	causePod *corev1.Pod
	exit     *podExit
	evidence []string
	// detail is the cause in words ("container app exits with code 1: …"),
	// suffix the category refinement ("MissingEnv", "Exit1").
	detail, suffix, culprit string
	confident               bool // the pods say why (not only the Job status)
}

// podConfidence is how sure the pods make the cause: a decisive log line
// behind the exit makes it verified.
func (a jobAnalysis) podConfidence() rule.Confidence {
	if a.exit != nil && a.exit.line != nil && !a.exit.line.Pattern.Generic() {
		return rule.Strong
	}
	return rule.High
}

func analyzeJob(c *rule.Pass, j *batchv1.Job) jobAnalysis {
	a := jobAnalysis{cond: jobFailedCondition(j), pods: kube.PodsOf(c, j.UID)}
	for _, p := range a.pods {
		if p.Status.Phase == corev1.PodFailed || !kube.IsPodReady(p) && p.Status.Phase != corev1.PodSucceeded {
			a.failed = append(a.failed, p)
		}
	}
	if a.cond != nil {
		a.evidence = append(a.evidence, c.Evidence(
			fmt.Sprintf("Job %s condition Failed=True (%s) at %s: %s", j.Name, a.cond.Reason, kube.Stamp(a.cond.LastTransitionTime.Time), a.cond.Message),
			fmt.Sprintf("job/%s .status.conditions[Failed]", j.Name),
			fmt.Sprintf(`kubectl get job %s -n %s -o jsonpath='{.status.conditions[?(@.type=="Failed")]}'`, j.Name, j.Namespace)))
	}
	a.evidence = append(a.evidence, c.Evidence(
		fmt.Sprintf("Job %s: %d failed, %d succeeded, %d active pods (completions %d, parallelism %d, backoffLimit %d%s)", j.Name, j.Status.Failed, j.Status.Succeeded, j.Status.Active,
			kube.ReplicasOf(j.Spec.Completions), kube.ReplicasOf(j.Spec.Parallelism), BackoffLimit(j), deadlineText(j)),
		fmt.Sprintf("job/%s .status", j.Name), fmt.Sprintf("kubectl get job %s -n %s -o wide", j.Name, j.Namespace)))
	a.causePod, a.cause = kube.FirstCause(kube.PodCauses(c, a.failed), a.failed)
	if a.cause != nil {
		a.detail, a.culprit, a.confident = fmt.Sprintf("pod %s: %s", a.causePod.Name, a.cause.Title), a.cause.Culprit, true
		return a
	}
	if a.exit = failedExit(c, a.failed); a.exit != nil {
		e := a.exit
		code := kube.ExplainExit(e.term.ExitCode)
		a.evidence = append(a.evidence, c.Evidence(
			fmt.Sprintf("Pod %s container %s terminated with exit code %d (%s, reason %s) at %s", e.pod.Name, e.container, e.term.ExitCode, code.Meaning, kube.OrDash(e.term.Reason), kube.Stamp(e.term.FinishedAt.Time)),
			fmt.Sprintf("%s .status.containerStatuses[%s].state.terminated", kube.PodRef(e.pod), e.container),
			kube.StatusCmd(e.pod, e.container, "state.terminated")))
		a.suffix = fmt.Sprintf("Exit%d", e.term.ExitCode)
		a.detail = fmt.Sprintf("container %s exits with code %d (%s)", e.container, e.term.ExitCode, code.Meaning)
		a.culprit = fmt.Sprintf("%s container %s (exit code %d)", kube.PodRef(e.pod), e.container, e.term.ExitCode)
		if e.term.Reason == "OOMKilled" {
			a.suffix, a.detail = "OOMKilled", fmt.Sprintf("container %s is OOMKilled", e.container)
		}
		if d := e.line; d != nil && !d.Pattern.Generic() {
			a.evidence = append(a.evidence, c.Evidence(fmt.Sprintf("Log line: %q", d.Line),
				fmt.Sprintf("logs of %s container %s", kube.PodRef(e.pod), e.container), fmt.Sprintf("kubectl logs %s %s -c %s --tail=50", e.pod.Name, kube.NSFlag(e.pod), e.container)))
			a.suffix = d.Pattern.Class.String()
			detail := ""
			if subj := logs.SubjectOf(d.Pattern.Class, d.Line); subj != "" {
				detail = " (" + subj + ")"
			}
			a.detail += fmt.Sprintf(": %s%s", d.Pattern.Explains, detail)
			a.culprit = fmt.Sprintf("log line of %s container %s: %s", kube.PodRef(e.pod), e.container, d.Line)
		}
		a.confident = true
		return a
	}
	for _, p := range a.failed {
		if p.Status.Phase == corev1.PodFailed && p.Status.Reason != "" {
			state, ev := kube.DescribePod(c, p)
			a.evidence = append(a.evidence, ev...)
			a.suffix = p.Status.Reason
			a.detail = fmt.Sprintf("pod %s %s", p.Name, state)
			a.culprit = fmt.Sprintf("%s (%s)", kube.PodRef(p), p.Status.Reason)
			a.confident = true
			return a
		}
	}
	return a
}

func BackoffLimit(j *batchv1.Job) int32 {
	if j.Spec.BackoffLimit != nil {
		return *j.Spec.BackoffLimit
	}
	return 6
}

func deadlineText(j *batchv1.Job) string {
	if j.Spec.ActiveDeadlineSeconds != nil {
		return fmt.Sprintf(", activeDeadlineSeconds %d", *j.Spec.ActiveDeadlineSeconds)
	}
	return ""
}

// jobWhy says, from the Job's own status, why it failed and how the Job
// controller gets there.
func jobWhy(j *batchv1.Job, cond *batchv1.JobCondition) (why, mechanism string) {
	switch cond.Reason {
	case "BackoffLimitExceeded":
		return fmt.Sprintf("its pods failed %d time(s), more than its backoffLimit of %d", j.Status.Failed, BackoffLimit(j)),
			"A Job retries failed pods with exponential back-off (10s, 20s, 40s… capped at 6 minutes) and gives up once more pods failed than spec.backoffLimit allows; it is then Failed for good and creates no more pods."
	case "DeadlineExceeded":
		ran := "longer than"
		if j.Status.StartTime != nil {
			ran = fmt.Sprintf("from %s until %s, longer than", kube.Stamp(j.Status.StartTime.Time), kube.Stamp(cond.LastTransitionTime.Time))
		}
		why = fmt.Sprintf("it ran %s its activeDeadlineSeconds", ran)
		if j.Spec.ActiveDeadlineSeconds != nil {
			why += fmt.Sprintf(" (%ds)", *j.Spec.ActiveDeadlineSeconds)
		}
		why += fmt.Sprintf(" with %d of %d completions", j.Status.Succeeded, kube.ReplicasOf(j.Spec.Completions))
		return why, "spec.activeDeadlineSeconds bounds the Job's whole run, retries included; when it passes, the controller terminates the running pods and marks the Job Failed with reason DeadlineExceeded, whatever the backoffLimit."
	case "PodFailurePolicy":
		return "a pod failure matched a FailJob rule of its podFailurePolicy: " + cond.Message,
			"A podFailurePolicy rule with action FailJob ends the Job at the first matching pod failure, without retries."
	}
	return fmt.Sprintf("%s: %s", kube.ValueOr(cond.Reason, "Failed"), cond.Message), "The Job controller marked the Job Failed; it creates no more pods."
}
