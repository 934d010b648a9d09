package health

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

var podStatus = &Check{
	ID: "pod/status", Pods: true,
	Doc: "The pod is scheduled and not Failed; no container waits on an error (CrashLoopBackOff, ImagePullBackOff, CreateContainerConfigError…) or last exited non-zero; every running container is ready.",
	Run: func(c *rule.Pass) []Result {
		var out []Result
		prefix := c.B.Target.Kind != "Pod"
		for _, p := range c.B.Pods {
			warm := warmingUp(c, p)
			lines, history := podSymptoms(c, p, prefix, warm)
			for _, l := range history {
				out = append(out, note("%s", l))
			}
			for _, st := range warm {
				out = append(out, note("pod %s: container %s started %s ago and is not ready yet, within its readiness window of %s (no restart, no warning)",
					p.Name, st.name, kube.HumanDuration(st.since), kube.HumanDuration(st.window)))
			}
			if len(lines) > 0 && kube.RetriedAttempt(c, p) {
				// The Job retried and completed: the attempt is history.
				out = append(out, note("pod %s failed before Job %s completed: an earlier attempt the Job retried (%s)", p.Name, c.B.Target.Name, strings.Join(lines, "; ")))
				continue
			}
			for _, l := range lines {
				out = append(out, fail("%s", l))
			}
		}
		if !slices.ContainsFunc(out, failed) && len(c.B.Pods) > 0 && allReady(c.B.Pods) {
			out = append(out, pass("%s", podsLine(c.B.Pods, "scheduled and Ready, every container running and ready")))
		}
		return out
	},
}

// allReady: every pod is Ready or Succeeded, and every regular container of
// a Ready pod runs and is ready.
func allReady(pods []*corev1.Pod) bool {
	for _, p := range pods {
		if p.Status.Phase == corev1.PodSucceeded {
			continue
		}
		if !kube.IsPodReady(p) {
			return false
		}
		for _, st := range p.Status.ContainerStatuses {
			if st.State.Running == nil || !st.Ready {
				return false
			}
		}
	}
	return true
}

// startGrace is how long a pod may take to pull its images and mount its
// volumes before waiting counts as stuck.
const startGrace = 5 * time.Minute

// podStarting catches a pod that never gets its containers going: the
// kubelet keeps it in ContainerCreating (a volume that will not mount, a
// sandbox that will not start) or PodInitializing with no error reason of
// its own, so only the waiting time says something is wrong.
var podStarting = &Check{
	ID: "pod/starting", Pods: true,
	Doc: "No container has been waiting in ContainerCreating or PodInitializing for more than 5 minutes.",
	Run: func(c *rule.Pass) []Result {
		var out []Result
		prefix := c.B.Target.Kind != "Pod"
		for _, p := range c.B.Pods {
			if p.DeletionTimestamp != nil || p.Status.StartTime == nil {
				continue
			}
			since := c.Now.Sub(p.Status.StartTime.Time)
			if since <= startGrace {
				continue
			}
			name := ""
			if prefix {
				name = "pod " + p.Name + ": "
			}
			for _, cs := range kube.AllStatuses(p) {
				w := cs.Status.State.Waiting
				if w == nil || (w.Reason != "ContainerCreating" && w.Reason != "PodInitializing") {
					continue
				}
				kind := "Container"
				if cs.Init {
					kind = "Init container"
				}
				out = append(out, fail("%s%s %s has been waiting in %s for %s since the pod started", name, kind, cs.Status.Name, w.Reason, kube.HumanDuration(since)))
				break
			}
		}
		return out
	},
}

// podsLine names the pods a passed pod check covers.
func podsLine(pods []*corev1.Pod, what string) string {
	if len(pods) == 1 {
		return fmt.Sprintf("Pod %s: %s", pods[0].Name, what)
	}
	names := make([]string, 0, len(pods))
	for _, p := range pods {
		names = append(names, p.Name)
	}
	return fmt.Sprintf("All %d pods (%s): %s", len(pods), kube.NamesUpTo(names, 5), what)
}

// warming is a container that runs and is not ready yet, too soon for
// that to mean anything.
type warming struct {
	name          string
	since, window time.Duration
}

// minReadyWindow is the least time a new container gets before not being
// ready counts: the kubelet's first readiness result takes a probe period.
const minReadyWindow = 30 * time.Second

// readyWindow is how long container ctr may take to become ready before
// its readiness probe can have failed: its startup probe's and readiness
// probe's initialDelaySeconds + periodSeconds x failureThreshold (the API's
// defaults where unset: 10s, 3), at least minReadyWindow.
func readyWindow(ctr *corev1.Container) time.Duration {
	w := time.Duration(0)
	for _, pr := range []*corev1.Probe{ctr.StartupProbe, ctr.ReadinessProbe} {
		if pr == nil {
			continue
		}
		period, failures := pr.PeriodSeconds, pr.FailureThreshold
		if period <= 0 {
			period = 10
		}
		if failures <= 0 {
			failures = 3
		}
		w += time.Duration(pr.InitialDelaySeconds+period*failures) * time.Second
	}
	return max(w, minReadyWindow)
}

// warmingUp are the containers of p that run, are not ready, have never
// restarted, started within their readiness window, and have no warning
// event: a pod coming up (a rollout's new pod), not a fault. The pod's
// other symptoms still count.
func warmingUp(c *rule.Pass, p *corev1.Pod) []warming {
	if p.DeletionTimestamp != nil {
		return nil
	}
	for _, e := range c.B.EventsFor(string(p.UID)) {
		if e.Type == corev1.EventTypeWarning {
			return nil
		}
	}
	var out []warming
	for _, st := range p.Status.ContainerStatuses {
		r := st.State.Running
		if r == nil || st.Ready || st.RestartCount > 0 {
			continue
		}
		ctr := kube.SpecOf(p, st.Name)
		if ctr == nil {
			continue
		}
		since, window := c.Now.Sub(r.StartedAt.Time), readyWindow(ctr)
		if !r.StartedAt.IsZero() && since >= 0 && since < window {
			out = append(out, warming{name: st.Name, since: since, window: window})
		}
	}
	return out
}

// isWarming: container name of p is one warmingUp found.
func isWarming(ws []warming, name string) bool {
	for _, w := range ws {
		if w.name == name {
			return true
		}
	}
	return false
}

// podSymptoms are what is wrong with p now, and its faults that ended (a
// container that crashed once, long ago, and has run and been ready since).
func podSymptoms(c *rule.Pass, p *corev1.Pod, prefix bool, warm []warming) (out, history []string) {
	name := ""
	if prefix {
		name = "pod " + p.Name + ": "
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == corev1.PodScheduled && cond.Status == corev1.ConditionFalse {
			out = append(out, fmt.Sprintf("%sPod is not scheduled (%s): %s", name, cond.Reason, cond.Message))
		}
	}
	if p.Status.Phase == corev1.PodFailed {
		line := name + "Pod phase Failed"
		if p.Status.Reason != "" {
			line += " (" + p.Status.Reason + ")"
		}
		if p.Status.Message != "" {
			line += ": " + p.Status.Message
		}
		out = append(out, line)
	}
	for _, cs := range kube.AllStatuses(p) {
		kind := "Container"
		if cs.Init {
			kind = "Init container"
		}
		st := cs.Status
		if w := st.State.Waiting; w != nil && w.Reason != "" && w.Reason != "PodInitializing" && w.Reason != "ContainerCreating" {
			line := fmt.Sprintf("%s%s %s is waiting: %s", name, kind, st.Name, w.Reason)
			if st.RestartCount > 0 {
				line += fmt.Sprintf(" (%d restarts)", st.RestartCount)
			}
			if w.Message != "" {
				line += ": " + w.Message
			}
			out = append(out, line)
		}
		if t := st.LastTerminationState.Terminated; t != nil && t.ExitCode != 0 && !kube.LostByRuntime(st) {
			line := fmt.Sprintf("%s%s %s last terminated with exit code %d (%s) at %s",
				name, kind, st.Name, t.ExitCode, t.Reason, t.FinishedAt.UTC().Format(time.RFC3339))
			if kube.RecoveredOnce(st, c.Now) {
				history = append(history, line+fmt.Sprintf(", and has run and been ready since %s: history, not a current fault", kube.Since(c, st.State.Running.StartedAt.Time)))
			} else {
				out = append(out, line)
			}
		}
		if t := st.State.Terminated; t != nil && t.ExitCode != 0 {
			out = append(out, fmt.Sprintf("%s%s %s terminated with exit code %d (%s)", name, kind, st.Name, t.ExitCode, t.Reason))
		}
		if !cs.Init && st.State.Running != nil && !st.Ready && !isWarming(warm, st.Name) {
			out = append(out, fmt.Sprintf("%sContainer %s is running but not ready", name, st.Name))
		}
	}
	return out, history
}

// podRestarts catches what podStatus cannot see: a long-running container
// (restartPolicy Always) that exits 0 and is restarted, which the kubelet
// records as Completed, not as a crash; and a pod whose containers are all
// ready while a readiness gate keeps the pod out of its Services.
var podRestarts = &Check{
	ID: "pod/restarts", Pods: true,
	Doc: "No container of a pod that must keep running exited and was restarted within the last hour, even with exit code 0; every readiness gate is satisfied.",
	Run: func(c *rule.Pass) []Result {
		var out []Result
		prefix := c.B.Target.Kind != "Pod"
		restarted := false
		for _, p := range c.B.Pods {
			name := ""
			if prefix {
				name = "pod " + p.Name + ": "
			}
			for _, cs := range kube.AllStatuses(p) {
				if t := cs.Status.LastTerminationState.Terminated; t != nil && c.Now.Sub(t.FinishedAt.Time) <= kube.RestartWindow {
					restarted = true
				}
			}
			always := p.Spec.RestartPolicy == "" || p.Spec.RestartPolicy == corev1.RestartPolicyAlways
			for _, st := range p.Status.ContainerStatuses {
				t := st.LastTerminationState.Terminated
				if !always || t == nil || t.ExitCode != 0 || st.RestartCount == 0 || c.Now.Sub(t.FinishedAt.Time) > kube.RestartWindow {
					continue
				}
				out = append(out, fail("%sContainer %s exited with code 0 (%s) at %s and was restarted (%d restarts): its process ends although the pod must keep it running",
					name, st.Name, t.Reason, t.FinishedAt.UTC().Format(time.RFC3339), st.RestartCount))
			}
			for _, gate := range p.Spec.ReadinessGates {
				ok := false
				for _, cond := range p.Status.Conditions {
					if cond.Type == gate.ConditionType && cond.Status == corev1.ConditionTrue {
						ok = true
					}
				}
				if !ok && p.Status.Phase == corev1.PodRunning {
					out = append(out, fail("%sReadiness gate %s is not satisfied: the pod is not Ready and receives no Service traffic", name, gate.ConditionType))
				}
			}
		}
		if len(out) == 0 && !restarted && len(c.B.Pods) > 0 {
			out = append(out, pass("%s", podsLine(c.B.Pods, "no container restarted in the last hour")))
		}
		return out
	},
}

var podLogErrors = &Check{
	ID: "pod/log-errors", Pods: true,
	Doc: "No running container's current log holds a burst of error-level records (3 or more in its last 15 minutes).",
	Run: func(c *rule.Pass) []Result {
		var out []Result
		read, unread := 0, []string{}
		prefix := c.B.Target.Kind != "Pod"
		for _, p := range c.B.Pods {
			for _, st := range p.Status.ContainerStatuses {
				if st.State.Running == nil {
					continue
				}
				l, _ := c.B.LogsFor(p.Name, st.Name)
				if l == nil && len(c.B.Logs) == 0 {
					continue // logs were not part of this kind's collection
				}
				if l == nil || l.Error != "" {
					unread = append(unread, p.Name+"/"+st.Name)
					continue
				}
				read++
				b := kube.ErrorBurst(l.Text, c.Now)
				n, last, first := b.N, b.Last, b.First
				if n < kube.BurstErrors {
					continue
				}
				name := ""
				if prefix {
					name = "pod " + p.Name + ": "
				}
				line := fmt.Sprintf("%sContainer %s is running but logged %d error-level records in its last %s: %q", name, st.Name, n, kube.HumanDuration(kube.BurstWindow), clip(last))
				if first != last {
					line += fmt.Sprintf(" (the first: %q)", clip(first))
				}
				out = append(out, fail("%s", line))
			}
		}
		if len(unread) > 0 && len(c.B.Pods) > 0 {
			out = append(out, unchecked("Not checked: error bursts in the current logs of %s (not read)", kube.NamesUpTo(unread, 5)))
		}
		if len(out) == 0 && read > 0 {
			out = append(out, pass("No running container logs a burst of errors (%d current log(s) read)", read))
		}
		return out
	},
}

func clip(s string) string {
	s = kube.FirstLine(s)
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}
