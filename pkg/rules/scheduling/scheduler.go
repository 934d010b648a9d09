package scheduling

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// withScheduler refines "no scheduler named X has looked at the pod" with
// the scheduler the collector looked for (a workload whose container runs
// with --scheduler-name=X): down or failing, its state and log are the
// cause; not found, the finding says what was searched (docs/DESIGN.md,
// "Correlations").
func withScheduler(c *rule.Pass, f rule.Finding, p *corev1.Pod, name string) rule.Finding {
	k := kube.ControllerOf(c, bundle.RoleScheduler, kube.PodRef(p))
	if k == nil {
		return f
	}
	if k.Pod == nil {
		f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("No pod runs a scheduler named %s: %s", name, k.Actor.SearchedText()),
			"the collector's search for the scheduler", "kubectl get pods -A -o wide | grep -i scheduler"))
		if k.Actor.Complete {
			f.Confidence = rule.Strong
			f.Title = fmt.Sprintf("pod names scheduler %q, and no workload runs a scheduler of that name", name)
			f.Summary = fmt.Sprintf("Pod %s asks for scheduler %q; no Deployment, StatefulSet or DaemonSet runs a container with --scheduler-name=%s (%s), so nothing will ever schedule it: the name is wrong or that scheduler is not installed.", p.Name, name, name, k.Actor.SearchedText())
		}
		return f
	}
	f.Evidence = append(f.Evidence, k.Evidence...)
	f.Strength = rule.Traced
	said := ""
	if k.Line != "" {
		said = fmt.Sprintf("; its log says %q", k.Line)
	}
	if !k.Down && k.Line == "" {
		f.Summary += fmt.Sprintf(" Scheduler %s's %s is %s and logs no error.", name, k.Ref, k.State)
		return f
	}
	f.Category = rule.Unschedulable.Sub("NoScheduler", "SchedulerFailing")
	f.Confidence = rule.Strong
	f.Hypothesis = fmt.Sprintf("Scheduler %s (%s) is %s and does not schedule pod %s", name, k.Ref, k.State, p.Name)
	f.Title = fmt.Sprintf("pod waits for scheduler %q, whose %s is %s%s", name, k.Ref, k.State, said)
	f.Summary = fmt.Sprintf("Pod %s asks for scheduler %q (spec.schedulerName); that scheduler runs as %s (%s), which is %s%s: until it can schedule, the pod gets no condition and no event.", p.Name, name, k.Ref, k.Actor.Workload, k.State, said)
	f.Culprit = fmt.Sprintf("scheduler %s (%s)%s", name, k.Ref, said)
	f.Mechanism = "Each pod is handled only by the scheduler its spec.schedulerName names; a scheduler that cannot start its work (its informers refused a list, its configuration rejected) records nothing on the pods it would place."
	fix := report.Action{Kind: report.Immediate,
		Description: fmt.Sprintf("Fix what scheduler %s's log says, then restart it; the pod is scheduled once its scheduler runs.", name),
		Commands:    []string{fmt.Sprintf("kubectl logs %s -n %s --tail=50", k.Pod.Name, k.Pod.Namespace)}}
	if d, ok := k.Denied(c); ok {
		f.Culprit += d.Clause()
		f.Contributing = append(f.Contributing, "A scheduler's informers must list and watch every resource its plugins read: one it may not list never syncs, and the scheduler waits for its caches before it schedules anything. The fix is its ClusterRole, not the pod.")
		fix.Description = fmt.Sprintf("Grant ServiceAccount %s/%s get, list and watch on %s in the ClusterRole bound to it, then restart scheduler %s; the pod is scheduled once its caches sync.", d.Namespace, d.Account, d.List(), name)
		fix.Commands = append(fix.Commands, d.Checks()...)
	}
	f.Actions = []report.Action{fix}
	return f
}

// schedulerFailing: the scheduler the pod names was found down or logging
// an error.
func schedulerFailing(c *rule.Pass, p *corev1.Pod) bool {
	return kube.ControllerFailing(c, bundle.RoleScheduler, kube.PodRef(p))
}
