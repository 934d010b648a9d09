package kube

import (
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/logs"
)

// ProbeFailure returns the kubelet's latest readiness/startup probe failure
// event about the pod.
func ProbeFailure(c *rule.Pass, p *corev1.Pod) *corev1.Event {
	var out *corev1.Event
	for _, e := range c.B.EventsFor(string(p.UID)) {
		if e.Reason == "Unhealthy" && (strings.HasPrefix(e.Message, "Readiness probe failed") || strings.HasPrefix(e.Message, "Startup probe failed")) {
			e := e
			out = &e
		}
	}
	return out
}

// DescribePod says in one phrase why a pod is not Ready, from its status
// alone, and registers the evidence for it.
func DescribePod(c *rule.Pass, p *corev1.Pod) (string, []string) {
	src := PodRef(p) + " .status"
	cmd := fmt.Sprintf("kubectl get pod %s %s -o wide", p.Name, NSFlag(p))
	ev := func(fact string) []string { return []string{c.Evidence(fact, src, cmd)} }
	switch p.Status.Phase {
	case corev1.PodSucceeded:
		return "Succeeded", nil
	case corev1.PodFailed:
		s := "Failed"
		if p.Status.Reason != "" {
			s += " (" + p.Status.Reason + ")"
		}
		if p.Status.Message != "" {
			s += ": " + FirstLine(p.Status.Message)
		}
		return s, ev(fmt.Sprintf("Pod %s phase %s", p.Name, s))
	}
	if p.Spec.NodeName == "" {
		for _, cond := range p.Status.Conditions {
			if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
				s := fmt.Sprintf("Pending, not scheduled (%s: %s)", cond.Reason, FirstLine(cond.Message))
				return s, ev(fmt.Sprintf("Pod %s is %s", p.Name, s))
			}
		}
		s := "Pending and not scheduled, with no scheduling decision recorded"
		return s, ev(fmt.Sprintf("Pod %s is %s", p.Name, s))
	}
	for _, cs := range AllStatuses(p) {
		st := cs.Status
		if w := st.State.Waiting; w != nil && w.Reason != "" && w.Reason != "PodInitializing" {
			s := fmt.Sprintf("container %s is waiting: %s", st.Name, w.Reason)
			if st.RestartCount > 0 {
				s += fmt.Sprintf(" (%d restarts)", st.RestartCount)
			}
			return s, ev(fmt.Sprintf("Pod %s: %s", p.Name, s))
		}
		if run := st.State.Running; cs.Init && run != nil {
			// An init container that never exits holds the pod before its
			// app containers start: usually a wait-for-dependency loop.
			s := fmt.Sprintf("init container %s has been running since %s without finishing", st.Name, Since(c, run.StartedAt.Time))
			ids := ev(fmt.Sprintf("Pod %s: %s", p.Name, s))
			if line := LastLogLine(c, p.Name, st.Name); line != "" {
				s += fmt.Sprintf(" (last log line: %q)", line)
				ids = append(ids, c.Evidence(fmt.Sprintf("Last log line of init container %s: %q", st.Name, line),
					fmt.Sprintf("logs of %s init container %s", PodRef(p), st.Name), LogsCmd(p, st.Name, false)))
			}
			return s, ids
		}
		if t := st.State.Terminated; t != nil && t.ExitCode != 0 {
			s := fmt.Sprintf("container %s terminated with exit code %d (%s)", st.Name, t.ExitCode, OrDash(t.Reason))
			return s, ev(fmt.Sprintf("Pod %s: %s", p.Name, s))
		}
	}
	if IsPodReady(p) {
		return "Ready", nil
	}
	if gates, ok := GatedOnly(p); ok {
		// Not a probe: a controller has not set the pod's readiness gate.
		s := "Running with every container Ready, but " + gates[0].Describe()
		return s, ev(fmt.Sprintf("Pod %s is %s", p.Name, s))
	}
	if p.Status.Phase == corev1.PodRunning {
		var notReady []string
		for _, st := range p.Status.ContainerStatuses {
			if !st.Ready {
				notReady = append(notReady, st.Name)
			}
		}
		s := "Running but not Ready"
		if len(notReady) > 0 {
			s = fmt.Sprintf("Running, but container %s is not Ready", strings.Join(notReady, ", "))
		}
		ids := ev(fmt.Sprintf("Pod %s is %s", p.Name, s))
		if e := ProbeFailure(c, p); e != nil {
			s += ": " + ProbeMessage(e.Message)
			ids = append(ids, EventEvidence(c, *e))
		}
		return s, ids
	}
	s := "phase " + OrDash(string(p.Status.Phase))
	return s, ev(fmt.Sprintf("Pod %s is in %s", p.Name, s))
}

// LastLogLine is the last non-empty line of a container's current log.
func LastLogLine(c *rule.Pass, pod, container string) string {
	cur, _ := c.B.LogsFor(pod, container)
	if cur == nil || cur.Error != "" {
		return ""
	}
	lines := strings.Split(strings.TrimRight(cur.Text, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if _, line := logs.SplitTimestamp(lines[i]); strings.TrimSpace(line) != "" {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// JobFinished returns the condition that ended the Job, if any.
func JobFinished(j *batchv1.Job) (*batchv1.JobCondition, bool) {
	for i := range j.Status.Conditions {
		cond := &j.Status.Conditions[i]
		if (cond.Type == batchv1.JobFailed || cond.Type == batchv1.JobComplete) && cond.Status == corev1.ConditionTrue {
			return cond, true
		}
	}
	return nil, false
}

// RetriedAttempt reports whether p is an attempt the target Job retried and
// then completed without: the Job is Complete and p, one of its pods,
// failed no later than that. Its failure is history, not the Job's state.
func RetriedAttempt(c *rule.Pass, p *corev1.Pod) bool {
	if c.B.Target.Kind != "Job" || p.Status.Phase != corev1.PodFailed {
		return false
	}
	var job *batchv1.Job
	for _, j := range c.B.Jobs {
		if j.Name == c.B.Target.Name && j.Namespace == c.B.Target.Namespace {
			job = j
		}
	}
	if job == nil {
		return false
	}
	cond, done := JobFinished(job)
	if !done || cond.Type != batchv1.JobComplete {
		return false
	}
	owned := false
	for _, o := range p.OwnerReferences {
		owned = owned || o.UID == job.UID
	}
	if !owned {
		return false
	}
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && t.FinishedAt.After(cond.LastTransitionTime.Time) {
			return false
		}
	}
	return true
}
