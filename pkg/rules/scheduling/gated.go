package scheduling

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

func gatedFinding(c *rule.Pass, p *corev1.Pod, cond *corev1.PodCondition) rule.Finding {
	var gates []string
	for _, g := range p.Spec.SchedulingGates {
		gates = append(gates, g.Name)
	}
	fact := fmt.Sprintf("Pod has scheduling gate(s) %s", strings.Join(gates, ", "))
	if cond != nil {
		fact = fmt.Sprintf("PodScheduled=False (%s): %s; scheduling gate(s): %s", cond.Reason, cond.Message, strings.Join(gates, ", "))
	}
	ev := c.Evidence(fact, kube.PodRef(p)+" .spec.schedulingGates", fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.schedulingGates}'", p.Name, kube.NSFlag(p)))
	return rule.Finding{
		Category: rule.Unschedulable.Sub("SchedulingGated"), Verdict: report.Validated, Confidence: rule.Definitive, Evidence: []string{ev},
		Hypothesis: "The pod is held back from scheduling by scheduling gates",
		Title:      fmt.Sprintf("pod is not scheduled: scheduling gate(s) %s hold it back", strings.Join(gates, ", ")),
		Summary:    fmt.Sprintf("Pod %s stays Pending because it carries scheduling gate(s) %s: the scheduler ignores it until they are removed.", p.Name, strings.Join(gates, ", ")),
		Mechanism: "A pod with spec.schedulingGates is not considered by the scheduler at all until every gate is removed; the controller that added the gate " +
			"(a queueing system such as Kueue, or an admission webhook) removes it when it admits the pod.",
		Culprit: fmt.Sprintf("%s .spec.schedulingGates (%s)", kube.PodRef(p), strings.Join(gates, ", ")),
		Actions: []report.Action{
			{Kind: report.Check, Description: "Find the controller that owns the gate (its name usually says which) and why it has not admitted the pod: quota, queue order, a missing resource.",
				Commands: []string{fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.schedulingGates}{\"\\n\"}{.metadata.annotations}'", p.Name, kube.NSFlag(p))}},
			{Kind: report.Immediate, Description: "Remove the gates by hand only if the controller that set them is gone.",
				Commands: []string{fmt.Sprintf(`kubectl patch pod %s %s --type=json -p '[{"op":"remove","path":"/spec/schedulingGates"}]'`, p.Name, kube.NSFlag(p))},
				Risk:     "bypasses the quota or ordering the gating controller enforces"},
		},
		Current: true, Strength: rule.Explained, Subject: p.Name,
	}
}

// noSchedulerAfter is how long a pod may wait for its first scheduling
// attempt before the absence of one is a finding.
const noSchedulerAfter = time.Minute

// noSchedulerFinding: a Pending pod without a PodScheduled condition or a
// FailedScheduling event has not been looked at by any scheduler.
func noSchedulerFinding(c *rule.Pass, p *corev1.Pod) (rule.Finding, bool) {
	age := c.Now.Sub(p.CreationTimestamp.Time)
	// A young pod may simply not have been looked at yet, unless its
	// scheduler is seen failing.
	if (p.CreationTimestamp.IsZero() || age < noSchedulerAfter) && !schedulerFailing(c, p) {
		return rule.Finding{}, false
	}
	name := p.Spec.SchedulerName
	if name == "" {
		name = corev1.DefaultSchedulerName
	}
	ev := c.Evidence(fmt.Sprintf("Pod is Pending for %s with no node, no PodScheduled condition and no FailedScheduling event; schedulerName %s", age.Round(time.Second), name),
		kube.PodRef(p)+" .spec.schedulerName, .status.conditions",
		fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.spec.schedulerName}{\"\\n\"}{.status.conditions}'", p.Name, kube.NSFlag(p)))
	f := rule.Finding{
		Category: rule.Unschedulable.Sub("NoScheduler"), Verdict: report.Validated, Evidence: []string{ev},
		Hypothesis: fmt.Sprintf("No scheduler named %s is processing the pod", name),
		Mechanism:  "Each pod is handled only by the scheduler named in spec.schedulerName; if that scheduler is not running (or the name is misspelled) the pod stays Pending with no condition and no event.",
		Current:    true, Strength: rule.Observed, Subject: p.Name,
	}
	if name == corev1.DefaultSchedulerName {
		f.Confidence = rule.Fair
		f.Title = fmt.Sprintf("pod has not been looked at by kube-scheduler in %s: the scheduler may be down", age.Round(time.Second))
		f.Summary = fmt.Sprintf("Pod %s has waited %s without any scheduling attempt; kube-scheduler is probably not running or not leading.", p.Name, age.Round(time.Second))
		f.Culprit = "kube-scheduler (no scheduling attempt recorded)"
		f.Actions = []report.Action{{Kind: report.Check, Description: "Check that kube-scheduler runs and holds the leader lease.",
			Commands: []string{"kubectl get pods -n kube-system -l component=kube-scheduler", "kubectl get lease -n kube-system kube-scheduler"}}}
		return f, true
	}
	f.Confidence = rule.Probable
	f.Title = fmt.Sprintf("pod names scheduler %q, which has not looked at it in %s", name, age.Round(time.Second))
	f.Summary = fmt.Sprintf("Pod %s asks for scheduler %q; no scheduling attempt was recorded in %s, so that scheduler is not running or the name is wrong.", p.Name, name, age.Round(time.Second))
	f.Culprit = fmt.Sprintf("%s .spec.schedulerName (%s)", kube.PodRef(p), name)
	f.Actions = []report.Action{
		{Kind: report.Check, Description: fmt.Sprintf("Find the scheduler deployment that serves %q.", name),
			Commands: []string{"kubectl get pods -A -o wide | grep -i scheduler"}},
		{Kind: report.Immediate, Description: "If the name is a mistake, use the default scheduler.",
			Commands: []string{fmt.Sprintf("kubectl get pod %s %s -o yaml > %s.yaml   # set spec.schedulerName: default-scheduler (or fix the workload template)", p.Name, kube.NSFlag(p), p.Name)},
			Risk:     "the pod must be recreated for a new schedulerName"},
	}
	return withScheduler(c, f, p, name), true
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
