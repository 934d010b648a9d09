package node_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/bundle/bundletest"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate"
	"github.com/kubectl-triage/kubectl-triage/pkg/investigate/investigatetest"
)

func TestNodeTargetRules(t *testing.T) {
	notReadyPods := bundletest.NtNodePods(bundletest.Pod("api-1"), bundletest.Pod("api-2", bundletest.Healthy))
	investigatetest.RunSchedCases(t, []investigatetest.SchedCase{
		{
			Name: "kubelet stopped posting status",
			Bundle: bundletest.NtBundle(bundletest.ScNode("worker-3", bundletest.NtUnknown(14*time.Minute)), notReadyPods, func(b *bundle.Bundle) {
				b.Events = append(b.Events, bundletest.NtNodeEvent("worker-3", "Normal", "NodeNotReady", "Node worker-3 status is now: NodeNotReady"))
			}),
			WantCategory: "Node/NotReady/KubeletStoppedPosting",
			WantCulprit:  []string{"node/worker-3 kubelet: no status since 14:46:00Z"},
			WantTitle:    []string{"stopped posting status 14m ago", "last heartbeat 14:46:00Z"},
			WantText:     []string{"node.kubernetes.io/unreachable:NoExecute", "NodeNotReady", "2 pod(s) are scheduled on node worker-3; 1 of them are not ready: shop/api-1", "kubectl delete node worker-3"},
			MinConf:      0.9,
		},
		{
			Name: "CNI not ready",
			Bundle: bundletest.NtBundle(bundletest.ScNode("worker-1", bundletest.NtCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady",
				"container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized", 5*time.Minute))),
			WantCategory: "Node/NotReady/CNI",
			WantCulprit:  []string{"Ready=False (KubeletNotReady)", "cni plugin not initialized"},
			WantTitle:    []string{"for 5m", "(CNI)"},
			WantText:     []string{"kubectl get pods -n kube-system -o wide --field-selector spec.nodeName=worker-1", "ls /etc/cni/net.d"},
		},
		{
			Name:         "container runtime down",
			Bundle:       bundletest.NtBundle(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady", "container runtime is down", time.Minute))),
			WantCategory: "Node/NotReady/ContainerRuntime",
			WantText:     []string{"journalctl -u containerd"},
		},
		{
			Name:         "PLEG",
			Bundle:       bundletest.NtBundle(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady", "PLEG is not healthy: pleg was last seen active 3m42s ago; threshold is 3m0s", time.Minute))),
			WantCategory: "Node/NotReady/PLEG",
		},
		{
			Name:         "shutting down",
			Bundle:       bundletest.NtBundle(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady", "node is shutting down", time.Minute))),
			WantCategory: "Node/NotReady/Shutdown",
		},
		{
			Name: "other kubelet reason, with a reboot and pressure in the history",
			Bundle: bundletest.NtBundle(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady", "[container runtime status check may not have completed yet]", time.Minute),
				bundletest.NtCondition(corev1.NodeDiskPressure, corev1.ConditionTrue, "KubeletHasDiskPressure", "kubelet has disk pressure", time.Minute)),
				func(b *bundle.Bundle) {
					b.Events = append(b.Events, bundletest.NtNodeEvent("w", "Warning", "Rebooted", "Node w has been rebooted, boot id: 3f1c"))
				}),
			WantCategory: "Node/NotReady/ContainerRuntime",
			WantText:     []string{"The node rebooted at", "Condition DiskPressure=True"},
		},
		{
			Name:         "unclassified NotReady",
			Bundle:       bundletest.NtBundle(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady", "something odd", time.Minute))),
			WantCategory: "Node/NotReady/Kubelet",
			WantTitle:    []string{"something odd"},
		},
		{
			Name: "memory pressure, pods without limits",
			Bundle: bundletest.NtBundle(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeMemoryPressure, corev1.ConditionTrue, "KubeletHasInsufficientMemory", "kubelet has insufficient memory available", 3*time.Minute),
				bundletest.ScTaint("node.kubernetes.io/memory-pressure", "", corev1.TaintEffectNoSchedule)),
				bundletest.NtNodePods(bundletest.Pod("greedy", func(p *corev1.Pod) { p.Spec.Containers[0].Resources.Limits = nil }), bundletest.Pod("evicted", bundletest.NtEvicted("The node was low on resource: memory. "))),
				func(b *bundle.Bundle) {
					b.Events = append(b.Events, bundletest.NtNodeEvent("w", "Warning", "EvictionThresholdMet", "Attempting to reclaim memory"))
				}),
			WantCategory: "Node/MemoryPressure",
			WantCulprit:  []string{"node/w memory.available below the kubelet's eviction threshold"},
			WantText:     []string{"without a memory limit: shop/greedy", "1 pod(s) on the node were evicted: shop/evicted", "EvictionThresholdMet", "node.kubernetes.io/memory-pressure:NoSchedule"},
			MinConf:      0.95,
			WantRuledOut: "kubelet is not ready",
		},
		{
			Name: "disk pressure with nothing for image GC to free",
			Bundle: bundletest.NtBundle(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeDiskPressure, corev1.ConditionTrue, "KubeletHasDiskPressure", "kubelet has disk pressure", 3*time.Minute)), func(b *bundle.Bundle) {
				b.Events = append(b.Events, bundletest.NtNodeEvent("w", "Warning", "ImageGCFailed", "failed to garbage collect required amount of images. Attempted to free 4294967296 bytes, but only found 0 bytes eligible to free."),
					bundletest.NtNodeEvent("w", "Warning", "FreeDiskSpaceFailed", "Failed to garbage collect required amount of images. Attempted to free 4294967296 bytes, but only found 0 bytes eligible to free."))
			}),
			WantCategory: "Node/DiskPressure",
			WantCulprit:  []string{"image garbage collection found nothing to free"},
			WantText:     []string{"crictl rmi --prune"},
		},
		{
			Name:         "PID pressure",
			Bundle:       bundletest.NtBundle(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodePIDPressure, corev1.ConditionTrue, "KubeletHasInsufficientPID", "kubelet has insufficient PID available", time.Minute))),
			WantCategory: "Node/PIDPressure",
			WantText:     []string{"podPidsLimit"},
		},
		{
			Name:         "network unavailable",
			Bundle:       bundletest.NtBundle(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeNetworkUnavailable, corev1.ConditionTrue, "NoRouteCreated", "RouteController failed to create a route", time.Minute))),
			WantCategory: "Node/NetworkUnavailable",
			WantCulprit:  []string{"NetworkUnavailable=True (NoRouteCreated)"},
		},
		{
			Name: "cordoned, pods left after a drain",
			Bundle: bundletest.NtBundle(bundletest.ScNode("w", func(n *corev1.Node) { n.Spec.Unschedulable = true }, bundletest.ScTaint("node.kubernetes.io/unschedulable", "", corev1.TaintEffectNoSchedule),
				bundletest.NtCondition(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", time.Hour),
				bundletest.NtCondition(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure", time.Hour)),
				bundletest.NtNodePods(bundletest.Pod("api-1"), bundletest.Pod("fluentd", func(p *corev1.Pod) {
					p.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "fluentd", Controller: bundletest.BoolPtr(true)}}
				}))),
			WantCategory: "Node/Cordoned",
			WantCulprit:  []string{"node/w spec.unschedulable=true"},
			WantText:     []string{"kubectl uncordon w", "1 pod(s) other than DaemonSet pods still run on the node: shop/api-1", "Node w is under MemoryPressure, DiskPressure", "Node w's kubelet is not ready"},
			MinConf:      0.95,
		},
		{
			Name:         "NotReady outranks cordoned",
			Bundle:       bundletest.NtBundle(bundletest.ScNode("w", bundletest.NtUnknown(time.Hour), func(n *corev1.Node) { n.Spec.Unschedulable = true })),
			WantCategory: "Node/NotReady/KubeletStoppedPosting",
			WantTitle:    []string{"1h00m ago"},
		},
	})
}

func TestHealthyNodeTarget(t *testing.T) {
	r := investigate.Investigate(bundletest.NtBundle(bundletest.ScNode("w")), investigate.Options{Now: bundletest.Now})
	if !r.Healthy || len(r.Hypotheses) != 0 {
		t.Fatalf("healthy node: healthy=%v hypotheses=%+v title=%q", r.Healthy, r.Hypotheses, r.Title)
	}
}

func TestPodNodeRules(t *testing.T) {
	deleting := func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: bundletest.Now.Add(-10 * time.Minute)} }
	down := bundletest.ScNode("worker-3", bundletest.NtUnknown(14*time.Minute))
	investigatetest.RunSchedCases(t, []investigatetest.SchedCase{
		{
			Name: "the node beats the stale crash loop",
			Bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Crashing(1, "Error")), bundletest.WithLogs(true, "FATAL config: required env DATABASE_URL is empty\n"), bundletest.NtOnNode(down),
				bundletest.WithEvents(bundletest.NtNodeEvent("worker-3", "Normal", "NodeNotReady", "Node worker-3 status is now: NodeNotReady"))),
			WantCategory: "Node/NotReady/KubeletStoppedPosting",
			WantCulprit:  []string{"node/worker-3 kubelet: no status since 14:46:00Z"},
			WantTitle:    []string{"the pod's node worker-3 stopped posting status 14m ago"},
			WantText:     []string{"kubectl triage node/worker-3"},
		},
		{
			Name:         "stuck Terminating on an unreachable node",
			Bundle:       bundletest.PodBundle(bundletest.Pod("db-0", bundletest.Healthy, deleting), bundletest.NtOnNode(down)),
			WantCategory: "Node/NotReady/KubeletStoppedPosting",
			WantTitle:    []string{"stuck Terminating"},
			WantText:     []string{"kubectl delete pod db-0 -n shop --grace-period=0 --force", "still shows Ready=True"},
		},
		{
			Name: "pod on a node whose CNI is not ready",
			Bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Waiting("ContainerCreating", "")), bundletest.NtOnNode(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady",
				"container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized", 5*time.Minute)))),
			WantCategory: "Node/NotReady/CNI",
		},
		{
			Name: "evicted under memory pressure, container over its request",
			Bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.NtEvicted("The node was low on resource: memory. Threshold quantity: 100Mi, available: 92Mi. Container app was using 1200Mi, request is 128Mi, has larger consumption of memory. ")),
				bundletest.NtOnNode(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", 10*time.Minute)))),
			WantCategory: "Node/MemoryPressure/Evicted",
			WantCulprit:  []string{"container app resources.requests.memory (128Mi; it used 1200Mi when node w ran low)"},
			WantTitle:    []string{"evicted because node w ran low on memory", "used 1200Mi against a request of 128Mi"},
			WantText:     []string{"no longer under MemoryPressure", "kubectl delete pod api -n shop"},
			MinConf:      0.95,
		},
		{
			Name:         "evicted under disk pressure, workload request fix",
			Bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.NtEvicted("The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 2Gi. Container app was using 30Gi, request is 0, has larger consumption of ephemeral-storage. ")), bundletest.NtOnNode(bundletest.ScNode("w")), bundletest.ScDeployment(2)),
			WantCategory: "Node/DiskPressure/Evicted",
			WantText:     []string{"kubectl set resources deployment/web -n shop -c app --requests=ephemeral-storage=30Gi"},
		},
		{
			Name:         "rejected at admission under disk pressure",
			Bundle:       bundletest.PodBundle(bundletest.Pod("api", bundletest.NtEvicted("The node had condition: [DiskPressure]. ")), bundletest.NtOnNode(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeDiskPressure, corev1.ConditionTrue, "KubeletHasDiskPressure", "kubelet has disk pressure", time.Minute)))),
			WantCategory: "Node/DiskPressure/Rejected",
			WantText:     []string{"is still under DiskPressure"},
		},
		{
			Name:        "evicted for its own ephemeral-storage limit: not a node problem",
			Bundle:      bundletest.PodBundle(bundletest.Pod("api", bundletest.NtEvicted(`Pod ephemeral local storage usage exceeds the total limit of containers 1Gi. `)), bundletest.NtOnNode(bundletest.ScNode("w"))),
			WantNoCause: true,
		},
		{
			Name: "stopped by a node shutdown",
			Bundle: bundletest.PodBundle(bundletest.Pod("api", func(p *corev1.Pod) {
				p.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Terminated", Message: "Pod was terminated in response to imminent node shutdown."}
			}), bundletest.NtOnNode(bundletest.ScNode("w")), bundletest.WithEvents(bundletest.NtNodeEvent("w", "Warning", "Rebooted", "Node w has been rebooted, boot id: 9a"))),
			WantCategory: "Node/Shutdown",
			WantCulprit:  []string{"node/w shutdown"},
			WantText:     []string{"Rebooted"},
		},
		{
			Name: "sandbox fails on a node without network",
			Bundle: bundletest.PodBundle(bundletest.Pod("api", bundletest.Waiting("ContainerCreating", "")), bundletest.NtOnNode(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeNetworkUnavailable, corev1.ConditionTrue, "CalicoIsDown", "Calico is shutting down on this node", time.Minute))),
				func(b *bundle.Bundle) {
					b.Events = append(b.Events, bundletest.Event(b.Pods[0], "Warning", "FailedCreatePodSandBox",
						`Failed to create pod sandbox: rpc error: code = Unknown desc = failed to setup network for sandbox "4f2": plugin type="calico" failed (add): stat /var/lib/calico/nodename: no such file or directory`, 12))
				}),
			WantCategory: "Node/NetworkUnavailable",
			WantCulprit:  []string{"NetworkUnavailable=True (CalicoIsDown)"},
		},
		{
			Name: "disk pressure on the node of a not-ready pod is only a hypothesis",
			Bundle: bundletest.PodBundle(bundletest.Pod("api", func(p *corev1.Pod) {
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: bundletest.TS(-time.Minute)}}}}
			}), bundletest.NtOnNode(bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeDiskPressure, corev1.ConditionTrue, "KubeletHasDiskPressure", "kubelet has disk pressure", time.Minute)))),
			WantNoCause: true,
		},
	})
}

// TestPodNodeHypotheses: the inconclusive node hypotheses are listed but never
// named the root cause, and a healthy pod on a pressured node yields nothing.
func TestPodNodeHypotheses(t *testing.T) {
	disk := bundletest.ScNode("w", bundletest.NtCondition(corev1.NodeDiskPressure, corev1.ConditionTrue, "KubeletHasDiskPressure", "kubelet has disk pressure", time.Minute))
	notReady := bundletest.PodBundle(bundletest.Pod("api", bundletest.Waiting("ContainerCreating", "")), bundletest.NtOnNode(disk))
	r := investigate.Investigate(notReady, investigate.Options{Now: bundletest.Now})
	found := false
	for _, h := range r.Hypotheses {
		if strings.Contains(h.Statement, "DiskPressure keeps pod api from running") {
			found = h.Verdict == "inconclusive"
		}
	}
	if !found {
		t.Errorf("want an inconclusive disk-pressure hypothesis: %+v", r.Hypotheses)
	}
	fine := bundletest.PodBundle(bundletest.Pod("api", bundletest.Healthy), bundletest.NtOnNode(disk.DeepCopy()))
	for _, h := range investigate.Investigate(fine, investigate.Options{Now: bundletest.Now}).Hypotheses {
		if strings.Contains(h.Statement, "DiskPressure") {
			t.Errorf("healthy pod got a node hypothesis: %+v", h)
		}
	}
}
