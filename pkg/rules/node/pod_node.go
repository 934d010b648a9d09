package node

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
	"github.com/kubectl-triage/kubectl-triage/pkg/submatch"
)

// PodNode is the rule node/pod-node.
var PodNode = &rule.Rule{
	Meta: rule.Meta{
		ID:    "node/pod-node",
		Layer: rule.InfrastructureLayer,
		Needs: append([]rule.Need{rule.Nodes}, rule.PodEvidence...),
		Doc:   "A pod whose node is the problem: NotReady, shut down, evicting it for pressure, or reporting a problem condition (node-problem-detector's) the pod's own error matches.",
	},
	Check: checkPodNode,
}

var evictionLowRe = regexp.MustCompile(`The node was low on resource: (?P<resource>[\w.-]+)\.`)

var evictionContainerRe = regexp.MustCompile(`Container (?P<ctr>\S+) was using (?P<used>\S+), request is (?P<request>\S+), has larger consumption of (?P<resource>[\w.-]+)`)

var evictionConditionRe = regexp.MustCompile(`The node had condition: \[(?P<conditions>[^\]]+)\]`)

var nodeShutdownRe = regexp.MustCompile(`(?i)node shutdown|node is shutting down`)

var sandboxNetworkRe = regexp.MustCompile(`(?i)network plugin|cni|NetworkPluginNotReady|network is not ready|failed to setup network`)

// checkPodNode: a pod evicted by its node's kubelet under pressure, stopped
// by a node shutdown, or running on a node that is NotReady, unreachable or
// without network.
func checkPodNode(c *rule.Pass) []rule.Finding {
	var out []rule.Finding
	for _, p := range c.B.Pods {
		if p.Status.Phase == corev1.PodFailed {
			switch {
			case p.Status.Reason == "Evicted":
				if f, ok := evictionFinding(c, p); ok {
					out = append(out, f)
				}
			case nodeShutdownRe.MatchString(p.Status.Message):
				out = append(out, shutdownFinding(c, p))
			}
			continue
		}
		if p.Spec.NodeName == "" {
			continue
		}
		n := c.B.Node(p.Spec.NodeName)
		if n == nil {
			continue
		}
		if cond := nodeNotReady(n); cond != nil {
			out = append(out, podOnNotReadyNode(c, p, n, cond))
			continue
		}
		if kube.IsPodReady(p) {
			continue
		}
		out = append(out, podOnProblemNode(c, p, n)...)
		if kube.NodeConditionTrue(n, corev1.NodeNetworkUnavailable) {
			out = append(out, podOnNetworklessNode(c, p, n))
		}
		for _, pr := range pressures {
			if cond := kube.NodeCondition(n, pr.Type); cond != nil && cond.Status == corev1.ConditionTrue {
				out = append(out, rule.Finding{
					Category: pr.Category, Verdict: report.Inconclusive, Confidence: rule.Doubtful, Current: true, Strength: rule.Explained, Subject: p.Name,
					Hypothesis: fmt.Sprintf("Node %s's %s keeps pod %s from running", n.Name, pr.Type, p.Name),
					Evidence:   []string{nodeConditionEvidence(c, n, cond)},
					Title:      fmt.Sprintf("node %s that runs the pod is under %s", n.Name, pr.Type),
					Culprit:    fmt.Sprintf("node/%s %s", n.Name, pr.Type),
				})
			}
		}
	}
	return out
}

func podWorkload(c *rule.Pass, p *corev1.Pod) string {
	kind, owner := kube.OwnerName(c, p)
	return kind + "/" + owner
}

// evictionFinding explains a pod the kubelet evicted, from the kubelet's own
// message: which resource ran low, and which container used more than it
// requested. A pod evicted for its own ephemeral-storage limit is left to
// the rules about the pod.
func evictionFinding(c *rule.Pass, p *corev1.Pod) (rule.Finding, bool) {
	msg := p.Status.Message
	var pr *pressure
	var prType corev1.NodeConditionType
	resourceName := ""
	if m, ok := submatch.Find(evictionLowRe, msg); ok {
		resourceName = m.Get("resource")
		for i := range pressures {
			if slices.Contains(pressures[i].Resources, resourceName) {
				pr, prType = &pressures[i].pressure, pressures[i].Type
			}
		}
	}
	admission := false
	if m, ok := submatch.Find(evictionConditionRe, msg); ok && pr == nil {
		for i := range pressures {
			if strings.Contains(m.Get("conditions"), string(pressures[i].Type)) {
				pr, prType, admission = &pressures[i].pressure, pressures[i].Type, true
			}
		}
	}
	if pr == nil {
		return rule.Finding{}, false
	}
	node := p.Spec.NodeName
	evidence := []string{c.Evidence(fmt.Sprintf("Pod phase Failed, reason Evicted: %s", msg), kube.PodRef(p)+" .status.reason/.status.message",
		fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.status.reason}{\": \"}{.status.message}'", p.Name, kube.NSFlag(p)))}
	f := rule.Finding{
		Verdict: report.Validated, Confidence: rule.Definitive, Strength: rule.Explained, Subject: p.Name, Evidence: evidence,
		Mechanism: fmt.Sprintf("When a node runs low on %s, the kubelet evicts pods to reclaim it: first those using more than they request, ranked by priority and by how far they exceed their request. "+
			"An evicted pod stays Failed (reason Evicted); its controller, if any, creates a replacement elsewhere.", kube.ValueOr(resourceName, string(prType))),
		Current: true,
	}
	// An evicted pod of a workload is history once its replacement runs;
	// the target pod itself is failed for good.
	if c.B.Target.Kind != "Pod" {
		f.Current = false
	}
	var n *corev1.Node
	if node != "" {
		n = c.B.Node(node)
	}
	if n != nil {
		if cond := kube.NodeCondition(n, prType); cond != nil {
			evidence = append(evidence, nodeConditionEvidence(c, n, cond))
			if cond.Status == corev1.ConditionTrue {
				f.Current = true
				f.Contributing = append(f.Contributing, fmt.Sprintf("Node %s is still under %s.", node, prType))
			} else {
				f.Contributing = append(f.Contributing, fmt.Sprintf("Node %s is no longer under %s (%s=%s since %s).", node, prType, prType, cond.Status, kube.Clock(cond.LastTransitionTime.Time)))
			}
		}
		for _, e := range nodeEvents(c, node, pressureEventReasons...) {
			evidence = append(evidence, nodeEventEvidence(c, e))
		}
	}
	nodeName := kube.ValueOr(node, "its node")
	if admission {
		f.Category = pr.Category.Sub("Rejected")
		f.Hypothesis = fmt.Sprintf("The pod was rejected by its node's kubelet because the node had %s", prType)
		f.Title = fmt.Sprintf("pod was rejected by node %s, which had %s", nodeName, prType)
		f.Summary = fmt.Sprintf("The kubelet of node %s refused to start pod %s because the node had %s when the pod arrived.", nodeName, p.Name, prType)
		f.Culprit = fmt.Sprintf("node/%s %s", nodeName, prType)
		f.Actions = []report.Action{{Kind: report.Immediate, Description: pr.Fix, Commands: pr.Commands(nodeName)}}
	} else {
		f.Category = pr.Category.Sub("Evicted")
		f.Hypothesis = fmt.Sprintf("The pod was evicted because its node ran low on %s", resourceName)
		f.Title = fmt.Sprintf("pod was evicted because node %s ran low on %s", nodeName, resourceName)
		f.Summary = fmt.Sprintf("The kubelet of node %s evicted pod %s to reclaim %s.", nodeName, p.Name, resourceName)
		f.Culprit = fmt.Sprintf("node/%s %s (%s)", nodeName, pr.Signal, prType)
		f.Actions = []report.Action{{Kind: report.Immediate, Description: pr.Fix, Commands: pr.Commands(nodeName)}}
		if m, ok := submatch.Find(evictionContainerRe, msg); ok {
			ctr, used, req := m.Get("ctr"), m.Get("used"), m.Get("request")
			f.Title += fmt.Sprintf(": container %s used %s against a request of %s", ctr, used, req)
			f.Summary += fmt.Sprintf(" Container %s used %s of %s while requesting %s, which made the pod a first candidate.", ctr, used, resourceName, req)
			res := corev1.ResourceName(strings.TrimSuffix(m.Get("resource"), "."))
			kind, owner := kube.OwnerName(c, p)
			f.Culprit = fmt.Sprintf("%s container %s resources.requests.%s (%s; it used %s when node %s ran low)", kind+"/"+owner, ctr, res, req, used, nodeName)
			set := report.Action{Kind: report.Immediate,
				Description: fmt.Sprintf("Make container %s request what it really uses, so the scheduler reserves it and the kubelet stops picking it first.", ctr),
				Commands:    []string{fmt.Sprintf("kubectl set resources %s %s -c %s --requests=%s=%s", podWorkload(c, p), kube.NSFlag(p), ctr, res, used)},
				Risk:        "a larger request needs room on the nodes; " + kube.TemplateRisk(kind, "the change starts a rollout")}
			set.Commands = kube.TemplateCommands(kind, owner, p.Namespace, set.Commands, fmt.Sprintf("set resources.requests.%s: %s for container %s", res, used, ctr), "")
			if kind == "pod" {
				set.Commands = []string{fmt.Sprintf("kubectl get pod %s %s -o yaml > %s.yaml   # set resources.requests.%s: %s for container %s", p.Name, kube.NSFlag(p), p.Name, res, used, ctr),
					fmt.Sprintf("kubectl replace --force -f %s.yaml", p.Name)}
				set.Risk = kube.RecreateRisk
			}
			f.Actions = append([]report.Action{set}, f.Actions...)
		}
	}
	f.Actions = append(f.Actions, report.Action{Kind: report.LongTerm, Description: "Evicted pods stay listed as Failed: delete them once their cause is understood.",
		Commands: []string{fmt.Sprintf("kubectl delete pod %s %s", p.Name, kube.NSFlag(p))}})
	f.Evidence = evidence
	return f, true
}

func shutdownFinding(c *rule.Pass, p *corev1.Pod) rule.Finding {
	node := kube.ValueOr(p.Spec.NodeName, "its node")
	evidence := []string{c.Evidence(fmt.Sprintf("Pod phase Failed, reason %s: %s", kube.OrDash(p.Status.Reason), p.Status.Message), kube.PodRef(p)+" .status.reason/.status.message",
		fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.status.reason}{\": \"}{.status.message}'", p.Name, kube.NSFlag(p)))}
	for _, e := range nodeEvents(c, p.Spec.NodeName, "Rebooted", "NodeShutdown", "NodeNotReady", "Starting") {
		evidence = append(evidence, nodeEventEvidence(c, e))
	}
	return rule.Finding{
		Category: rule.Node.Sub("Shutdown"), Verdict: report.Validated, Confidence: rule.Strong, Strength: rule.Explained, Subject: p.Name, Evidence: evidence,
		Current:    c.B.Target.Kind == "Pod",
		Hypothesis: "The pod was stopped because its node shut down",
		Title:      fmt.Sprintf("pod was terminated because node %s shut down", node),
		Summary:    fmt.Sprintf("Pod %s was stopped by the kubelet of node %s during a graceful node shutdown (a reboot, a spot/preemptible reclaim, or maintenance).", p.Name, node),
		Mechanism:  "With graceful node shutdown the kubelet sees the machine's shutdown coming, stops the pods within shutdownGracePeriod and marks them Failed; their controllers replace them elsewhere, a bare pod is gone.",
		Culprit:    fmt.Sprintf("node/%s shutdown", node),
		Actions: []report.Action{
			{Kind: report.Check, Description: "See why the node shut down (maintenance, spot interruption, crash) and whether it came back.",
				Commands: []string{fmt.Sprintf("kubectl describe node %s", node), fmt.Sprintf("kubectl get events -n default --field-selector involvedObject.kind=Node,involvedObject.name=%s", node)}},
			{Kind: report.LongTerm, Description: "Run the workload with a controller and several replicas (with a PodDisruptionBudget) so a node shutdown does not take it down.",
				Commands: []string{fmt.Sprintf("kubectl get pdb %s", kube.NSFlag(p))}},
		},
	}
}

// podOnNotReadyNode: the pod's own status is stale or cannot progress
// because its node's kubelet is not ready: the node is the cause, whatever
// the containers seem to say.
func podOnNotReadyNode(c *rule.Pass, p *corev1.Pod, n *corev1.Node, cond *corev1.NodeCondition) rule.Finding {
	cause := classifyNotReady(cond)
	evidence := []string{nodeConditionEvidence(c, n, cond)}
	for _, key := range []string{"node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"} {
		if id, ok := nodeTaintEvidence(c, n, key); ok {
			evidence = append(evidence, id)
		}
	}
	for _, e := range nodeEvents(c, n.Name, "NodeNotReady", "Rebooted") {
		evidence = append(evidence, nodeEventEvidence(c, e))
	}
	hb := cond.LastHeartbeatTime.Time
	state := "is NotReady: " + cause.Explains
	culprit := fmt.Sprintf("node/%s Ready=%s (%s): %s", n.Name, cond.Status, kube.OrDash(cond.Reason), kube.OrDash(kube.FirstLine(cond.Message)))
	if cause.Class == notReadyKubeletStoppedPosting {
		state = fmt.Sprintf("stopped posting status %s ago (last heartbeat %s)", kube.Ago(c.Now, hb), kube.Clock(hb))
		culprit = fmt.Sprintf("node/%s kubelet: no status since %s (Ready=Unknown)", n.Name, kube.Clock(hb))
	}
	f := rule.Finding{
		Category: rule.Node.Sub("NotReady", string(cause.Class)), Verdict: report.Validated, Confidence: rule.Strong, Current: true, Strength: rule.Traced, Subject: p.Name,
		Hypothesis: "The pod's node is NotReady: " + cause.Explains,
		Title:      fmt.Sprintf("the pod's node %s %s", n.Name, state),
		Summary:    fmt.Sprintf("Pod %s runs on node %s, whose kubelet %s; the pod's status cannot be trusted or progress until the node recovers.", p.Name, n.Name, strings.TrimPrefix(state, "is ")),
		Mechanism: "A pod's status is written by the kubelet of its node. With that kubelet not ready or unreachable, the containers' state shown is stale and nothing on the node progresses; " +
			"the node lifecycle controller marks the pod not ready and, after the pod's not-ready/unreachable toleration (300s by default), evicts it, " +
			"but the pod object stays Terminating until the kubelet confirms or the Node is deleted.",
		Culprit: culprit,
		Actions: []report.Action{
			{Kind: report.Check, Description: "Look at the node first: its conditions, events and kubelet.",
				Commands: []string{fmt.Sprintf("kubectl describe node %s", n.Name), fmt.Sprintf("kubectl triage node/%s", n.Name)}},
			{Kind: report.Immediate, Description: cause.Fix, Commands: cause.Commands(n.Name)},
		},
	}
	if p.DeletionTimestamp != nil {
		f.Title = fmt.Sprintf("pod is stuck Terminating: its node %s %s", n.Name, state)
		f.Actions = append(f.Actions, report.Action{Kind: report.Immediate,
			Description: "Once the node is known to be down, force the deletion so a replacement can start (the kubelet cannot confirm it).",
			Commands:    []string{fmt.Sprintf("kubectl delete pod %s %s --grace-period=0 --force", p.Name, kube.NSFlag(p))},
			Risk:        "if the node is only partitioned the old pod keeps running: a StatefulSet pod could then run twice"})
	}
	if ready := kube.PodReadyCondition(p); ready != nil && ready.Status == corev1.ConditionTrue {
		f.Contributing = append(f.Contributing, "The pod still shows Ready=True: that status was written before the kubelet stopped reporting.")
	}
	f.Evidence = evidence
	return f
}

// podOnNetworklessNode: the pod's node has no network; its sandbox events
// say whether that is what stops the pod.
func podOnNetworklessNode(c *rule.Pass, p *corev1.Pod, n *corev1.Node) rule.Finding {
	cond := kube.NodeCondition(n, corev1.NodeNetworkUnavailable)
	evidence := []string{nodeConditionEvidence(c, n, cond)}
	f := rule.Finding{
		Category: rule.Node.Sub("NetworkUnavailable"), Verdict: report.Inconclusive, Confidence: rule.Even, Current: true, Strength: rule.Traced, Subject: p.Name,
		Hypothesis: fmt.Sprintf("Pod %s cannot get a network because node %s has NetworkUnavailable=True", p.Name, n.Name),
		Title:      fmt.Sprintf("the pod's node %s has no pod network (NetworkUnavailable=True, %s)", n.Name, kube.OrDash(cond.Reason)),
		Summary:    fmt.Sprintf("Pod %s is on node %s, whose network is not set up: the kubelet cannot create the pod's sandbox.", p.Name, n.Name),
		Mechanism:  "Each pod gets its network from the CNI plugin when the kubelet creates its sandbox; on a node whose network is unavailable that step fails and the containers never start.",
		Culprit:    fmt.Sprintf("node/%s network setup: NetworkUnavailable=True (%s)", n.Name, kube.OrDash(cond.Reason)),
		Actions: []report.Action{{Kind: report.Immediate, Description: "Repair the node's network: the CNI agent pod on the node, or the cloud routes.",
			Commands: []string{fmt.Sprintf("kubectl get pods -n kube-system -o wide --field-selector spec.nodeName=%s", n.Name), fmt.Sprintf("kubectl describe node %s", n.Name)}}},
	}
	for _, e := range c.B.EventsFor(string(p.UID)) {
		if e.Reason == "FailedCreatePodSandBox" && sandboxNetworkRe.MatchString(e.Message) {
			evidence = append(evidence, c.Evidence(fmt.Sprintf("Event FailedCreatePodSandBox ×%d: %s", max(e.Count, 1), kube.FirstLine(e.Message)),
				"event on "+kube.PodRef(p), fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=FailedCreatePodSandBox", kube.NSFlag(p), p.Name)))
			f.Verdict, f.Confidence = report.Validated, rule.High
		}
	}
	f.Evidence = evidence
	return f
}
