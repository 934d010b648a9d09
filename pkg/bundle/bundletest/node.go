package bundletest

import (
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// Builders of the node cases (prefix Nt).

func NtCondition(t corev1.NodeConditionType, status corev1.ConditionStatus, reason, msg string, since time.Duration) func(*corev1.Node) {
	return func(n *corev1.Node) {
		cond := corev1.NodeCondition{Type: t, Status: status, Reason: reason, Message: msg,
			LastHeartbeatTime: TS(-since), LastTransitionTime: TS(-since)}
		for i := range n.Status.Conditions {
			if n.Status.Conditions[i].Type == t {
				n.Status.Conditions[i] = cond
				return
			}
		}
		n.Status.Conditions = append(n.Status.Conditions, cond)
	}
}

// NtUnknown is what the node lifecycle controller writes when the kubelet
// stops posting: heartbeat frozen, transition when the grace period ended.
func NtUnknown(since time.Duration) func(*corev1.Node) {
	return func(n *corev1.Node) {
		for _, t := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
			NtCondition(t, corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.", since)(n)
		}
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "node.kubernetes.io/unreachable", Effect: corev1.TaintEffectNoExecute})
	}
}

func NtBundle(n *corev1.Node, mutate ...func(*bundle.Bundle)) *bundle.Bundle {
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

// NtNodeEvent is a node event as the kubelet files it: involvedObject.uid
// is the node's name.
func NtNodeEvent(node, typ, reason, msg string) corev1.Event {
	return corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: node + "." + strings.ToLower(reason), Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: node, UID: types.UID(node)},
		Type:           typ, Reason: reason, Message: msg, Count: 1,
		FirstTimestamp: TS(-20 * time.Minute), LastTimestamp: TS(-20 * time.Minute),
	}
}

func NtNodePods(pods ...*corev1.Pod) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) { b.NodePods = append(b.NodePods, pods...) }
}

func NtOnNode(n *corev1.Node) func(*bundle.Bundle) {
	return func(b *bundle.Bundle) {
		b.Nodes = []*corev1.Node{n}
		for _, p := range b.Pods {
			p.Spec.NodeName = n.Name
		}
	}
}

func NtEvicted(msg string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status = corev1.PodStatus{Phase: corev1.PodFailed, Reason: "Evicted", Message: msg, StartTime: &metav1.Time{Time: Now.Add(-time.Hour)}}
	}
}
