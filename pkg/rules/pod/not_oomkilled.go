package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// NotOOMKilled is the rule pod/not-oomkilled.
var NotOOMKilled = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/not-oomkilled",
		Layer: rule.PodLayer,
		Needs: rule.PodEvidence,
		Doc:   "An exit code 137 without reason OOMKilled: an OOM kill the runtime did not record, or a SIGKILL from elsewhere, said honestly.",
	},
	Check: checkNotOOMKilled,
}

// checkNotOOMKilled reads a container that died from SIGKILL (137) without
// reason OOMKilled. The runtime does not always record an OOM kill: when
// it handles the task's exit before the kernel's OOM event, the status
// says Error (seen on the real node under load, and in kubernetes#19825).
// So with a memory limit and nothing else that kills containers (the
// kubelet's Killing of a failed liveness probe, a deletion, an eviction or
// preemption), the OOM killer stays the likely cause; otherwise the OOM
// hypothesis is refuted.
func checkNotOOMKilled(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		for _, cs := range kube.AllStatuses(p) {
			st := cs.Status
			t := st.LastTerminationState.Terminated
			current := st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff" || kube.JustRestarted(st, c.Now)
			if st.State.Terminated != nil {
				t, current = st.State.Terminated, true
			}
			if t == nil || t.ExitCode != 137 || t.Reason == "OOMKilled" {
				continue
			}
			status := c.Evidence(
				fmt.Sprintf("Container %s died from SIGKILL (exit code 137) with reason %s, not OOMKilled, at %s", st.Name, kube.OrDash(t.Reason), t.FinishedAt.UTC().Format("2006-01-02 15:04:05 UTC")),
				fmt.Sprintf("%s .status.containerStatuses[%s].lastState.terminated", kube.PodRef(p), st.Name),
				kube.StatusCmd(p, st.Name, "lastState.terminated"))
			limit := memoryLimit(p, st.Name)
			if killer := sigkillSource(c, p, st.Name); killer != "" || limit == "" {
				out = append(out, rule.Finding{
					Category:   rule.OOMKilled,
					Hypothesis: fmt.Sprintf("Container %s is OOMKilled at its memory limit", st.Name),
					Verdict:    report.Refuted, Confidence: rule.Negligible, Subject: p.Name + "/" + st.Name,
					Evidence: []string{status},
				})
				continue
			}
			out = append(out, unrecordedOOM(c, p, st, limit, status, current))
		}
	}
	return out
}

// unrecordedOOM: SIGKILL at a memory limit with nothing else to send it.
func unrecordedOOM(c *rule.Pass, p *corev1.Pod, st corev1.ContainerStatus, limit, status string, current bool) rule.Finding {
	lim := c.Evidence(fmt.Sprintf("Container %s has memory limit %s", st.Name, limit),
		fmt.Sprintf("%s .spec.containers[%s].resources", kube.PodRef(p), st.Name),
		fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[?(@.name=="%s")].resources}'`, p.Name, kube.NSFlag(p), st.Name))
	none := c.Evidence(fmt.Sprintf("Nothing else killed container %s: no Killing or liveness Unhealthy event, no deletion, eviction or preemption of pod %s", st.Name, p.Name),
		"events of "+kube.PodRef(p), fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s", kube.NSFlag(p), p.Name))
	kind, owner := kube.OwnerName(c, p)
	node := kube.OrDash(p.Spec.NodeName)
	return rule.Finding{
		Category:   rule.OOMKilled.Sub("Unrecorded"),
		Hypothesis: fmt.Sprintf("Container %s is killed by the OOM killer at its memory limit %s, unrecorded by the runtime", st.Name, limit),
		Verdict:    report.Validated, Confidence: rule.Moderate, Evidence: []string{status, lim, none},
		Title:     fmt.Sprintf("container %s is killed by SIGKILL (exit 137) at its memory limit %s with nothing else to kill it: most likely the kernel OOM killer, though the runtime recorded reason Error, not OOMKilled", st.Name, limit),
		Summary:   fmt.Sprintf("Container %s of pod %s died from SIGKILL (exit code 137). Its status does not say OOMKilled, but it runs under memory limit %s and no kubelet kill, deletion, eviction or preemption explains the signal: the kernel OOM killer at that limit is the likely sender (a runtime that handles the exit before the OOM event records Error).", st.Name, p.Name, limit),
		Mechanism: "When a container's memory reaches its cgroup limit the kernel kills a process in it with SIGKILL (exit 137). The runtime marks the exit OOMKilled only if it sees the cgroup's OOM event in time; otherwise the status says Error.",
		Culprit:   fmt.Sprintf("%s container %s resources.limits.memory (%s)", kube.PodRef(p), st.Name, limit),
		Actions: []report.Action{
			raiseMemory(p, kind, owner, st.Name, doubledLimit(p, st.Name)),
			{Kind: report.Check, Description: fmt.Sprintf("Confirm the OOM kill on node %s: the kernel logs each one (\"Memory cgroup out of memory: Killed process …\").", node),
				Commands: []string{fmt.Sprintf("ssh %s 'journalctl -k --since \"1 hour ago\" | grep -i -e \"out of memory\" -e oom_reaper'", node),
					fmt.Sprintf("kubectl top pod %s %s --containers", p.Name, kube.NSFlag(p))}},
		},
		Current: current, Strength: rule.Explained, Subject: p.Name + "/" + st.Name,
	}
}

// memoryLimit is the container's memory limit, "" without one.
func memoryLimit(p *corev1.Pod, container string) string {
	if q, ok := limitOf(p, container); ok {
		return q.String()
	}
	return ""
}

// doubledLimit is twice the container's memory limit: the value a raised
// limit is proposed at.
func doubledLimit(p *corev1.Pod, container string) string {
	q, ok := limitOf(p, container)
	if !ok {
		return "<a higher limit, e.g. 2x the current one>"
	}
	d := q.DeepCopy()
	d.Add(q)
	return d.String()
}

func limitOf(p *corev1.Pod, container string) (resource.Quantity, bool) {
	if spec := kube.SpecOf(p, container); spec != nil {
		q, ok := spec.Resources.Limits[corev1.ResourceMemory]
		return q, ok
	}
	return resource.Quantity{}, false
}

// sigkillSource names what, other than the OOM killer, sends a container
// SIGKILL, when the evidence shows it: the kubelet killing it (a failed
// liveness or startup probe, a stop), the pod's deletion, eviction or
// preemption. "" when nothing does.
func sigkillSource(c *rule.Pass, p *corev1.Pod, container string) string {
	if p.DeletionTimestamp != nil {
		return "the pod is being deleted"
	}
	if p.Status.Reason == "Evicted" || p.Status.Reason == "Preempting" {
		return "the pod was " + strings.ToLower(p.Status.Reason)
	}
	if spec := kube.SpecOf(p, container); spec != nil && (spec.LivenessProbe != nil || spec.StartupProbe != nil) {
		// Its probe's failures may have left no event in the bundle (they
		// expire); the probe rules read the probe itself.
		return "the kubelet kills it when its liveness or startup probe fails"
	}
	for _, e := range c.B.EventsFor(string(p.UID)) {
		fp := e.InvolvedObject.FieldPath
		if fp != "" && fp != "spec.containers{"+container+"}" && fp != "spec.initContainers{"+container+"}" {
			continue
		}
		switch {
		case e.Reason == "Killing", e.Reason == "Preempting", e.Reason == "Evicted":
			return e.Reason + ": " + e.Message
		case e.Reason == "Unhealthy" && (strings.HasPrefix(e.Message, "Liveness probe") || strings.HasPrefix(e.Message, "Startup probe")):
			return e.Reason + ": " + e.Message
		}
	}
	return ""
}

// onlyProbeKills: nothing but this probe is left to have killed the
// container's last run (exit 137 or 143 without OOMKilled) when no event
// says who did: the pod is not being deleted, evicted or preempted, no
// Killing event names another cause, and the container has no other probe
// that restarts it (a liveness and a startup probe together leave it
// open which one did).
func onlyProbeKills(c *rule.Pass, p *corev1.Pod, ctr *corev1.Container, st *corev1.ContainerStatus, kind probeKind) bool {
	if st == nil || st.LastTerminationState.Terminated == nil {
		return false
	}
	if t := st.LastTerminationState.Terminated; t.Reason == "OOMKilled" || p.DeletionTimestamp != nil || p.Status.Reason == "Evicted" || p.Status.Reason == "Preempting" {
		return false
	}
	if (ctr.LivenessProbe != nil) == (ctr.StartupProbe != nil) || kind.of(ctr) == nil {
		return false
	}
	for _, e := range c.B.EventsFor(string(p.UID)) {
		if e.Reason == "Killing" && eventAboutContainer(&e, ctr.Name) {
			return false
		}
	}
	return true
}
