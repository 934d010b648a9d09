package clusterwatch

import (
	corev1 "k8s.io/api/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"

	"github.com/kubectl-triage/kubectl-triage/pkg/bundle"
	"github.com/kubectl-triage/kubectl-triage/pkg/fault"
)

// causeHints knows, from the informers' caches, what may have caused a
// pod's fault, so that watch can group it with the faults of that cause
// (fault.Event.Causes): the pod's node while that node is not Ready, its
// ReplicaSet and the Deployment owning that, its Job.
type causeHints struct {
	pods  corelisters.PodLister
	nodes corelisters.NodeLister // nil when the watch is namespaced (no node informer)
}

// forResource is the hints for the object a Warning event is about.
func (h *causeHints) forResource(res fault.Resource) []string {
	if h == nil || h.pods == nil || res.Kind != "Pod" {
		return nil
	}
	pod, err := h.pods.Pods(res.Namespace).Get(res.Name)
	if err != nil {
		return nil
	}
	return h.forPod(pod)
}

// forPod is the hints for a pod.
func (h *causeHints) forPod(pod *corev1.Pod) []string {
	if h == nil {
		return nil
	}
	return podCauses(pod, func(name string) bool {
		if h.nodes == nil {
			return false
		}
		node, err := h.nodes.Get(name)
		return err == nil && !nodeReady(node)
	})
}

// podCauses are the cause keys of a pod's fault: its node when
// nodeNotReady says so, its controller (ReplicaSet and the Deployment
// owning it, or Job).
func podCauses(pod *corev1.Pod, nodeNotReady func(string) bool) []string {
	var out []string
	if n := pod.Spec.NodeName; n != "" && nodeNotReady(n) {
		out = append(out, fault.CauseKey("Node", "", n))
	}
	for _, ref := range pod.OwnerReferences {
		if ref.Controller == nil || !*ref.Controller {
			continue
		}
		switch ref.Kind {
		case "Job":
			out = append(out, fault.CauseKey("Job", pod.Namespace, ref.Name))
		case "ReplicaSet":
			out = append(out, fault.CauseKey("ReplicaSet", pod.Namespace, ref.Name))
			if d := bundle.DeploymentOf(pod); d != "" {
				out = append(out, fault.CauseKey("Deployment", pod.Namespace, d))
			}
		}
	}
	return out
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
