package pod

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// StuckTerminating is the rule pod/stuck-terminating.
var StuckTerminating = &rule.Rule{
	Meta: rule.Meta{
		ID:    "pod/stuck-terminating",
		Layer: rule.PodLayer,
		Needs: append([]rule.Need{rule.Nodes}, rule.PodEvidence...),
		Doc:   "A pod past its grace period that does not go away: finalizers, or a kubelet that does not confirm.",
	},
	Check: checkStuckTerminating,
}

// stuckAfter is how long past its deadline a deletion must be before it is
// called stuck when nothing else explains it.
const stuckAfter = 5 * time.Minute

// checkStuckTerminating: a pod whose deletion is overdue. Finalizers keep
// the object until their controller removes them; the kubelet must confirm
// the containers stopped, which it cannot do from a lost node.
func checkStuckTerminating(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		if p.DeletionTimestamp == nil || c.Now.Before(p.DeletionTimestamp.Time) {
			continue // not deleted, or still within its grace period
		}
		overdue := c.Now.Sub(p.DeletionTimestamp.Time).Round(time.Second)
		deletion := c.Evidence(fmt.Sprintf("Pod %s was deleted: deletionTimestamp %s (%s overdue), grace period %ds",
			p.Name, p.DeletionTimestamp.UTC().Format(time.RFC3339), overdue, derefOrZero(p.DeletionGracePeriodSeconds)),
			kube.PodRef(p)+" .metadata.deletionTimestamp",
			fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.metadata.deletionTimestamp}'", p.Name, kube.NSFlag(p)))
		base := rule.Finding{Verdict: report.Validated, Current: true, Strength: rule.Explained, Subject: p.Name}
		found := false
		if len(p.Finalizers) > 0 {
			f := base
			found = true
			names := strings.Join(p.Finalizers, ", ")
			f.Category = rule.Terminating.Sub("Finalizer")
			f.Confidence = rule.High
			if containersAllStopped(p) || overdue > stuckAfter {
				f.Confidence = rule.Strong
			}
			f.Evidence = []string{deletion, c.Evidence(fmt.Sprintf("Pod %s has finalizers: %s", p.Name, names), kube.PodRef(p)+" .metadata.finalizers",
				fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.metadata.finalizers}'", p.Name, kube.NSFlag(p)))}
			f.Hypothesis = fmt.Sprintf("Finalizer %s keeps the deleted pod from going away", names)
			f.Title = fmt.Sprintf("pod is stuck Terminating: finalizer %s has not been removed", names)
			f.Summary = fmt.Sprintf("Pod %s was deleted and its grace period ended %s ago, but it still exists: its finalizer(s) %s must be removed by the controller that added them, and that has not happened.", p.Name, overdue, names)
			f.Mechanism = "A deleted object with finalizers is only marked for deletion (deletionTimestamp); the API server removes it once every finalizer is gone. Each finalizer belongs to a controller that does its cleanup and then removes it; if that controller is down, lacks permissions or fails its cleanup, the object stays Terminating forever."
			f.Culprit = fmt.Sprintf("%s metadata.finalizers (%s)", kube.PodRef(p), names)
			f.Actions = []report.Action{
				{Kind: report.Check, Description: fmt.Sprintf("Find the controller that owns finalizer %s and why it does not finish (its logs, its permissions).", names),
					Commands: []string{fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.metadata.finalizers}{\"\\n\"}{.metadata.ownerReferences}'", p.Name, kube.NSFlag(p))}},
				{Kind: report.Immediate, Description: "Only if the cleanup the finalizer guards is done or not needed: remove the finalizers by hand.",
					Commands: []string{fmt.Sprintf(`kubectl patch pod %s %s --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]'`, p.Name, kube.NSFlag(p))},
					Risk:     "skips the cleanup the finalizer's controller was meant to do (external resources may leak)"},
			}
			out = append(out, f)
		}
		if n := p.Spec.NodeName; n != "" {
			if state, ev := nodeGone(c, n); state != "" {
				f := base
				found = true
				f.Category = rule.Terminating.Sub("NodeUnavailable")
				f.Confidence = rule.Strong
				f.Evidence = []string{deletion, ev}
				f.Hypothesis = fmt.Sprintf("Node %s is %s, so no kubelet confirms the pod's containers stopped", n, state)
				f.Title = fmt.Sprintf("pod is stuck Terminating: its node %s is %s, so the kubelet cannot confirm the containers stopped", n, state)
				f.Summary = fmt.Sprintf("Pod %s was deleted and its grace period ended %s ago, but it still exists: a pod bound to a node is only removed once that node's kubelet confirms its containers stopped, and node %s is %s.", p.Name, overdue, n, state)
				f.Mechanism = "Graceful deletion sets deletionTimestamp; the kubelet stops the containers and then deletes the pod object for good. A node that is gone never does, so the pod stays Terminating until the node returns or someone force-deletes it."
				f.Culprit = fmt.Sprintf("node %s (%s) of %s", n, state, kube.PodRef(p))
				f.Actions = []report.Action{
					{Kind: report.Check, Description: fmt.Sprintf("Check whether node %s will come back.", n),
						Commands: []string{fmt.Sprintf("kubectl get node %s -o wide", n)}},
					{Kind: report.Immediate, Description: "If the node is gone for good (or its containers are known to be stopped), force-delete the pod so its controller can replace it.",
						Commands: []string{fmt.Sprintf("kubectl delete pod %s %s --grace-period=0 --force", p.Name, kube.NSFlag(p))},
						Risk:     "if the node is in fact still running the containers, two copies may run at once (dangerous for StatefulSets and anything holding a lock or volume)"},
				}
				out = append(out, f)
			}
		}
		if !found && overdue > stuckAfter && !nodeNotReadyNow(c, p.Spec.NodeName) {
			out = append(out, rule.Finding{Category: rule.Terminating.Sub("KubeletNotConfirming"), Verdict: report.Inconclusive, Confidence: rule.Weak, Current: true, Strength: rule.Observed, Subject: p.Name,
				Hypothesis: fmt.Sprintf("The kubelet on node %s has not finished stopping the pod's containers (a hanging preStop hook, volume unmount or container runtime)", kube.OrDash(p.Spec.NodeName)),
				Evidence:   []string{deletion}})
		}
	}
	return out
}

// containersAllStopped: every container has terminated (the kubelet's part is done).
func containersAllStopped(p *corev1.Pod) bool {
	for _, cs := range kube.AllStatuses(p) {
		if cs.Status.State.Terminated == nil {
			return false
		}
	}
	return len(kube.AllStatuses(p)) > 0
}

// nodeGone says whether a node is gone, with the evidence. A node
// that exists but is NotReady is the node rules' to explain.
func nodeGone(c *rule.Pass, name string) (string, string) {
	cmd := fmt.Sprintf("kubectl get node %s", name)
	if c.B.IsMissing("Node", "", name) {
		return "gone", c.Evidence(fmt.Sprintf("Node %s does not exist (404 when read)", name), "node/"+name, cmd)
	}
	for _, pr := range c.B.Problems {
		if pr.What == "node "+name && strings.Contains(pr.Error, "not found") {
			return "gone", c.Evidence(fmt.Sprintf("Node %s does not exist: %s", name, pr.Error), "node/"+name, cmd)
		}
	}
	return "", ""
}

// nodeNotReadyNow: the node exists but is not Ready. The node rules
// (package node) explain a pod on such a node, stuck Terminating included.
func nodeNotReadyNow(c *rule.Pass, name string) bool {
	n := c.B.Node(name)
	if n == nil {
		return false
	}
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady && cond.Status != corev1.ConditionTrue {
			return true
		}
	}
	return false
}

func derefOrZero[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
