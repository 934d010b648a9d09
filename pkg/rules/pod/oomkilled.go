package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// OOMKilled is the rule pod/oomkilled.
var OOMKilled = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/oomkilled",
		Layer: rule.PodLayer,
		Needs: rule.PodEvidence,
		Doc:   "A container the kernel killed for exceeding its memory limit (reason OOMKilled).",
	},
	Check: checkOOMKilled,
}

// checkOOMKilled: a container killed by the kernel's OOM killer at its limit.
func checkOOMKilled(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		for _, cs := range kube.AllStatuses(p) {
			st := cs.Status
			term, current := st.LastTerminationState.Terminated, false
			if st.State.Terminated != nil && st.State.Terminated.Reason == "OOMKilled" {
				term, current = st.State.Terminated, true
			}
			if term == nil || term.Reason != "OOMKilled" {
				continue
			}
			if st.State.Waiting != nil && st.State.Waiting.Reason == "CrashLoopBackOff" || kube.JustRestarted(st, c.Now) {
				current = true
			}
			limit := "no memory limit"
			if l := memoryLimit(p, st.Name); l != "" {
				limit = "memory limit " + l
			}
			e1 := c.Evidence(
				fmt.Sprintf("Container %s last terminated with reason OOMKilled, exit code %d, at %s (%d restarts)", st.Name, term.ExitCode, kube.Stamp(term.FinishedAt.Time), st.RestartCount),
				fmt.Sprintf("%s .status.containerStatuses[%s].lastState.terminated", kube.PodRef(p), st.Name),
				kube.StatusCmd(p, st.Name, "lastState.terminated"))
			e2 := c.Evidence(fmt.Sprintf("Container %s has %s", st.Name, limit),
				fmt.Sprintf("%s .spec.containers[%s].resources", kube.PodRef(p), st.Name),
				fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[?(@.name=="%s")].resources}'`, p.Name, kube.NSFlag(p), st.Name))
			kind, owner := kube.OwnerName(c, p)
			newLimit := doubledLimit(p, st.Name)
			title := fmt.Sprintf("container %s is OOMKilled at its %s", st.Name, limit)
			summary := fmt.Sprintf("Container %s of pod %s uses more memory than its %s allows; the kernel OOM killer ends it (exit code 137) and the kubelet restarts it.", st.Name, p.Name, limit)
			if !current {
				// History: it runs again now. Say when it happened:
				// "is OOMKilled" about a kill 3 days before reads as current.
				title = fmt.Sprintf("container %s was OOMKilled at its %s at %s, and has run since", st.Name, limit, kube.Since(c, term.FinishedAt.Time))
				summary = fmt.Sprintf("Container %s of pod %s was killed by the kernel OOM killer at its %s at %s (exit code 137); the kubelet restarted it and it has run since. It may happen again at the next peak.", st.Name, p.Name, limit, kube.Since(c, term.FinishedAt.Time))
			}
			culprit := fmt.Sprintf("%s container %s resources.limits.memory (%s)", kube.PodRef(p), st.Name, strings.TrimPrefix(limit, "memory limit "))
			var contributing []string
			var heapAction []report.Action
			if ctr := containerSpec(p, st.Name); ctr != nil {
				if set := settingAtLimit(p, ctr); set != nil {
					// The runtime was told it may use the whole limit: the
					// setting, not the workload's peak, is what to change.
					title += fmt.Sprintf(": its %s %s (%s) is as large as the limit", set.Runtime, set.Text, set.Where)
					culprit += fmt.Sprintf(" and %s %s, which sizes the %s to the whole limit", set.Where, set.Text, set.Runtime)
					contributing = append(contributing, fmt.Sprintf("%s sets %s, at or above the container's %s: the runtime needs memory beside it (metaspace, thread stacks, buffers, native memory), so the kernel kills the container before the runtime reports running out.", set.Where, set.Text, limit))
					e2 = c.Evidence(fmt.Sprintf("Container %s has %s and %s sets %s", st.Name, limit, set.Where, set.Text),
						fmt.Sprintf("%s .spec.containers[%s]", kube.PodRef(p), st.Name),
						fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[?(@.name=="%s")].env}{"\n"}{.spec.containers[?(@.name=="%s")].resources}'`, p.Name, kube.NSFlag(p), st.Name, st.Name))
					heapAction = []report.Action{{Kind: report.Immediate,
						Description: fmt.Sprintf("Size the %s below the limit, leaving room for the rest (for a JVM, -XX:MaxRAMPercentage=75 instead of %s; for Node.js or Go, about 75%% of the limit), or raise the limit above the setting.", set.Runtime, set.Text),
						Commands:    []string{fmt.Sprintf(`kubectl get pod %s %s -o jsonpath='{.spec.containers[?(@.name=="%s")].env}'`, p.Name, kube.NSFlag(p), st.Name)}}}
				}
			}
			out = append(out, rule.Finding{
				Contributing: contributing,
				Category:     rule.OOMKilled,
				Hypothesis:   fmt.Sprintf("Container %s is killed for exceeding its memory (%s)", st.Name, limit),
				Verdict:      report.Validated, Confidence: rule.Definitive, Evidence: []string{e1, e2},
				Title:   title,
				Summary: summary,
				Mechanism: "When a container's memory usage reaches its cgroup limit, the kernel kills its process (SIGKILL, exit 137) and the kubelet records reason OOMKilled. " +
					"Either the limit is too low for the workload's real peak, or the application leaks memory.",
				Culprit: culprit,
				Actions: append(heapAction,
					raiseMemory(p, kind, owner, st.Name, newLimit),
					report.Action{Kind: report.LongTerm, Description: "Measure the container's real memory use under load (kubectl top pod, or your metrics) and fix a leak or size the limit and any runtime heap setting (-Xmx, GOMEMLIMIT) to it.",
						Commands: []string{fmt.Sprintf("kubectl top pod %s %s --containers", p.Name, kube.NSFlag(p))}},
				),
				Current: current, Strength: rule.Explained, Subject: p.Name + "/" + st.Name,
			})
		}
	}
	return out
}

// raiseMemory proposes a higher limit on the workload, or, for a bare pod
// or a Job whose limits cannot be changed by `kubectl set resources`, a
// recreate.
func raiseMemory(p *corev1.Pod, kind, owner, container, limit string) report.Action {
	a := report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Raise the memory limit of container %s so it fits the workload's peak.", container),
		Commands:    []string{fmt.Sprintf("kubectl set resources %s/%s %s -c %s --limits=memory=%s", kind, owner, kube.NSFlag(p), container, limit)},
		Risk:        kube.TemplateRisk(kind, "the pods restart with the new limit") + "; a higher limit needs room on the node and may leave a leak unfixed"}
	a.Commands = kube.TemplateCommands(kind, owner, p.Namespace, a.Commands, fmt.Sprintf("set resources.limits.memory: %s for container %s", limit, container), "")
	if kind == "pod" {
		a.Description += " A bare pod's limits cannot be set in place: change the manifest and recreate the pod."
		a.Commands = []string{
			fmt.Sprintf("kubectl get pod %s %s -o yaml > %s.yaml   # set resources.limits.memory: %s for container %s", p.Name, kube.NSFlag(p), p.Name, limit, container),
			fmt.Sprintf("kubectl replace --force -f %s.yaml", p.Name),
		}
		a.Risk = "replace --force deletes and recreates the pod; a higher limit needs room on the node and may leave a leak unfixed"
	}
	return a
}
