package e2e

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/retry"

	"github.com/kubectl-triage/kubectl-triage/test/testcluster"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Node, pod and Job builders the watch tests use (the scenario corpus that had
// them is test/scenarios directories now).

// schedNode creates a Ready worker node (4 cpu, 8Gi, 110 pods) as a kubelet
// would register it, changed by mutate.
func schedNode(t *testing.T, c *testcluster.Cluster, name string, mutate ...func(*corev1.Node)) *corev1.Node {
	t.Helper()
	res := corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse("4"),
		corev1.ResourceMemory:           resource.MustParse("8Gi"),
		corev1.ResourcePods:             resource.MustParse("110"),
		corev1.ResourceEphemeralStorage: resource.MustParse("100Gi"),
	}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}},
		Status: corev1.NodeStatus{
			Capacity: res, Allocatable: res.DeepCopy(), Conditions: schedHealthyConditions(),
			NodeInfo: corev1.NodeSystemInfo{OperatingSystem: "linux", Architecture: "amd64", KubeletVersion: "v1.35.0", ContainerRuntimeVersion: "containerd://2.1.4"},
		},
	}
	for _, m := range mutate {
		m(n)
	}
	c.Create(t, n)
	return schedReconcileTaints(t, c, n)
}

// deleteNodeAtEnd deletes a node the (sub)test created when it ends: nodes
// are cluster-scoped, and one left behind would change what every later
// scenario sees (node counts, the largest node) from what its capture saw.
func deleteNodeAtEnd(t *testing.T, c *testcluster.Cluster, name string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.Client.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete node %s: %v", name, err)
		}
	})
}

func schedRunningStatus(container, image string) corev1.PodStatus {
	return corev1.PodStatus{
		Phase: corev1.PodRunning, HostIP: "10.0.3.17", PodIP: "10.244.3.9", StartTime: ptr(minutesAgo(45)),
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(45)},
			{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: minutesAgo(44)},
		},
		ContainerStatuses: []corev1.ContainerStatus{{Name: container, Image: image, Ready: true, Started: ptr(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: minutesAgo(44)}}}},
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

// schedHealthyConditions are the conditions of a kubelet posting normally.
func schedHealthyConditions() []corev1.NodeCondition {
	hb := metav1.NewTime(time.Now().Add(-10 * time.Second).Truncate(time.Second))
	since := minutesAgo(600)
	return []corev1.NodeCondition{
		{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available", LastHeartbeatTime: hb, LastTransitionTime: since},
		{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure", LastHeartbeatTime: hb, LastTransitionTime: since},
		{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available", LastHeartbeatTime: hb, LastTransitionTime: since},
		{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status", LastHeartbeatTime: hb, LastTransitionTime: since},
	}
}

// schedReconcileTaints does the node lifecycle controller's part: the
// apiserver's TaintNodesByCondition admission taints every new node
// not-ready, and the controller then keeps the condition taints in step
// with the node's conditions and spec.unschedulable.
func schedReconcileTaints(t *testing.T, c *testcluster.Cluster, n *corev1.Node) *corev1.Node {
	t.Helper()
	var taints []corev1.Taint
	for _, taint := range n.Spec.Taints {
		if !controllerTaints[taint.Key] {
			taints = append(taints, taint)
		}
	}
	added := ptr(minutesAgo(30))
	add := func(key string, effects ...corev1.TaintEffect) {
		for _, e := range effects {
			taints = append(taints, corev1.Taint{Key: key, Effect: e, TimeAdded: added})
		}
	}
	for _, cond := range n.Status.Conditions {
		switch {
		case cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionFalse:
			add("node.kubernetes.io/not-ready", corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute)
		case cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionUnknown:
			add("node.kubernetes.io/unreachable", corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute)
		case cond.Status != corev1.ConditionTrue:
		case cond.Type == corev1.NodeMemoryPressure:
			add("node.kubernetes.io/memory-pressure", corev1.TaintEffectNoSchedule)
		case cond.Type == corev1.NodeDiskPressure:
			add("node.kubernetes.io/disk-pressure", corev1.TaintEffectNoSchedule)
		case cond.Type == corev1.NodePIDPressure:
			add("node.kubernetes.io/pid-pressure", corev1.TaintEffectNoSchedule)
		case cond.Type == corev1.NodeNetworkUnavailable:
			add("node.kubernetes.io/network-unavailable", corev1.TaintEffectNoSchedule)
		}
	}
	if n.Spec.Unschedulable {
		add("node.kubernetes.io/unschedulable", corev1.TaintEffectNoSchedule)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out *corev1.Node
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := c.Client.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.Taints = taints
		out, err = c.Client.CoreV1().Nodes().Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("set taints of node %s: %v", n.Name, err)
	}
	return out
}

// controllerTaints are the taints the node lifecycle controller manages.
var controllerTaints = map[string]bool{
	"node.kubernetes.io/not-ready": true, "node.kubernetes.io/unreachable": true, "node.kubernetes.io/unschedulable": true,
	"node.kubernetes.io/memory-pressure": true, "node.kubernetes.io/disk-pressure": true, "node.kubernetes.io/pid-pressure": true,
	"node.kubernetes.io/network-unavailable": true,
}

// wlFailedJobStatus is what the job controller writes when a Job fails: the
// FailureTarget condition first, then Failed with the same reason.
func wlFailedJobStatus(reason, msg string, failed int32, started, finished time.Duration) batchv1.JobStatus {
	return batchv1.JobStatus{
		Failed: failed, StartTime: ptr(wlAgo(started)),
		Conditions: []batchv1.JobCondition{
			{Type: batchv1.JobFailureTarget, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastProbeTime: wlAgo(finished), LastTransitionTime: wlAgo(finished)},
			{Type: batchv1.JobFailed, Status: corev1.ConditionTrue, Reason: reason, Message: msg, LastProbeTime: wlAgo(finished), LastTransitionTime: wlAgo(finished)},
		},
	}
}

func wlFailedPodStatus(container, image string, code int32, finished time.Duration) corev1.PodStatus {
	return corev1.PodStatus{
		Phase: corev1.PodFailed, HostIP: "127.0.0.1", PodIP: "10.244.0.31", StartTime: ptr(wlAgo(finished + time.Minute)),
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: wlAgo(finished + time.Minute)},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "PodFailed", LastTransitionTime: wlAgo(finished)},
		},
		ContainerStatuses: []corev1.ContainerStatus{{Name: container, Image: image, ImageID: image + "@sha256:02", ContainerID: "containerd://f1",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Error",
				StartedAt: wlAgo(finished + 30*time.Second), FinishedAt: wlAgo(finished), ContainerID: "containerd://f1"}}}},
	}
}
