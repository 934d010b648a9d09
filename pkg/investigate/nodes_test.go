package investigate

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// Builders of the node tests (prefix nt).

func ntCondition(t corev1.NodeConditionType, status corev1.ConditionStatus, reason, msg string, since time.Duration) func(*corev1.Node) {
	return func(n *corev1.Node) {
		cond := corev1.NodeCondition{Type: t, Status: status, Reason: reason, Message: msg,
			LastHeartbeatTime: ts(-since), LastTransitionTime: ts(-since)}
		for i := range n.Status.Conditions {
			if n.Status.Conditions[i].Type == t {
				n.Status.Conditions[i] = cond
				return
			}
		}
		n.Status.Conditions = append(n.Status.Conditions, cond)
	}
}

// ntUnknown is what the node lifecycle controller writes when the kubelet
// stops posting: heartbeat frozen, transition when the grace period ended.
func ntUnknown(since time.Duration) func(*corev1.Node) {
	return func(n *corev1.Node) {
		for _, t := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
			ntCondition(t, corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.", since)(n)
		}
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute})
	}
}

func ntBundle(n *corev1.Node, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
	b := &bundle.Bundle{
		Target:  fault.Resource{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: string(n.UID)},
		Cluster: bundle.ClusterInfo{Context: "prod", Cluster: "prod-east"},
		Nodes:   []*corev1.Node{n},
	}
	for _, m := range mutate {
		m(b)
	}
	return b
}

// ntNodeEvent is a node event as the kubelet files it: involvedObject.uid
// is the node's name.
func ntNodeEvent(node, typ, reason, msg string) corev1.Event {
	return corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: node + "." + strings.ToLower(reason), Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: node, UID: types.UID(node)},
		Type:           typ, Reason: reason, Message: msg, Count: 1,
		FirstTimestamp: ts(-20 * time.Minute), LastTimestamp: ts(-20 * time.Minute),
	}
}

func ntNodePods(pods ...*corev1.Pod) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.NodePods = append(b.NodePods, pods...) }
}

func ntOnNode(n *corev1.Node) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		b.Nodes = []*corev1.Node{n}
		for _, p := range b.Pods {
			p.Spec.NodeName = n.Name
		}
	}
}

func ntEvicted(msg string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: msg, StartTime: &metav1.Time{Time: now.Add(-time.Hour)}}
	}
}

func TestNodeTargetRules(t *testing.T) {
	notReadyPods := ntNodePods(pod("api-1"), pod("api-2", healthy))
	runSchedCases(t, []scCase{
		{
			name: "kubelet stopped posting status",
			bundle: ntBundle(scNode("worker-3", ntUnknown(14*time.Minute)), notReadyPods, func(b *bundle.Bundle) {
				b.Events = append(b.Events, ntNodeEvent("worker-3", "Normal", "NodeNotReady", "Node worker-3 status is now: NodeNotReady"))
			}),
			wantCategory: "Node/NotReady/KubeletStoppedPosting",
			wantCulprit:  []string{"node/worker-3 kubelet: no status since 14:46:00Z"},
			wantTitle:    []string{"stopped posting status 14m ago", "last heartbeat 14:46:00Z"},
			wantText:     []string{"node.kubernetes.io/unreachable:NoExecute", "NodeNotReady", "2 pod(s) are scheduled on node worker-3; 1 of them are not ready: shop/api-1", "kubectl delete node worker-3"},
			minConf:      0.9,
		},
		{
			name: "CNI not ready",
			bundle: ntBundle(scNode("worker-1", ntCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady",
				"container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized", 5*time.Minute))),
			wantCategory: "Node/NotReady/CNI",
			wantCulprit:  []string{"Ready=False (KubeletNotReady)", "cni plugin not initialized"},
			wantTitle:    []string{"for 5m", "(CNI)"},
			wantText:     []string{"kubectl get pods -n kube-system -o wide --field-selector spec.nodeName=worker-1", "ls /etc/cni/net.d"},
		},
		{
			name:         "container runtime down",
			bundle:       ntBundle(scNode("w", ntCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady", "container runtime is down", time.Minute))),
			wantCategory: "Node/NotReady/ContainerRuntime",
			wantText:     []string{"journalctl -u containerd"},
		},
		{
			name:         "PLEG",
			bundle:       ntBundle(scNode("w", ntCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady", "PLEG is not healthy: pleg was last seen active 3m42s ago; threshold is 3m0s", time.Minute))),
			wantCategory: "Node/NotReady/PLEG",
		},
		{
			name:         "shutting down",
			bundle:       ntBundle(scNode("w", ntCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady", "node is shutting down", time.Minute))),
			wantCategory: "Node/NotReady/Shutdown",
		},
		{
			name: "other kubelet reason, with a reboot and pressure in the history",
			bundle: ntBundle(scNode("w", ntCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady", "[container runtime status check may not have completed yet]", time.Minute),
				ntCondition(corev1.NodeDiskPressure, corev1.ConditionTrue, "KubeletHasDiskPressure", "kubelet has disk pressure", time.Minute)),
				func(b *bundle.Bundle) {
					b.Events = append(b.Events, ntNodeEvent("w", "Warning", "Rebooted", "Node w has been rebooted, boot id: 3f1c"))
				}),
			wantCategory: "Node/NotReady/ContainerRuntime",
			wantText:     []string{"The node rebooted at", "Condition DiskPressure=True"},
		},
		{
			name:         "unclassified NotReady",
			bundle:       ntBundle(scNode("w", ntCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady", "something odd", time.Minute))),
			wantCategory: "Node/NotReady/Kubelet",
			wantTitle:    []string{"something odd"},
		},
		{
			name: "memory pressure, pods without limits",
			bundle: ntBundle(scNode("w", ntCondition(corev1.NodeMemoryPressure, corev1.ConditionTrue, "KubeletHasInsufficientMemory", "kubelet has insufficient memory available", 3*time.Minute),
				scTaint("node.kubernetes.io/memory-pressure", "", corev1.TaintEffectNoSchedule)),
				ntNodePods(pod("greedy", func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Limits = nil }), pod("evicted", ntEvicted("The node was low on resource: memory. "))),
				func(b *bundle.Bundle) {
					b.Events = append(b.Events, ntNodeEvent("w", "Warning", "EvictionThresholdMet", "Attempting to reclaim memory"))
				}),
			wantCategory: "Node/MemoryPressure",
			wantCulprit:  []string{"node/w memory.available below the kubelet's eviction threshold"},
			wantText:     []string{"without a memory limit: shop/greedy", "1 pod(s) on the node were evicted: shop/evicted", "EvictionThresholdMet", "node.kubernetes.io/memory-pressure:NoSchedule"},
			minConf:      0.95,
			wantRuledOut: "kubelet is not ready",
		},
		{
			name: "disk pressure with nothing for image GC to free",
			bundle: ntBundle(scNode("w", ntCondition(corev1.NodeDiskPressure, corev1.ConditionTrue, "KubeletHasDiskPressure", "kubelet has disk pressure", 3*time.Minute)), func(b *bundle.Bundle) {
				b.Events = append(b.Events, ntNodeEvent("w", "Warning", "ImageGCFailed", "failed to garbage collect required amount of images. Attempted to free 4294967296 bytes, but only found 0 bytes eligible to free."),
					ntNodeEvent("w", "Warning", "FreeDiskSpaceFailed", "Failed to garbage collect required amount of images. Attempted to free 4294967296 bytes, but only found 0 bytes eligible to free."))
			}),
			wantCategory: "Node/DiskPressure",
			wantCulprit:  []string{"image garbage collection found nothing to free"},
			wantText:     []string{"crictl rmi --prune"},
		},
		{
			name:         "PID pressure",
			bundle:       ntBundle(scNode("w", ntCondition(corev1.NodePIDPressure, corev1.ConditionTrue, "KubeletHasInsufficientPID", "kubelet has insufficient PID available", time.Minute))),
			wantCategory: "Node/PIDPressure",
			wantText:     []string{"podPidsLimit"},
		},
		{
			name:         "network unavailable",
			bundle:       ntBundle(scNode("w", ntCondition(corev1.NodeNetworkUnavailable, corev1.ConditionTrue, "NoRouteCreated", "RouteController failed to create a route", time.Minute))),
			wantCategory: "Node/NetworkUnavailable",
			wantCulprit:  []string{"NetworkUnavailable=True (NoRouteCreated)"},
		},
		{
			name: "cordoned, pods left after a drain",
			bundle: ntBundle(scNode("w", func(n *corev1.Node) { n.Spec.Unschedulable = true }, scTaint("node.kubernetes.io/unschedulable", "", corev1.TaintEffectNoSchedule),
				ntCondition(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", time.Hour),
				ntCondition(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure", time.Hour)),
				ntNodePods(pod("api-1"), pod("fluentd", func(p *corev1.Pod) {
					p.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "fluentd", Controller: boolPtr(true)}}
				}))),
			wantCategory: "Node/Cordoned",
			wantCulprit:  []string{"node/w spec.unschedulable=true"},
			wantText:     []string{"kubectl uncordon w", "1 pod(s) other than DaemonSet pods still run on the node: shop/api-1", "Node w is under MemoryPressure, DiskPressure", "Node w's kubelet is not ready"},
			minConf:      0.95,
		},
		{
			name:         "NotReady outranks cordoned",
			bundle:       ntBundle(scNode("w", ntUnknown(time.Hour), func(n *corev1.Node) { n.Spec.Unschedulable = true })),
			wantCategory: "Node/NotReady/KubeletStoppedPosting",
			wantTitle:    []string{"1h00m ago"},
		},
	})
}

func TestHealthyNodeTarget(t *testing.T) {
	r := Investigate(ntBundle(scNode("w")), Options{Now: now})
	if !r.Healthy || len(r.Hypotheses) != 0 {
		t.Fatalf("healthy node: healthy=%v hypotheses=%+v title=%q", r.Healthy, r.Hypotheses, r.Title)
	}
}

func TestPodNodeRules(t *testing.T) {
	deleting := func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: now.Add(-10 * time.Minute)} }
	down := scNode("worker-3", ntUnknown(14*time.Minute))
	runSchedCases(t, []scCase{
		{
			name: "the node beats the stale crash loop",
			bundle: podBundle(pod("api", crashing(1, "Error")), withLogs(true, "FATAL config: required env DATABASE_URL is empty\n"), ntOnNode(down),
				withEvents(ntNodeEvent("worker-3", "Normal", "NodeNotReady", "Node worker-3 status is now: NodeNotReady"))),
			wantCategory: "Node/NotReady/KubeletStoppedPosting",
			wantCulprit:  []string{"node/worker-3 kubelet: no status since 14:46:00Z"},
			wantTitle:    []string{"the pod's node worker-3 stopped posting status 14m ago"},
			wantText:     []string{"kubectl triage node/worker-3"},
		},
		{
			name:         "stuck Terminating on an unreachable node",
			bundle:       podBundle(pod("db-0", healthy, deleting), ntOnNode(down)),
			wantCategory: "Node/NotReady/KubeletStoppedPosting",
			wantTitle:    []string{"stuck Terminating"},
			wantText:     []string{"kubectl delete pod db-0 -n shop --grace-period=0 --force", "still shows Ready=True"},
		},
		{
			name: "pod on a node whose CNI is not ready",
			bundle: podBundle(pod("api", waiting("ContainerCreating", "")), ntOnNode(scNode("w", ntCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady",
				"container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized", 5*time.Minute)))),
			wantCategory: "Node/NotReady/CNI",
		},
		{
			name: "evicted under memory pressure, container over its request",
			bundle: podBundle(pod("api", ntEvicted("The node was low on resource: memory. Threshold quantity: 100Mi, available: 92Mi. Container app was using 1200Mi, request is 128Mi, has larger consumption of memory. ")),
				ntOnNode(scNode("w", ntCondition(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", 10*time.Minute)))),
			wantCategory: "Node/MemoryPressure/Evicted",
			wantCulprit:  []string{"container app resources.requests.memory (128Mi; it used 1200Mi when node w ran low)"},
			wantTitle:    []string{"evicted because node w ran low on memory", "used 1200Mi against a request of 128Mi"},
			wantText:     []string{"no longer under MemoryPressure", "kubectl delete pod api -n shop"},
			minConf:      0.95,
		},
		{
			name:         "evicted under disk pressure, workload request fix",
			bundle:       podBundle(pod("api", ntEvicted("The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 2Gi. Container app was using 30Gi, request is 0, has larger consumption of ephemeral-storage. ")), ntOnNode(scNode("w")), scDeployment(2)),
			wantCategory: "Node/DiskPressure/Evicted",
			wantText:     []string{"kubectl set resources deployment/web -n shop -c app --requests=ephemeral-storage=30Gi"},
		},
		{
			name:         "rejected at admission under disk pressure",
			bundle:       podBundle(pod("api", ntEvicted("The node had condition: [DiskPressure]. ")), ntOnNode(scNode("w", ntCondition(corev1.NodeDiskPressure, corev1.ConditionTrue, "KubeletHasDiskPressure", "kubelet has disk pressure", time.Minute)))),
			wantCategory: "Node/DiskPressure/Rejected",
			wantText:     []string{"is still under DiskPressure"},
		},
		{
			name:        "evicted for its own ephemeral-storage limit: not a node problem",
			bundle:      podBundle(pod("api", ntEvicted(`Pod ephemeral local storage usage exceeds the total limit of containers 1Gi. `)), ntOnNode(scNode("w"))),
			wantNoCause: true,
		},
		{
			name: "stopped by a node shutdown",
			bundle: podBundle(pod("api", func(p *corev1.Pod) {
				p.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Terminated", Message: "Pod was terminated in response to imminent node shutdown."}
			}), ntOnNode(scNode("w")), withEvents(ntNodeEvent("w", "Warning", "Rebooted", "Node w has been rebooted, boot id: 9a"))),
			wantCategory: "Node/Shutdown",
			wantCulprit:  []string{"node/w shutdown"},
			wantText:     []string{"Rebooted"},
		},
		{
			name: "sandbox fails on a node without network",
			bundle: podBundle(pod("api", waiting("ContainerCreating", "")), ntOnNode(scNode("w", ntCondition(corev1.NodeNetworkUnavailable, corev1.ConditionTrue, "CalicoIsDown", "Calico is shutting down on this node", time.Minute))),
				func(b *bundle.Bundle) {
					b.Events = append(b.Events, event(b.Pods[0], "Warning", "FailedCreatePodSandBox",
						`Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "4f2": plugin type="calico" failed (add): stat /var/lib/calico/nodename: no such file or directory`, 12))
				}),
			wantCategory: "Node/NetworkUnavailable",
			wantCulprit:  []string{"NetworkUnavailable=True (CalicoIsDown)"},
		},
		{
			name: "disk pressure on the node of a not-ready pod is only a hypothesis",
			bundle: podBundle(pod("api", func(p *corev1.Pod) {
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: ts(-time.Minute)}}}}
			}), ntOnNode(scNode("w", ntCondition(corev1.NodeDiskPressure, corev1.ConditionTrue, "KubeletHasDiskPressure", "kubelet has disk pressure", time.Minute)))),
			wantNoCause: true,
		},
	})
}

// TestPodNodeHypotheses: the inconclusive node hypotheses are listed but never
// named the root cause, and a healthy pod on a pressured node yields nothing.
func TestPodNodeHypotheses(t *testing.T) {
	disk := scNode("w", ntCondition(corev1.NodeDiskPressure, corev1.ConditionTrue, "KubeletHasDiskPressure", "kubelet has disk pressure", time.Minute))
	notReady := podBundle(pod("api", waiting("ContainerCreating", "")), ntOnNode(disk))
	r := Investigate(notReady, Options{Now: now})
	found := false
	for _, h := range r.Hypotheses {
		if strings.Contains(h.Statement, "DiskPressure keeps pod api from running") {
			found = h.Verdict == "inconclusive"
		}
	}
	if !found {
		t.Errorf("want an inconclusive disk-pressure hypothesis: %+v", r.Hypotheses)
	}
	fine := podBundle(pod("api", healthy), ntOnNode(disk.DeepCopy()))
	for _, h := range Investigate(fine, Options{Now: now}).Hypotheses {
		if strings.Contains(h.Statement, "DiskPressure") {
			t.Errorf("healthy pod got a node hypothesis: %+v", h)
		}
	}
}
