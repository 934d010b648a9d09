package investigate

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/report"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

// Node rules: NotReady/Unknown, pressure conditions, NetworkUnavailable, cordoned, and a pod whose node is the problem.

// nodeNotReady returns the Ready condition of a node that is not Ready.
func nodeNotReady(n *corev1.Node) *corev1.NodeCondition {
	if cond := kube.NodeCondition(n, corev1.NodeReady); cond != nil && cond.Status != corev1.ConditionTrue {
		return cond
	}
	return nil
}

// nodeEvents are the events about a node. The kubelet files its node
// events with involvedObject.uid set to the node's name, the controllers
// with the node's UID: match on kind and name.
func nodeEvents(c *rule.Pass, name string, reasons ...string) []corev1.Event {
	var out []corev1.Event
	for _, e := range c.B.Events {
		if e.InvolvedObject.Kind != "Node" || e.InvolvedObject.Name != name {
			continue
		}
		if len(reasons) == 0 || slices.Contains(reasons, e.Reason) {
			out = append(out, e)
		}
	}
	return out
}

func nodeEventEvidence(c *rule.Pass, e corev1.Event) string {
	return c.Evidence(fmt.Sprintf("Event %s ×%d on node/%s at %s: %s", e.Reason, max(e.Count, 1), e.InvolvedObject.Name, kube.Clock(bundle.EventTime(&e)), kube.FirstLine(e.Message)),
		"event on node/"+e.InvolvedObject.Name,
		fmt.Sprintf("kubectl get events -n default --field-selector involvedObject.kind=Node,involvedObject.name=%s", e.InvolvedObject.Name))
}

func nodeConditionEvidence(c *rule.Pass, n *corev1.Node, cond *corev1.NodeCondition) string {
	fact := fmt.Sprintf("Node %s condition %s=%s (%s): %s", n.Name, cond.Type, cond.Status, kube.OrDash(cond.Reason), kube.OrDash(strings.TrimSuffix(cond.Message, ".")))
	if !cond.LastHeartbeatTime.IsZero() {
		fact += fmt.Sprintf("; last heartbeat %s", kube.Clock(cond.LastHeartbeatTime.Time))
	}
	if !cond.LastTransitionTime.IsZero() {
		fact += fmt.Sprintf(", since %s", kube.Clock(cond.LastTransitionTime.Time))
	}
	return c.Evidence(fact, fmt.Sprintf("node/%s .status.conditions[%s]", n.Name, cond.Type),
		fmt.Sprintf(`kubectl get node %s -o jsonpath='{.status.conditions[?(@.type=="%s")]}'`, n.Name, cond.Type))
}

func nodeTaintEvidence(c *rule.Pass, n *corev1.Node, key string) (string, bool) {
	for _, t := range n.Spec.Taints {
		if t.Key == key {
			return c.Evidence(fmt.Sprintf("Node %s has taint %s", n.Name, kube.TaintSpec(t)), "node/"+n.Name+" .spec.taints",
				fmt.Sprintf("kubectl get node %s -o jsonpath='{.spec.taints}'", n.Name)), true
		}
	}
	return "", false
}

// nodeImpact states what runs on a Node target (bundle.NodePods): how many
// pods, how many of them are not ready.
func nodeImpact(c *rule.Pass, n *corev1.Node) []string {
	pods := c.B.NodePods
	if len(pods) == 0 {
		return nil
	}
	var notReady, evicted []string
	for _, p := range pods {
		switch {
		case p.Status.Phase == corev1.PodFailed && p.Status.Reason == "Evicted":
			evicted = append(evicted, p.Namespace+"/"+p.Name)
		case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
		case !kube.IsPodReady(p):
			notReady = append(notReady, p.Namespace+"/"+p.Name)
		}
	}
	out := []string{fmt.Sprintf("%d pod(s) are scheduled on node %s; %d of them are not ready%s.", len(pods), n.Name, len(notReady), listSuffix(notReady))}
	if len(evicted) > 0 {
		out = append(out, fmt.Sprintf("%d pod(s) on the node were evicted%s.", len(evicted), listSuffix(evicted)))
	}
	return out
}

func listSuffix(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return ": " + kube.NamesUpTo(names, 5)
}

// nodeHasProblem reports whether a node has anything the node rules report;
// only then are the healthy checks worth listing as ruled out.
func nodeHasProblem(n *corev1.Node) bool {
	return nodeNotReady(n) != nil || n.Spec.Unschedulable || kube.NodeConditionTrue(n, corev1.NodeNetworkUnavailable) ||
		kube.NodeConditionTrue(n, corev1.NodeMemoryPressure) || kube.NodeConditionTrue(n, corev1.NodeDiskPressure) || kube.NodeConditionTrue(n, corev1.NodePIDPressure)
}

// notReadyCause is one row of the NotReady table: what the kubelet's Ready
// message means and where to look.
type notReadyCause struct {
	Class    string
	re       *regexp.Regexp
	Explains string
	Fix      string
	// Commands show where the fix starts, for node n.
	Commands func(n string) []string
}

func kubeletCommands(n string) []string {
	return []string{fmt.Sprintf("kubectl get node %s -o wide", n),
		fmt.Sprintf("ssh %s 'systemctl status kubelet; journalctl -u kubelet --since \"1 hour ago\" | tail -n 100'", n)}
}

func runtimeCommands(n string) []string {
	return []string{fmt.Sprintf("ssh %s 'systemctl status containerd; journalctl -u containerd --since \"1 hour ago\" | tail -n 100; crictl info'", n)}
}

func cniCommands(n string) []string {
	return []string{fmt.Sprintf("kubectl get pods -n kube-system -o wide --field-selector spec.nodeName=%s", n),
		fmt.Sprintf("ssh %s 'ls /etc/cni/net.d; journalctl -u kubelet | grep -i cni | tail -n 20'", n)}
}

// notReadyCauses classify the Ready condition's reason and message, in
// order. The CNI row comes before the runtime row: "container runtime
// network not ready" is the network plugin.
var notReadyCauses = []notReadyCause{
	{"KubeletStoppedPosting", regexp.MustCompile(`(?i)NodeStatusUnknown|Kubelet stopped posting node status`),
		"the kubelet stopped posting node status: the machine is down, partitioned from the API server, or the kubelet died",
		"Check that the machine is up and reachable (cloud console, ping its InternalIP), then the kubelet on it.", kubeletCommands},
	{"CNI", regexp.MustCompile(`(?i)NetworkPluginNotReady|cni plugin not initialized|cni config uninitialized|network plugin is not ready|NetworkReady=false`),
		"the container network plugin (CNI) on the node is not ready, so the kubelet cannot give pods a network",
		"Check the CNI agent pod on this node (calico-node, cilium, aws-node, kube-flannel…) and its logs; the node turns Ready once the plugin writes its configuration.", cniCommands},
	{"ContainerRuntime", regexp.MustCompile(`(?i)container runtime is down|container runtime not ready|container runtime status check|RuntimeReady=false|ContainerRuntimeNotReady|failed to get runtime status|runtime service`),
		"the container runtime (containerd or CRI-O) is down or not answering the kubelet",
		"Restart or repair the container runtime (containerd or CRI-O) on the node.", runtimeCommands},
	{"PLEG", regexp.MustCompile(`(?i)PLEG is not healthy`),
		"the kubelet's pod lifecycle event generator is stalled: the runtime takes too long to list containers (overloaded node, too many containers, or a hung runtime)",
		"Look at the node's load and the runtime's health; restarting the runtime or the kubelet usually clears it, and an overloaded node needs fewer pods.", runtimeCommands},
	{"Shutdown", regexp.MustCompile(`(?i)node is shutting down|shutdown`),
		"the node is shutting down",
		"Wait for the node to come back, or drain and replace it.", kubeletCommands},
}

// classifyNotReady explains a Ready condition that is not True.
func classifyNotReady(cond *corev1.NodeCondition) notReadyCause {
	text := cond.Reason + " " + cond.Message
	if cond.Status == corev1.ConditionUnknown {
		return notReadyCauses[0]
	}
	for _, r := range notReadyCauses[1:] {
		if r.re.MatchString(text) {
			return r
		}
	}
	return notReadyCause{Class: "Kubelet", Explains: fmt.Sprintf("the kubelet reports the node not ready (%s)", kube.OrDash(kube.FirstLine(cond.Message))),
		Fix: "Read the kubelet's log on the node for the reason it gives.", Commands: kubeletCommands}
}

// nodeHistoryReasons are node events that explain a NotReady node.
var nodeHistoryReasons = []string{"NodeNotReady", "Rebooted", "SystemOOM", "ContainerGCFailed", "ImageGCFailed", "EvictionThresholdMet", "KubeletSetupFailed", "Starting", "NodeShutdown"}

// checkNodeNotReady: a Node target whose Ready condition is False or
// Unknown, with why (kubelet gone, CNI, runtime, PLEG) and what it takes
// down with it.
func checkNodeNotReady(c *rule.Pass) []rule.Finding {
	n := kube.TargetOf(c, "Node", c.B.Nodes)
	if n == nil {
		return nil
	}
	cond := nodeNotReady(n)
	if cond == nil {
		if nodeHasProblem(n) && kube.NodeCondition(n, corev1.NodeReady) != nil {
			ready := kube.NodeCondition(n, corev1.NodeReady)
			return []rule.Finding{{Category: rule.Node.Sub("NotReady"), Verdict: report.Refuted, Confidence: rule.Definitive, Subject: n.Name,
				Hypothesis: fmt.Sprintf("Node %s's kubelet is not ready", n.Name),
				Evidence:   []string{nodeConditionEvidence(c, n, ready)}}}
		}
		return nil
	}
	cause := classifyNotReady(cond)
	evidence := []string{nodeConditionEvidence(c, n, cond)}
	for _, key := range []string{"node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"} {
		if id, ok := nodeTaintEvidence(c, n, key); ok {
			evidence = append(evidence, id)
		}
	}
	f := rule.Finding{
		Category: rule.Node.Sub("NotReady", cause.Class), Verdict: report.Validated, Confidence: rule.Strong,
		Current: true, Strength: rule.Explained, Subject: n.Name,
		Hypothesis: fmt.Sprintf("Node %s is NotReady because %s", n.Name, cause.Explains),
	}
	since := ""
	if !cond.LastTransitionTime.IsZero() {
		since = fmt.Sprintf(" for %s (since %s)", kube.Ago(c.Now, cond.LastTransitionTime.Time), kube.Clock(cond.LastTransitionTime.Time))
	}
	hb := cond.LastHeartbeatTime.Time
	if cause.Class == "KubeletStoppedPosting" {
		f.Title = fmt.Sprintf("node %s is NotReady: its kubelet stopped posting status %s ago (last heartbeat %s)", n.Name, kube.Ago(c.Now, hb), kube.Clock(hb))
		f.Culprit = fmt.Sprintf("node/%s kubelet: no status since %s (Ready=Unknown, %s)", n.Name, kube.Clock(hb), kube.OrDash(cond.Reason))
		f.Mechanism = "The kubelet renews its node's status and lease every few seconds. When it misses them for node-monitor-grace-period (about 40-50s) the node lifecycle controller sets every condition to Unknown, " +
			"taints the node node.kubernetes.io/unreachable:NoExecute, marks its pods not ready and, once their toleration (300s by default) expires, evicts them; " +
			"the evicted pods stay Terminating until the kubelet comes back or the Node object is deleted."
	} else {
		f.Title = fmt.Sprintf("node %s is NotReady%s: %s", n.Name, since, cause.Explains)
		f.Culprit = fmt.Sprintf("node/%s Ready=False (%s): %s", n.Name, kube.OrDash(cond.Reason), kube.OrDash(kube.FirstLine(cond.Message)))
		f.Mechanism = "The kubelet itself reports the node not ready and says why in the Ready condition's message. The node lifecycle controller taints the node node.kubernetes.io/not-ready:NoExecute: " +
			"no new pod is scheduled there and running pods are evicted once their toleration (300s by default) expires."
	}
	f.Summary = fmt.Sprintf("Node %s is NotReady%s because %s.", n.Name, since, cause.Explains)
	for _, e := range nodeEvents(c, n.Name, nodeHistoryReasons...) {
		evidence = append(evidence, nodeEventEvidence(c, e))
		switch e.Reason {
		case "Rebooted":
			f.Contributing = append(f.Contributing, fmt.Sprintf("The node rebooted at %s: %s", kube.Clock(bundle.EventTime(&e)), kube.FirstLine(e.Message)))
		case "SystemOOM":
			f.Contributing = append(f.Contributing, fmt.Sprintf("The kernel's OOM killer ran on the node at %s: %s", kube.Clock(bundle.EventTime(&e)), kube.FirstLine(e.Message)))
		}
	}
	for _, other := range n.Status.Conditions {
		if other.Type != corev1.NodeReady && other.Status == corev1.ConditionTrue {
			f.Contributing = append(f.Contributing, fmt.Sprintf("Condition %s=True (%s): %s", other.Type, other.Reason, other.Message))
			evidence = append(evidence, nodeConditionEvidence(c, n, &other))
		}
	}
	f.Contributing = append(f.Contributing, nodeImpact(c, n)...)
	f.Evidence = evidence
	f.Actions = []report.Action{
		{Kind: report.Immediate, Description: cause.Fix, Commands: cause.Commands(n.Name)},
		{Kind: report.Check, Description: "Read the node's conditions, taints and events, and see which pods it runs.",
			Commands: []string{fmt.Sprintf("kubectl describe node %s", n.Name),
				fmt.Sprintf("kubectl get events -n default --field-selector involvedObject.kind=Node,involvedObject.name=%s", n.Name),
				fmt.Sprintf("kubectl get pods -A -o wide --field-selector spec.nodeName=%s", n.Name)}},
		{Kind: report.Immediate, Description: "Move the workloads off the node while it is repaired.",
			Commands: []string{fmt.Sprintf("kubectl drain %s --ignore-daemonsets --delete-emptydir-data", n.Name)},
			Risk:     "evicts every pod on the node; with an unreachable kubelet the pods stay Terminating until the node returns or is deleted"},
	}
	if cause.Class == "KubeletStoppedPosting" {
		f.Actions = append(f.Actions, report.Action{Kind: report.LongTerm,
			Description: "If the machine is gone for good, delete the Node object so its pods are recreated elsewhere and its volumes detached.",
			Commands:    []string{fmt.Sprintf("kubectl delete node %s", n.Name)},
			Risk:        "only once the machine is really stopped: pods of a StatefulSet could otherwise run twice"})
	}
	return []rule.Finding{f}
}

// pressure describes one kubelet pressure condition.
type pressure struct {
	Category rule.Category
	Taint    string
	Signal   string
	Explains string
	Fix      string
	Commands func(node string) []string
	// Resources are the eviction-message resource names of this pressure.
	Resources []string
}

var pressures = []struct {
	Type corev1.NodeConditionType
	pressure
}{
	{corev1.NodeMemoryPressure, pressure{
		Category: rule.Node.Sub("MemoryPressure"), Taint: "node.kubernetes.io/memory-pressure", Signal: "memory.available",
		Explains: "the node's available memory fell below the kubelet's eviction threshold: the kubelet evicts pods (those using more than they request first, lowest priority first) and admits no new BestEffort pod",
		Fix:      "Find the pods using more memory than they request and give them requests (and limits) that match their real use; move some of them elsewhere or add memory.",
		Commands: func(node string) []string {
			return []string{fmt.Sprintf("kubectl describe node %s | grep -A 12 'Allocated resources'", node),
				fmt.Sprintf("kubectl get pods -A --field-selector spec.nodeName=%s -o custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,QOS:.status.qosClass,MEMORY_REQ:.spec.containers[*].resources.requests.memory,MEMORY_LIM:.spec.containers[*].resources.limits.memory", node),
				"kubectl top pods -A --sort-by=memory"}
		},
		Resources: []string{"memory"}}},
	{corev1.NodeDiskPressure, pressure{
		Category: rule.Node.Sub("DiskPressure"), Taint: "node.kubernetes.io/disk-pressure", Signal: "nodefs.available / imagefs.available",
		Explains: "free space (or inodes) on the node's root or image filesystem fell below the kubelet's eviction threshold: the kubelet deletes unused images and dead containers, then evicts the pods using the most local storage, and admits no new pod",
		Fix:      "Free disk space on the node: unused images, large container logs, emptyDir volumes; then give pods ephemeral-storage requests and limits, or the node a larger disk.",
		Commands: func(node string) []string {
			return []string{fmt.Sprintf("kubectl debug node/%s -it --image=busybox:1.36 -- df -h /host/var/lib/kubelet /host/var/lib/containerd /host/var/log", node),
				fmt.Sprintf("ssh %s 'sudo crictl rmi --prune; sudo du -xsh /var/log/pods/* | sort -h | tail'", node)}
		},
		Resources: []string{"ephemeral-storage", "nodefs", "imagefs", "inodes"}}},
	{corev1.NodePIDPressure, pressure{
		Category: rule.Node.Sub("PIDPressure"), Taint: "node.kubernetes.io/pid-pressure", Signal: "pid.available",
		Explains: "the node is running out of process IDs: some pod forks processes without bound, and the kubelet evicts pods to reclaim PIDs",
		Fix:      "Find the pod with the most processes and fix its leak; set the kubelet's podPidsLimit so one pod cannot exhaust the node.",
		Commands: func(node string) []string {
			return []string{fmt.Sprintf("kubectl debug node/%s -it --image=busybox:1.36 -- sh -c 'ps -e | wc -l; cat /proc/sys/kernel/pid_max'", node)}
		},
		Resources: []string{"pids"}}},
}

// pressureEventReasons are the node events that tell about a pressure.
var pressureEventReasons = []string{"EvictionThresholdMet", "FreeDiskSpaceFailed", "ImageGCFailed", "SystemOOM", "NodeHasDiskPressure", "NodeHasInsufficientMemory", "NodeHasInsufficientPID"}

// checkNodePressure: a Node target under memory, disk or PID pressure.
func checkNodePressure(c *rule.Pass) []rule.Finding {
	n := kube.TargetOf(c, "Node", c.B.Nodes)
	if n == nil {
		return nil
	}
	var out []rule.Finding
	var clear []string
	var clearEv []string
	for _, pr := range pressures {
		cond := kube.NodeCondition(n, pr.Type)
		if cond == nil || cond.Status != corev1.ConditionTrue {
			if cond != nil && cond.Status == corev1.ConditionFalse {
				clear = append(clear, string(pr.Type))
				clearEv = append(clearEv, nodeConditionEvidence(c, n, cond))
			}
			continue
		}
		evidence := []string{nodeConditionEvidence(c, n, cond)}
		if id, ok := nodeTaintEvidence(c, n, pr.Taint); ok {
			evidence = append(evidence, id)
		}
		f := rule.Finding{
			Category: pr.Category, Verdict: report.Validated, Confidence: rule.Definitive, Current: true, Strength: rule.Observed, Subject: n.Name,
			Hypothesis: fmt.Sprintf("Node %s is under %s", n.Name, pr.Type),
			Title:      fmt.Sprintf("node %s is under %s: %s", n.Name, pr.Type, kube.OrDash(cond.Message)),
			Summary:    fmt.Sprintf("Node %s reports %s since %s: %s.", n.Name, pr.Type, kube.Clock(cond.LastTransitionTime.Time), pr.Explains),
			Mechanism:  fmt.Sprintf("The kubelet watches %s against its eviction thresholds; below them it sets %s=True, the node is tainted %s:NoSchedule, and %s.", pr.Signal, pr.Type, pr.Taint, pr.Explains),
			Culprit:    fmt.Sprintf("node/%s %s below the kubelet's eviction threshold (%s=True since %s)", n.Name, pr.Signal, pr.Type, kube.Clock(cond.LastTransitionTime.Time)),
		}
		for _, e := range nodeEvents(c, n.Name, pressureEventReasons...) {
			evidence = append(evidence, nodeEventEvidence(c, e))
			if pr.Type == corev1.NodeDiskPressure && e.Reason == "ImageGCFailed" && strings.Contains(e.Message, "0 bytes eligible") {
				f.Culprit = fmt.Sprintf("node/%s image filesystem: image garbage collection found nothing to free (%s) — the space is held by images in use, logs or volumes", n.Name, kube.FirstLine(e.Message))
			}
		}
		if pr.Type == corev1.NodeMemoryPressure {
			if unlimited := podsWithoutMemoryLimit(c.B.NodePods); len(unlimited) > 0 {
				f.Contributing = append(f.Contributing, fmt.Sprintf("%d pod(s) on the node have a container without a memory limit: %s.", len(unlimited), kube.NamesUpTo(unlimited, 5)))
			}
		}
		f.Contributing = append(f.Contributing, nodeImpact(c, n)...)
		f.Evidence = evidence
		f.Actions = []report.Action{
			{Kind: report.Immediate, Description: pr.Fix, Commands: pr.Commands(n.Name)},
			{Kind: report.Check, Description: "Read the kubelet's eviction events and the node's conditions.",
				Commands: []string{fmt.Sprintf("kubectl describe node %s", n.Name),
					fmt.Sprintf("kubectl get events -n default --field-selector involvedObject.kind=Node,involvedObject.name=%s", n.Name)}},
		}
		out = append(out, f)
	}
	// Only what the node reports False is ruled out.
	if len(out) == 0 && len(clear) > 0 && nodeHasProblem(n) {
		out = append(out, rule.Finding{Category: rule.Node.Sub("Pressure"), Verdict: report.Refuted, Confidence: rule.Definitive, Subject: n.Name,
			Hypothesis: fmt.Sprintf("Node %s is under %s", n.Name, strings.Join(clear, ", ")), Evidence: clearEv})
	}
	return out
}

func podsWithoutMemoryLimit(pods []*corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		for _, ctr := range p.Spec.Containers {
			if _, ok := ctr.Resources.Limits[corev1.ResourceMemory]; !ok {
				out = append(out, p.Namespace+"/"+p.Name)
				break
			}
		}
	}
	return out
}

// checkNodeNetworkUnavailable: a Node target whose network is not set up.
func checkNodeNetworkUnavailable(c *rule.Pass) []rule.Finding {
	n := kube.TargetOf(c, "Node", c.B.Nodes)
	if n == nil {
		return nil
	}
	cond := kube.NodeCondition(n, corev1.NodeNetworkUnavailable)
	if cond == nil || cond.Status != corev1.ConditionTrue {
		return nil
	}
	evidence := []string{nodeConditionEvidence(c, n, cond)}
	if id, ok := nodeTaintEvidence(c, n, "node.kubernetes.io/network-unavailable"); ok {
		evidence = append(evidence, id)
	}
	return []rule.Finding{{
		Category: rule.Node.Sub("NetworkUnavailable"), Verdict: report.Validated, Confidence: rule.Strong, Current: true, Strength: rule.Observed, Subject: n.Name,
		Evidence:   evidence,
		Hypothesis: fmt.Sprintf("Node %s has no working pod network", n.Name),
		Title:      fmt.Sprintf("node %s has no pod network: NetworkUnavailable=True (%s): %s", n.Name, kube.OrDash(cond.Reason), kube.OrDash(cond.Message)),
		Summary:    fmt.Sprintf("Node %s reports NetworkUnavailable=True since %s: pods on it cannot get or use a network.", n.Name, kube.Clock(cond.LastTransitionTime.Time)),
		Mechanism: "NetworkUnavailable is set by whatever configures the node's network: the cloud route controller (reason NoRouteCreated) or the CNI agent (Calico, Cilium…). " +
			"While it is True the node is tainted node.kubernetes.io/network-unavailable:NoSchedule and new pods' sandboxes fail.",
		Culprit: fmt.Sprintf("node/%s network setup: NetworkUnavailable=True (%s)", n.Name, kube.OrDash(cond.Reason)),
		Actions: []report.Action{
			{Kind: report.Immediate, Description: "Check the CNI agent pod on the node (and, with reason NoRouteCreated, the cloud route table of the cluster).",
				Commands: []string{fmt.Sprintf("kubectl get pods -n kube-system -o wide --field-selector spec.nodeName=%s", n.Name),
					fmt.Sprintf("kubectl describe node %s", n.Name)}},
		},
		Contributing: nodeImpact(c, n),
	}}
}

// checkNodeCordoned: a Node target marked unschedulable.
func checkNodeCordoned(c *rule.Pass) []rule.Finding {
	n := kube.TargetOf(c, "Node", c.B.Nodes)
	if n == nil || !n.Spec.Unschedulable {
		return nil
	}
	evidence := []string{c.Evidence(fmt.Sprintf("Node %s has spec.unschedulable=true", n.Name), "node/"+n.Name+" .spec.unschedulable",
		fmt.Sprintf("kubectl get node %s -o jsonpath='{.spec.unschedulable}'", n.Name))}
	if id, ok := nodeTaintEvidence(c, n, "node.kubernetes.io/unschedulable"); ok {
		evidence = append(evidence, id)
	}
	for _, e := range nodeEvents(c, n.Name, "NodeNotSchedulable") {
		evidence = append(evidence, nodeEventEvidence(c, e))
	}
	f := rule.Finding{
		Category: rule.Node.Sub("Cordoned"), Verdict: report.Validated, Confidence: rule.Definitive, Current: true, Strength: rule.Observed, Subject: n.Name,
		Evidence:   evidence,
		Hypothesis: fmt.Sprintf("Node %s is cordoned", n.Name),
		Title:      fmt.Sprintf("node %s is cordoned (spec.unschedulable=true): no new pod is scheduled on it", n.Name),
		Summary:    fmt.Sprintf("Node %s is cordoned: the scheduler places no new pod there; pods already running stay.", n.Name),
		Mechanism: "kubectl cordon or drain (or a maintenance tool: an upgrade, a node-problem remediator) sets spec.unschedulable; the node lifecycle controller mirrors it as the taint " +
			"node.kubernetes.io/unschedulable:NoSchedule. Running pods are untouched; a drain would also evict them.",
		Culprit: fmt.Sprintf("node/%s spec.unschedulable=true (cordoned)", n.Name),
		Actions: []report.Action{
			kube.UncordonAction([]string{n.Name}),
			{Kind: report.Check, Description: "If a drain was started, see which pods are still on the node.",
				Commands: []string{fmt.Sprintf("kubectl get pods -A -o wide --field-selector spec.nodeName=%s", n.Name)}},
		},
	}
	if pods := c.B.NodePods; len(pods) > 0 {
		var workloads []string
		for _, p := range pods {
			if ref := metav1.GetControllerOfNoCopy(p); ref == nil || ref.Kind != "DaemonSet" {
				if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
					workloads = append(workloads, p.Namespace+"/"+p.Name)
				}
			}
		}
		f.Contributing = append(f.Contributing, fmt.Sprintf("%d pod(s) other than DaemonSet pods still run on the node%s: a drain, if one was started, has not finished.", len(workloads), listSuffix(workloads)))
	}
	return []rule.Finding{f}
}

// Pods whose node is the problem.

var (
	evictionLowRe       = regexp.MustCompile(`The node was low on resource: ([\w.-]+)\.`)
	evictionContainerRe = regexp.MustCompile(`Container (\S+) was using (\S+), request is (\S+), has larger consumption of ([\w.-]+)`)
	evictionConditionRe = regexp.MustCompile(`The node had condition: \[([^\]]+)\]`)
	nodeShutdownRe      = regexp.MustCompile(`(?i)node shutdown|node is shutting down`)
	sandboxNetworkRe    = regexp.MustCompile(`(?i)network plugin|cni|NetworkPluginNotReady|network is not ready|failed to setup network`)
)

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
	if m := evictionLowRe.FindStringSubmatch(msg); m != nil {
		resourceName = m[1]
		for i := range pressures {
			if slices.Contains(pressures[i].Resources, resourceName) {
				pr, prType = &pressures[i].pressure, pressures[i].Type
			}
		}
	}
	admission := false
	if m := evictionConditionRe.FindStringSubmatch(msg); m != nil && pr == nil {
		for i := range pressures {
			if strings.Contains(m[1], string(pressures[i].Type)) {
				pr, prType, admission = &pressures[i].pressure, pressures[i].Type, true
			}
		}
	}
	if pr == nil {
		return rule.Finding{}, false
	}
	node := p.Spec.NodeName
	evidence := []string{c.Evidence(fmt.Sprintf("Pod phase Failed, reason Evicted: %s", msg), kube.PodRef(p)+" .status.reason/.status.message",
		fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.status.reason}{\": \"}{.status.message}'", p.Name, kube.NsFlag(p)))}
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
		if m := evictionContainerRe.FindStringSubmatch(msg); m != nil {
			ctr, used, req := m[1], m[2], m[3]
			f.Title += fmt.Sprintf(": container %s used %s against a request of %s", ctr, used, req)
			f.Summary += fmt.Sprintf(" Container %s used %s of %s while requesting %s, which made the pod a first candidate.", ctr, used, resourceName, req)
			res := corev1.ResourceName(strings.TrimSuffix(m[4], "."))
			kind, owner := kube.OwnerName(c, p)
			f.Culprit = fmt.Sprintf("%s container %s resources.requests.%s (%s; it used %s when node %s ran low)", kind+"/"+owner, ctr, res, req, used, nodeName)
			set := report.Action{Kind: report.Immediate,
				Description: fmt.Sprintf("Make container %s request what it really uses, so the scheduler reserves it and the kubelet stops picking it first.", ctr),
				Commands:    []string{fmt.Sprintf("kubectl set resources %s %s -c %s --requests=%s=%s", podWorkload(c, p), kube.NsFlag(p), ctr, res, used)},
				Risk:        "a larger request needs room on the nodes; " + kube.TemplateRisk(kind, "the change starts a rollout")}
			set.Commands = kube.TemplateCommands(kind, owner, p.Namespace, set.Commands, fmt.Sprintf("set resources.requests.%s: %s for container %s", res, used, ctr), "")
			if kind == "pod" {
				set.Commands = []string{fmt.Sprintf("kubectl get pod %s %s -o yaml > %s.yaml   # set resources.requests.%s: %s for container %s", p.Name, kube.NsFlag(p), p.Name, res, used, ctr),
					fmt.Sprintf("kubectl replace --force -f %s.yaml", p.Name)}
				set.Risk = kube.RecreateRisk
			}
			f.Actions = append([]report.Action{set}, f.Actions...)
		}
	}
	f.Actions = append(f.Actions, report.Action{Kind: report.LongTerm, Description: "Evicted pods stay listed as Failed: delete them once their cause is understood.",
		Commands: []string{fmt.Sprintf("kubectl delete pod %s %s", p.Name, kube.NsFlag(p))}})
	f.Evidence = evidence
	return f, true
}

func shutdownFinding(c *rule.Pass, p *corev1.Pod) rule.Finding {
	node := kube.ValueOr(p.Spec.NodeName, "its node")
	evidence := []string{c.Evidence(fmt.Sprintf("Pod phase Failed, reason %s: %s", kube.OrDash(p.Status.Reason), p.Status.Message), kube.PodRef(p)+" .status.reason/.status.message",
		fmt.Sprintf("kubectl get pod %s %s -o jsonpath='{.status.reason}{\": \"}{.status.message}'", p.Name, kube.NsFlag(p)))}
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
				Commands: []string{fmt.Sprintf("kubectl get pdb %s", kube.NsFlag(p))}},
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
	if cause.Class == "KubeletStoppedPosting" {
		state = fmt.Sprintf("stopped posting status %s ago (last heartbeat %s)", kube.Ago(c.Now, hb), kube.Clock(hb))
		culprit = fmt.Sprintf("node/%s kubelet: no status since %s (Ready=Unknown)", n.Name, kube.Clock(hb))
	}
	f := rule.Finding{
		Category: rule.Node.Sub("NotReady", cause.Class), Verdict: report.Validated, Confidence: rule.Strong, Current: true, Strength: rule.Traced, Subject: p.Name,
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
			Commands:    []string{fmt.Sprintf("kubectl delete pod %s %s --grace-period=0 --force", p.Name, kube.NsFlag(p))},
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
				"event on "+kube.PodRef(p), fmt.Sprintf("kubectl get events %s --field-selector involvedObject.name=%s,reason=FailedCreatePodSandBox", kube.NsFlag(p), p.Name)))
			f.Verdict, f.Confidence = report.Validated, rule.High
		}
	}
	f.Evidence = evidence
	return f
}
