package node

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/rule"
	"github.com/kubectl-triage/kubectl-triage/pkg/rules/kube"
)

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
		kube.NodeConditionTrue(n, corev1.NodeMemoryPressure) || kube.NodeConditionTrue(n, corev1.NodeDiskPressure) || kube.NodeConditionTrue(n, corev1.NodePIDPressure) || hasInitTaint(n) || len(kube.BlockingTaints(n)) > 0
}

// notReadyClass is why a node is NotReady: the category suffix
// ("Node/NotReady/CNI"); notReadyKubelet when no row recognises the
// kubelet's message.
type notReadyClass string

const (
	notReadyKubeletStoppedPosting notReadyClass = "KubeletStoppedPosting"
	notReadyCNI                   notReadyClass = "CNI"
	notReadyContainerRuntime      notReadyClass = "ContainerRuntime"
	notReadyPLEG                  notReadyClass = "PLEG"
	notReadyShutdown              notReadyClass = "Shutdown"
	notReadyKubelet               notReadyClass = "Kubelet"
)

// notReadyCause is one row of the NotReady table: what the kubelet's Ready
// message means and where to look.
type notReadyCause struct {
	Class    notReadyClass
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
	{notReadyKubeletStoppedPosting, regexp.MustCompile(`(?i)NodeStatusUnknown|Kubelet stopped posting node status`),
		"the kubelet stopped posting node status: the machine is down, partitioned from the API server, or the kubelet died",
		"Check that the machine is up and reachable (cloud console, ping its InternalIP), then the kubelet on it.", kubeletCommands},
	{notReadyCNI, regexp.MustCompile(`(?i)NetworkPluginNotReady|cni plugin not initialized|cni config uninitialized|network plugin is not ready|NetworkReady=false`),
		"the container network plugin (CNI) on the node is not ready, so the kubelet cannot give pods a network",
		"Check the CNI agent pod on this node (calico-node, cilium, aws-node, kube-flannel…) and its logs; the node turns Ready once the plugin writes its configuration.", cniCommands},
	{notReadyContainerRuntime, regexp.MustCompile(`(?i)container runtime is down|container runtime not ready|container runtime status check|RuntimeReady=false|ContainerRuntimeNotReady|failed to get runtime status|runtime service`),
		"the container runtime (containerd or CRI-O) is down or not answering the kubelet",
		"Restart or repair the container runtime (containerd or CRI-O) on the node.", runtimeCommands},
	{notReadyPLEG, regexp.MustCompile(`(?i)PLEG is not healthy`),
		"the kubelet's pod lifecycle event generator is stalled: the runtime takes too long to list containers (overloaded node, too many containers, or a hung runtime)",
		"Look at the node's load and the runtime's health; restarting the runtime or the kubelet usually clears it, and an overloaded node needs fewer pods.", runtimeCommands},
	{notReadyShutdown, regexp.MustCompile(`(?i)node is shutting down|shutdown`),
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
	return notReadyCause{Class: notReadyKubelet, Explains: fmt.Sprintf("the kubelet reports the node not ready (%s)", kube.OrDash(kube.FirstLine(cond.Message))),
		Fix: "Read the kubelet's log on the node for the reason it gives.", Commands: kubeletCommands}
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

// nodeNeeds is what the rules about a Node target read.
var nodeNeeds = []rule.Need{rule.Nodes, rule.NodePods, rule.Events}
