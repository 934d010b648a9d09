package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
)

func init() { register(nodeScenarios...) }

// nodeCondition sets one condition of a node being built.
func nodeCondition(t corev1.NodeConditionType, status corev1.ConditionStatus, reason, msg string, heartbeat, since metav1.Time) func(*corev1.Node) {
	return func(n *corev1.Node) {
		cond := corev1.NodeCondition{Type: t, Status: status, Reason: reason, Message: msg, LastHeartbeatTime: heartbeat, LastTransitionTime: since}
		for i := range n.Status.Conditions {
			if n.Status.Conditions[i].Type == t {
				n.Status.Conditions[i] = cond
				return
			}
		}
		n.Status.Conditions = append(n.Status.Conditions, cond)
	}
}

// nodeUnreachable is what the node lifecycle controller writes once the
// kubelet has missed its heartbeats: every condition Unknown, the last
// heartbeat frozen.
func nodeUnreachable(minutes int) func(*corev1.Node) {
	return func(n *corev1.Node) {
		hb, since := minutesAgo(minutes), minutesAgo(minutes-1)
		for i := range n.Status.Conditions {
			c := &n.Status.Conditions[i]
			c.Status, c.Reason, c.Message, c.LastHeartbeatTime, c.LastTransitionTime = corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.", hb, since
		}
	}
}

func nodeRecent() metav1.Time {
	return metav1.NewTime(time.Now().Add(-10 * time.Second).Truncate(time.Second))
}

// nodeControllerEvent is an event of the node lifecycle controller, filed
// against the Node's UID.
func nodeControllerEvent(t *testing.T, c *testcluster.Cluster, n *corev1.Node, reason, msg string, minutes int) {
	t.Helper()
	c.Event(t, testcluster.EventSpec{Object: n, Type: corev1.EventTypeNormal, Reason: reason, Message: msg,
		First: time.Now().Add(-time.Duration(minutes) * time.Minute), Component: "node-controller"})
}

// kubeletNodeEvent is a node event as the kubelet files it: its
// involvedObject.uid is the node's name, not its UID.
func kubeletNodeEvent(t *testing.T, c *testcluster.Cluster, n *corev1.Node, typ, reason, msg string, count int32, minutes int) {
	t.Helper()
	ref := n.DeepCopy()
	ref.UID = types.UID(n.Name)
	c.Event(t, testcluster.EventSpec{Object: ref, Type: typ, Reason: reason, Message: msg, Count: count,
		First: time.Now().Add(-time.Duration(minutes) * time.Minute), Component: "kubelet", Host: n.Name})
}

// nodePod creates a pod bound to node with the given status.
func nodePod(t *testing.T, c *testcluster.Cluster, ns, name, node string, status corev1.PodStatus, mutate ...func(*corev1.Pod)) *corev1.Pod {
	t.Helper()
	p := simplePod(name, func(p *corev1.Pod) {
		p.Namespace = ns
		p.Spec.NodeName = node
		p.Spec.Containers[0].Image = "shop/" + name + ":1.0.0"
		p.Status = status
	})
	for _, m := range mutate {
		m(p)
	}
	return c.CreatePod(t, p)
}

// staleRunning is a pod status the kubelet wrote before its node went dark,
// with Ready turned False by the node lifecycle controller.
func staleRunning(container, image string) corev1.PodStatus {
	st := schedRunningStatus(container, image)
	for i := range st.Conditions {
		if st.Conditions[i].Type == corev1.PodReady {
			st.Conditions[i].Status, st.Conditions[i].LastTransitionTime = corev1.ConditionFalse, minutesAgo(13)
		}
	}
	return st
}

var nodeScenarios = []scenario{
	{
		name: "node-kubelet-stopped-posting",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name := "down-" + schedSuffix(ns)
			n := schedNode(t, c, name, nodeUnreachable(14))
			nodeControllerEvent(t, c, n, "NodeNotReady", fmt.Sprintf("Node %s status is now: NodeNotReady", name), 13)
			nodePod(t, c, ns, "api", name, staleRunning("app", "shop/api:1.0.0"))
			nodePod(t, c, ns, "worker", name, staleRunning("app", "shop/worker:1.0.0"))
			return []string{"node/" + name}
		},
		category: "Node/NotReady/KubeletStoppedPosting",
		culprit:  []string{"kubelet: no status since", "stopped posting status 14m ago", "not ready"},
	},
	{
		name: "node-cni-not-ready",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name := "cni-" + schedSuffix(ns)
			schedNode(t, c, name, nodeCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady",
				"container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: cni plugin not initialized",
				nodeRecent(), minutesAgo(8)))
			return []string{"nodes", name}
		},
		category: "Node/NotReady/CNI",
		culprit:  []string{"Ready=False (KubeletNotReady)", "cni plugin not initialized"},
	},
	{
		name: "node-disk-pressure",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name := "disk-" + schedSuffix(ns)
			n := schedNode(t, c, name, nodeCondition(corev1.NodeDiskPressure, corev1.ConditionTrue, "KubeletHasDiskPressure", "kubelet has disk pressure", nodeRecent(), minutesAgo(25)))
			kubeletNodeEvent(t, c, n, corev1.EventTypeWarning, "EvictionThresholdMet", "Attempting to reclaim ephemeral-storage", 4, 25)
			kubeletNodeEvent(t, c, n, corev1.EventTypeWarning, "ImageGCFailed",
				"failed to garbage collect required amount of images. Attempted to free 9663676416 bytes, but only found 0 bytes eligible to free.", 7, 24)
			nodePod(t, c, ns, "reports", name, corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", StartTime: ptr(minutesAgo(120)),
				Message: "The node was low on resource: ephemeral-storage. Threshold quantity: 10Gi, available: 6124Mi. Container app was using 31Gi, request is 0, has larger consumption of ephemeral-storage. "})
			nodePod(t, c, ns, "web", name, schedRunningStatus("app", "shop/web:1.0.0"))
			return []string{"node/" + name}
		},
		category: "Node/DiskPressure",
		culprit:  []string{"nodefs.available", "DiskPressure=True"},
	},
	{
		name: "node-memory-pressure",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name := "mem-" + schedSuffix(ns)
			n := schedNode(t, c, name, nodeCondition(corev1.NodeMemoryPressure, corev1.ConditionTrue, "KubeletHasInsufficientMemory", "kubelet has insufficient memory available", nodeRecent(), minutesAgo(6)))
			kubeletNodeEvent(t, c, n, corev1.EventTypeWarning, "EvictionThresholdMet", "Attempting to reclaim memory", 3, 6)
			nodePod(t, c, ns, "cache", name, schedRunningStatus("app", "shop/cache:1.0.0"))
			return []string{"node/" + name}
		},
		category: "Node/MemoryPressure",
		culprit:  []string{"memory.available", "MemoryPressure=True"},
	},
	{
		name: "node-cordoned-drain-unfinished",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name := "maint-" + schedSuffix(ns)
			n := schedNode(t, c, name, schedCordon)
			kubeletNodeEvent(t, c, n, corev1.EventTypeNormal, "NodeNotSchedulable", fmt.Sprintf("Node %s status is now: NodeNotSchedulable", name), 1, 50)
			nodePod(t, c, ns, "billing", name, schedRunningStatus("app", "shop/billing:1.0.0"))
			return []string{"node/" + name}
		},
		category: "Node/Cordoned",
		culprit:  []string{"spec.unschedulable=true", "cordoned", "other than DaemonSet pods still run"},
	},
	{
		name: "node-network-unavailable",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name := "noroute-" + schedSuffix(ns)
			schedNode(t, c, name, nodeCondition(corev1.NodeNetworkUnavailable, corev1.ConditionTrue, "NoRouteCreated", "RouteController failed to create a route", nodeRecent(), minutesAgo(12)))
			return []string{"node/" + name}
		},
		category: "Node/NetworkUnavailable",
		culprit:  []string{"NetworkUnavailable=True (NoRouteCreated)"},
	},
	{
		name: "node-pod-on-unreachable-node",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name := "gone-" + schedSuffix(ns)
			n := schedNode(t, c, name, nodeUnreachable(22))
			nodeControllerEvent(t, c, n, "NodeNotReady", fmt.Sprintf("Node %s status is now: NodeNotReady", name), 21)
			nodePod(t, c, ns, "checkout", name, staleRunning("app", "shop/checkout:1.0.0"))
			return []string{"pod/checkout"}
		},
		category: "Node/NotReady/KubeletStoppedPosting",
		culprit:  []string{"the pod's node gone-", "stopped posting status 22m ago", "kubelet: no status since"},
	},
	{
		name: "node-pod-stuck-terminating",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name := "lost-" + schedSuffix(ns)
			n := schedNode(t, c, name, nodeUnreachable(40))
			nodeControllerEvent(t, c, n, "NodeNotReady", fmt.Sprintf("Node %s status is now: NodeNotReady", name), 39)
			p := nodePod(t, c, ns, "queue-0", name, staleRunning("app", "shop/queue:1.0.0"))
			// The taint manager evicted it; without a kubelet to confirm, the
			// pod stays Terminating.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := c.Client.CoreV1().Pods(ns).Delete(ctx, p.Name, metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete pod: %v", err)
			}
			return []string{"pod/queue-0"}
		},
		category: "Node/NotReady/KubeletStoppedPosting",
		culprit:  []string{"stuck Terminating", "lost-", "kubelet: no status since"},
	},
	{
		name: "node-pod-evicted-memory",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name := "evict-" + schedSuffix(ns)
			n := schedNode(t, c, name, nodeCondition(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available", nodeRecent(), minutesAgo(9)))
			kubeletNodeEvent(t, c, n, corev1.EventTypeWarning, "EvictionThresholdMet", "Attempting to reclaim memory", 1, 12)
			nodePod(t, c, ns, "search", name, corev1.PodStatus{
				Phase: corev1.PodFailed, Reason: "Evicted", StartTime: ptr(minutesAgo(90)),
				Message: "The node was low on resource: memory. Threshold quantity: 100Mi, available: 87364Ki. Container app was using 1572864Ki, request is 128Mi, has larger consumption of memory. ",
				Conditions: []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "TerminationByKubelet",
					Message: "The node was low on resource: memory. Threshold quantity: 100Mi, available: 87364Ki. ", LastTransitionTime: minutesAgo(12)}},
				ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Image: "shop/search:1.0.0",
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "Error", StartedAt: minutesAgo(90), FinishedAt: minutesAgo(12)}}}},
			}, func(p *corev1.Pod) {
				p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")}
			})
			return []string{"pod/search"}
		},
		category: "Node/MemoryPressure/Evicted",
		culprit:  []string{"container app resources.requests.memory (128Mi; it used 1572864Ki", "evict-"},
	},
	{
		name: "node-pod-node-shutdown",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name := "spot-" + schedSuffix(ns)
			n := schedNode(t, c, name)
			kubeletNodeEvent(t, c, n, corev1.EventTypeWarning, "Rebooted", fmt.Sprintf("Node %s has been rebooted, boot id: 5b0c7e4a-1f7e-4c8e-9d0e-2a1f3c4b5d6e", name), 1, 30)
			nodePod(t, c, ns, "notifier", name, corev1.PodStatus{
				Phase: corev1.PodFailed, Reason: "Terminated", Message: "Pod was terminated in response to imminent node shutdown.", StartTime: ptr(minutesAgo(200)),
				Conditions: []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "TerminationByKubelet",
					Message: "Pod was terminated in response to imminent node shutdown.", LastTransitionTime: minutesAgo(31)}},
			})
			return []string{"pod/notifier"}
		},
		category: "Node/Shutdown",
		culprit:  []string{"node/spot-", "shutdown"},
	},
	{
		name: "node-deployment-on-pleg-node",
		setup: func(t *testing.T, c *testcluster.Cluster, ns string) []string {
			name := "pleg-" + schedSuffix(ns)
			schedNode(t, c, name, nodeCondition(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady",
				"PLEG is not healthy: pleg was last seen active 4m12.337s ago; threshold is 3m0s", nodeRecent(), minutesAgo(4)))
			// The pods were placed on the node before its kubelet stalled.
			_, _, pods := c.DeploymentChain(t, ns, testcluster.DeploymentSpec{Name: "catalog", Image: "shop/catalog:4.1.0", Template: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "catalog"}, Annotations: map[string]string{testcluster.AnnotationUnscheduled: "true"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "catalog", Image: "shop/catalog:4.1.0"}}},
			}})
			for _, p := range pods {
				schedBind(t, c, p, name, staleRunning("catalog", "shop/catalog:4.1.0"))
			}
			return []string{"deployment/catalog"}
		},
		category: "Node/NotReady/PLEG",
		culprit:  []string{"PLEG is not healthy", "pleg-"},
	},
}
