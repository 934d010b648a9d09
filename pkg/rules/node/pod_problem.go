package node

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// problemSymptoms is what a pod on the node shows when a node daemon's
// problem condition is what stops it (node-problem-detector's condition
// types, config/kernel-monitor.json and health-checker configs).
var problemSymptoms = map[corev1.NodeConditionType]*regexp.Regexp{
	"ReadonlyFilesystem":        regexp.MustCompile(`(?i)read-only file system|\bEROFS\b`),
	"CorruptDockerOverlay2":     regexp.MustCompile(`(?i)overlay2?\b.*(?:error|invalid|corrupt)|(?:error|invalid|corrupt).*\boverlay`),
	"ContainerRuntimeUnhealthy": regexp.MustCompile(`(?i)containerd\.sock|dockershim\.sock|rpc error: code = (?:Unavailable|DeadlineExceeded)|Cannot connect to the Docker daemon`),
	"FrequentContainerdRestart": regexp.MustCompile(`(?i)containerd\.sock|rpc error: code = Unavailable|connection closed`),
	"FrequentDockerRestart":     regexp.MustCompile(`(?i)Cannot connect to the Docker daemon|docker\.sock`),
}

// podProblemMessages are the pod's own failure texts: its containers'
// waiting and terminated messages and its warning events.
func podProblemMessages(c *rule.Pass, p *corev1.Pod) []string {
	var out []string
	for _, cs := range kube.AllStatuses(p) {
		st := cs.Status
		if w := st.State.Waiting; w != nil && w.Message != "" {
			out = append(out, w.Message)
		}
		for _, t := range []*corev1.ContainerStateTerminated{st.State.Terminated, st.LastTerminationState.Terminated} {
			if t != nil && t.Message != "" {
				out = append(out, t.Message)
			}
		}
	}
	for _, e := range c.B.EventsFor(string(p.UID)) {
		if e.Type == corev1.EventTypeWarning {
			out = append(out, e.Message)
		}
	}
	return out
}

// podOnProblemNode: a pod that is not ready on a node where a node daemon
// reports a problem condition True. When the pod's own error says what the
// condition names (a read-only filesystem, a runtime that does not answer)
// the node is the cause; otherwise it is a lead.
func podOnProblemNode(c *rule.Pass, p *corev1.Pod, n *corev1.Node) []rule.Finding {
	var out []rule.Finding
	msgs := podProblemMessages(c, p)
	for i := range n.Status.Conditions {
		cond := &n.Status.Conditions[i]
		if kubeletConditions[cond.Type] || cond.Status != corev1.ConditionTrue {
			continue
		}
		f := rule.Finding{
			Category: rule.Node.Sub(string(cond.Type)), Verdict: report.Inconclusive, Confidence: rule.Doubtful, Current: true, Strength: rule.Traced, Subject: p.Name,
			Evidence:   []string{nodeConditionEvidence(c, n, cond)},
			Hypothesis: fmt.Sprintf("Node %s's problem condition %s keeps pod %s from running", n.Name, cond.Type, p.Name),
			Title:      fmt.Sprintf("the pod's node %s reports %s=True (%s): %s", n.Name, cond.Type, kube.OrDash(cond.Reason), kube.OrDash(strings.TrimSuffix(cond.Message, "."))),
			Culprit:    fmt.Sprintf("node/%s condition %s=True (%s) since %s", n.Name, cond.Type, kube.OrDash(cond.Reason), kube.Clock(cond.LastTransitionTime.Time)),
		}
		re := problemSymptoms[cond.Type]
		for _, m := range msgs {
			if re == nil || !re.MatchString(m) {
				continue
			}
			f.Verdict, f.Confidence = report.Validated, rule.Strong
			f.Evidence = append(f.Evidence, c.Evidence(fmt.Sprintf("Pod %s on node %s: %s", p.Name, n.Name, kube.FirstLine(m)), kube.PodRef(p)+" .status.containerStatuses / events",
				fmt.Sprintf("kubectl describe pod %s %s", p.Name, kube.NSFlag(p))))
			f.Title = fmt.Sprintf("the pod fails because its node %s reports %s=True (%s): %s", n.Name, cond.Type, kube.OrDash(cond.Reason), re.FindString(m))
			f.Summary = fmt.Sprintf("Pod %s runs on node %s, where a node daemon reports %s=True since %s (%s: %s); the pod's own error (%s) is that problem seen from the pod. Other pods on the node are affected alike; moving the pod, not changing it, is the fix.",
				p.Name, n.Name, cond.Type, kube.Clock(cond.LastTransitionTime.Time), kube.OrDash(cond.Reason), kube.OrDash(cond.Message), kube.FirstLine(m))
			f.Mechanism = "node-problem-detector and its peers set a node condition when they see a node-level problem in the kernel log or the runtime (a filesystem remounted read-only, a runtime restarting); the kubelet keeps the node Ready, so pods are still placed there and fail on it."
			f.Actions = []report.Action{
				{Kind: report.Check, Description: "Look at the node: its conditions, events and kernel log.",
					Commands: []string{fmt.Sprintf("kubectl describe node %s", n.Name), fmt.Sprintf("kubectl triage node/%s", n.Name)}},
				{Kind: report.Immediate, Description: "Cordon the node so no new pod lands there, then drain it and repair or replace the machine; the pod's controller recreates it elsewhere.",
					Commands: []string{fmt.Sprintf("kubectl cordon %s", n.Name), fmt.Sprintf("kubectl drain %s --ignore-daemonsets --delete-emptydir-data", n.Name)},
					Risk:     "draining evicts every pod of the node; a bare pod is not recreated"},
			}
			break
		}
		out = append(out, f)
	}
	return out
}
